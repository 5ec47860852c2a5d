//! Stopping on SIGINT/SIGTERM, waiting for the start time, and precise timers.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::Context;

use super::EXIT_INTERRUPTED;

/// The flag SIGINT/SIGTERM set: the first signal asks for a clean stop; a second one exits at once.
pub(super) fn stop_on_signals() -> anyhow::Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register_conditional_shutdown(sig, EXIT_INTERRUPTED, Arc::clone(&stop))
            .context("installing the signal handler")?;
        signal_hook::flag::register(sig, Arc::clone(&stop)).context("installing the signal handler")?;
    }
    Ok(stop)
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
