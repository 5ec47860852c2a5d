/**
 * How robust a case's choice is: for every driver — each option's capex, each running-cost line
 * and its escalation, each one-off and residual value, each option's per-server costs, each
 * workload's arrival rate, service time and sizing target, the load as a whole, the discount rate
 * and the case's service-level target — the break-even move: how far it can go, up and down, in
 * its own unit and as a share of its value, before a different qualifying option becomes the
 * cheapest (or none qualifies). Then the confidence grade of the choice (`core/confidence-grade`).
 *
 * Drivers in which every option's net present cost is linear (capex, yearly lines, one-offs,
 * residual values, per-server costs: the servers do not depend on prices) are solved exactly
 * (`linearBreakEven`, with each option's slope: 1 for capex, the escalated annuity factor
 * Σ_t (1 + e)^t/(1 + r)^t for a yearly line, (1 + r)^−year for a one-off, −(1 + r)^−years for a
 * residual value, the servers and the servers × the annuity factor for the per-server costs).
 * The others act through powers and whole servers and are probed (`probedBreakEven`): the choice
 * is computed again ({@link computeCase}) at moves of 1 % … 10 % in steps of 1 %, then 12.5 % …
 * 300 %, within the input's valid range, and the first change is bisected to 1e-5 of the value.
 * The plausible ends (±10 % by default) are among the probes, so a reversal there is always seen.
 * A fixed server count moves by whole servers.
 *
 * Cost: O(drivers × 40) computations of the case for the probed drivers; O(drivers × options)
 * for the linear ones.
 */
import { confidenceGrade, ConfidenceGrade } from "../core/confidence-grade";
import { linearBreakEven, probedBreakEven, Switch } from "../core/break-even";
import { CaseInput, Workload } from "./input";
import { CaseResult, chooseOption } from "./model";

/** The move judged plausible for a driver unless the case says otherwise: ±10 %. */
export const DEFAULT_PLAUSIBLE_MOVE = 0.1;

/** What a driver's value is, for wording and formats. */
export type DriverUnit = "money" | "moneyPerYear" | "rate" | "factor" | "servers" | "fraction" | "time" | "arrivalRate";

export interface Driver {
  /** Internal identifier (`capex:1`, `opex:0:2`, `rate`), never a label from the input. */
  key: string;
  /** What it is, in the sheet's words ("Replace: capex", "Keep: Support per year"). */
  label: string;
  /** The option it belongs to, or null for a case-wide driver. */
  option: number | null;
  base: number;
  unit: DriverUnit;
  /** Solved exactly (true) or probed. */
  linear: boolean;
}

/** A break-even point: the driver's value there, the move from base, as a share of base, and who wins. */
export interface Crossing {
  value: number;
  move: number;
  /** |move| / |base|; Infinity when the base is 0 (a share of nothing). */
  share: number;
  /** The option that becomes the cheapest there (−1: none qualifies). */
  rival: number;
}

export interface DriverRobustness {
  driver: Driver;
  plausible: number;
  up: Crossing | null;
  down: Crossing | null;
  /** The nearer of up and down by share (then by |move|), or null. */
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

type Setter = (input: CaseInput, value: number) => void;

interface DriverSpec extends Driver {
  set: Setter;
  /** Valid values: (lo, hi), each end open or closed. */
  range: { lo: number; loOpen: boolean; hi: number; hiOpen: boolean };
  whole?: boolean;
  /** For linear drivers: each option's slope of net present cost per unit of the driver. */
  slopes?: number[];
}

const ANY = { lo: -Infinity, loOpen: true, hi: Infinity, hiOpen: true };
const NON_NEGATIVE = { lo: 0, loOpen: false, hi: Infinity, hiOpen: true };
const POSITIVE = { lo: 0, loOpen: true, hi: Infinity, hiOpen: true };

function discount(rate: number, t: number): number {
  return 1 / Math.pow(1 + rate, t);
}

/** Σ_{t<years} (1 + e)^t/(1 + r)^t: the present value of 1 a year escalating by e. */
function annuity(years: number, rate: number, escalation = 0): number {
  let s = 0;
  for (let t = 0; t < years; t++) s += Math.pow(1 + escalation, t) * discount(rate, t);
  return s;
}

const SIZING_NAME = {
  servers: "servers (fixed)",
  utilization: "utilization target",
  response: "response target",
  serviceLevel: "service level target",
} as const;

/** Every driver of a case, with how to set it and, where linear, the options' slopes. */
export function caseDrivers(input: CaseInput, result: CaseResult): DriverSpec[] {
  const out: DriverSpec[] = [];
  input.options.forEach((o, i) => out.push(...optionDrivers(input, result, i)));
  out.push(...caseWideDrivers(input));
  return out;
}

/** A vector of n slopes: `slope` for option i, 0 for the others. */
function onlyOption(n: number, i: number, slope: number): number[] {
  return Array.from({ length: n }, (_, j) => (j === i ? slope : 0));
}

/** One option's drivers: its capex, running-cost lines and escalations, one-offs, residual value, server costs, workloads. */
function optionDrivers(input: CaseInput, result: CaseResult, i: number): DriverSpec[] {
  const o = input.options[i];
  const n = input.options.length;
  const r = input.discountRate;
  const name = o.name;
  const out: DriverSpec[] = [
    {
      key: `capex:${i}`,
      label: `${name}: capex`,
      option: i,
      base: o.capex,
      unit: "money",
      linear: true,
      set: (c, v) => (c.options[i].capex = v),
      range: NON_NEGATIVE,
      slopes: onlyOption(n, i, 1),
    },
  ];
  o.opex.forEach((_, k) => out.push(...opexDrivers(input, i, k)));
  o.oneOff.forEach((x, k) =>
    out.push({
      key: `oneoff:${i}:${k}`,
      label: `${name}: ${x.label} (one-off)`,
      option: i,
      base: x.amount,
      unit: "money",
      linear: true,
      set: (c, v) => (c.options[i].oneOff[k].amount = v),
      range: ANY,
      slopes: onlyOption(n, i, discount(r, x.year)),
    }),
  );
  if (result.periods > input.years)
    out.push({
      key: `residual:${i}`,
      label: `${name}: residual value`,
      option: i,
      base: o.residualValue,
      unit: "money",
      linear: true,
      set: (c, v) => (c.options[i].residualValue = v),
      range: NON_NEGATIVE,
      slopes: onlyOption(n, i, -discount(r, input.years)),
    });
  if (o.workloads.length > 0) out.push(...serverCostDrivers(input, result, i));
  o.workloads.forEach((w, j) => out.push(...workloadDrivers(input, i, j, w)));
  return out;
}

/** A running-cost line's yearly amount (linear) and, when the line costs anything, its escalation. */
function opexDrivers(input: CaseInput, i: number, k: number): DriverSpec[] {
  const name = input.options[i].name;
  const l = input.options[i].opex[k];
  const out: DriverSpec[] = [
    {
      key: `opex:${i}:${k}`,
      label: `${name}: ${l.label} per year`,
      option: i,
      base: l.perYear,
      unit: "moneyPerYear",
      linear: true,
      set: (c, v) => (c.options[i].opex[k].perYear = v),
      range: ANY,
      slopes: onlyOption(input.options.length, i, annuity(input.years, input.discountRate, l.escalation)),
    },
  ];
  if (l.perYear !== 0)
    out.push({
      key: `esc:${i}:${k}`,
      label: `${name}: ${l.label} escalation`,
      option: i,
      base: l.escalation,
      unit: "rate",
      linear: false,
      set: (c, v) => (c.options[i].opex[k].escalation = v),
      range: { lo: -0.5, loOpen: true, hi: 1, hiOpen: false },
    });
  return out;
}

/** The cost per server and per server-year of an option with workloads (linear in its servers). */
function serverCostDrivers(input: CaseInput, result: CaseResult, i: number): DriverSpec[] {
  const o = input.options[i];
  const n = input.options.length;
  const servers = result.options[i].servers;
  return [
    {
      key: `psc:${i}`,
      label: `${o.name}: cost per server`,
      option: i,
      base: o.costPerServer,
      unit: "money",
      linear: true,
      set: (c, v) => (c.options[i].costPerServer = v),
      range: NON_NEGATIVE,
      slopes: onlyOption(n, i, servers),
    },
    {
      key: `pscy:${i}`,
      label: `${o.name}: cost per server per year`,
      option: i,
      base: o.costPerServerPerYear,
      unit: "moneyPerYear",
      linear: true,
      set: (c, v) => (c.options[i].costPerServerPerYear = v),
      range: NON_NEGATIVE,
      slopes: onlyOption(n, i, servers * annuity(input.years, input.discountRate)),
    },
  ];
}

/** The drivers of the whole case: every arrival rate together, the discount rate, the service target. */
function caseWideDrivers(input: CaseInput): DriverSpec[] {
  const out: DriverSpec[] = [];
  if (input.options.some((o) => o.workloads.length > 0))
    out.push({
      key: "load",
      label: "Load (every arrival rate)",
      option: null,
      base: 1,
      unit: "factor",
      linear: false,
      set: (c, v) =>
        c.options.forEach((o, i) =>
          o.workloads.forEach((w, j) => (w.arrivalRate = input.options[i].workloads[j].arrivalRate * v)),
        ),
      range: { lo: 0.01, loOpen: false, hi: 100, hiOpen: false },
    });
  out.push({
    key: "rate",
    label: "Discount rate",
    option: null,
    base: input.discountRate,
    unit: "rate",
    linear: false,
    set: (c, v) => (c.discountRate = v),
    range: { lo: -0.5, loOpen: true, hi: 1, hiOpen: true },
  });
  if (input.serviceTarget) {
    out.push(
      {
        key: "target_level",
        label: "Service-level target",
        option: null,
        base: input.serviceTarget.level,
        unit: "fraction",
        linear: false,
        set: (c, v) => ((c.serviceTarget as { level: number }).level = v),
        range: { lo: 0, loOpen: false, hi: 1, hiOpen: true },
      },
      {
        key: "target_within",
        label: "Service-level answer-within time",
        option: null,
        base: input.serviceTarget.answerWithin,
        unit: "time",
        linear: false,
        set: (c, v) => ((c.serviceTarget as { answerWithin: number }).answerWithin = v),
        range: NON_NEGATIVE,
      },
    );
  }
  return out;
}

function workloadDrivers(input: CaseInput, i: number, j: number, w: Workload): DriverSpec[] {
  const at = `${input.options[i].name} › ${w.name}`;
  const wl = (c: CaseInput): Workload => c.options[i].workloads[j];
  const z = w.sizing;
  const out: DriverSpec[] = [
    {
      key: `arrival:${i}:${j}`,
      label: `${at}: arrival rate`,
      option: i,
      base: w.arrivalRate,
      unit: "arrivalRate",
      linear: false,
      set: (c, v) => (wl(c).arrivalRate = v),
      range: POSITIVE,
    },
    {
      key: `service:${i}:${j}`,
      label: `${at}: service time`,
      option: i,
      base: w.serviceTime,
      unit: "time",
      linear: false,
      set: (c, v) => (wl(c).serviceTime = v),
      // A response target must stay above the service time.
      range: {
        lo: 0,
        loOpen: true,
        hi: z.kind === "response" ? z.response : Infinity,
        hiOpen: true,
      },
    },
  ];
  // A growing load: its growth rate per year (a single rate) and the servers already installed.
  if (typeof w.growth === "number")
    out.push({
      key: `growth:${i}:${j}`,
      label: `${at}: growth per year`,
      option: i,
      base: w.growth,
      unit: "rate",
      linear: false,
      set: (c, v) => (wl(c).growth = v),
      range: { lo: -1, loOpen: true, hi: 10, hiOpen: false },
    });
  if (w.installed !== undefined)
    out.push({
      key: `installed:${i}:${j}`,
      label: `${at}: servers installed`,
      option: i,
      base: w.installed,
      unit: "servers",
      linear: false,
      whole: true,
      set: (c, v) => (wl(c).installed = v),
      range: { lo: 0, loOpen: false, hi: 1e7, hiOpen: false },
    });
  out.push(...sizingDrivers(at, i, j, w));
  return out;
}

/** The sizing target of a workload (servers, utilization, response, or service level and its time). */
function sizingDrivers(at: string, i: number, j: number, w: Workload): DriverSpec[] {
  const wl = (c: CaseInput): Workload => c.options[i].workloads[j];
  const z = w.sizing;
  const out: DriverSpec[] = [];
  const target = {
    key: `target:${i}:${j}`,
    label: `${at}: ${SIZING_NAME[z.kind]}`,
    option: i,
    linear: false,
  };
  switch (z.kind) {
    case "servers":
      out.push({
        ...target,
        base: z.servers,
        unit: "servers",
        whole: true,
        set: (c, v) => (wl(c).sizing = { kind: "servers", servers: v }),
        range: { lo: 1, loOpen: false, hi: 1e7, hiOpen: false },
      });
      break;
    case "utilization":
      out.push({
        ...target,
        base: z.utilization,
        unit: "fraction",
        set: (c, v) => (wl(c).sizing = { kind: "utilization", utilization: v }),
        range: { lo: 0, loOpen: true, hi: 1, hiOpen: false },
      });
      break;
    case "response":
      out.push({
        ...target,
        base: z.response,
        unit: "time",
        set: (c, v) => (wl(c).sizing = { kind: "response", response: v }),
        range: { lo: w.serviceTime, loOpen: true, hi: Infinity, hiOpen: true },
      });
      break;
    default:
      out.push(
        {
          ...target,
          base: z.level,
          unit: "fraction",
          set: (c, v) => (wl(c).sizing = { ...z, level: v }),
          range: { lo: 0, loOpen: false, hi: 1, hiOpen: true },
        },
        {
          ...target,
          key: `within:${i}:${j}`,
          label: `${at}: answer within`,
          base: z.answerWithin,
          unit: "time",
          set: (c, v) => (wl(c).sizing = { ...z, answerWithin: v }),
          range: NON_NEGATIVE,
        },
      );
  }
  return out;
}

function inRange(v: number, r: DriverSpec["range"]): boolean {
  return (r.loOpen ? v > r.lo : v >= r.lo) && (r.hiOpen ? v < r.hi : v <= r.hi);
}

/** Shares of the base the probes move by: 1 % … 10 % by 1 %, then wider. */
const SHARES = [
  0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.1, 0.125, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.75, 0.9, 1,
  1.5, 2, 3,
];
/** Absolute steps for a driver whose base is 0 (an escalation or a rate of 0). */
const STEPS = [0.005, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1];

function probes(d: DriverSpec, side: 1 | -1, plausible: number): number[] {
  let values: number[];
  if (d.whole) {
    values = [];
    const limit = side > 0 ? Math.max(2 * d.base + 5, d.base + 5) : 1;
    for (let v = d.base + side; side > 0 ? v <= limit : v >= limit; v += side) values.push(v);
  } else if (d.base === 0) values = STEPS.map((s) => side * s);
  else {
    const shares = [...new Set([...SHARES, plausible])].sort((a, b) => a - b);
    // base × (1 ± s), as the independent check moves an input (× 0.9, × 1.1); towards +∞ for side 1.
    const up = (s: number): number => d.base * (d.base > 0 ? 1 + s : 1 - s);
    const down = (s: number): number => d.base * (d.base > 0 ? 1 - s : 1 + s);
    values = shares.map((s) => (side > 0 ? up(s) : down(s)));
  }
  // Keep them in order away from base, inside the valid range.
  const out: number[] = [];
  for (const v of values) {
    if (!inRange(v, d.range)) break;
    const last = out.length > 0 ? out[out.length - 1] : d.base;
    if (Math.sign(v - last) !== side) break;
    out.push(v);
  }
  return out;
}

/**
 * The choice with one driver at a value: a copy of the input made once per driver, the driver set
 * in it before each question (every setter writes from the original input, so values do not pile up).
 */
function choiceAsker(input: CaseInput, d: DriverSpec, fallback: number): (value: number) => number {
  const copy = structuredClone(input);
  return (value) => {
    d.set(copy, value);
    try {
      return chooseOption(copy);
    } catch {
      // An input the case cannot compute (a target out of reach) is not a reversal.
      return fallback;
    }
  };
}

function crossing(d: DriverSpec, s: Switch | null): Crossing | null {
  if (!s) return null;
  return {
    value: d.base + s.move,
    move: s.move,
    share: d.base === 0 ? Infinity : Math.abs(s.move / d.base),
    rival: s.rival,
  };
}

/**
 * The break-even moves of every driver and the confidence grade of the case's choice.
 *
 * @param input - a validated case (not modified)
 * @param result - its figures ({@link computeCase})
 * @param plausible - the plausible move per driver key (a share; default {@link DEFAULT_PLAUSIBLE_MOVE})
 * @returns the chosen option, its lead, every driver's crossings (nearest first) and the grade
 */
export function judgeCase(input: CaseInput, result: CaseResult, plausible: Record<string, number> = {}): Robustness {
  const chosen = result.chosen;
  const npv = result.options.map((o) => o.npv);
  const ok = result.options.map((o) => o.qualifies);
  const order = npv
    .map((_, i) => i)
    .filter((i) => ok[i])
    .sort((a, b) => npv[a] - npv[b] || a - b);
  const runnerUp = order.find((i) => i !== chosen) ?? -1;
  const lead = chosen >= 0 && runnerUp >= 0 ? npv[runnerUp] - npv[chosen] : null;
  const drivers = caseDrivers(input, result).map((d): DriverRobustness => {
    const p = plausible[d.key] ?? DEFAULT_PLAUSIBLE_MOVE;
    let up: Crossing | null = null;
    let down: Crossing | null = null;
    if (d.linear && d.slopes) {
      if (chosen >= 0) {
        const be = linearBreakEven(npv, d.slopes, chosen, ok);
        up = crossing(d, be.up);
        down = crossing(d, be.down);
      }
    } else {
      const at = choiceAsker(input, d, chosen);
      // To 1e-5 of the value: the table shows moves to 0.01 %.
      const tol = d.whole ? 1 : 1e-5 * Math.max(Math.abs(d.base), 1e-3);
      up = crossing(d, probedBreakEven(at, d.base, probes(d, 1, p), tol).up);
      down = crossing(d, probedBreakEven(at, d.base, probes(d, -1, p), tol).down);
    }
    // A crossing outside the input's valid range cannot happen (a capex below 0).
    if (up && !inRange(up.value, d.range)) up = null;
    if (down && !inRange(down.value, d.range)) down = null;
    const nearest =
      [up, down]
        .filter((c): c is Crossing => c !== null)
        .sort((a, b) => a.share - b.share || Math.abs(a.move) - Math.abs(b.move))[0] ?? null;
    const driver: Driver = {
      key: d.key,
      label: d.label,
      option: d.option,
      base: d.base,
      unit: d.unit,
      linear: d.linear,
    };
    return {
      driver,
      plausible: p,
      up,
      down,
      nearest,
      reverses: nearest !== null && nearest.share <= p * (1 + 1e-9),
    };
  });
  drivers.sort((a, b) => (a.nearest?.share ?? Infinity) - (b.nearest?.share ?? Infinity));
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
