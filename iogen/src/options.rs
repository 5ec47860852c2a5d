//! The options of one step, as a plain struct, with the parsers shared by the command line and
//! plan files and the checks that run before any IO.

use std::path::PathBuf;
use std::time::Duration;

use thiserror::Error;

pub use crate::engine::EngineKind;

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

/// How the seen-enough rule corrects for correlated subintervals (see `docs/functions/SEEN_ENOUGH.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SeenEnoughMethod {
    /// Independent samples, k = 1.
    Iid,
    /// ivy's fixed factor k = 2.
    Ivy,
    /// k from the window's lag-1 autocorrelation.
    Ar1,
}

/// Stop rule: the measurement has seen enough once the confidence interval of the focus metric's
/// mean over a trailing window is within ±accuracy of the mean.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SeenEnoughSpec {
    /// Required relative half-width, in (0, 1), e.g. 0.05 for ±5%.
    pub accuracy: f64,
    /// Confidence level, in (0, 1), e.g. 0.95.
    pub confidence: f64,
    /// Shortest window considered (at least 2).
    pub min_samples: usize,
    /// Correction for correlated subintervals.
    pub method: SeenEnoughMethod,
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
}

/// Default of `--spin-us` (see `iogen/README.md`, "Waiting for an arrival").
pub const DEFAULT_SPIN_US: u64 = 50;

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

    /// Whether the workload writes at all.
    pub fn writes(&self) -> bool {
        self.read_pct < 100.0
    }

    /// Set one option from its long name (dashes or underscores) and a text value, as a plan row
    /// does. Returns `Ok(false)` when the name is not an option that can vary per step
    /// (see [`STEP_OPTIONS`]).
    pub fn apply(&mut self, name: &str, value: &str) -> Result<bool, OptionError> {
        let key = normalize_name(name);
        let opt = key.replace('_', "-");
        let err = |p: String| OptionError::invalid(&opt, p);
        match key.as_str() {
            "size" => self.size = Some(parse_size(value).map_err(err)?),
            "block_size" | "bs" => self.block_size = parse_size(value).map_err(err)?,
            "read_pct" => self.read_pct = parse_pct(value).map_err(err)?,
            "random_pct" => self.random_pct = parse_pct(value).map_err(err)?,
            "iops" => self.iops = parse_iops(value).map_err(err)?,
            "queue_depth" | "iodepth" => {
                self.queue_depth = value.trim().parse().map_err(|_| err(format!("'{value}' is not a whole number")))?
            }
            "arrivals" => self.arrivals = parse_enum(value).map_err(err)?,
            "engine" => self.engine = parse_enum(value).map_err(err)?,
            "warmup" => self.warmup = parse_duration(value).map_err(err)?,
            "duration" => self.duration = parse_duration(value).map_err(err)?,
            "subinterval" => self.subinterval = parse_duration(value).map_err(err)?,
            "max_duration" => self.max_duration = Some(parse_duration(value).map_err(err)?),
            "focus" => self.focus = parse_enum(value).map_err(err)?,
            "seed" => self.seed = value.trim().parse().map_err(|_| err(format!("'{value}' is not a whole number")))?,
            "direct" => self.io_mode = if parse_bool(value).map_err(err)? { IoMode::Direct } else { IoMode::Buffered },
            "seen_enough" => {
                let v = value.trim();
                if v.is_empty() || v.eq_ignore_ascii_case("off") {
                    self.seen_enough = None;
                } else {
                    let (accuracy, confidence) = parse_seen_enough(v).map_err(err)?;
                    let prev = self.seen_enough.unwrap_or(SeenEnoughSpec {
                        accuracy,
                        confidence,
                        min_samples: 5,
                        method: SeenEnoughMethod::Ar1,
                    });
                    self.seen_enough = Some(SeenEnoughSpec { accuracy, confidence, ..prev });
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}

fn check_pct(option: &str, v: f64) -> Result<(), OptionError> {
    if v.is_finite() && (0.0..=100.0).contains(&v) {
        Ok(())
    } else {
        Err(OptionError::invalid(option, format!("{v} is outside 0–100")))
    }
}

/// Options a plan column may set per step (names as in plan files; dashes also accepted).
pub const STEP_OPTIONS: [&str; 18] = [
    "size",
    "block_size",
    "bs",
    "read_pct",
    "random_pct",
    "iops",
    "queue_depth",
    "iodepth",
    "arrivals",
    "engine",
    "warmup",
    "duration",
    "subinterval",
    "max_duration",
    "focus",
    "seed",
    "direct",
    "seen_enough",
];

/// Options that hold for the whole run and cannot be plan columns.
pub const RUN_OPTIONS: [&str; 10] = [
    "target",
    "csv",
    "summary",
    "json",
    "host",
    "label",
    "allow_overwrite",
    "start_at",
    "seen_enough_method",
    "spin_us",
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

/// Parse `max` or a positive IOPS rate.
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
    Ok(Iops::Rate(v))
}

/// Parse `accuracy@confidence`, each as a percentage (`5%@95%`) or a fraction (`0.05@0.95`).
pub fn parse_seen_enough(s: &str) -> Result<(f64, f64), String> {
    let (a, c) = s.split_once('@').unwrap_or((s, "95%"));
    let frac = |x: &str| -> Result<f64, String> {
        let x = x.trim();
        let v = if let Some(p) = x.strip_suffix('%') {
            p.trim().parse::<f64>().map(|v| v / 100.0)
        } else {
            x.parse::<f64>()
        }
        .map_err(|_| format!("'{s}' is not ACCURACY@CONFIDENCE (example: 5%@95%)"))?;
        if v > 0.0 && v < 1.0 {
            Ok(v)
        } else {
            Err(format!("'{x}' in '{s}' must be between 0% and 100% (exclusive)"))
        }
    };
    Ok((frac(a)?, frac(c)?))
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
    fn durations_and_rates() {
        assert_eq!(parse_duration("5s"), Ok(Duration::from_secs(5)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("3"), Ok(Duration::from_secs(3)));
        assert!(parse_duration("5 parsecs").is_err());
        assert_eq!(parse_iops("MAX"), Ok(Iops::Max));
        assert_eq!(parse_iops("5000"), Ok(Iops::Rate(5000.0)));
        assert!(parse_iops("0").is_err());
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
        let e = o.apply("queue_depth", "deep").unwrap_err();
        assert!(e.to_string().starts_with("--queue-depth:"), "{e}");
        let e = o.apply("arrivals", "bursty").unwrap_err();
        assert!(e.to_string().contains("poisson"), "{e}");
    }
}
