//! The `queue_depth` slots IOs run in, and starting an IO in one: which slots are free (the one
//! free longest is taken first), what is in flight, and whether an arrival found every slot busy
//! at its scheduled time (it is then *late*: its wait is queueing, not iogen's own lag).

use std::collections::VecDeque;
use std::time::Instant;

use anyhow::{bail, Context};

use crate::engine::{Completion, Engine, OpKind, Submission};
use crate::stats::Launch;
use crate::workload::Workload;

/// An IO in flight.
#[derive(Debug, Clone, Copy)]
pub(super) struct InFlight {
    pub(super) kind: OpKind,
    pub(super) len: usize,
    pub(super) scheduled: Instant,
    pub(super) launched: Instant,
    pub(super) launch: Launch,
}

/// A slot's current busy run: busy from `run_start` until `done` (`None`: still in flight).
/// A run continues while arrivals are waiting for the slot (the next IO's scheduled time is
/// before the previous one's completion) and starts afresh otherwise; the short gaps while iogen
/// reaps and relaunches inside a run count as busy. An IO launched late because iogen itself was
/// delayed starts a new run, so the catch-up after a stall is not mistaken for a full queue.
#[derive(Debug, Clone, Copy)]
struct History {
    run_start: Instant,
    done: Option<Instant>,
}

impl History {
    /// An IO scheduled at `scheduled` starts in this slot at `launched`.
    fn start(&mut self, scheduled: Instant, launched: Instant) {
        if self.done.is_none_or(|d| scheduled >= d) {
            self.run_start = launched;
        }
        self.done = None;
    }

    fn busy_at(&self, t: Instant) -> bool {
        self.run_start <= t && self.done.is_none_or(|d| t < d)
    }
}

/// Whether every slot was busy at `t` (an arrival scheduled then had to wait: it is late).
fn all_busy_at(history: &[History], t: Instant) -> bool {
    history.iter().all(|h| h.busy_at(t))
}

/// The `queue_depth` slots: which are free (FIFO, with the instant each became free), what is
/// in flight in the others, and each slot's busy history (to tell late IOs from on-time ones).
pub(super) struct Slots {
    pub(super) free: VecDeque<(usize, Instant)>,
    history: Vec<History>,
    in_flight: Vec<Option<InFlight>>,
}

impl Slots {
    pub(super) fn new(queue_depth: usize, start: Instant) -> Self {
        Slots {
            free: (0..queue_depth).map(|s| (s, start)).collect(),
            history: vec![History { run_start: start, done: Some(start) }; queue_depth],
            in_flight: vec![None; queue_depth],
        }
    }

    pub(super) fn busy(&self) -> usize {
        self.in_flight.len() - self.free.len()
    }

    /// The slot free longest, and how an arrival scheduled at `scheduled` (`None`: `--iops max`)
    /// launched in it now counts. Launch lag is measured from `scheduled` to `launched`.
    pub(super) fn take(&mut self, scheduled: Option<Instant>) -> Option<(usize, bool)> {
        let (slot, freed_at) = self.free.pop_front()?;
        // Cheap test first: the slot free longest was free at the scheduled time.
        let late = scheduled.is_some_and(|t| freed_at > t && all_busy_at(&self.history, t));
        Some((slot, late))
    }

    pub(super) fn start(&mut self, slot: usize, io: InFlight) {
        self.in_flight[slot] = Some(io);
        self.history[slot].start(io.scheduled, io.launched);
    }

    /// Free the slot of completion `c` and return what was in flight in it.
    pub(super) fn complete(&mut self, c: &Completion) -> anyhow::Result<InFlight> {
        let Some(io) = self.in_flight.get_mut(c.slot).and_then(Option::take) else {
            bail!("engine reported a completion for slot {} which is not in flight", c.slot);
        };
        self.free.push_back((c.slot, c.at));
        self.history[c.slot].done = Some(c.at);
        Ok(io)
    }

    /// Free the slot of a completion that is not counted (held past the end of the step, or
    /// drained); false when it was not in flight.
    pub(super) fn discard(&mut self, c: &Completion) -> bool {
        if self.in_flight.get_mut(c.slot).and_then(Option::take).is_some() {
            self.free.push_back((c.slot, c.at));
            true
        } else {
            false
        }
    }
}

/// Start the workload's next IO in `slot`. `scheduled`: the arrival's time (`None`: `--iops
/// max`, scheduled the moment it is launched); `late`: every slot was busy at that time.
pub(super) fn launch_io(
    engine: &mut dyn Engine,
    workload: &mut Workload,
    slots: &mut Slots,
    len: usize,
    slot: usize,
    scheduled: Option<Instant>,
    late: bool,
) -> anyhow::Result<()> {
    let (kind, offset) = workload.next_io();
    let launched = Instant::now();
    let launch = match scheduled {
        None => Launch::Unscheduled,
        Some(_) if late => Launch::Late,
        Some(t) => Launch::OnTime { lag_ns: launched.saturating_duration_since(t).as_nanos() as u64 },
    };
    slots.start(slot, InFlight { kind, len, scheduled: scheduled.unwrap_or(launched), launched, launch });
    engine.submit(Submission { slot, kind, offset, len }).with_context(|| format!("submitting an IO at byte {offset}"))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn the_slot_free_longest_is_taken_and_lateness_needs_every_slot_busy() {
        let t0 = Instant::now();
        let ms = |n: u64| t0 + Duration::from_millis(n);
        let mut s = Slots::new(2, t0);
        let io = |at: Instant| InFlight {
            kind: OpKind::Read,
            len: 1,
            scheduled: at,
            launched: at,
            launch: Launch::Unscheduled,
        };
        let (a, late) = s.take(Some(ms(1))).unwrap();
        assert_eq!((a, late), (0, false));
        s.start(a, io(ms(1)));
        let (b, _) = s.take(Some(ms(1))).unwrap();
        s.start(b, io(ms(1)));
        assert_eq!(s.busy(), 2);
        assert!(s.take(Some(ms(2))).is_none());
        // Slot 1 completes at 5, slot 0 at 6: an arrival scheduled at 3 found both busy (late),
        // one scheduled at 5 had slot 1 free (on time), and gets slot 1, the one free longest.
        s.complete(&Completion { slot: 1, result: Ok(1), at: ms(5) }).unwrap();
        s.complete(&Completion { slot: 0, result: Ok(1), at: ms(6) }).unwrap();
        assert_eq!(s.take(Some(ms(3))), Some((1, true)));
        assert_eq!(s.take(Some(ms(5))), Some((0, false)));
        assert!(s.complete(&Completion { slot: 1, result: Ok(1), at: ms(7) }).is_err(), "not in flight");
    }

    #[test]
    fn late_means_every_slot_was_busy_at_the_scheduled_time() {
        let t0 = Instant::now();
        let ms = |n: u64| t0 + Duration::from_millis(n);
        // One slot, overloaded: IO 1 scheduled and launched at 1, done at 3; arrival 2 (at 2)
        // waited for it, so the busy run goes on from 1 and arrival 3 (at 3.5) finds it busy.
        let mut h = History { run_start: t0, done: Some(t0) };
        h.start(ms(1), ms(1));
        h.done = Some(ms(3));
        assert!(h.busy_at(ms(2)));
        h.start(ms(2), ms(3));
        h.done = Some(ms(5));
        assert!(all_busy_at(&[h], ms(4)));
        // iogen stalled from 5 to 10: the slot idled; the catch-up launch at 10 starts a new run,
        // so arrivals scheduled during the stall are not late.
        h.start(ms(6), ms(10));
        assert!(!h.busy_at(ms(7)));
        assert!(h.busy_at(ms(11)));
        // Two slots: late only when both are busy.
        let idle = History { run_start: t0, done: Some(ms(1)) };
        assert!(!all_busy_at(&[h, idle], ms(11)));
    }
}
