//! iogen's entry point: parse the command line → build and check every step's options → for
//! each step: open the target, open the engine, run the scheduler, write rows → write summaries.
//! Errors print as `Error: …` with their causes; exit codes: 0 done, 1 IO/system error, 2 invalid
//! input or refused target, 130 interrupted (SIGINT/SIGTERM).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::Context;

use iogen::cli::{Cli, Command, RunArgs};
use iogen::engine::{open_engine, EngineConfig};
use iogen::options::{IoMode, Iops, OptionError, Options};
use iogen::output::file::{create_output, OutputFileError};
use iogen::output::{
    subinterval_columns, subinterval_records, summary_columns, summary_records, CsvExporter, JsonExporter, LineWriter,
    Record, StepInfo, TableExporter,
};
use iogen::plan::{read_plan, PlanError};
use iogen::preflight::{check_run, PreflightError, RunPaths};
use iogen::scheduler::run_step;
use iogen::target::{self, TargetError};
use iogen::workload::Workload;

/// Exit code after SIGINT/SIGTERM.
const EXIT_INTERRUPTED: i32 = 130;

/// One step to run.
struct Step {
    opts: Options,
    name: String,
    labels: Vec<String>,
}

fn main() {
    let cli = iogen::cli::parse_args(std::env::args_os()).unwrap_or_else(|e| e.exit());
    let code = match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("Error: {e:#}");
            exit_code(&e)
        }
    };
    std::process::exit(code);
}

fn exit_code(e: &anyhow::Error) -> i32 {
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
                TargetError::Interrupted(_) => EXIT_INTERRUPTED,
                TargetError::Io(_) => 1,
            };
        }
    }
    1
}

fn run(cli: Cli) -> anyhow::Result<i32> {
    let (args, plan) = match cli.command {
        Command::Run(args) => (args, None),
        Command::Plan { plan, args } => (args, Some(plan)),
    };
    let base = args.to_options();
    base.validate()?;
    let (label_keys, steps) = build_steps(&args, &base, plan.as_deref())?;
    // Every target, output path and the start time, before anything is created or opened for writing.
    let outputs: Vec<_> = [("--csv", &args.csv), ("--summary", &args.summary)]
        .into_iter()
        .filter_map(|(option, p)| p.as_deref().map(|p| (option, p)))
        .collect();
    let step_opts: Vec<&Options> = steps.iter().map(|s| &s.opts).collect();
    check_run(&step_opts, &RunPaths { plan: plan.as_deref(), outputs, force: args.force })?;

    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        // The first signal asks for a clean stop; a second one exits at once.
        signal_hook::flag::register_conditional_shutdown(sig, EXIT_INTERRUPTED, Arc::clone(&stop))
            .context("installing the signal handler")?;
        signal_hook::flag::register(sig, Arc::clone(&stop)).context("installing the signal handler")?;
    }
    precise_timers();

    let (csv_sink, csv_rename) =
        args.csv.as_deref().map(|p| create_output("--csv", p, args.force)).transpose()?.unzip();
    let (sum_sink, sum_rename) =
        args.summary.as_deref().map(|p| create_output("--summary", p, args.force)).transpose()?.unzip();
    let mut csv = match (&args.csv, csv_sink) {
        (Some(p), Some(sink)) => Some(LineWriter::new(
            Box::new(sink),
            Box::new(CsvExporter),
            &subinterval_columns(&label_keys),
            &p.display().to_string(),
        )?),
        _ => None,
    };
    let sum_cols = summary_columns(&label_keys);
    let mut summary = match (&args.summary, sum_sink) {
        (Some(p), Some(sink)) => {
            Some(LineWriter::new(Box::new(sink), Box::new(CsvExporter), &sum_cols, &p.display().to_string())?)
        }
        _ => None,
    };

    if !wait_until(base.start_at_ms, &stop) {
        eprintln!("iogen: interrupted before the start time");
        return Ok(EXIT_INTERRUPTED);
    }

    let mut all: Vec<Record> = Vec::new();
    let mut interrupted = false;
    for (i, step) in steps.iter().enumerate() {
        let o = &step.opts;
        if !o.target.exists() {
            eprintln!(
                "iogen: laying out {} ({} bytes of non-zero data)",
                o.target.display(),
                o.size.unwrap_or(target::DEFAULT_NEW_SIZE)
            );
        }
        let target = target::prepare(o, &stop)?;
        let blocks = target.blocks(o.block_size);
        let cfg = EngineConfig {
            file: target.file.clone(),
            queue_depth: o.queue_depth,
            block_size: o.block_size as usize,
            direct: o.io_mode == IoMode::Direct,
        };
        let mut engine = open_engine(o.engine, &cfg)
            .with_context(|| format!("opening the {:?} engine on {}", o.engine, o.target.display()))?;
        eprintln!(
            "iogen: step {} of {} ({}) on {} ({:?}, {blocks} blocks of {} bytes), engine {}",
            i + 1,
            steps.len(),
            step.name,
            o.target.display(),
            target.kind,
            o.block_size,
            engine.name()
        );
        let workload = Workload::new(o.read_pct, o.random_pct, target.data_start, o.block_size, blocks, o.seed);
        let info = StepInfo {
            host: o.host.clone(),
            step: i + 1,
            step_name: step.name.clone(),
            target_iops: match o.iops {
                Iops::Rate(r) => Some(r),
                Iops::Max => None,
            },
            block_size: o.block_size,
            read_pct: o.read_pct,
            random_pct: o.random_pct,
            queue_depth: o.queue_depth,
            labels: step.labels.clone(),
        };
        let outcome = run_step(engine.as_mut(), workload, o, &stop, &mut |r| match csv.as_mut() {
            Some(w) => w.write(&subinterval_records(&info, r)),
            None => Ok(()),
        })?;
        drop(engine);
        let recs = summary_records(&info, &outcome);
        if let Some(w) = summary.as_mut() {
            w.write(&recs)?;
        }
        all.extend(recs);
        if outcome.behind_s > 0.1 {
            eprintln!(
                "iogen: step {} ended {:.3} s behind schedule: the target (or this host) could not sustain the requested \
                 rate at queue depth {}; arrivals still waiting were not issued (see late_ios and response times)",
                i + 1,
                outcome.behind_s,
                o.queue_depth
            );
        }
        if outcome.disk_full {
            eprintln!("iogen: step {} ended early: the target is full (ENOSPC)", i + 1);
        }
        if outcome.interrupted || stop.load(Ordering::Relaxed) {
            interrupted = true;
            break;
        }
    }
    if let Some(w) = csv {
        w.finish()?;
    }
    if let Some(w) = summary {
        w.finish()?;
    }
    for rename in csv_rename.into_iter().chain(sum_rename) {
        rename.commit()?;
    }
    let mut table =
        LineWriter::new(Box::new(std::io::stderr()), Box::new(TableExporter::default()), &sum_cols, "stderr")?;
    table.write(&all)?;
    table.finish()?;
    if args.json {
        let mut json =
            LineWriter::new(Box::new(std::io::stdout()), Box::new(JsonExporter::default()), &sum_cols, "stdout")?;
        json.write(&all)?;
        json.finish()?;
    }
    if interrupted {
        eprintln!("iogen: interrupted; the current subinterval and the summary were written");
        return Ok(EXIT_INTERRUPTED);
    }
    Ok(0)
}

/// Steps from the command line alone (`run`) or from a plan; label keys are the `--label` keys,
/// then the plan's label columns.
fn build_steps(
    args: &RunArgs,
    base: &Options,
    plan: Option<&std::path::Path>,
) -> anyhow::Result<(Vec<String>, Vec<Step>)> {
    let mut keys: Vec<String> = Vec::new();
    for (k, _) in &args.labels {
        if !keys.contains(k) {
            keys.push(k.clone());
        }
    }
    let cli_values = |keys: &[String]| -> Vec<String> {
        keys.iter()
            .map(|k| args.labels.iter().rev().find(|(kk, _)| kk == k).map(|(_, v)| v.clone()).unwrap_or_default())
            .collect()
    };
    let Some(path) = plan else {
        let labels = cli_values(&keys);
        return Ok((keys, vec![Step { name: default_name(base), opts: base.clone(), labels }]));
    };
    let plan = read_plan(path, base)?;
    let mut plan_index = Vec::new();
    for k in &plan.label_keys {
        match keys.iter().position(|x| x == k) {
            Some(i) => plan_index.push(i),
            None => {
                plan_index.push(keys.len());
                keys.push(k.clone());
            }
        }
    }
    let steps = plan
        .steps
        .into_iter()
        .map(|s| {
            let mut labels = cli_values(&keys);
            for (j, v) in s.labels.into_iter().enumerate() {
                labels[plan_index[j]] = v;
            }
            Step { name: s.name.unwrap_or_else(|| default_name(&s.opts)), opts: s.opts, labels }
        })
        .collect();
    Ok((keys, steps))
}

/// A descriptive step name, e.g. `4KiB-r70-rand100-qd16-5000iops`.
fn default_name(o: &Options) -> String {
    let bs = o.block_size;
    let size = if bs.is_multiple_of(1 << 20) {
        format!("{}MiB", bs >> 20)
    } else if bs.is_multiple_of(1024) {
        format!("{}KiB", bs >> 10)
    } else {
        format!("{bs}B")
    };
    let iops = match o.iops {
        Iops::Max => "max".to_string(),
        Iops::Rate(r) => format!("{}iops", iogen::output::format_float(r)),
    };
    format!(
        "{size}-r{}-rand{}-qd{}-{iops}",
        iogen::output::format_float(o.read_pct),
        iogen::output::format_float(o.random_pct),
        o.queue_depth
    )
}

/// Sleep until the Unix time `at_ms` (if given). Returns false when interrupted first.
fn wait_until(at_ms: Option<u64>, stop: &AtomicBool) -> bool {
    let Some(at) = at_ms else { return true };
    loop {
        if stop.load(Ordering::Relaxed) {
            return false;
        }
        let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64);
        if now >= at {
            return true;
        }
        std::thread::sleep(Duration::from_millis((at - now).min(50)));
    }
}

/// Ask the kernel for 1 ns timer slack so sleeps until the next arrival end on time
/// (the default 50 µs would delay launches at high rates).
fn precise_timers() {
    // SAFETY: prctl(PR_SET_TIMERSLACK) only changes this thread's timer slack.
    unsafe {
        libc::prctl(
            libc::PR_SET_TIMERSLACK,
            1 as libc::c_ulong,
            0 as libc::c_ulong,
            0 as libc::c_ulong,
            0 as libc::c_ulong,
        );
    }
}
