//! Output files (`--csv`, `--summary`): created without ever replacing what the user did not name,
//! and written in whole lines even when the file system fills.
//!
//! - A new file is created `O_CREAT|O_EXCL` at its destination, so it can be watched while the
//!   run goes on and a crash leaves only whole lines; if something appears at that name after the
//!   checks, creation fails instead of truncating it.
//! - An existing file is replaced only with `--force`, and then through a temporary file beside
//!   it (same directory, so same file system) that [`PendingRename::commit`] renames over it at the
//!   end: the old content stays intact until the new file is complete. If the run fails first,
//!   the old file is left as it was and the rows written so far stay in the temporary file, whose
//!   name is printed.
//! - Every batch of lines goes to the file in one `write` call (retried only for short writes);
//!   when a write fails (ENOSPC, EIO, a quota) the file is truncated back to the end of the last
//!   batch that was written in full, so it never ends in a partial line, and the error says so.

use std::fs::{File, OpenOptions};
use std::io::{self, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// A sink that can be cut back to a length: a file (`ftruncate` + seek), or a test double.
pub trait Truncate: Write {
    /// Make the sink `len` bytes long and continue writing there.
    fn truncate_to(&mut self, len: u64) -> io::Result<()>;
}

impl Truncate for File {
    fn truncate_to(&mut self, len: u64) -> io::Result<()> {
        self.set_len(len)?;
        self.seek(SeekFrom::Start(len)).map(|_| ())
    }
}

/// Writes each buffer it is given as a unit: either all of it reaches the sink, or the sink is cut
/// back to where it was before the buffer. Give it whole lines (the line writer of
/// [`crate::output`] gives it whole records), and the sink only ever holds whole lines.
#[derive(Debug)]
pub struct WholeLines<S: Truncate> {
    sink: S,
    /// Bytes written in full so far (the end of the last whole batch).
    committed: u64,
    /// The option and path, for messages, e.g. `--csv s.csv`.
    what: String,
}

impl<S: Truncate> WholeLines<S> {
    /// Wrap `sink`, which holds `committed` bytes already; `what` names it in errors.
    pub fn new(sink: S, committed: u64, what: &str) -> Self {
        WholeLines { sink, committed, what: what.to_string() }
    }

    /// Bytes written in full.
    pub fn committed(&self) -> u64 {
        self.committed
    }
}

impl<S: Truncate> Write for WholeLines<S> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self.sink.write_all(buf) {
            Ok(()) => {
                self.committed += buf.len() as u64;
                Ok(buf.len())
            }
            Err(e) => {
                let kept = self.committed;
                let note = match self.sink.truncate_to(kept) {
                    Ok(()) => format!(
                        "{e}; {} was cut back to its last whole line (byte {kept}), the {} bytes of this write \
                         were dropped",
                        self.what,
                        buf.len()
                    ),
                    Err(t) => format!(
                        "{e}; cutting {} back to its last whole line (byte {kept}) failed too ({t}): its last \
                         line may be partial",
                        self.what
                    ),
                };
                Err(io::Error::new(e.kind(), note))
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        // Nothing is buffered here: every write went to the sink in full.
        self.sink.flush()
    }
}

/// Why an output file cannot be created (exit code 2: the command line must change).
#[derive(Debug, thiserror::Error)]
#[error("{option} {path}: {problem}")]
pub struct OutputFileError {
    /// The option, e.g. `--csv`.
    pub option: String,
    /// The path as given.
    pub path: String,
    /// What is wrong.
    pub problem: String,
}

/// The rename that puts a `--force` replacement in place; a no-op for new files. Dropped without
/// [`commit`](PendingRename::commit) (the run failed), it leaves the destination untouched and says
/// where the rows written so far are.
#[derive(Debug)]
pub struct PendingRename {
    /// The temporary file and a descriptor of it (to flush it to disk before the rename).
    temp: Option<(PathBuf, File)>,
    /// A file created at its destination: a descriptor of it, to check it is still there.
    created: Option<File>,
    dest: PathBuf,
    option: String,
}

impl PendingRename {
    /// Rename the temporary file over the destination (call after the last write); for a file
    /// created in place, check it is still linked at its destination: writes to a file that was
    /// deleted (or whose directory was) succeed, and its rows would be lost without a word.
    pub fn commit(mut self) -> anyhow::Result<()> {
        if let Some(file) = self.created.take() {
            use std::os::unix::fs::MetadataExt;
            let ours = file.metadata().map_err(|e| anyhow::anyhow!("{} {}: {e}", self.option, self.dest.display()))?;
            let there = self.dest.symlink_metadata().ok();
            if ours.nlink() == 0 || there.is_none_or(|m| (m.dev(), m.ino()) != (ours.dev(), ours.ino())) {
                let dir = self.dest.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
                let why = if dir.is_dir() {
                    "was deleted or replaced during the run".to_string()
                } else {
                    format!("was removed during the run with its directory {}", dir.display())
                };
                anyhow::bail!(
                    "{} {}: the output file {why}; the rows written to it are lost",
                    self.option,
                    self.dest.display()
                );
            }
        }
        if let Some((temp, file)) = self.temp.take() {
            // On disk before it replaces the old file, so a crash leaves one or the other whole.
            file.sync_all().and_then(|()| std::fs::rename(&temp, &self.dest)).map_err(|e| {
                anyhow::anyhow!(
                    "{} {}: renaming the finished output {} into place: {e}; the output is in {}",
                    self.option,
                    self.dest.display(),
                    temp.display(),
                    temp.display()
                )
            })?;
        }
        Ok(())
    }
}

impl Drop for PendingRename {
    fn drop(&mut self) {
        if let Some((temp, _)) = &self.temp {
            eprintln!(
                "iogen: {} {} was not replaced (the run did not finish); the rows written so far are in {}",
                self.option,
                self.dest.display(),
                temp.display()
            );
        }
    }
}

/// Open output `path` for `option`: `O_CREAT|O_EXCL` when it does not exist; with `force`, a
/// temporary file beside an existing one (renamed over it by the returned [`PendingRename`]).
/// The caller has checked the path with [`crate::preflight`]; these opens still refuse to follow
/// a symbolic link or to truncate anything.
pub fn create_output(
    option: &str,
    path: &Path,
    force: bool,
) -> Result<(WholeLines<File>, PendingRename), OutputFileError> {
    let err =
        |problem: String| OutputFileError { option: option.to_string(), path: path.display().to_string(), problem };
    let what = format!("{option} {}", path.display());
    let exists = path.symlink_metadata().is_ok();
    if exists && !force {
        return Err(err("exists; iogen never replaces an existing file unless you add --force".into()));
    }
    let (open_path, temp) = if exists { (temp_name(path), true) } else { (path.to_path_buf(), false) };
    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o644)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(&open_path)
        .map_err(|e| {
            if e.kind() == io::ErrorKind::AlreadyExists && !temp {
                err("appeared after the checks; nothing was written to it".into())
            } else {
                err(format!("creating {}: {e}", open_path.display()))
            }
        })?;
    let copy = file.try_clone().map_err(|e| err(format!("duplicating a descriptor: {e}")))?;
    let (kept, created) = if temp { (Some((open_path, copy)), None) } else { (None, Some(copy)) };
    let pending = PendingRename { temp: kept, created, dest: path.to_path_buf(), option: option.to_string() };
    Ok((WholeLines::new(file, 0, &what), pending))
}

/// `.NAME.iogen-PID-N.tmp` beside `path`.
fn temp_name(path: &Path) -> PathBuf {
    use std::sync::atomic::{AtomicU32, Ordering};
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    path.with_file_name(format!(".{name}.iogen-{}-{n}.tmp", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sink with room for `room` bytes: a write beyond it stores what fits and fails with
    /// ENOSPC, as write(2) does on a full file system.
    struct FullDisk {
        data: Vec<u8>,
        room: usize,
    }

    impl Write for FullDisk {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            let free = self.room - self.data.len();
            if free == 0 {
                return Err(io::Error::from_raw_os_error(libc::ENOSPC));
            }
            let n = b.len().min(free);
            self.data.extend_from_slice(&b[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl Truncate for FullDisk {
        fn truncate_to(&mut self, len: u64) -> io::Result<()> {
            self.data.truncate(len as usize);
            Ok(())
        }
    }

    #[test]
    fn a_failed_write_is_cut_back_to_the_last_whole_line() {
        let mut w = WholeLines::new(FullDisk { data: Vec::new(), room: 16 }, 0, "--csv s.csv");
        w.write_all(b"a,b\n1,2\n").unwrap();
        let e = w.write_all(b"3,4\n5,6\n7,8\n").unwrap_err();
        assert_eq!(e.raw_os_error(), None, "the message is added");
        assert_eq!(e.kind(), io::ErrorKind::StorageFull);
        let msg = e.to_string();
        assert!(msg.contains("--csv s.csv") && msg.contains("byte 8") && msg.contains("whole line"), "{msg}");
        assert_eq!(w.sink.data, b"a,b\n1,2\n", "the partial batch was removed");
        assert_eq!(w.committed(), 8);
        // Room again (someone freed space): writing goes on after the last whole line.
        w.sink.room = 100;
        w.write_all(b"9,9\n").unwrap();
        assert_eq!(w.sink.data, b"a,b\n1,2\n9,9\n");
    }

    #[test]
    fn new_files_are_created_exclusively_and_existing_ones_need_force() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.csv");
        let (mut w, pending) = create_output("--csv", &p, false).unwrap();
        w.write_all(b"x\n").unwrap();
        pending.commit().unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"x\n");
        let e = create_output("--csv", &p, false).unwrap_err().to_string();
        assert!(e.contains("--csv") && e.contains("--force"), "{e}");
        assert_eq!(std::fs::read(&p).unwrap(), b"x\n");
        // --force: the old content stays until the commit.
        let (mut w, pending) = create_output("--csv", &p, true).unwrap();
        w.write_all(b"new\n").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"x\n");
        drop(w);
        pending.commit().unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary file left");
        // Dropped without commit: the destination is untouched, the rows stay in the temp file.
        let (mut w, pending) = create_output("--csv", &p, true).unwrap();
        w.write_all(b"partial\n").unwrap();
        drop(pending);
        assert_eq!(std::fs::read(&p).unwrap(), b"new\n");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }

    #[test]
    fn a_new_file_removed_during_the_run_is_an_error_at_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("out");
        for remove in ["directory", "file", "replaced"] {
            std::fs::create_dir_all(&sub).unwrap();
            let p = sub.join("s.csv");
            let (mut w, pending) = create_output("--csv", &p, false).unwrap();
            w.write_all(b"a\n").unwrap();
            match remove {
                "directory" => std::fs::remove_dir_all(&sub).unwrap(),
                "file" => std::fs::remove_file(&p).unwrap(),
                _ => {
                    std::fs::remove_file(&p).unwrap();
                    std::fs::write(&p, b"other\n").unwrap();
                }
            }
            w.write_all(b"b\n").unwrap(); // writes to the unlinked file still succeed
            let e = pending.commit().unwrap_err().to_string();
            assert!(e.contains("--csv") && e.contains(&p.display().to_string()) && e.contains("lost"), "{e}");
            if remove == "directory" {
                assert!(e.contains("with its directory"), "{e}");
            }
            let _ = std::fs::remove_dir_all(&sub);
        }
    }
}
