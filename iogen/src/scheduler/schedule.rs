//! The arrival schedule of a step: the seeded arrival process (`crate::arrivals`) turned into
//! instants, consumed strictly in order; none with `--iops max` (an IO is then scheduled the moment
//! a slot frees). Arrivals are generated one at a time, so memory stays flat when the target
//! cannot keep up.

use std::time::{Duration, Instant};

use crate::arrivals::{ArrivalProcess, Grid};
use crate::options::{Iops, Options};

/// The arrivals still to come and the instant of the next one.
pub(super) struct Schedule {
    /// The step's time zero (warm-up start), which arrival offsets count from.
    start: Instant,
    /// `None` with `--iops max`.
    process: Option<ArrivalProcess>,
    /// Scheduled instant of the next arrival (`None` with `--iops max`).
    next: Option<Instant>,
}

impl Schedule {
    /// The schedule of a step that starts at `start`.
    pub(super) fn new(opts: &Options, start: Instant) -> Self {
        let mut process = match opts.iops {
            Iops::Rate(r) => Some(ArrivalProcess::new(
                opts.arrivals,
                r,
                opts.seed,
                Grid { warmup_s: opts.warmup.as_secs_f64(), sub_s: opts.subinterval.as_secs_f64() },
            )),
            Iops::Max => None,
        };
        let next = process.as_mut().map(|a| start + Duration::from_secs_f64(a.next_offset()));
        Schedule { start, process, next }
    }

    /// Whether there is no schedule (`--iops max`): fill every free slot.
    pub(super) fn is_max(&self) -> bool {
        self.process.is_none()
    }

    /// The next arrival's scheduled instant, due or not (`None` with `--iops max`).
    pub(super) fn next(&self) -> Option<Instant> {
        self.next
    }

    /// The next arrival's scheduled instant when it is due at `now`.
    pub(super) fn due(&self, now: Instant) -> Option<Instant> {
        self.next.filter(|t| *t <= now)
    }

    /// The next arrival was launched: move to the one after it.
    pub(super) fn advance(&mut self) {
        if let Some(p) = self.process.as_mut() {
            self.next = Some(self.start + Duration::from_secs_f64(p.next_offset()));
        }
    }
}
