//! The options of one step, as a plain struct, with the parsers shared by the command line and
//! plan files and the checks that run before any IO.

use std::path::PathBuf;
use std::time::Duration;

use thiserror::Error;

pub use crate::engine::EngineKind;
// The seen-enough specification lives with its rule; re-exported for the command line and plans.
pub use crate::seen_enough::{parse_seen_enough, SeenEnoughMethod, SeenEnoughSpec, Transient, DEFAULT_SEEN_ENOUGH};

/// An invalid option value. The message names the option (or plan column) and the problem.
#[derive(Debug, Error, PartialEq)]
pub enum OptionError {
    /// A value that cannot be used.
    #[error("--{option}: {problem}")]
    Invalid {
        /// Long option name without dashes, e.g. `block-size`.
        option: String,
        /// What is wrong and what would be accepted.
        problem: String,
    },
}

impl OptionError {
    /// Shorthand constructor.
    pub fn invalid(option: &str, problem: impl Into<String>) -> Self {
        OptionError::Invalid { option: option.to_string(), problem: problem.into() }
    }
}

/// How arrival times are spaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Arrivals {
    /// Exponential inter-arrival times (an open Poisson stream).
    Poisson,
    /// Equal spacing, 1/iops apart.
    Uniform,
    /// Poisson arrivals conditioned on exactly iops × length arrivals in every subinterval
    /// (sorted uniform points): Poisson burstiness without run-to-run drift of the offered rate.
    #[value(name = "poisson-fixed")]
    PoissonFixed,
}

/// Requested arrival rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Iops {
    /// Submit as soon as a slot frees (closed loop at queue depth; response = service).
    Max,
    /// Open loop at this many IOs per second.
    Rate(f64),
}

/// Scheduling of the thread that launches IOs while a step runs (`--rt-priority`, see
/// [`crate::realtime`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RtPriority {
    /// The normal policy.
    Off,
    /// `SCHED_FIFO` at priority 1 where it was measured to pay and harm nothing, the normal policy
    /// elsewhere or when not permitted ([`crate::realtime::auto_applies`]).
    Auto,
    /// `SCHED_FIFO` at this priority (1–99); refused when not permitted.
    Fixed(u8),
}

/// Buffered (page cache) or direct IO.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IoMode {
    /// Through the page cache.
    Buffered,
    /// `O_DIRECT`: aligned buffers, offsets and lengths.
    Direct,
}

/// The metric the seen-enough rule watches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Focus {
    /// Overall IOPS per subinterval.
    Iops,
    /// Overall mean service time per subinterval.
    Service,
    /// Overall mean response time per subinterval.
    Response,
}

/// Whether writes may go to an existing target iogen did not lay out.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Overwrite {
    /// Only files iogen created or laid out (the default).
    #[default]
    OwnFilesOnly,
    /// The paths named again with `--allow-overwrite`.
    Allowed(Vec<PathBuf>),
}

/// Everything one step needs. Sizes are bytes, percentages 0–100, times [`Duration`]s.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// File or block device to run against.
    pub target: PathBuf,
    /// Bytes of the target to use; `None`: an existing target's size, 1 GiB for a new file.
    pub size: Option<u64>,
    /// Bytes per IO.
    pub block_size: u64,
    /// Share of IOs that are reads, 0–100.
    pub read_pct: f64,
    /// Share of IOs at a random block (the rest continue sequentially), 0–100.
    pub random_pct: f64,
    /// Requested arrival rate.
    pub iops: Iops,
    /// Arrival process.
    pub arrivals: Arrivals,
    /// Most IOs in flight at once.
    pub queue_depth: usize,
    /// IO engine.
    pub engine: EngineKind,
    /// Buffered or O_DIRECT.
    pub io_mode: IoMode,
    /// Time run before measuring (rows with phase `warmup`).
    pub warmup: Duration,
    /// Measured time (ignored when `seen_enough` is set; then `max_duration` caps it).
    pub duration: Duration,
    /// Length of one subinterval (one CSV row per category).
    pub subinterval: Duration,
    /// Stop rule; `None`: measure for `duration`.
    pub seen_enough: Option<SeenEnoughSpec>,
    /// Longest measurement with `seen_enough`; `None`: `duration`.
    pub max_duration: Option<Duration>,
    /// Metric the stop rule watches.
    pub focus: Focus,
    /// Seed of the arrival, mix and offset generators.
    pub seed: u64,
    /// Write permission for existing foreign targets.
    pub overwrite: Overwrite,
    /// Host name written to every row.
    pub host: String,
    /// Wall-clock start (Unix milliseconds) to line up several hosts; `None`: start at once.
    pub start_at_ms: Option<u64>,
    /// With `--iops N`: how long before an arrival's scheduled time iogen stops sleeping and
    /// polls (spins) until it is due. Zero: sleep until the arrival (less CPU, more lag).
    pub spin: Duration,
    /// Scheduling of the thread that launches IOs while a step runs (see [`crate::realtime`]).
    pub rt_priority: RtPriority,
    /// `--precondition`: sequential passes over the target's whole IO range before the first step
    /// that uses it (0: none). Preconditioning writes, so a target it may not write is refused.
    pub precondition_passes: u32,
}

/// Default of `--spin-us` (see `iogen/README.md`, "Waiting for an arrival").
pub const DEFAULT_SPIN_US: u64 = 50;

/// The defaults of every option; the command line's defaults are taken from here.
impl Default for Options {
    fn default() -> Self {
        Options {
            target: PathBuf::new(),
            size: None,
            block_size: 4096,
            read_pct: 100.0,
            random_pct: 100.0,
            iops: Iops::Max,
            arrivals: Arrivals::Poisson,
            queue_depth: 16,
            engine: EngineKind::Auto,
            io_mode: IoMode::Buffered,
            warmup: Duration::from_secs(5),
            duration: Duration::from_secs(60),
            subinterval: Duration::from_secs(1),
            seen_enough: None,
            max_duration: None,
            focus: Focus::Iops,
            seed: 1,
            overwrite: Overwrite::OwnFilesOnly,
            host: String::new(),
            start_at_ms: None,
            spin: Duration::from_micros(DEFAULT_SPIN_US),
            rt_priority: RtPriority::Auto,
            precondition_passes: 0,
        }
    }
}

impl Options {
    /// Check every value before any IO. The error names the option.
    pub fn validate(&self) -> Result<(), OptionError> {
        if self.target.as_os_str().is_empty() {
            return Err(OptionError::invalid("target", "a target file or block device is required"));
        }
        if self.block_size == 0 {
            return Err(OptionError::invalid("block-size", "must be at least 1 byte"));
        }
        if self.io_mode == IoMode::Direct && !self.block_size.is_multiple_of(512) {
            return Err(OptionError::invalid(
                "block-size",
                format!("{} bytes is not a multiple of 512, which --direct needs", self.block_size),
            ));
        }
        if self.block_size > 64 << 20 {
            return Err(OptionError::invalid("block-size", "must be at most 64MiB"));
        }
        check_pct("read-pct", self.read_pct)?;
        check_pct("random-pct", self.random_pct)?;
        if let Some(size) = self.size {
            if size < self.block_size {
                return Err(OptionError::invalid(
                    "size",
                    format!("{size} bytes is smaller than the block size ({} bytes)", self.block_size),
                ));
            }
        }
        if let Iops::Rate(r) = self.iops {
            if !(r.is_finite() && r > 0.0) {
                return Err(OptionError::invalid("iops", "must be a positive number or max"));
            }
            if r < MIN_IOPS {
                return Err(OptionError::invalid("iops", format!("must be at least {MIN_IOPS} (one IO every 1000 s)")));
            }
        }
        if self.queue_depth == 0 || self.queue_depth > 4096 {
            return Err(OptionError::invalid("queue-depth", "must be between 1 and 4096"));
        }
        if self.subinterval < Duration::from_millis(10) {
            return Err(OptionError::invalid("subinterval", "must be at least 10ms"));
        }
        if self.seen_enough.is_none() && self.duration < self.subinterval {
            return Err(OptionError::invalid("duration", "must be at least one subinterval"));
        }
        if let Some(se) = &self.seen_enough {
            if !(se.accuracy > 0.0 && se.accuracy < 1.0) {
                return Err(OptionError::invalid("seen-enough", "accuracy must be in (0%, 100%)"));
            }
            if !(se.confidence > 0.0 && se.confidence < 1.0) {
                return Err(OptionError::invalid("seen-enough", "confidence must be in (0%, 100%)"));
            }
            if se.min_samples < 2 {
                return Err(OptionError::invalid("seen-enough-min", "must be at least 2 samples"));
            }
            if self.measure_cap() < self.subinterval {
                return Err(OptionError::invalid("max-duration", "must be at least one subinterval"));
            }
        }
        Ok(())
    }

    /// Longest measured time: `max_duration` with a stop rule (else `duration`), `duration` without.
    pub fn measure_cap(&self) -> Duration {
        match self.seen_enough {
            Some(_) => self.max_duration.unwrap_or(self.duration),
            None => self.duration,
        }
    }

    /// Whether the step writes to its target at all: its workload, or `--precondition` before it.
    pub fn writes(&self) -> bool {
        self.workload_writes() || self.precondition_passes > 0
    }

    /// Whether the measured workload writes (`--read-pct` below 100).
    pub fn workload_writes(&self) -> bool {
        self.read_pct < 100.0
    }

    /// Set one option from its long name (dashes or underscores) and a text value, as a plan row
    /// does. Returns `Ok(false)` when the name is not an option that can vary per step
    /// (see [`STEP_OPTION_TABLE`]).
    pub fn apply(&mut self, name: &str, value: &str) -> Result<bool, OptionError> {
        let key = normalize_name(name);
        let Some(option) = STEP_OPTION_TABLE.iter().find(|o| o.name == key) else { return Ok(false) };
        (option.set)(self, value).map_err(|problem| OptionError::invalid(&key.replace('_', "-"), problem))?;
        Ok(true)
    }
}

/// An option a plan column may set per step: its name and how a cell's text sets it. The
/// table is the only place that knows both, so a column cannot be accepted as an option and
/// still be written out as a label, nor the reverse.
pub struct StepOption {
    /// Column name as in plan files (lower case, `_`; dashes are accepted and folded).
    pub name: &'static str,
    /// The option this name sets when it is an alias (`bs` sets `block_size`).
    pub alias_of: Option<&'static str>,
    /// Parses the cell into the options; the error says what is wrong with the text.
    set: fn(&mut Options, &str) -> Result<(), String>,
}

impl StepOption {
    /// The option this column sets (its own name unless it is an alias).
    pub fn option(&self) -> &'static str {
        self.alias_of.unwrap_or(self.name)
    }
}

const fn step(name: &'static str, set: fn(&mut Options, &str) -> Result<(), String>) -> StepOption {
    StepOption { name, alias_of: None, set }
}

const fn alias(name: &'static str, of: &'static str, set: fn(&mut Options, &str) -> Result<(), String>) -> StepOption {
    StepOption { name, alias_of: Some(of), set }
}

/// Every option a plan column may set, with how it is set.
pub const STEP_OPTION_TABLE: [StepOption; 18] = [
    step("size", |o, v| {
        o.size = Some(parse_size(v)?);
        Ok(())
    }),
    step("block_size", |o, v| {
        o.block_size = parse_size(v)?;
        Ok(())
    }),
    alias("bs", "block_size", |o, v| {
        o.block_size = parse_size(v)?;
        Ok(())
    }),
    step("read_pct", |o, v| {
        o.read_pct = parse_pct(v)?;
        Ok(())
    }),
    step("random_pct", |o, v| {
        o.random_pct = parse_pct(v)?;
        Ok(())
    }),
    step("iops", |o, v| {
        o.iops = parse_iops(v)?;
        Ok(())
    }),
    step("queue_depth", |o, v| {
        o.queue_depth = parse_whole(v)?;
        Ok(())
    }),
    alias("iodepth", "queue_depth", |o, v| {
        o.queue_depth = parse_whole(v)?;
        Ok(())
    }),
    step("arrivals", |o, v| {
        o.arrivals = parse_enum(v)?;
        Ok(())
    }),
    step("engine", |o, v| {
        o.engine = parse_enum(v)?;
        Ok(())
    }),
    step("warmup", |o, v| {
        o.warmup = parse_duration(v)?;
        Ok(())
    }),
    step("duration", |o, v| {
        o.duration = parse_duration(v)?;
        Ok(())
    }),
    step("subinterval", |o, v| {
        o.subinterval = parse_duration(v)?;
        Ok(())
    }),
    step("max_duration", |o, v| {
        o.max_duration = Some(parse_duration(v)?);
        Ok(())
    }),
    step("focus", |o, v| {
        o.focus = parse_enum(v)?;
        Ok(())
    }),
    step("seed", |o, v| {
        o.seed = parse_whole(v)?;
        Ok(())
    }),
    step("direct", |o, v| {
        o.io_mode = if parse_bool(v)? { IoMode::Direct } else { IoMode::Buffered };
        Ok(())
    }),
    step("seen_enough", set_seen_enough),
];

/// Names of [`STEP_OPTION_TABLE`], in its order.
pub const STEP_OPTIONS: [&str; STEP_OPTION_TABLE.len()] = {
    let mut names = [""; STEP_OPTION_TABLE.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = STEP_OPTION_TABLE[i].name;
        i += 1;
    }
    names
};

/// `seen_enough` cell: `off` or empty turns the rule off; `ACCURACY@CONFIDENCE` turns it on,
/// keeping the run's window and method (or the defaults when the run had none).
fn set_seen_enough(o: &mut Options, value: &str) -> Result<(), String> {
    let v = value.trim();
    if v.is_empty() || v.eq_ignore_ascii_case("off") {
        o.seen_enough = None;
    } else {
        let (accuracy, confidence) = parse_seen_enough(v)?;
        let prev = o.seen_enough.unwrap_or(DEFAULT_SEEN_ENOUGH);
        o.seen_enough = Some(SeenEnoughSpec { accuracy, confidence, ..prev });
    }
    Ok(())
}

fn parse_whole<T: std::str::FromStr>(value: &str) -> Result<T, String> {
    value.trim().parse().map_err(|_| format!("'{value}' is not a whole number"))
}

fn check_pct(option: &str, v: f64) -> Result<(), OptionError> {
    if v.is_finite() && (0.0..=100.0).contains(&v) {
        Ok(())
    } else {
        Err(OptionError::invalid(option, format!("{v} is outside 0–100")))
    }
}

/// Options that hold for the whole run and cannot be plan columns.
pub const RUN_OPTIONS: [&str; 15] = [
    "target",
    "csv",
    "summary",
    "json",
    "host",
    "label",
    "allow_overwrite",
    "start_at",
    "seen_enough_method",
    "seen_enough_min",
    "seen_enough_transient",
    "force",
    "spin_us",
    "rt_priority",
    "precondition",
];

/// A column or option name in the form used by [`STEP_OPTIONS`]: trimmed, lower case, `_` for `-`.
pub fn normalize_name(name: &str) -> String {
    name.trim().to_ascii_lowercase().replace('-', "_")
}

/// Parse a byte size: a whole number with an optional unit. `K`, `M`, `G`, `T` and `KiB`, `MiB`,
/// `GiB`, `TiB` are powers of 1024 (as in fio and dd); `kB`/`KB`, `MB`, `GB`, `TB` are powers of
/// 1000; `B` or no unit is bytes. Case-insensitive except that nothing else is accepted.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    if num.is_empty() {
        return Err(format!("'{s}' is not a size (examples: 4096, 4K, 4KiB, 256MiB, 1G)"));
    }
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        "g" | "gib" => 1 << 30,
        "t" | "tib" => 1 << 40,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        "tb" => 1_000_000_000_000,
        other => return Err(format!("unknown size unit '{other}' in '{s}' (use K, M, G, KiB, MiB, GiB)")),
    };
    let value: f64 = num.parse().map_err(|_| format!("'{s}' is not a size"))?;
    let bytes = value * mult as f64;
    if !bytes.is_finite() || bytes.fract() != 0.0 || bytes > u64::MAX as f64 / 2.0 {
        return Err(format!("'{s}' is not a whole number of bytes"));
    }
    Ok(bytes as u64)
}

/// A byte size as `--block-size` accepts it: `4KiB`, `1MiB`, or bytes.
pub fn format_size(bytes: u64) -> String {
    match bytes {
        0 => "0".into(),
        b if b.is_multiple_of(1 << 30) => format!("{}GiB", b >> 30),
        b if b.is_multiple_of(1 << 20) => format!("{}MiB", b >> 20),
        b if b.is_multiple_of(1 << 10) => format!("{}KiB", b >> 10),
        b => b.to_string(),
    }
}

/// A duration as `--duration` accepts it: whole seconds as `5s`, else milliseconds (`1500ms`).
pub fn format_duration(d: Duration) -> String {
    if d.subsec_nanos() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_secs_f64() * 1000.0)
    }
}

impl std::fmt::Display for Iops {
    /// `max` or the rate, as `--iops` accepts it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Iops::Max => f.write_str("max"),
            Iops::Rate(r) => write!(f, "{r}"),
        }
    }
}

/// Parse a duration: a number with an optional unit `ms`, `s`, `m`, `h` (no unit: seconds).
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let value: f64 = num.parse().map_err(|_| format!("'{s}' is not a duration (examples: 500ms, 5s, 2m, 1h)"))?;
    let secs = match unit.trim().to_ascii_lowercase().as_str() {
        "ms" => value / 1000.0,
        "" | "s" | "sec" => value,
        "m" | "min" => value * 60.0,
        "h" => value * 3600.0,
        other => return Err(format!("unknown time unit '{other}' in '{s}' (use ms, s, m, h)")),
    };
    if !(0.0..=1e9).contains(&secs) {
        return Err(format!("'{s}' is out of range"));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// Parse a percentage 0–100 (a trailing `%` is allowed).
pub fn parse_pct(s: &str) -> Result<f64, String> {
    let t = s.trim().trim_end_matches('%').trim();
    let v: f64 = t.parse().map_err(|_| format!("'{s}' is not a number"))?;
    if !(v.is_finite() && (0.0..=100.0).contains(&v)) {
        return Err(format!("{v} is outside 0–100"));
    }
    Ok(v)
}

/// Lowest `--iops` rate: one IO every 1000 s. Far lower rates put the next arrival beyond what a
/// clock instant can hold (1e-20 IOPS: 1e20 s), which the scheduler cannot represent.
pub const MIN_IOPS: f64 = 0.001;

/// Parse `max` or a positive IOPS rate (at least [`MIN_IOPS`]).
pub fn parse_iops(s: &str) -> Result<Iops, String> {
    let t = s.trim();
    if t.eq_ignore_ascii_case("max") {
        return Ok(Iops::Max);
    }
    let v: f64 = t.parse().map_err(|_| format!("'{s}' is neither a number nor max"))?;
    if !(v.is_finite() && v > 0.0) {
        return Err(format!("{s} must be a positive number or max"));
    }
    if v > 10_000_000.0 {
        return Err(format!("{s} is above 10,000,000; use max"));
    }
    if v < MIN_IOPS {
        return Err(format!("{s} is below {MIN_IOPS} (one IO every 1000 s); the arrival times would not fit a clock"));
    }
    Ok(Iops::Rate(v))
}

/// Parse `--rt-priority`: `auto`, `off`, or a priority 1–99.
pub fn parse_rt_priority(s: &str) -> Result<RtPriority, String> {
    let t = s.trim();
    if t.eq_ignore_ascii_case("auto") {
        return Ok(RtPriority::Auto);
    }
    if t.eq_ignore_ascii_case("off") {
        return Ok(RtPriority::Off);
    }
    match t.parse::<u8>() {
        Ok(p) if (1..=99).contains(&p) => Ok(RtPriority::Fixed(p)),
        _ => Err(format!("'{s}' is neither auto, off nor a priority from 1 to 99")),
    }
}

impl std::fmt::Display for RtPriority {
    /// As `--rt-priority` accepts it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RtPriority::Off => f.write_str("off"),
            RtPriority::Auto => f.write_str("auto"),
            RtPriority::Fixed(p) => write!(f, "{p}"),
        }
    }
}

/// Parse a yes/no value as found in plan files.
pub fn parse_bool(s: &str) -> Result<bool, String> {
    match s.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "y" | "on" => Ok(true),
        "0" | "false" | "no" | "n" | "off" | "" => Ok(false),
        _ => Err(format!("'{s}' is not yes/no")),
    }
}

fn parse_enum<T: clap::ValueEnum>(s: &str) -> Result<T, String> {
    T::from_str(s.trim(), true).map_err(|_| {
        let names: Vec<String> = T::value_variants()
            .iter()
            .filter_map(|v| v.to_possible_value())
            .map(|p| p.get_name().to_string())
            .collect();
        format!("'{s}' is not one of {}", names.join(", "))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("4K"), Ok(4096));
        assert_eq!(parse_size("4k"), Ok(4096));
        assert_eq!(parse_size("4KiB"), Ok(4096));
        assert_eq!(parse_size("256MiB"), Ok(256 << 20));
        assert_eq!(parse_size("1G"), Ok(1 << 30));
        assert_eq!(parse_size("1GiB"), Ok(1 << 30));
        assert_eq!(parse_size("2MB"), Ok(2_000_000));
        assert_eq!(parse_size("1.5K"), Ok(1536));
        assert!(parse_size("").is_err());
        assert!(parse_size("4X").is_err());
        assert!(parse_size("-4K").is_err());
        assert!(parse_size("0.3").is_err());
    }

    #[test]
    fn formatted_defaults_parse_back() {
        for bytes in [512, 4096, 8192, 1 << 20, 3 << 30, 4097] {
            assert_eq!(parse_size(&format_size(bytes)), Ok(bytes), "{bytes}");
        }
        assert_eq!(format_size(4096), "4KiB");
        for d in [Duration::from_secs(5), Duration::from_millis(1500), Duration::ZERO] {
            assert_eq!(parse_duration(&format_duration(d)), Ok(d), "{d:?}");
        }
        for iops in [Iops::Max, Iops::Rate(5000.0), Iops::Rate(0.5)] {
            assert_eq!(parse_iops(&iops.to_string()), Ok(iops));
        }
    }

    #[test]
    fn durations_and_rates() {
        assert_eq!(parse_duration("5s"), Ok(Duration::from_secs(5)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("3"), Ok(Duration::from_secs(3)));
        assert!(parse_duration("5 parsecs").is_err());
        assert_eq!(parse_iops("MAX"), Ok(Iops::Max));
        assert_eq!(parse_iops("5000"), Ok(Iops::Rate(5000.0)));
        assert!(parse_iops("0").is_err());
        // Below one IO per 1000 s the next arrival overflowed the clock (a panic, exit 101).
        let e = parse_iops("1e-20").unwrap_err();
        assert!(e.contains("1e-20 is below 0.001"), "{e}");
        assert_eq!(parse_iops("0.001"), Ok(Iops::Rate(0.001)));
        assert_eq!(parse_pct("70%"), Ok(70.0));
        assert!(parse_pct("101").is_err());
        assert_eq!(parse_seen_enough("5%@95%"), Ok((0.05, 0.95)));
        assert_eq!(parse_seen_enough("0.02@0.9"), Ok((0.02, 0.9)));
        assert!(parse_seen_enough("5%@100%").is_err());
    }

    fn valid() -> Options {
        Options { target: "/tmp/x".into(), ..Options::default() }
    }

    #[test]
    fn validation_names_the_option() {
        assert_eq!(valid().validate(), Ok(()));
        let cases: Vec<(Options, &str)> = vec![
            (Options { block_size: 0, ..valid() }, "block-size"),
            (Options { block_size: 1000, io_mode: IoMode::Direct, ..valid() }, "block-size"),
            (Options { read_pct: 120.0, ..valid() }, "read-pct"),
            (Options { random_pct: -1.0, ..valid() }, "random-pct"),
            (Options { size: Some(1024), ..valid() }, "size"),
            (Options { queue_depth: 0, ..valid() }, "queue-depth"),
            (Options { iops: Iops::Rate(-3.0), ..valid() }, "iops"),
            (Options { iops: Iops::Rate(1e-20), ..valid() }, "iops"),
            (Options { subinterval: Duration::from_millis(1), ..valid() }, "subinterval"),
            (Options { duration: Duration::from_millis(100), ..valid() }, "duration"),
            (Options { target: PathBuf::new(), ..valid() }, "target"),
        ];
        for (o, name) in cases {
            match o.validate() {
                Err(OptionError::Invalid { option, .. }) => assert_eq!(option, name),
                Ok(()) => panic!("{name} accepted"),
            }
        }
        let ok_direct = Options { block_size: 8192, io_mode: IoMode::Direct, ..valid() };
        assert_eq!(ok_direct.validate(), Ok(()));
    }

    #[test]
    fn apply_by_column_name() {
        let mut o = valid();
        assert_eq!(o.apply("block_size", "8KiB"), Ok(true));
        assert_eq!(o.block_size, 8192);
        assert_eq!(o.apply("read-pct", "70"), Ok(true));
        assert_eq!(o.apply("iops", "max"), Ok(true));
        assert_eq!(o.apply("engine", "io_uring"), Ok(true));
        assert_eq!(o.engine, EngineKind::IoUring);
        assert_eq!(o.apply("protocol", "nfs"), Ok(false));
        let samples = [
            "1MiB", "4K", "4K", "50", "50", "1000", "4", "4", "uniform", "sync", "1s", "2s", "1s", "3s", "iops", "7",
            "yes", "5%@95%",
        ];
        for (name, value) in STEP_OPTIONS.iter().zip(samples) {
            assert_eq!(o.apply(name, value), Ok(true), "{name}");
        }
        // An alias sets exactly what its option sets.
        for alias in STEP_OPTION_TABLE.iter().filter(|t| t.alias_of.is_some()) {
            let (mut by_alias, mut by_name) = (valid(), valid());
            assert_eq!(by_alias.apply(alias.name, "8"), Ok(true));
            assert_eq!(by_name.apply(alias.option(), "8"), Ok(true));
            assert_eq!(by_alias, by_name, "{}", alias.name);
            assert!(STEP_OPTIONS.contains(&alias.option()), "{} is an alias of an unknown option", alias.name);
        }
        let e = o.apply("queue_depth", "deep").unwrap_err();
        assert!(e.to_string().starts_with("--queue-depth:"), "{e}");
        let e = o.apply("arrivals", "bursty").unwrap_err();
        assert!(e.to_string().contains("poisson"), "{e}");
    }
}
