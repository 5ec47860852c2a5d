//! Real-time scheduling for the thread that launches IOs (`--rt-priority N`).
//!
//! On a busy host the scheduling thread, woken for its next arrival, may wait for another task's
//! time slice to end (milliseconds) before it runs; that wait is iogen's launch lag and is in the
//! response time of the IO. Under `SCHED_FIFO` a waking thread preempts every normal task at
//! once. Measured with the null engine on a shared 2-vCPU VM (docs/benchmarks.md, "iogen's own
//! launch lag"): lag p99 at 5,000 IOPS from 0.07–2.8 ms to 0.02–0.06 ms.
//!
//! The cost is the risk: a `SCHED_FIFO` thread that never sleeps starves normal tasks on its CPU
//! until the kernel's real-time throttling (`kernel.sched_rt_runtime_us`, by default 95 % of each
//! second) stops it for the rest of the second, which is worse lag than none. It only pays when
//! the thread sleeps between arrivals, i.e. when `--spin-us` is well below the mean gap
//! (1e6 / IOPS µs). Hence opt-in, and only the scheduling thread: engine worker threads keep the
//! normal policy.

use std::io;

use crate::options::OptionError;

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
