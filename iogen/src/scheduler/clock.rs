//! Where a step is in time: its phase (warm-up, measurement), the current subinterval's index and
//! bounds, cut at each phase's end.

use std::time::{Duration, Instant};

use crate::options::Options;

use super::Phase;

/// Where the step is: phase, subinterval index and bounds.
#[derive(Debug, Clone, Copy)]
pub(super) struct Clock {
    pub(super) start: Instant,
    pub(super) measure_start: Instant,
    pub(super) measure_cap: Duration,
    pub(super) subinterval: Duration,
    pub(super) phase: Phase,
    pub(super) phase_start: Instant,
    pub(super) index: usize,
    pub(super) sub_start: Instant,
    pub(super) sub_end: Instant,
}

impl Clock {
    pub(super) fn new(opts: &Options, start: Instant) -> Self {
        let phase = if opts.warmup.is_zero() { Phase::Measure } else { Phase::Warmup };
        let mut clock = Clock {
            start,
            measure_start: start + opts.warmup,
            measure_cap: opts.measure_cap(),
            subinterval: opts.subinterval,
            phase,
            phase_start: start,
            index: 1,
            sub_start: start,
            sub_end: start,
        };
        clock.sub_end = clock.sub_end_from(start);
        clock
    }

    /// End of a subinterval starting at `from`: one subinterval later, cut at the phase's end.
    fn sub_end_from(&self, from: Instant) -> Instant {
        let cap = match self.phase {
            Phase::Warmup => self.measure_start,
            Phase::Measure => self.phase_start + self.measure_cap,
        };
        (from + self.subinterval).min(cap)
    }

    /// Whether the measurement has reached its longest length at `end`.
    pub(super) fn measure_full(&self, end: Instant) -> bool {
        self.phase == Phase::Measure && end >= self.phase_start + self.measure_cap
    }

    /// Move to the subinterval starting at `end`; true when that starts the measurement.
    pub(super) fn advance(&mut self, end: Instant) -> bool {
        self.sub_start = end;
        self.index += 1;
        let entered_measure = self.phase == Phase::Warmup && end >= self.measure_start;
        if entered_measure {
            self.phase = Phase::Measure;
            self.phase_start = end;
            self.index = 1;
        }
        self.sub_end = self.sub_end_from(end);
        entered_measure
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::Iops;

    fn opts(iops: Iops, warmup_ms: u64, dur_ms: u64, sub_ms: u64) -> Options {
        Options {
            iops,
            warmup: Duration::from_millis(warmup_ms),
            duration: Duration::from_millis(dur_ms),
            subinterval: Duration::from_millis(sub_ms),
            ..Options::default()
        }
    }

    #[test]
    fn clock_cuts_subintervals_at_the_phase_ends() {
        let o = opts(Iops::Max, 100, 100, 40);
        let t0 = Instant::now();
        let ms = |n: u64| t0 + Duration::from_millis(n);
        let mut c = Clock::new(&o, t0);
        let mut seen = vec![(c.phase, c.index, c.sub_end)];
        while !c.measure_full(c.sub_end) {
            let entered = c.advance(c.sub_end);
            assert_eq!(entered, c.sub_start == ms(100));
            seen.push((c.phase, c.index, c.sub_end));
        }
        use Phase::{Measure, Warmup};
        let expected = [
            (Warmup, 1, ms(40)),
            (Warmup, 2, ms(80)),
            (Warmup, 3, ms(100)),
            (Measure, 1, ms(140)),
            (Measure, 2, ms(180)),
            (Measure, 3, ms(200)),
        ];
        assert_eq!(seen, expected);
    }
}
