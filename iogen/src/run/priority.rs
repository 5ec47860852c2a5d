//! The launching thread's scheduling policy while a step runs (`--rt-priority`, see
//! [`crate::realtime`]).

use crate::options::{Options, RtPriority};
use crate::realtime;

/// Put this thread under `SCHED_FIFO` as `--rt-priority` asks for this step; returns the policy to
/// restore, `None` when it stays normal.
pub(super) fn enter_realtime(number: usize, o: &Options, engine: &str) -> anyhow::Result<Option<realtime::Policy>> {
    match o.rt_priority {
        RtPriority::Off => Ok(None),
        RtPriority::Auto => {
            if !realtime::auto_applies(engine, o.iops, o.spin) {
                return Ok(None);
            }
            // Not permitted (no root or CAP_SYS_NICE): the normal policy, as with off.
            let Ok(before) = realtime::enter(realtime::AUTO_PRIORITY) else { return Ok(None) };
            eprintln!(
                "iogen: step {number}: the launching thread runs under SCHED_FIFO priority {} (--rt-priority auto; \
                 off to leave it normal)",
                realtime::AUTO_PRIORITY
            );
            Ok(Some(before))
        }
        RtPriority::Fixed(p) => {
            if realtime::never_sleeps(o.iops, o.spin) {
                eprintln!(
                    "iogen: step {number}: with --rt-priority the launching thread will hardly ever sleep at this rate \
                     and --spin-us; the kernel's real-time throttling may stop it for tens of ms each second (lower \
                     --spin-us, or use --rt-priority auto)"
                );
            }
            if engine == "sync" && o.queue_depth > 1 {
                eprintln!(
                    "iogen: step {number}: with --rt-priority the sync engine's worker threads wait while the launching \
                     thread spins, which raises service times (use io_uring, or --rt-priority auto)"
                );
            }
            Ok(Some(realtime::enter(p)?))
        }
    }
}

/// With several ranks, the wait for the agreed start instant under `SCHED_FIFO` when permitted
/// (unless `--rt-priority off`), also at rates where the step itself stays normal: waking at the
/// agreed instant is what the start skew measures, and a rank that wakes on a busy host waits for
/// a CPU (median skew 3.9 ms on the test VM) unless it wakes under `SCHED_FIFO` (0.09 ms). Returns
/// the policy to restore after the start.
pub(super) fn enter_for_start(ranks: usize, step_is_realtime: bool, o: &Options) -> Option<realtime::Policy> {
    (ranks > 1 && !step_is_realtime && o.rt_priority != RtPriority::Off)
        .then(|| realtime::enter(realtime::AUTO_PRIORITY).ok())
        .flatten()
}
