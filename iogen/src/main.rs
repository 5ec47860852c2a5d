//! iogen's entry point: parse the command line → build and check every step's options → for
//! each step: open the target, open the engine, run the scheduler, write rows → write summaries.
//! Errors print as `Error: …` with their causes; exit codes: 0 done, 1 IO/system error, 2 invalid
//! input or refused target, 130 interrupted (SIGINT/SIGTERM).
//!
//! Under an MPI launcher (the `mpi` feature) every rank runs this same pipeline on its own host;
//! the [`Cluster`] makes them agree on every check, start each step together and end it in the
//! same subinterval, and rank 0 writes the outputs (`docs/iogen-mpi.md`).

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::Context;

use iogen::cli::{Cli, Command, RunArgs};
use iogen::cluster::aggregate::StepAggregate;
use iogen::cluster::{self, agree, all_gather_strings, region, start_together, Cluster, ClusterSink, Root, Solo};
use iogen::engine::{open_engine, EngineConfig};
use iogen::options::{IoMode, Iops, OptionError, Options, RtPriority};
use iogen::output::file::{create_output, OutputFileError, PendingRename};
use iogen::output::{
    subinterval_columns, subinterval_records, summary_columns, summary_records, CsvExporter, JsonExporter, LineWriter,
    Record, StepInfo, TableExporter,
};
use iogen::plan::{read_plan, PlanError};
use iogen::preflight::{check_run, PreflightError, RunPaths};
use iogen::realtime;
use iogen::scheduler::{run_step_with, LocalSink, StepOutcome, StepStart, SubintervalReport};
use iogen::stats::CategoryStats;
use iogen::target::{self, TargetError};
use iogen::workload::Workload;

/// Exit code after SIGINT/SIGTERM.
const EXIT_INTERRUPTED: i32 = 130;

/// Environment variable (tests only) naming a file, `{rank}` replaced, to which each rank writes
/// `subinterval,response_ns` for every measured IO: the raw latencies the merged percentiles are
/// checked against.
const RAW_LATENCIES_ENV: &str = "IOGEN_TEST_RAW_LATENCIES";

/// One step to run.
struct Step {
    /// This rank's options (its share of the rate, its seed, its target).
    opts: Options,
    /// `--iops` as given: the total over all ranks, written in `target_iops`.
    total_iops: Iops,
    name: String,
    labels: Vec<String>,
}

fn main() {
    let cluster = match open_cluster() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("Error: {e:#}");
            std::process::exit(2);
        }
    };
    let cli = match iogen::cli::parse_args(std::env::args_os()) {
        Ok(cli) => cli,
        Err(e) => {
            // Every rank parsed the same arguments; one message is enough.
            if cluster.rank() == 0 {
                let _ = e.print();
            }
            drop(cluster);
            std::process::exit(e.exit_code());
        }
    };
    let code = match run(cli, cluster.as_ref()) {
        Ok(code) => code,
        Err(e) => {
            let code = exit_code(&e);
            if cluster.size() > 1 {
                // The other ranks may be waiting in a collective: end the job (whole CSV lines
                // were written, each batch in one write).
                eprintln!("Error (rank {} on {}): {e:#}", cluster.rank(), iogen::cli::hostname());
                cluster.abort(code);
            }
            eprintln!("Error: {e:#}");
            code
        }
    };
    drop(cluster);
    std::process::exit(code);
}

/// The ranks of this run: an MPI job when started by a launcher (with the `mpi` feature), else
/// this process alone. Started by a launcher without MPI compiled in, each copy would offer the
/// whole rate on its own: refused.
fn open_cluster() -> anyhow::Result<Box<dyn Cluster>> {
    let launched = cluster::launched_ranks(&|k| std::env::var(k).ok());
    #[cfg(feature = "mpi")]
    if let Some(n) = launched {
        let c = iogen::cluster::mpi::MpiCluster::init()?;
        if c.size() != n {
            anyhow::bail!(
                "the launcher started {n} ranks but MPI sees {} (this iogen's MPI library does not match the \
                 launcher: with Slurm, try srun --mpi=pmix, or mpirun from the same MPI)",
                c.size()
            );
        }
        return Ok(Box::new(c));
    }
    #[cfg(not(feature = "mpi"))]
    if let Some(n) = launched.filter(|n| *n > 1) {
        anyhow::bail!(
            "iogen was started as one of {n} ranks by an MPI or Slurm launcher, but this build has no MPI (iogen \
             --version says so), so each copy would run the whole step alone; build it with `cargo build --release \
             --features mpi` (iogen/README.md)"
        );
    }
    let _ = launched;
    Ok(Box::new(Solo))
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

/// With several ranks: share `mine` with the others (see [`agree`]); on a failure anywhere, rank
/// 0 prints every rank's message and all return the same exit code. Alone: `mine` as it is.
fn agreed<T>(c: &dyn Cluster, mine: anyhow::Result<T>, what: &str) -> anyhow::Result<Result<T, i32>> {
    if c.size() == 1 {
        return mine.map(Ok);
    }
    let outcome = mine.as_ref().map(|_| ()).map_err(|e| (exit_code(e), format!("{e:#}")));
    match agree(c, &iogen::cli::hostname(), outcome) {
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
fn run(cli: Cli, c: &dyn Cluster) -> anyhow::Result<i32> {
    let (args, plan) = match cli.command {
        Command::Run(args) => (args, None),
        Command::Plan { plan, args } => (args, Some(plan)),
    };
    let base = args.to_options();
    let prepared = (|| -> anyhow::Result<(Vec<String>, Vec<Step>)> {
        base.validate()?;
        let (label_keys, mut steps) = build_steps(&args, &base, plan.as_deref())?;
        let host = iogen::cli::hostname();
        for s in &mut steps {
            s.opts = cluster::rank_options(&s.opts, c.rank(), c.size(), &host);
        }
        check_before_writing(&args, plan.as_deref(), &steps, c.rank() == 0)?;
        Ok((label_keys, steps))
    })();
    let (label_keys, steps) = match agreed(c, prepared, "a rank refused the options, plan or a target")? {
        Ok(x) => x,
        Err(code) => return Ok(code),
    };
    let stop = stop_on_signals()?;
    precise_timers();
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
    if !wait_until(base.start_at_ms, &stop) {
        eprintln!("iogen: interrupted before the start time");
        return Ok(EXIT_INTERRUPTED);
    }
    let mut interrupted = false;
    for (i, step) in steps.iter().enumerate() {
        let sharing: Vec<usize> = (0..c.size()).filter(|&r| all_targets[r].get(i) == my_targets.get(i)).collect();
        let place =
            Placement { position: sharing.iter().position(|&r| r == c.rank()).unwrap_or(0), count: sharing.len() };
        let ctx = StepContext { number: i + 1, count: steps.len(), cluster: c, place, hosts: &hosts };
        let outcome = match run_one_step(&ctx, step, &stop, &mut outputs)? {
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

/// Every target, output path (`outputs`: this rank writes them) and the start time, before
/// anything is created or opened for writing.
fn check_before_writing(args: &RunArgs, plan: Option<&Path>, steps: &[Step], outputs: bool) -> anyhow::Result<()> {
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

/// The flag SIGINT/SIGTERM set: the first signal asks for a clean stop; a second one exits at once.
fn stop_on_signals() -> anyhow::Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register_conditional_shutdown(sig, EXIT_INTERRUPTED, Arc::clone(&stop))
            .context("installing the signal handler")?;
        signal_hook::flag::register(sig, Arc::clone(&stop)).context("installing the signal handler")?;
    }
    Ok(stop)
}

/// An output file being written, and the rename that puts it in place at the end.
struct OutputFile {
    writer: LineWriter,
    rename: PendingRename,
}

impl OutputFile {
    fn create(option: &str, path: &Path, force: bool, columns: &[String]) -> anyhow::Result<Self> {
        let (sink, rename) = create_output(option, path, force)?;
        let writer = LineWriter::new(Box::new(sink), Box::new(CsvExporter), columns, &path.display().to_string())?;
        Ok(OutputFile { writer, rename })
    }
}

/// Where rows go: the subinterval CSV, the summary CSV, and the summary rows kept for the table
/// on stderr and the JSON on stdout.
struct Outputs {
    csv: Option<OutputFile>,
    summary: Option<OutputFile>,
    summary_columns: Vec<String>,
    summary_rows: Vec<Record>,
}

impl Outputs {
    fn create(args: &RunArgs, label_keys: &[String]) -> anyhow::Result<Self> {
        let summary_columns = summary_columns(label_keys);
        let csv = match &args.csv {
            Some(p) => Some(OutputFile::create("--csv", p, args.force, &subinterval_columns(label_keys))?),
            None => None,
        };
        let summary = match &args.summary {
            Some(p) => Some(OutputFile::create("--summary", p, args.force, &summary_columns)?),
            None => None,
        };
        Ok(Outputs { csv, summary, summary_columns, summary_rows: Vec::new() })
    }

    fn subinterval(&mut self, info: &StepInfo, report: &SubintervalReport) -> anyhow::Result<()> {
        self.rows(&subinterval_records(info, report))
    }

    /// Subinterval rows (of every rank and `all`, from a cluster).
    fn rows(&mut self, records: &[Record]) -> anyhow::Result<()> {
        match self.csv.as_mut() {
            Some(f) => f.writer.write(records),
            None => Ok(()),
        }
    }

    fn step(&mut self, records: Vec<Record>) -> anyhow::Result<()> {
        if let Some(f) = self.summary.as_mut() {
            f.writer.write(&records)?;
        }
        self.summary_rows.extend(records);
        Ok(())
    }

    /// Close the files and put them in place, then the table on stderr and (with `--json`) the
    /// summary on stdout.
    fn finish(self, json: bool) -> anyhow::Result<()> {
        let files: Vec<OutputFile> = self.csv.into_iter().chain(self.summary).collect();
        let mut renames = Vec::new();
        for f in files {
            f.writer.finish()?;
            renames.push(f.rename);
        }
        for rename in renames {
            rename.commit()?;
        }
        let cols = &self.summary_columns;
        let mut table =
            LineWriter::new(Box::new(std::io::stderr()), Box::new(TableExporter::default()), cols, "stderr")?;
        table.write(&self.summary_rows)?;
        table.finish()?;
        if json {
            let mut out =
                LineWriter::new(Box::new(std::io::stdout()), Box::new(JsonExporter::default()), cols, "stdout")?;
            out.write(&self.summary_rows)?;
            out.finish()?;
        }
        Ok(())
    }
}

/// Where this rank works in a target several ranks share: its position among them and their number.
#[derive(Debug, Clone, Copy)]
struct Placement {
    position: usize,
    count: usize,
}

/// Which step this is, and among which ranks.
struct StepContext<'a> {
    number: usize,
    count: usize,
    cluster: &'a dyn Cluster,
    place: Placement,
    /// Host name of every rank (`--host`, default the hostname).
    hosts: &'a [String],
}

/// A step's target and engine, and the first and number of blocks this rank uses.
type Opened = (target::Target, Box<dyn iogen::engine::Engine>, u64, u64);

/// Prepare the target (lay it out if needed) and open the engine; the range of blocks this rank
/// uses. Of ranks sharing a target, the first prepares it before the others look at it.
fn open_step(ctx: &StepContext, o: &Options, stop: &AtomicBool) -> anyhow::Result<Result<Opened, i32>> {
    let c = ctx.cluster;
    let mut opened = None;
    for leader_turn in [true, false] {
        let mine = if (ctx.place.position == 0) == leader_turn {
            Some((|| -> anyhow::Result<_> {
                if !o.target.exists() {
                    eprintln!(
                        "iogen: laying out {} ({} bytes of non-zero data)",
                        o.target.display(),
                        o.size.unwrap_or(target::DEFAULT_NEW_SIZE)
                    );
                }
                let target = target::prepare(o, stop)?;
                let (first, blocks) = region(target.blocks(o.block_size), ctx.place.position, ctx.place.count);
                if blocks == 0 {
                    anyhow::bail!(
                        "--target {}: {} blocks of {} bytes cannot be split among the {} ranks that share it",
                        o.target.display(),
                        target.blocks(o.block_size),
                        o.block_size,
                        ctx.place.count
                    );
                }
                let cfg = EngineConfig {
                    file: target.file.clone(),
                    queue_depth: o.queue_depth,
                    block_size: o.block_size as usize,
                    direct: o.io_mode == IoMode::Direct,
                };
                let engine = open_engine(o.engine, &cfg)
                    .with_context(|| format!("opening the {:?} engine on {}", o.engine, o.target.display()))?;
                Ok((target, engine, first, blocks))
            })())
        } else {
            None
        };
        let ok = match mine {
            Some(r) => r.map(|x| opened = Some(x)),
            None => Ok(()),
        };
        if let Err(code) = agreed(c, ok, "a rank could not prepare its target")? {
            return Ok(Err(code));
        }
    }
    Ok(Ok(opened.expect("every rank prepared its target in its turn")))
}

/// Step `number` of `count`: prepare the target, open the engine, run (with the other ranks, if
/// any), write the rows. `Err(code)`: the ranks agreed to stop with that exit code.
fn run_one_step(
    ctx: &StepContext,
    step: &Step,
    stop: &AtomicBool,
    outputs: &mut Option<Outputs>,
) -> anyhow::Result<Result<StepOutcome, i32>> {
    let (number, count, c) = (ctx.number, ctx.count, ctx.cluster);
    let o = &step.opts;
    let (target, mut engine, first, blocks) = match open_step(ctx, o, stop)? {
        Ok(x) => x,
        Err(code) => return Ok(Err(code)),
    };
    let who = if c.size() > 1 { format!(" (rank {} of {})", c.rank(), c.size()) } else { String::new() };
    eprintln!(
        "iogen: step {number} of {count} ({}) on {} ({:?}, {blocks} blocks of {} bytes), engine {}{who}",
        step.name,
        o.target.display(),
        target.kind,
        o.block_size,
        engine.name()
    );
    let base = target.data_start + first * o.block_size;
    let workload = Workload::new(o.read_pct, o.random_pct, base, o.block_size, blocks, o.seed);
    let total = Options { iops: step.total_iops, ..o.clone() };
    let info = StepInfo::new(&total, number, &step.name, &step.labels);
    let keep_raw = std::env::var_os(RAW_LATENCIES_ENV).is_some();
    // Only this thread, and only while the step runs: engine workers exist already (normal policy).
    let normal = enter_realtime(number, o, engine.name())?;
    // Waking at the agreed instant is what the start skew measures: a rank that wakes on a busy
    // host waits for a CPU (median skew 3.9 ms on the test VM) unless it wakes under SCHED_FIFO
    // (0.09 ms). So with several ranks the wait runs under SCHED_FIFO when permitted, unless
    // --rt-priority off, also at rates where the step itself stays normal.
    let fifo_start = (c.size() > 1 && normal.is_none() && o.rt_priority != RtPriority::Off)
        .then(|| realtime::enter(realtime::AUTO_PRIORITY).ok())
        .flatten();
    let started = start_together(c);
    if let Some(before) = fifo_start {
        realtime::leave(before);
    }
    let outcome = started.and_then(|s| {
        if let (Some((skew, late)), true) = (s.skew, c.size() > 1) {
            eprintln!(
                "iogen: step {number} started on {} ranks together: start skew {:.3} ms (the last rank woke {:.3} ms \
                 after the agreed instant)",
                c.size(),
                skew.as_secs_f64() * 1e3,
                late.as_secs_f64() * 1e3
            );
        }
        let start = StepStart { at: s.at, keep_raw };
        if c.size() == 1 {
            let out = outputs.as_mut().expect("a single process writes the outputs");
            let mut on_row = |r: &SubintervalReport| out.subinterval(&info, r);
            return run_step_with(engine.as_mut(), workload, o, stop, start, &mut LocalSink(&mut on_row)).map(|x| (x, None));
        }
        let mut write = |rows: &[Record]| outputs.as_mut().map_or(Ok(()), |out| out.rows(rows));
        let root = (c.rank() == 0).then(|| Root {
            aggregate: StepAggregate::new(&total, ctx.hosts.to_vec()),
            info: info.clone(),
            write: &mut write,
            received: Vec::new(),
        });
        let mut sink = ClusterSink::new(c, root);
        let outcome = run_step_with(engine.as_mut(), workload, o, stop, start, &mut sink)?;
        let closes = outcome_closes(&outcome, o);
        if c.rank() == 0 && closes > 0 {
            eprintln!(
                "iogen: step {number}: exchanging each subinterval with the other ranks took {:.3} ms on rank 0 (mean of \
                 {closes}; {} bytes from this rank)",
                sink.exchange_time.as_secs_f64() * 1e3 / closes as f64,
                sink.last_message_bytes
            );
        }
        let summary = sink.into_root().map(|r| r.aggregate.summary(&info, engine.name()));
        Ok((outcome, summary))
    });
    if let Some(before) = normal {
        realtime::leave(before);
    }
    let (outcome, cluster_summary) = outcome?;
    drop(engine);
    if keep_raw {
        write_raw_latencies(c.rank(), &outcome)?;
    }
    if let Some(out) = outputs.as_mut() {
        out.step(cluster_summary.unwrap_or_else(|| summary_records(&info, &outcome)))?;
    }
    warn_about(number, o, &outcome, normal.is_some());
    Ok(Ok(outcome))
}

/// Subintervals a step closed (warm-up and measurement), for the mean exchange time.
fn outcome_closes(outcome: &StepOutcome, o: &Options) -> usize {
    let sub = o.subinterval.as_secs_f64();
    let warm = (o.warmup.as_secs_f64() / sub).ceil();
    (warm + (outcome.measure_seconds / sub).ceil()) as usize
}

/// Write this rank's raw measured response times (tests: [`RAW_LATENCIES_ENV`]).
fn write_raw_latencies(rank: usize, outcome: &StepOutcome) -> anyhow::Result<()> {
    let Some(path) = std::env::var_os(RAW_LATENCIES_ENV) else { return Ok(()) };
    let path = path.to_string_lossy().replace("{rank}", &rank.to_string());
    let mut text = String::from("subinterval,response_ns\n");
    for (sub, ns) in &outcome.raw {
        text.push_str(&format!("{sub},{ns}\n"));
    }
    std::fs::write(&path, text).with_context(|| format!("writing {path}"))
}

/// Put this thread under `SCHED_FIFO` as `--rt-priority` asks for this step (see
/// [`realtime`]); returns the policy to restore, `None` when it stays normal.
fn enter_realtime(number: usize, o: &Options, engine: &str) -> anyhow::Result<Option<realtime::Policy>> {
    match o.rt_priority {
        RtPriority::Off => Ok(None),
        RtPriority::Auto => {
            if !realtime::auto_applies(engine, o.iops, o.spin) {
                return Ok(None);
            }
            // Not permitted (no root or CAP_SYS_NICE): the normal policy, as with off.
            let Ok(before) = realtime::enter(realtime::AUTO_PRIORITY) else { return Ok(None) };
            eprintln!(
                "iogen: step {number}: the launching thread runs under SCHED_FIFO priority {} (--rt-priority auto; \
                 off to leave it normal)",
                realtime::AUTO_PRIORITY
            );
            Ok(Some(before))
        }
        RtPriority::Fixed(p) => {
            if realtime::never_sleeps(o.iops, o.spin) {
                eprintln!(
                    "iogen: step {number}: with --rt-priority the launching thread will hardly ever sleep at this rate \
                     and --spin-us; the kernel's real-time throttling may stop it for tens of ms each second (lower \
                     --spin-us, or use --rt-priority auto)"
                );
            }
            if engine == "sync" && o.queue_depth > 1 {
                eprintln!(
                    "iogen: step {number}: with --rt-priority the sync engine's worker threads wait while the launching \
                     thread spins, which raises service times (use io_uring, or --rt-priority auto)"
                );
            }
            Ok(Some(realtime::enter(p)?))
        }
    }
}

/// Share of the mean service time above which iogen's own launch lag is worth a warning: beyond
/// it the lag, which is in every response time, is no longer small next to what is measured.
const LAG_WARNING_SHARE: f64 = 0.10;

/// iogen's mean launch lag / mean service time (None without on-time IOs or service times).
fn lag_share_of_service(c: &CategoryStats) -> Option<f64> {
    let (lag, service) = (c.lag_ms()?, c.service_ms()?);
    (service.avg > 0.0).then(|| lag.avg / service.avg)
}

/// What the user must know about a finished step to read its numbers right (`under_fifo`: the
/// step ran with the launching thread under `SCHED_FIFO`).
fn warn_about(number: usize, o: &Options, outcome: &StepOutcome, under_fifo: bool) {
    if outcome.behind_s > 0.1 {
        eprintln!(
            "iogen: step {number} ended {:.3} s behind schedule: the target (or this host) could not sustain the \
             requested rate at queue depth {}; arrivals still waiting were not issued (see late_ios and response times)",
            outcome.behind_s, o.queue_depth
        );
    }
    if outcome.disk_full {
        eprintln!("iogen: step {number} ended early: the target is full (ENOSPC)");
    }
    // The null engine has no service time to compare with (it completes inside submit).
    let share = if outcome.engine == "null" { None } else { lag_share_of_service(&outcome.measure.overall) };
    if let Some(share) = share {
        if share > LAG_WARNING_SHARE {
            let remedy = if under_fifo { "--spin-us" } else { "--rt-priority, --spin-us" };
            eprintln!(
                "iogen: step {number}: iogen's own launch lag (iogen_lag_ms_avg) is {:.0} % of the mean service time; \
                 response times include it (a busy host? see {remedy} and iogen/README.md)",
                share * 100.0
            );
        }
    }
}

/// Steps from the command line alone (`run`) or from a plan; label keys are the `--label` keys,
/// then the plan's label columns.
fn build_steps(args: &RunArgs, base: &Options, plan: Option<&Path>) -> anyhow::Result<(Vec<String>, Vec<Step>)> {
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
        let step = Step { name: default_name(base), opts: base.clone(), total_iops: base.iops, labels };
        return Ok((keys, vec![step]));
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
            Step {
                name: s.name.unwrap_or_else(|| default_name(&s.opts)),
                total_iops: s.opts.iops,
                opts: s.opts,
                labels,
            }
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

#[cfg(test)]
mod tests {
    use super::*;
    use iogen::engine::OpKind;
    use iogen::stats::{IntervalStats, IoTimes, Launch};

    #[test]
    fn lag_share_is_mean_lag_over_mean_service() {
        let mut s = IntervalStats::default();
        // Service 100 µs each; lag 5 and 15 µs on the on-time IOs, a late IO adds no lag.
        for (lag_ns, launch) in [(5_000, true), (15_000, true), (0, false)] {
            let launch = if launch { Launch::OnTime { lag_ns } } else { Launch::Late };
            s.record(OpKind::Read, 4096, IoTimes { service_ns: 100_000, response_ns: 200_000, launch });
        }
        let share = lag_share_of_service(&s.overall).unwrap();
        assert!((share - 0.10).abs() < 1e-12, "{share}");
        assert!(lag_share_of_service(&IntervalStats::default().overall).is_none());
    }
}
