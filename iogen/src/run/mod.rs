//! The run: from parsed arguments to written outputs. Every step's options are built and checked
//! before anything is created ([`steps`], [`checks`]); the outputs are created ([`outputs`]); then
//! each step opens its target and engine ([`open`]) and runs ([`step`]), under the stop flag that
//! SIGINT/SIGTERM set ([`signals`]) and, where it pays, a real-time policy ([`priority`]); what the
//! user must know about a finished step goes to stderr ([`warnings`]).
//!
//! With several ranks (an MPI job) every rank runs this same pipeline; [`agreed`] makes them take
//! every decision together, so a refusal on one rank stops all of them before any IO.

mod checks;
mod open;
mod outputs;
mod preconditioning;
mod priority;
mod raw;
mod signals;
mod step;
mod steps;
mod warnings;

use std::sync::atomic::Ordering;

use crate::cli::{Cli, Command};
use crate::cluster::{self, agree, all_gather_strings, Cluster};
use crate::options::OptionError;
use crate::output::file::OutputFileError;
use crate::plan::PlanError;
use crate::preflight::PreflightError;
use crate::target::TargetError;

use open::{Placement, StepContext};
use outputs::Outputs;
use preconditioning::Preconditioning;

/// Exit code after SIGINT/SIGTERM.
pub const EXIT_INTERRUPTED: i32 = 130;

/// The exit code an error ends the run with: 2 for invalid input or a refused target, 130 for an
/// interrupted layout, 1 for IO and system errors.
pub fn exit_code(e: &anyhow::Error) -> i32 {
    for cause in e.chain() {
        if cause.is::<OptionError>()
            || cause.is::<PlanError>()
            || cause.is::<PreflightError>()
            || cause.is::<OutputFileError>()
        {
            return 2;
        }
        if let Some(t) = cause.downcast_ref::<TargetError>() {
            return match t {
                TargetError::Refused(_) | TargetError::BadSize(_) => 2,
                TargetError::Interrupted(_) | TargetError::PreconditionInterrupted(_) => EXIT_INTERRUPTED,
                TargetError::Io(_) => 1,
            };
        }
    }
    1
}

/// With several ranks: share `mine` with the others (see [`agree`]); on a failure anywhere, rank
/// 0 prints every rank's message and all return the same exit code. Alone: `mine` as it is.
fn agreed<T>(c: &dyn Cluster, mine: anyhow::Result<T>, what: &str) -> anyhow::Result<Result<T, i32>> {
    if c.size() == 1 {
        return mine.map(Ok);
    }
    let outcome = mine.as_ref().map(|_| ()).map_err(|e| (exit_code(e), format!("{e:#}")));
    match agree(c, &crate::cli::hostname(), outcome) {
        Ok(()) => Ok(Ok(mine.expect("agreed that every rank succeeded"))),
        Err((code, text)) => {
            if c.rank() == 0 {
                eprintln!("Error: {text}\niogen: {what}; every rank stopped before any IO");
            }
            Ok(Err(code))
        }
    }
}

/// The pipeline: arguments → options and steps → checks → outputs → run every step → summaries.
/// Returns the exit code.
pub fn run(cli: Cli, c: &dyn Cluster) -> anyhow::Result<i32> {
    let (args, plan) = match cli.command {
        Command::Run(args) => (args, None),
        Command::Plan { plan, args } => (args, Some(plan)),
    };
    let base = args.to_options();
    let prepared = (|| -> anyhow::Result<(Vec<String>, Vec<steps::Step>)> {
        base.validate()?;
        let (label_keys, mut steps) = steps::build_steps(&args, &base, plan.as_deref())?;
        let host = crate::cli::hostname();
        for s in &mut steps {
            s.opts = cluster::rank_options(&s.opts, c.rank(), c.size(), &host);
        }
        checks::check_before_writing(&args, plan.as_deref(), &steps, c.rank() == 0)?;
        Ok((label_keys, steps))
    })();
    let (label_keys, steps) = match agreed(c, prepared, "a rank refused the options, plan or a target")? {
        Ok(x) => x,
        Err(code) => return Ok(code),
    };
    let signals = signals::stop_on_signals()?;
    let stop = &*signals.flag;
    signals::precise_timers();
    let created = if c.rank() == 0 { Outputs::create(&args, &label_keys).map(Some) } else { Ok(None) };
    let mut outputs = match agreed(c, created, "rank 0 could not create an output")? {
        Ok(o) => o,
        Err(code) => return Ok(code),
    };
    // Who shares each step's target (same path after the template): they split its blocks.
    let my_targets: Vec<String> = steps.iter().map(|s| s.opts.target.to_string_lossy().into_owned()).collect();
    let all_targets: Vec<Vec<String>> = all_gather_strings(c, &my_targets.join("\0"))?
        .into_iter()
        .map(|t| t.split('\0').map(str::to_string).collect())
        .collect();
    let hosts = all_gather_strings(c, &base.host)?;
    if !signals::wait_until(base.start_at_ms, stop) {
        eprintln!("iogen: interrupted before the start time");
        return Ok(EXIT_INTERRUPTED);
    }
    let mut interrupted = false;
    let mut conditioning = Preconditioning::default();
    for (i, step) in steps.iter().enumerate() {
        let sharing: Vec<usize> = (0..c.size()).filter(|&r| all_targets[r].get(i) == my_targets.get(i)).collect();
        let place =
            Placement { position: sharing.iter().position(|&r| r == c.rank()).unwrap_or(0), count: sharing.len() };
        let ctx = StepContext { number: i + 1, count: steps.len(), cluster: c, place, hosts: &hosts };
        let ran = step::run_one_step(&ctx, step, &signals, &mut conditioning, &mut outputs);
        let cut_before_start = match &ran {
            Ok(Ok(_)) => false,
            Ok(Err(code)) => *code == EXIT_INTERRUPTED,
            Err(e) => exit_code(e) == EXIT_INTERRUPTED,
        };
        if cut_before_start && signals.caught().is_some() {
            // Cut while the step's target was laid out or preconditioned: its summary says so.
            if let Err(e) = &ran {
                eprintln!("iogen: {e:#}");
            }
            if let Some(mut out) = outputs.take() {
                step::cut_before_start(&ctx, step, &signals, &mut out)?;
                out.finish(args.json)?;
                eprintln!("iogen: interrupted before step {} started; its summary rows say so", i + 1);
            }
            return Ok(EXIT_INTERRUPTED);
        }
        let outcome = match ran? {
            Ok(o) => o,
            Err(code) => return Ok(code),
        };
        if outcome.interrupted || stop.load(Ordering::Relaxed) {
            interrupted = true;
            break;
        }
    }
    let Some(outputs) = outputs else {
        return Ok(if interrupted { EXIT_INTERRUPTED } else { 0 });
    };
    outputs.finish(args.json)?;
    if interrupted {
        eprintln!("iogen: interrupted; the current subinterval and the summary were written");
        return Ok(EXIT_INTERRUPTED);
    }
    Ok(0)
}
