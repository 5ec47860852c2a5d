/**
 * The break-even move of one driver: how far one input can move, up or down, before a different
 * option becomes the cheapest — the "switching value" HM Treasury's Green Book asks for the
 * preferred option (2022, §5.59–5.61: the value of a variable at which the choice changes).
 *
 * Two methods, one idea.
 *
 * **Linear** ({@link linearBreakEven}): when every option's cost is linear in the driver,
 * cost_i(Δ) = N_i + s_i·Δ (N_i the cost at base, s_i its slope per unit of the driver — 1 for a
 * capex, the annuity factor Σ_t (1 + e)^t/(1 + r)^t for a yearly line, the servers for a price per
 * server), the chosen option c stays cheapest while N_c + s_c·Δ < N_j + s_j·Δ for every eligible
 * rival j. Rival j catches up at Δ_j = (N_j − N_c)/(s_c − s_j), upwards when s_c > s_j, downwards
 * when s_c < s_j; the break-even move is the Δ_j nearest to 0 on each side. Exact, O(options).
 *
 * **Probed** ({@link probedBreakEven}): when the costs are not linear (the discount rate, an
 * escalation, a load, which act through powers and through whole servers), the choice is asked at
 * probe points moving away from the base value in order; between the last probe that keeps the
 * choice and the first that changes it, bisection narrows the change to `tolerance`. The probes
 * are the caller's: a plausible-move check must list the plausible ends themselves, so a change at
 * exactly +10 % is found. A change that happens and reverts between two probes is not seen (the
 * choice is a step function of the driver when servers are whole; probes 1 % apart see every
 * step wider than that). Cost: (probes + log₂(range/tolerance)) evaluations of the choice.
 *
 * **Grid** ({@link GRID_MULTIPLES}, {@link firstChange}): what a spreadsheet can redo live after
 * every edit. The choice is asked at a fixed grid of moves, p, 2p and 5p up and down (p the
 * move judged plausible for the driver), and the break-even is reported as the first grid point
 * where the choice differs: it lies between the previous point (or the base) and that one. The
 * same points in the sheet and here give the same answer after any edit; the plausible ends ±p
 * are points of the grid, so a reversal there is always seen. Cost: 6 evaluations of the choice.
 *
 * Units: Δ and the returned moves are in the driver's own unit (money for a capex or a yearly
 * line, a rate for the discount rate, a factor for a load).
 */
import { DomainError } from "./errors";

/** Where a driver makes another option the cheapest: the move from base and that option's index. */
export interface Switch {
  /** The driver's change from its base value (negative downwards), in the driver's unit. */
  move: number;
  /** Index of the option that becomes the cheapest there. */
  rival: number;
}

/** The nearest switch upwards and downwards; null on a side where none is reached. */
export interface BreakEven {
  up: Switch | null;
  down: Switch | null;
}

function checkCosts(costs: readonly number[], slopes: readonly number[], chosen: number): void {
  if (costs.length < 1 || slopes.length !== costs.length)
    throw new DomainError("slopes", `must have one slope per option (${costs.length}), got ${slopes.length}`, "value");
  if (!Number.isInteger(chosen) || chosen < 0 || chosen >= costs.length)
    throw new DomainError("chosen", `must be an option index from 0 to ${costs.length - 1}, got ${chosen}`, "value");
  [...costs, ...slopes].forEach((x) => {
    if (!Number.isFinite(x)) throw new DomainError("costs", `must be finite numbers, got ${x}`, "num");
  });
}

/**
 * The nearest moves of a driver, up and down, at which an eligible rival costs as much as the
 * chosen option, when every cost is linear in the driver (see the module comment).
 *
 * @param costs - N_i, each option's cost at the driver's base value (any currency)
 * @param slopes - s_i, the change of each option's cost per unit of the driver (currency per unit)
 * @param chosen - index of the option chosen at base
 * @param eligible - which options may be chosen (feasible ones); default all. The chosen one need not be listed.
 * @returns the nearest switch on each side (null where the lines never cross)
 * @throws DomainError for lengths that differ, a chosen index out of range or a non-finite number
 * @example
 * // Keep: £273,554 of support (slope 2.7355 per £ of yearly support); Replace: £250,000 capex.
 * linearBreakEven([273553.72, 250000], [2.7355372, 0], 1).down; // => { move: -8609.9…, rival: 0 }
 */
export function linearBreakEven(
  costs: readonly number[],
  slopes: readonly number[],
  chosen: number,
  eligible?: readonly boolean[],
): BreakEven {
  checkCosts(costs, slopes, chosen);
  let up: Switch | null = null;
  let down: Switch | null = null;
  costs.forEach((n, j) => {
    if (j === chosen || (eligible && !eligible[j])) return;
    const ds = slopes[chosen] - slopes[j];
    if (ds === 0) return;
    const move = (n - costs[chosen]) / ds;
    // Lines almost parallel meet beyond any number: no switch.
    if (!Number.isFinite(move)) return;
    if (ds > 0 && move >= 0 && (up === null || move < up.move)) up = { move, rival: j };
    if (ds < 0 && move <= 0 && (down === null || move > down.move)) down = { move, rival: j };
  });
  return { up, down };
}

/**
 * The first change of the choice along probe points moving away from the base value, narrowed by
 * bisection (see the module comment).
 *
 * @param choiceAt - the chosen option's index at a driver value (−1 when no option qualifies); must be deterministic
 * @param base - the driver's base value
 * @param probes - driver values in order of distance from `base`, all on one side of it
 * @param tolerance - the bisection stops when the bracket is this narrow (driver units), > 0
 * @returns the switch (move = value − base, rival = the choice there), or null when every probe keeps the choice
 * @throws DomainError for a tolerance ≤ 0 or probes not moving away from base on one side
 * @example
 * // The choice flips from option 0 to option 1 when the driver passes 1.234.
 * probedBreakEven((x) => (x < 1.234 ? 0 : 1), 1, [1.1, 1.2, 1.3], 1e-9).up; // => { move: 0.234…, rival: 1 }
 */
export function probedBreakEven(
  choiceAt: (value: number) => number,
  base: number,
  probes: readonly number[],
  tolerance: number,
): BreakEven {
  if (!(tolerance > 0)) throw new DomainError("tolerance", `must be > 0, got ${tolerance}`, "num");
  const side = probes.length > 0 ? Math.sign(probes[0] - base) : 0;
  probes.forEach((p, k) => {
    const previous = k === 0 ? base : probes[k - 1];
    if (!Number.isFinite(p) || Math.sign(p - previous) !== side || side === 0)
      throw new DomainError("probes", "must move away from the base value in order, on one side", "value");
  });
  const none: BreakEven = { up: null, down: null };
  if (side === 0) return none;
  const start = choiceAt(base);
  let kept = base;
  for (const p of probes) {
    const now = choiceAt(p);
    if (now !== start) {
      let [lo, hi, rival] = [kept, p, now];
      while (Math.abs(hi - lo) > tolerance) {
        const mid = lo + (hi - lo) / 2;
        if (mid === lo || mid === hi) break;
        const c = choiceAt(mid);
        if (c === start) lo = mid;
        else [hi, rival] = [mid, c];
      }
      const found: Switch = { move: hi - base, rival };
      return side > 0 ? { up: found, down: null } : { up: null, down: found };
    }
    kept = p;
  }
  return none;
}

/** The multiples of a driver's plausible move p tried on each side, nearest first (see the module comment). */
export const GRID_MULTIPLES: readonly number[] = [1, 2, 5];

/**
 * The first point of one side of a grid where the choice differs from the choice at base.
 *
 * @param start - the option chosen at base (−1 when none qualifies)
 * @param choices - the choice at each grid point, nearest first; null where the point was not tried (outside the driver's valid range)
 * @returns the index of the first point whose choice differs from `start`, or −1 when none does
 * @example
 * firstChange(0, [0, 0, 1, 1]); // => 2
 */
export function firstChange(start: number, choices: readonly (number | null)[]): number {
  return choices.findIndex((c) => c !== null && c !== start);
}
