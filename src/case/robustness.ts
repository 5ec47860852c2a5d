/**
 * How robust a case's choice is: for every driver (`case-drivers.ts`) the break-even move — how far
 * it can go, up and down, before a different qualifying option becomes the cheapest (or none
 * qualifies) — then the confidence grade of the choice (`core/confidence-grade`).
 *
 * Drivers in which every option's net present cost is linear (capex, yearly lines, one-offs,
 * residual values, per-server costs: the servers do not depend on prices) are solved exactly
 * (`linearBreakEven`). The others (the discount rate, escalations, each workload's arrival rate,
 * service time, sizing target, growth and installed servers, the load as a whole, the service-level
 * target) act through powers and whole servers: the case is computed again ({@link computeCase}) at
 * a grid of moves, p, 2p and 5p up and down (`core/break-even`'s GRID_MULTIPLES, p the move
 * judged plausible for the driver), and the break-even is the first grid point where the choice
 * differs — between the previous point and that one. The sheet's Probes table asks the same grid
 * live (`probe-table.ts`), so after any edit the sheet and `caplab case` on the edited input agree
 * point for point. A move x·p is the value × (1 + x·p), as the independent check moves an input
 * (× 0.9, × 1.1); a rate at 0 moves by x·p points; a whole count to the whole number within the
 * move, nearest the base; a point outside the input's valid range is not tried.
 *
 * Cost: 6 computations of the case per non-linear driver; O(options) per linear one.
 */
import { confidenceGrade, ConfidenceGrade } from "../core/confidence-grade";
import { firstChange, GRID_MULTIPLES, linearBreakEven, Switch } from "../core/break-even";
import { CaseInput } from "./input";
import { CaseResult, computeCase } from "./model";
import { caseDrivers, Driver, DriverSpec, inRange, plausibleOf } from "./case-drivers";

export { DEFAULT_PLAUSIBLE_MOVE } from "./case-drivers";
export type { Driver, DriverUnit } from "./case-drivers";

/** The signed multiples of p tried for a non-linear driver: up the grid, then down (the Probes table's order). */
export const PROBE_MULTIPLES: readonly number[] = [...GRID_MULTIPLES, ...GRID_MULTIPLES.map((m) => -m)];

/** A break-even point: the driver's value there, the move from base, as a share of base, and who wins. */
export interface Crossing {
  /** The driver's value there, as the sheet shows it (times in the sheet's unit). */
  value: number;
  move: number;
  /** |move| / |base| rounded to 9 decimals (as the sheet's ROUND); Infinity when the base is 0. */
  share: number;
  /** The option that becomes the cheapest there (−1: none qualifies). */
  rival: number;
  /** For a grid driver, its point's index in {@link PROBE_MULTIPLES}; null when solved exactly. */
  point: number | null;
  /** For a grid driver, the value before it (the previous grid point, or the base): the change lies between the two. Null when solved exactly. */
  previous: number | null;
}

/** One grid point of a non-linear driver. */
export interface ProbePoint {
  /** The signed multiple of the plausible move (+0.5, +1, +2, +5, −0.5, …). */
  multiple: number;
  /** The driver's value there as the sheet shows it; null outside the valid range (not tried). */
  value: number | null;
  /** The case computed there; null when not tried or when it cannot be computed (a target out of reach). */
  result: CaseResult | null;
  /** The choice there (−1: none qualifies); the base choice where not computed; null where not tried. */
  choice: number | null;
}

export interface DriverRobustness {
  driver: Driver;
  /** The driver's place in the order drivers are defined (ties in closeness go to the first). */
  order: number;
  plausible: number;
  /** The grid points of a non-linear driver, in {@link PROBE_MULTIPLES} order; null for a linear one. */
  probes: ProbePoint[] | null;
  up: Crossing | null;
  down: Crossing | null;
  /** The nearer of up and down by share (then by |move|; up on a tie), or null. */
  nearest: Crossing | null;
  /** True when the nearest crossing is within the plausible move. */
  reverses: boolean;
}

export interface Robustness {
  /** The chosen option (−1 when none qualifies). */
  chosen: number;
  /** The next qualifying option (−1 when none). */
  runnerUp: number;
  /** runner-up's net present cost − the chosen one's; null without a runner-up. */
  lead: number | null;
  /** lead / |chosen's net present cost|. */
  leadShare: number | null;
  /** Every driver, nearest crossing first (by share, then drivers without one). */
  drivers: DriverRobustness[];
  grade: ConfidenceGrade;
}

/**
 * |move| / |value now| to 9 decimals, as the sheet's ROUND(ABS(move), 9): ranks compare distances,
 * and the sheet's and this one can differ in the last bits (ties must stay ties).
 */
export function distanceOf(value: number, base: number): number {
  return Math.round(Math.abs((value - base) / base) * 1e9) / 1e9;
}

/**
 * The value of a driver at move m = multiple × p, as the Probes table computes it (null: outside
 * the valid range); `scale`: the sheet shows the value × this (a time in ms or µs).
 */
export function probeValue(d: DriverSpec, shownBase: number, m: number, scale: number): number | null {
  const raw = shownBase === 0 ? (d.unit === "rate" ? m : 0) : shownBase * (1 + m);
  const v = d.whole ? (m > 0 ? Math.floor(raw + 1e-9) : Math.ceil(raw - 1e-9)) : raw;
  const r = d.range;
  const scaled = scale === 1 ? r : { ...r, lo: r.lo * scale, hi: r.hi * scale };
  return inRange(v, scaled) ? v : null;
}

/** The grid points of a non-linear driver: the case computed at each (see the module comment). */
function probePoints(input: CaseInput, result: CaseResult, d: DriverSpec, p: number, scale: number): ProbePoint[] {
  const s = scale;
  const shownBase = s === 1 ? d.base : d.base * s;
  const copy = structuredClone(input);
  return PROBE_MULTIPLES.map((multiple): ProbePoint => {
    const value = probeValue(d, shownBase, multiple * p, s);
    if (value === null) return { multiple, value, result: null, choice: null };
    if (value === shownBase) return { multiple, value, result, choice: result.chosen };
    d.set(copy, s === 1 ? value : value / s);
    try {
      const there = computeCase(copy);
      return { multiple, value, result: there, choice: there.chosen };
    } catch {
      // An input the case cannot compute (a target out of reach) is not a reversal.
      return { multiple, value, result: null, choice: result.chosen };
    } finally {
      // Every setter writes from the original input, so the copy is the base again.
      d.set(copy, d.base);
    }
  });
}

/** The first change on one side of the grid (its points from index `offset`) as a crossing. */
function gridCrossing(points: ProbePoint[], offset: number, base: number, chosen: number): Crossing | null {
  const k = firstChange(
    chosen,
    points.map((x) => x.choice),
  );
  if (k < 0) return null;
  const value = points[k].value as number;
  return {
    value,
    move: value - base,
    share: base === 0 ? Infinity : distanceOf(value, base),
    rival: points[k].choice as number,
    point: offset + k,
    previous: k === 0 ? base : (points[k - 1].value as number),
  };
}

function crossing(d: DriverSpec, s: Switch | null): Crossing | null {
  if (!s) return null;
  const value = d.base + s.move;
  return {
    value,
    move: s.move,
    share: d.base === 0 ? Infinity : distanceOf(value, d.base),
    rival: s.rival,
    point: null,
    previous: null,
  };
}

/** A driver's crossings up and down: solved exactly when linear, else from the grid. */
function crossings(
  input: CaseInput,
  result: CaseResult,
  d: DriverSpec,
  p: number,
  scale: number,
): Pick<DriverRobustness, "probes" | "up" | "down"> {
  const npv = result.options.map((o) => o.npv);
  const ok = result.options.map((o) => o.qualifies);
  const chosen = result.chosen;
  if (d.linear && d.slopes) {
    if (chosen < 0) return { probes: null, up: null, down: null };
    const be = linearBreakEven(npv, d.slopes, chosen, ok);
    const keep = (c: Crossing | null): Crossing | null => (c && inRange(c.value, d.range) ? c : null);
    // A crossing outside the input's valid range cannot happen (a capex below 0).
    return { probes: null, up: keep(crossing(d, be.up)), down: keep(crossing(d, be.down)) };
  }
  const probes = probePoints(input, result, d, p, scale);
  const half = GRID_MULTIPLES.length;
  const base = scale !== 1 ? d.base * scale : d.base;
  return {
    probes,
    up: gridCrossing(probes.slice(0, half), 0, base, chosen),
    down: gridCrossing(probes.slice(half), half, base, chosen),
  };
}

/** The nearer crossing: by share (by |move| when the base is 0); up on a tie, as the sheet's Break-even table picks it. */
function nearer(up: Crossing | null, down: Crossing | null): Crossing | null {
  if (!up || !down) return up ?? down;
  const gap = (c: Crossing): number => (Number.isFinite(c.share) ? c.share : Math.abs(c.move));
  return gap(down) < gap(up) ? down : up;
}

/** Options of {@link judgeCase}. */
export interface JudgeOptions {
  /** The plausible move per driver key (a share), in place of the input's (`plausibleOf`). */
  plausible?: Record<string, number>;
  /** A time driver's value is shown on the sheet × this (1000 in ms, 1e6 in µs; by driver key): the grid moves the shown value. */
  timeScale?: (key: string) => number;
}

/**
 * The break-even moves of every driver and the confidence grade of the case's choice.
 *
 * @param input - a validated case (not modified)
 * @param result - its figures ({@link computeCase})
 * @param options - plausible moves per driver, the sheet's time scale
 * @returns the chosen option, its lead, every driver's crossings (nearest first) and the grade
 */
export function judgeCase(input: CaseInput, result: CaseResult, options: JudgeOptions = {}): Robustness {
  const plausible = options.plausible ?? {};
  const timeScale = options.timeScale ?? ((): number => 1);
  const chosen = result.chosen;
  const npv = result.options.map((o) => o.npv);
  const ok = result.options.map((o) => o.qualifies);
  const order = npv
    .map((_, i) => i)
    .filter((i) => ok[i])
    .sort((a, b) => npv[a] - npv[b] || a - b);
  const runnerUp = order.find((i) => i !== chosen) ?? -1;
  const lead = chosen >= 0 && runnerUp >= 0 ? npv[runnerUp] - npv[chosen] : null;
  const drivers = caseDrivers(input, result).map((d, k): DriverRobustness => {
    const p = plausible[d.key] ?? plausibleOf(input, d.key);
    const s = d.unit === "time" ? timeScale(d.key) : 1;
    const { probes, up, down } = crossings(input, result, d, p, s);
    const nearest = nearer(up, down);
    const shown = s !== 1 ? d.base * s : d.base;
    const driver: Driver = {
      key: d.key,
      label: d.label,
      option: d.option,
      base: shown,
      unit: d.unit,
      linear: d.linear,
      range: s === 1 ? d.range : { ...d.range, lo: d.range.lo * s, hi: d.range.hi * s },
      ...(d.whole ? { whole: true } : {}),
    };
    return {
      driver,
      order: k,
      plausible: p,
      probes,
      up,
      down,
      nearest,
      reverses: nearest !== null && nearest.share <= p * (1 + 1e-9),
    };
  });
  drivers.sort((a, b) => (a.nearest?.share ?? Infinity) - (b.nearest?.share ?? Infinity) || a.order - b.order);
  const grade = confidenceGrade(
    chosen >= 0 ? lead : null,
    chosen >= 0 ? npv[chosen] : null,
    drivers.map((d) => ({
      share: d.nearest?.share ?? Infinity,
      plausible: d.plausible,
    })),
  );
  return {
    chosen,
    runnerUp,
    lead,
    leadShare: lead === null ? null : lead / Math.abs(npv[chosen]),
    drivers,
    grade,
  };
}
