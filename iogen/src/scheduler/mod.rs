//! The open-loop scheduler: owns timing, counters and histograms, so the numbers mean the same
//! whichever engine moves the bytes.
//!
//! Every IO has a scheduled time (from the arrival process), a launch time (when it was handed
//! to the engine) and a completion time (reported by the engine). service = completion − launch;
//! response = completion − scheduled. Arrivals are consumed strictly in order and never skipped,
//! merged or re-timed: when all `queue_depth` slots are busy the head arrival waits, and the wait
//! is part of its response time. Such an IO is *late*: the slot it gets (the one free longest,
//! FIFO) was freed after its scheduled time. Pending arrivals are generated lazily from the
//! seeded process, so memory stays flat even when the target cannot keep up.
//! With `--iops max` each IO is scheduled at the moment a slot frees: response = service.
//!
//! An IO counts in the subinterval in which it completes. When the measurement ends, no further
//! IO is launched and in-flight IOs are drained without being counted.

mod clock;
mod drain;
mod measurement;
mod schedule;
mod sink;
mod slots;
mod step_run;

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use crate::cpu::CpuUsage;
use crate::engine::Engine;
use crate::options::Options;
use crate::seen_enough::SeenEnough;
use crate::stats::IntervalStats;
use crate::workload::Workload;

pub(crate) use measurement::Measurement;
pub use sink::{CloseSink, Decision, LocalSink, Verdict};
use step_run::StepRun;

/// Warm-up or measurement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Before measuring; rows are written but not summarised.
    Warmup,
    /// Measured; rows are merged into the step summary.
    Measure,
}

impl Phase {
    /// Name in the `phase` column.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Warmup => "warmup",
            Phase::Measure => "measure",
        }
    }
}

/// One finished subinterval, handed to the output as it closes.
#[derive(Debug)]
pub struct SubintervalReport<'a> {
    /// Phase the subinterval belongs to.
    pub phase: Phase,
    /// 1-based index within its phase.
    pub index: usize,
    /// Start, seconds since the step started (warm-up start).
    pub start_s: f64,
    /// Length in seconds.
    pub seconds: f64,
    /// IOs that completed in it.
    pub stats: &'a IntervalStats,
    /// CPU use over it.
    pub cpu: CpuUsage,
}

/// How a step starts: when, and whether to keep every measured IO's response time.
#[derive(Debug, Clone, Copy)]
pub struct StepStart {
    /// The step's time zero (warm-up start); in a cluster, the instant agreed by all ranks.
    pub at: Instant,
    /// Keep (phase, subinterval, response ns) of every measured IO in [`StepOutcome::raw`], to
    /// check merged percentiles against the raw latencies (`IOGEN_TEST_RAW_LATENCIES`).
    pub keep_raw: bool,
}

/// Outcome of the seen-enough rule for the step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SeenEnoughStatus {
    /// No rule requested; `achieved` is the rule's h with default settings over the whole measurement.
    Off {
        /// Relative half-width, or None when it cannot be computed.
        achieved: Option<f64>,
    },
    /// The rule was applied; `result` is the last evaluation.
    On {
        /// Last evaluation (None when too few samples were seen).
        result: Option<SeenEnough>,
    },
}

/// Everything the summary needs about one step.
#[derive(Debug)]
pub struct StepOutcome {
    /// Merged counters of the measurement phase — of its steady-state window when the seen-enough
    /// rule looks for one (`steady_from`).
    pub measure: IntervalStats,
    /// Seconds those counters cover.
    pub measure_seconds: f64,
    /// All measured seconds (sum of measurement subintervals).
    pub measured_seconds: f64,
    /// 1-based measured subinterval where steady state began, when the seen-enough rule looks
    /// for it (`--seen-enough` with the transient check).
    pub steady_from: Option<usize>,
    /// Host and iogen CPU over the measurement.
    pub cpu: CpuUsage,
    /// Seen-enough outcome.
    pub seen_enough: SeenEnoughStatus,
    /// Stopped early by SIGINT/SIGTERM.
    pub interrupted: bool,
    /// Stopped early because the target is full (ENOSPC).
    pub disk_full: bool,
    /// How far behind schedule the oldest arrival not yet launched was when the step ended,
    /// in seconds (0 when iogen kept up). Those arrivals were not issued.
    pub behind_s: f64,
    /// Name of the engine that ran.
    pub engine: &'static str,
    /// With [`StepStart::keep_raw`]: (measurement subinterval index, response ns) of every IO
    /// counted in a measurement row's `overall` category.
    pub raw: Vec<(u32, u64)>,
}

/// Run one step from now, alone: warm-up then measurement, calling `on_row` as each subinterval
/// closes.
pub fn run_step(
    engine: &mut dyn Engine,
    workload: Workload,
    opts: &Options,
    stop: &AtomicBool,
    on_row: &mut dyn FnMut(&SubintervalReport) -> anyhow::Result<()>,
) -> anyhow::Result<StepOutcome> {
    let start = StepStart { at: Instant::now(), keep_raw: false };
    run_step_with(engine, workload, opts, stop, start, &mut LocalSink(on_row))
}

/// Run one step from `start.at`: warm-up then measurement, handing each closed subinterval to
/// `sink`, which decides whether the step goes on (the same loop for one process or a cluster).
pub fn run_step_with(
    engine: &mut dyn Engine,
    workload: Workload,
    opts: &Options,
    stop: &AtomicBool,
    start: StepStart,
    sink: &mut dyn CloseSink,
) -> anyhow::Result<StepOutcome> {
    let mut step = StepRun::new(engine, workload, opts, start, sink.cut_on_stop());
    loop {
        step.reap_ready()?;
        let now = Instant::now();
        if step.subinterval_over(now, stop) {
            if step.close_subinterval(now, stop, sink)? {
                break;
            }
            continue;
        }
        step.launch_due(now)?;
        step.wait()?;
    }
    step.finish()
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;
    use std::time::Duration;

    use super::*;
    use crate::cpu::CpuSample;
    use crate::engine::{Completion, NullEngine, OpKind, Submission};
    use crate::options::{Arrivals, Iops, SeenEnoughMethod};
    use crate::stats::{IoTimes, Launch};

    fn opts(iops: Iops, warmup_ms: u64, dur_ms: u64, sub_ms: u64) -> Options {
        Options {
            target: "/dev/null".into(),
            iops,
            arrivals: Arrivals::Uniform,
            warmup: Duration::from_millis(warmup_ms),
            duration: Duration::from_millis(dur_ms),
            subinterval: Duration::from_millis(sub_ms),
            queue_depth: 4,
            ..Options::default()
        }
    }

    fn run(o: &Options) -> (Vec<(Phase, usize, f64, u64)>, StepOutcome) {
        let mut e = NullEngine::new(o.queue_depth);
        let w = Workload::new(o.read_pct, o.random_pct, 0, o.block_size, 100, 1);
        let stop = AtomicBool::new(false);
        let mut rows = Vec::new();
        let out = run_step(&mut e, w, o, &stop, &mut |r| {
            rows.push((r.phase, r.index, r.seconds, r.stats.overall.ios));
            Ok(())
        })
        .unwrap();
        // The step's totals are the measured rows' (merged after the close, whenever that was).
        let measured: u64 = rows.iter().filter(|r| r.0 == Phase::Measure).map(|r| r.3).sum();
        assert_eq!(measured, out.measure.overall.ios);
        assert_eq!(out.measure.overall.ios, out.measure.read.ios + out.measure.write.ios);
        (rows, out)
    }

    #[test]
    fn phases_and_subintervals() {
        let (rows, out) = run(&opts(Iops::Rate(2000.0), 100, 300, 100));
        let phases: Vec<(Phase, usize)> = rows.iter().map(|r| (r.0, r.1)).collect();
        assert_eq!(phases, vec![(Phase::Warmup, 1), (Phase::Measure, 1), (Phase::Measure, 2), (Phase::Measure, 3)]);
        assert!(rows.iter().all(|r| (r.2 - 0.1).abs() < 1e-9));
        // Uniform arrivals at 2000/s with a null engine: every arrival completes on time.
        // IOs count where they complete: on a loaded machine a few warm-up arrivals complete in
        // the measurement, and the last ones may be launched after its end (not counted).
        let ios = out.measure.overall.ios;
        assert!((540..=660).contains(&ios), "{ios}");
        assert!((out.measure_seconds - 0.3).abs() < 1e-9);
        assert!(!out.interrupted);
    }

    #[test]
    fn spinning_and_sleeping_run_the_same_schedule() {
        // Same seed, same arrivals: the wait strategy changes only when IOs launch, never
        // which arrivals there are. A spin longer than every gap (the thread never sleeps for an
        // arrival) and none at all both complete every arrival and close every subinterval.
        for spin in [Duration::ZERO, Duration::from_micros(50), Duration::from_secs(1)] {
            let o = Options { spin, ..opts(Iops::Rate(2000.0), 50, 200, 100) };
            let (rows, out) = run(&o);
            assert_eq!(rows.len(), 3, "spin {spin:?}");
            // Uniform arrivals every 0.5 ms over the 250 ms step: 500. Each one completes in
            // some row (warm-up or measurement), or was still due but not launched when the
            // step ended (`behind_s` covers those), or completed a hair after the last row's end
            // (at most the 4 slots). Counting over all rows keeps this true when the test
            // thread is descheduled for a while, which on a loaded machine moves IOs between
            // phases and to after the end.
            let total: u64 = rows.iter().map(|r| r.3).sum();
            let unlaunched = out.behind_s * 2000.0;
            let accounted = total as f64 + unlaunched;
            assert!((494.0..=502.0).contains(&accounted), "spin {spin:?}: {total} done + {unlaunched} unlaunched");
            let m = &out.measure.overall;
            assert!(m.response_sum_ns >= m.service_sum_ns);
        }
    }

    #[test]
    fn max_rate_response_equals_service() {
        let (_, out) = run(&opts(Iops::Max, 0, 100, 50));
        let m = &out.measure.overall;
        assert!(m.ios > 1000);
        assert_eq!(m.service_sum_ns, m.response_sum_ns);
        assert_eq!(m.late_ios, 0);
        // No schedule, so no launch lag either.
        assert_eq!(m.on_time_ios, 0);
        assert!(m.lag_ms().is_none());
    }

    #[test]
    fn at_a_rate_every_on_time_io_has_its_launch_lag() {
        // The null engine completes at once, so an arrival finds every slot busy only while
        // iogen catches up after the test thread was descheduled (slots relaunched back to
        // back). Every IO is on time or late; when none is late, the lag (launch − scheduled)
        // of each IO is exactly its response − service.
        let (_, out) = run(&opts(Iops::Rate(2000.0), 0, 200, 100));
        let m = &out.measure.overall;
        assert!(m.ios > 100, "{}", m.ios);
        assert_eq!(m.on_time_ios + m.late_ios, m.ios);
        if m.late_ios == 0 {
            assert_eq!(m.lag_sum_ns, m.response_sum_ns - m.service_sum_ns);
        }
        let lag = m.lag_ms().unwrap();
        assert!(lag.avg >= 0.0 && lag.avg <= lag.max && lag.p99 <= lag.max * 1.001, "{lag:?}");
        assert_eq!(out.engine, "null");
    }

    /// An engine that takes `service` per IO on one worker, to make slots run out.
    struct SlowEngine {
        service: Duration,
        busy_until: Instant,
        pending: VecDeque<Completion>,
    }

    impl Engine for SlowEngine {
        fn name(&self) -> &'static str {
            "slow"
        }
        fn submit(&mut self, sub: Submission) -> anyhow::Result<()> {
            let begin = self.busy_until.max(Instant::now());
            self.busy_until = begin + self.service;
            self.pending.push_back(Completion { slot: sub.slot, result: Ok(sub.len), at: self.busy_until });
            Ok(())
        }
        fn reap(&mut self, min: usize, deadline: Option<Instant>, out: &mut Vec<Completion>) -> anyhow::Result<()> {
            loop {
                let now = Instant::now();
                let mut got = 0;
                while self.pending.front().is_some_and(|c| c.at <= now) {
                    out.push(self.pending.pop_front().unwrap());
                    got += 1;
                }
                if got >= min || deadline.is_some_and(|d| d <= now) || self.pending.is_empty() {
                    return Ok(());
                }
                let until = self.pending.front().unwrap().at;
                let until = deadline.map_or(until, |d| d.min(until));
                std::thread::sleep(until.saturating_duration_since(now));
            }
        }
    }

    #[test]
    fn overload_makes_late_ios_and_response_above_service() {
        // 1 slot, 2 ms service, 1000 arrivals/s: the queue grows; nothing is skipped.
        let mut o = opts(Iops::Rate(1000.0), 0, 200, 100);
        o.queue_depth = 1;
        let mut e =
            SlowEngine { service: Duration::from_millis(2), busy_until: Instant::now(), pending: VecDeque::new() };
        let w = Workload::new(100.0, 100.0, 0, 4096, 100, 1);
        let stop = AtomicBool::new(false);
        let mut measured = 0;
        let out = run_step(&mut e, w, &o, &stop, &mut |r| {
            measured += r.stats.overall.ios;
            Ok(())
        })
        .unwrap();
        let m = &out.measure.overall;
        // A slot is always busy, so each close's counters are merged at the next close or the end.
        assert_eq!(measured, m.ios);
        assert!(m.ios >= 10 && m.ios <= 101, "{}", m.ios);
        // Most are late (fewer when this machine is loaded: an arrival that came while iogen
        // itself was descheduled and the slot idle is rightly not late).
        assert!(m.late_ios > 0, "late {} of {}", m.late_ios, m.ios);
        let (s, r) = (m.service_ms().unwrap(), m.response_ms().unwrap());
        assert!(r.avg > 10.0 * s.avg, "response {} service {}", r.avg, s.avg);
        // Half the arrivals could not be served: the step ends well behind schedule.
        assert!(out.behind_s > 0.02, "{}", out.behind_s);
    }

    #[test]
    fn stop_flag_ends_after_the_current_row() {
        let o = opts(Iops::Rate(1000.0), 0, 10_000, 50);
        let mut e = NullEngine::new(o.queue_depth);
        let w = Workload::new(100.0, 100.0, 0, 4096, 100, 1);
        let stop = AtomicBool::new(true);
        let mut rows = 0;
        let out = run_step(&mut e, w, &o, &stop, &mut |_| {
            rows += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!(rows, 1);
        assert!(out.interrupted);
    }

    /// One measured subinterval of 1 s: `ok` IOs of 100 µs and `failed` ones.
    fn subinterval(ok: u64, failed: u64) -> IntervalStats {
        let mut s = IntervalStats::default();
        let times = IoTimes { service_ns: 100_000, response_ns: 100_000, launch: Launch::OnTime { lag_ns: 0 } };
        for _ in 0..ok {
            s.record(OpKind::Read, 4096, times);
        }
        for _ in 0..failed {
            s.record_error(OpKind::Read);
        }
        s
    }

    #[test]
    fn the_summary_covers_only_the_steady_state_window() {
        // The measurement as StepRun drives it (keep, add, then merge and batch), on a series with a
        // known warm-up: 1 s subintervals (the rule's 90-s floor is then 90 of them), the first 40
        // losing 30 % of their 1000 IOs as errors, then 1000 ± 1 % (a fixed pattern, not timing).
        let mut o = opts(Iops::Rate(1000.0), 0, 0, 1000);
        o.seen_enough = Some(crate::options::SeenEnoughSpec { accuracy: 0.1, ..crate::options::DEFAULT_SEEN_ENOUGH });
        let cpu = CpuSample::now();
        let mut m = Measurement::starting(Some(cpu.clone()));
        let mut counts = Vec::new();
        for i in 0..200u64 {
            let (ok, failed) = if i < 40 { (700, 300) } else { (990 + (i * 37) % 21, 0) };
            let s = subinterval(ok, failed);
            m.keep(&o, 1.0, &cpu);
            let stop = m.add(&o, &s, 1.0);
            m.stats.merge(&s);
            m.batch_add(&o, &s);
            counts.push((ok, failed));
            if stop {
                break;
            }
        }
        let r = match m.seen_enough_status(&o) {
            SeenEnoughStatus::On { result: Some(r) } => r,
            other => panic!("{other:?} after {} subintervals", counts.len()),
        };
        assert!(r.seen_enough, "{r:?} after {} subintervals", counts.len());
        let first = m.steady_start(&o).expect("the rule looks for steady state");
        // MSER-5 cuts at a batch of 5 at or just after the warm-up's end (subinterval 41, from 1).
        assert!((40..=45).contains(&first) && first.is_multiple_of(5), "steady state from {}", first + 1);
        assert_eq!(first + 1, r.from);
        // The window holds exactly the subintervals from there on: their IOs, none of the failures.
        let window = m.window(first).expect("a batch boundary");
        let window_ios: u64 = counts[first..].iter().map(|c| c.0).sum();
        assert_eq!(window.overall.ios, window_ios);
        assert_eq!(window.overall.errors, 0);
        assert_eq!(m.stats.overall.errors, 40 * 300, "the whole measurement keeps the warm-up's failures");
        let each: f64 = m.each[first..].iter().map(|e| e.0).sum();
        assert_eq!(each, (counts.len() - first) as f64, "the window's seconds");
    }

    #[test]
    fn seen_enough_stops_early() {
        // Loose on purpose: the counts per 20-ms subinterval follow the machine's scheduling, and
        // on a loaded machine they swing widely; ±50 % still needs only tens of samples, far
        // below the 250 of the 5-s limit, so the test checks that the rule stops a step, not the
        // clock's steadiness.
        let mut o = opts(Iops::Rate(2000.0), 0, 0, 20);
        o.seen_enough = Some(crate::options::SeenEnoughSpec {
            accuracy: 0.5,
            confidence: 0.95,
            min_samples: 3,
            method: SeenEnoughMethod::Iid,
            transient: crate::options::Transient::Off,
        });
        o.max_duration = Some(Duration::from_secs(5));
        let (rows, out) = run(&o);
        assert!(rows.len() < 250, "{} rows", rows.len());
        match out.seen_enough {
            SeenEnoughStatus::On { result: Some(r) } => assert!(r.seen_enough),
            other => panic!("{other:?}"),
        }
    }
}
