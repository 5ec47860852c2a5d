//! Checks that run after the command line and plan are parsed and before anything is created,
//! opened for writing or waited for: the start time, every step's target (see
//! [`crate::target::check_steps`]), and every output path.
//!
//! An output path is refused (exit code 2, naming the option and the path) when it resolves to
//! the plan file, the target, another output, a device or anything but a regular file — even with
//! `--force` — and, without `--force`, when it exists at all. "Resolves to" compares canonical
//! paths (symbolic links and `..` resolved; for a file not yet created, its directory's canonical
//! path and its name) and, for files that exist, device and inode numbers, so a hard link or a
//! second spelling of the same file is caught too.

use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use thiserror::Error;

use crate::options::Options;
use crate::target::{self, TargetError};

/// How far ahead `--start-at` may be: lining up hosts needs seconds to minutes; a day covers an
/// overnight schedule, and anything later is almost certainly a typo or a unit mistake.
pub const MAX_START_AHEAD_MS: u64 = 24 * 3600 * 1000;
/// How far in the past `--start-at` may be: a start time missed by a few seconds starts at once,
/// but one more than a day ago is almost certainly seconds given for milliseconds.
pub const MAX_START_BEHIND_MS: u64 = 24 * 3600 * 1000;

/// A refused path or start time (exit code 2).
#[derive(Debug, Error)]
pub enum PreflightError {
    /// An output path that would destroy or garble data.
    #[error("{option} {path}: {problem}")]
    Output {
        /// The option, e.g. `--csv`.
        option: String,
        /// The path as given.
        path: String,
        /// What is wrong.
        problem: String,
    },
    /// `--start-at` out of range.
    #[error("--start-at {value}: {problem}")]
    StartAt {
        /// The value as given (Unix milliseconds).
        value: u64,
        /// What is wrong.
        problem: String,
    },
}

/// Everything a run will read or write, as named on the command line.
#[derive(Debug, Clone)]
pub struct RunPaths<'a> {
    /// The plan file (`iogen plan`), an input.
    pub plan: Option<&'a Path>,
    /// Output files with their option names, e.g. `("--csv", path)`.
    pub outputs: Vec<(&'static str, &'a Path)>,
    /// Whether `--force` allows replacing existing output files.
    pub force: bool,
}

/// Run every check: the start time, every step's target, every output path. Nothing is created
/// or opened for writing.
pub fn check_run(steps: &[&Options], paths: &RunPaths<'_>) -> anyhow::Result<()> {
    if let Some(at) = steps.first().and_then(|o| o.start_at_ms) {
        check_start_at(at, now_ms())?;
    }
    target::check_steps(steps)?;
    let mut targets: Vec<&Path> = Vec::new();
    for o in steps {
        if !targets.contains(&o.target.as_path()) {
            targets.push(&o.target);
        }
    }
    check_outputs(paths, &targets)?;
    if let Some(plan) = paths.plan {
        for t in &targets {
            if same_file(&resolve(t), &resolve(plan)) {
                return Err(TargetError::Refused(format!(
                    "--target {} is the plan file {}; iogen never does IO to its own input",
                    t.display(),
                    plan.display()
                ))
                .into());
            }
        }
    }
    Ok(())
}

/// `--start-at` must lie within [`MAX_START_BEHIND_MS`] before and [`MAX_START_AHEAD_MS`] after
/// `now_ms`.
pub fn check_start_at(at_ms: u64, now_ms: u64) -> Result<(), PreflightError> {
    let err = |problem: String| PreflightError::StartAt { value: at_ms, problem };
    if at_ms > now_ms.saturating_add(MAX_START_AHEAD_MS) {
        return Err(err(format!(
            "is {} from now; iogen waits at most 24 hours for a start time (the value is Unix milliseconds, \
             e.g. `date +%s%3N`)",
            human_span(at_ms - now_ms)
        )));
    }
    if at_ms.saturating_add(MAX_START_BEHIND_MS) < now_ms {
        return Err(err(format!(
            "was {} ago; the value is Unix milliseconds (e.g. `date +%s%3N`), not seconds",
            human_span(now_ms - at_ms)
        )));
    }
    Ok(())
}

fn human_span(ms: u64) -> String {
    let h = ms / 3_600_000;
    if h >= 48 {
        format!("{} days", h / 24)
    } else if h >= 1 {
        format!("{h} hours")
    } else {
        format!("{} s", ms / 1000)
    }
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// A path as the file system sees it now.
#[derive(Debug, Clone)]
struct Resolved {
    /// Canonical path: of the file when it exists, else of its directory joined with its name.
    canon: Option<PathBuf>,
    /// Device and inode of what the path leads to (links followed), when it exists.
    id: Option<(u64, u64)>,
}

fn resolve(path: &Path) -> Resolved {
    let id = std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()));
    let canon = std::fs::canonicalize(path).ok().or_else(|| {
        let name = path.file_name()?;
        let parent = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        Some(std::fs::canonicalize(parent).ok()?.join(name))
    });
    Resolved { canon, id }
}

fn same_file(a: &Resolved, b: &Resolved) -> bool {
    matches!((a.id, b.id), (Some(x), Some(y)) if x == y) || matches!((&a.canon, &b.canon), (Some(x), Some(y)) if x == y)
}

/// Check output paths against each other, the plan file and `targets`.
fn check_outputs(paths: &RunPaths<'_>, targets: &[&Path]) -> Result<(), PreflightError> {
    for (i, (option, path)) in paths.outputs.iter().enumerate() {
        let err = |problem: String| PreflightError::Output {
            option: option.to_string(),
            path: path.display().to_string(),
            problem,
        };
        if path.as_os_str().is_empty() {
            return Err(err("is empty; name a file".into()));
        }
        if path.file_name().is_none() || path.as_os_str().to_string_lossy().ends_with('/') {
            return Err(err("names a directory; name a file".into()));
        }
        let me = resolve(path);
        if let Some(plan) = paths.plan {
            if same_file(&me, &resolve(plan)) {
                return Err(err(format!("is the plan file {}; iogen never writes to its input", plan.display())));
            }
        }
        for t in targets {
            if same_file(&me, &resolve(t)) {
                return Err(err(format!("is the target {}; the output would overwrite it", t.display())));
            }
        }
        for (other_option, other) in &paths.outputs[..i] {
            if same_file(&me, &resolve(other)) {
                return Err(err(format!(
                    "is the same file as {other_option} {}; each output needs its own file",
                    other.display()
                )));
            }
        }
        let link = path.symlink_metadata().ok();
        if let Some(m) = std::fs::metadata(path).ok().or(link.clone()) {
            let ft = m.file_type();
            let what = if ft.is_block_device() || ft.is_char_device() {
                Some("is a device; iogen writes output only to regular files")
            } else if ft.is_dir() {
                Some("is a directory; name a file")
            } else if !ft.is_file() && !ft.is_symlink() {
                Some("is not a regular file (a pipe or socket); iogen writes output only to regular files")
            } else {
                None
            };
            if let Some(what) = what {
                return Err(err(what.into()));
            }
        }
        if me.canon.is_none() {
            let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            return Err(err(format!("its directory {} does not exist", dir.display())));
        }
        if let Some(l) = link {
            if !paths.force {
                return Err(err(
                    "exists; iogen never replaces an existing file unless you add --force (nothing was written)".into(),
                ));
            }
            if l.file_type().is_symlink() {
                return Err(err("is a symbolic link; name the file itself to replace it with --force".into()));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(outputs: Vec<(&'static str, &Path)>, plan: Option<&Path>, target: &Path, force: bool) -> String {
        check_outputs(&RunPaths { plan, outputs, force }, &[target]).map_or_else(|e| e.to_string(), |()| "ok".into())
    }

    #[test]
    fn outputs_that_resolve_to_inputs_targets_devices_or_each_other_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let plan = d.join("plan.csv");
        std::fs::write(&plan, "read_pct\n100\n").unwrap();
        let target = d.join("t.dat");
        let csv = d.join("s.csv");
        assert_eq!(check(vec![("--csv", &csv)], Some(&plan), &target, false), "ok");
        let e = check(vec![("--csv", &plan)], Some(&plan), &target, true);
        assert!(e.starts_with("--csv ") && e.contains("plan file"), "{e}");
        // The target does not exist yet: caught by its canonical path, also spelled differently.
        let other_spelling = d.join(".").join("t.dat");
        let e = check(vec![("--summary", &other_spelling)], None, &target, true);
        assert!(e.starts_with("--summary ") && e.contains("is the target"), "{e}");
        let e = check(vec![("--csv", &csv), ("--summary", &csv)], None, &target, false);
        assert!(e.starts_with("--summary ") && e.contains("same file as --csv"), "{e}");
        // A hard link to the plan is the plan.
        let link = d.join("hard.csv");
        std::fs::hard_link(&plan, &link).unwrap();
        assert!(check(vec![("--csv", &link)], Some(&plan), &target, true).contains("plan file"));
        let e = check(vec![("--csv", Path::new("/dev/null"))], None, &target, true);
        assert!(e.contains("is a device"), "{e}");
        assert!(check(vec![("--csv", d)], None, &target, true).contains("directory"));
        let e = check(vec![("--csv", &d.join("missing").join("s.csv"))], None, &target, true);
        assert!(e.contains("does not exist"), "{e}");
    }

    #[test]
    fn existing_outputs_need_force_and_symlinks_are_never_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let keep = d.join("k.txt");
        std::fs::write(&keep, "keep\n").unwrap();
        let target = d.join("t.dat");
        let e = check(vec![("--csv", &keep)], None, &target, false);
        assert!(e.contains("exists") && e.contains("--force"), "{e}");
        assert_eq!(check(vec![("--csv", &keep)], None, &target, true), "ok");
        let link = d.join("link.csv");
        std::os::unix::fs::symlink(&keep, &link).unwrap();
        assert!(check(vec![("--csv", &link)], None, &target, true).contains("symbolic link"));
        // A link to the target is the target.
        std::fs::write(&target, "x").unwrap();
        let to_target = d.join("to-target.csv");
        std::os::unix::fs::symlink(&target, &to_target).unwrap();
        assert!(check(vec![("--csv", &to_target)], None, &target, true).contains("is the target"));
    }

    #[test]
    fn start_times_far_away_are_refused() {
        let now = 1_763_900_000_000;
        assert!(check_start_at(now + 60_000, now).is_ok());
        assert!(check_start_at(now - 5_000, now).is_ok());
        let e = check_start_at(99_999_999_999_999, now).unwrap_err().to_string();
        assert!(e.starts_with("--start-at 99999999999999:") && e.contains("24 hours"), "{e}");
        let e = check_start_at(now / 1000, now).unwrap_err().to_string();
        assert!(e.contains("not seconds"), "{e}");
        assert!(check_start_at(now + MAX_START_AHEAD_MS, now).is_ok());
        assert!(check_start_at(now + MAX_START_AHEAD_MS + 1, now).is_err());
    }
}
