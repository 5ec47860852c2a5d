/**
 * Saturation throughput and knee from response time against throughput: the single-queue curve
 * R = S / (1 − X/X_max) fitted to measured steps, with intervals, and the model-free rule "the
 * largest measured X whose R is at most k × the light-load R". Pure; throws only DomainError.
 */
import { DomainError } from "./errors";
import { inverseEstimate, linearFit, LinearFitResult } from "./linear-fit-ci";

export interface KneeFitResult {
  /** Light-load response time S = 1/β₀ (ms or whatever unit R is in), with its interval. */
  serviceTime: { estimate: number; lo: number; hi: number } | null;
  /** Saturation throughput X_max = −β₀/β₁ with Fieller's interval (null ends: not bounded). */
  saturation: { estimate: number; lo: number | null; hi: number | null };
  /** The knee on the fitted curve: where R = k·S, X = X_max·(1 − 1/k), interval scaled alike. */
  knee: { estimate: number; lo: number | null; hi: number | null; response: number };
  /** The fit of 1/R on X. */
  fit: LinearFitResult;
}

/**
 * Fits R = S / (1 − X/X_max) — the M/M/1 mean response with S the light-load response, and the
 * shape of any open single-bottleneck system near saturation — by weighted least squares (weights
 * R², for relative noise in R) on its linear form 1/R = β₀ + β₁·X (β₀ = 1/S, β₁ = −1/(S·X_max)). X_max is where the line of 1/R reaches 0, so
 * its interval is Fieller's for that root ({@link inverseEstimate}): exact under normal errors in
 * 1/R, unbounded (null ends) when β₁ is not significantly below 0. S has the interval 1/(β₀'s
 * interval). The knee is where R = k·S: X = X_max·(1 − 1/k) (k = 2: half of X_max), with the
 * X_max interval scaled by the same factor. Steps must be unsaturated and open-loop (a closed-loop
 * "as fast as possible" step sits at R = N/X and does not follow the curve): leave them out.
 * Cost O(n).
 *
 * References: Menascé, Almeida & Dowdy, Performance by Design (2004) ch. 3 (operational bounds,
 * M/M/1); Draper & Smith (1998) §3.2 (inverse regression, Fieller).
 *
 * @param x Throughputs (> 0), at least 3 distinct.
 * @param r Mean (or p99) response times (> 0), same length.
 * @param k The knee factor (> 1), default 2.
 * @returns S, X_max and the knee with intervals, and the fit.
 * @throws DomainError("x" | "r" | "k", …) on bad input; DomainError("r", …) when R does not rise with X
 *   (no saturation within reach: the fitted 1/R line does not fall).
 * @example
 * kneeFit([1000, 5000, 10000, 15000], [0.5 / 0.9667, 0.5 / 0.8333, 0.5 / 0.6667, 0.5 / 0.5]).saturation.estimate;
 * // => 30000 (to rounding)
 */
export function kneeFit(x: readonly number[], r: readonly number[], k = 2): KneeFitResult {
  if (!(k > 1) || !Number.isFinite(k)) throw new DomainError("k", `must be a number > 1, got ${k}`);
  if (x.length !== r.length)
    throw new DomainError("r", `must have as many values as x (${x.length}), got ${r.length}`, "value");
  for (let i = 0; i < x.length; i++) {
    if (!(x[i] > 0) || !Number.isFinite(x[i]))
      throw new DomainError("x", `value ${i + 1} must be a finite number > 0`, "value");
    if (!(r[i] > 0) || !Number.isFinite(r[i]))
      throw new DomainError("r", `value ${i + 1} must be a finite number > 0`, "value");
  }
  // Response-time noise is relative (a few % of R), so Var(1/R) ∝ 1/R²: weights R² make the
  // errors of the linear form equal (weighted least squares).
  const fit = linearFit(
    x,
    r.map((v) => 1 / v),
    { weights: r.map((v) => v * v) },
  );
  if (!(fit.slope < 0) || !(fit.intercept > 0))
    throw new DomainError(
      "r",
      "does not rise with the throughput over these steps: no saturation point within reach",
      "num",
    );
  const inv = inverseEstimate(fit, 0);
  const [b0lo, b0hi] = fit.interceptCi;
  const serviceTime = b0lo > 0 ? { estimate: 1 / fit.intercept, lo: 1 / b0hi, hi: 1 / b0lo } : null;
  const share = 1 - 1 / k;
  const saturation = { estimate: inv.estimate, lo: inv.ci ? inv.ci[0] : null, hi: inv.ci ? inv.ci[1] : null };
  return {
    serviceTime,
    saturation,
    knee: {
      estimate: saturation.estimate * share,
      lo: saturation.lo === null ? null : saturation.lo * share,
      hi: saturation.hi === null ? null : saturation.hi * share,
      response: k / fit.intercept,
    },
    fit,
  };
}

/**
 * The model-free knee: the largest measured throughput whose response time is at most k × the
 * response at the lightest load (the step with the smallest X), and the first step beyond it.
 * Cost O(n log n).
 *
 * @param x Throughputs (finite), at least 1.
 * @param r Response times (> 0), same length.
 * @param k The factor (> 1), default 2.
 * @returns the index of that step (into the inputs), its X and R, R₀, and the index of the next step by X (null when it is the last): the knee lies between the two.
 * @throws DomainError on lengths, empty input or values out of range.
 * @example
 * kneeRule([1000, 4000, 12000, 16000], [0.5, 0.6, 1.4, 3.0]); // => { index: 2, x: 12000, r: 1.4, lightLoadR: 0.5, next: 3 }
 */
export function kneeRule(
  x: readonly number[],
  r: readonly number[],
  k = 2,
): { index: number; x: number; r: number; lightLoadR: number; next: number | null } {
  if (!(k > 1) || !Number.isFinite(k)) throw new DomainError("k", `must be a number > 1, got ${k}`);
  if (x.length !== r.length)
    throw new DomainError("r", `must have as many values as x (${x.length}), got ${r.length}`, "value");
  if (x.length === 0) throw new DomainError("x", "needs at least one step", "value");
  for (let i = 0; i < x.length; i++) {
    if (!Number.isFinite(x[i])) throw new DomainError("x", `value ${i + 1} is not a finite number`, "value");
    if (!(r[i] > 0) || !Number.isFinite(r[i]))
      throw new DomainError("r", `value ${i + 1} must be a finite number > 0`, "value");
  }
  const order = x.map((_, i) => i).sort((a, b) => x[a] - x[b]);
  const r0 = r[order[0]];
  // The largest X with R ≤ k·R₀ (a noisy step back under the line further on still counts).
  let pos = 0;
  order.forEach((i, p) => {
    if (r[i] <= k * r0) pos = p;
  });
  const index = order[pos];
  return { index, x: x[index], r: r[index], lightLoadR: r0, next: pos + 1 < order.length ? order[pos + 1] : null };
}
