/**
 * DOE_FIT's table layout: a {@link DoeFitResult} as the rows the worksheet function spills, in
 * the shape of R's `summary(lm(...))` coefficient table followed by its summary lines. One layout
 * for the worksheet wrapper (`src/functions/functions.ts`, which turns a missing value into `#N/A`)
 * and the lab analysis (`src/lab/fit.ts`, which writes the same table beside the live
 * formula), so the two cannot drift.
 */
import type { DoeFitResult } from "./doe-fit";

/** A value that does not exist (an aliased term's estimate, F with zero residual df), with why. */
export interface MissingValue {
  missing: string;
}

export type DoeFitTableCell = string | number | MissingValue;

/** True for a {@link MissingValue}. */
export function isMissingValue(v: DoeFitTableCell): v is MissingValue {
  return typeof v === "object" && v !== null && "missing" in v;
}

function orMissing(v: number | null, why: string): number | MissingValue {
  return v === null ? { missing: why } : v;
}

/**
 * The DOE_FIT table of a fit: a header row (Term | Estimate | Std. Error | t value | Pr(>|t|), with
 * "(Lenth …)" in the headers when significance comes from Lenth's pseudo standard error), one row
 * per term, then nine summary rows (label, value, "", "", "").
 *
 * @param fit - the result of `doeFit`
 * @returns the rows, 5 cells each
 * @example
 * // y = 1, 3, 2, 4 at A = −1, +1, −1, +1: mean 2.5, residual SE √0.5, so SE(intercept) = √0.5 / 2
 * doeFitTable(doeFit(["A"], [[-1, 1, -1, 1]], [1, 3, 2, 4]))[1] // => ["(Intercept)", 2.5, 0.35355…, 7.0710…, …]
 */
export function doeFitTable(fit: DoeFitResult): DoeFitTableCell[][] {
  const lenth = fit.significanceFrom === "lenth";
  const out: DoeFitTableCell[][] = [
    lenth
      ? ["Term", "Estimate", "Std. Error (Lenth PSE)", "t value (Lenth)", "Pr(>|t|) (Lenth, m/3 df)"]
      : ["Term", "Estimate", "Std. Error", "t value", "Pr(>|t|)"],
  ];
  for (const t of fit.terms) {
    const why = t.aliased ? `${t.name} is aliased with earlier terms` : `${t.name}: no standard error`;
    out.push([
      t.name,
      orMissing(t.estimate, why),
      orMissing(t.stdError, why),
      orMissing(t.tValue, why),
      orMissing(t.pValue, why),
    ]);
  }
  const zeroDf = "zero residual degrees of freedom";
  const summary: Array<[string, number | null, string]> = [
    ["Residual standard error", fit.residualStandardError, zeroDf],
    ["Residual df", fit.residualDf, ""],
    ["Multiple R-squared", fit.rSquared, "the response does not vary"],
    ["Adjusted R-squared", fit.adjRSquared, zeroDf],
    ["F-statistic", fit.fStatistic, "no F test (zero residual df, no terms, or a perfect fit)"],
    ["F numerator df", fit.fNumeratorDf, ""],
    ["F denominator df", fit.fDenominatorDf, ""],
    ["F p-value", fit.fPValue, "no F test"],
    ["Observations", fit.observations, ""],
  ];
  for (const [label, value, why] of summary) out.push([label, orMissing(value, why), "", "", ""]);
  return out;
}
