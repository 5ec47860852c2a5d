//! IO engines behind one small trait, one file each.
//!
//! An engine only moves bytes: `submit` starts the IO of one slot, `reap` hands back completions
//! with the instant each one finished. Timing, counters and histograms live in the scheduler, so
//! the numbers are comparable whichever engine ran the IO.
//!
//! * [`SyncEngine`] (`sync.rs`): `queue_depth` worker threads doing `pread`/`pwrite` (inline in
//!   `submit` at queue depth 1, where a hand-off would only add latency).
//! * [`UringEngine`] (`uring.rs`): Linux io_uring; [`EngineKind::Auto`] tries it and falls back to sync.
//! * [`NullEngine`] (`null.rs`): no IO at all, completes at once (deterministic tests, scheduler overhead).
//!
//! Slot buffers ([`AlignedBuf`], `buffer.rs`) are shared by the engines that move bytes.

use std::fs::File;
use std::sync::Arc;
use std::time::Instant;

use anyhow::bail;

mod buffer;
mod null;
mod sync;
pub mod uring;

pub use buffer::{fill_nonzero, AlignedBuf};
pub use null::NullEngine;
pub use sync::SyncEngine;
pub use uring::UringEngine;

/// Direction of one IO.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpKind {
    /// `pread` into the slot's buffer.
    Read,
    /// `pwrite` of the slot's buffer (non-zero data).
    Write,
}

/// One IO to start.
#[derive(Debug, Clone, Copy)]
pub struct Submission {
    /// Slot index, `0 <= slot < queue_depth`; the slot is not in flight when submitted.
    pub slot: usize,
    /// Read or write.
    pub kind: OpKind,
    /// Byte offset in the target.
    pub offset: u64,
    /// Length in bytes (at most the configured block size).
    pub len: usize,
}

/// One finished IO.
#[derive(Debug, Clone, Copy)]
pub struct Completion {
    /// The slot given at submission; it is free again.
    pub slot: usize,
    /// Bytes transferred, or the errno.
    pub result: Result<usize, i32>,
    /// When the IO finished (taken as close to the system call's return as the engine can).
    pub at: Instant,
}

/// An IO engine. The scheduler calls it from one thread.
pub trait Engine: Send {
    /// Short name for reports (`sync`, `io_uring`, `null`).
    fn name(&self) -> &'static str;
    /// Start the IO for `sub.slot` (0 <= slot < queue_depth, not currently in flight).
    /// Returns once the IO is queued (or, for engines that complete inline, done).
    fn submit(&mut self, sub: Submission) -> anyhow::Result<()>;
    /// Wait until at least `min` completions are ready or `deadline` passes (`None` with
    /// `min == 0`: no wait; `None` with `min > 0`: wait as long as it takes), and append them to
    /// `out`. Never returns a completion twice.
    fn reap(&mut self, min: usize, deadline: Option<Instant>, out: &mut Vec<Completion>) -> anyhow::Result<()>;
}

/// What every engine needs to know.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// The open target (opened with `O_DIRECT` when `direct`).
    pub file: Arc<File>,
    /// Number of slots: the most IOs in flight.
    pub queue_depth: usize,
    /// Size of each slot's buffer in bytes.
    pub block_size: usize,
    /// `O_DIRECT` is in effect: buffers, offsets and lengths must be aligned.
    pub direct: bool,
}

/// Which engine to open (`--engine`, plan column `engine`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum EngineKind {
    /// Worker threads with pread/pwrite.
    Sync,
    /// Linux io_uring.
    #[value(name = "io_uring", alias = "io-uring", alias = "uring")]
    IoUring,
    /// io_uring where the kernel allows it, else sync.
    Auto,
    /// No IO at all (tests, scheduler overhead).
    Null,
}

/// Open an engine of the given kind. `Auto` falls back to sync when io_uring cannot be set up;
/// [`Engine::name`] of the result says which one runs.
pub fn open_engine(kind: EngineKind, cfg: &EngineConfig) -> anyhow::Result<Box<dyn Engine>> {
    if cfg.queue_depth == 0 {
        bail!("queue depth must be at least 1");
    }
    match kind {
        EngineKind::Sync => Ok(Box::new(SyncEngine::new(cfg)?)),
        EngineKind::Null => Ok(Box::new(NullEngine::new(cfg.queue_depth))),
        EngineKind::IoUring => Ok(Box::new(UringEngine::open(cfg)?)),
        EngineKind::Auto => match UringEngine::open(cfg) {
            Ok(e) => Ok(Box::new(e)),
            Err(e) => {
                report_fallback(&e);
                Ok(Box::new(SyncEngine::new(cfg)?))
            }
        },
    }
}

/// Tell the user once per process why `--engine auto` runs the sync engine.
fn report_fallback(err: &anyhow::Error) {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| eprintln!("iogen: io_uring unavailable ({err:#}); --engine auto uses the sync engine"));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(queue_depth: usize) -> EngineConfig {
        EngineConfig { file: Arc::new(tempfile::tempfile().unwrap()), queue_depth, block_size: 4096, direct: false }
    }

    #[test]
    fn open_engine_names_what_runs() {
        assert_eq!(open_engine(EngineKind::Null, &config(2)).unwrap().name(), "null");
        assert_eq!(open_engine(EngineKind::Sync, &config(2)).unwrap().name(), "sync");
        // Auto is io_uring where the kernel allows it, sync otherwise; never anything else.
        let auto = open_engine(EngineKind::Auto, &config(2)).unwrap().name();
        assert!(auto == "io_uring" || auto == "sync", "{auto}");
        assert!(open_engine(EngineKind::Null, &config(0)).is_err());
    }
}
