//! "Seen enough & stop": the same rule as the `SEEN_ENOUGH` worksheet function
//! (`src/core/seen-enough.ts`, `docs/functions/SEEN_ENOUGH.md`), checked against the shared
//! vectors in `tests/vectors/seen_enough.json` so the two implementations cannot drift; and the
//! `--seen-enough` specification ([`SeenEnoughSpec`], its parser and defaults), which belongs with
//! its rule (the options module only holds one).
//!
//! Default, transient [`Transient::Detect`]: W = max(90, min_samples) is the shortest steady-state
//! window; MSER-5 ([`mser_truncation`]) proposes how many leading samples D are warm-up, kept only
//! when their mean differs from the rest's by more than 2 long-run standard errors
//! ([`significant_truncation`]); with 2D > n or fewer than W samples left, not seen enough (run
//! longer); else the retained window y must have no trend (least-squares slope over its
//! AR(1)-corrected standard error, |t| ≤ 1.5, [`trend_t`]) and meet h + 2·|m − m₂|/|m| ≤ accuracy
//! (m its mean, m₂ the mean of its second half); and the first n − ⌈n/10⌉ and n − 2⌈n/10⌉ samples
//! must have looked steady too (the same start, the trend where at least W samples are retained, the
//! drift allowance added to today's h). The answer is the retained window, from D + 1; when it is not
//! seen enough, [`SeenEnough::why_not`] names the first of these checks that refused, with its figure
//! and limit. See `docs/seen-enough.md` for why.
//!
//! [`Transient::Off`]: candidate windows all end at the last sample and are tried shortest first,
//! lengths `Lmin ..= n` with `Lmin = max(2, min_samples)` for `iid`/`ivy` and `max(30, min_samples)`
//! for `ar1`; the first passing window is the answer; if none passes, the window with the smallest h
//! (shortest on a tie); with fewer than Lmin samples, the whole series, not seen enough.
//!
//! Both: a window of length L, mean m and sample standard deviation s (divisor L − 1) has
//! `h = k · t(1 − (1 − confidence)/2; L − 1) · s / √L / |m|`,
//! k: `iid` 1; `ivy` 2 (with the correct L − 1 degrees of freedom, unlike ivy's own lookup);
//! `ar1`: ρ̂ = clip(r + (1 + 4r)/n + 1.5·√((1 − r²)/n), 0, 0.95) from the lag-1 autocorrelation r
//! of the n samples judged (all of them with `Off`, the retained window with `Detect`),
//! `k = √((1 + 2A)/(1 − 2A/(L − 1)))`, `A = Σ_{j=1}^{L−1} (1 − j/L) ρ̂^j`.
//! Values are first divided by a power of two near the largest |value| (exact), so 1e-200 or 1e300
//! are judged like values near 1.
//! With `Off` the window grows one sample at a time from the end: mean and Σ(x − m)² by Welford's
//! (West's) one-sample update, and for `ar1` `A = S1 − S2/L` with `S1 = Σ ρ̂^j`, `S2 = Σ j·ρ̂^j`
//! extended by one term; these agree with the two-pass definition to ~1e-13 relative (tested below).
//! Cost O(n) time per call either way.

use statrs::distribution::{ContinuousCDF, StudentsT};
use thiserror::Error;

/// How the seen-enough rule corrects for correlated subintervals (see `docs/functions/SEEN_ENOUGH.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SeenEnoughMethod {
    /// Independent samples, k = 1.
    Iid,
    /// ivy's fixed factor k = 2.
    Ivy,
    /// k from an AR(1) fit of the samples judged.
    Ar1,
}

/// Whether the rule first finds where steady state begins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Transient {
    /// Find the warm-up first (MSER-5), then require no trend and the accuracy on what follows.
    Detect,
    /// Precision alone on windows ending at the last sample (the rule without a transient check).
    Off,
}

/// Stop rule: the measurement has seen enough once steady state has begun and the confidence
/// interval of the focus metric's mean over it is within ±accuracy of the mean.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SeenEnoughSpec {
    /// Required relative half-width, in (0, 1), e.g. 0.05 for ±5%.
    pub accuracy: f64,
    /// Confidence level, in (0, 1), e.g. 0.95.
    pub confidence: f64,
    /// With `Detect`: raises the shortest steady-state window above 90; with `Off`: the shortest
    /// window considered.
    pub min_samples: usize,
    /// Correction for correlated subintervals.
    pub method: SeenEnoughMethod,
    /// Transient check.
    pub transient: Transient,
}

impl SeenEnoughSpec {
    /// Apply the rule to `samples` (oldest first), the subinterval length unknown (a floor in samples).
    pub fn judge(&self, samples: &[f64]) -> Result<SeenEnough, SeenEnoughError> {
        self.judge_timed(samples, None)
    }

    /// Apply the rule to `samples` (oldest first) taken every `subinterval_s` seconds: with `Detect`
    /// the shortest steady-state window is then the longer of 90 samples (or `min_samples`) and
    /// [`STEADY_MIN_SECONDS`] seconds.
    pub fn judge_timed(&self, samples: &[f64], subinterval_s: Option<f64>) -> Result<SeenEnough, SeenEnoughError> {
        seen_enough_timed(
            samples,
            self.accuracy,
            self.confidence,
            self.min_samples,
            self.method,
            self.transient,
            subinterval_s,
        )
    }
}

/// Default accuracy (relative half-width, ±5 %): Hitachi ivy's measure=on default. The defaults
/// are shared with the `SEEN_ENOUGH` worksheet function (`SEEN_ENOUGH_DEFAULTS`,
/// `STEADY_STATE_TUNING`); a test holds both to `tests/vectors/seen_enough_defaults.json`.
pub const DEFAULT_ACCURACY: f64 = 0.05;
/// Default two-sided confidence level (95 %).
pub const DEFAULT_CONFIDENCE: f64 = 0.95;
/// Default `min_samples`.
pub const DEFAULT_MIN_SAMPLES: usize = 5;
/// Default method: the AR(1) correction.
pub const DEFAULT_METHOD: SeenEnoughMethod = SeenEnoughMethod::Ar1;
/// Default transient check: on.
pub const DEFAULT_TRANSIENT: Transient = Transient::Detect;
/// Shortest steady-state window of `Detect` (samples), chosen by the Monte Carlo study
/// (`bench/seen-enough.ts`): a level that ends after 80 samples looks steady until then.
pub const STEADY_MIN_WINDOW: usize = 90;
/// MSER batch size (MSER-5).
pub const MSER_BATCH: usize = 5;
/// Largest |t| of the retained window's trend that counts as no trend.
pub const STEADY_TREND_T_LIMIT: f64 = 1.5;
/// Weight of the drift allowance 2·|m − m₂|/|m| added to h.
pub const STEADY_DRIFT_WEIGHT: f64 = 2.0;
/// Look back of `Detect`: a pass at n samples also needs the first n − j·⌈n·f⌉ samples to have looked
/// steady, j = 1 ..= [`STEADY_RECHECK_POINTS`]. The rule is asked after every subinterval, so
/// without it the first subinterval in which noise hides a drift would end the step.
pub const STEADY_RECHECK_FRACTION: f64 = 0.1;
/// Number of look-back points (n − ⌈n/10⌉ and n − 2⌈n/10⌉).
pub const STEADY_RECHECK_POINTS: usize = 2;
/// MSER-5's truncation is kept only when the dropped samples' mean differs from the kept samples'
/// by more than this many long-run standard errors: on steady noise MSER-5 drops a few batches of
/// 44 % of 90-sample series, which then cannot stop.
pub const STEADY_TRUNCATION_Z: f64 = 2.0;

/// Seconds of the shortest steady-state window when the subinterval length is known: 90 s, the
/// 90-sample floor at iogen's default 1-s subinterval, so a run sampled every 100 ms waits as long as
/// one sampled every second (`docs/seen-enough.md`, "A floor in time").
pub const STEADY_MIN_SECONDS: f64 = 90.0;
/// Trend limit at the first stopping chance (the floor W), rising linearly to 1.5 at
/// (1 + [`FIRST_CHANCE_RAMP`])·W: with 1.5 from the start 75 % of steady series stopped at the floor,
/// where a median stop there needs just over half.
pub const FIRST_CHANCE_TREND_T: f64 = 0.8;
/// Fraction of the floor over which the trend limit rises from [`FIRST_CHANCE_TREND_T`] to 1.5.
pub const FIRST_CHANCE_RAMP: f64 = 0.2;
/// The least-squares level at the last sample is reported when the window's |t| is at least this
/// (0: whenever a trend can be fitted); the window mean otherwise.
pub const LEVEL_TREND_T: f64 = 0.0;

/// The rule when only `ACCURACY@CONFIDENCE` is given (window, method, transient check), and the
/// reference the step summary reports when the rule is off.
pub const DEFAULT_SEEN_ENOUGH: SeenEnoughSpec = SeenEnoughSpec {
    accuracy: DEFAULT_ACCURACY,
    confidence: DEFAULT_CONFIDENCE,
    min_samples: DEFAULT_MIN_SAMPLES,
    method: DEFAULT_METHOD,
    transient: DEFAULT_TRANSIENT,
};

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

/// Upper clip of the AR(1) coefficient estimate.
pub const AR1_MAX_RHO: f64 = 0.95;
/// Shortest window the `ar1` method accepts.
pub const AR1_MIN_WINDOW: usize = 30;

/// Outcome of the rule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SeenEnough {
    /// A window passed.
    pub seen_enough: bool,
    /// 1-based index of the window's first sample.
    pub from: usize,
    /// Window length.
    pub samples: usize,
    /// Window mean (unit of the samples).
    pub mean: f64,
    /// The window's relative half-width h (a fraction).
    pub achieved: f64,
    /// The accuracy asked for (a fraction).
    pub required: f64,
    /// What set the shortest steady-state window.
    pub bound_by: BoundBy,
    /// The shortest steady-state window, in samples (`Off`: the shortest window tried).
    pub min_window: usize,
    /// Earliest 1-based sample where steady state may have begun ([`warmup_interval`]).
    pub from_low: usize,
    /// Latest 1-based sample where steady state may have begun.
    pub from_high: usize,
    /// The level to report (unit of the samples): the window mean or the least-squares level at the
    /// last sample ([`trend_end_level`]).
    pub level: f64,
    /// Relative half-width of `level`.
    pub level_achieved: f64,
    /// Which level `level` is.
    pub level_kind: LevelKind,
    /// Non-stationarity warnings.
    pub warnings: Warnings,
    /// Why the answer is not seen enough; `None` when it is.
    pub why_not: Option<WhyNot>,
}

/// The check that refused an answer that is not seen enough (`docs/functions/SEEN_ENOUGH.md`, "Why not").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Fewer samples than the shortest window (value n; limit W, or Lmin with `Off`).
    TooFewSamples,
    /// The start found lies past the middle of the series (value D; limit n/2).
    WarmupNotOver,
    /// Fewer than W samples after the warm-up (value L; limit W).
    WindowTooShort,
    /// The retained window's trend |t| over the limit (value t, signed; limit c(n)).
    LevelMoving,
    /// h + 2·|m − m₂|/|m| over the accuracy (value that sum, `Off`: the smallest h; limit the accuracy).
    NotPreciseEnough,
}

impl Refusal {
    /// The name the shared vectors and the worksheet function use.
    pub fn name(self) -> &'static str {
        match self {
            Refusal::TooFewSamples => "too few samples",
            Refusal::WarmupNotOver => "warm-up not over",
            Refusal::WindowTooShort => "window too short",
            Refusal::LevelMoving => "level moving",
            Refusal::NotPreciseEnough => "not precise enough",
        }
    }
}

/// Why the answer is not seen enough: the first check, in the rule's order, that refused.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WhyNot {
    /// Which check.
    pub refusal: Refusal,
    /// The figure it judged (samples, t, or a fraction).
    pub value: f64,
    /// The limit that figure had to meet.
    pub limit: f64,
    /// Samples judged when it refused: n, or n′ = n − j⌈n/10⌉ when the look back refused.
    pub at: usize,
}

fn why_not(refusal: Refusal, value: f64, limit: f64, at: usize) -> Option<WhyNot> {
    Some(WhyNot { refusal, value, limit, at })
}

/// x to 3 significant digits, shortest form (7.24, 1.5); "∞" / "−∞" for a noiseless trend's t.
fn sig3(x: f64) -> String {
    if !x.is_finite() {
        return if x > 0.0 { "∞".into() } else { "−∞".into() };
    }
    let rounded: f64 = format!("{x:.2e}").parse().expect("a formatted number parses");
    format!("{rounded}")
}

/// A fraction as a percentage to 2 significant digits: 0.061 → "6.1 %".
fn percent(x: f64) -> String {
    let rounded: f64 = format!("{:.1e}", x * 100.0).parse().expect("a formatted number parses");
    format!("{rounded} %")
}

impl SeenEnough {
    /// Why the answer is not seen enough, in the words of the worksheet function and the lab
    /// (`seenEnoughWhyNotText` in `src/core/seen-enough-report.ts`); `None` when it is.
    pub fn why_not_text(&self) -> Option<String> {
        let why = self.why_not?;
        let n = self.from - 1 + self.samples;
        let floor = match self.bound_by {
            BoundBy::Seconds => format!("{} ({STEADY_MIN_SECONDS} s)", why.limit),
            BoundBy::Samples => format!("{}", why.limit),
        };
        let look_back = format!("the first {} of the {n} samples, which must also look steady (the look back)", why.at);
        let earlier = if why.at < n { format!(" on {look_back}") } else { String::new() };
        Some(match why.refusal {
            Refusal::TooFewSamples => format!("too few samples: {} so far, the shortest window is {floor}", why.value),
            Refusal::WarmupNotOver => format!(
                "warm-up not over: steady state would begin at sample {}, past the middle of {}",
                why.value + 1.0,
                if why.at < n { look_back } else { format!("the {n} samples") }
            ),
            Refusal::WindowTooShort => {
                format!("window too short: {} samples after the warm-up, the shortest window is {floor}", why.value)
            }
            Refusal::LevelMoving => format!(
                "level moving: the level is still {} (trend t = {} against a limit of {}){earlier}",
                if why.value > 0.0 { "rising" } else { "falling" },
                sig3(why.value),
                sig3(why.limit)
            ),
            Refusal::NotPreciseEnough => {
                let drift = why.value - self.achieved;
                let parts = if drift > 0.0 {
                    format!(" (±{} from the noise + {} for drift)", percent(self.achieved), percent(drift))
                } else {
                    String::new()
                };
                format!(
                    "not precise enough yet: ±{}{parts} against ±{} asked{earlier}",
                    percent(why.value),
                    percent(why.limit)
                )
            }
        })
    }
}

/// What set the shortest steady-state window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoundBy {
    /// max(90, min_samples) samples.
    Samples,
    /// [`STEADY_MIN_SECONDS`] over the subinterval length.
    Seconds,
}

/// Which level the rule reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LevelKind {
    /// The window mean.
    Mean,
    /// The least-squares level at the last sample.
    TrendEnd,
}

/// Why the data may not be steady, whatever the verdict (`docs/functions/SEEN_ENOUGH.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Warnings {
    /// Where steady state begins moved later by at least ⌈n/10⌉ samples over the last 2⌈n/10⌉.
    pub cut_moving: bool,
    /// The noise of the retained window's halves differs by more than 4× in variance.
    pub variance_changing: bool,
    /// The ⌈L/50⌉ samples farthest from the median hold over half the squared deviations.
    pub bursts: bool,
}

impl Warnings {
    /// The warnings in the words the worksheet function and the lab use, in a fixed order.
    pub fn texts(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        if self.cut_moving {
            out.push("the warm-up end keeps moving later as data arrive");
        }
        if self.variance_changing {
            out.push("the noise changes over the steady-state window (its halves differ more than 2× in SD)");
        }
        if self.bursts {
            out.push("a few bursts dominate the variation");
        }
        out
    }

    /// Short names (`cut moving`, `variance changing`, `bursts`), as the shared vectors spell them.
    pub fn names(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        if self.cut_moving {
            out.push("cut moving");
        }
        if self.variance_changing {
            out.push("variance changing");
        }
        if self.bursts {
            out.push("bursts");
        }
        out
    }

    /// True when any warning is set.
    pub fn any(&self) -> bool {
        self.cut_moving || self.variance_changing || self.bursts
    }
}

/// Inputs the rule cannot judge. Messages name the argument like the worksheet function does.
#[derive(Debug, Error, PartialEq)]
pub enum SeenEnoughError {
    /// A bad argument.
    #[error("{argument}: {problem}")]
    Invalid {
        /// `samples`, `accuracy`, `confidence` or `min_samples`.
        argument: &'static str,
        /// What is wrong.
        problem: String,
    },
}

fn invalid(argument: &'static str, problem: impl Into<String>) -> SeenEnoughError {
    SeenEnoughError::Invalid { argument, problem: problem.into() }
}

/// Student's t quantile t(p; df) from statrs (agrees with @stdlib's, used by the worksheet
/// function, to ~1e-15).
pub fn t_quantile(p: f64, df: f64) -> f64 {
    StudentsT::new(0.0, 1.0, df).expect("df > 0").inverse_cdf(p)
}

/// Lag-1 sample autocorrelation, two-pass: Σ(x_i − m)(x_{i+1} − m) / Σ(x_i − m)²; 0 when the
/// values do not vary.
pub fn lag1_autocorrelation(x: &[f64]) -> f64 {
    let mean = x.iter().sum::<f64>() / x.len() as f64;
    let mut den = 0.0;
    let mut num = 0.0;
    for i in 0..x.len() {
        let d = x[i] - mean;
        den += d * d;
        if i + 1 < x.len() {
            num += d * (x[i + 1] - mean);
        }
    }
    if den > 0.0 {
        num / den
    } else {
        0.0
    }
}

/// How many standard errors of r the `ar1` method adds to its bias-corrected ρ̂.
pub const AR1_RHO_Z: f64 = 1.5;

/// ρ̂ = clip(r + (1 + 4r)/n + 1.5·√((1 − r²)/n), 0, 0.95): r corrected for its first-order bias
/// plus 1.5 standard errors (an upper bound, since the rule stops when data look least correlated).
pub fn ar1_rho(r: f64, n: usize) -> f64 {
    let n = n as f64;
    let rho = r + (1.0 + 4.0 * r) / n + AR1_RHO_Z * ((1.0 - r * r).max(0.0) / n).sqrt();
    if rho.is_nan() || rho <= 0.0 {
        0.0
    } else {
        rho.min(AR1_MAX_RHO)
    }
}

/// Inflation factor k of a window of `length` samples from an AR(1) process with coefficient `rho`.
pub fn ar1_inflation(rho: f64, length: usize) -> f64 {
    let mut a = 0.0;
    let mut p = 1.0;
    for j in 1..length {
        p *= rho;
        a += (1.0 - j as f64 / length as f64) * p;
    }
    ((1.0 + 2.0 * a) / (1.0 - 2.0 * a / (length as f64 - 1.0))).sqrt()
}

/// Shortest window for the method.
pub fn shortest_window(method: SeenEnoughMethod, min_samples: usize) -> usize {
    let floor = if method == SeenEnoughMethod::Ar1 { AR1_MIN_WINDOW } else { 2 };
    floor.max(min_samples)
}

/// Mean and relative half-width h of `w` (h = +∞ when the mean is 0).
fn half_width(w: &[f64], confidence: f64, method: SeenEnoughMethod, rho: f64) -> (f64, f64) {
    let len = w.len();
    let mean = w.iter().sum::<f64>() / len as f64;
    let ss: f64 = w.iter().map(|v| (v - mean) * (v - mean)).sum();
    if mean == 0.0 {
        return (mean, f64::INFINITY);
    }
    let s = (ss / (len as f64 - 1.0)).sqrt();
    let k = match method {
        SeenEnoughMethod::Iid => 1.0,
        SeenEnoughMethod::Ivy => 2.0,
        SeenEnoughMethod::Ar1 => ar1_inflation(rho, len),
    };
    let h = k * t_quantile(1.0 - (1.0 - confidence) / 2.0, len as f64 - 1.0) * s / (len as f64).sqrt() / mean.abs();
    (mean, h)
}

/// Relative half-width h of a window of `len` ≥ 2 samples from its running statistics: `sum` (plain
/// sum; exactly 0 means the mean is 0), `mean` (Welford), `m2` = Σ(x − mean)² and, for `ar1`,
/// `a` = A = Σ_{j=1}^{L−1} (1 − j/L) ρ̂^j. h = +∞ when the mean is 0. O(1).
fn running_half_width(
    len: usize,
    sum: f64,
    mean: f64,
    m2: f64,
    confidence: f64,
    method: SeenEnoughMethod,
    a: f64,
) -> f64 {
    if sum == 0.0 || mean == 0.0 {
        return f64::INFINITY;
    }
    let s = (m2 / (len as f64 - 1.0)).sqrt();
    let k = match method {
        SeenEnoughMethod::Iid => 1.0,
        SeenEnoughMethod::Ivy => 2.0,
        SeenEnoughMethod::Ar1 => ((1.0 + 2.0 * a) / (1.0 - 2.0 * a / (len as f64 - 1.0))).sqrt(),
    };
    k * t_quantile(1.0 - (1.0 - confidence) / 2.0, len as f64 - 1.0) * s / (len as f64).sqrt() / mean.abs()
}

/// Apply the rule to `samples` (oldest first), the subinterval length unknown. Errors name the argument.
pub fn seen_enough(
    samples: &[f64],
    accuracy: f64,
    confidence: f64,
    min_samples: usize,
    method: SeenEnoughMethod,
    transient: Transient,
) -> Result<SeenEnough, SeenEnoughError> {
    seen_enough_timed(samples, accuracy, confidence, min_samples, method, transient, None)
}

/// Apply the rule to `samples` (oldest first) taken every `subinterval_s` seconds when known.
pub fn seen_enough_timed(
    samples: &[f64],
    accuracy: f64,
    confidence: f64,
    min_samples: usize,
    method: SeenEnoughMethod,
    transient: Transient,
    subinterval_s: Option<f64>,
) -> Result<SeenEnough, SeenEnoughError> {
    if let Some(dt) = subinterval_s {
        if !(dt.is_finite() && dt > 0.0) {
            return Err(invalid(
                "subinterval_s",
                format!("must be the length of one subinterval in seconds, > 0, got {dt}"),
            ));
        }
    }
    if !(accuracy.is_finite() && accuracy > 0.0 && accuracy < 1.0) {
        return Err(invalid("accuracy", format!("must be a fraction in (0, 1) (0.05 = ±5%), got {accuracy}")));
    }
    if !(confidence > 0.0 && confidence < 1.0) {
        return Err(invalid("confidence", format!("must be in (0, 1) (0.95 = 95%), got {confidence}")));
    }
    if min_samples < 1 {
        return Err(invalid("min_samples", "must be a whole number ≥ 1"));
    }
    if let Some(i) = samples.iter().position(|v| !v.is_finite()) {
        return Err(invalid("samples", format!("value {} is not a finite number ({})", i + 1, samples[i])));
    }
    let n = samples.len();
    if n < 2 {
        return Err(invalid("samples", format!("need at least 2 values, got {n}")));
    }
    let scale = power_of_two_scale(samples);
    let scaled: Vec<f64>;
    let x = if scale == 1.0 {
        samples
    } else {
        scaled = samples.iter().map(|v| v / scale).collect();
        &scaled
    };
    let mut r = match transient {
        Transient::Off => precision_rule(x, accuracy, confidence, min_samples, method)?,
        Transient::Detect => {
            let floor = steady_floor(min_samples, subinterval_s);
            steady_state_rule(x, accuracy, confidence, floor, method)?
        }
    };
    r.mean *= scale;
    r.level *= scale;
    Ok(r)
}

/// A power of two near the largest |x| (1 when all are 0): dividing by it is exact, and the squares
/// of the scaled values neither underflow (1e-200) nor overflow (1e300).
pub fn power_of_two_scale(x: &[f64]) -> f64 {
    let max = x.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    if max == 0.0 {
        return 1.0;
    }
    let e = max.log2().floor().clamp(-1074.0, 1023.0) as i32;
    2.0_f64.powi(e)
}

/// MSER-5 truncation point of `x` (White 1997; Spratt 1998): batch means Z_1..Z_k of 5 samples
/// (k = ⌊n/5⌋), `MSER(d) = Σ_{j>d}(Z_j − Z̄_d)²/(k − d)²` for d = 0 ..= k − 1 − e with
/// e = max(1, min(5, ⌊k/4⌋)) (no start among the last e batches); returns 5·d* for the smallest
/// minimiser d*, 0 with fewer than 2 batches. O(n), suffix statistics by Welford's update.
pub fn mser_truncation(x: &[f64]) -> usize {
    let k = x.len() / MSER_BATCH;
    if k < 2 {
        return 0;
    }
    let z: Vec<f64> =
        (0..k).map(|j| x[j * MSER_BATCH..(j + 1) * MSER_BATCH].iter().sum::<f64>() / MSER_BATCH as f64).collect();
    let trim = (k / 4).clamp(1, 5);
    let (mut mean, mut m2) = (0.0, 0.0);
    let (mut best, mut best_d) = (f64::INFINITY, 0);
    for d in (0..k).rev() {
        let count = (k - d) as f64;
        let delta = z[d] - mean;
        mean += delta / count;
        m2 += delta * (z[d] - mean);
        if d + trim < k {
            let mser = m2 / (count * count);
            if mser <= best {
                best = mser;
                best_d = d;
            }
        }
    }
    best_d * MSER_BATCH
}

/// MSER-5's truncation `d` of `x` kept only when significant: |x̄[..d] − x̄[d..]| >
/// z·√(c²·s²·(1/d + 1/L)), L = n − d, s² the kept samples' variance (divisor L − 1), c² as in
/// [`trend_t`] but from the kept samples' own lag-1 autocorrelation; otherwise 0.
pub fn significant_truncation(x: &[f64], d: usize, method: SeenEnoughMethod, z: f64) -> usize {
    if d == 0 || z <= 0.0 {
        return d;
    }
    let kept = &x[d..];
    let len = kept.len() as f64;
    let dropped_mean = x[..d].iter().sum::<f64>() / d as f64;
    let kept_mean = kept.iter().sum::<f64>() / len;
    let ss: f64 = kept.iter().map(|v| (v - kept_mean) * (v - kept_mean)).sum();
    let c2 = long_run_factor(method, len, || lag1_autocorrelation(kept));
    let se = (c2 * ss / (len - 1.0) * (1.0 / d as f64 + 1.0 / len)).sqrt();
    if (dropped_mean - kept_mean).abs() > z * se {
        d
    } else {
        0
    }
}

/// Where `Detect` judges steady state to begin in `x`: MSER-5, kept if significant.
fn steady_start(x: &[f64], method: SeenEnoughMethod) -> usize {
    significant_truncation(x, mser_truncation(x), method, STEADY_TRUNCATION_Z)
}

/// Long-run variance factor c² of a window's noise for the trend and truncation tests: 1 (`iid`),
/// 4 (`ivy`), (1 + ρ)/(1 − ρ) (`ar1`, ρ = clip(r + (1 + 4r)/L, 0, 0.95) from the lag-1
/// autocorrelation r, which `lag1` computes only for `ar1`).
fn long_run_factor(method: SeenEnoughMethod, len: f64, lag1: impl FnOnce() -> f64) -> f64 {
    match method {
        SeenEnoughMethod::Iid => 1.0,
        SeenEnoughMethod::Ivy => 4.0,
        SeenEnoughMethod::Ar1 => {
            let r = lag1();
            let rho = (r + (1.0 + 4.0 * r) / len).clamp(0.0, AR1_MAX_RHO);
            (1.0 + rho) / (1.0 - rho)
        }
    }
}

/// The drift allowance 2·|m − m₂|/|m| of window `w` with mean m (≠ 0), m₂ the mean of its last
/// ⌊L/2⌋ samples; 0 for one sample.
fn drift_allowance(w: &[f64], mean: f64) -> f64 {
    let half = w.len() / 2;
    if half == 0 {
        return 0.0;
    }
    let m2 = w[w.len() - half..].iter().sum::<f64>() / half as f64;
    STEADY_DRIFT_WEIGHT * (mean - m2).abs() / mean.abs()
}

/// A least-squares line over the index of `y`, centred: its length, mean, centre (L − 1)/2, Sxx,
/// slope, residual sum of squares and the residuals' lag-1 cross sum.
struct LineFit {
    len: f64,
    mean: f64,
    centre: f64,
    sxx: f64,
    b: f64,
    sse: f64,
    lag: f64,
}

fn line_fit(y: &[f64]) -> LineFit {
    let len = y.len() as f64;
    let mean = y.iter().sum::<f64>() / len;
    let centre = (len - 1.0) / 2.0;
    let sxy: f64 = y.iter().enumerate().map(|(i, v)| (i as f64 - centre) * (v - mean)).sum();
    let sxx = len * (len * len - 1.0) / 12.0;
    let b = sxy / sxx;
    let (mut sse, mut lag, mut prev) = (0.0, 0.0, 0.0);
    for (i, v) in y.iter().enumerate() {
        let e = v - mean - b * (i as f64 - centre);
        sse += e * e;
        if i > 0 {
            lag += prev * e;
        }
        prev = e;
    }
    LineFit { len, mean, centre, sxx, b, sse, lag }
}

/// Trend statistic of `y` (length ≥ 3): least-squares slope b on the index over its standard error,
/// `SE² = c²·s_e²·12/(L(L² − 1))`, s_e² the residual variance (divisor L − 2), c² = 1 (`iid`),
/// 4 (`ivy`) or (1 + ρ)/(1 − ρ) (`ar1`, ρ = clip(r_e + (1 + 4r_e)/L, 0, 0.95) from the residuals'
/// lag-1 autocorrelation). 0 for a flat noiseless window, ±∞ for a noiseless slope.
pub fn trend_t(y: &[f64], method: SeenEnoughMethod) -> f64 {
    let LineFit { len, sxx, b, sse, lag, .. } = line_fit(y);
    let k2 = long_run_factor(method, len, || if sse > 0.0 { lag / sse } else { 0.0 });
    let se = (k2 * sse / (len - 2.0) / sxx).sqrt();
    if se > 0.0 {
        b / se
    } else if b == 0.0 {
        0.0
    } else {
        b.signum() * f64::INFINITY
    }
}

/// The shortest steady-state window and what set it: max(90, min_samples, 3) samples, or
/// ⌈T/subinterval_s − 1e-9⌉ when that is longer (T = [`STEADY_MIN_SECONDS`]; the 1e-9 keeps 90 s of
/// 0.3-s subintervals at 300 samples).
pub fn steady_floor(min_samples: usize, subinterval_s: Option<f64>) -> (usize, BoundBy) {
    let by_samples = STEADY_MIN_WINDOW.max(min_samples).max(3);
    match subinterval_s {
        Some(dt) => {
            let by_seconds = (STEADY_MIN_SECONDS / dt - 1e-9).ceil();
            if by_seconds > by_samples as f64 {
                (by_seconds as usize, BoundBy::Seconds)
            } else {
                (by_samples, BoundBy::Samples)
            }
        }
        None => (by_samples, BoundBy::Samples),
    }
}

/// The trend limit at n samples: [`FIRST_CHANCE_TREND_T`] at the floor, rising linearly to 1.5 over
/// [`FIRST_CHANCE_RAMP`] of the floor.
pub fn trend_limit_at(n: usize, window_min: usize) -> f64 {
    let over = (n as f64 - window_min as f64) / (FIRST_CHANCE_RAMP * window_min as f64);
    let rise = (STEADY_TREND_T_LIMIT - FIRST_CHANCE_TREND_T) * over.max(0.0);
    STEADY_TREND_T_LIMIT.min(FIRST_CHANCE_TREND_T + rise)
}

/// The `Detect` rule on checked, scaled samples: steps 1–4, then the look back, then the report.
fn steady_state_rule(
    x: &[f64],
    accuracy: f64,
    confidence: f64,
    floor: (usize, BoundBy),
    method: SeenEnoughMethod,
) -> Result<SeenEnough, SeenEnoughError> {
    let (window_min, _) = floor;
    let n = x.len();
    let (mut answer, limit) = steady_state_steps(x, accuracy, confidence, floor, method)?;
    let d = answer.from - 1;
    (answer.from_low, answer.from_high) = if n - d >= 2 {
        let (low, high) = warmup_interval(x, d, method, STEADY_TRUNCATION_Z);
        (low + 1, high + 1)
    } else {
        (d + 1, d + 1)
    };
    if n >= window_min {
        let d2 = steady_start(&x[..n - 2 * n.div_ceil(10)], method);
        answer.warnings = non_stationarity(x, d, d2);
    }
    if !answer.seen_enough {
        return Ok(answer);
    }
    let step = (n as f64 * STEADY_RECHECK_FRACTION).ceil() as usize;
    for j in 1..=STEADY_RECHECK_POINTS {
        let earlier = looked_steady(&x[..n - j * step], answer.achieved, accuracy, window_min, method, limit);
        if earlier.is_some() {
            // Not yet: the answer stays the window judged at n, reported as not seen enough.
            return Ok(SeenEnough { seen_enough: false, why_not: earlier, ..answer });
        }
    }
    Ok(answer)
}

/// One look-back point: did `x` (the first samples) look steady? Its start as in step 2 (false past
/// the middle); its trend within `limit` when at least `window_min` samples are retained (a shorter
/// window cannot tell a trend from noise); and h + 2·|m − m₂|/|m| ≤ accuracy with the h judged now.
/// `None` when it did, else the check that refused (`at` = the samples judged).
fn looked_steady(
    x: &[f64],
    h: f64,
    accuracy: f64,
    window_min: usize,
    method: SeenEnoughMethod,
    limit: f64,
) -> Option<WhyNot> {
    let end = x.len();
    let d = steady_start(x, method);
    if 2 * d > end {
        return why_not(Refusal::WarmupNotOver, d as f64, end as f64 / 2.0, end);
    }
    let w = &x[d..];
    let t = if w.len() >= window_min { trend_t(w, method) } else { 0.0 };
    if t.abs() > limit {
        return why_not(Refusal::LevelMoving, t, limit, end);
    }
    let mean = w.iter().sum::<f64>() / w.len() as f64;
    let total = if mean == 0.0 { f64::INFINITY } else { h + drift_allowance(w, mean) };
    if total <= accuracy {
        None
    } else {
        why_not(Refusal::NotPreciseEnough, total, accuracy, end)
    }
}

/// Steps 1–4 of the `Detect` rule (the look back is `steady_state_rule`'s) and the level; returns
/// the answer and the trend limit at n.
fn steady_state_steps(
    x: &[f64],
    accuracy: f64,
    confidence: f64,
    (window_min, bound_by): (usize, BoundBy),
    method: SeenEnoughMethod,
) -> Result<(SeenEnough, f64), SeenEnoughError> {
    let n = x.len();
    let limit = trend_limit_at(n, window_min);
    // `refused`: the check of steps 1–3 that refused (`None`: they passed, step 4 judges precision).
    let answer = |refused: Option<WhyNot>, d: usize, trend: Option<f64>| -> Result<SeenEnough, SeenEnoughError> {
        let w = &x[d..];
        let rho = if method == SeenEnoughMethod::Ar1 { ar1_rho(lag1_autocorrelation(w), w.len()) } else { 0.0 };
        let (mean, h) = half_width(w, confidence, method, rho);
        if h.is_infinite() {
            return Err(invalid("samples", "the steady-state window's mean is 0, so no relative accuracy exists"));
        }
        let t = trend.or_else(|| (w.len() >= 3).then(|| trend_t(w, method)));
        let fitted = t.filter(|t| t.abs() >= LEVEL_TREND_T).map(|_| trend_end_level(w, confidence, method));
        let (level, level_achieved, level_kind) = match fitted {
            Some((level, hl)) if hl.is_finite() => (level, hl, LevelKind::TrendEnd),
            _ => (mean, h, LevelKind::Mean),
        };
        let total = h + drift_allowance(w, mean);
        let why = refused.or_else(|| {
            if total <= accuracy {
                None
            } else {
                why_not(Refusal::NotPreciseEnough, total, accuracy, n)
            }
        });
        Ok(SeenEnough {
            seen_enough: why.is_none(),
            from: d + 1,
            samples: w.len(),
            mean,
            achieved: h,
            required: accuracy,
            bound_by,
            min_window: window_min,
            from_low: d + 1,
            from_high: d + 1,
            level,
            level_achieved,
            level_kind,
            warnings: Warnings::default(),
            why_not: why,
        })
    };
    if n < window_min {
        let why = why_not(Refusal::TooFewSamples, n as f64, window_min as f64, n);
        return Ok((answer(why, 0, None)?, limit));
    }
    let d = steady_start(x, method);
    // "Run longer" (White 1997): a start in the second half means no steady tail yet.
    if 2 * d > n {
        return Ok((answer(why_not(Refusal::WarmupNotOver, d as f64, n as f64 / 2.0, n), d, None)?, limit));
    }
    if n - d < window_min {
        let why = why_not(Refusal::WindowTooShort, (n - d) as f64, window_min as f64, n);
        return Ok((answer(why, d, None)?, limit));
    }
    let t = trend_t(&x[d..], method);
    let moving = if t.abs() <= limit { None } else { why_not(Refusal::LevelMoving, t, limit, n) };
    Ok((answer(moving, d, Some(t))?, limit))
}

/// The least-squares level at the last sample of `w` (length ≥ 3) and its relative half-width:
/// ℓ = m + b·(L − 1)/2, h_ℓ = k·t(1 − (1 − confidence)/2; L − 2)·s_e·√(1/L + ((L − 1)/2)²/Sxx)/|ℓ|,
/// s_e the residual SD (divisor L − 2), k = 1 (`iid`), 2 (`ivy`) or the AR(1) factor of the
/// residuals (`ar1`: [`ar1_inflation`] of [`ar1_rho`] of their lag-1 autocorrelation). h_ℓ = +∞ when ℓ = 0.
pub fn trend_end_level(w: &[f64], confidence: f64, method: SeenEnoughMethod) -> (f64, f64) {
    let LineFit { len, mean, centre, sxx, b, sse, lag } = line_fit(w);
    let level = mean + b * centre;
    if level == 0.0 {
        return (level, f64::INFINITY);
    }
    let k = match method {
        SeenEnoughMethod::Iid => 1.0,
        SeenEnoughMethod::Ivy => 2.0,
        SeenEnoughMethod::Ar1 => ar1_inflation(ar1_rho(if sse > 0.0 { lag / sse } else { 0.0 }, w.len()), w.len()),
    };
    let se = (sse / (len - 2.0)).sqrt() * (1.0 / len + centre * centre / sxx).sqrt();
    let t = t_quantile(1.0 - (1.0 - confidence) / 2.0, len - 2.0);
    (level, k * t * se / level.abs())
}

/// Where the warm-up may have ended around the start `d` of `x` (0-based, steps of 5): the earliest
/// b ≤ d whose samples b..d cannot be told from the retained mean, and the latest b > d (b ≤ n − 5)
/// whose samples d..b still differ from those after them, each by the test of
/// [`significant_truncation`] (z standard errors, k²s² of the retained window). O(n).
pub fn warmup_interval(x: &[f64], d: usize, method: SeenEnoughMethod, z: f64) -> (usize, usize) {
    let n = x.len();
    let mut prefix = vec![0.0; n + 1];
    for i in 0..n {
        prefix[i + 1] = prefix[i] + x[i];
    }
    let mean = |a: usize, b: usize| (prefix[b] - prefix[a]) / (b - a) as f64;
    let kept = &x[d..];
    let len = kept.len() as f64;
    let kept_mean = mean(d, n);
    let ss: f64 = kept.iter().map(|v| (v - kept_mean) * (v - kept_mean)).sum();
    let k2s2 = long_run_factor(method, len, || lag1_autocorrelation(kept)) * ss / (len - 1.0);
    let mut low = d;
    let mut b = d;
    while b >= MSER_BATCH {
        b -= MSER_BATCH;
        let se = (k2s2 * (1.0 / (d - b) as f64 + 1.0 / (n - d) as f64)).sqrt();
        if (mean(b, d) - kept_mean).abs() > z * se {
            break;
        }
        low = b;
    }
    let mut high = d;
    let mut b = d + MSER_BATCH;
    while b + MSER_BATCH <= n {
        let se = (k2s2 * (1.0 / (b - d) as f64 + 1.0 / (n - b) as f64)).sqrt();
        if (mean(d, b) - mean(b, n)).abs() <= z * se {
            break;
        }
        high = b;
        b += MSER_BATCH;
    }
    (low, high)
}

/// Relative noise of `w`: mean square successive difference over the mean squared (None: mean 0).
fn relative_noise(w: &[f64]) -> Option<f64> {
    let mean = w.iter().sum::<f64>() / w.len() as f64;
    let ss: f64 = w.windows(2).map(|p| (p[1] - p[0]) * (p[1] - p[0])).sum();
    (mean != 0.0).then(|| ss / (w.len() - 1) as f64 / (mean * mean))
}

/// The non-stationarity warnings of `x` whose retained window starts at `d`, `d2` the start found on
/// the first n − 2⌈n/10⌉ samples.
fn non_stationarity(x: &[f64], d: usize, d2: usize) -> Warnings {
    let n = x.len();
    let w = &x[d..];
    let half = w.len() / 2;
    let variance_changing = half >= 10
        && match (relative_noise(&w[..half]), relative_noise(&w[w.len() - half..])) {
            (Some(a), Some(b)) if !(a == 0.0 && b == 0.0) => a > 4.0 * b || b > 4.0 * a,
            _ => false,
        };
    let bursts = w.len() >= 3 && {
        let mut sorted = w.to_vec();
        sorted.sort_by(f64::total_cmp);
        let l = sorted.len();
        let median = if l % 2 == 1 { sorted[(l - 1) / 2] } else { (sorted[l / 2 - 1] + sorted[l / 2]) / 2.0 };
        let mut squares: Vec<f64> = sorted.iter().map(|v| (v - median) * (v - median)).collect();
        squares.sort_by(|a, b| b.total_cmp(a));
        let total: f64 = squares.iter().sum();
        let top: f64 = squares[..l.div_ceil(50)].iter().sum();
        total > 0.0 && top > 0.5 * total
    };
    Warnings { cut_moving: d > 0 && d >= d2 + n.div_ceil(10), variance_changing, bursts }
}

/// An `Off` answer: the window alone (its mean is the level; no interval, no warnings).
fn window_answer(
    seen_enough: bool,
    start: usize,
    n: usize,
    mean: f64,
    h: f64,
    accuracy: f64,
    lmin: usize,
) -> SeenEnough {
    SeenEnough {
        seen_enough,
        from: start + 1,
        samples: n - start,
        mean,
        achieved: h,
        required: accuracy,
        bound_by: BoundBy::Samples,
        min_window: lmin,
        from_low: start + 1,
        from_high: start + 1,
        level: mean,
        level_achieved: h,
        level_kind: LevelKind::Mean,
        warnings: Warnings::default(),
        why_not: if seen_enough {
            None
        } else if n < lmin {
            why_not(Refusal::TooFewSamples, n as f64, lmin as f64, n)
        } else {
            why_not(Refusal::NotPreciseEnough, h, accuracy, n)
        },
    }
}

/// The `Off` rule (windows ending at the last sample, shortest first) on checked, scaled samples.
fn precision_rule(
    samples: &[f64],
    accuracy: f64,
    confidence: f64,
    min_samples: usize,
    method: SeenEnoughMethod,
) -> Result<SeenEnough, SeenEnoughError> {
    let n = samples.len();
    let rho = if method == SeenEnoughMethod::Ar1 { ar1_rho(lag1_autocorrelation(samples), n) } else { 0.0 };
    let lmin = shortest_window(method, min_samples);
    if n < lmin {
        let (mean, h) = half_width(samples, confidence, method, rho);
        if h.is_infinite() {
            return Err(invalid("samples", "the mean is 0, so no relative accuracy exists"));
        }
        return Ok(window_answer(false, 0, n, mean, h, accuracy, lmin));
    }
    // Grow the window one sample at a time from the end, updating its statistics in O(1) per length.
    let (mut sum, mut mean, mut m2) = (0.0, 0.0, 0.0); // plain sum; Welford mean and Σ(x − mean)²
    let (mut s1, mut s2, mut power) = (0.0, 0.0, 1.0); // ar1: Σ ρ̂^j, Σ j·ρ̂^j (j < L), ρ̂^(L−1)
    let mut best: Option<(usize, f64, f64)> = None;
    for len in 1..=n {
        let start = n - len;
        let x = samples[start];
        sum += x;
        let d = x - mean;
        mean += d / len as f64;
        m2 += d * (x - mean);
        if method == SeenEnoughMethod::Ar1 && len >= 2 {
            power *= rho;
            s1 += power;
            s2 += (len - 1) as f64 * power;
        }
        if len < lmin {
            continue;
        }
        let h = running_half_width(len, sum, mean, m2, confidence, method, s1 - s2 / len as f64);
        if h <= accuracy {
            return Ok(window_answer(true, start, n, mean, h, accuracy, lmin));
        }
        if best.is_none_or(|(_, _, bh)| h < bh) {
            best = Some((start, mean, h));
        }
    }
    match best {
        Some((start, mean, h)) if h.is_finite() => Ok(window_answer(false, start, n, mean, h, accuracy, lmin)),
        _ => Err(invalid("samples", "every candidate window has mean 0, so no relative accuracy exists")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    const SERIES: [f64; 10] = [100.0, 102.0, 98.0, 101.0, 99.0, 100.0, 101.0, 99.0, 100.0, 100.0];

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs().max(1e-300)
    }

    #[test]
    fn t_quantile_is_accurate() {
        // Reference: @stdlib/stats-base-dists-t-quantile, the TypeScript side's quantile
        // (node -e 'require("@stdlib/stats-base-dists-t-quantile")(0.975, 9)').
        for (p, df, want) in
            [(0.975, 9.0, 2.262157162798205), (0.995, 3.0, 5.840909309733356), (0.95, 120.0, 1.657650899355235)]
        {
            assert!(close(t_quantile(p, df), want, 1e-12), "t({p}; {df}) = {}", t_quantile(p, df));
        }
    }

    /// The reasons in words: the same strings as the TypeScript test ("seenEnoughWhyNotText: the words").
    #[test]
    fn why_not_words() {
        let base = DEFAULT_SEEN_ENOUGH.judge(&[100.0, 101.0]).expect("judged");
        let cases = [
            (1, 600, 0.04, BoundBy::Seconds, Refusal::TooFewSamples, 600.0, 900.0, 600, "too few samples: 600 so far, the shortest window is 900 (90 s)"),
            (551, 450, 0.04, BoundBy::Seconds, Refusal::WarmupNotOver, 550.0, 500.0, 1000, "warm-up not over: steady state would begin at sample 551, past the middle of the 1000 samples"),
            (101, 900, 0.04, BoundBy::Seconds, Refusal::WarmupNotOver, 460.0, 450.0, 900, "warm-up not over: steady state would begin at sample 461, past the middle of the first 900 of the 1000 samples, which must also look steady (the look back)"),
            (151, 850, 0.04, BoundBy::Seconds, Refusal::WindowTooShort, 850.0, 900.0, 1000, "window too short: 850 samples after the warm-up, the shortest window is 900 (90 s)"),
            (101, 900, 0.04, BoundBy::Seconds, Refusal::LevelMoving, -2.3456, 1.5, 1000, "level moving: the level is still falling (trend t = -2.35 against a limit of 1.5)"),
            (101, 900, 0.04, BoundBy::Seconds, Refusal::LevelMoving, 7.2383, 1.1666666666666667, 800, "level moving: the level is still rising (trend t = 7.24 against a limit of 1.17) on the first 800 of the 1000 samples, which must also look steady (the look back)"),
            (101, 900, 0.04, BoundBy::Seconds, Refusal::NotPreciseEnough, 0.061, 0.05, 900, "not precise enough yet: ±6.1 % (±4 % from the noise + 2.1 % for drift) against ±5 % asked on the first 900 of the 1000 samples, which must also look steady (the look back)"),
            (41, 60, 0.083, BoundBy::Samples, Refusal::NotPreciseEnough, 0.083, 0.05, 100, "not precise enough yet: ±8.3 % against ±5 % asked"),
            (1, 20, 0.2, BoundBy::Samples, Refusal::TooFewSamples, 20.0, 30.0, 20, "too few samples: 20 so far, the shortest window is 30"),
        ];
        for (from, samples, achieved, bound_by, refusal, value, limit, at, text) in cases {
            let why_not = Some(WhyNot { refusal, value, limit, at });
            let r = SeenEnough { seen_enough: false, from, samples, achieved, bound_by, why_not, ..base };
            assert_eq!(r.why_not_text().as_deref(), Some(text));
        }
        assert_eq!(SeenEnough { seen_enough: true, why_not: None, ..base }.why_not_text(), None);
    }

    #[test]
    fn worked_examples_from_the_issue() {
        let r = seen_enough(&SERIES, 0.05, 0.95, 4, SeenEnoughMethod::Ivy, Transient::Off).unwrap();
        assert!(r.seen_enough && r.from == 7 && r.samples == 4 && close(r.mean, 100.0, 1e-15));
        assert!(close(r.achieved, 0.0259845653, 1e-8), "{}", r.achieved);
        let r = seen_enough(&SERIES, 0.01, 0.95, 4, SeenEnoughMethod::Iid, Transient::Off).unwrap();
        assert!(r.seen_enough && r.from == 6 && r.samples == 5);
        assert!(close(r.achieved, 0.0087798903, 1e-8), "{}", r.achieved);
        let r = seen_enough(&SERIES, 0.01, 0.95, 4, SeenEnoughMethod::Ivy, Transient::Off).unwrap();
        assert!(!r.seen_enough && r.from == 4 && r.samples == 7);
        assert!(close(r.achieved, 0.0151026678, 1e-8), "{}", r.achieved);
    }

    #[test]
    fn bad_inputs_are_errors() {
        for t in [Transient::Off, Transient::Detect] {
            assert!(seen_enough(&[1.0], 0.05, 0.95, 5, SeenEnoughMethod::Iid, t).is_err());
            assert!(seen_enough(&[1.0, f64::NAN], 0.05, 0.95, 5, SeenEnoughMethod::Iid, t).is_err());
            assert!(seen_enough(&SERIES, 0.0, 0.95, 5, SeenEnoughMethod::Iid, t).is_err());
            assert!(seen_enough(&SERIES, 0.05, 1.0, 5, SeenEnoughMethod::Iid, t).is_err());
            assert!(seen_enough(&[0.0, 0.0, 0.0], 0.05, 0.95, 2, SeenEnoughMethod::Iid, t).is_err());
        }
    }

    /// The defaults are the ones the worksheet function uses: both are tested against one file.
    #[test]
    fn defaults_agree_with_the_shared_file() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors/seen_enough_defaults.json");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let doc: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
        assert_eq!(doc["accuracy"].as_f64(), Some(DEFAULT_ACCURACY));
        assert_eq!(doc["confidence"].as_f64(), Some(DEFAULT_CONFIDENCE));
        assert_eq!(doc["min_samples"].as_u64(), Some(DEFAULT_MIN_SAMPLES as u64));
        assert_eq!(super::vector_tests::method(doc.get("method")), DEFAULT_METHOD);
        assert_eq!(super::vector_tests::transient(doc.get("transient")), DEFAULT_TRANSIENT);
        assert_eq!(doc["steady_min_window"].as_u64(), Some(STEADY_MIN_WINDOW as u64));
        assert_eq!(doc["trend_t_limit"].as_f64(), Some(STEADY_TREND_T_LIMIT));
        assert_eq!(doc["drift_weight"].as_f64(), Some(STEADY_DRIFT_WEIGHT));
        assert_eq!(doc["recheck_fraction"].as_f64(), Some(STEADY_RECHECK_FRACTION));
        assert_eq!(doc["recheck_points"].as_u64(), Some(STEADY_RECHECK_POINTS as u64));
        assert_eq!(doc["truncation_z"].as_f64(), Some(STEADY_TRUNCATION_Z));
        assert_eq!(doc["min_seconds"].as_f64(), Some(STEADY_MIN_SECONDS));
        assert_eq!(doc["first_chance_trend_t"].as_f64(), Some(FIRST_CHANCE_TREND_T));
        assert_eq!(doc["first_chance_ramp"].as_f64(), Some(FIRST_CHANCE_RAMP));
        assert_eq!(doc["level_trend_t"].as_f64(), Some(LEVEL_TREND_T));
    }

    /// Every case of the vectors shared with the Jest suite.
    #[test]
    fn agrees_with_the_shared_vectors() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors/seen_enough.json");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let doc: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
        let cases = doc.get("cases").and_then(|c| c.as_array()).or_else(|| doc.as_array()).expect("a list of cases");
        assert!(cases.len() >= 30, "only {} cases", cases.len());
        let mut checked = 0;
        for case in cases {
            checked += super::vector_tests::check_case(case);
        }
        assert_eq!(checked, cases.len());
    }
}

/// The real series of `tests/fixtures/steady-state-real/` replayed as iogen asks the rule: after every
/// subinterval, the subinterval length known (`judge_timed`).
#[cfg(test)]
mod real_series {
    use super::*;
    use std::path::Path;

    /// IOPS per subinterval: fio's iops log (time_ms, value, …) or iogen's subinterval CSV (iops column).
    fn load(file: &str) -> Vec<f64> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/steady-state-real").join(file);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let (column, skip) = if text.starts_with("subinterval") { (3, 1) } else { (1, 0) };
        text.lines()
            .skip(skip)
            .map(|l| l.split(',').nth(column).and_then(|v| v.trim().parse().ok()).expect("a number"))
            .collect()
    }

    /// First stop (samples) and the answer then, or at the last sample; whether "cut moving" was raised.
    fn replay(x: &[f64], subinterval_s: f64) -> (Option<usize>, SeenEnough, bool) {
        let spec = DEFAULT_SEEN_ENOUGH;
        let mut cut_moving = false;
        for n in 2..=x.len() {
            let r = spec.judge_timed(&x[..n], Some(subinterval_s)).expect("judged");
            cut_moving |= r.warnings.cut_moving;
            if r.seen_enough {
                return (Some(n), r, cut_moving);
            }
        }
        (None, spec.judge_timed(x, Some(subinterval_s)).expect("judged"), cut_moving)
    }

    #[test]
    fn at_100_ms_nothing_stops_before_90_seconds_and_the_flat_run_stops_at_90() {
        for file in ["fio-fresh-4g-100ms-a.log", "fio-sparse-2g-100ms-c.log", "iogen-2g-100ms.csv"] {
            let (stop, r, _) = replay(&load(file), 0.1);
            assert!(stop.is_none_or(|n| n >= 900), "{file}: stopped at {stop:?}");
            assert_eq!((r.min_window, r.bound_by), (900, BoundBy::Seconds), "{file}");
        }
        let (stop, r, _) = replay(&load("fio-capped-2g-100ms-e.log"), 0.1);
        assert_eq!((stop, r.from), (Some(900), 1));
        assert!((r.level / 3000.0 - 1.0).abs() < 0.01, "level {}", r.level);
        // Floor in samples only: the same run would have stopped after 9 s.
        let spec = DEFAULT_SEEN_ENOUGH;
        let x = load("fio-capped-2g-100ms-e.log");
        assert!(spec.judge(&x[..90]).expect("judged").seen_enough);
    }

    #[test]
    fn run_a_never_settles_and_says_its_cut_keeps_moving() {
        let (stop, _, cut_moving) = replay(&load("fio-fresh-4g-100ms-a.log"), 0.1);
        assert_eq!(stop, None);
        assert!(cut_moving);
    }
}

#[cfg(test)]
mod vector_tests {
    use super::*;
    use serde_json::Value;

    pub fn method(v: Option<&Value>) -> SeenEnoughMethod {
        match v.and_then(|m| m.as_str()).unwrap_or("ar1") {
            "iid" => SeenEnoughMethod::Iid,
            "ivy" => SeenEnoughMethod::Ivy,
            "ar1" => SeenEnoughMethod::Ar1,
            other => panic!("unknown method {other}"),
        }
    }

    pub fn transient(v: Option<&Value>) -> Transient {
        match v.and_then(|m| m.as_str()).unwrap_or("detect") {
            "detect" => Transient::Detect,
            "off" => Transient::Off,
            other => panic!("unknown transient {other}"),
        }
    }

    /// Check one vector case; returns 1 when checked.
    pub fn check_case(case: &Value) -> usize {
        let name = case.get("name").and_then(|n| n.as_str()).unwrap_or("?").to_string();
        let input = case.get("input").unwrap_or(case);
        let samples: Vec<f64> = input["samples"]
            .as_array()
            .unwrap_or_else(|| panic!("{name}: samples"))
            .iter()
            .map(|v| v.as_f64().unwrap_or(f64::NAN))
            .collect();
        let accuracy = input.get("accuracy").and_then(|v| v.as_f64()).unwrap_or(DEFAULT_ACCURACY);
        let confidence = input.get("confidence").and_then(|v| v.as_f64()).unwrap_or(DEFAULT_CONFIDENCE);
        let min_samples = input
            .get("min_samples")
            .or(input.get("minSamples"))
            .and_then(|v| v.as_u64())
            .map_or(DEFAULT_MIN_SAMPLES, |v| v as usize);
        let m = input.get("method").map_or(DEFAULT_METHOD, |v| method(Some(v)));
        let subinterval_s = input.get("subinterval_s").and_then(|v| v.as_f64());
        let got = seen_enough_timed(
            &samples,
            accuracy,
            confidence,
            min_samples,
            m,
            transient(input.get("transient")),
            subinterval_s,
        );
        let expected = case.get("expected").unwrap_or_else(|| panic!("{name}: expected"));
        let tol = case.get("tolerance").and_then(|v| v.as_f64()).unwrap_or(1e-9);
        if expected.get("error").is_some() || case.get("error").is_some() {
            assert!(got.is_err(), "{name}: expected an error, got {got:?}");
            return 1;
        }
        let got = got.unwrap_or_else(|e| panic!("{name}: {e}"));
        let b = |k: &str, alt: &str| expected.get(k).or(expected.get(alt));
        if let Some(v) = b("seen_enough", "seenEnough") {
            assert_eq!(Some(got.seen_enough), v.as_bool(), "{name}: seen_enough");
        }
        if let Some(v) = b("from", "from") {
            assert_eq!(Some(got.from as u64), v.as_u64(), "{name}: from");
        }
        if let Some(v) = b("samples", "samples") {
            assert_eq!(Some(got.samples as u64), v.as_u64(), "{name}: samples");
        }
        for (key, value) in [
            ("mean", got.mean),
            ("achieved", got.achieved),
            ("level", got.level),
            ("level_achieved", got.level_achieved),
        ] {
            if let Some(e) = expected.get(key).and_then(|v| v.as_f64()) {
                assert!((value - e).abs() <= tol * e.abs().max(1.0), "{name}: {key} {value} vs {e} (tol {tol})");
            }
        }
        let bound_by = match got.bound_by {
            BoundBy::Samples => "samples",
            BoundBy::Seconds => "seconds",
        };
        let kind = match got.level_kind {
            LevelKind::Mean => "mean",
            LevelKind::TrendEnd => "trend end",
        };
        assert_eq!(expected["bound_by"].as_str(), Some(bound_by), "{name}: bound_by");
        assert_eq!(expected["level_kind"].as_str(), Some(kind), "{name}: level_kind");
        for (key, value) in [("min_window", got.min_window), ("from_low", got.from_low), ("from_high", got.from_high)] {
            assert_eq!(expected[key].as_u64(), Some(value as u64), "{name}: {key}");
        }
        let warnings: Vec<&str> =
            expected["warnings"].as_array().expect("warnings").iter().map(|w| w.as_str().unwrap_or("?")).collect();
        assert_eq!(got.warnings.names(), warnings, "{name}: warnings");
        match (got.why_not, expected["why_not"].as_object()) {
            (None, None) => {}
            (Some(why), Some(e)) => {
                assert_eq!(Some(why.refusal.name()), e["refusal"].as_str(), "{name}: why_not.refusal");
                assert_eq!(Some(why.at as u64), e["at"].as_u64(), "{name}: why_not.at");
                // A null value is an infinite t (JSON has no Infinity).
                let value = e["value"].as_f64().unwrap_or(f64::INFINITY);
                let close = |a: f64, b: f64| a == b || (a - b).abs() <= tol * b.abs().max(1e-300);
                assert!(
                    close(why.value, value) || (value.is_infinite() && why.value.is_infinite()),
                    "{name}: why_not.value {} vs {value}",
                    why.value
                );
                let limit = e["limit"].as_f64().expect("why_not.limit");
                assert!(close(why.limit, limit), "{name}: why_not.limit {} vs {limit}", why.limit);
            }
            (got, e) => panic!("{name}: why_not {got:?} vs {e:?}"),
        }
        1
    }
}

/// The O(n) running-statistics path against the rule recomputed from scratch for every window.
#[cfg(test)]
mod running_vs_reference {
    use super::*;

    /// The rule exactly as `docs/functions/SEEN_ENOUGH.md` states it, two-pass per window and A
    /// summed term by term: the O(n²) code `seen_enough` used before it kept running statistics.
    fn reference(
        x: &[f64],
        accuracy: f64,
        confidence: f64,
        min_samples: usize,
        method: SeenEnoughMethod,
    ) -> Option<SeenEnough> {
        let n = x.len();
        let rho = if method == SeenEnoughMethod::Ar1 { ar1_rho(lag1_autocorrelation(x), n) } else { 0.0 };
        let window = |w: &[f64]| -> (f64, f64) {
            let len = w.len() as f64;
            let mean = w.iter().sum::<f64>() / len;
            let ss: f64 = w.iter().map(|v| (v - mean) * (v - mean)).sum();
            if mean == 0.0 {
                return (mean, f64::INFINITY);
            }
            let k = match method {
                SeenEnoughMethod::Iid => 1.0,
                SeenEnoughMethod::Ivy => 2.0,
                SeenEnoughMethod::Ar1 => {
                    let a: f64 = (1..w.len()).map(|j| (1.0 - j as f64 / len) * rho.powi(j as i32)).sum();
                    ((1.0 + 2.0 * a) / (1.0 - 2.0 * a / (len - 1.0))).sqrt()
                }
            };
            let t = t_quantile(1.0 - (1.0 - confidence) / 2.0, len - 1.0);
            (mean, k * t * (ss / (len - 1.0)).sqrt() / len.sqrt() / mean.abs())
        };
        let lmin = shortest_window(method, min_samples);
        let result = |seen_enough, start: usize, mean, achieved| {
            window_answer(seen_enough, start, n, mean, achieved, accuracy, shortest_window(method, min_samples))
        };
        if n < lmin {
            let (mean, h) = window(x);
            return h.is_finite().then(|| result(false, 0, mean, h));
        }
        let mut best: Option<(usize, f64, f64)> = None;
        for len in lmin..=n {
            let (mean, h) = window(&x[n - len..]);
            if h <= accuracy {
                return Some(result(true, n - len, mean, h));
            }
            if best.is_none_or(|(_, _, bh)| h < bh) {
                best = Some((n - len, mean, h));
            }
        }
        best.filter(|b| b.2.is_finite()).map(|(start, mean, h)| result(false, start, mean, h))
    }

    /// Deterministic generator (splitmix64) so the comparison is reproducible.
    struct Rng(u64);
    impl Rng {
        fn uniform(&mut self) -> f64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
        }
        fn gauss(&mut self) -> f64 {
            (-2.0 * (1.0 - self.uniform()).ln()).sqrt() * (2.0 * std::f64::consts::PI * self.uniform()).cos()
        }
        fn pick<T: Copy>(&mut self, v: &[T]) -> T {
            v[((self.uniform() * v.len() as f64) as usize).min(v.len() - 1)]
        }
    }

    /// A series of one of several shapes: noise, trend, AR(1), constant, warm-up step, integers around 0.
    fn series(rng: &mut Rng, kind: usize, len: usize) -> Vec<f64> {
        let level = rng.pick(&[1000.0, 0.37, 5e7, 12.0]);
        let noise = level * rng.pick(&[0.001, 0.02, 0.2]);
        let mut e = 0.0;
        (0..len)
            .map(|i| match kind {
                0 => level + noise * rng.gauss(),
                1 => level * (1.0 + 0.002 * i as f64) + noise * rng.gauss(),
                2 => {
                    e = 0.8 * e + noise * rng.gauss();
                    level + e
                }
                3 => {
                    if level == 0.37 {
                        0.1
                    } else {
                        level
                    }
                }
                4 => (if i < len / 3 { 0.5 * level } else { level }) + noise * rng.gauss(),
                _ => (3.0 * rng.gauss()).round(),
            })
            .collect()
    }

    fn rel_close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs()
    }

    fn compare(x: &[f64], accuracy: f64, confidence: f64, min_samples: usize, method: SeenEnoughMethod) {
        let want = reference(x, accuracy, confidence, min_samples, method);
        let got = seen_enough(x, accuracy, confidence, min_samples, method, Transient::Off);
        let ctx = format!("{method:?} acc {accuracy} conf {confidence} min {min_samples} n {}", x.len());
        match (want, got) {
            (None, Err(_)) => {}
            (Some(w), Ok(g)) => {
                assert_eq!((g.seen_enough, g.from, g.samples), (w.seen_enough, w.from, w.samples), "{ctx}");
                assert!(rel_close(g.mean, w.mean, 1e-9), "{ctx}: mean {} vs {}", g.mean, w.mean);
                // A constant series has h = 0 exactly; either way of summing leaves ~1e-16 of rounding.
                let tiny = g.achieved.abs() < 1e-12 && w.achieved.abs() < 1e-12;
                assert!(tiny || rel_close(g.achieved, w.achieved, 1e-9), "{ctx}: h {} vs {}", g.achieved, w.achieved);
            }
            (w, g) => panic!("{ctx}: reference {w:?}, running {g:?}"),
        }
    }

    #[test]
    fn seen_enough_running_statistics_match_per_window_recomputation() {
        let mut rng = Rng(20_261_122);
        let methods = [SeenEnoughMethod::Iid, SeenEnoughMethod::Ivy, SeenEnoughMethod::Ar1];
        for case in 0..300 {
            let kind = case % 6;
            let len = 2 + (rng.uniform() * 399.0) as usize;
            let x = series(&mut rng, kind, len);
            let accuracy = rng.pick(&[0.002, 0.01, 0.05, 0.2]);
            let confidence = rng.pick(&[0.9, 0.95, 0.99]);
            let min_samples = 1 + (rng.uniform() * 40.0) as usize;
            for method in methods {
                compare(&x, accuracy, confidence, min_samples, method);
            }
        }
        for kind in [0, 1, 2, 4] {
            let x = series(&mut rng, kind, 3000);
            for method in methods {
                compare(&x, 1e-6, 0.95, 5, method);
            }
        }
    }
}
