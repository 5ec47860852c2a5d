//! What the measurement phase has gathered: merged counters, the focus metric per subinterval for
//! the seen-enough rule, and (when the rule looks for where steady state begins) what the summary
//! needs to cover the steady-state window only.

use crate::cpu::CpuSample;
use crate::options::{Focus, Options, DEFAULT_SEEN_ENOUGH};
use crate::seen_enough::{SeenEnough, Transient, MSER_BATCH};
use crate::stats::{CompactStats, IntervalStats};

use super::SeenEnoughStatus;

/// What the measurement phase has gathered so far (also the aggregate of a cluster's ranks,
/// `crate::cluster::StepAggregate`, so the stop rule is the same code for one rank or many).
#[derive(Default)]
pub(crate) struct Measurement {
    pub(crate) stats: IntervalStats,
    pub(crate) seconds: f64,
    /// Focus metric per measured subinterval, for the seen-enough rule.
    series: Vec<f64>,
    /// 0-based measured subinterval of each `series` value (a subinterval without a focus value,
    /// e.g. no IO for a service-time focus, has none).
    series_sub: Vec<usize>,
    /// With the transient check, so the summary can cover the steady-state window only: each
    /// measured subinterval's seconds and the CPU reading at its start, and the counters of each
    /// batch of [`MSER_BATCH`] measured subintervals (compact; MSER-5 starts steady state at a
    /// batch boundary), merged and compacted in idle time like the step's totals.
    pub(super) each: Vec<(f64, CpuSample)>,
    batches: Vec<CompactStats>,
    batch: Option<IntervalStats>,
    batch_len: usize,
    /// Measured subintervals so far.
    count: usize,
    /// Last evaluation of the seen-enough rule.
    last_rule: Option<SeenEnough>,
    /// CPU reading when the measurement started.
    pub(super) cpu_start: Option<CpuSample>,
}

impl Measurement {
    /// Nothing measured yet; `cpu_start`: the CPU reading now when the step starts measuring
    /// at once (no warm-up).
    pub(super) fn starting(cpu_start: Option<CpuSample>) -> Self {
        Measurement { cpu_start, ..Measurement::default() }
    }

    /// Count one measured subinterval in the stop rule (its counters are merged later, see
    /// [`StepRun::settle`]); true when the rule says the mean is known well enough.
    pub(crate) fn add(&mut self, opts: &Options, sub: &IntervalStats, seconds: f64) -> bool {
        self.seconds += seconds;
        if let Some(v) = focus_value(opts.focus, sub, seconds) {
            self.series.push(v);
            self.series_sub.push(self.count);
        }
        self.count += 1;
        let Some(spec) = &opts.seen_enough else { return false };
        if self.series.len() < 2 {
            return false;
        }
        // The floor in time: the steady-state window lasts at least 90 s however short a subinterval.
        match spec.judge_timed(&self.series, Some(opts.subinterval.as_secs_f64())) {
            Ok(r) => {
                self.last_rule = Some(r);
                r.seen_enough
            }
            Err(_) => false,
        }
    }

    /// Whether the step's summary may cover only part of the measurement (the rule finds where
    /// steady state begins).
    fn keeps_each(&self, opts: &Options) -> bool {
        opts.seen_enough.is_some_and(|s| s.transient == Transient::Detect)
    }

    /// Keep a measured subinterval's seconds and the CPU reading at its start, when the summary may
    /// cover only the steady-state window (cheap: this runs in the close).
    pub(super) fn keep(&mut self, opts: &Options, seconds: f64, cpu_start: &CpuSample) {
        if self.keeps_each(opts) {
            self.each.push((seconds, cpu_start.clone()));
        }
    }

    /// Add a measured subinterval's counters to the current batch (in idle time, see
    /// [`StepRun::settle`]); a full batch is stored compactly.
    pub(super) fn batch_add(&mut self, opts: &Options, sub: &IntervalStats) {
        if !self.keeps_each(opts) {
            return;
        }
        let batch = self.batch.get_or_insert_with(IntervalStats::default);
        batch.merge(sub);
        self.batch_len += 1;
        if self.batch_len == MSER_BATCH {
            self.batches.push(CompactStats::of(batch));
            batch.reset();
            self.batch_len = 0;
        }
    }

    /// The counters of measured subintervals `first..` (a batch boundary), after the last
    /// subinterval was added; None when `first` is not at a batch boundary.
    pub(super) fn window(&mut self, first: usize) -> Option<IntervalStats> {
        if !first.is_multiple_of(MSER_BATCH) || first >= self.each.len() {
            return None;
        }
        if self.batch_len > 0 {
            if let Some(b) = self.batch.as_mut() {
                self.batches.push(CompactStats::of(b));
                b.reset();
            }
            self.batch_len = 0;
        }
        let mut out = self.batch.take().unwrap_or_default();
        out.reset();
        for b in &self.batches[first / MSER_BATCH..] {
            b.add_to(&mut out);
        }
        Some(out)
    }

    /// 0-based measured subinterval where the rule judged steady state to begin (None: the rule
    /// does not look for it, or has not run).
    pub(super) fn steady_start(&self, opts: &Options) -> Option<usize> {
        if !self.keeps_each(opts) {
            return None;
        }
        self.last_rule.and_then(|r| self.series_sub.get(r.from - 1).copied())
    }

    pub(crate) fn seen_enough_status(&self, opts: &Options) -> SeenEnoughStatus {
        match &opts.seen_enough {
            Some(_) => SeenEnoughStatus::On { result: self.last_rule },
            None => SeenEnoughStatus::Off {
                achieved: (self.series.len() >= 2)
                    .then(|| {
                        DEFAULT_SEEN_ENOUGH
                            .judge_timed(&self.series, Some(opts.subinterval.as_secs_f64()))
                            .ok()
                            .map(|r| r.achieved)
                    })
                    .flatten(),
            },
        }
    }
}

fn focus_value(focus: Focus, s: &IntervalStats, seconds: f64) -> Option<f64> {
    match focus {
        Focus::Iops => (seconds > 0.0).then(|| s.overall.ios as f64 / seconds),
        Focus::Service => s.overall.service_ms().map(|l| l.avg),
        Focus::Response => s.overall.response_ms().map(|l| l.avg),
    }
}
