//! Preconditioning (`--precondition`): write a target's whole IO range sequentially, N times,
//! before the first step that uses it.
//!
//! Why: a device (or a file system's allocation) is not in its steady state when first written.
//! SNIA's Solid State Storage Performance Test Specification (PTS-E 1.1, section 3,
//! "workload independent preconditioning") writes twice the user capacity with sequential 128 KiB
//! writes before any measurement, so that every block has been written and the device's
//! background work has reached its working level. iogen does the same over the bytes its steps
//! may touch: `passes` sequential passes (default 2) of [`CHUNK`]-byte writes, each pass flushed
//! to the device (`fdatasync`) before the next.
//!
//! What each pass writes, so a test (or a curious user) can check it without trusting this code:
//! every 4 KiB page of the range, counted from its start, begins with the line
//! `iogen-precondition pass=P\n` (P = 1, 2, …) and continues with non-zero pseudo-random bytes (no
//! zero pages for thin or deduplicating storage to drop). After the run the range holds the last
//! pass. The file's header block is outside the range and never touched.
//!
//! Cost: `passes × len` bytes written; time is that over the device's sequential write rate.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;

use crate::engine::{fill_nonzero, AlignedBuf};
use crate::target::TargetError;

/// Bytes per write: PTS's 128 KiB sequential writes.
pub const CHUNK: usize = 128 << 10;

/// The page each stamp starts.
pub const STAMP_EVERY: usize = 4096;

/// How often progress is printed.
const PROGRESS_EVERY: Duration = Duration::from_secs(2);

/// The stamp at the start of every 4 KiB page of pass `pass`.
pub fn stamp(pass: u32) -> String {
    format!("iogen-precondition pass={pass}\n")
}

/// What preconditioning did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Preconditioned {
    /// Bytes written (passes × range length).
    pub bytes: u64,
    /// Wall time it took.
    pub seconds: f64,
}

/// Where progress goes: a line of text at the start, every [`PROGRESS_EVERY`] and at the end.
pub type Progress<'a> = &'a mut dyn FnMut(&str);

/// Write `len` bytes of `file` from `start` sequentially, `passes` times (see the module doc).
/// `direct`: the file is open with `O_DIRECT` (`start` and `len` must then be multiples of 512;
/// the buffer is aligned). Stops with [`TargetError::PreconditionInterrupted`] when `stop` is set.
pub fn precondition(
    file: &File,
    path: &Path,
    (start, len): (u64, u64),
    passes: u32,
    stop: &AtomicBool,
    progress: Progress,
) -> Result<Preconditioned, TargetError> {
    let total = len * u64::from(passes);
    progress(&format!(
        "iogen: preconditioning {}: {passes} sequential pass{} over {len} bytes ({total} bytes to write)",
        path.display(),
        if passes == 1 { "" } else { "es" }
    ));
    let began = Instant::now();
    let mut buf = AlignedBuf::new(CHUNK, 0);
    let mut last_report = began;
    for pass in 1..=passes {
        let mark = stamp(pass);
        let mut offset = 0u64;
        while offset < len {
            if stop.load(Ordering::Relaxed) {
                return Err(TargetError::PreconditionInterrupted(path.to_path_buf()));
            }
            let n = ((len - offset) as usize).min(CHUNK);
            let chunk = &mut buf.as_mut_slice()[..n];
            fill_pass(chunk, offset, pass, mark.as_bytes());
            let at = start + offset;
            file.write_all_at(chunk, at)
                .with_context(|| format!("preconditioning {} (pass {pass}) at byte {at}", path.display()))?;
            offset += n as u64;
            if last_report.elapsed() >= PROGRESS_EVERY {
                last_report = Instant::now();
                let done = u64::from(pass - 1) * len + offset;
                progress(&progress_line(path, pass, passes, done, total, began.elapsed()));
            }
        }
        file.sync_data().with_context(|| format!("flushing {} after preconditioning pass {pass}", path.display()))?;
    }
    let seconds = began.elapsed().as_secs_f64();
    progress(&format!(
        "iogen: preconditioned {}: {passes} pass{}, {total} bytes in {seconds:.1} s ({:.0} MB/s)",
        path.display(),
        if passes == 1 { "" } else { "es" },
        rate_mb_s(total, seconds)
    ));
    Ok(Preconditioned { bytes: total, seconds })
}

/// Fill `chunk` (the bytes at `offset` of the range) for pass `pass`: pseudo-random non-zero
/// bytes, and `mark` at the start of every 4 KiB page of the range.
fn fill_pass(chunk: &mut [u8], offset: u64, pass: u32, mark: &[u8]) {
    fill_nonzero(chunk, offset ^ (u64::from(pass) << 48));
    let first_page = offset.div_ceil(STAMP_EVERY as u64) * STAMP_EVERY as u64;
    let mut at = (first_page - offset) as usize;
    while at < chunk.len() {
        let end = (at + mark.len()).min(chunk.len());
        chunk[at..end].copy_from_slice(&mark[..end - at]);
        at += STAMP_EVERY;
    }
}

fn rate_mb_s(bytes: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        bytes as f64 / seconds / 1e6
    } else {
        0.0
    }
}

/// `iogen: preconditioning PATH: pass 1 of 2, 37 % (…), 410 MB/s, about 12 s left`.
fn progress_line(path: &Path, pass: u32, passes: u32, done: u64, total: u64, elapsed: Duration) -> String {
    let rate = rate_mb_s(done, elapsed.as_secs_f64());
    let left = if rate > 0.0 { (total - done) as f64 / (rate * 1e6) } else { f64::NAN };
    format!(
        "iogen: preconditioning {}: pass {pass} of {passes}, {:.0} % ({done} of {total} bytes), {rate:.0} MB/s, about {} left",
        path.display(),
        100.0 * done as f64 / total.max(1) as f64,
        if left.is_finite() { format!("{left:.0} s") } else { "an unknown time".into() }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_page_of_the_range_starts_with_the_pass_stamp() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t");
        // A header block of 4096 bytes, then 3 chunks and a bit: the range does not end on a chunk.
        let (start, len) = (4096u64, (3 * CHUNK + 3 * STAMP_EVERY) as u64);
        std::fs::write(&path, vec![7u8; (start + len + 100) as usize]).unwrap();
        let file = std::fs::OpenOptions::new().read(true).write(true).open(&path).unwrap();
        let mut lines = Vec::new();
        let done =
            precondition(&file, &path, (start, len), 2, &AtomicBool::new(false), &mut |l| lines.push(l.to_string()))
                .unwrap();
        assert_eq!(done.bytes, 2 * len);
        let bytes = std::fs::read(&path).unwrap();
        assert!(bytes[..start as usize].iter().all(|&b| b == 7), "the header block is untouched");
        assert!(bytes[(start + len) as usize..].iter().all(|&b| b == 7), "nothing after the range");
        let range = &bytes[start as usize..(start + len) as usize];
        for (i, page) in range.chunks(STAMP_EVERY).enumerate() {
            assert!(page.starts_with(b"iogen-precondition pass=2\n"), "page {i}");
            assert!(!page.contains(&0), "page {i} holds a zero byte");
        }
        assert!(lines[0].contains("2 sequential passes") && lines.last().unwrap().contains("preconditioned"));
    }

    #[test]
    fn a_stop_ends_it_naming_the_target() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t");
        std::fs::write(&path, vec![7u8; 8192]).unwrap();
        let file = std::fs::OpenOptions::new().read(true).write(true).open(&path).unwrap();
        let e = precondition(&file, &path, (0, 8192), 1, &AtomicBool::new(true), &mut |_| {}).unwrap_err();
        assert!(matches!(e, TargetError::PreconditionInterrupted(_)));
        assert!(e.to_string().contains(&path.display().to_string()), "{e}");
    }
}
