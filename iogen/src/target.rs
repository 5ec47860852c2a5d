//! Opening the target, laying out new files, and the "never lose data" rule.
//!
//! Writes go only to (a) a file iogen creates now, (b) a file iogen laid out earlier — recognised
//! by its header block, not by its name — or (c) a target named again with `--allow-overwrite`.
//! Anything else with writes in the mix is refused before any IO, and a mounted or otherwise
//! used block device is refused even then. Read-only workloads open the target read-only, so the
//! kernel itself guarantees it stays untouched.
//!
//! An iogen file starts with a 4 KiB header block (magic line, size, creation time) that IO never
//! touches; the data blocks follow and were written in full with non-zero data, so reads hit real
//! blocks, not holes.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::Context;
use thiserror::Error;

use crate::engine::fill_nonzero;
use crate::options::{IoMode, Options, Overwrite};

/// Bytes of the header block at the start of every file iogen lays out.
pub const HEADER_LEN: u64 = 4096;
/// First line of the header block.
pub const MAGIC: &[u8] = b"IOGEN-TARGET v1\n";
/// Size of a file iogen creates when `--size` is not given.
pub const DEFAULT_NEW_SIZE: u64 = 1 << 30;

/// Why a target cannot be used.
#[derive(Debug, Error)]
pub enum TargetError {
    /// Refused by the never-lose-data rule or unusable (exit code 2).
    #[error("{0}")]
    Refused(String),
    /// `--size` does not fit the target (exit code 2).
    #[error("--size: {0}")]
    BadSize(String),
    /// SIGINT/SIGTERM while laying out; the partial file was removed (exit code 130).
    #[error("interrupted while laying out {0}; the partial file was removed")]
    Interrupted(PathBuf),
    /// An IO error with context.
    #[error(transparent)]
    Io(#[from] anyhow::Error),
}

/// What the target is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetKind {
    /// Created and laid out by this run.
    NewFile,
    /// Laid out by iogen earlier (header recognised).
    OwnFile,
    /// An existing file iogen did not lay out.
    ForeignFile,
    /// A block device.
    BlockDevice,
}

/// An open target and the byte range IO may use.
#[derive(Debug)]
pub struct Target {
    /// The open file (read-only for read-only workloads; `O_DIRECT` with `--direct`).
    pub file: Arc<File>,
    /// What it is.
    pub kind: TargetKind,
    /// First byte IO may touch (after the header block of iogen's own files).
    pub data_start: u64,
    /// One past the last byte IO may touch.
    pub data_end: u64,
}

impl Target {
    /// Number of whole blocks of `block_size` in the IO range.
    pub fn blocks(&self, block_size: u64) -> u64 {
        (self.data_end - self.data_start) / block_size
    }
}

/// Open `opts.target`, laying it out first when it does not exist, after applying the rules.
pub fn prepare(opts: &Options, stop: &AtomicBool) -> Result<Target, TargetError> {
    let path = opts.target.as_path();
    let writes = opts.writes();
    let meta = match std::fs::metadata(path) {
        Ok(m) => Some(m),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(TargetError::Io(anyhow::Error::new(e).context(format!("inspecting {}", path.display())))),
    };
    let (kind, total) = match meta {
        None => {
            let size = opts.size.unwrap_or(DEFAULT_NEW_SIZE);
            if size < HEADER_LEN + opts.block_size {
                return Err(TargetError::BadSize(format!(
                    "{size} bytes is too small for a new file: it needs the {HEADER_LEN}-byte header block plus one block of {} bytes",
                    opts.block_size
                )));
            }
            lay_out(path, 0, size, stop)?;
            (TargetKind::NewFile, size)
        }
        Some(m) if m.is_file() => {
            let len = m.len();
            if has_header(path) {
                let size = opts.size.unwrap_or(len);
                if size > len {
                    // Our own file: grow it, laying out the new part in full.
                    lay_out(path, len, size, stop)?;
                }
                (TargetKind::OwnFile, size)
            } else {
                if writes && !allowed(opts, path) {
                    return Err(refusal(path, "is an existing file that iogen did not lay out"));
                }
                let size = opts.size.unwrap_or(len);
                if size > len {
                    return Err(TargetError::BadSize(format!(
                        "{size} bytes is larger than the existing file {} ({len} bytes); iogen never grows a file it did not create",
                        path.display()
                    )));
                }
                (TargetKind::ForeignFile, size)
            }
        }
        Some(m) if m.file_type().is_block_device() => {
            if writes {
                if let Some(why) = device_in_use(m.rdev()) {
                    return Err(TargetError::Refused(format!(
                        "refusing to write to {}: {why}; iogen never writes to a device in use, even with --allow-overwrite",
                        path.display()
                    )));
                }
                if !allowed(opts, path) {
                    return Err(refusal(path, "is a block device"));
                }
            }
            let len = device_size(path)?;
            let size = opts.size.unwrap_or(len);
            if size > len {
                return Err(TargetError::BadSize(format!(
                    "{size} bytes is larger than the device {} ({len} bytes)",
                    path.display()
                )));
            }
            (TargetKind::BlockDevice, size)
        }
        Some(_) => {
            return Err(TargetError::Refused(format!(
                "{} is neither a regular file nor a block device",
                path.display()
            )))
        }
    };
    let data_start = if matches!(kind, TargetKind::NewFile | TargetKind::OwnFile) { HEADER_LEN } else { 0 };
    if total < data_start + opts.block_size {
        return Err(TargetError::BadSize(format!(
            "{total} bytes leave no room for one block of {} bytes after the header",
            opts.block_size
        )));
    }
    let mut oo = OpenOptions::new();
    oo.read(true).write(writes);
    if opts.io_mode == IoMode::Direct {
        oo.custom_flags(libc::O_DIRECT);
    }
    let file = oo.open(path).with_context(|| {
        format!(
            "opening {}{}",
            path.display(),
            if opts.io_mode == IoMode::Direct {
                " with O_DIRECT (some file systems, e.g. tmpfs, do not support it)"
            } else {
                ""
            }
        )
    })?;
    Ok(Target { file: Arc::new(file), kind, data_start, data_end: total })
}

fn refusal(path: &Path, what: &str) -> TargetError {
    TargetError::Refused(format!(
        "refusing to write to {}: it {what}, and writing could destroy data. Nothing was written. \
         To run a read-only workload use --read-pct 100; to allow writes name it again: --allow-overwrite {}",
        path.display(),
        path.display()
    ))
}

fn allowed(opts: &Options, path: &Path) -> bool {
    let Overwrite::Allowed(list) = &opts.overwrite else { return false };
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let target = canon(path);
    list.iter().any(|p| canon(p) == target)
}

/// Whether `path` starts with iogen's header block.
pub fn has_header(path: &Path) -> bool {
    let Ok(mut f) = File::open(path) else { return false };
    let mut head = vec![0u8; MAGIC.len()];
    f.read_exact(&mut head).is_ok() && head == MAGIC
}

fn header_block(size: u64) -> Vec<u8> {
    let mut block = vec![0u8; HEADER_LEN as usize];
    fill_nonzero(&mut block, 0x1060);
    let created = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let text = format!(
        "{}size={size}\ncreated_unix={created}\nThis file was laid out by iogen (Capacity Lab) as an IO test target.\n\n",
        String::from_utf8_lossy(MAGIC)
    );
    block[..text.len()].copy_from_slice(text.as_bytes());
    block
}

/// Write bytes `from..to` of `path` with non-zero data (creating the file with its header when
/// `from == 0`). A file this call created is removed again on error or interruption.
fn lay_out(path: &Path, from: u64, to: u64, stop: &AtomicBool) -> Result<(), TargetError> {
    let creating = from == 0;
    let mut f = if creating {
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o644)
            .open(path)
            .with_context(|| format!("creating {}", path.display()))?
    } else {
        OpenOptions::new().write(true).open(path).with_context(|| format!("opening {} to grow it", path.display()))?
    };
    let result = (|| -> Result<(), TargetError> {
        let mut pos = from;
        f.seek(SeekFrom::Start(pos)).with_context(|| format!("seeking in {}", path.display()))?;
        if creating {
            f.write_all(&header_block(to)).with_context(|| format!("writing the header of {}", path.display()))?;
            pos = HEADER_LEN;
        }
        const CHUNK: usize = 1 << 20;
        let mut chunk = vec![0u8; CHUNK];
        let mut i = 0u64;
        while pos < to {
            if stop.load(Ordering::Relaxed) {
                return Err(TargetError::Interrupted(path.to_path_buf()));
            }
            let n = ((to - pos) as usize).min(CHUNK);
            fill_nonzero(&mut chunk[..n], pos ^ i);
            f.write_all(&chunk[..n]).with_context(|| format!("laying out {} at byte {pos}", path.display()))?;
            pos += n as u64;
            i += 1;
        }
        f.sync_data().with_context(|| format!("flushing {}", path.display()))?;
        Ok(())
    })();
    if result.is_err() && creating {
        let _ = std::fs::remove_file(path);
    }
    result
}

fn device_size(path: &Path) -> Result<u64, TargetError> {
    let mut f = File::open(path).with_context(|| format!("opening {}", path.display()))?;
    Ok(f.seek(SeekFrom::End(0)).with_context(|| format!("finding the size of {}", path.display()))?)
}

/// Why the block device `rdev` is in use (mounted, a partition of it mounted, held by device
/// mapper/RAID, or swap), or `None`.
fn device_in_use(rdev: u64) -> Option<String> {
    let (maj, min) = (libc::major(rdev), libc::minor(rdev));
    let mut devs = vec![format!("{maj}:{min}")];
    let sys = PathBuf::from(format!("/sys/dev/block/{maj}:{min}"));
    if let Ok(entries) = std::fs::read_dir(&sys) {
        for e in entries.flatten() {
            if e.path().join("partition").exists() {
                if let Ok(d) = std::fs::read_to_string(e.path().join("dev")) {
                    devs.push(d.trim().to_string());
                }
            }
        }
    }
    if let Ok(info) = std::fs::read_to_string("/proc/self/mountinfo") {
        for line in info.lines() {
            let mut f = line.split_whitespace();
            let (Some(_), Some(_), Some(dev), Some(_), Some(mnt)) = (f.next(), f.next(), f.next(), f.next(), f.next())
            else {
                continue;
            };
            if devs.iter().any(|d| d == dev) {
                return Some(format!("it (or a partition of it, {dev}) is mounted on {mnt}"));
            }
        }
    }
    for d in &devs {
        let holders = PathBuf::from(format!("/sys/dev/block/{d}/holders"));
        if std::fs::read_dir(&holders).map(|mut r| r.next().is_some()).unwrap_or(false) {
            return Some(format!("device {d} is held by another device (LVM, RAID or device mapper)"));
        }
    }
    if let Ok(swaps) = std::fs::read_to_string("/proc/swaps") {
        for line in swaps.lines().skip(1) {
            if let Some(p) = line.split_whitespace().next() {
                if let Ok(m) = std::fs::metadata(p) {
                    let r = m.rdev();
                    if devs.contains(&format!("{}:{}", libc::major(r), libc::minor(r))) {
                        return Some(format!("it is used as swap ({p})"));
                    }
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(path: &Path, read_pct: f64) -> Options {
        Options { target: path.to_path_buf(), size: Some(1 << 20), read_pct, ..Options::default() }
    }

    #[test]
    fn new_files_are_laid_out_and_recognised() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.dat");
        let stop = AtomicBool::new(false);
        let t = prepare(&opts(&p, 50.0), &stop).unwrap();
        assert_eq!(t.kind, TargetKind::NewFile);
        assert_eq!(t.data_start, HEADER_LEN);
        assert_eq!(t.blocks(4096), 255);
        let bytes = std::fs::read(&p).unwrap();
        assert_eq!(bytes.len(), 1 << 20);
        assert!(bytes[HEADER_LEN as usize..].iter().all(|&b| b != 0), "no holes, no zero blocks");
        drop(t);
        // Renamed, it is still recognised as iogen's own (by content, not name).
        let q = dir.path().join("renamed");
        std::fs::rename(&p, &q).unwrap();
        let t = prepare(&Options { size: None, ..opts(&q, 0.0) }, &stop).unwrap();
        assert_eq!(t.kind, TargetKind::OwnFile);
        // and it may grow
        drop(t);
        let t = prepare(&Options { size: Some(2 << 20), ..opts(&q, 0.0) }, &stop).unwrap();
        assert_eq!(t.data_end, 2 << 20);
        assert_eq!(std::fs::metadata(&q).unwrap().len(), 2 << 20);
    }

    #[test]
    fn foreign_files_are_readable_but_not_writable() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("precious");
        std::fs::write(&p, vec![42u8; 1 << 16]).unwrap();
        let stop = AtomicBool::new(false);
        let o = Options { size: None, ..opts(&p, 70.0) };
        match prepare(&o, &stop) {
            Err(TargetError::Refused(m)) => assert!(m.contains("--allow-overwrite"), "{m}"),
            other => panic!("not refused: {other:?}"),
        }
        assert_eq!(std::fs::read(&p).unwrap(), vec![42u8; 1 << 16]);
        let t = prepare(&Options { read_pct: 100.0, ..o.clone() }, &stop).unwrap();
        assert_eq!(t.kind, TargetKind::ForeignFile);
        assert_eq!(t.data_start, 0);
        let allowed = Options { overwrite: Overwrite::Allowed(vec![p.clone()]), ..o.clone() };
        assert!(prepare(&allowed, &stop).is_ok());
        let other = Options { overwrite: Overwrite::Allowed(vec![dir.path().join("else")]), ..o };
        assert!(matches!(prepare(&other, &stop), Err(TargetError::Refused(_))));
    }

    #[test]
    fn sizes_that_do_not_fit_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let stop = AtomicBool::new(false);
        let tiny = Options { size: Some(4096), ..opts(&dir.path().join("n"), 0.0) };
        assert!(matches!(prepare(&tiny, &stop), Err(TargetError::BadSize(_))));
        assert!(!dir.path().join("n").exists());
        let p = dir.path().join("small");
        std::fs::write(&p, vec![1u8; 8192]).unwrap();
        let big = Options { size: Some(1 << 20), ..opts(&p, 100.0) };
        assert!(matches!(prepare(&big, &stop), Err(TargetError::BadSize(_))));
    }

    #[test]
    fn interrupted_layout_removes_the_partial_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t");
        let stop = AtomicBool::new(true);
        assert!(matches!(prepare(&opts(&p, 0.0), &stop), Err(TargetError::Interrupted(_))));
        assert!(!p.exists());
    }
}
