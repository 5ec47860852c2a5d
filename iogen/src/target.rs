//! Opening the target, laying out new files, and the "never lose data" rule.
//!
//! Writes go only to (a) a file iogen creates now, (b) a file iogen laid out earlier — recognised
//! by its header block, not by its name — or (c) a target named again with `--allow-overwrite`.
//! Anything else with writes in the mix is refused before any IO, and a mounted or otherwise
//! used block device is refused even then. Read-only workloads open the target read-only, so the
//! kernel itself guarantees it stays untouched.
//!
//! An iogen file starts with a 4 KiB header block that IO never touches; the data blocks follow
//! and were written in full with non-zero data, so reads hit real blocks, not holes. The header
//! (format v2) holds its layout parameters and a CRC-32 of them:
//!
//! ```text
//! IOGEN-TARGET v2
//! header_len=4096
//! size=1048576            <- total bytes, header included; must equal the file's length
//! created_unix=1763900000
//! id=5f0c3a9e17b2d4c8     <- random, so two targets' headers differ
//! crc32=0a1b2c3d          <- CRC-32 (ISO-HDLC, as zlib) of the bytes of the lines above
//! ```
//!
//! A foreign file that merely begins with the magic line is not recognised: the parameters must
//! parse, `size` must equal the file's length and the CRC must match. Files laid out by the first
//! format (v1: magic line, `size`, `created_unix`, no CRC) are still recognised when the rest of
//! their header block is the exact pseudo-random filler v1 wrote (about 4,000 bytes a foreign file
//! cannot match by accident); growing one rewrites its header as v2.
//!
//! Time-of-check/time-of-use: every check looks at an open descriptor (`fstat`, `pread`), never at
//! the path alone. Targets are opened with `O_NOFOLLOW` — a target path that is a symbolic link is
//! refused, naming where it points — and the descriptor IO uses is compared (device, inode) with
//! the one that was checked, so a file or link swapped in between is refused. Block devices are
//! opened with `O_EXCL` for writing, so the kernel refuses a device that is mounted (in any mount
//! namespace) or held exclusively by another process, even with `--allow-overwrite`; that claim is
//! taken when the steps are checked and held until iogen exits.

use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::os::unix::fs::{FileExt, FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use anyhow::Context;
use thiserror::Error;

use crate::options::{IoMode, Options, Overwrite};

/// Bytes of the header block at the start of every file iogen lays out.
pub const HEADER_LEN: u64 = 4096;
/// First line of the header block of the current format.
pub const MAGIC: &[u8] = b"IOGEN-TARGET v2\n";
/// First line of the header block of the first format (recognised, no longer written).
const MAGIC_V1: &[u8] = b"IOGEN-TARGET v1\n";
/// Seed of the filler after the header text (v1 and v2 write the same filler).
const FILLER_SEED: u64 = 0x1060;
/// The sentence that ends the header text.
const HEADER_NOTE: &str = "This file was laid out by iogen (Capacity Lab) as an IO test target.\n\n";
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
    #[error("interrupted while laying out {0}; the partial file was removed (or a grown file cut back)")]
    Interrupted(PathBuf),
    /// SIGINT/SIGTERM while preconditioning (exit code 130).
    #[error(
        "interrupted while preconditioning {0}; part of its data was overwritten, its header is intact and it can \
         be used again"
    )]
    PreconditionInterrupted(PathBuf),
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

/// A recognised header block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// Format version (1 or 2).
    pub version: u8,
    /// Total bytes laid out, header included.
    pub size: u64,
}

/// What a target path holds, as seen through an open descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Found {
    /// Nothing at the path: iogen creates the file.
    Absent,
    /// A regular file with iogen's header, `len` bytes long.
    Own { len: u64, header: Header },
    /// A regular file without it.
    Foreign { len: u64 },
    /// A block device of `len` bytes with device number `rdev`.
    Device { len: u64, rdev: u64 },
}

/// Device and inode (and rdev for devices): what "the same file" means.
type FileId = (u64, u64, u64);

fn file_id(m: &std::fs::Metadata) -> FileId {
    (m.dev(), m.ino(), m.rdev())
}

/// The result of looking at the path through a descriptor opened without following links.
struct Probe {
    found: Found,
    id: Option<FileId>,
}

/// Check every step's target before any IO, in step order, as the steps would find it: a file the
/// first step creates (or grows) is iogen's own for the steps after it. Nothing is created or
/// written; a block device that a step would write is claimed now (see [`claim_device`]), which
/// proves no one else holds it and keeps it that way until iogen exits.
pub fn check_steps(steps: &[&Options]) -> Result<(), TargetError> {
    let mut seen: Vec<(PathBuf, Found, Option<FileId>)> = Vec::new();
    for o in steps {
        let path = o.target.as_path();
        let i = match seen.iter().position(|(p, _, _)| p == path) {
            Some(i) => i,
            None => {
                let Probe { found, id } = probe(path)?;
                if found == Found::Absent {
                    check_directory(path)?;
                }
                seen.push((path.to_path_buf(), found, id));
                seen.len() - 1
            }
        };
        let (kind, total) = decide(o, seen[i].1)?;
        if kind == TargetKind::BlockDevice && o.writes() {
            claim_device(path, seen[i].2)?;
        }
        let grown = match seen[i].1 {
            Found::Absent => true,
            Found::Own { len, .. } => total > len,
            _ => false,
        };
        if grown {
            seen[i].1 = Found::Own { len: total, header: Header { version: 2, size: total } };
        }
    }
    Ok(())
}

fn check_directory(path: &Path) -> Result<(), TargetError> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if std::fs::metadata(dir).map(|m| m.is_dir()).unwrap_or(false) {
        Ok(())
    } else {
        Err(TargetError::Refused(format!(
            "--target {}: its directory {} does not exist",
            path.display(),
            dir.display()
        )))
    }
}

/// Open `opts.target`, laying it out first when it does not exist, after applying the rules to
/// what an open descriptor shows.
pub fn prepare(opts: &Options, stop: &AtomicBool) -> Result<Target, TargetError> {
    prepare_probed(opts, probe(&opts.target)?, stop)
}

/// [`prepare`] after the look at the path (apart so a test can swap the path in between).
fn prepare_probed(opts: &Options, probe: Probe, stop: &AtomicBool) -> Result<Target, TargetError> {
    let path = opts.target.as_path();
    let (kind, total) = decide(opts, probe.found)?;
    let expected = match (kind, probe.found) {
        (TargetKind::NewFile, _) => Some(lay_out_new(path, total, stop)?),
        (TargetKind::OwnFile, Found::Own { len, .. }) if total > len => {
            grow(path, probe.id, len, total, stop)?;
            probe.id
        }
        _ => probe.id,
    };
    if kind == TargetKind::BlockDevice && opts.writes() {
        claim_device(path, probe.id)?;
    }
    let file = open_final(opts, opts.writes())?;
    let meta = file.metadata().with_context(|| format!("inspecting the opened {}", path.display()))?;
    if Some(file_id(&meta)) != expected {
        return Err(TargetError::Refused(format!(
            "refusing to use {}: it was replaced by another file between the check and the open; nothing was written",
            path.display()
        )));
    }
    let data_start = if matches!(kind, TargetKind::NewFile | TargetKind::OwnFile) { HEADER_LEN } else { 0 };
    Ok(Target { file: Arc::new(file), kind, data_start, data_end: total })
}

/// Look at `path` through a descriptor opened read-only, without following a final symbolic link,
/// without blocking (a FIFO) and without becoming a controlling terminal.
fn probe(path: &Path) -> Result<Probe, TargetError> {
    let opened = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(path);
    let file = match opened {
        Ok(f) => f,
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Err(symlink_refusal(path)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if path.symlink_metadata().is_ok() {
                return Err(symlink_refusal(path));
            }
            return Ok(Probe { found: Found::Absent, id: None });
        }
        Err(e) => return Err(TargetError::Io(anyhow::Error::new(e).context(format!("opening {}", path.display())))),
    };
    let meta = file.metadata().with_context(|| format!("inspecting {}", path.display()))?;
    let found = if meta.is_file() {
        let mut block = vec![0u8; HEADER_LEN as usize];
        let n = read_prefix(&file, &mut block).with_context(|| format!("reading {}", path.display()))?;
        match parse_header(&block[..n], meta.len()) {
            Some(header) => Found::Own { len: meta.len(), header },
            None => Found::Foreign { len: meta.len() },
        }
    } else if meta.file_type().is_block_device() {
        let len = (&file).seek(SeekFrom::End(0)).with_context(|| format!("finding the size of {}", path.display()))?;
        Found::Device { len, rdev: meta.rdev() }
    } else {
        return Err(TargetError::Refused(format!(
            "--target {} is neither a regular file nor a block device",
            path.display()
        )));
    };
    Ok(Probe { found, id: Some(file_id(&meta)) })
}

fn read_prefix(file: &File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read_at(&mut buf[n..], n as u64)? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

fn symlink_refusal(path: &Path) -> TargetError {
    let to = std::fs::canonicalize(path)
        .map(|p| format!("resolves to {}", p.display()))
        .or_else(|_| std::fs::read_link(path).map(|p| format!("points to {} (missing)", p.display())))
        .unwrap_or_else(|_| "cannot be resolved".into());
    TargetError::Refused(format!(
        "--target {} is a symbolic link ({to}); iogen opens targets without following links, so that a link \
         swapped in cannot redirect its IO: name the file or device itself",
        path.display()
    ))
}

/// Apply the rules to what the probe found: the kind of target and the total bytes to use.
fn decide(opts: &Options, found: Found) -> Result<(TargetKind, u64), TargetError> {
    let path = opts.target.as_path();
    let writes = opts.writes();
    let (kind, total) = match found {
        Found::Absent => {
            let size = opts.size.unwrap_or(DEFAULT_NEW_SIZE);
            if size < HEADER_LEN + opts.block_size {
                return Err(TargetError::BadSize(format!(
                    "{size} bytes is too small for a new file: it needs the {HEADER_LEN}-byte header block plus one block of {} bytes",
                    opts.block_size
                )));
            }
            (TargetKind::NewFile, size)
        }
        Found::Own { len, header } => {
            let total = opts.size.unwrap_or(len);
            // A v1 header vouches only for its first `size` bytes (v1 wrote no length check, and
            // its block can head a longer foreign file): bytes after them are written only when
            // named with --allow-overwrite.
            if writes && header.size < len && total > header.size && !allowed(opts, path) {
                return Err(refusal(
                    path,
                    &format!(
                        "has an iogen v1 header for its first {} bytes but is {len} bytes long, and the bytes after                          them may not be iogen's (to use only the laid-out part: --size {}),",
                        header.size, header.size
                    ),
                ));
            }
            (TargetKind::OwnFile, total)
        }
        Found::Foreign { len } => {
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
        Found::Device { len, rdev } => {
            if writes {
                if let Some(why) = device_in_use(rdev) {
                    return Err(in_use_refusal(path, &why));
                }
                if !allowed(opts, path) {
                    return Err(refusal(path, "is a block device"));
                }
            }
            let size = opts.size.unwrap_or(len);
            if size > len {
                return Err(TargetError::BadSize(format!(
                    "{size} bytes is larger than the device {} ({len} bytes)",
                    path.display()
                )));
            }
            (TargetKind::BlockDevice, size)
        }
    };
    let data_start = if matches!(kind, TargetKind::NewFile | TargetKind::OwnFile) { HEADER_LEN } else { 0 };
    if total < data_start + opts.block_size {
        return Err(TargetError::BadSize(format!(
            "{total} bytes leave no room for one block of {} bytes after the header",
            opts.block_size
        )));
    }
    Ok((kind, total))
}

/// `O_EXCL` descriptors of the block devices this process writes, held until it exits.
static DEVICE_CLAIMS: Mutex<Vec<(FileId, File)>> = Mutex::new(Vec::new());

/// Claim the block device at `path` (identity `id` as probed) for this process: open it `O_EXCL`
/// (the kernel refuses while it is mounted in any mount namespace, or claimed by another process)
/// and keep that descriptor until iogen exits, so no one can mount or claim it between the check
/// and the last step. The opens for IO are then ordinary ones: an `O_EXCL` open per step would
/// collide with the previous step's descriptor, which an io_uring ring releases asynchronously.
fn claim_device(path: &Path, id: Option<FileId>) -> Result<(), TargetError> {
    let mut claims = DEVICE_CLAIMS.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if claims.iter().any(|(c, _)| Some(*c) == id) {
        return Ok(());
    }
    let flags = libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC;
    let f = match OpenOptions::new().read(true).custom_flags(flags).open(path) {
        Ok(f) => f,
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Err(symlink_refusal(path)),
        Err(e) if e.raw_os_error() == Some(libc::EBUSY) => {
            return Err(in_use_refusal(
                path,
                "the kernel refused exclusive access (it is mounted, perhaps in another mount namespace, \
                 or held open exclusively by another process)",
            ))
        }
        Err(e) => {
            return Err(TargetError::Io(
                anyhow::Error::new(e).context(format!("opening {} exclusively", path.display())),
            ))
        }
    };
    let got = file_id(&f.metadata().with_context(|| format!("inspecting {}", path.display()))?);
    if Some(got) != id {
        return Err(TargetError::Refused(format!(
            "refusing to use {}: it was replaced by another device between the check and the open; nothing was written",
            path.display()
        )));
    }
    claims.push((got, f));
    Ok(())
}

/// Open the target for IO: `O_NOFOLLOW`, and `O_DIRECT` with `--direct`.
fn open_final(opts: &Options, writes: bool) -> Result<File, TargetError> {
    let path = opts.target.as_path();
    let mut flags = libc::O_NOFOLLOW | libc::O_CLOEXEC;
    if opts.io_mode == IoMode::Direct {
        flags |= libc::O_DIRECT;
    }
    match OpenOptions::new().read(true).write(writes).custom_flags(flags).open(path) {
        Ok(f) => Ok(f),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => Err(symlink_refusal(path)),
        Err(e) => Err(TargetError::Io(anyhow::Error::new(e).context(format!(
            "opening {}{}",
            path.display(),
            if opts.io_mode == IoMode::Direct {
                " with O_DIRECT (some file systems, e.g. tmpfs, do not support it)"
            } else {
                ""
            }
        )))),
    }
}

fn in_use_refusal(path: &Path, why: &str) -> TargetError {
    TargetError::Refused(format!(
        "refusing to write to {}: {why}; iogen never writes to a device in use, even with --allow-overwrite",
        path.display()
    ))
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

/// The header `block` (the first bytes of a file of `file_len` bytes) if it is iogen's: v2 with
/// matching parameters and CRC, or v1 with its exact filler.
pub fn parse_header(block: &[u8], file_len: u64) -> Option<Header> {
    if block.len() < HEADER_LEN as usize {
        return None;
    }
    if block.starts_with(MAGIC) {
        parse_v2(block, file_len)
    } else if block.starts_with(MAGIC_V1) {
        parse_v1(block, file_len)
    } else {
        None
    }
}

fn parse_v2(block: &[u8], file_len: u64) -> Option<Header> {
    let crc_at = find(block, b"crc32=")?;
    let covered = &block[..crc_at];
    let text = std::str::from_utf8(covered).ok()?;
    let mut lines = text.strip_prefix(std::str::from_utf8(MAGIC).ok()?)?.split_terminator('\n');
    let mut field = |key: &str| -> Option<u64> {
        let v = lines.next()?.strip_prefix(key)?.strip_prefix('=')?;
        (!v.is_empty() && v.bytes().all(|b| b.is_ascii_digit() || (key == "id" && b.is_ascii_hexdigit())))
            .then(|| if key == "id" { u64::from_str_radix(v, 16).ok() } else { v.parse().ok() })
            .flatten()
    };
    let header_len = field("header_len")?;
    let size = field("size")?;
    field("created_unix")?;
    field("id")?;
    if lines.next().is_some() || !text.ends_with('\n') {
        return None;
    }
    let crc_line = &block[crc_at + b"crc32=".len()..];
    let crc_text = std::str::from_utf8(crc_line.get(..8)?).ok()?;
    let ok = header_len == HEADER_LEN
        && size == file_len
        && crc_line.get(8) == Some(&b'\n')
        && u32::from_str_radix(crc_text, 16).ok()? == crc32fast::hash(covered);
    ok.then_some(Header { version: 2, size })
}

fn parse_v1(block: &[u8], file_len: u64) -> Option<Header> {
    let end = find(block, b"\n\n")? + 2;
    let text = std::str::from_utf8(&block[..end]).ok()?;
    let rest = text.strip_prefix("IOGEN-TARGET v1\nsize=")?;
    let (size, rest) = rest.split_once('\n')?;
    let created = rest.strip_prefix("created_unix=")?.strip_suffix(HEADER_NOTE)?.strip_suffix('\n')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(size) || !digits(created) {
        return None;
    }
    let size: u64 = size.parse().ok()?;
    let mut filler = vec![0u8; HEADER_LEN as usize];
    fill_filler(&mut filler, FILLER_SEED);
    let ok = size >= HEADER_LEN && size <= file_len && block[end..HEADER_LEN as usize] == filler[end..];
    ok.then_some(Header { version: 1, size })
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The v2 header block for a file of `size` bytes.
pub fn header_block(size: u64) -> Vec<u8> {
    let mut block = vec![0u8; HEADER_LEN as usize];
    fill_filler(&mut block, FILLER_SEED);
    let created = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let covered = format!(
        "{}header_len={HEADER_LEN}\nsize={size}\ncreated_unix={created}\nid={:016x}\n",
        String::from_utf8_lossy(MAGIC),
        rand::random::<u64>()
    );
    let text = format!("{covered}crc32={:08x}\n{HEADER_NOTE}", crc32fast::hash(covered.as_bytes()));
    block[..text.len()].copy_from_slice(text.as_bytes());
    block
}

/// Non-zero pseudo-random bytes (xorshift64*): the header filler and the data iogen lays out.
/// The engines' pattern, on purpose: v1 headers are recognised by this exact filler, which
/// `the_v1_filler_is_pinned` holds to bytes computed apart (Python, from the xorshift64* recurrence).
fn fill_filler(buf: &mut [u8], seed: u64) {
    crate::engine::fill_nonzero(buf, seed);
}

/// Write `from..to` of `f` with non-zero data in 1 MiB chunks, then flush to the device.
fn write_data(f: &File, path: &Path, from: u64, to: u64, stop: &AtomicBool) -> Result<(), TargetError> {
    const CHUNK: usize = 1 << 20;
    let mut chunk = vec![0u8; CHUNK];
    let (mut pos, mut i) = (from, 0u64);
    while pos < to {
        if stop.load(Ordering::Relaxed) {
            return Err(TargetError::Interrupted(path.to_path_buf()));
        }
        let n = ((to - pos) as usize).min(CHUNK);
        fill_filler(&mut chunk[..n], pos ^ i);
        f.write_all_at(&chunk[..n], pos).with_context(|| format!("laying out {} at byte {pos}", path.display()))?;
        pos += n as u64;
        i += 1;
    }
    f.sync_data().with_context(|| format!("flushing {}", path.display()))?;
    Ok(())
}

/// Create `path` (`O_CREAT|O_EXCL`: never an existing file, never through a link) with its header
/// and `size - HEADER_LEN` bytes of data. The file is removed again on error or interruption.
/// Returns the identity of the created file.
fn lay_out_new(path: &Path, size: u64, stop: &AtomicBool) -> Result<FileId, TargetError> {
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o644)
        .custom_flags(libc::O_CLOEXEC)
        .open(path)
        .with_context(|| format!("creating {}", path.display()))?;
    let result = (|| -> Result<FileId, TargetError> {
        f.write_all(&header_block(size)).with_context(|| format!("writing the header of {}", path.display()))?;
        write_data(&f, path, HEADER_LEN, size, stop)?;
        Ok(file_id(&f.metadata().with_context(|| format!("inspecting {}", path.display()))?))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(path);
    }
    result
}

/// Grow iogen's own file from `len` to `size` bytes: lay out the new part, then rewrite the
/// header (v2) with the new size. On error or interruption the file is cut back to `len`, so its
/// header still matches it. `id` is the file that was checked; another one at the path is refused.
fn grow(path: &Path, id: Option<FileId>, len: u64, size: u64, stop: &AtomicBool) -> Result<(), TargetError> {
    let f = OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
        .with_context(|| format!("opening {} to grow it", path.display()))?;
    let meta = f.metadata().with_context(|| format!("inspecting {}", path.display()))?;
    if Some(file_id(&meta)) != id || meta.len() != len {
        return Err(TargetError::Refused(format!(
            "refusing to grow {}: it changed between the check and the open; nothing was written",
            path.display()
        )));
    }
    let result = write_data(&f, path, len, size, stop).and_then(|()| {
        f.write_all_at(&header_block(size), 0)
            .and_then(|()| f.sync_data())
            .with_context(|| format!("rewriting the header of {}", path.display()))
            .map_err(TargetError::from)
    });
    if result.is_err() {
        let _ = f.set_len(len);
    }
    result
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

    #[test]
    fn the_v1_filler_is_pinned() {
        // First 16 bytes for FILLER_SEED, computed outside iogen: a change to the engines'
        // pattern would make every v1 target look foreign.
        let mut b = [0u8; 16];
        fill_filler(&mut b, FILLER_SEED);
        assert_eq!(b, [175, 225, 201, 89, 65, 89, 143, 145, 25, 219, 243, 175, 131, 221, 245, 189]);
    }

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
    fn only_a_complete_header_with_matching_crc_and_size_is_iogens() {
        let block = header_block(1 << 20);
        assert_eq!(parse_header(&block, 1 << 20), Some(Header { version: 2, size: 1 << 20 }));
        assert_eq!(parse_header(&block, (1 << 20) + 4096), None, "size must equal the file's length");
        // The magic line alone (rest zeros, or a text file) is foreign.
        let mut magic_only = vec![0u8; HEADER_LEN as usize];
        magic_only[..MAGIC.len()].copy_from_slice(MAGIC);
        assert_eq!(parse_header(&magic_only, 1 << 20), None);
        let mut text =
            b"IOGEN-TARGET v2\nheader_len=4096\nsize=1048576\ncreated_unix=1\nid=00\ncrc32=00000000\n".to_vec();
        text.resize(HEADER_LEN as usize, b' ');
        assert_eq!(parse_header(&text, 1 << 20), None, "wrong CRC");
        // One changed parameter byte breaks the CRC.
        let mut edited = block.clone();
        let at = find(&edited, b"size=").unwrap() + 5;
        edited[at] = if edited[at] == b'1' { b'2' } else { b'1' };
        assert_eq!(parse_header(&edited, 1 << 20), None);
        // v1 (written by earlier iogen): recognised only with its exact filler.
        let mut v1 = vec![0u8; HEADER_LEN as usize];
        fill_filler(&mut v1, FILLER_SEED);
        let t = format!("IOGEN-TARGET v1\nsize=1048576\ncreated_unix=1763900000\n{HEADER_NOTE}");
        v1[..t.len()].copy_from_slice(t.as_bytes());
        assert_eq!(parse_header(&v1, 1 << 20), Some(Header { version: 1, size: 1 << 20 }));
        assert_eq!(parse_header(&v1, 2 << 20), Some(Header { version: 1, size: 1 << 20 }), "grown by v1");
        let mut v1_magic_only = vec![b'x'; HEADER_LEN as usize];
        v1_magic_only[..t.len()].copy_from_slice(t.as_bytes());
        assert_eq!(parse_header(&v1_magic_only, 1 << 20), None);
    }

    #[test]
    fn a_v1_block_heading_a_longer_file_writes_only_its_own_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("old.dat");
        // 1 MiB laid out by v1, then 7 MiB of someone else's data.
        let mut bytes = vec![0x33u8; 8 << 20];
        fill_filler(&mut bytes[..HEADER_LEN as usize], FILLER_SEED);
        let t = format!("IOGEN-TARGET v1\nsize=1048576\ncreated_unix=1763900000\n{HEADER_NOTE}");
        bytes[..t.len()].copy_from_slice(t.as_bytes());
        std::fs::write(&p, &bytes).unwrap();
        let stop = AtomicBool::new(false);
        for size in [None, Some(2 << 20), Some(8 << 20)] {
            let e = prepare(&Options { size, ..opts(&p, 50.0) }, &stop).unwrap_err().to_string();
            assert!(e.contains("v1 header for its first 1048576 bytes") && e.contains("--size 1048576"), "{e}");
            let e = check_steps(&[&Options { size, ..opts(&p, 50.0) }]).unwrap_err().to_string();
            assert!(e.contains("--allow-overwrite"), "{e}");
        }
        assert_eq!(std::fs::read(&p).unwrap(), bytes, "nothing written");
        // Reading all of it, writing only the laid-out part, or writing all of it when named.
        prepare(&opts(&p, 100.0), &stop).unwrap();
        let t = prepare(&Options { size: Some(1 << 20), ..opts(&p, 50.0) }, &stop).unwrap();
        assert_eq!(t.data_end, 1 << 20);
        let named = Options { size: None, overwrite: Overwrite::Allowed(vec![p.clone()]), ..opts(&p, 50.0) };
        assert_eq!(prepare(&named, &stop).unwrap().data_end, 8 << 20);
    }

    #[test]
    fn a_grown_v1_file_gets_a_v2_header() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("old.dat");
        let mut bytes = vec![7u8; 1 << 20];
        fill_filler(&mut bytes[..HEADER_LEN as usize], FILLER_SEED);
        let t = format!("IOGEN-TARGET v1\nsize=1048576\ncreated_unix=1763900000\n{HEADER_NOTE}");
        bytes[..t.len()].copy_from_slice(t.as_bytes());
        std::fs::write(&p, &bytes).unwrap();
        let stop = AtomicBool::new(false);
        let t = prepare(&Options { size: Some(2 << 20), ..opts(&p, 50.0) }, &stop).unwrap();
        assert_eq!(t.kind, TargetKind::OwnFile);
        let now = std::fs::read(&p).unwrap();
        assert_eq!(parse_header(&now, now.len() as u64), Some(Header { version: 2, size: 2 << 20 }));
        assert_eq!(now[HEADER_LEN as usize..1 << 20], bytes[HEADER_LEN as usize..], "old data kept");
    }

    #[test]
    fn symlinks_are_refused_and_steps_are_checked_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.dat");
        let stop = AtomicBool::new(false);
        drop(prepare(&opts(&real, 50.0), &stop).unwrap());
        let link = dir.path().join("link.dat");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        for read_pct in [100.0, 50.0] {
            let e = prepare(&opts(&link, read_pct), &stop).unwrap_err().to_string();
            assert!(e.contains("symbolic link") && e.contains("real.dat"), "{e}");
            let e = check_steps(&[&opts(&link, read_pct)]).unwrap_err().to_string();
            assert!(e.contains("symbolic link"), "{e}");
        }
        // A new file made by step 1 is iogen's own for step 2 (which may grow it); a foreign file
        // written by step 2 is refused before step 1 runs.
        let new = dir.path().join("new.dat");
        let grow = Options { size: Some(2 << 20), ..opts(&new, 0.0) };
        check_steps(&[&opts(&new, 100.0), &grow]).unwrap();
        assert!(!new.exists(), "checking creates nothing");
        let foreign = dir.path().join("foreign");
        std::fs::write(&foreign, vec![1u8; 1 << 20]).unwrap();
        let e = check_steps(&[&opts(&foreign, 100.0), &opts(&foreign, 50.0)]).unwrap_err().to_string();
        assert!(e.contains("did not lay out"), "{e}");
        let e = check_steps(&[&opts(&dir.path().join("no").join("t"), 100.0)]).unwrap_err().to_string();
        assert!(e.contains("does not exist"), "{e}");
    }

    #[test]
    fn a_file_or_link_swapped_in_after_the_check_is_not_written() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.dat");
        let victim = dir.path().join("victim");
        std::fs::write(&victim, vec![42u8; 1 << 20]).unwrap();
        let stop = AtomicBool::new(false);
        let o = opts(&p, 0.0);
        drop(prepare(&o, &stop).unwrap());
        let aside = dir.path().join("aside.dat");
        // A symbolic link to the victim swapped in after the look at the path.
        let checked = probe(&p).unwrap();
        std::fs::rename(&p, &aside).unwrap();
        std::os::unix::fs::symlink(&victim, &p).unwrap();
        let e = prepare_probed(&o, checked, &stop).unwrap_err().to_string();
        assert!(e.contains("symbolic link"), "{e}");
        // Another file swapped in: a different inode than the one checked.
        std::fs::remove_file(&p).unwrap();
        std::fs::rename(&aside, &p).unwrap();
        let checked = probe(&p).unwrap();
        std::fs::rename(&p, &aside).unwrap();
        std::fs::hard_link(&victim, &p).unwrap();
        let e = prepare_probed(&o, checked, &stop).unwrap_err().to_string();
        assert!(e.contains("replaced by another file"), "{e}");
        assert_eq!(std::fs::read(&victim).unwrap(), vec![42u8; 1 << 20]);
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
