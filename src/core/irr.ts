/**
 * Internal rate of return of cash flows R_0, R_1, …, R_N (R_0 now, one period apart): the rate r
 * with Σ R_t/(1 + r)^t = 0, as Excel's and LibreOffice's `IRR` define it (the first flow is at
 * period 0, so the same timing as {@link npv}).
 *
 * When it is defined: only a series whose non-zero flows change sign exactly once has one IRR
 * for sure (Descartes' rule of signs on the polynomial in v = 1/(1 + r)); with no change the NPV
 * never crosses zero, with two or more there can be several roots (IRR({−100, 230, −132}) is 10 %
 * and 20 %).
 *
 * Method: bracket the root in v ∈ (0, ∞) (r > −1) — with one sign change the NPV in v is
 * monotone across its single positive root — then bisection in v with a secant step, to the
 * last bits of the double. Cost: O(N) per evaluation, about 60–200 evaluations.
 *
 * Reference: Brealey, Myers & Allen, Principles of Corporate Finance, ch. 5 (IRR and its pitfalls).
 */
import { DomainError } from "./errors";

/**
 * Number of sign changes in the sequence of non-zero flows (zeros skipped), the count of
 * Descartes' rule: the number of positive roots in v is this count or less by an even number.
 *
 * @example signChanges([-150000, 0, 100000, 100000]) // => 1
 */
export function signChanges(flows: readonly number[]): number {
  let n = 0;
  let last = 0;
  for (const f of flows) {
    if (f === 0) continue;
    if (last !== 0 && Math.sign(f) !== last) n++;
    last = Math.sign(f);
  }
  return n;
}

/** NPV at v = 1/(1 + r), by Horner's rule. */
function atV(flows: readonly number[], v: number): number {
  let sum = 0;
  for (let t = flows.length - 1; t >= 0; t--) sum = sum * v + flows[t];
  return sum;
}

/**
 * The internal rate of return of a series with exactly one sign change.
 *
 * @param flows - amounts per period, the first at t = 0 (any currency), finite, at least two
 * @returns r > −1 with NPV(r) = 0, to about 1e-15 relative
 * @throws DomainError (`#NUM!`) when the flows do not change sign exactly once (no IRR, or several)
 * @example
 * irr([-150000, 100000, 100000]); // => 0.21525043702153024
 */
export function irr(cashflows: readonly number[]): number {
  let flows = cashflows;
  if (flows.length < 2 || flows.some((f) => !Number.isFinite(f)))
    throw new DomainError("flows", "needs two or more finite amounts", "num");
  const changes = signChanges(flows);
  if (changes !== 1)
    throw new DomainError(
      "flows",
      changes === 0
        ? "never change sign, so no rate makes their NPV zero"
        : `change sign ${changes} times, so there may be several rates of return`,
      "num",
    );
  // Leading zeros only shift the polynomial (a factor v^k): drop them. The NPV in v is then f(0) =
  // R_first at v = 0 and has exactly one positive root: grow hi until the sign flips.
  const first = flows.findIndex((f) => f !== 0);
  flows = flows.slice(first);
  const f0 = atV(flows, 0);
  let lo = 0;
  let hi = 1;
  while (Math.sign(atV(flows, hi)) === Math.sign(f0)) {
    lo = hi;
    hi *= 2;
    if (hi > 1e300) throw new DomainError("flows", "no rate of return found (the NPV does not cross zero)", "num");
  }
  let flo = atV(flows, lo);
  let fhi = atV(flows, hi);
  for (let k = 0; k < 400 && hi - lo > 4 * Number.EPSILON * hi; k++) {
    // Secant guess, kept inside the bracket's middle 80 %, else bisection.
    let mid = lo - (flo * (hi - lo)) / (fhi - flo);
    if (!(mid > lo + 0.1 * (hi - lo) && mid < hi - 0.1 * (hi - lo))) mid = (lo + hi) / 2;
    const fm = atV(flows, mid);
    if (fm === 0) return 1 / mid - 1;
    if (Math.sign(fm) === Math.sign(flo)) {
      lo = mid;
      flo = fm;
    } else {
      hi = mid;
      fhi = fm;
    }
  }
  const v = Math.abs(flo) < Math.abs(fhi) ? lo : hi;
  return 1 / v - 1;
}
