//! One step: open its target and engine, start together with the other ranks (if any), run the
//! scheduler under the chosen scheduling policy, and write the rows.

use std::time::Instant;

use crate::cluster::aggregate::StepAggregate;
use crate::cluster::{start_together, ClusterSink, Root};
use crate::cpu::CpuSample;
use crate::engine::Engine;
use crate::options::Options;
use crate::output::{summary_records, Interruption, Record, StepInfo};
use crate::realtime;
use crate::scheduler::{run_step_with, LocalSink, SeenEnoughStatus, StepOutcome, StepStart, SubintervalReport};
use crate::stats::IntervalStats;
use crate::workload::Workload;

use super::open::{open_step, Opened, StepContext};
use super::outputs::Outputs;
use super::preconditioning::{warn_not_preconditioned, Preconditioning};
use super::priority::{enter_for_start, enter_realtime};
use super::raw;
use super::signals::StopSignals;
use super::steps::Step;
use super::warnings::warn_about;

/// Step `number` of `count`: prepare the target, open the engine, run (with the other ranks, if
/// any), write the rows. `Err(code)`: the ranks agreed to stop with that exit code.
pub(super) fn run_one_step(
    ctx: &StepContext,
    step: &Step,
    signals: &StopSignals,
    conditioning: &mut Preconditioning,
    outputs: &mut Option<Outputs>,
) -> anyhow::Result<Result<StepOutcome, i32>> {
    let (number, count, c) = (ctx.number, ctx.count, ctx.cluster);
    let o = &step.opts;
    let Opened { target, mut engine, first, blocks, preconditioned } =
        match open_step(ctx, o, conditioning, &signals.flag)? {
            Ok(x) => x,
            Err(code) => return Ok(Err(code)),
        };
    let who = if c.size() > 1 { format!(" (rank {} of {})", c.rank(), c.size()) } else { String::new() };
    eprintln!(
        "iogen: step {number} of {count} ({}) on {} ({:?}, {blocks} blocks of {} bytes), engine {}{who}",
        step.name,
        o.target.display(),
        target.kind,
        o.block_size,
        engine.name()
    );
    let base = target.data_start + first * o.block_size;
    let workload = Workload::new(o.read_pct, o.random_pct, base, o.block_size, blocks, o.seed);
    let total = Options { iops: step.total_iops, ..o.clone() };
    let mut info = StepInfo::new(&total, number, &step.name, &step.labels);
    if preconditioned {
        info.preconditioned = Some(true);
    } else if o.workload_writes() && c.rank() == 0 {
        warn_not_preconditioned(number, o, target.kind);
    }
    let keep_raw = raw::wanted();
    // Only this thread, and only while the step runs: engine workers exist already (normal policy).
    let normal = enter_realtime(number, o, engine.name())?;
    let run = Measured { ctx, opts: o, total: &total, info: &info, keep_raw, signals };
    let outcome = run.run(engine.as_mut(), workload, outputs, normal.is_some());
    if let Some(before) = normal {
        realtime::leave(before);
    }
    let (outcome, cluster_summary, step_start) = outcome?;
    drop(engine);
    if keep_raw {
        raw::write_raw_latencies(c.rank(), &outcome)?;
    }
    if let Some(out) = outputs.as_mut() {
        // The signal that cut the run in this step; on rank 0 of a cluster, one only another rank
        // caught is known by name to that rank alone.
        let cut = signals
            .interruption(step_start)
            .or_else(|| outcome.interrupted.then(|| Interruption { by: "signal".into(), at_s: None }));
        out.step(cluster_summary.unwrap_or_else(|| summary_records(&info, &outcome)), cut.as_ref())?;
    }
    warn_about(number, o, &outcome, normal.is_some());
    Ok(Ok(outcome))
}

/// The summary rows of a step that a signal cut before it started (while its target was laid out
/// or preconditioned): nothing measured (`measure_seconds` 0, no rates or latencies, no engine),
/// `interrupted_by` the signal, `interrupted_at_s` 0.
pub(super) fn cut_before_start(
    ctx: &StepContext,
    step: &Step,
    signals: &StopSignals,
    outputs: &mut Outputs,
) -> anyhow::Result<()> {
    let o = &step.opts;
    let total = Options { iops: step.total_iops, ..o.clone() };
    let mut info = StepInfo::new(&total, ctx.number, &step.name, &step.labels);
    if o.writes() {
        // Its preconditioning, if asked for, did not finish.
        info.preconditioned = Some(false);
    }
    let now = CpuSample::now();
    let outcome = StepOutcome {
        measure: IntervalStats::default(),
        measure_seconds: 0.0,
        measured_seconds: 0.0,
        steady_from: None,
        cpu: now.usage_until(&now),
        seen_enough: match o.seen_enough {
            Some(_) => SeenEnoughStatus::On { result: None },
            None => SeenEnoughStatus::Off { achieved: None },
        },
        interrupted: true,
        disk_full: false,
        behind_s: 0.0,
        engine: "",
        raw: Vec::new(),
    };
    outputs.step(summary_records(&info, &outcome), signals.interruption(Instant::now()).as_ref())
}

/// What the measured part of a step needs besides its engine and workload.
struct Measured<'a> {
    ctx: &'a StepContext<'a>,
    /// This rank's options.
    opts: &'a Options,
    /// The options with `--iops` as given (the total over all ranks).
    total: &'a Options,
    info: &'a StepInfo,
    keep_raw: bool,
    signals: &'a StopSignals,
}

impl Measured<'_> {
    /// Start together with the other ranks, then run the scheduler: alone, rows go straight to
    /// the outputs; in a cluster, through the exchange, and rank 0 also returns the summary rows
    /// of every rank and `all`. Returns the outcome, those rows, and the step's time zero.
    fn run(
        &self,
        engine: &mut dyn Engine,
        workload: Workload,
        outputs: &mut Option<Outputs>,
        step_is_realtime: bool,
    ) -> anyhow::Result<(StepOutcome, Option<Vec<Record>>, Instant)> {
        let (c, number, o) = (self.ctx.cluster, self.ctx.number, self.opts);
        let (signals, stop) = (self.signals, &*self.signals.flag);
        let fifo_start = enter_for_start(c.size(), step_is_realtime, o);
        let started = start_together(c);
        if let Some(before) = fifo_start {
            realtime::leave(before);
        }
        let s = started?;
        if let (Some((skew, late)), true) = (s.skew, c.size() > 1) {
            eprintln!(
                "iogen: step {number} started on {} ranks together: start skew {:.3} ms (the last rank woke {:.3} ms \
                 after the agreed instant)",
                c.size(),
                skew.as_secs_f64() * 1e3,
                late.as_secs_f64() * 1e3
            );
        }
        let start = StepStart { at: s.at, keep_raw: self.keep_raw };
        if c.size() == 1 {
            let out = outputs.as_mut().expect("a single process writes the outputs");
            let mut on_row = |r: &SubintervalReport| out.subinterval(self.info, r, signals.interruption(s.at).as_ref());
            let outcome = run_step_with(engine, workload, o, stop, start, &mut LocalSink(&mut on_row))?;
            return Ok((outcome, None, s.at));
        }
        let mut write = |rows: &[Record]| {
            let cut = signals.interruption(s.at);
            outputs.as_mut().map_or(Ok(()), |out| out.rows(rows.to_vec(), cut.as_ref()))
        };
        let root = (c.rank() == 0).then(|| Root {
            aggregate: StepAggregate::new(self.total, self.ctx.hosts.to_vec()),
            info: self.info.clone(),
            write: &mut write,
            received: Vec::new(),
        });
        let mut sink = ClusterSink::new(c, root);
        let outcome = run_step_with(engine, workload, o, stop, start, &mut sink)?;
        let closes = outcome_closes(&outcome, o);
        if c.rank() == 0 && closes > 0 {
            eprintln!(
                "iogen: step {number}: exchanging each subinterval with the other ranks took {:.3} ms on rank 0 (mean of \
                 {closes}; {} bytes from this rank)",
                sink.exchange_time.as_secs_f64() * 1e3 / closes as f64,
                sink.last_message_bytes
            );
        }
        let summary = sink.into_root().map(|r| r.aggregate.summary(self.info, engine.name()));
        Ok((outcome, summary, s.at))
    }
}

/// Subintervals a step closed (warm-up and measurement), for the mean exchange time.
fn outcome_closes(outcome: &StepOutcome, o: &Options) -> usize {
    let sub = o.subinterval.as_secs_f64();
    let warm = (o.warmup.as_secs_f64() / sub).ceil();
    (warm + (outcome.measure_seconds / sub).ceil()) as usize
}
