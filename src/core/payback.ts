/**
 * Payback period of a saving: how many years until the cumulative (optionally discounted) net
 * saving of an option over a baseline is back at or above zero and stays there.
 *
 * Timing: flows are paid at the start of each year, year t = 0 (now) … N − 1, as in {@link npv}.
 * After the flow of year t the cumulative saving is S_t = Σ_{u ≤ t} Δ_u (discounted: Σ Δ_u/(1 + r)^u).
 * The payback is k + 1, where k is the LAST year with S_k < 0 (0 when the saving is never
 * negative): the number of years from now until the flow that makes the cumulative saving
 * non-negative for good. Taking the last negative year, not the first crossing, keeps a later
 * refresh that dips the cumulative saving below zero from hiding (HM Treasury Green Book 2022,
 * §A6 on payback's limits). Whole years, because payments are lumps at the start of each year; a
 * fractional payback would assume the year's flow accrues evenly, which this timing does not.
 * Returns null when the cumulative saving is still negative after the last year ("not within
 * N years"). The case sheet writes the same rule as 1 + MAX((S < 0)·year) over the year column.
 *
 * Cost: O(N).
 */
import { DomainError } from "./errors";

/**
 * Years until the cumulative saving stays ≥ 0 (see the module comment).
 *
 * @param savings - Δ_t, the saving in year t = 0 … N − 1 (baseline cost − option cost), finite
 * @param rate - discount rate per year as a fraction (> −1) for the discounted payback; 0 for the simple one
 * @returns the payback in whole years (0 … N), or null when not reached within the N years
 * @throws DomainError (`#NUM!`) for a non-finite saving or a rate ≤ −1
 * @example
 * payback([-150000, 100000, 100000], 0); // => 2
 * payback([-150000, 100000, 100000], 0.1); // => 2
 * payback([-150000, 50000, 50000], 0); // => null
 */
export function payback(savings: readonly number[], rate = 0): number | null {
  if (!Number.isFinite(rate) || rate <= -1) throw new DomainError("rate", `must be > -1, got ${rate}`, "num");
  let cumulative = 0;
  let lastNegative = -1;
  savings.forEach((s, t) => {
    if (!Number.isFinite(s)) throw new DomainError("savings", `the saving in year ${t} is not finite: ${s}`, "num");
    cumulative += s / Math.pow(1 + rate, t);
    if (cumulative < 0) lastNegative = t;
  });
  return lastNegative === savings.length - 1 ? null : lastNegative + 1;
}
