/**
 * DOE_FIT: R's summary(lm(y ~ (a + b + …)^order)) for designed experiments. Pure; throws only
 * DomainError.
 */
import tCdf from "@stdlib/stats-base-dists-t-cdf";
import betainc from "@stdlib/math-base-special-betainc";
import { DoubleDoubleSum } from "./double-double";
import { DomainError, isDomainError } from "./errors";
import { leastSquares, type LeastSquaresResult } from "./least-squares";
import { lenthPse } from "./lenth";
import { codeFactors, modelTerms, termColumns, type FactorCoding, type ModelTerm } from "./model-matrix";
import { balancedFactorialFit } from "./yates";

export interface DoeFitOptions {
  /** Highest interaction order (default 2), as in R's (a + b + c)^order. */
  order?: number;
  /** "coded" (default): factors scaled to [−1, +1]; "raw": numbers as given. */
  coding?: FactorCoding;
  /** Fit an intercept (default true). */
  intercept?: boolean;
}

export interface DoeFitTerm {
  /** "(Intercept)", a factor name, or "A:B" … */
  name: string;
  /** Coefficient (null when aliased). */
  estimate: number | null;
  /** Standard error (residual-based, or Lenth's PSE); null when aliased or not available. */
  stdError: number | null;
  /** estimate / stdError; null when not available. */
  tValue: number | null;
  /** Two-sided p-value of tValue; null when not available. */
  pValue: number | null;
  /** True when the term cannot be estimated (linearly dependent on earlier terms). */
  aliased: boolean;
}

export interface DoeFitResult {
  terms: DoeFitTerm[];
  /** √(RSS / residualDf), unit of the response; null when residualDf = 0. */
  residualStandardError: number | null;
  /** observations − rank. */
  residualDf: number;
  /** 1 − RSS/TSS (TSS about the mean with an intercept, about 0 without: uncentred, as R and NIST). */
  rSquared: number | null;
  /** 1 − (1 − R²)(n − i)/residualDf, i = 1 with an intercept else 0; null when residualDf = 0. */
  adjRSquared: number | null;
  /** Overall F statistic; null when residualDf = 0 or there is no non-intercept term. */
  fStatistic: number | null;
  /** rank − 1 with an intercept, rank without. */
  fNumeratorDf: number;
  /** residualDf. */
  fDenominatorDf: number;
  /** Upper-tail F probability; null when fStatistic is null. */
  fPValue: number | null;
  /** Rows used (rows with a blank response are skipped). */
  observations: number;
  /** Rows skipped because their response was blank. */
  skipped: number;
  /** Where significance comes from: the residuals, or Lenth's PSE (zero residual df). */
  significanceFrom: "residuals" | "lenth";
  /** Degrees of freedom of the t tests (residualDf, or m/3 under Lenth). */
  tDf: number;
}

/**
 * Least-squares fit of a designed experiment with all interactions up to `order`, reported like R's
 * `summary(lm(y ~ (f1 + … + fm)^order))`.
 *
 * Model matrix: {@link modelMatrix} — R's term order; "coded" scales each numeric factor to [−1, +1]
 * by (x − mid)/half-range (two levels → −1/+1 exactly as DoE.base's contr.FrF2); a text factor must
 * have two levels, alphabetically first → −1. Fit: {@link leastSquares} (Householder QR with R's
 * limited pivoting; aliased terms are reported, not dropped) — or, for a balanced full 2^k
 * factorial in ±1 coding, {@link balancedFactorialFit} (Yates' algorithm, the same numbers in
 * O(n + k·2^k)). SE_j = σ̂ √[(R'R)⁻¹]_jj with
 * σ̂² = RSS/(n − rank); t = b/SE, p = 2·P(T > |t|) on n − rank df (@stdlib t-cdf);
 * F = ((TSS − RSS)/df₁)/(RSS/df₂), p = P(F₍df₁,df₂₎ > F) as the regularized incomplete beta
 * I_{df₂/(df₂ + df₁F)}(df₂/2, df₁/2) (@stdlib betainc; unlike 1 − cdf it keeps tiny p-values). R² is uncentred without an intercept.
 * When n − rank = 0 (an unreplicated full model) significance comes from Lenth's PSE over the
 * non-intercept estimates ({@link lenthPse}): SE = PSE for every effect, t on m/3 df; the
 * intercept then has no SE.
 *
 * Magnitude: the response is first divided by a power of two near its largest |y| (exact), so
 * squares neither overflow (|y| ≥ 1e155) nor underflow (|y| ≤ 1e-170); estimates, SEs and σ̂ are
 * multiplied back. TSS is taken about the mean held in double-double.
 *
 * Cost: O(n p²) with p the number of terms; O(n + k·2^k + p) for a balanced full 2^k factorial.
 *
 * @param names Factor names (unique).
 * @param columns One array of cells per factor (numbers or text), each of length n.
 * @param response n responses (unit of the measurement); null = blank, the row is skipped.
 * @param options.order Interaction order (default 2). options.coding "coded" | "raw" (default
 *   "coded"). options.intercept (default true).
 * @returns Terms (estimate, stdError, tValue, pValue, aliased) and the summary statistics.
 * @throws DomainError("response", …) for a non-finite response or fewer usable rows than 1;
 *   DomainError("factors", …) for bad factors (see modelMatrix); DomainError("order" | "coding", …).
 * @example
 * doeFit(["A"], [[-1, 1, -1, 1]], [1, 3, 1.2, 2.8]).terms[1].estimate; // => 0.9 (to rounding)
 */
export function doeFit(
  names: readonly string[],
  columns: readonly (readonly (number | string)[])[],
  response: readonly (number | null)[],
  options: DoeFitOptions = {},
): DoeFitResult {
  const order = options.order ?? 2;
  const coding = options.coding ?? "coded";
  const intercept = options.intercept ?? true;
  const keep = checkedRowsToUse(names, columns, response, coding);
  const n = keep.length;
  // Scaled by a power of two near its largest magnitude (exact): squares of responses of 1e155 or
  // 1e-170 would overflow or underflow. Everything below is in these units; estimates, standard
  // errors and σ̂ are multiplied back at the end, and t, p, R² and F have no unit.
  const unit = powerOfTwoScale(keep.map((i) => response[i] as number));
  const y = keep.map((i) => (response[i] as number) / unit);
  const cols = columns.map((c) => keep.map((i) => c[i]));
  const coded = codeFactors(names, cols, coding);
  const modelTermList = modelTerms(names, order, intercept);
  // A balanced full 2^k factorial in ±1 (every DOE_DESIGN sheet) by Yates' algorithm; QR otherwise.
  const general = (): LeastSquaresResult =>
    balancedFactorialFit(coded, modelTermList, y) ?? leastSquares(termColumns(modelTermList, coded), y);
  const constant = intercept && y.every((v) => v === y[0]);
  const fit = constant ? constantFit(general(), modelTermList, y[0]) : general();
  const residualDf = n - fit.rank;

  const tss = totalSumOfSquares(y, intercept, constant);
  const fNumeratorDf = intercept ? fit.rank - 1 : fit.rank;
  const rSquared = tss > 0 ? 1 - fit.rss / tss : null;
  const { significanceFrom, se, tDf, sigma } = significance(fit, modelTermList, residualDf, unit);
  const terms = termRows(fit, modelTermList, se, tDf, unit);
  const overall = overallFit(fit.rss, tss, rSquared, { n, intercept, residualDf, fNumeratorDf });
  return {
    terms,
    residualStandardError: sigma,
    residualDf,
    rSquared,
    adjRSquared: overall.adjRSquared,
    fStatistic: overall.fStatistic,
    fNumeratorDf,
    fDenominatorDf: residualDf,
    fPValue: overall.fPValue,
    observations: n,
    skipped: response.length - n,
    significanceFrom,
    tDf,
  };
}

/**
 * The rows to fit (those with a response; null responses are skipped), once the coding, the
 * factor columns' lengths and the responses are checked.
 */
function checkedRowsToUse(
  names: readonly string[],
  columns: readonly (readonly (number | string)[])[],
  response: readonly (number | null)[],
  coding: string,
): number[] {
  if (coding !== "coded" && coding !== "raw") {
    throw new DomainError("coding", `must be "coded" or "raw", got "${String(coding)}"`, "value");
  }
  columns.forEach((c, j) => {
    if (c.length !== response.length) {
      throw new DomainError(
        "factors",
        `factor "${names[j]}" has ${c.length} values, response has ${response.length}`,
        "value",
      );
    }
  });
  const keep: number[] = [];
  response.forEach((v, i) => {
    if (v === null) return;
    if (typeof v !== "number" || !Number.isFinite(v)) {
      throw new DomainError("response", `row ${i + 1} is not a finite number`, "value");
    }
    keep.push(i);
  });
  if (keep.length === 0) throw new DomainError("response", "has no values", "value");
  return keep;
}

/** R's total sum of squares: about the mean with an intercept, about 0 without; 0 for a constant response. */
function totalSumOfSquares(y: readonly number[], intercept: boolean, constant: boolean): number {
  let tss = 0;
  if (constant) {
    tss = 0;
  } else if (intercept) {
    // About the mean in double-double (hi + lo): on a large offset the rounded mean alone is off
    // by as much as the deviations (a constant 0.1 with one run 1 ulp above it).
    const [hi, lo] = meanDoubleDouble(y);
    for (const v of y) tss += (v - hi - lo) ** 2;
  } else {
    for (const v of y) tss += v * v;
  }
  return tss;
}

/** Where the standard errors come from, in the scaled units; σ̂ in the response's own units. */
interface Significance {
  significanceFrom: "residuals" | "lenth";
  se: (j: number) => number | null;
  tDf: number;
  sigma: number | null;
}

/**
 * Standard errors from the residuals when there are residual degrees of freedom; otherwise (a
 * saturated model) Lenth's pseudo standard error of the effects, or none when it cannot be had.
 */
function significance(
  fit: LeastSquaresResult,
  modelTermList: readonly ModelTerm[],
  residualDf: number,
  unit: number,
): Significance {
  if (residualDf > 0) {
    const sigmaScaled = Math.sqrt(fit.rss / residualDf);
    return {
      significanceFrom: "residuals",
      se: (j) => (fit.unscaledVariance[j] === null ? null : sigmaScaled * Math.sqrt(fit.unscaledVariance[j] as number)),
      tDf: residualDf,
      sigma: sigmaScaled * unit,
    };
  }
  const effects = modelTermList
    .map((t, j) => (t.factors.length > 0 ? fit.coefficients[j] : null))
    .filter((b): b is number => b !== null);
  // No effects, or a PSE of 0 (most effects exactly 0): estimates only, no significance.
  const lenth = effects.length > 0 && effects.some((b) => b !== 0) ? lenthPseOrNull(effects) : null;
  if (lenth === null) return { significanceFrom: "lenth", se: () => null, tDf: residualDf, sigma: null };
  return {
    significanceFrom: "lenth",
    se: (j) => (modelTermList[j].factors.length > 0 && fit.coefficients[j] !== null ? lenth.pse : null),
    tDf: lenth.df,
    sigma: null,
  };
}

/** One row per model term: estimate and standard error back in the response's units, t and two-sided p. */
function termRows(
  fit: LeastSquaresResult,
  modelTermList: readonly ModelTerm[],
  se: (j: number) => number | null,
  tDf: number,
  unit: number,
): DoeFitTerm[] {
  return modelTermList.map((t, j) => {
    const estimate = fit.coefficients[j];
    const stdError = estimate === null ? null : se(j);
    const tValue = estimate !== null && stdError !== null && stdError > 0 ? estimate / stdError : null;
    const pValue = tValue === null ? null : 2 * tCdf(-Math.abs(tValue), tDf);
    return {
      name: t.name,
      estimate: estimate === null ? null : estimate * unit,
      stdError: stdError === null ? null : stdError * unit,
      tValue,
      pValue,
      aliased: fit.aliased[j],
    };
  });
}

/** Adjusted R² and the overall F test, as R's summary.lm gives them (none without residual degrees of freedom). */
function overallFit(
  rss: number,
  tss: number,
  rSquared: number | null,
  dims: { n: number; intercept: boolean; residualDf: number; fNumeratorDf: number },
): { adjRSquared: number | null; fStatistic: number | null; fPValue: number | null } {
  const { n, intercept, residualDf, fNumeratorDf } = dims;
  let fStatistic: number | null = null;
  let fPValue: number | null = null;
  let adjRSquared: number | null = null;
  if (residualDf > 0) {
    if (rSquared !== null) adjRSquared = 1 - ((1 - rSquared) * (n - (intercept ? 1 : 0))) / residualDf;
    if (fNumeratorDf > 0 && rss > 0) {
      fStatistic = (tss - rss) / fNumeratorDf / (rss / residualDf);
      fPValue = fUpperTail(fStatistic, fNumeratorDf, residualDf);
    }
  }
  return { adjRSquared, fStatistic, fPValue };
}

/**
 * A constant response with an intercept, answered exactly as R's lm does: the intercept is the
 * constant, every other estimable term 0, the residuals 0 (so SEs 0, no t, p or F) — rather than
 * the last-bit noise a floating-point fit leaves in them.
 */
function constantFit(fit: LeastSquaresResult, terms: readonly ModelTerm[], value: number): LeastSquaresResult {
  return {
    ...fit,
    coefficients: fit.coefficients.map((b, j) => (b === null ? null : terms[j].factors.length === 0 ? value : 0)),
    residuals: fit.residuals.map(() => 0),
    rss: 0,
  };
}

/**
 * A power of two within a factor 2 of the largest |v| (1 when all are 0): dividing by it is exact
 * and brings the values near 1, so their squares neither overflow nor underflow.
 */
function powerOfTwoScale(values: readonly number[]): number {
  let max = 0;
  for (const v of values) max = Math.max(max, Math.abs(v));
  return max === 0 ? 1 : 2 ** Math.floor(Math.log2(max));
}

/** The mean as a double-double pair [hi, lo] (hi the rounded mean, lo what rounding left). */
function meanDoubleDouble(y: readonly number[]): [number, number] {
  const sum = new DoubleDoubleSum();
  for (const v of y) sum.add(v);
  const hi = sum.value() / y.length;
  sum.addProduct(-hi, y.length);
  return [hi, sum.value() / y.length];
}

/** Upper tail P(F(d1, d2) > f) = I_{d2/(d2 + d1 f)}(d2/2, d1/2), accurate for tiny p-values. */
function fUpperTail(f: number, d1: number, d2: number): number {
  return betainc(d2 / (d2 + d1 * f), d2 / 2, d1 / 2, true, false);
}

/** Lenth's PSE, or null when it is 0 (more than half the effects are exactly 0). */
function lenthPseOrNull(effects: readonly number[]): { pse: number; df: number } | null {
  try {
    return lenthPse(effects);
  } catch (e) {
    if (isDomainError(e)) return null;
    throw e;
  }
}
