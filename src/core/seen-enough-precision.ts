/**
 * The precision part of "seen enough & stop": the relative half-width of a window's mean (Student's t,
 * the "iid", "ivy" and "ar1" corrections) and the precision-only rule (transient "off": windows ending at
 * the last sample, shortest first). Pure; throws only DomainError.
 */
import erfcinv from "@stdlib/math-base-special-erfcinv";
import tQuantile from "@stdlib/stats-base-dists-t-quantile";
import { DomainError } from "./errors";
import type { SeenEnoughMethod, SeenEnoughSettings, SeenEnoughWindow } from "./seen-enough-types";

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

/** The "off" rule (windows ending at the last sample, shortest first) on checked, scaled samples. */
export function precisionRule(
  samples: readonly number[],
  { accuracy, confidence, minSamples, method }: SeenEnoughSettings,
): SeenEnoughWindow {
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
