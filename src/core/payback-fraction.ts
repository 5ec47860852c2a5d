/**
 * Fractional payback: the payback in years when each year's saving is taken to accrue evenly
 * through that year (what finance templates usually show), beside the whole-year payback of
 * `payback.ts` (payments as lumps at the start of each year, the timing of the NPV).
 *
 * With savings Δ_t at t = 0 … N − 1 and S_t = Σ_{u ≤ t} Δ_u/(1 + r)^u, let k be the LAST year with
 * S_k < 0 (as `payback.ts`, so a later dip is not hidden). The whole-year payback is k + 1; the
 * fractional one interpolates the year that recovers it:
 *
 *     payback = k + (−S_k) / (Δ_{k+1}/(1 + r)^{k+1})
 *
 * a number in (k, k + 1]; 0 when the cumulative saving is never negative; null when it is still
 * negative after the last year. The same rule on the sheet: k from 1 + MAX((S < 0)·year), then
 * INDEX into the running sums and the savings.
 *
 * Cost: O(N). Reference: HM Treasury, The Green Book (2022), §A6 (payback and its limits).
 */
import { DomainError } from "./errors";

/**
 * The payback in years with each year's saving accruing evenly (see the module comment).
 *
 * @param savings - Δ_t, the saving in year t = 0 … N − 1 (currency), finite
 * @param rate - discount rate per year (> −1) for the discounted payback; 0 for the simple one
 * @returns years (0 … N, fractional), or null when not reached within the N years
 * @throws DomainError (`#NUM!`) for a non-finite saving or a rate ≤ −1
 * @example
 * fractionalPayback([-150000, 100000, 100000], 0); // => 1.5
 */
export function fractionalPayback(savings: readonly number[], rate = 0): number | null {
  if (!Number.isFinite(rate) || rate <= -1) throw new DomainError("rate", `must be > -1, got ${rate}`, "num");
  const cumulative: number[] = [];
  let lastNegative = -1;
  savings.forEach((s, t) => {
    if (!Number.isFinite(s)) throw new DomainError("savings", `the saving in year ${t} is not finite: ${s}`, "num");
    cumulative.push((t > 0 ? cumulative[t - 1] : 0) + s / Math.pow(1 + rate, t));
    if (cumulative[t] < 0) lastNegative = t;
  });
  if (lastNegative === savings.length - 1) return null;
  if (lastNegative < 0) return 0;
  const k = lastNegative;
  const recovered = cumulative[k + 1] - cumulative[k];
  return k + -cumulative[k] / recovered;
}
