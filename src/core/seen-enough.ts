/**
 * "Seen enough & stop" (Hitachi ivy's measure=on): the window rule, its three methods, and the
 * helpers the Monte Carlo bench reuses. Pure; throws only DomainError.
 */
import erfcinv from "@stdlib/math-base-special-erfcinv";
import tQuantile from "@stdlib/stats-base-dists-t-quantile";
import { DomainError } from "./errors";

export type SeenEnoughMethod = "iid" | "ivy" | "ar1";

/**
 * Whether the rule first finds where steady state begins ("detect", the default) or judges
 * precision alone on windows ending at the last sample ("off", the rule before transients were
 * considered; for comparison).
 */
export type SeenEnoughTransient = "detect" | "off";

export interface SeenEnoughOptions {
  /** Required relative half-width, a fraction > 0 (default 0.05). */
  accuracy?: number;
  /** Two-sided confidence level in (0, 1) (default 0.95). */
  confidence?: number;
  /** Shortest window considered, a whole number ≥ 1 (default 5). */
  minSamples?: number;
  /** How the half-width is inflated for correlation (default "ar1"). */
  method?: SeenEnoughMethod;
  /** Find the warm-up transient first ("detect", default) or not ("off"). */
  transient?: SeenEnoughTransient;
}

export interface SeenEnoughResult {
  /** True when a window passed. */
  seenEnough: boolean;
  /** 1-based index (in `samples`) of the window's first sample. */
  from: number;
  /** Window length. */
  samples: number;
  /** Window mean, in the unit of the samples. */
  mean: number;
  /** The window's relative half-width h (a fraction). */
  achieved: number;
  /** The accuracy asked for (a fraction). */
  required: number;
}

/**
 * The defaults of SEEN_ENOUGH (and of iogen's `--seen-enough`, whose Rust constants a test holds to
 * the same values through tests/vectors/seen_enough_defaults.json): ±5 % at 95 % confidence (Hitachi
 * ivy's measure=on defaults), windows of at least 5 samples, the AR(1) correction.
 */
export const SEEN_ENOUGH_DEFAULTS: Readonly<Required<SeenEnoughOptions>> = Object.freeze({
  accuracy: 0.05,
  confidence: 0.95,
  minSamples: 5,
  method: "ar1",
  transient: "detect",
});

/** The methods, in the order the docs list them. */
export const SEEN_ENOUGH_METHODS: readonly SeenEnoughMethod[] = ["iid", "ivy", "ar1"];

/** Upper clip of the AR(1) coefficient estimate ρ̂. */
export const AR1_MAX_RHO = 0.95;

/** How many standard errors of r the "ar1" method adds to its bias-corrected ρ̂. */
export const AR1_RHO_Z = 1.5;

/**
 * Shortest window the "ar1" method accepts. The Monte Carlo study (bench/seen-enough.ts) showed that
 * shorter windows stop on a lucky stretch of correlated samples before the correlation can be seen.
 */
export const AR1_MIN_WINDOW = 30;

/** Memo of t quantiles below {@link T_EXPANSION_MIN_DF}: probability → (df → quantile). */
const tCache = new Map<number, Map<number, number>>();

/**
 * From this many degrees of freedom on, Student's t quantile comes from Hill's expansion (within
 * 2e-14 relative of @stdlib for p ≥ 5e-9 at 3000 df, and closer beyond), which keeps SEEN_ENOUGH on
 * 10⁶ samples at O(1) per window length instead of a cached incomplete-beta inversion per length.
 */
export const T_EXPANSION_MIN_DF = 3000;

/**
 * Student's t quantile t(p; df), memoised for small df (the rule asks for the same few values
 * again and again): @stdlib/stats-base-dists-t-quantile (relative error ~1e-15) below
 * {@link T_EXPANSION_MIN_DF} degrees of freedom, the Cornish–Fisher (Hill 1970) expansion in 1/df
 * to the fourth order above (Abramowitz & Stegun 26.7.5), with z from @stdlib's erfcinv.
 *
 * @param p Probability in (0, 1).
 * @param df Degrees of freedom ≥ 1.
 * @returns The quantile.
 * @example
 * tQuantileCached(0.975, 9); // => 2.262157162798205
 */
export function tQuantileCached(p: number, df: number): number {
  if (df >= T_EXPANSION_MIN_DF) return tQuantileLargeDf(p, df);
  let byDf = tCache.get(p);
  if (byDf === undefined) {
    if (tCache.size > 1000) tCache.clear();
    byDf = new Map<number, number>();
    tCache.set(p, byDf);
  }
  let v = byDf.get(df);
  if (v === undefined) {
    v = tQuantile(p, df);
    byDf.set(df, v);
  }
  return v;
}

let lastZ = { p: Number.NaN, z: Number.NaN };

/** t(p; ν) ≈ z + g₁/ν + g₂/ν² + g₃/ν³ + g₄/ν⁴ with z the normal quantile (A&S 26.7.5). */
function tQuantileLargeDf(p: number, nu: number): number {
  if (lastZ.p !== p) lastZ = { p, z: -Math.SQRT2 * erfcinv(2 * p) };
  const z = lastZ.z;
  const z2 = z * z;
  const g1 = (z * (z2 + 1)) / 4;
  const g2 = (z * ((5 * z2 + 16) * z2 + 3)) / 96;
  const g3 = (z * (((3 * z2 + 19) * z2 + 17) * z2 - 15)) / 384;
  const g4 = (z * ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945)) / 92160;
  return z + (g1 + (g2 + (g3 + g4 / nu) / nu) / nu) / nu;
}

/**
 * Lag-1 sample autocorrelation of x[start … end−1], two-pass:
 * r = Σ_{i=start}^{end−2} (x_i − m)(x_{i+1} − m) / Σ_{i=start}^{end−1} (x_i − m)², m the mean of those
 * values. A stretch with zero variance has r = 0 by convention. Cost O(L).
 *
 * @param x Samples (finite).
 * @param start First index (0-based, inclusive).
 * @param end One past the last index.
 * @returns r in [−1, 1].
 * @example
 * lag1Autocorrelation([1, 2, 3, 4], 0, 4); // => 0.25
 */
export function lag1Autocorrelation(x: readonly number[], start: number, end: number): number {
  let sum = 0;
  for (let i = start; i < end; i++) sum += x[i];
  const mean = sum / (end - start);
  let den = 0;
  let num = 0;
  for (let i = start; i < end; i++) {
    const d = x[i] - mean;
    den += d * d;
    if (i + 1 < end) num += d * (x[i + 1] - mean);
  }
  return den > 0 ? num / den : 0;
}

/**
 * The AR(1) coefficient the "ar1" method assumes, from the lag-1 autocorrelation r of n samples:
 *
 *     ρ̂ = clip(r + (1 + 4r)/n + 1.5 · √((1 − r²)/n), 0, 0.95)
 *
 * i.e. r corrected for its first-order downward bias in an AR(1) with estimated mean (Marriott &
 * Pope 1954: E[r] ≈ ρ − (1 + 4ρ)/n), plus 1.5 of its standard errors (Bartlett: √((1 − ρ²)/n)), an
 * upper confidence bound: the rule stops when the data look least correlated, so a point estimate
 * of ρ under-covers (docs/functions/SEEN_ENOUGH.md). Cost O(1).
 *
 * @param r Lag-1 sample autocorrelation, in [−1, 1].
 * @param n Number of samples it came from (≥ 2).
 * @returns ρ̂ in [0, 0.95].
 * @example
 * ar1Rho(0.5, 100); // => 0.5 + 0.03 + 1.5 · √0.0075 = 0.6599038105676658
 */
export function ar1Rho(r: number, n: number): number {
  const rho = r + (1 + 4 * r) / n + AR1_RHO_Z * Math.sqrt(Math.max(0, 1 - r * r) / n);
  if (!(rho > 0)) return 0;
  return rho > AR1_MAX_RHO ? AR1_MAX_RHO : rho;
}

/**
 * The "ar1" inflation factor k of a window of L samples from an AR(1) process with coefficient ρ:
 * the ratio of the true standard error of the window mean to the naive s/√L, using the exact
 * finite-L expectations Var(x̄) = σ²(1 + 2A)/L and E[s²] = σ²(1 − 2A/(L − 1)), where
 * A = Σ_{j=1}^{L−1} (1 − j/L) ρ^j:  k = √((1 + 2A) / (1 − 2A/(L − 1))).
 * For large L this tends to √((1 + ρ)/(1 − ρ)); for short windows it is larger, because s² of a short
 * correlated stretch underestimates σ². Cost O(L).
 *
 * @param rho AR(1) coefficient in [0, 1).
 * @param length Window length L ≥ 2.
 * @returns k ≥ 1.
 * @example
 * ar1Inflation(0, 30); // => 1
 */
export function ar1Inflation(rho: number, length: number): number {
  let a = 0;
  let p = 1;
  for (let j = 1; j < length; j++) {
    p *= rho;
    a += (1 - j / length) * p;
  }
  return Math.sqrt((1 + 2 * a) / (1 - (2 * a) / (length - 1)));
}

/** Shortest window length for the given method and minSamples (Lmin). */
export function shortestWindow(method: SeenEnoughMethod, minSamples: number): number {
  return Math.max(method === "ar1" ? AR1_MIN_WINDOW : 2, minSamples);
}

/**
 * Relative half-width h of the window x[start … end−1] (see {@link seenEnough}); +Infinity when the
 * window mean is 0. Cost O(L).
 *
 * @param x Samples (finite).
 * @param start First index (0-based, inclusive).
 * @param end One past the last index; end − start ≥ 2.
 * @param confidence In (0, 1).
 * @param method "iid" | "ivy" | "ar1".
 * @param rho For "ar1": the ρ̂ of all the samples ({@link ar1Rho}); ignored otherwise.
 * @returns `{ mean, h }` with h ≥ 0 a fraction.
 * @throws DomainError("samples", …, "num") when the window's sums overflow (values beyond ~1e154).
 * @example
 * windowHalfWidth([99, 100, 101], 0, 3, 0.95, "iid", 0); // => { mean: 100, h: 0.0248413771… }
 */
export function windowHalfWidth(
  x: readonly number[],
  start: number,
  end: number,
  confidence: number,
  method: SeenEnoughMethod,
  rho: number,
): { mean: number; h: number } {
  const length = end - start;
  let sum = 0;
  for (let i = start; i < end; i++) sum += x[i];
  const mean = sum / length;
  let ss = 0;
  for (let i = start; i < end; i++) {
    const d = x[i] - mean;
    ss += d * d;
  }
  const s = Math.sqrt(ss / (length - 1));
  if (!Number.isFinite(mean) || !Number.isFinite(s)) {
    throw new DomainError("samples", "the values are too large to average (the sums overflow); rescale them", "num");
  }
  if (mean === 0) return { mean, h: Infinity };
  let k = 1;
  if (method === "ivy") k = 2;
  else if (method === "ar1") k = ar1Inflation(rho, length);
  // t(1 − α/2) taken as |t(α/2)|: the same value, but 1 − α/2 rounds to 1 (t = ∞) for confidence near 1.
  const t = Math.abs(tQuantileCached((1 - confidence) / 2, length - 1));
  const h = (k * t * s) / Math.sqrt(length) / Math.abs(mean);
  return { mean, h };
}

/**
 * Relative half-width h of a window from its running statistics (the O(1) step of {@link seenEnough}).
 *
 * @param length Window length L ≥ 2.
 * @param sum Plain sum of the window (overflow guard; exactly 0 means the mean is 0).
 * @param mean Running (Welford) mean of the window.
 * @param m2 Running Σ (x − mean)² of the window.
 * @param confidence In (0, 1).
 * @param method "iid" | "ivy" | "ar1".
 * @param a For "ar1": A = Σ_{j=1}^{L−1} (1 − j/L) ρ̂^j; ignored otherwise.
 * @returns h ≥ 0 (a fraction), +Infinity when the mean is 0.
 * @throws DomainError("samples", …, "num") when the sums overflow.
 */
function runningHalfWidth(
  length: number,
  sum: number,
  mean: number,
  m2: number,
  confidence: number,
  method: SeenEnoughMethod,
  a: number,
): number {
  const s = Math.sqrt(m2 / (length - 1));
  if (!Number.isFinite(sum) || !Number.isFinite(mean) || !Number.isFinite(s)) {
    throw new DomainError("samples", "the values are too large to average (the sums overflow); rescale them", "num");
  }
  if (sum === 0 || mean === 0) return Infinity;
  let k = 1;
  if (method === "ivy") k = 2;
  else if (method === "ar1") k = Math.sqrt((1 + 2 * a) / (1 - (2 * a) / (length - 1)));
  const t = Math.abs(tQuantileCached((1 - confidence) / 2, length - 1));
  return (k * t * s) / Math.sqrt(length) / Math.abs(mean);
}

/** The options with their defaults filled in, each checked; throws DomainError naming the bad one. */
function checkOptions(options: SeenEnoughOptions): Required<SeenEnoughOptions> {
  const transient = options.transient ?? SEEN_ENOUGH_DEFAULTS.transient;
  if (transient !== "detect" && transient !== "off") {
    throw new DomainError("transient", `must be "detect" or "off", got "${String(transient)}"`, "value");
  }
  const accuracy = options.accuracy ?? SEEN_ENOUGH_DEFAULTS.accuracy;
  const confidence = options.confidence ?? SEEN_ENOUGH_DEFAULTS.confidence;
  const minSamples = options.minSamples ?? SEEN_ENOUGH_DEFAULTS.minSamples;
  const method = options.method ?? SEEN_ENOUGH_DEFAULTS.method;
  if (!Number.isFinite(accuracy) || accuracy <= 0 || accuracy >= 1) {
    // ≥ 1 would be a half-width of ±100 % or more: almost surely "5" typed for 5 %.
    throw new DomainError(
      "accuracy",
      `must be a fraction in (0, 1), e.g. 0.05 or "5%" for ±5%, got ${accuracy}`,
      "num",
    );
  }
  if (!Number.isFinite(confidence) || confidence <= 0 || confidence >= 1) {
    throw new DomainError("confidence", `must be in (0, 1) (0.95 = 95%), got ${confidence}`, "num");
  }
  if (!Number.isInteger(minSamples) || minSamples < 1) {
    throw new DomainError("min_samples", `must be a whole number ≥ 1, got ${minSamples}`, "num");
  }
  if (!SEEN_ENOUGH_METHODS.includes(method)) {
    throw new DomainError("method", `must be "iid", "ivy" or "ar1", got "${String(method)}"`, "value");
  }
  return { accuracy, confidence, minSamples, method, transient };
}

/** At least 2 samples, every one a finite number. */
function checkSamples(samples: readonly number[]): void {
  const n = samples.length;
  for (let i = 0; i < n; i++) {
    if (typeof samples[i] !== "number" || !Number.isFinite(samples[i])) {
      throw new DomainError("samples", `value ${i + 1} is not a finite number (${String(samples[i])})`, "value");
    }
  }
  if (n < 2) {
    throw new DomainError("samples", `need at least 2 values, got ${n}`, "num");
  }
}

/**
 * Shortest steady-state window of the "detect" rule (samples), the default floor that `minSamples`
 * raises. Chosen by the Monte Carlo study (bench/seen-enough.ts, docs/seen-enough.md): a level that
 * ends after 80 samples looks like steady state until then, so shorter windows stop inside it.
 */
export const STEADY_MIN_WINDOW = 90;

/** MSER batch size (MSER-5: White, Cobb & Spratt 2000). */
export const MSER_BATCH = 5;

/**
 * Largest |t| of the retained window's trend (least-squares slope over its standard error) the
 * "detect" rule accepts as "no trend". Deliberately below a significance test's 1.96: not rejecting
 * "slope = 0" is weak evidence on a short window, so the rule asks for a slope that looks like noise.
 */
export const TREND_T_LIMIT = 1.5;

/**
 * Weight of the drift allowance: for a linear drift the window mean m lies |m − m₂| from the mean m₂
 * of its second half and 2·|m − m₂| from the drift's latest level, so h + 2·|m − m₂|/|m| ≤ accuracy
 * asks for the accuracy including the bias a drift still present would leave.
 */
export const DRIFT_WEIGHT = 2;

/**
 * The look back of the "detect" rule: a stop at n samples also needs the series to have looked
 * steady at n − j·⌈n·f⌉ samples, j = 1 … {@link RECHECK_POINTS}, f this fraction. The rule is asked
 * after every new sample, so without it the first sample at which noise happens to hide a drift ends
 * the run; a verdict that still held a tenth and two tenths of the run earlier is much less often
 * such a moment (docs/seen-enough.md, "Why this variant").
 */
export const RECHECK_FRACTION = 0.1;

/** How many earlier points the look back asks (n − ⌈n/10⌉ and n − 2⌈n/10⌉). */
export const RECHECK_POINTS = 2;

/**
 * MSER-5's truncation is kept only when the dropped samples' mean differs from the kept samples' by
 * more than this many long-run standard errors ({@link significantTruncation}). On steady noise plain
 * MSER-5 drops a few batches in 44 % of 90-sample series (Monte Carlo, ρ = 0), and a window that has
 * lost them is too short to stop.
 */
export const TRUNCATION_Z = 2;

/** The tuning of the "detect" rule; the bench varies it, the worksheet function uses the constants. */
export interface SteadyStateTuning {
  /** Shortest steady-state window (samples). */
  minWindow: number;
  /** Largest accepted |t| of the trend. */
  trendLimit: number;
  /** Weight β of the drift allowance β·|m − m₂|/|m| added to h (m₂ the mean of the window's second half). */
  driftWeight: number;
  /** Look back f: a stop at n also needs the earlier points n − j·⌈n·f⌉ to look steady; 0: none. */
  recheckFraction: number;
  /** Number of look-back points j = 1 … points. */
  recheckPoints: number;
  /** z of {@link significantTruncation}; 0 keeps every MSER-5 truncation. */
  truncationZ: number;
}

export const STEADY_STATE_TUNING: Readonly<SteadyStateTuning> = Object.freeze({
  minWindow: STEADY_MIN_WINDOW,
  trendLimit: TREND_T_LIMIT,
  driftWeight: DRIFT_WEIGHT,
  recheckFraction: RECHECK_FRACTION,
  recheckPoints: RECHECK_POINTS,
  truncationZ: TRUNCATION_Z,
});

/**
 * A power of two near the largest |x|, so that x / scale lies in [0.5, 2) at most: dividing by it is
 * exact (no rounding), and the squares of the scaled values neither underflow (values of 1e-200) nor
 * overflow (1e300). 1 when every value is 0.
 */
export function powerOfTwoScale(x: readonly number[]): number {
  let max = 0;
  for (const v of x) {
    const a = Math.abs(v);
    if (a > max) max = a;
  }
  if (max === 0) return 1;
  const e = Math.max(-1074, Math.min(1023, Math.floor(Math.log2(max))));
  return 2 ** e;
}

/**
 * MSER-5 truncation point: how many leading samples of x[start … end−1] to drop so that the mean of
 * the rest has the smallest marginal standard error (White 1997; batches of 5: Spratt 1998).
 *
 * Batch means Z_1 … Z_k of consecutive groups of 5 (k = ⌊L/5⌋; the last L − 5k samples are in no
 * batch). For d batches dropped, MSER(d) = Σ_{j>d} (Z_j − Z̄_d)² / (k − d)², Z̄_d the mean of the
 * kept batches. d runs over 0 … k − 1 − t with t = max(1, min(5, ⌊k/4⌋)): the last t batches are never
 * a candidate start, because a few nearly equal final batch means give a spurious minimum there
 * (kim-convergence's end trim). The answer is 5·d* with d* the smallest minimiser.
 * Cost O(L) (suffix sums by Welford's update, no cancellation).
 *
 * @param x Samples (finite, ideally scaled near 1: see {@link powerOfTwoScale}).
 * @param start First index (0-based).
 * @param end One past the last index.
 * @returns Samples to drop (a multiple of 5); 0 when there are fewer than 2 batches.
 * @example
 * mserTruncation([...Array(20).fill(10), ...Array(40).fill(1)], 0, 60); // => 20
 */
export function mserTruncation(x: readonly number[], start: number, end: number): number {
  const k = Math.floor((end - start) / MSER_BATCH);
  if (k < 2) return 0;
  const z: number[] = new Array<number>(k);
  for (let j = 0; j < k; j++) {
    let s = 0;
    for (let i = 0; i < MSER_BATCH; i++) s += x[start + j * MSER_BATCH + i];
    z[j] = s / MSER_BATCH;
  }
  const trim = Math.max(1, Math.min(5, Math.floor(k / 4)));
  // Suffix statistics, added from the last batch backwards: mean and Σ (Z − mean)² of Z_{d+1..k}.
  let mean = 0;
  let m2 = 0;
  let best = Infinity;
  let bestD = 0;
  for (let d = k - 1; d >= 0; d--) {
    const count = k - d;
    const delta = z[d] - mean;
    mean += delta / count;
    m2 += delta * (z[d] - mean);
    if (d <= k - 1 - trim) {
      const mser = m2 / (count * count);
      if (mser <= best) {
        best = mser;
        bestD = d;
      }
    }
  }
  return bestD * MSER_BATCH;
}

/**
 * Long-run variance factor k² of a window's noise, as the trend and truncation tests use it: 1
 * ("iid"), 4 ("ivy"), (1 + ρ)/(1 − ρ) ("ar1", ρ = clip(r + (1 + 4r)/L, 0, 0.95): the lag-1
 * autocorrelation r bias-corrected as in {@link ar1Rho}, without the upper-bound term, since these
 * tests want power). `lag1` is called only for "ar1".
 */
function longRunFactor(method: SeenEnoughMethod, length: number, lag1: () => number): number {
  if (method === "ivy") return 4;
  if (method !== "ar1") return 1;
  const r = lag1();
  const rho = Math.min(AR1_MAX_RHO, Math.max(0, r + (1 + 4 * r) / length));
  return (1 + rho) / (1 - rho);
}

/**
 * The drift allowance β·|m − m₂|/|m| of the window x[d … end−1] whose mean m is given (≠ 0), m₂ the
 * mean of its last ⌊L/2⌋ samples; 0 for a window of one sample.
 */
function driftAllowance(x: readonly number[], d: number, end: number, mean: number, weight: number): number {
  const half = Math.floor((end - d) / 2);
  if (half < 1) return 0;
  let sum2 = 0;
  for (let i = end - half; i < end; i++) sum2 += x[i];
  return (weight * Math.abs(mean - sum2 / half)) / Math.abs(mean);
}

/**
 * Trend statistic of the window x[start … end−1]: the least-squares slope b of x on its index over
 * its standard error, t = b / SE(b), with SE(b)² = k² · s_e² · 12 / (L(L² − 1)), s_e² the residual
 * variance (divisor L − 2) and k² the long-run variance factor of the residuals: 1 ("iid"), 4 ("ivy"),
 * (1 + ρ)/(1 − ρ) ("ar1", ρ = clip(r_e + (1 + 4r_e)/L, 0, 0.95) from the residuals' lag-1
 * autocorrelation r_e, bias-corrected as in {@link ar1Rho} but without the upper-bound term: a
 * trend test wants power). For AR(1) noise Var(b) ≈ σ²(1 + ρ)/(1 − ρ) · 12/L³ (e.g. Box, Jenkins &
 * Reinsel §3). 0 for a window with no variation; ±Infinity for a noiseless trend. Cost O(L).
 *
 * @param x Samples (finite, ideally scaled near 1).
 * @param start First index (0-based).
 * @param end One past the last index; L = end − start ≥ 3.
 * @param method "iid" | "ivy" | "ar1".
 * @returns t (signed: positive for a rising series).
 * @example
 * trendT([1, 2, 3, 4, 5, 6], 0, 6, "iid"); // => Infinity (a noiseless rise)
 */
export function trendT(x: readonly number[], start: number, end: number, method: SeenEnoughMethod): number {
  const length = end - start;
  let sum = 0;
  for (let i = start; i < end; i++) sum += x[i];
  const mean = sum / length;
  const centre = (length - 1) / 2;
  let sxy = 0;
  for (let i = start; i < end; i++) sxy += (i - start - centre) * (x[i] - mean);
  const sxx = (length * (length * length - 1)) / 12;
  const b = sxy / sxx;
  let sse = 0;
  let lag = 0;
  let prev = 0;
  for (let i = start; i < end; i++) {
    const e = x[i] - mean - b * (i - start - centre);
    sse += e * e;
    if (i > start) lag += prev * e;
    prev = e;
  }
  const k2 = longRunFactor(method, length, () => (sse > 0 ? lag / sse : 0));
  const se = Math.sqrt((k2 * sse) / (length - 2) / sxx);
  if (se > 0) return b / se;
  return b === 0 ? 0 : b > 0 ? Infinity : -Infinity;
}

/**
 * Whether MSER-5's truncation d of x[0 … end−1] is kept: only when the mean of the dropped samples
 * differs from the mean of the kept ones by more than z standard errors,
 *
 *     |x̄_{0..d−1} − x̄_{d..end−1}| > z · √(k² · s² · (1/d + 1/L)),   L = end − d,
 *
 * s² the kept samples' variance (divisor L − 1) and k² their long-run variance factor as in
 * {@link trendT}: 1 ("iid"), 4 ("ivy"), (1 + ρ)/(1 − ρ) ("ar1", ρ = clip(r + (1 + 4r)/L, 0, 0.95), r
 * the kept samples' lag-1 autocorrelation). A warm-up worth dropping differs from steady state by
 * much more than its noise; a minimum that MSER-5 finds in steady noise does not. Cost O(end).
 *
 * @param x Samples (finite, ideally scaled near 1).
 * @param end One past the last index.
 * @param d MSER-5's truncation ({@link mserTruncation}), 0 ≤ d < end.
 * @param method "iid" | "ivy" | "ar1".
 * @param z Standard errors; 0 keeps d.
 * @returns d or 0.
 * @example
 * significantTruncation([...Array(20).fill(10), ...[1, 2, 1, 2, 1, 2, 1, 2, 1, 2]], 30, 20, "iid", 2); // => 20
 */
export function significantTruncation(
  x: readonly number[],
  end: number,
  d: number,
  method: SeenEnoughMethod,
  z: number,
): number {
  if (d === 0 || z <= 0) return d;
  const length = end - d;
  let dropped = 0;
  for (let i = 0; i < d; i++) dropped += x[i];
  let kept = 0;
  for (let i = d; i < end; i++) kept += x[i];
  const keptMean = kept / length;
  let ss = 0;
  for (let i = d; i < end; i++) ss += (x[i] - keptMean) ** 2;
  const k2 = longRunFactor(method, length, () => lag1Autocorrelation(x, d, end));
  const se = Math.sqrt(((k2 * ss) / (length - 1)) * (1 / d + 1 / length));
  return Math.abs(dropped / d - keptMean) > z * se ? d : 0;
}

/** Where the "detect" rule judges steady state to begin in x[0 … end−1]: MSER-5, kept if significant. */
function steadyStart(x: readonly number[], end: number, method: SeenEnoughMethod, z: number): number {
  return significantTruncation(x, end, mserTruncation(x, 0, end), method, z);
}

/**
 * One look-back point of the "detect" rule: did the first `end` samples look steady? Their start d
 * as in step 2 (FALSE when d > end/2); their trend as in step 3 when at least `minWindow` samples are
 * retained (a shorter window cannot tell a trend from noise, so only the drift allowance judges it);
 * and h + β·|m − m₂|/|m| ≤ accuracy with the half-width h of the window judged now (the earlier
 * window is shorter, so its own h is wider for no reason that concerns a drift).
 */
function lookedSteady(
  x: readonly number[],
  end: number,
  h: number,
  opts: Required<SeenEnoughOptions>,
  tuning: Readonly<SteadyStateTuning>,
  minWindow: number,
): boolean {
  const d = steadyStart(x, end, opts.method, tuning.truncationZ);
  if (2 * d > end) return false;
  const length = end - d;
  if (length >= minWindow && Math.abs(trendT(x, d, end, opts.method)) > tuning.trendLimit) return false;
  let sum = 0;
  for (let i = d; i < end; i++) sum += x[i];
  const mean = sum / length;
  if (mean === 0) return false;
  return h + driftAllowance(x, d, end, mean, tuning.driftWeight) <= opts.accuracy;
}

/** How the "detect" rule judged a series (the bench reports why runs did not stop). */
export interface SteadyStateVerdict extends SeenEnoughResult {
  /** Samples dropped as warm-up (from − 1). */
  dropped: number;
  /** The retained window's trend t, NaN when not computed (window too short). */
  trend: number;
}

/**
 * The "detect" rule on samples already checked and scaled (x / scale, see {@link powerOfTwoScale}).
 * Exported for the Monte Carlo bench, which varies the tuning; the worksheet function calls
 * {@link seenEnough}.
 */
export function steadyStateRule(
  x: readonly number[],
  scale: number,
  opts: Required<SeenEnoughOptions>,
  tuning: Readonly<SteadyStateTuning> = STEADY_STATE_TUNING,
): SteadyStateVerdict {
  const { accuracy, confidence, minSamples, method } = opts;
  const n = x.length;
  const minWindow = Math.max(tuning.minWindow, minSamples, 3);
  const verdict = (seen: boolean, d: number, trend: number): SteadyStateVerdict => {
    const rho = method === "ar1" ? ar1Rho(lag1Autocorrelation(x, d, n), n - d) : 0;
    const { mean, h } = windowHalfWidth(x, d, n, confidence, method, rho);
    if (h === Infinity) {
      throw new DomainError("samples", "the steady-state window's mean is 0, so no relative accuracy exists", "div0");
    }
    return {
      seenEnough: seen && h + driftAllowance(x, d, n, mean, tuning.driftWeight) <= accuracy,
      from: d + 1,
      samples: n - d,
      mean: mean * scale,
      achieved: h,
      required: accuracy,
      dropped: d,
      trend,
    };
  };
  if (n < minWindow) return verdict(false, 0, NaN);
  const d = steadyStart(x, n, method, tuning.truncationZ);
  // "Run longer" (White 1997): a truncation point in the second half means no stationary tail yet.
  if (2 * d > n || n - d < minWindow) return verdict(false, d, NaN);
  const trend = trendT(x, d, n, method);
  const v = verdict(Math.abs(trend) <= tuning.trendLimit, d, trend);
  if (!v.seenEnough || tuning.recheckFraction <= 0) return v;
  const step = Math.ceil(n * tuning.recheckFraction);
  for (let j = 1; j <= tuning.recheckPoints; j++) {
    // Not yet: the answer stays the window judged at n, reported as not seen enough.
    if (!lookedSteady(x, n - j * step, v.achieved, opts, tuning, minWindow)) return { ...v, seenEnough: false };
  }
  return v;
}

/**
 * "Seen enough & stop": has a run of consecutive subinterval measurements reached steady state, and
 * is its mean known to the required relative accuracy at the required confidence?
 *
 * With `transient: "detect"` (default) — the rule of docs/functions/SEEN_ENOUGH.md, chosen in
 * docs/seen-enough.md:
 * 1. W = max(90, minSamples) is the shortest steady-state window. With fewer than W samples the answer
 *    is FALSE for the whole series.
 * 2. Where steady state begins: MSER-5 ({@link mserTruncation}) proposes d leading samples to drop,
 *    kept only when their mean differs from the rest's by more than 2 long-run standard errors
 *    ({@link significantTruncation}), else d = 0. If d > n/2 or fewer than W samples remain, FALSE
 *    (run longer) for the window from d + 1.
 * 3. No trend: the least-squares slope of the retained window over its standard error,
 *    |t| ≤ 1.5 ({@link trendT}).
 * 4. Precision with a drift allowance: h + 2·|m − m₂|/|m| ≤ accuracy, h the retained window's relative
 *    half-width (below; ρ̂ from the retained window), m its mean, m₂ the mean of its last ⌊L/2⌋ samples
 *    (for a linear drift, 2·|m − m₂| is how far m lags the latest level).
 * 5. Look back: when 1–4 pass at n, the first n′ samples must also have looked steady, for
 *    n′ = n − ⌈n/10⌉ and n − 2⌈n/10⌉ ({@link RECHECK_FRACTION}, {@link RECHECK_POINTS}): their start d′
 *    by step 2 with d′ ≤ n′/2; |t| ≤ 1.5 on their retained window when it has at least W samples (a
 *    shorter one cannot tell a trend from noise); and h + 2·|m′ − m₂′|/|m′| ≤ accuracy with step 4's
 *    h. Otherwise FALSE with the window of step 4.
 * The answer is always the retained window (from d + 1 to n, achieved = h): TRUE when 3, 4 and 5 hold.
 *
 * With `transient: "off"`: candidate windows all end at the last sample, tried shortest first, with
 * lengths L = Lmin … n, where Lmin = max(2, minSamples) for "iid" and "ivy" and max(30, minSamples)
 * for "ar1". The first passing window is the answer; when none passes, `seenEnough: false` with the
 * window of smallest h (the shortest one on a tie). With fewer than Lmin samples (but at least 2): FALSE
 * for the whole series.
 *
 * Both: a window of length L, mean m and sample standard deviation s (divisor L − 1) has the relative
 * half-width
 *
 *     h = k · t(1 − (1 − confidence)/2; L − 1) · s / √L / |m|
 *
 * (a window whose mean is 0 never passes), k per `method`:
 * - `"iid"`: k = 1, the textbook interval for independent samples.
 * - `"ivy"`: k = 2, Hitachi ivy's fixed allowance for correlated subintervals ("specify the accuracy
 *   twice as tightly"), with the correct L − 1 degrees of freedom.
 * - `"ar1"` (default): r = lag-1 autocorrelation of the samples judged (all n with "off", the retained
 *   window with "detect"), ρ̂ = clip(r + (1 + 4r)/n + 1.5·√((1 − r²)/n), 0, 0.95) ({@link ar1Rho}),
 *   k = √((1 + 2A)/(1 − 2A/(L − 1))), A = Σ_{j=1}^{L−1} (1 − j/L) ρ̂^j ({@link ar1Inflation}); with
 *   "off", windows have ≥ 30 samples.
 *
 * Values are divided by a power of two near the largest |value| first (exact), so series of 1e-200 or
 * 1e300 are judged like series near 1.
 *
 * Cost: O(n) time per call ("off": O(1) per window length by Welford's update and running sums for A;
 * "detect": a few passes over the samples), one t quantile per window length (memoised).
 *
 * References: Hitachi ivy "measure=on"; White (1997) and Spratt (1998), MSER-5; Student's t interval;
 * AR(1) variance of the mean, Box, Jenkins & Reinsel, Time Series Analysis, §2.1.
 *
 * @param samples Consecutive subinterval measurements, oldest first (any unit, e.g. IOPS); finite.
 * @param options.accuracy Required relative half-width, a fraction in (0, 1) (default 0.05 = ±5 %).
 * @param options.confidence Two-sided confidence level in (0, 1) (default 0.95).
 * @param options.minSamples "detect": raises the shortest steady-state window above 90; "off": the
 *   shortest window (default 5).
 * @param options.method "iid" | "ivy" | "ar1" (default "ar1").
 * @param options.transient "detect" (default) | "off".
 * @returns `{ seenEnough, from (1-based index where the window, i.e. steady state, starts), samples
 *   (window length), mean (window mean, unit of the samples), achieved (h, a fraction), required }`.
 * @throws DomainError("samples", …) when a sample is not finite, when there are fewer than 2 samples,
 *   or (kind "div0") when the mean is 0 where it is judged; DomainError("accuracy" | "confidence" |
 *   "min_samples" | "method" | "transient", …) for bad options.
 * @example
 * seenEnough([100, 102, 98, 101, 99, 100, 101, 99, 100, 100], { minSamples: 4, method: "ivy", transient: "off" });
 * // => { seenEnough: true, from: 7, samples: 4, mean: 100, achieved: 0.0259845653…, required: 0.05 }
 */
export function seenEnough(samples: readonly number[], options: SeenEnoughOptions = {}): SeenEnoughResult {
  const opts = checkOptions(options);
  checkSamples(samples);
  const scale = powerOfTwoScale(samples);
  const x = scale === 1 ? samples : samples.map((v) => v / scale);
  if (opts.transient === "off") {
    const r = precisionRule(x, opts);
    return { ...r, mean: r.mean * scale };
  }
  const v = steadyStateRule(x, scale, opts);
  return {
    seenEnough: v.seenEnough,
    from: v.from,
    samples: v.samples,
    mean: v.mean,
    achieved: v.achieved,
    required: v.required,
  };
}

/** The "off" rule (windows ending at the last sample, shortest first) on checked, scaled samples. */
function precisionRule(
  samples: readonly number[],
  { accuracy, confidence, minSamples, method }: Required<SeenEnoughOptions>,
): SeenEnoughResult {
  const n = samples.length;
  const rho = method === "ar1" ? ar1Rho(lag1Autocorrelation(samples, 0, n), n) : 0;
  const lmin = shortestWindow(method, minSamples);
  if (n < lmin) {
    // Too few samples for any candidate window: not seen enough; report the whole series.
    const { mean, h } = windowHalfWidth(samples, 0, n, confidence, method, rho);
    if (h === Infinity) {
      throw new DomainError("samples", "the mean is 0, so no relative accuracy exists", "div0");
    }
    return { seenEnough: false, from: 1, samples: n, mean, achieved: h, required: accuracy };
  }
  // Grow the window one sample at a time from the end, updating its statistics in O(1) per length.
  let sum = 0; // plain running sum: the overflow guard and the exact "mean is 0" test, as in windowHalfWidth
  let mean = 0; // running mean (Welford)
  let m2 = 0; // running Σ (x − mean)² (Welford/West update; no sum-of-squares cancellation)
  let s1 = 0; // "ar1": Σ_{j=1}^{L−1} ρ̂^j
  let s2 = 0; // "ar1": Σ_{j=1}^{L−1} j·ρ̂^j
  let power = 1; // "ar1": ρ̂^{L−1}
  let best: { start: number; mean: number; h: number } | undefined;
  for (let length = 1; length <= n; length++) {
    const start = n - length;
    const x = samples[start];
    sum += x;
    const d = x - mean;
    mean += d / length;
    m2 += d * (x - mean);
    if (method === "ar1" && length >= 2) {
      power *= rho;
      s1 += power;
      s2 += (length - 1) * power;
    }
    if (length < lmin) continue;
    const h = runningHalfWidth(length, sum, mean, m2, confidence, method, s1 - s2 / length);
    if (h <= accuracy) {
      return { seenEnough: true, from: start + 1, samples: length, mean, achieved: h, required: accuracy };
    }
    if (best === undefined || h < best.h) best = { start, mean, h };
  }
  if (best === undefined || best.h === Infinity) {
    throw new DomainError("samples", "every candidate window has mean 0, so no relative accuracy exists", "div0");
  }
  return {
    seenEnough: false,
    from: best.start + 1,
    samples: n - best.start,
    mean: best.mean,
    achieved: best.h,
    required: accuracy,
  };
}
