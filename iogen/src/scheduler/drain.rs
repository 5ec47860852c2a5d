//! The end of a step: the IOs still in flight are waited for (at most [`DRAIN_TIMEOUT`]) and not
//! counted.

use std::time::{Duration, Instant};

use anyhow::bail;

use crate::engine::Engine;

use super::slots::Slots;

/// Longest wait for in-flight IOs at the end of a step.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(60);

/// Wait (at most [`DRAIN_TIMEOUT`]) for the IOs still in flight; they are not counted.
pub(super) fn drain(engine: &mut dyn Engine, slots: &mut Slots) -> anyhow::Result<()> {
    let deadline = Instant::now() + DRAIN_TIMEOUT;
    let mut out = Vec::new();
    while slots.busy() > 0 {
        if Instant::now() >= deadline {
            bail!("{} IOs still in flight {} s after the end of the step", slots.busy(), DRAIN_TIMEOUT.as_secs());
        }
        engine.reap(1, Some(deadline), &mut out)?;
        for c in out.drain(..) {
            slots.discard(&c);
        }
    }
    Ok(())
}
