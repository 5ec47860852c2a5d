/**
 * The steady-state rule of "seen enough & stop" (transient "detect", the default): MSER-5 finds where
 * the warm-up ends, kept only when significant; the retained window must show no trend and meet the
 * accuracy with a drift allowance, and must have looked steady a tenth and two tenths of the run
 * earlier. Its tuning constants, and the helpers the Monte Carlo bench reuses. Pure; throws only
 * DomainError.
 */
import { DomainError } from "./errors";
import { AR1_MAX_RHO, ar1Rho, lag1Autocorrelation, windowHalfWidth } from "./seen-enough-precision";
import { MSER_BATCH, nonStationarity, trendEndLevel, warmupInterval } from "./seen-enough-report";
import {
  STEADY_MIN_SECONDS,
  type SeenEnoughMethod,
  type SeenEnoughResult,
  type SeenEnoughSettings,
  type SeenEnoughWhyNot,
} from "./seen-enough-types";

export { MSER_BATCH };

/**
 * Shortest steady-state window of the "detect" rule (samples), the default floor that `minSamples`
 * raises. Chosen by the Monte Carlo study (bench/seen-enough.ts, docs/seen-enough.md): a level that
 * ends after 80 samples looks like steady state until then, so shorter windows stop inside it.
 */
export const STEADY_MIN_WINDOW = 90;

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

/**
 * The first stopping chance, calibrated to the cost limit: at the floor W the trend limit is this
 * (not {@link TREND_T_LIMIT}), rising linearly to 1.5 at (1 + {@link FIRST_CHANCE_RAMP})·W samples.
 * With 1.5 from the start 75 % of steady series (ρ = 0, ±5 %) stopped at the floor where a median stop
 * at the floor needs just over half; the drifts still under way at the floor were most of the misses
 * (docs/seen-enough.md, "Spending the cost budget").
 */
export const FIRST_CHANCE_TREND_T = 0.8;

/** How far past the floor, as a fraction of it, the trend limit reaches 1.5 ({@link FIRST_CHANCE_TREND_T}). */
export const FIRST_CHANCE_RAMP = 0.2;

/**
 * The reported level is the least-squares level at the last sample ({@link trendEndLevel}) when the
 * retained window's trend |t| is at least this; the window mean otherwise. 0: whenever a trend can be
 * fitted — in the Monte Carlo study it covered as well as the mean on steady series and better on every
 * drift (|t| > 1, where the mean's estimated bias exceeds the fitted level's extra variance, and
 * |t| > 0.5 covered less on the slow drifts; docs/seen-enough.md).
 */
export const LEVEL_TREND_T = 0;

/** The tuning of the "detect" rule; the bench varies it, the worksheet function uses the constants. */
export interface SteadyStateTuning {
  /** Shortest steady-state window (samples). */
  minWindow: number;
  /** Shortest steady-state window in seconds, when the subinterval length is known. */
  minSeconds: number;
  /** Trend limit at the floor ({@link FIRST_CHANCE_TREND_T}); equal to trendLimit: no calibration. */
  firstTrendLimit: number;
  /** Fraction of the floor over which the trend limit rises to trendLimit ({@link FIRST_CHANCE_RAMP}). */
  firstRamp: number;
  /** |t| from which the fitted level at the last sample is reported ({@link LEVEL_TREND_T}); Infinity: never. */
  levelTrendT: number;
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
  minSeconds: STEADY_MIN_SECONDS,
  firstTrendLimit: FIRST_CHANCE_TREND_T,
  firstRamp: FIRST_CHANCE_RAMP,
  levelTrendT: LEVEL_TREND_T,
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
 * window is shorter, so its own h is wider for no reason that concerns a drift). Returns null when
 * they did, else the check that refused (`at` = end).
 */
function lookedSteady(
  x: readonly number[],
  end: number,
  h: number,
  opts: SeenEnoughSettings,
  tuning: Readonly<SteadyStateTuning>,
  minWindow: number,
  trendLimit: number,
): SeenEnoughWhyNot | null {
  const d = steadyStart(x, end, opts.method, tuning.truncationZ);
  if (2 * d > end) return { refusal: "warm-up not over", value: d, limit: end / 2, at: end };
  const length = end - d;
  const t = length >= minWindow ? trendT(x, d, end, opts.method) : 0;
  if (Math.abs(t) > trendLimit) return { refusal: "level moving", value: t, limit: trendLimit, at: end };
  let sum = 0;
  for (let i = d; i < end; i++) sum += x[i];
  const mean = sum / length;
  const total = mean === 0 ? Infinity : h + driftAllowance(x, d, end, mean, tuning.driftWeight);
  return total <= opts.accuracy ? null : { refusal: "not precise enough", value: total, limit: opts.accuracy, at: end };
}

/** How the "detect" rule judged a series (the bench reports why runs did not stop). */
export interface SteadyStateVerdict extends Omit<SeenEnoughResult, "fromLow" | "fromHigh" | "warnings"> {
  /** Samples dropped as warm-up (from − 1). */
  dropped: number;
  /** The retained window's trend t, NaN when not computed (window too short). */
  trend: number;
}

/**
 * The shortest steady-state window in samples and what set it: max(W, minSamples, 3) samples, or
 * ⌈T / subintervalSeconds⌉ when the subinterval length is known and that is longer (T = minSeconds;
 * 1e-9 is taken off before rounding up, so 90 s of 0.3-s subintervals are 300, not 301).
 */
export function steadyFloor(
  opts: SeenEnoughSettings,
  tuning: Readonly<SteadyStateTuning>,
): { minWindow: number; boundBy: "samples" | "seconds" } {
  const bySamples = Math.max(tuning.minWindow, opts.minSamples, 3);
  const dt = opts.subintervalSeconds;
  if (dt === undefined) return { minWindow: bySamples, boundBy: "samples" };
  const bySeconds = Math.ceil(tuning.minSeconds / dt - 1e-9);
  return bySeconds > bySamples
    ? { minWindow: bySeconds, boundBy: "seconds" }
    : { minWindow: bySamples, boundBy: "samples" };
}

/** The trend limit at n samples: firstTrendLimit at the floor, rising linearly to trendLimit over firstRamp·floor. */
export function trendLimitAt(n: number, minWindow: number, tuning: Readonly<SteadyStateTuning>): number {
  const { trendLimit, firstTrendLimit, firstRamp } = tuning;
  if (!(firstRamp > 0) || firstTrendLimit >= trendLimit) return trendLimit;
  const rise = (trendLimit - firstTrendLimit) * Math.max(0, (n - minWindow) / (firstRamp * minWindow));
  return Math.min(trendLimit, firstTrendLimit + rise);
}

/**
 * The "detect" rule on samples already checked and scaled (x / scale, see {@link powerOfTwoScale}):
 * the verdict and the level; {@link steadyStateReport} adds the warm-up interval and the warnings.
 * Exported for the Monte Carlo bench, which varies the tuning; the worksheet function calls
 * {@link seenEnough}.
 */
export function steadyStateRule(
  x: readonly number[],
  scale: number,
  opts: SeenEnoughSettings,
  tuning: Readonly<SteadyStateTuning> = STEADY_STATE_TUNING,
): SteadyStateVerdict {
  const { accuracy, confidence, method } = opts;
  const n = x.length;
  const { minWindow, boundBy } = steadyFloor(opts, tuning);
  // `refused`: the check of steps 1–3 that refused (null: they passed, step 4 judges precision).
  const verdict = (d: number, trend: number, refused: SeenEnoughWhyNot | null): SteadyStateVerdict => {
    const rho = method === "ar1" ? ar1Rho(lag1Autocorrelation(x, d, n), n - d) : 0;
    const { mean, h } = windowHalfWidth(x, d, n, confidence, method, rho);
    if (h === Infinity) {
      throw new DomainError("samples", "the steady-state window's mean is 0, so no relative accuracy exists", "div0");
    }
    const t = Number.isNaN(trend) && n - d >= 3 ? trendT(x, d, n, method) : trend;
    const fitted = Math.abs(t) >= tuning.levelTrendT ? trendEndLevel(x, d, n, confidence, method) : undefined;
    const useFit = fitted !== undefined && Number.isFinite(fitted.h);
    const total = h + driftAllowance(x, d, n, mean, tuning.driftWeight);
    const whyNot: SeenEnoughWhyNot | null =
      refused ?? (total <= accuracy ? null : { refusal: "not precise enough", value: total, limit: accuracy, at: n });
    return {
      seenEnough: whyNot === null,
      from: d + 1,
      samples: n - d,
      mean: mean * scale,
      achieved: h,
      required: accuracy,
      boundBy,
      minWindow,
      level: (useFit ? fitted.level : mean) * scale,
      levelAchieved: useFit ? fitted.h : h,
      levelKind: useFit ? "trend end" : "mean",
      whyNot,
      dropped: d,
      trend,
    };
  };
  if (n < minWindow) return verdict(0, NaN, { refusal: "too few samples", value: n, limit: minWindow, at: n });
  const d = steadyStart(x, n, method, tuning.truncationZ);
  // "Run longer" (White 1997): a truncation point in the second half means no stationary tail yet.
  if (2 * d > n) return verdict(d, NaN, { refusal: "warm-up not over", value: d, limit: n / 2, at: n });
  if (n - d < minWindow) return verdict(d, NaN, { refusal: "window too short", value: n - d, limit: minWindow, at: n });
  const trend = trendT(x, d, n, method);
  const limit = trendLimitAt(n, minWindow, tuning);
  const moving = Math.abs(trend) <= limit ? null : { refusal: "level moving" as const, value: trend, limit, at: n };
  const v = verdict(d, trend, moving);
  if (!v.seenEnough || tuning.recheckFraction <= 0) return v;
  const step = Math.ceil(n * tuning.recheckFraction);
  for (let j = 1; j <= tuning.recheckPoints; j++) {
    // Not yet: the answer stays the window judged at n, reported as not seen enough.
    const earlier = lookedSteady(x, n - j * step, v.achieved, opts, tuning, minWindow, limit);
    if (earlier !== null) return { ...v, seenEnough: false, whyNot: earlier };
  }
  return v;
}

/**
 * The report the verdict does not need: where the warm-up may have ended ({@link warmupInterval}) and
 * the non-stationarity warnings ({@link nonStationarity}; only once the series reaches the floor).
 */
export function steadyStateReport(
  x: readonly number[],
  v: SteadyStateVerdict,
  opts: SeenEnoughSettings,
  tuning: Readonly<SteadyStateTuning> = STEADY_STATE_TUNING,
): SeenEnoughResult {
  const { dropped: d, trend: _trend, ...result } = v;
  const n = x.length;
  const length = n - d;
  let sum = 0;
  for (let i = d; i < n; i++) sum += x[i];
  const keptMean = sum / length;
  let ss = 0;
  for (let i = d; i < n; i++) ss += (x[i] - keptMean) ** 2;
  const k2 = longRunFactor(opts.method, length, () => lag1Autocorrelation(x, d, n));
  const { low, high } =
    length >= 2 ? warmupInterval(x, d, n, (k2 * ss) / (length - 1), tuning.truncationZ) : { low: d, high: d };
  const warnings =
    n >= v.minWindow
      ? nonStationarity(x, d, steadyStart(x, n - 2 * Math.ceil(n / 10), opts.method, tuning.truncationZ))
      : [];
  return { ...result, fromLow: low + 1, fromHigh: high + 1, warnings };
}
