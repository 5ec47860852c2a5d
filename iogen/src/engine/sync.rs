//! The sync engine: `pread`/`pwrite` on one worker thread per slot, or inline in `submit` at
//! queue depth 1, where a hand-off to a thread would only add latency.

use std::collections::VecDeque;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

use anyhow::{bail, Context};

use super::{AlignedBuf, Completion, Engine, EngineConfig, OpKind, Submission};

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

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn config(file: File, queue_depth: usize) -> EngineConfig {
        EngineConfig { file: Arc::new(file), queue_depth, block_size: 4096, direct: false }
    }

    fn roundtrip(qd: usize) {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(&vec![7u8; 4096 * 8]).unwrap();
        let mut e = SyncEngine::new(&config(f, qd)).unwrap();
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
        let mut e = SyncEngine::new(&config(tempfile::tempfile().unwrap(), 2)).unwrap();
        e.submit(Submission { slot: 0, kind: OpKind::Read, offset: 0, len: 4096 }).unwrap();
        let mut out = Vec::new();
        e.reap(1, None, &mut out).unwrap();
        assert_eq!(out[0].result, Ok(0));
    }

    #[test]
    fn reap_respects_the_deadline() {
        let mut e = SyncEngine::new(&config(tempfile::tempfile().unwrap(), 2)).unwrap();
        let mut out = Vec::new();
        e.reap(1, Some(Instant::now() + std::time::Duration::from_millis(5)), &mut out).unwrap();
        assert!(out.is_empty());
    }
}
