//! Stopping on SIGINT/SIGTERM (and remembering which signal came first, and when), waiting for the
//! start time, and precise timers.

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::Context;

use super::EXIT_INTERRUPTED;
use crate::output::Interruption;

/// The first SIGINT/SIGTERM: its number and `CLOCK_MONOTONIC` nanoseconds, written by the handler.
#[derive(Default)]
struct First {
    signal: AtomicI32,
    at_ns: AtomicU64,
}

/// The stop flag SIGINT/SIGTERM set, and which of them came first and when.
pub(super) struct StopSignals {
    /// Set by the first signal: the run stops cleanly (a second signal exits at once).
    pub(super) flag: Arc<AtomicBool>,
    first: Arc<First>,
    /// The same instant as an [`Instant`] and in `CLOCK_MONOTONIC` nanoseconds, to convert.
    reference: (Instant, u64),
}

impl StopSignals {
    /// The first signal's name (`SIGINT` or `SIGTERM`) and when it arrived; None before any.
    pub(super) fn caught(&self) -> Option<(&'static str, Instant)> {
        let name = match self.first.signal.load(Ordering::SeqCst) {
            0 => return None,
            signal_hook::consts::SIGINT => "SIGINT",
            signal_hook::consts::SIGTERM => "SIGTERM",
            _ => "signal",
        };
        let ns = self.first.at_ns.load(Ordering::SeqCst).saturating_sub(self.reference.1);
        Some((name, self.reference.0 + Duration::from_nanos(ns)))
    }

    /// The first signal as the CSVs record it: its name and when it arrived, seconds since
    /// `step_start` (0 when before it); None before any signal.
    pub(super) fn interruption(&self, step_start: Instant) -> Option<Interruption> {
        let (by, at) = self.caught()?;
        Some(Interruption { by: by.into(), at_s: Some(at.saturating_duration_since(step_start).as_secs_f64()) })
    }
}

/// `CLOCK_MONOTONIC` in nanoseconds (the clock of [`Instant`] on Linux); async-signal-safe.
fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec; it is async-signal-safe (POSIX.1-2008, signal-safety(7)).
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    (ts.tv_sec as u64).saturating_mul(1_000_000_000).saturating_add(ts.tv_nsec as u64)
}

/// Install the handlers: the first SIGINT/SIGTERM sets the stop flag (and is remembered, with
/// its time); a second one exits at once with code 130.
pub(super) fn stop_on_signals() -> anyhow::Result<StopSignals> {
    let stop = Arc::new(AtomicBool::new(false));
    let first = Arc::new(First::default());
    let reference = (Instant::now(), monotonic_ns());
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register_conditional_shutdown(sig, EXIT_INTERRUPTED, Arc::clone(&stop))
            .context("installing the signal handler")?;
        let record = Arc::clone(&first);
        let remember = move || {
            // The time first, then the signal: a reader that sees the signal sees its time.
            if record.at_ns.compare_exchange(0, monotonic_ns(), Ordering::SeqCst, Ordering::SeqCst).is_ok() {
                record.signal.store(sig, Ordering::SeqCst);
            }
        };
        // SAFETY: the handler only calls clock_gettime and uses atomics, all async-signal-safe.
        unsafe { signal_hook::low_level::register(sig, remember) }.context("installing the signal handler")?;
        signal_hook::flag::register(sig, Arc::clone(&stop)).context("installing the signal handler")?;
    }
    Ok(StopSignals { flag: stop, first, reference })
}

/// Sleep until the Unix time `at_ms` (if given). Returns false when interrupted first.
pub(super) fn wait_until(at_ms: Option<u64>, stop: &AtomicBool) -> bool {
    let Some(at) = at_ms else { return true };
    loop {
        if stop.load(Ordering::Relaxed) {
            return false;
        }
        let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64);
        if now >= at {
            return true;
        }
        std::thread::sleep(Duration::from_millis((at - now).min(50)));
    }
}

/// Ask the kernel for 1 ns timer slack so sleeps until the next arrival end on time
/// (the default 50 µs would delay launches at high rates).
pub(super) fn precise_timers() {
    // SAFETY: prctl(PR_SET_TIMERSLACK) only changes this thread's timer slack.
    unsafe {
        libc::prctl(
            libc::PR_SET_TIMERSLACK,
            1 as libc::c_ulong,
            0 as libc::c_ulong,
            0 as libc::c_ulong,
            0 as libc::c_ulong,
        );
    }
}
