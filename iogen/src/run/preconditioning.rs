//! `--precondition` in a run: which targets this run has preconditioned, preconditioning a step's
//! target before its first step when it is not yet, and the warning for a step that writes to
//! space the run did not precondition (`crate::precondition` does the writing).

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use crate::options::{IoMode, Options};
use crate::precondition::precondition;
use crate::target::{Target, TargetError, TargetKind};

/// The byte ranges of targets this rank has seen preconditioned in this run.
#[derive(Default)]
pub(super) struct Preconditioning {
    done: Vec<(PathBuf, u64, u64)>,
}

impl Preconditioning {
    fn covers(&self, path: &Path, start: u64, end: u64) -> bool {
        self.done.iter().any(|(p, s, e)| p == path && *s <= start && end <= *e)
    }

    /// Whether the step's IO range is preconditioned: with `--precondition`, a range not yet
    /// preconditioned in this run is written now (by the first of the ranks sharing the target,
    /// `leader`; the others find it done). Without it, false.
    pub(super) fn prepare(
        &mut self,
        o: &Options,
        target: &Target,
        leader: bool,
        stop: &AtomicBool,
    ) -> Result<bool, TargetError> {
        if o.precondition_passes == 0 {
            return Ok(false);
        }
        let (start, end) = (target.data_start, target.data_end);
        if self.covers(&o.target, start, end) {
            return Ok(true);
        }
        let mut len = end - start;
        if o.io_mode == IoMode::Direct {
            // O_DIRECT writes whole 512-byte sectors; IO (blocks of a multiple of 512) never goes
            // past the last whole one.
            len -= len % 512;
        }
        if leader {
            precondition(&target.file, &o.target, (start, len), o.precondition_passes, stop, &mut |line| {
                eprintln!("{line}")
            })?;
        }
        self.done.push((o.target.clone(), start, end));
        Ok(true)
    }
}

/// Say on stderr that step `number` writes to space this run did not precondition, and what the
/// space is (`kind`).
pub(super) fn warn_not_preconditioned(number: usize, o: &Options, kind: TargetKind) {
    let what = match kind {
        TargetKind::NewFile => "a file laid out just now and written once, through the page cache",
        TargetKind::OwnFile => "a file iogen laid out earlier, in whatever state earlier runs left it",
        TargetKind::ForeignFile => "an existing file, in whatever state it was",
        TargetKind::BlockDevice => "a block device, in whatever state it was",
    };
    eprintln!(
        "iogen: step {number} writes to {} without preconditioning ({what}): its first subintervals may show the \
         speed of fresh space rather than the steady state (preconditioned = no in the CSVs; see --precondition)",
        o.target.display()
    );
}
