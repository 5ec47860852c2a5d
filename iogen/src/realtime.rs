//! Real-time scheduling for the thread that launches IOs (`--rt-priority N|auto|off`).
//!
//! On a busy host the scheduling thread, woken for its next arrival, may wait for another task's
//! time slice to end (milliseconds) before it runs; that wait is iogen's launch lag and is in the
//! response time of the IO. Under `SCHED_FIFO` a waking thread preempts every normal task at
//! once. Measured with the null engine on a shared 2-vCPU VM (docs/benchmarks.md, "iogen's own
//! launch lag", medians of 5 interleaved runs): at 5,000 IOPS lag mean 106 → 4.8 µs and p99
//! 2,746 → 37 µs; at 500 IOPS 36 → 2.1 µs and 1,224 → 18 µs; the same CPU per IO.
//!
//! The cost is the risk: a `SCHED_FIFO` thread that never sleeps starves normal tasks on its CPU
//! until the kernel's real-time throttling (`kernel.sched_rt_runtime_us`, by default 95 % of each
//! second) stops it for the rest of the second, which is worse lag than none (measured at 50,000
//! IOPS with `--spin-us 50`: lag p99 41 ms). It only pays when the thread sleeps between
//! arrivals, i.e. when `--spin-us` is well below the mean gap (1e6 / IOPS µs); [`never_sleeps`]
//! says when it will not. Only the scheduling thread: engine worker threads keep the normal
//! policy, and so they wait while it spins. With the sync engine at queue depth 16 (2,000 IOPS,
//! 4 interleaved pairs) that raised the mean service time from 18–108 µs to 57–726 µs, more than
//! the lag it saved; with io_uring (which completes in the kernel and is reaped by this thread)
//! service time fell too (p99 21–43 → 6–7 µs) and lag mean 80–3,743 → 0.5–0.8 µs.
//!
//! Hence the default `auto` ([`auto_applies`]): priority 1 only where that was measured to pay
//! and harm nothing, and only when permitted (otherwise the normal policy, silently); a fixed
//! priority is the user's explicit choice, refused when not permitted.

use std::io;
use std::time::Duration;

use crate::options::{Iops, OptionError};

/// Whether the launching thread will hardly ever sleep at `iops` with a spin window of `spin`:
/// with `--iops max`, or when the window covers half the mean gap between arrivals or more.
pub fn never_sleeps(iops: Iops, spin: Duration) -> bool {
    match iops {
        Iops::Max => true,
        Iops::Rate(r) => spin.as_secs_f64() >= 0.5 / r,
    }
}

/// Priority `--rt-priority auto` uses: the lowest, above every normal task and below the
/// kernel's own real-time threads (migration, watchdogs run at 99).
pub const AUTO_PRIORITY: u8 = 1;

/// Whether `--rt-priority auto` runs the launching thread under `SCHED_FIFO` (when permitted):
/// at a rate where it sleeps between arrivals ([`never_sleeps`] is false), and with the engines
/// measured to gain from it, which have no worker threads of their own to starve: `io_uring`
/// and `null`. Not `sync`: its workers wait for the spinning thread (measured above).
pub fn auto_applies(engine: &str, iops: Iops, spin: Duration) -> bool {
    matches!(engine, "io_uring" | "null") && !never_sleeps(iops, spin)
}

/// The calling thread's scheduling policy and priority, to restore later.
#[derive(Debug, Clone, Copy)]
pub struct Policy {
    policy: libc::c_int,
    priority: libc::c_int,
}

fn set(policy: libc::c_int, priority: libc::c_int) -> io::Result<()> {
    let param = libc::sched_param { sched_priority: priority };
    // SAFETY: pid 0 is the calling thread; `param` is a valid sched_param.
    if unsafe { libc::sched_setscheduler(0, policy, &param) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Put the calling thread under `SCHED_FIFO` at `priority` (1–99); returns what to restore.
pub fn enter(priority: u8) -> Result<Policy, OptionError> {
    // SAFETY: plain queries of the calling thread's scheduling state.
    let before = unsafe {
        let mut param = libc::sched_param { sched_priority: 0 };
        let policy = libc::sched_getscheduler(0);
        libc::sched_getparam(0, &mut param);
        Policy { policy, priority: param.sched_priority }
    };
    set(libc::SCHED_FIFO, libc::c_int::from(priority)).map_err(|e| {
        OptionError::invalid(
            "rt-priority",
            format!("cannot switch to SCHED_FIFO priority {priority} ({e}); it needs root or CAP_SYS_NICE"),
        )
    })?;
    Ok(before)
}

/// Restore the policy [`enter`] replaced.
pub fn leave(before: Policy) {
    // Going back to a normal policy is always permitted; nothing useful to do if it fails.
    let _ = set(before.policy, before.priority);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_sleeps_when_the_spin_window_covers_half_the_gap() {
        let us = Duration::from_micros;
        assert!(!never_sleeps(Iops::Rate(5000.0), us(50))); // gap 200 µs
        assert!(never_sleeps(Iops::Rate(50_000.0), us(50))); // gap 20 µs
        assert!(never_sleeps(Iops::Rate(10_000.0), us(50))); // gap 100 µs: half covered
        assert!(never_sleeps(Iops::Max, us(0)));
    }

    #[test]
    fn auto_only_where_the_thread_sleeps_and_no_worker_thread_waits_for_it() {
        let us = Duration::from_micros;
        let rate = Iops::Rate(5000.0);
        assert!(auto_applies("io_uring", rate, us(50)));
        assert!(auto_applies("null", rate, us(50)));
        assert!(!auto_applies("sync", rate, us(50)), "sync workers would wait for it");
        assert!(!auto_applies("io_uring", Iops::Rate(50_000.0), us(50)), "never sleeps");
        assert!(!auto_applies("io_uring", Iops::Max, us(0)));
    }

    #[test]
    fn enter_and_leave_restore_the_policy_or_name_the_option() {
        // SAFETY: a plain query of the calling thread's policy.
        let policy = || unsafe { libc::sched_getscheduler(0) };
        let normal = policy();
        match enter(1) {
            Ok(before) => {
                assert_eq!(policy(), libc::SCHED_FIFO);
                leave(before);
                assert_eq!(policy(), normal);
            }
            // Not permitted here (no CAP_SYS_NICE): the error names the option.
            Err(e) => assert!(e.to_string().starts_with("--rt-priority:"), "{e}"),
        }
    }
}
