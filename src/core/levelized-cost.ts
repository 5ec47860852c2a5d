/**
 * Cost per unit of work, levelized: an option's net present cost divided by the present value of
 * the work it does over the same years,
 *
 *     cost per unit = NPC / Σ_t W_t/(1 + r)^t
 *
 * with W_t the work in year t (IOPS carried, calls per minute, desktops), the first year at t = 0
 * undiscounted like the costs. Discounting the work as well as the money is what makes the figure
 * a constant price per unit whose present value equals the cost (the levelized cost of energy's
 * definition; IEA/NEA, Projected Costs of Generating Electricity, 2020, §1). With constant work W,
 * the denominator is W times the annuity factor. Units: currency per (work unit × year), e.g.
 * £ per IO/s-year; a caller scales it for reading (per 1,000 IO/s-year).
 *
 * Cost: O(N).
 */
import { DomainError } from "./errors";

/**
 * The levelized cost per unit of work (see the module comment).
 *
 * @param npc - the option's net present cost (currency)
 * @param work - W_t, the work carried in each year t = 0 … N − 1 (≥ 0, not all 0)
 * @param rate - discount rate per year, > −1
 * @returns currency per unit of work per year
 * @throws DomainError (`#NUM!`) for a rate ≤ −1, non-finite values, negative work; (`#DIV/0!`) for no work
 * @example
 * levelizedCost(273553.72, [70, 70, 70], 0.1); // => 1000 (£ per unit-year, 70 units for 3 years)
 */
export function levelizedCost(npc: number, work: readonly number[], rate: number): number {
  if (!Number.isFinite(rate) || rate <= -1) throw new DomainError("rate", `must be > -1, got ${rate}`, "num");
  if (!Number.isFinite(npc)) throw new DomainError("npc", `must be a finite amount, got ${npc}`, "num");
  let pv = 0;
  work.forEach((w, t) => {
    if (!Number.isFinite(w) || w < 0)
      throw new DomainError("work", `the work in year ${t} must be a number ≥ 0, got ${w}`, "num");
    pv += w / Math.pow(1 + rate, t);
  });
  if (!(pv > 0)) throw new DomainError("work", "is zero in every year: no cost per unit", "div0");
  return npc / pv;
}
