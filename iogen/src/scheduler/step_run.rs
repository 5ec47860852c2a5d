//! One step in progress, driven through its phases by [`super::run_step_with`]: reap what
//! completed, close the subinterval when its end has passed, launch the arrivals that are due,
//! wait; at the end, drain and sum up.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::cpu::CpuSample;
use crate::engine::{Completion, Engine};
use crate::options::Options;
use crate::stats::{IntervalStats, IoTimes};
use crate::workload::Workload;

use super::clock::Clock;
use super::drain::drain;
use super::schedule::Schedule;
use super::slots::{launch_io, Slots};
use super::{CloseSink, Measurement, Phase, StepOutcome, StepStart, SubintervalReport, Verdict};

/// Idle time needed before the next wake-up to merge a closed subinterval's counters into the
/// measurement and clear them for reuse. Merging nine histograms and clearing them took
/// 0.25–0.45 ms (release build, measured with a temporary timer); done in the close itself, that
/// delayed the launches due then (the largest lag left with `--rt-priority`).
const SETTLE_SLACK: Duration = Duration::from_millis(1);

/// Longest sleep between looks at the stop flag when a signal cuts subintervals short
/// ([`CloseSink::cut_on_stop`]): well inside the second an MPI launcher waits before SIGKILL.
const STOP_POLL: Duration = Duration::from_millis(20);

/// One step in progress. `run_step` drives it through its phases: reap what completed, close
/// the subinterval when its end has passed, launch the arrivals that are due, wait.
pub(super) struct StepRun<'a> {
    engine: &'a mut dyn Engine,
    workload: Workload,
    opts: &'a Options,
    schedule: Schedule,
    slots: Slots,
    clock: Clock,
    /// This subinterval's counters.
    current: IntervalStats,
    /// The last closed subinterval's counters while not yet merged (true: measured), see `settle`.
    closed: Option<(IntervalStats, bool)>,
    /// Cleared counters for the next subinterval.
    spare: Option<IntervalStats>,
    measurement: Measurement,
    cpu_sub: CpuSample,
    /// Reaped completions (reused buffer).
    reaped: Vec<Completion>,
    /// Completions that belong to a later subinterval (they completed after its start).
    held: Vec<Completion>,
    interrupted: bool,
    disk_full: bool,
    /// End of the last subinterval, once the step has finished.
    step_end: Option<Instant>,
    /// Raw (subinterval, response ns) of measured IOs, when kept (see [`StepStart::keep_raw`]).
    raw: Option<Vec<(u32, u64)>>,
    /// Whether a stop signal closes the current subinterval at once ([`CloseSink::cut_on_stop`]).
    cut_on_stop: bool,
}

impl<'a> StepRun<'a> {
    pub(super) fn new(
        engine: &'a mut dyn Engine,
        workload: Workload,
        opts: &'a Options,
        at: StepStart,
        cut_on_stop: bool,
    ) -> Self {
        let start = at.at;
        let clock = Clock::new(opts, start);
        let cpu_sub = CpuSample::now();
        let measurement = Measurement::starting((clock.phase == Phase::Measure).then(|| cpu_sub.clone()));
        StepRun {
            engine,
            workload,
            opts,
            schedule: Schedule::new(opts, start),
            slots: Slots::new(opts.queue_depth, start),
            clock,
            current: IntervalStats::default(),
            closed: None,
            // Allocated now, not at the first close (2.4 MB of histograms: ~1.5 ms then).
            spare: Some(IntervalStats::default()),
            measurement,
            cpu_sub,
            reaped: Vec::with_capacity(opts.queue_depth),
            held: Vec::new(),
            interrupted: false,
            disk_full: false,
            step_end: None,
            raw: at.keep_raw.then(Vec::new),
            cut_on_stop,
        }
    }

    /// Phase 1: count the completions that are ready (those after the subinterval's end wait).
    pub(super) fn reap_ready(&mut self) -> anyhow::Result<()> {
        self.engine.reap(0, None, &mut self.reaped)?;
        let reaped = std::mem::take(&mut self.reaped);
        for c in &reaped {
            self.count_or_hold(c)?;
        }
        self.reaped = reaped;
        self.reaped.clear();
        Ok(())
    }

    fn count_or_hold(&mut self, c: &Completion) -> anyhow::Result<()> {
        if c.at >= self.clock.sub_end {
            self.held.push(*c);
            return Ok(());
        }
        let io = self.slots.complete(c)?;
        match c.result {
            Ok(n) if n == io.len => {
                let times = IoTimes {
                    service_ns: c.at.saturating_duration_since(io.launched).as_nanos() as u64,
                    response_ns: c.at.saturating_duration_since(io.scheduled).as_nanos() as u64,
                    launch: io.launch,
                };
                self.current.record(io.kind, n as u64, times);
                if let Some(raw) = self.raw.as_mut().filter(|_| self.clock.phase == Phase::Measure) {
                    raw.push((self.clock.index as u32, times.response_ns));
                }
            }
            Err(errno) => {
                self.disk_full |= errno == libc::ENOSPC;
                self.current.record_error(io.kind);
            }
            Ok(_) => self.current.record_error(io.kind),
        }
        Ok(())
    }

    /// Whether the subinterval must close now (its end has passed, the disk is full, or a stop
    /// signal came and the sink cuts subintervals short).
    pub(super) fn subinterval_over(&self, now: Instant, stop: &AtomicBool) -> bool {
        now >= self.clock.sub_end || self.disk_full || (self.cut_on_stop && stop.load(Ordering::Relaxed))
    }

    /// Phase 2: write the subinterval's row, hand its counters to the measurement, and move on
    /// to the next subinterval. Returns true when the step is finished.
    pub(super) fn close_subinterval(
        &mut self,
        now: Instant,
        stop: &AtomicBool,
        sink: &mut dyn CloseSink,
    ) -> anyhow::Result<bool> {
        let stopped = stop.load(Ordering::Relaxed);
        let cut = self.disk_full || (self.cut_on_stop && stopped);
        let end = if cut { now.min(self.clock.sub_end).max(self.clock.sub_start) } else { self.clock.sub_end };
        let cpu_now = CpuSample::now();
        let seconds = end.duration_since(self.clock.sub_start).as_secs_f64();
        let measured = self.clock.phase == Phase::Measure;
        let mut verdict = Verdict { interrupted: stopped, disk_full: self.disk_full, ..Verdict::default() };
        if measured {
            self.measurement.keep(self.opts, seconds, &self.cpu_sub);
            verdict.seen_enough = self.measurement.add(self.opts, &self.current, seconds);
            verdict.full = self.clock.measure_full(end);
        }
        let decision = sink.closed(
            &SubintervalReport {
                phase: self.clock.phase,
                index: self.clock.index,
                start_s: self.clock.sub_start.duration_since(self.clock.start).as_secs_f64(),
                seconds,
                stats: &self.current,
                cpu: self.cpu_sub.usage_until(&cpu_now),
            },
            verdict,
        )?;
        self.cpu_sub = cpu_now;
        self.interrupted = decision.interrupted;
        let finished = decision.end;
        // Hand the counters over (merged when there is time, see `wait`) and count on in cleared ones.
        self.settle();
        let cleared = self.spare.take().unwrap_or_default();
        self.closed = Some((std::mem::replace(&mut self.current, cleared), measured));
        if finished {
            self.step_end = Some(end);
            return Ok(true);
        }
        if self.clock.advance(end) {
            self.measurement.cpu_start = Some(self.cpu_sub.clone());
        }
        for c in std::mem::take(&mut self.held) {
            self.count_or_hold(&c)?;
        }
        Ok(false)
    }

    /// Phase 3: launch every due arrival that has a slot (with `--iops max`: fill every slot).
    pub(super) fn launch_due(&mut self, now: Instant) -> anyhow::Result<()> {
        let len = self.opts.block_size as usize;
        if self.schedule.is_max() {
            while let Some((slot, _)) = self.slots.take(None) {
                launch_io(self.engine, &mut self.workload, &mut self.slots, len, slot, None, false)?;
            }
            return Ok(());
        }
        while let Some(scheduled) = self.schedule.due(now) {
            let Some((slot, late)) = self.slots.take(Some(scheduled)) else { break };
            launch_io(self.engine, &mut self.workload, &mut self.slots, len, slot, Some(scheduled), late)?;
            self.schedule.advance();
        }
        Ok(())
    }

    /// Merge the last closed subinterval's counters into the measurement (when measured) and
    /// clear them for reuse.
    fn settle(&mut self) {
        if let Some((mut stats, measured)) = self.closed.take() {
            if measured {
                self.measurement.stats.merge(&stats);
                self.measurement.batch_add(self.opts, &stats);
            }
            stats.reset();
            self.spare = Some(stats);
        }
    }

    /// Phase 4: wait for a completion, the next arrival or the end of the subinterval.
    ///
    /// Hybrid wait: a timer wakes the thread late (timer slack, scheduler wake-up latency), and
    /// that lag would be in every response time. So block only until `spin` before the next
    /// arrival, then poll completions without blocking (return at once) until it is due.
    /// Bookkeeping of the last close ([`settle`](Self::settle)) is done here when no IO is in
    /// flight (a completion reaped late would lengthen its service time) and the next wake-up
    /// is at least [`SETTLE_SLACK`] away; else at the next close, as before.
    pub(super) fn wait(&mut self) -> anyhow::Result<()> {
        let mut deadline = self.clock.sub_end;
        if self.cut_on_stop {
            // A stop signal is noticed within STOP_POLL even at a low rate (see `cut_on_stop`).
            deadline = deadline.min(Instant::now() + STOP_POLL);
        }
        let next_arrival = self.schedule.next().filter(|t| !self.slots.free.is_empty() && *t < deadline);
        if let Some(arrival) = next_arrival {
            deadline = arrival;
            if !self.opts.spin.is_zero() {
                let wake = arrival.checked_sub(self.opts.spin).unwrap_or(arrival);
                if Instant::now() >= wake {
                    std::hint::spin_loop();
                    return Ok(());
                }
                deadline = wake;
            }
        }
        if self.slots.busy() == 0
            && self.closed.is_some()
            && deadline.saturating_duration_since(Instant::now()) >= SETTLE_SLACK
        {
            self.settle();
            return Ok(());
        }
        if self.slots.busy() > 0 {
            self.engine.reap(1, Some(deadline), &mut self.reaped)?;
        } else {
            let now = Instant::now();
            if deadline > now {
                std::thread::sleep(deadline - now);
            }
        }
        Ok(())
    }

    /// After the last subinterval: drop held completions, drain what is in flight, and sum up.
    pub(super) fn finish(mut self) -> anyhow::Result<StepOutcome> {
        // Completions held for a subinterval that will not come are not counted; their slots are free.
        for c in std::mem::take(&mut self.held) {
            self.slots.discard(&c);
        }
        drain(self.engine, &mut self.slots)?;
        self.settle();
        let step_end = self.step_end.unwrap_or_else(Instant::now);
        let behind_s = self.schedule.next().map_or(0.0, |t| step_end.saturating_duration_since(t).as_secs_f64());
        let mut cpu = match &self.measurement.cpu_start {
            Some(start) => start.usage_until(&self.cpu_sub),
            None => self.cpu_sub.usage_until(&self.cpu_sub),
        };
        let seen_enough = self.measurement.seen_enough_status(self.opts);
        let measured_seconds = self.measurement.seconds;
        let (mut measure, mut measure_seconds) = (std::mem::take(&mut self.measurement.stats), measured_seconds);
        // The summary covers the steady-state window only: its counters from the batches.
        let mut steady_from = None;
        if let Some(first) = self.measurement.steady_start(self.opts) {
            if let Some(window) = self.measurement.window(first) {
                measure = window;
                let each = &self.measurement.each[first..];
                measure_seconds = each.iter().map(|w| w.0).sum();
                cpu = each[0].1.usage_until(&self.cpu_sub);
                steady_from = Some(first + 1);
            }
        }
        Ok(StepOutcome {
            seen_enough,
            measure,
            measure_seconds,
            measured_seconds,
            steady_from,
            cpu,
            interrupted: self.interrupted,
            disk_full: self.disk_full,
            behind_s,
            engine: self.engine.name(),
            raw: self.raw.unwrap_or_default(),
        })
    }
}
