//! IO engines behind one small trait.
//!
//! An engine only moves bytes: `submit` starts the IO of one slot, `reap` hands back completions
//! with the instant each one finished. Timing, counters and histograms live in the scheduler, so
//! the numbers are comparable whichever engine ran the IO.
//!
//! * [`SyncEngine`]: `queue_depth` worker threads doing `pread`/`pwrite` (inline in `submit` at
//!   queue depth 1, where a hand-off would only add latency).
//! * [`NullEngine`]: no IO at all, completes at once (deterministic tests, scheduler overhead).
//! * io_uring: `uring.rs` (built by the io_uring engineer); `Auto` tries it and falls back to sync.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::collections::VecDeque;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

use anyhow::{bail, Context};

pub mod uring;

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

/// Which engine to open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EngineKind {
    /// Worker threads with pread/pwrite.
    Sync,
    /// Linux io_uring.
    IoUring,
    /// io_uring where the kernel allows it, else sync.
    Auto,
    /// No IO; completes at once.
    Null,
}

/// Open an engine of the given kind. `Auto` falls back to sync when io_uring cannot be set up.
pub fn open_engine(kind: EngineKind, cfg: &EngineConfig) -> anyhow::Result<Box<dyn Engine>> {
    if cfg.queue_depth == 0 {
        bail!("queue depth must be at least 1");
    }
    match kind {
        EngineKind::Sync => Ok(Box::new(SyncEngine::new(cfg)?)),
        EngineKind::Null => Ok(Box::new(NullEngine::new(cfg.queue_depth))),
        EngineKind::IoUring => open_uring(cfg),
        EngineKind::Auto => match open_uring(cfg) {
            Ok(e) => Ok(e),
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

fn open_uring(cfg: &EngineConfig) -> anyhow::Result<Box<dyn Engine>> {
    Ok(Box::new(uring::UringEngine::open(cfg)?))
}

/// A heap buffer aligned to 4096 bytes (good for `O_DIRECT`), filled with non-zero bytes.
pub struct AlignedBuf {
    ptr: *mut u8,
    layout: Layout,
}

// SAFETY: the buffer is plain memory exclusively owned by this value.
unsafe impl Send for AlignedBuf {}
// SAFETY: shared access only reads through `as_slice`; writes need `&mut self`.
unsafe impl Sync for AlignedBuf {}

impl AlignedBuf {
    /// Alignment of every buffer (the largest logical block size O_DIRECT asks for in practice).
    pub const ALIGN: usize = 4096;

    /// Allocate `len` bytes (rounded up to the alignment), filled with a non-zero pattern
    /// derived from `seed` so writes never send zero pages.
    pub fn new(len: usize, seed: u64) -> Self {
        let size = len.max(1).div_ceil(Self::ALIGN) * Self::ALIGN;
        let layout = Layout::from_size_align(size, Self::ALIGN).expect("buffer layout");
        // SAFETY: layout has a non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        let mut buf = AlignedBuf { ptr, layout };
        fill_nonzero(buf.as_mut_slice(), seed);
        buf
    }

    /// The whole buffer.
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: ptr is valid for layout.size() bytes for the lifetime of self.
        unsafe { std::slice::from_raw_parts(self.ptr, self.layout.size()) }
    }

    /// The whole buffer, mutable.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as above, and &mut self guarantees exclusivity.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.layout.size()) }
    }

    /// Raw pointer for engines that hand the buffer to the kernel.
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.ptr
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with the same layout.
        unsafe { dealloc(self.ptr, self.layout) }
    }
}

/// Fill `buf` with a pseudo-random pattern (xorshift64*) in which no byte is zero.
pub fn fill_nonzero(buf: &mut [u8], seed: u64) {
    let mut x = seed ^ 0x9E37_79B9_7F4A_7C15;
    if x == 0 {
        x = 1;
    }
    for chunk in buf.chunks_mut(8) {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        let v = x.wrapping_mul(0x2545_F491_4F6C_DD1D).to_le_bytes();
        for (b, s) in chunk.iter_mut().zip(v) {
            *b = s | 1;
        }
    }
}

fn do_io(file: &File, buf: &mut AlignedBuf, sub: &Submission) -> Result<usize, i32> {
    let len = sub.len.min(buf.as_slice().len());
    let r = match sub.kind {
        OpKind::Read => file.read_at(&mut buf.as_mut_slice()[..len], sub.offset),
        OpKind::Write => file.write_at(&buf.as_slice()[..len], sub.offset),
    };
    r.map_err(|e| e.raw_os_error().unwrap_or(libc::EIO))
}

/// pread/pwrite engine: one worker thread per slot, or inline at queue depth 1.
pub struct SyncEngine {
    inner: SyncInner,
}

enum SyncInner {
    Inline { file: Arc<File>, buf: AlignedBuf, done: VecDeque<Completion> },
    Threads { to_workers: Vec<Sender<Submission>>, from_workers: Receiver<Completion>, workers: Vec<JoinHandle<()>> },
}

impl SyncEngine {
    /// Set up buffers (and worker threads when `queue_depth > 1`).
    pub fn new(cfg: &EngineConfig) -> anyhow::Result<Self> {
        if cfg.queue_depth == 1 {
            return Ok(SyncEngine {
                inner: SyncInner::Inline {
                    file: cfg.file.clone(),
                    buf: AlignedBuf::new(cfg.block_size, 0),
                    done: VecDeque::with_capacity(1),
                },
            });
        }
        let (done_tx, done_rx) = channel::<Completion>();
        let mut to_workers = Vec::with_capacity(cfg.queue_depth);
        let mut workers = Vec::with_capacity(cfg.queue_depth);
        for slot in 0..cfg.queue_depth {
            let (tx, rx) = channel::<Submission>();
            let file = cfg.file.clone();
            let done = done_tx.clone();
            let mut buf = AlignedBuf::new(cfg.block_size, slot as u64);
            let handle = std::thread::Builder::new()
                .name(format!("iogen-sync-{slot}"))
                .spawn(move || {
                    while let Ok(sub) = rx.recv() {
                        let result = do_io(&file, &mut buf, &sub);
                        let at = Instant::now();
                        if done.send(Completion { slot: sub.slot, result, at }).is_err() {
                            break;
                        }
                    }
                })
                .context("starting a sync engine worker thread")?;
            to_workers.push(tx);
            workers.push(handle);
        }
        Ok(SyncEngine { inner: SyncInner::Threads { to_workers, from_workers: done_rx, workers } })
    }
}

impl Engine for SyncEngine {
    fn name(&self) -> &'static str {
        "sync"
    }

    fn submit(&mut self, sub: Submission) -> anyhow::Result<()> {
        match &mut self.inner {
            SyncInner::Inline { file, buf, done } => {
                let result = do_io(file, buf, &sub);
                done.push_back(Completion { slot: sub.slot, result, at: Instant::now() });
                Ok(())
            }
            SyncInner::Threads { to_workers, .. } => {
                let tx = to_workers.get(sub.slot).with_context(|| format!("slot {} out of range", sub.slot))?;
                tx.send(sub).map_err(|_| anyhow::anyhow!("sync engine worker for slot {} has stopped", sub.slot))
            }
        }
    }

    fn reap(&mut self, min: usize, deadline: Option<Instant>, out: &mut Vec<Completion>) -> anyhow::Result<()> {
        match &mut self.inner {
            SyncInner::Inline { done, .. } => {
                // Inline IO has always finished by the time `submit` returns.
                out.extend(done.drain(..));
                Ok(())
            }
            SyncInner::Threads { from_workers, .. } => {
                let mut got = 0;
                while let Ok(c) = from_workers.try_recv() {
                    out.push(c);
                    got += 1;
                }
                while got < min {
                    let c = match deadline {
                        None => from_workers.recv().map_err(|_| anyhow::anyhow!("sync engine workers have stopped"))?,
                        Some(d) => {
                            let now = Instant::now();
                            if d <= now {
                                break;
                            }
                            match from_workers.recv_timeout(d - now) {
                                Ok(c) => c,
                                Err(RecvTimeoutError::Timeout) => break,
                                Err(RecvTimeoutError::Disconnected) => bail!("sync engine workers have stopped"),
                            }
                        }
                    };
                    out.push(c);
                    got += 1;
                    while let Ok(c) = from_workers.try_recv() {
                        out.push(c);
                        got += 1;
                    }
                }
                Ok(())
            }
        }
    }
}

impl Drop for SyncEngine {
    fn drop(&mut self) {
        if let SyncInner::Threads { to_workers, workers, .. } = &mut self.inner {
            to_workers.clear();
            for w in workers.drain(..) {
                let _ = w.join();
            }
        }
    }
}

/// No IO: every submission completes at once with the full length. For deterministic tests and
/// to measure the scheduler's own overhead.
pub struct NullEngine {
    queue_depth: usize,
    done: VecDeque<Completion>,
}

impl NullEngine {
    /// A null engine with `queue_depth` slots.
    pub fn new(queue_depth: usize) -> Self {
        NullEngine { queue_depth, done: VecDeque::new() }
    }
}

impl Engine for NullEngine {
    fn name(&self) -> &'static str {
        "null"
    }

    fn submit(&mut self, sub: Submission) -> anyhow::Result<()> {
        if sub.slot >= self.queue_depth {
            bail!("slot {} out of range", sub.slot);
        }
        self.done.push_back(Completion { slot: sub.slot, result: Ok(sub.len), at: Instant::now() });
        Ok(())
    }

    fn reap(&mut self, _min: usize, _deadline: Option<Instant>, out: &mut Vec<Completion>) -> anyhow::Result<()> {
        out.extend(self.done.drain(..));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn buffers_are_aligned_and_nonzero() {
        let b = AlignedBuf::new(5000, 7);
        assert_eq!(b.as_slice().as_ptr() as usize % AlignedBuf::ALIGN, 0);
        assert_eq!(b.as_slice().len(), 8192);
        assert!(b.as_slice().iter().all(|&x| x != 0));
    }

    fn roundtrip(qd: usize) {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(&vec![7u8; 4096 * 8]).unwrap();
        let cfg = EngineConfig { file: Arc::new(f), queue_depth: qd, block_size: 4096, direct: false };
        let mut e = open_engine(EngineKind::Sync, &cfg).unwrap();
        for slot in 0..qd {
            let kind = if slot % 2 == 0 { OpKind::Read } else { OpKind::Write };
            e.submit(Submission { slot, kind, offset: (slot * 4096) as u64, len: 4096 }).unwrap();
        }
        let mut out = Vec::new();
        e.reap(qd, None, &mut out).unwrap();
        assert_eq!(out.len(), qd);
        let mut slots: Vec<usize> = out.iter().map(|c| c.slot).collect();
        slots.sort_unstable();
        assert_eq!(slots, (0..qd).collect::<Vec<_>>());
        assert!(out.iter().all(|c| c.result == Ok(4096)));
    }

    #[test]
    fn sync_engine_inline_and_threaded() {
        roundtrip(1);
        roundtrip(4);
    }

    #[test]
    fn reading_past_the_end_is_a_short_read_not_a_panic() {
        let f = tempfile::tempfile().unwrap();
        let cfg = EngineConfig { file: Arc::new(f), queue_depth: 2, block_size: 4096, direct: false };
        let mut e = open_engine(EngineKind::Sync, &cfg).unwrap();
        e.submit(Submission { slot: 0, kind: OpKind::Read, offset: 0, len: 4096 }).unwrap();
        let mut out = Vec::new();
        e.reap(1, None, &mut out).unwrap();
        assert_eq!(out[0].result, Ok(0));
    }

    #[test]
    fn reap_respects_the_deadline() {
        let f = tempfile::tempfile().unwrap();
        let cfg = EngineConfig { file: Arc::new(f), queue_depth: 2, block_size: 4096, direct: false };
        let mut e = open_engine(EngineKind::Sync, &cfg).unwrap();
        let mut out = Vec::new();
        e.reap(1, Some(Instant::now() + std::time::Duration::from_millis(5)), &mut out).unwrap();
        assert!(out.is_empty());
    }

    #[test]
    fn null_engine_completes_at_once() {
        let mut e = NullEngine::new(2);
        e.submit(Submission { slot: 1, kind: OpKind::Write, offset: 0, len: 512 }).unwrap();
        let mut out = Vec::new();
        e.reap(0, None, &mut out).unwrap();
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].result, Ok(512));
        assert!(e.submit(Submission { slot: 2, kind: OpKind::Read, offset: 0, len: 512 }).is_err());
    }
}
