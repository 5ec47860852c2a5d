/**
 * Simple linear regression y = a + b·x with confidence intervals and per-point diagnostics, and
 * the inverse question "at which x does the mean line reach y₀?" (Fieller's interval).
 * Pure; throws only DomainError.
 */
import tQuantile from "@stdlib/stats-base-dists-t-quantile";
import { DomainError } from "./errors";

export interface LinearFitOptions {
  /** Two-sided confidence level of the intervals, in (0, 1); default 0.95. */
  confidence?: number;
  /**
   * Weights w > 0, one per point (weighted least squares: Var(eᵢ) = σ²/wᵢ); default all 1. Only
   * their ratios matter.
   */
  weights?: readonly number[];
}

export interface LinearFitResult {
  /** Points used. */
  n: number;
  /** Residual degrees of freedom, n − 2. */
  df: number;
  /** Estimates of y = a + b·x. */
  intercept: number;
  slope: number;
  /** Standard errors of the intercept and slope, and their covariance. */
  seIntercept: number;
  seSlope: number;
  covariance: number;
  /** Residual standard error s = √(RSS / (n − 2)). */
  s: number;
  /** Coefficient of determination 1 − RSS/TSS (1 when y is constant and fitted exactly). */
  r2: number;
  /** (Weighted) mean of x, Σw(x − x̄)² and Σw (n when unweighted). */
  xMean: number;
  sxx: number;
  sumWeights: number;
  /** Confidence level and the two-sided Student t quantile t(1 − α/2; n − 2). */
  confidence: number;
  t: number;
  /** Confidence intervals: estimate ∓ t · se. */
  interceptCi: [number, number];
  slopeCi: [number, number];
  /** Per point, in input order: residual e = y − ŷ, leverage h, externally studentized residual, Cook's D. */
  residuals: number[];
  leverage: number[];
  /** e / (s₍ᵢ₎ √(1 − h)), s₍ᵢ₎ the residual SE without point i (R's rstudent); NaN-free: 0 when e = 0, null when n − 3 = 0 or h = 1. */
  studentized: (number | null)[];
  /** Cook's distance e² h / (2 s² (1 − h)²); null when h = 1 or s = 0. */
  cooks: (number | null)[];
}

/**
 * Fits y = a + b·x by ordinary least squares and gives the usual normal-theory intervals and the
 * regression diagnostics a planner needs to trust a "cost per unit" slope.
 *
 * Formulas (centred, two-pass: x̄ and ȳ first, then the centred sums, so nothing large is squared
 * before the means are removed; with weights w, W = Σw and every sum weighted, unweighted w = 1):
 * Sxx = Σw(x − x̄)², Sxy = Σw(x − x̄)(y − ȳ), b = Sxy/Sxx, a = ȳ − b·x̄, s² = Σwe²/(n − 2),
 * se(b) = s/√Sxx, se(a) = s·√(1/W + x̄²/Sxx), cov(a, b) = −x̄·s²/Sxx; interval =
 * estimate ± t(1 − α/2; n − 2)·se. Leverage h = w(1/W + (x − x̄)²/Sxx) (the h sum to 2; Hoaglin &
 * Welsch 1978 flag h > 4/n); studentized residual (external, as R's `rstudent`) and Cook's distance
 * D = r²h/(2(1 − h)) with r the internally studentized residual √w·e/(s√(1 − h)) (Cook 1977; D > 1
 * is influential).
 *
 * Cost O(n). Accuracy: NIST StRD Norris to ≥ 12 significant digits (tests/core/linear-fit-ci.test.ts);
 * intervals, leverages, studentized residuals and Cook's D agree with statsmodels OLS to 1e-10
 * relative (tests/core/fixtures/gen-linear-fit-ci.py).
 *
 * References: Draper & Smith, Applied Regression Analysis, 3rd ed. (1998), ch. 1–3 and 8; Cook,
 * Technometrics 19 (1977) 15–18; Hoaglin & Welsch, The American Statistician 32 (1978) 17–22.
 *
 * @param x Regressor values (finite), at least two distinct.
 * @param y Responses (finite), same length as x, at least 3 points (an interval needs n − 2 ≥ 1).
 * @param options `confidence` (default 0.95), `weights` (default all 1).
 * @returns the estimates, standard errors, intervals and per-point diagnostics.
 * @throws DomainError("x" | "y" | "weights" | "confidence", …) on lengths, non-finite values, weights ≤ 0, fewer than 3 points or a constant x.
 * @example
 * const f = linearFit([1, 2, 3, 4], [3.1, 4.9, 7.2, 8.8]);
 * f.slope; // => 1.94 (to rounding)
 * f.slopeCi; // => [1.5504, 2.3296] (to 4 decimals)
 */
export function linearFit(x: readonly number[], y: readonly number[], options: LinearFitOptions = {}): LinearFitResult {
  const confidence = options.confidence ?? 0.95;
  if (!(confidence > 0 && confidence < 1)) throw new DomainError("confidence", `must be in (0, 1), got ${confidence}`);
  if (x.length !== y.length)
    throw new DomainError("y", `must have as many values as x (${x.length}), got ${y.length}`, "value");
  const n = x.length;
  if (n < 3) throw new DomainError("x", `needs at least 3 points for an interval (n − 2 ≥ 1), got ${n}`, "value");
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(x[i])) throw new DomainError("x", `value ${i + 1} is not a finite number`, "value");
    if (!Number.isFinite(y[i])) throw new DomainError("y", `value ${i + 1} is not a finite number`, "value");
  }
  const w = options.weights;
  if (w !== undefined) {
    if (w.length !== n)
      throw new DomainError("weights", `must have as many values as x (${n}), got ${w.length}`, "value");
    for (let i = 0; i < n; i++)
      if (!(w[i] > 0) || !Number.isFinite(w[i]))
        throw new DomainError("weights", `value ${i + 1} must be a finite number > 0`, "value");
  }
  const wt = (i: number): number => (w === undefined ? 1 : w[i]);
  let sumWeights = 0;
  for (let i = 0; i < n; i++) sumWeights += wt(i);
  const xMean = mean(x, wt, sumWeights);
  const yMean = mean(y, wt, sumWeights);
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = x[i] - xMean;
    const dy = y[i] - yMean;
    sxx += wt(i) * dx * dx;
    sxy += wt(i) * dx * dy;
    syy += wt(i) * dy * dy;
  }
  if (!(sxx > 0)) throw new DomainError("x", "all x values are equal: the slope is not identified", "div0");
  const slope = sxy / sxx;
  const intercept = yMean - slope * xMean;
  const residuals = new Array<number>(n);
  let rss = 0;
  for (let i = 0; i < n; i++) {
    residuals[i] = y[i] - yMean - slope * (x[i] - xMean);
    rss += wt(i) * residuals[i] * residuals[i];
  }
  const df = n - 2;
  const s2 = rss / df;
  const s = Math.sqrt(s2);
  const seSlope = s / Math.sqrt(sxx);
  const seIntercept = s * Math.sqrt(1 / sumWeights + (xMean * xMean) / sxx);
  const covariance = (-xMean * s2) / sxx;
  const t = tQuantile(1 - (1 - confidence) / 2, df);
  const leverage = x.map((xi, i) => wt(i) * (1 / sumWeights + (xi - xMean) ** 2 / sxx));
  const studentized = residuals.map((e, i) => {
    const h = leverage[i];
    if (e === 0) return 0;
    if (df - 1 < 1 || !(h < 1)) return null;
    // s₍ᵢ₎² = (RSS − w e²/(1 − h)) / (n − 3): the residual variance with point i left out.
    const we2 = wt(i) * e * e;
    const si2 = (rss - we2 / (1 - h)) / (df - 1);
    return si2 > 0 ? (Math.sqrt(wt(i)) * e) / Math.sqrt(si2 * (1 - h)) : null;
  });
  const cooks = residuals.map((e, i) => {
    const h = leverage[i];
    if (!(h < 1) || !(s2 > 0)) return null;
    return (wt(i) * e * e * h) / (2 * s2 * (1 - h) ** 2);
  });
  return {
    n,
    df,
    intercept,
    slope,
    seIntercept,
    seSlope,
    covariance,
    s,
    r2: syy > 0 ? 1 - rss / syy : 1,
    xMean,
    sxx,
    sumWeights,
    confidence,
    t,
    interceptCi: [intercept - t * seIntercept, intercept + t * seIntercept],
    slopeCi: [slope - t * seSlope, slope + t * seSlope],
    residuals,
    leverage,
    studentized,
    cooks,
  };
}

/** Weighted mean with one correction pass (the second pass removes the rounding of the first). */
function mean(v: readonly number[], w: (i: number) => number, sumWeights: number): number {
  let m = 0;
  for (let i = 0; i < v.length; i++) m += w(i) * v[i];
  m /= sumWeights;
  let c = 0;
  for (let i = 0; i < v.length; i++) c += w(i) * (v[i] - m);
  return m + c / sumWeights;
}

export interface InverseEstimate {
  /** x̂₀ = x̄ + (y₀ − ȳ)/b, where the fitted mean line reaches y₀. */
  estimate: number;
  /**
   * Fieller's confidence interval for x₀, or null when it is not a finite interval (the slope is
   * not significantly different from 0 at this level: g = t²·se(b)²/b² ≥ 1).
   */
  ci: [number, number] | null;
  /** g = (t·se(b)/b)²: the interval is finite only for g < 1, and close to the delta method for g ≪ 1. */
  g: number;
}

/**
 * The x at which the fitted mean line reaches y₀ (calibration, "inverse prediction" of the mean),
 * with Fieller's (1954) exact interval under the normal model: the set of x whose line value
 * a + b·x is not rejected as y₀, i.e. (a + b·x − y₀)² ≤ t²s²(1/W + (x − x̄)²/Sxx) (W = n unweighted). With
 * d₀ = x̂₀ − x̄ and g = t²s²/(b²Sxx) < 1 the ends are
 * x̄ + [d₀ ± (t·s/|b|)·√(d₀²/Sxx + (1 − g)/W)] / (1 − g).
 * Cost O(1).
 *
 * Reference: Draper & Smith, Applied Regression Analysis (1998) §3.2 "Inverse regression (straight
 * line case)"; Fieller, JRSS B 16 (1954) 175–185.
 *
 * @param fit A {@link linearFit} result.
 * @param y0 The line value (e.g. 100 % CPU).
 * @returns the estimate, the interval (null when unbounded) and g.
 * @throws DomainError("slope", …) when the fitted slope is 0; DomainError("y0", …) when not finite.
 * @example
 * inverseEstimate(linearFit([1, 2, 3, 4], [3.1, 4.9, 7.2, 8.8]), 10); // => { estimate: 4.5619, ci: [4.1599, 5.1371], g: 0.0403 } (rounded)
 */
export function inverseEstimate(fit: LinearFitResult, y0: number): InverseEstimate {
  if (!Number.isFinite(y0)) throw new DomainError("y0", "must be a finite number", "value");
  if (fit.slope === 0) throw new DomainError("slope", "is 0: the line never reaches another value", "div0");
  const yMean = fit.intercept + fit.slope * fit.xMean;
  const d0 = (y0 - yMean) / fit.slope;
  const estimate = fit.xMean + d0;
  const g = (fit.t * fit.seSlope) ** 2 / fit.slope ** 2;
  if (!(g < 1)) return { estimate, ci: null, g };
  const half = ((fit.t * fit.s) / Math.abs(fit.slope)) * Math.sqrt((d0 * d0) / fit.sxx + (1 - g) / fit.sumWeights);
  return { estimate, ci: [fit.xMean + (d0 - half) / (1 - g), fit.xMean + (d0 + half) / (1 - g)], g };
}
