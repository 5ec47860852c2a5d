/**
 * "Seen enough & stop" (Hitachi ivy's measure=on): the entry point {@link seenEnough}, which checks
 * its inputs and applies the steady-state rule (seen-enough-steady.ts) or the precision-only rule
 * (seen-enough-precision.ts). This module re-exports the pieces, so callers import from here only.
 * Pure; throws only DomainError.
 */
import { DomainError } from "./errors";
import { precisionRule, shortestWindow } from "./seen-enough-precision";
import { powerOfTwoScale, steadyStateReport, steadyStateRule } from "./seen-enough-steady";
import {
  SEEN_ENOUGH_DEFAULTS,
  SEEN_ENOUGH_METHODS,
  type SeenEnoughOptions,
  type SeenEnoughResult,
  type SeenEnoughSettings,
} from "./seen-enough-types";

export * from "./seen-enough-types";
export * from "./seen-enough-precision";
export * from "./seen-enough-steady";
export * from "./seen-enough-report";

/** The options with their defaults filled in, each checked; throws DomainError naming the bad one. */
function checkOptions(options: SeenEnoughOptions): SeenEnoughSettings {
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
  const subintervalSeconds = checkSubinterval(options.subintervalSeconds);
  const settings: SeenEnoughSettings = { accuracy, confidence, minSamples, method, transient };
  return subintervalSeconds === undefined ? settings : { ...settings, subintervalSeconds };
}

/** The subinterval length: undefined or a finite number > 0. */
function checkSubinterval(seconds: number | undefined): number | undefined {
  if (seconds !== undefined && !(Number.isFinite(seconds) && seconds > 0)) {
    throw new DomainError(
      "subinterval_s",
      `must be the length of one subinterval in seconds, > 0, got ${seconds}`,
      "num",
    );
  }
  return seconds;
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
 * "Seen enough & stop": has a run of consecutive subinterval measurements reached steady state, and
 * is its mean known to the required relative accuracy at the required confidence?
 *
 * With `transient: "detect"` (default) — the rule of docs/functions/SEEN_ENOUGH.md, chosen in
 * docs/seen-enough.md:
 * 1. W = max(90, minSamples) is the shortest steady-state window, or ⌈90 / subintervalSeconds⌉ when that
 *    is longer (the floor in time, {@link STEADY_MIN_SECONDS}; `boundBy` says which). With fewer than W
 *    samples the answer is FALSE for the whole series.
 * 2. Where steady state begins: MSER-5 ({@link mserTruncation}) proposes d leading samples to drop,
 *    kept only when their mean differs from the rest's by more than 2 long-run standard errors
 *    ({@link significantTruncation}), else d = 0. If d > n/2 or fewer than W samples remain, FALSE
 *    (run longer) for the window from d + 1.
 * 3. No trend: the least-squares slope of the retained window over its standard error,
 *    |t| ≤ c(n) ({@link trendT}; c = 0.8 at n = W rising linearly to 1.5 at 1.2·W, {@link trendLimitAt}).
 * 4. Precision with a drift allowance: h + 2·|m − m₂|/|m| ≤ accuracy, h the retained window's relative
 *    half-width (below; ρ̂ from the retained window), m its mean, m₂ the mean of its last ⌊L/2⌋ samples
 *    (for a linear drift, 2·|m − m₂| is how far m lags the latest level).
 * 5. Look back: when 1–4 pass at n, the first n′ samples must also have looked steady, for
 *    n′ = n − ⌈n/10⌉ and n − 2⌈n/10⌉ ({@link RECHECK_FRACTION}, {@link RECHECK_POINTS}): their start d′
 *    by step 2 with d′ ≤ n′/2; |t| ≤ 1.5 on their retained window when it has at least W samples (a
 *    shorter one cannot tell a trend from noise); and h + 2·|m′ − m₂′|/|m′| ≤ accuracy with step 4's
 *    h. Otherwise FALSE with the window of step 4.
 * The answer is always the retained window (from d + 1 to n, achieved = h): TRUE when 3, 4 and 5 hold.
 * It also reports the least-squares level at the last sample ({@link trendEndLevel}), where the warm-up
 * may have ended ({@link warmupInterval}), the non-stationarity warnings ({@link nonStationarity}) and,
 * when FALSE, why: the first check above that refused, with its figure and limit (`whyNot`, words by
 * {@link seenEnoughWhyNotText}).
 *
 * With `transient: "off"`: candidate windows all end at the last sample, tried shortest first, with
 * lengths L = Lmin … n, where Lmin = max(2, minSamples) for "iid" and "ivy" and max(30, minSamples)
 * for "ar1". The first passing window is the answer; when none passes, `seenEnough: false` with the
 * window of smallest h (the shortest one on a tie). With fewer than Lmin samples (but at least 2): FALSE
 * for the whole series. `whyNot`: "too few samples" (n < Lmin) or "not precise enough" (the smallest h).
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
 * @param options.subintervalSeconds Length of one subinterval in seconds (> 0), when known: the floor
 *   in time ("detect" only).
 * @returns `{ seenEnough, from (1-based index where the window, i.e. steady state, starts), samples
 *   (window length), mean (window mean, unit of the samples), achieved (h, a fraction), required,
 *   boundBy, minWindow, fromLow, fromHigh, level, levelAchieved, levelKind, warnings, whyNot }`.
 * @throws DomainError("samples", …) when a sample is not finite, when there are fewer than 2 samples,
 *   or (kind "div0") when the mean is 0 where it is judged; DomainError("accuracy" | "confidence" |
 *   "min_samples" | "method" | "transient" | "subinterval_s", …) for bad options.
 * @example
 * seenEnough([100, 102, 98, 101, 99, 100, 101, 99, 100, 100], { minSamples: 4, method: "ivy", transient: "off" });
 * // => { seenEnough: true, from: 7, samples: 4, mean: 100, achieved: 0.0259845653…, required: 0.05, … }
 */
export function seenEnough(samples: readonly number[], options: SeenEnoughOptions = {}): SeenEnoughResult {
  const opts = checkOptions(options);
  checkSamples(samples);
  const scale = powerOfTwoScale(samples);
  const x = scale === 1 ? samples : samples.map((v) => v / scale);
  if (opts.transient === "off") {
    const r = precisionRule(x, opts);
    const mean = r.mean * scale;
    const n = x.length;
    const minWindow = shortestWindow(opts.method, opts.minSamples);
    return {
      ...r,
      mean,
      boundBy: "samples",
      minWindow,
      fromLow: r.from,
      fromHigh: r.from,
      level: mean,
      levelAchieved: r.achieved,
      levelKind: "mean",
      warnings: [],
      whyNot: r.seenEnough
        ? null
        : n < minWindow
          ? { refusal: "too few samples", value: n, limit: minWindow, at: n }
          : { refusal: "not precise enough", value: r.achieved, limit: opts.accuracy, at: n },
    };
  }
  return steadyStateReport(x, steadyStateRule(x, scale, opts), opts);
}
