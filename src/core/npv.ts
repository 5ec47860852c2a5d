/**
 * Net present value of a series of cash flows, the first one at t = 0:
 *
 *     NPV = Σ_{t=0..N} R_t / (1 + i)^t
 *
 * Variant: the first cash flow is NOT discounted (it happens now). Excel's NPV discounts from
 * t = 1, so NPV_IT(i, R) = R_0 + NPV(i, R_1..R_N) = NPV(i, R)·(1 + i). This is the classic trap
 * when a spreadsheet's "3-year cost" is compared with a purchase price paid today.
 *
 * Evaluated by Horner's rule from the last cash flow, ((R_N·v + R_{N−1})·v + …)·v + R_0 with
 * v = 1/(1 + i): no powers, one rounding per term. Cost: O(N).
 *
 * Reference: Brealey, Myers & Allen, Principles of Corporate Finance, ch. 2.
 */
import { DomainError } from "./errors";
import { ensureFinite } from "./finite";

function checkRate(rate: number): void {
  if (!Number.isFinite(rate) || rate <= -1) {
    throw new DomainError("rate", `must be a number > -1 per period (0.1 for 10%), got ${rate}`, "num");
  }
}

/**
 * NPV of cash flows R_0, R_1, …, R_N at a discount rate per period, R_0 undiscounted.
 *
 * @param rate - discount rate per period as a fraction (0.1 for 10%), > −1
 * @param cashflows - amounts in any currency, one per period starting at t = 0; at least one
 * @returns the present value at t = 0, in the currency of the cash flows
 * @throws DomainError (`#NUM!`) for rate ≤ −1, a non-finite amount or an overflowing sum; (`#VALUE!`) for no cash flows
 * @example
 * npv(0.1, [100000, 100000, 100000]); // => 273553.71900826444
 */
export function npv(rate: number, cashflows: readonly number[]): number {
  checkRate(rate);
  if (cashflows.length === 0) throw new DomainError("cashflows", "needs at least one cash flow", "value");
  cashflows.forEach((r, t) => {
    if (!Number.isFinite(r))
      throw new DomainError("cashflows", `the cash flow at t = ${t} is not a finite number: ${r}`, "num");
  });
  const v = 1 / (1 + rate);
  let sum = 0;
  for (let t = cashflows.length - 1; t >= 0; t--) sum = sum * v + cashflows[t];
  return ensureFinite(sum, "cashflows");
}

/**
 * NPV of the same amount paid at every t = 0, 1, …, periods (periods + 1 payments).
 *
 * @param rate - discount rate per period as a fraction, > −1
 * @param amount - the amount paid each period, any currency
 * @param periods - the last period N, a whole number ≥ 0
 * @returns the present value at t = 0
 * @throws DomainError (`#NUM!`) for rate ≤ −1, a non-finite amount, or periods not a whole number ≥ 0
 * @example
 * npvLevel(0.1, 100000, 2); // => 273553.71900826444
 */
export function npvLevel(rate: number, amount: number, periods: number): number {
  checkRate(rate);
  if (!Number.isFinite(amount)) throw new DomainError("cashflows", `must be a finite amount, got ${amount}`, "num");
  if (!Number.isInteger(periods) || periods < 0 || periods > 1e7) {
    throw new DomainError("periods", `must be a whole number of periods from 0 to 10000000, got ${periods}`, "num");
  }
  const v = 1 / (1 + rate);
  let sum = 0;
  for (let t = periods; t >= 0; t--) sum = sum * v + amount;
  return ensureFinite(sum, "cashflows");
}
