//! The command line (clap). [`parse_args`] accepts any iterator of arguments, so tests can call it.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::options::{
    format_duration, format_size, parse_duration, parse_iops, parse_pct, parse_rt_priority, parse_seen_enough,
    parse_size, Arrivals, EngineKind, Focus, IoMode, Iops, Options, Overwrite, RtPriority, SeenEnoughMethod,
    SeenEnoughSpec, Transient, DEFAULT_SEEN_ENOUGH,
};

const LONG_ABOUT: &str = "\
iogen is an open-loop IO load generator. It holds a requested IOPS with Poisson (or uniform) \
arrivals, independent of how fast IOs complete, and measures for every IO its service time \
(completion - launch) and its response time (completion - scheduled arrival), so queueing in \
front of a busy device is never hidden (no coordinated omission). No arrival is ever skipped or \
re-timed: when all --queue-depth slots are busy, arrivals wait and are counted as late.

Output: one CSV row per subinterval and category (overall, read, write) with --csv, one summary \
row per step and category with --summary (format: docs/iogen-csv.md), a table on stderr, and the \
summary as JSON on stdout with --json.

Safety: iogen writes only to files it lays out itself (recognised by a header block with a \
checksum, not by name), or to a target named again with --allow-overwrite. Writes to any other \
existing file or block device are refused before any IO (exit code 2); mounted or otherwise used \
devices are always refused; a target path that is a symbolic link is refused. Read-only \
workloads (--read-pct 100, the default) open the target read-only. Output files are never \
replaced without --force, and never when they are the plan, the target, a device or another \
output. Every plan row, target and output is checked before anything is written.

Sizes: bytes, or K/M/G/T = KiB/MiB/GiB/TiB (powers of 1024, as in fio); kB/MB/GB/TB are powers \
of 1000. Durations: 500ms, 5s, 2m, 1h (a plain number is seconds).

Preconditioning: --precondition writes each target's whole IO range sequentially (2 passes, or \
--precondition=N) before its first step, as SNIA's PTS does before measuring writes. Every row says \
whether its step ran on preconditioned space (column preconditioned: yes; no = a writing step on \
space this run did not precondition, a warning; empty = a read-only step).

Exit codes: 0 done; 1 IO or system error; 2 invalid input or refused target; 130 interrupted by \
SIGINT/SIGTERM (after finishing the current subinterval row and writing the summary; both CSVs \
record the signal and when it came, in interrupted_by and interrupted_at_s).";

/// `iogen --version`: the version, and whether MPI is compiled in (the `mpi` cargo feature).
pub const VERSION: &str = if crate::cluster::MPI_COMPILED_IN {
    concat!(env!("CARGO_PKG_VERSION"), " (MPI: compiled in; run under mpirun or srun to use many hosts)")
} else {
    concat!(env!("CARGO_PKG_VERSION"), " (MPI: not compiled in; build with --features mpi to use many hosts)")
};

/// iogen: open-loop IO load generator (Capacity Lab).
#[derive(Debug, Parser)]
#[command(name = "iogen", version = VERSION, about, long_about = LONG_ABOUT)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Sub-commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run one step: warm-up, then the measurement.
    Run(RunArgs),
    /// Run a plan: one step per CSV row.
    ///
    /// Columns named like the long options (read_pct,
    /// random_pct, block_size, iops, queue_depth, arrivals, warmup, duration, subinterval,
    /// seen_enough, max_duration, focus, size, seed, direct, engine) override the options for
    /// that row; step_name names the step; any other column (e.g. protocol, or Run, StdOrder,
    /// Replicate of a DOE_DESIGN sheet) is a label copied to the output.
    Plan {
        /// The plan, a CSV file with a header row.
        #[arg(value_name = "PLAN.csv")]
        plan: PathBuf,
        /// Options for every step (plan columns override them).
        #[command(flatten)]
        args: RunArgs,
    },
}

/// Options of `run` (and defaults of `plan`).
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// File or block device to run against. A missing file is created and laid out in full with
    /// non-zero data first.
    #[arg(long, value_name = "PATH")]
    pub target: PathBuf,
    /// Bytes of the target to use [default: an existing target's size, 1GiB for a new file].
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub size: Option<u64>,
    /// Bytes per IO (a multiple of 512 with --direct).
    #[arg(long, value_name = "SIZE", default_value = format_size(Options::default().block_size), value_parser = parse_size)]
    pub block_size: u64,
    /// Percentage of IOs that are reads (0-100); anything below 100 writes.
    #[arg(long, value_name = "PCT", default_value_t = Options::default().read_pct, value_parser = parse_pct)]
    pub read_pct: f64,
    /// Percentage of IOs at a random block (0-100); the rest continue sequentially.
    #[arg(long, value_name = "PCT", default_value_t = Options::default().random_pct, value_parser = parse_pct)]
    pub random_pct: f64,
    /// Requested arrival rate in IOs per second (0.001 to 10,000,000), or max (submit whenever a
    /// slot is free; response = service).
    #[arg(long, value_name = "N|max", default_value_t = Options::default().iops, value_parser = parse_iops)]
    pub iops: Iops,
    /// Arrival process: poisson (exponential gaps, an open Poisson stream), uniform (equal gaps),
    /// or poisson-fixed (Poisson arrivals conditioned on exactly iops × length arrivals in each
    /// subinterval: the same burstiness, but the offered rate does not drift by chance; with
    /// plain poisson a 5 s run at 1000 IOPS offers 1000 ± 14 IOPS, one standard deviation).
    #[arg(long, value_enum, default_value_t = Options::default().arrivals)]
    pub arrivals: Arrivals,
    /// Most IOs in flight at once (slots).
    #[arg(long, value_name = "N", default_value_t = Options::default().queue_depth as u64,
          value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub queue_depth: u64,
    /// IO engine: sync (worker threads with pread/pwrite), io_uring, auto (io_uring where the
    /// kernel allows, else sync), null (no IO; for testing the generator itself).
    #[arg(long, value_enum, default_value_t = Options::default().engine)]
    pub engine: EngineKind,
    /// Open the target with O_DIRECT (bypass the page cache; aligned buffers).
    #[arg(long)]
    pub direct: bool,
    /// Time to run before measuring (rows with phase warmup).
    #[arg(long, value_name = "DURATION", default_value = format_duration(Options::default().warmup), value_parser = parse_duration)]
    pub warmup: Duration,
    /// Measured time (with --seen-enough: see --max-duration).
    #[arg(long, value_name = "DURATION", default_value = format_duration(Options::default().duration), value_parser = parse_duration)]
    pub duration: Duration,
    /// Length of one subinterval (one CSV row per category).
    #[arg(long, value_name = "DURATION", default_value = format_duration(Options::default().subinterval), value_parser = parse_duration)]
    pub subinterval: Duration,
    /// Stop measuring once the focus metric's mean is known to ±ACCURACY at CONFIDENCE (the
    /// SEEN_ENOUGH rule, checked after every subinterval), e.g. 5%@95%.
    #[arg(long, value_name = "ACCURACY@CONFIDENCE", value_parser = parse_seen_enough)]
    pub seen_enough: Option<(f64, f64)>,
    /// How SEEN_ENOUGH allows for correlated subintervals: iid, ivy (k = 2) or ar1.
    #[arg(long, value_enum, default_value_t = DEFAULT_SEEN_ENOUGH.method)]
    pub seen_enough_method: SeenEnoughMethod,
    /// Shortest steady-state window SEEN_ENOUGH accepts, in subintervals (at least 90, and never
    /// shorter than 90 s whatever --subinterval is; raise it for slow warm-ups). With
    /// --seen-enough-transient off: the shortest window (ar1 uses at least 30).
    #[arg(long, value_name = "N", default_value_t = DEFAULT_SEEN_ENOUGH.min_samples)]
    pub seen_enough_min: usize,
    /// Whether SEEN_ENOUGH first finds where steady state begins (detect) or judges precision alone
    /// (off, for comparison: it stops inside warm-ups).
    #[arg(long, value_enum, default_value_t = DEFAULT_SEEN_ENOUGH.transient)]
    pub seen_enough_transient: Transient,
    /// Longest measurement with --seen-enough [default: --duration].
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub max_duration: Option<Duration>,
    /// Metric --seen-enough watches: overall iops, or mean service or response time.
    #[arg(long, value_enum, default_value_t = Options::default().focus)]
    pub focus: Focus,
    /// Write one row per subinterval and category to FILE (CSV, flushed every subinterval).
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Write one row per step and category, over the measurement, to FILE (CSV).
    #[arg(long, value_name = "FILE")]
    pub summary: Option<PathBuf>,
    /// Add a label column KEY with VALUE to every row (repeatable).
    #[arg(long = "label", value_name = "KEY=VALUE", value_parser = parse_label)]
    pub labels: Vec<(String, String)>,
    /// Seed of the arrival, read/write mix and offset generators (same seed, same sequence).
    #[arg(long, default_value_t = Options::default().seed)]
    pub seed: u64,
    /// Host name written to every row [default: this machine's hostname].
    #[arg(long, value_name = "NAME")]
    pub host: Option<String>,
    /// Start at this wall-clock time (Unix milliseconds), to line up runs on several hosts; at most
    /// 24 hours ahead (and not more than 24 hours ago).
    #[arg(long, value_name = "UNIX_MS")]
    pub start_at: Option<u64>,
    /// With --iops N: stop sleeping this many microseconds before each scheduled arrival and poll
    /// for completions until it is due, so IOs launch on time rather than when a timer wakes the
    /// thread (typically tens of µs late; that lag is in the response time). Costs CPU while
    /// waiting: at most N µs per arrival. 0 = sleep until each arrival (least CPU).
    #[arg(long, value_name = "N", default_value_t = Options::default().spin.as_micros() as u64,
          value_parser = clap::value_parser!(u64).range(0..=1_000_000))]
    pub spin_us: u64,
    /// Run the thread that launches IOs under SCHED_FIFO while a step runs, so a busy host cannot
    /// keep it waiting for a CPU (that wait is iogen's own launch lag, iogen_lag_ms_*, and is in
    /// every response time). N (1-99): at priority N, refused without root or CAP_SYS_NICE; use
    /// it with a --spin-us well below the gap between arrivals (a real-time thread that never
    /// sleeps is throttled by the kernel, which is worse). auto: priority 1 when permitted, with
    /// --iops N where the thread sleeps between arrivals (--spin-us below half the gap), and with
    /// the io_uring or null engine (not sync: its worker threads would wait for it); else, and
    /// with off, the normal policy. stderr says when it is in effect.
    #[arg(long, value_name = "N|auto|off", default_value_t = Options::default().rt_priority,
          value_parser = parse_rt_priority)]
    pub rt_priority: RtPriority,
    /// Before the first step on each target, write its whole IO range sequentially N times
    /// (default 2; --precondition=N to choose) in 128 KiB writes, as SNIA's Performance Test
    /// Specification does before measuring writes, so a step measures space that has been
    /// written, as a device in use has been, rather than fresh space. Also with --engine null (it
    /// prepares the target, as the layout does). Progress and the time left go to stderr. It
    /// writes, so the target must be one iogen may write (its own file, or --allow-overwrite).
    /// Without it, a step that writes says preconditioned = no in its rows and summary.
    #[arg(long, value_name = "N", num_args = 0..=1, require_equals = true, default_missing_value = "2",
          value_parser = clap::value_parser!(u32).range(1..=100))]
    pub precondition: Option<u32>,
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// Allow writes to PATH although iogen did not lay it out (an existing file or an unused
    /// block device); PATH must name the target again. Its data will be overwritten.
    #[arg(long, value_name = "PATH")]
    pub allow_overwrite: Vec<PathBuf>,
    /// Replace existing --csv/--summary files (written beside them under a temporary name and
    /// renamed over them at the end). Without it an existing output file is refused. Never
    /// allows an output that is the plan, the target, a device or another output.
    #[arg(long)]
    pub force: bool,
}

/// Parse `KEY=VALUE`.
pub fn parse_label(s: &str) -> Result<(String, String), String> {
    let (k, v) = s.split_once('=').ok_or_else(|| format!("'{s}' is not KEY=VALUE"))?;
    let k = k.trim();
    if k.is_empty() {
        return Err(format!("'{s}' has an empty key"));
    }
    if crate::plan::is_output_column(k) {
        return Err(format!("'{k}' is an output column; choose another label name"));
    }
    Ok((k.to_string(), v.to_string()))
}

/// The clap command: the derived one, with the options of `run` repeated at the end of
/// `iogen --help` so the top-level help documents everything.
pub fn command() -> clap::Command {
    let mut cmd = Cli::command();
    let run_help = cmd.find_subcommand_mut("run").map(|c| c.render_long_help().to_string()).unwrap_or_default();
    cmd.after_long_help(format!("`iogen run --help` (the same options apply to `iogen plan`):\n\n{run_help}"))
}

/// Parse arguments (the first is the program name).
pub fn parse_args<I, T>(args: I) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let matches = command().try_get_matches_from(args)?;
    Cli::from_arg_matches(&matches)
}

impl RunArgs {
    /// The step options these arguments describe.
    pub fn to_options(&self) -> Options {
        Options {
            target: self.target.clone(),
            size: self.size,
            block_size: self.block_size,
            read_pct: self.read_pct,
            random_pct: self.random_pct,
            iops: self.iops,
            arrivals: self.arrivals,
            queue_depth: self.queue_depth as usize,
            engine: self.engine,
            io_mode: if self.direct { IoMode::Direct } else { IoMode::Buffered },
            warmup: self.warmup,
            duration: self.duration,
            subinterval: self.subinterval,
            seen_enough: self.seen_enough.map(|(accuracy, confidence)| SeenEnoughSpec {
                accuracy,
                confidence,
                min_samples: self.seen_enough_min,
                method: self.seen_enough_method,
                transient: self.seen_enough_transient,
            }),
            max_duration: self.max_duration,
            focus: self.focus,
            seed: self.seed,
            overwrite: if self.allow_overwrite.is_empty() {
                Overwrite::OwnFilesOnly
            } else {
                Overwrite::Allowed(self.allow_overwrite.clone())
            },
            host: self.host.clone().unwrap_or_else(hostname),
            start_at_ms: self.start_at,
            spin: Duration::from_micros(self.spin_us),
            rt_priority: self.rt_priority,
            precondition_passes: self.precondition.unwrap_or(0),
        }
    }
}

/// This machine's host name (`unknown` when it cannot be read).
pub fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most buf.len() bytes into buf.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if rc != 0 {
        return "unknown".into();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::{RUN_OPTIONS, STEP_OPTIONS};

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
        command().debug_assert();
    }

    #[test]
    fn defaults_are_options_default() {
        let cli = parse_args(["iogen", "run", "--target", "/tmp/x", "--host", "h"]).unwrap();
        let Command::Run(a) = cli.command else { panic!() };
        assert_eq!(a.to_options(), Options { target: "/tmp/x".into(), host: "h".into(), ..Options::default() });
        let help = command().find_subcommand_mut("run").unwrap().render_long_help().to_string();
        for shown in ["[default: 4KiB]", "[default: 5s]", "[default: 60s]", "[default: max]", "[default: 50]"] {
            assert!(help.contains(shown), "run --help lacks {shown}");
        }
    }

    #[test]
    fn every_option_is_a_step_option_or_a_run_option() {
        // A plan column named like an option in neither list would silently become a label.
        let cmd = command();
        let run = cmd.find_subcommand("run").unwrap();
        for arg in run.get_arguments() {
            let Some(long) = arg.get_long().filter(|l| *l != "help") else { continue };
            let key = crate::options::normalize_name(long);
            assert!(
                STEP_OPTIONS.contains(&key.as_str()) || RUN_OPTIONS.contains(&key.as_str()),
                "--{long} is neither in STEP_OPTIONS nor in RUN_OPTIONS"
            );
        }
    }

    #[test]
    fn plan_help_and_docs_name_every_step_option() {
        use crate::options::STEP_OPTION_TABLE;
        let help = command().find_subcommand_mut("plan").unwrap().render_long_help().to_string();
        let docs = include_str!("../../docs/iogen-csv.md");
        for o in STEP_OPTION_TABLE.iter().filter(|o| o.alias_of.is_none()) {
            assert!(help.contains(o.name), "iogen plan --help does not name {}", o.name);
            assert!(docs.contains(&format!("`{}`", o.name)), "docs/iogen-csv.md does not name `{}`", o.name);
        }
    }

    #[test]
    fn documented_defaults() {
        let cli = parse_args(["iogen", "run", "--target", "/tmp/x"]).unwrap();
        let Command::Run(a) = cli.command else { panic!() };
        let o = a.to_options();
        assert_eq!(o.block_size, 4096);
        assert_eq!(o.read_pct, 100.0);
        assert_eq!(o.random_pct, 100.0);
        assert_eq!(o.iops, Iops::Max);
        assert_eq!(o.arrivals, Arrivals::Poisson);
        assert_eq!(o.queue_depth, 16);
        assert_eq!(o.engine, EngineKind::Auto);
        assert_eq!(o.warmup, Duration::from_secs(5));
        assert_eq!(o.duration, Duration::from_secs(60));
        assert_eq!(o.subinterval, Duration::from_secs(1));
        assert_eq!(o.seen_enough, None);
        assert_eq!(o.spin, Duration::from_micros(50));
        assert_eq!(o.rt_priority, RtPriority::Auto);
        assert!(!o.host.is_empty());
        assert_eq!(o.validate(), Ok(()));
    }

    #[test]
    fn all_options_parse() {
        let cli = parse_args([
            "iogen",
            "plan",
            "p.csv",
            "--target",
            "/tmp/x",
            "--size",
            "256MiB",
            "--block-size",
            "8K",
            "--read-pct",
            "70",
            "--random-pct",
            "50",
            "--iops",
            "5000",
            "--arrivals",
            "uniform",
            "--queue-depth",
            "4",
            "--engine",
            "io_uring",
            "--direct",
            "--warmup",
            "1s",
            "--duration",
            "6s",
            "--subinterval",
            "500ms",
            "--seen-enough",
            "5%@95%",
            "--seen-enough-method",
            "ivy",
            "--max-duration",
            "10m",
            "--focus",
            "response",
            "--csv",
            "s.csv",
            "--summary",
            "sum.csv",
            "--label",
            "protocol=nfs",
            "--label",
            "site=a=b",
            "--seed",
            "9",
            "--host",
            "h1",
            "--start-at",
            "1700000000000",
            "--json",
            "--allow-overwrite",
            "/tmp/x",
            "--precondition=3",
        ])
        .unwrap();
        let Command::Plan { plan, args } = cli.command else { panic!() };
        assert_eq!(plan, PathBuf::from("p.csv"));
        assert_eq!(args.labels[1], ("site".to_string(), "a=b".to_string()));
        let o = args.to_options();
        assert_eq!(o.size, Some(256 << 20));
        assert_eq!(o.io_mode, IoMode::Direct);
        assert_eq!(o.seen_enough.unwrap().method, SeenEnoughMethod::Ivy);
        assert_eq!(o.overwrite, Overwrite::Allowed(vec!["/tmp/x".into()]));
        assert_eq!(o.precondition_passes, 3);
        assert!(o.writes());
        assert_eq!(o.validate(), Ok(()));
    }

    #[test]
    fn precondition_defaults_to_two_passes_and_takes_one_to_a_hundred() {
        let passes = |extra: &[&str]| {
            let cli = parse_args([&["iogen", "run", "--target", "/tmp/x"][..], extra].concat())?;
            let Command::Run(a) = cli.command else { panic!() };
            Ok::<_, clap::Error>(a.to_options().precondition_passes)
        };
        assert_eq!(passes(&[]).unwrap(), 0);
        assert_eq!(passes(&["--precondition"]).unwrap(), 2);
        assert_eq!(passes(&["--precondition=1"]).unwrap(), 1);
        assert_eq!(passes(&["--precondition=100"]).unwrap(), 100);
        for bad in ["--precondition=0", "--precondition=101", "--precondition=twice"] {
            let e = passes(&[bad]).unwrap_err();
            assert_eq!(e.exit_code(), 2);
            assert!(e.to_string().contains("--precondition"), "{e}");
        }
        // A read-only workload with --precondition writes: the target must be one iogen may write.
        let cli = parse_args(["iogen", "run", "--target", "/tmp/x", "--precondition"]).unwrap();
        let Command::Run(a) = cli.command else { panic!() };
        let o = a.to_options();
        assert!(o.writes() && !o.workload_writes());
    }

    #[test]
    fn spin_us_zero_means_pure_sleeping() {
        let cli = parse_args(["iogen", "run", "--target", "/tmp/x", "--spin-us", "0"]).unwrap();
        let Command::Run(a) = cli.command else { panic!() };
        assert_eq!(a.to_options().spin, Duration::ZERO);
        let cli = parse_args(["iogen", "run", "--target", "/tmp/x", "--spin-us", "250"]).unwrap();
        let Command::Run(a) = cli.command else { panic!() };
        assert_eq!(a.to_options().spin, Duration::from_micros(250));
    }

    #[test]
    fn rt_priority_takes_auto_off_or_a_priority() {
        let rt = |v: &str| {
            let cli = parse_args(["iogen", "run", "--target", "/tmp/x", "--rt-priority", v]).unwrap();
            let Command::Run(a) = cli.command else { panic!() };
            a.to_options().rt_priority
        };
        assert_eq!(rt("auto"), RtPriority::Auto);
        assert_eq!(rt("OFF"), RtPriority::Off);
        assert_eq!(rt("1"), RtPriority::Fixed(1));
        assert_eq!(rt("99"), RtPriority::Fixed(99));
    }

    #[test]
    fn bad_values_name_the_option() {
        for (opt, val) in [
            ("--block-size", "4X"),
            ("--read-pct", "101"),
            ("--iops", "fast"),
            ("--queue-depth", "0"),
            ("--spin-us", "soon"),
            ("--spin-us", "2000000"),
            ("--rt-priority", "0"),
            ("--rt-priority", "100"),
            ("--rt-priority", "fifo"),
            ("--seen-enough", "5%@100%"),
            ("--label", "novalue"),
        ] {
            let e = parse_args(["iogen", "run", "--target", "/tmp/x", opt, val]).unwrap_err();
            assert_eq!(e.exit_code(), 2);
            assert!(e.to_string().contains(opt), "{e}");
        }
    }
}
