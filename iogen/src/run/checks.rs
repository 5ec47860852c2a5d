//! The checks made before anything is created, opened for writing or waited for.

use std::path::Path;

use crate::cli::RunArgs;
use crate::options::{Options, RtPriority};
use crate::preflight::{check_run, RunPaths};
use crate::realtime;

use super::steps::Step;

/// Every target, output path (`outputs`: this rank writes them) and the start time, before
/// anything is created or opened for writing.
pub(super) fn check_before_writing(
    args: &RunArgs,
    plan: Option<&Path>,
    steps: &[Step],
    outputs: bool,
) -> anyhow::Result<()> {
    let outputs: Vec<_> = [("--csv", &args.csv), ("--summary", &args.summary)]
        .into_iter()
        .filter(|_| outputs)
        .filter_map(|(option, p)| p.as_deref().map(|p| (option, p)))
        .collect();
    let step_opts: Vec<&Options> = steps.iter().map(|s| &s.opts).collect();
    check_run(&step_opts, &RunPaths { plan, outputs, force: args.force })?;
    // --rt-priority is refused now (exit 2) rather than after the first step's layout.
    if let RtPriority::Fixed(p) = args.rt_priority {
        realtime::leave(realtime::enter(p)?);
    }
    Ok(())
}
