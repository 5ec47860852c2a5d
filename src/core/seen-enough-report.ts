/**
 * What the steady-state rule reports besides its verdict (docs/functions/SEEN_ENOUGH.md, "Report"):
 * the least-squares level at the last sample, an interval for where the warm-up ended, and the
 * non-stationarity warnings. Each is computed once per call on the retained window; none changes
 * which window is retained. Pure.
 */
import { ar1Inflation, ar1Rho, tQuantileCached } from "./seen-enough-precision";
import {
  STEADY_MIN_SECONDS,
  type SeenEnoughMethod,
  type SeenEnoughResult,
  type SeenEnoughWarning,
} from "./seen-enough-types";

/** MSER batch size (MSER-5: White, Cobb & Spratt 2000); warm-up ends are placed on its grid. */
export const MSER_BATCH = 5;

/**
 * The least-squares level at the last sample of x[d … end−1] and its relative half-width:
 *
 *     ℓ = m + b·(L − 1)/2,   h_ℓ = k · t(1 − (1 − confidence)/2; L − 2) · s_e · √(1/L + 3(L − 1)/(L(L + 1))) / |ℓ|
 *
 * m the window mean, b the slope on the index, s_e the residual standard deviation (divisor L − 2),
 * the square root the standard error factor of a fitted value at the end of the window
 * (Var(ŷ_L) = σ²(1/L + ((L − 1)/2)²/Sxx), Sxx = L(L² − 1)/12), and k the method's factor: 1 ("iid"),
 * 2 ("ivy"), the AR(1) factor of the residuals ("ar1": {@link ar1Inflation} of {@link ar1Rho} of their
 * lag-1 autocorrelation, as the mean's h uses it). For a linear drift ℓ is unbiased for the level the
 * series has reached, where the mean lags it by b·(L − 1)/2. Cost O(L).
 *
 * @param x Samples (finite, scaled near 1).
 * @param d First index of the window (0-based).
 * @param end One past the last index; L = end − d ≥ 3.
 * @param confidence In (0, 1).
 * @param method "iid" | "ivy" | "ar1".
 * @returns `{ level, h }`, h = +Infinity when ℓ is 0.
 * @example
 * trendEndLevel([1, 2, 3, 4, 5], 0, 5, 0.95, "iid"); // => { level: 5, h: 0 }
 */
export function trendEndLevel(
  x: readonly number[],
  d: number,
  end: number,
  confidence: number,
  method: SeenEnoughMethod,
): { level: number; h: number } {
  const length = end - d;
  let sum = 0;
  for (let i = d; i < end; i++) sum += x[i];
  const mean = sum / length;
  const centre = (length - 1) / 2;
  let sxy = 0;
  for (let i = d; i < end; i++) sxy += (i - d - centre) * (x[i] - mean);
  const sxx = (length * (length * length - 1)) / 12;
  const b = sxy / sxx;
  let sse = 0;
  let lag = 0;
  let prev = 0;
  for (let i = d; i < end; i++) {
    const e = x[i] - mean - b * (i - d - centre);
    sse += e * e;
    if (i > d) lag += prev * e;
    prev = e;
  }
  const level = mean + b * centre;
  if (level === 0) return { level, h: Infinity };
  let k = 1;
  if (method === "ivy") k = 2;
  else if (method === "ar1") k = ar1Inflation(ar1Rho(sse > 0 ? lag / sse : 0, length), length);
  const se = Math.sqrt(sse / (length - 2)) * Math.sqrt(1 / length + (centre * centre) / sxx);
  const t = Math.abs(tQuantileCached((1 - confidence) / 2, length - 2));
  return { level, h: (k * t * se) / Math.abs(level) };
}

/**
 * Where the warm-up may have ended, around the rule's start d of x[0 … end−1], on MSER-5's grid of 5:
 * - low: the earliest b ≤ d (b = d − 5, d − 10, …, while each holds) such that the samples b … d−1
 *   cannot be told from steady state: their mean within z long-run standard errors of the retained
 *   mean, |x̄[b, d) − x̄[d, end)| ≤ z·√(k²s²(1/(d − b) + 1/L));
 * - high: the latest b > d (b = d + 5, d + 10, …, while each holds, b ≤ end − 5) such that the samples
 *   d … b−1 still differ from those after them, |x̄[d, b) − x̄[b, end)| > z·√(k²s²(1/(b − d) + 1/(end − b))).
 * s² is the retained window's variance (divisor L − 1, L = end − d) and k² its long-run variance
 * factor, exactly as in {@link significantTruncation}; z as there (2). The interval is the set of starts
 * the significance test cannot tell apart from d, not a confidence interval of a change-point model.
 * Cost O(end) (prefix sums).
 *
 * @param x Samples (finite, scaled near 1).
 * @param d The rule's start (0-based), 0 ≤ d ≤ end − 2.
 * @param end One past the last index.
 * @param k2s2 k²·s² of the retained window (see {@link significantTruncation}).
 * @param z Standard errors.
 * @returns `{ low, high }`, 0-based starts, low ≤ d ≤ high.
 */
export function warmupInterval(
  x: readonly number[],
  d: number,
  end: number,
  k2s2: number,
  z: number,
): { low: number; high: number } {
  const prefix = new Float64Array(end + 1);
  for (let i = 0; i < end; i++) prefix[i + 1] = prefix[i] + x[i];
  const mean = (a: number, b: number): number => (prefix[b] - prefix[a]) / (b - a);
  const kept = mean(d, end);
  let low = d;
  for (let b = d - MSER_BATCH; b >= 0; b -= MSER_BATCH) {
    const se = Math.sqrt(k2s2 * (1 / (d - b) + 1 / (end - d)));
    if (Math.abs(mean(b, d) - kept) > z * se) break;
    low = b;
  }
  let high = d;
  for (let b = d + MSER_BATCH; b <= end - MSER_BATCH; b += MSER_BATCH) {
    const se = Math.sqrt(k2s2 * (1 / (b - d) + 1 / (end - b)));
    if (!(Math.abs(mean(d, b) - mean(b, end)) > z * se)) break;
    high = b;
  }
  return { low, high };
}

/** Relative noise of x[a … b−1]: mean square successive difference over the mean squared (NaN: no answer). */
function relativeNoise(x: readonly number[], a: number, b: number): number {
  let sum = 0;
  for (let i = a; i < b; i++) sum += x[i];
  const mean = sum / (b - a);
  let ss = 0;
  for (let i = a + 1; i < b; i++) ss += (x[i] - x[i - 1]) ** 2;
  return mean === 0 ? NaN : ss / (b - a - 1) / (mean * mean);
}

/** Whether the noise of the first and second half of x[d … end−1] differs by more than 4× in variance. */
export function varianceChanging(x: readonly number[], d: number, end: number): boolean {
  const half = Math.floor((end - d) / 2);
  if (half < 10) return false;
  const first = relativeNoise(x, d, d + half);
  const second = relativeNoise(x, end - half, end);
  if (Number.isNaN(first) || Number.isNaN(second) || (first === 0 && second === 0)) return false;
  return first > 4 * second || second > 4 * first;
}

/** Whether the ⌈L/50⌉ samples farthest from the median of x[d … end−1] hold over half its squared deviations. */
export function burstsDominate(x: readonly number[], d: number, end: number): boolean {
  const length = end - d;
  if (length < 3) return false;
  const sorted = x.slice(d, end).sort((a, b) => a - b);
  const median = length % 2 === 1 ? sorted[(length - 1) / 2] : (sorted[length / 2 - 1] + sorted[length / 2]) / 2;
  const squares = sorted.map((v) => (v - median) ** 2).sort((a, b) => b - a);
  let total = 0;
  for (const s of squares) total += s;
  let top = 0;
  for (let i = 0; i < Math.ceil(length / 50); i++) top += squares[i];
  return total > 0 && top > 0.5 * total;
}

/**
 * The non-stationarity warnings ({@link SeenEnoughWarning}) of a series of n samples whose retained
 * window is x[d … n−1], d2 the start the rule finds on the first n − 2⌈n/10⌉ samples.
 */
export function nonStationarity(x: readonly number[], d: number, d2: number): SeenEnoughWarning[] {
  const n = x.length;
  const warnings: SeenEnoughWarning[] = [];
  if (d > 0 && d - d2 >= Math.ceil(n / 10)) warnings.push("cut moving");
  if (varianceChanging(x, d, n)) warnings.push("variance changing");
  if (burstsDominate(x, d, n)) warnings.push("bursts");
  return warnings;
}

/** The words a warning is shown with (the SEEN_ENOUGH sheet column, the lab's sheets, iogen). */
export function seenEnoughWarningText(w: SeenEnoughWarning): string {
  switch (w) {
    case "cut moving":
      return "the warm-up end keeps moving later as data arrive";
    case "variance changing":
      return "the noise changes over the steady-state window (its halves differ more than 2× in SD)";
    case "bursts":
      return "a few bursts dominate the variation";
  }
}

/** x to 3 significant digits, shortest form (7.2, 1.5, 0.833); "∞" / "−∞" for a noiseless trend's t. */
function sig3(x: number): string {
  if (!Number.isFinite(x)) return x > 0 ? "∞" : "−∞";
  return String(Number(x.toPrecision(3)));
}

/** A fraction as a percentage to 2 significant digits: 0.061 → "6.1 %". */
function percent(x: number): string {
  return `${String(Number((x * 100).toPrecision(2)))} %`;
}

/**
 * Why a FALSE answer is FALSE, in words (the SEEN_ENOUGH sheet column, the lab's sheets, iogen; the
 * same words in iogen's `WhyNot::text`); "" when the answer is TRUE. Numbers: t and its limit to 3
 * significant digits, fractions as percentages to 2.
 *
 * @example
 * // run H of tests/fixtures/steady-state-real at its end (2,391 samples of 100 ms):
 * // "level moving: the level is still rising (trend t = 7.24 against a limit of 1.5)"
 */
export function seenEnoughWhyNotText(
  r: Pick<SeenEnoughResult, "whyNot" | "boundBy" | "achieved" | "from" | "samples">,
): string {
  const why = r.whyNot;
  if (why === null) return "";
  const n = r.from - 1 + r.samples;
  const floor = `${why.limit}${r.boundBy === "seconds" ? ` (${STEADY_MIN_SECONDS} s)` : ""}`;
  const lookBack = `the first ${why.at} of the ${n} samples, which must also look steady (the look back)`;
  const earlier = why.at < n ? ` on ${lookBack}` : "";
  switch (why.refusal) {
    case "too few samples":
      return `too few samples: ${why.value} so far, the shortest window is ${floor}`;
    case "warm-up not over":
      return `warm-up not over: steady state would begin at sample ${why.value + 1}, past the middle of ${why.at < n ? lookBack : `the ${n} samples`}`;
    case "window too short":
      return `window too short: ${why.value} samples after the warm-up, the shortest window is ${floor}`;
    case "level moving":
      return `level moving: the level is still ${why.value > 0 ? "rising" : "falling"} (trend t = ${sig3(why.value)} against a limit of ${sig3(why.limit)})${earlier}`;
    case "not precise enough": {
      const drift = why.value - r.achieved;
      const parts = drift > 0 ? ` (±${percent(r.achieved)} from the noise + ${percent(drift)} for drift)` : "";
      return `not precise enough yet: ±${percent(why.value)}${parts} against ±${percent(why.limit)} asked${earlier}`;
    }
  }
}
