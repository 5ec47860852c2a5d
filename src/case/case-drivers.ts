/**
 * The drivers of a business case: every input the choice can turn on — each option's capex,
 * running-cost lines and their escalations, one-offs, residual value and per-server costs, each
 * workload's arrival rate, service time, sizing target, growth and installed servers, the load as a
 * whole, the discount rate and the case's service-level target — with how to set each one in a copy
 * of the input, its valid range, and, for those in which every option's net present cost is
 * linear, each option's slope (`robustness.ts` finds how far each can move).
 *
 * Slopes: 1 for capex, the escalated annuity factor Σ_t (1 + e)^t/(1 + r)^t for a yearly line,
 * (1 + r)^−year for a one-off, −(1 + r)^−years for a residual value, the servers and the servers ×
 * the annuity factor for the per-server costs. Cost: O(options × (lines + workloads)).
 */
import { CaseInput, Workload } from "./input";
import { CaseResult } from "./model";

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
  /** Its value in the case (in `judgeCase`'s result: as the sheet shows it, times in the sheet's unit). */
  base: number;
  unit: DriverUnit;
  /** Solved exactly (true) or asked at a grid of moves. */
  linear: boolean;
  /** Valid values: (lo, hi), each end open or closed (in the unit of `base`). */
  range: ValueRange;
  /** A whole count (servers): it moves by whole numbers. */
  whole?: boolean;
}

/** A driver's valid values. */
export interface ValueRange {
  lo: number;
  loOpen: boolean;
  hi: number;
  hiOpen: boolean;
}

export type Setter = (input: CaseInput, value: number) => void;

export interface DriverSpec extends Driver {
  set: Setter;
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
  // With growth the servers are bought year by year: the slopes are the present values of the
  // servers bought and of those in service (the purchase plans'), not today's count.
  const plans = result.options[i].workloads.map((w) => w.plans?.base);
  const pv = (f: (y: { bought: number; inService: number }) => number): number =>
    plans.reduce((s, p) => s + (p ? p.years.reduce((x, y, t) => x + f(y) * discount(input.discountRate, t), 0) : 0), 0);
  const growth = plans.some((p) => p !== undefined);
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
      slopes: onlyOption(n, i, growth ? pv((y) => y.bought) : servers),
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
      slopes: onlyOption(n, i, growth ? pv((y) => y.inService) : servers * annuity(input.years, input.discountRate)),
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

export function inRange(v: number, r: DriverSpec["range"]): boolean {
  return (r.loOpen ? v > r.lo : v >= r.lo) && (r.hiOpen ? v < r.hi : v <= r.hi);
}

/**
 * The move judged plausible for a driver (a share of its value): the most specific the input gives —
 * the line's, one-off's or workload's `plausibleMove`, else its option's, else the case's move for
 * that kind of driver (discount rate, load, growth, service-level target), else the case's default
 * (±10 % unless given).
 *
 * @example plausibleOf(parseCaseInput({ ..., plausibleMove: { default: 0.1, discountRate: 0.3 } }), "rate") // => 0.3
 */
export function plausibleOf(input: CaseInput, key: string): number {
  const m = input.plausibleMoves;
  const [kind, a, b] = key.split(":");
  const wide = CASE_WIDE[kind];
  if (wide) return m[wide] ?? m.default;
  const o = input.options[Number(a)];
  const item = ITEM_OF[kind]?.(o, Number(b));
  return item?.plausibleMove ?? o.plausibleMove ?? (kind === "growth" ? m.growth : undefined) ?? m.default;
}

/** The case-wide move each case-wide driver takes. */
const CASE_WIDE: Record<string, "discountRate" | "load" | "serviceTarget"> = {
  rate: "discountRate",
  load: "load",
  target_level: "serviceTarget",
  target_within: "serviceTarget",
};

/** The line, one-off or workload whose `plausibleMove` a driver of an option takes first. */
const ITEM_OF: Record<string, (o: CaseInput["options"][number], k: number) => { plausibleMove?: number }> = {
  opex: (o, k) => o.opex[k],
  esc: (o, k) => o.opex[k],
  oneoff: (o, k) => o.oneOff[k],
  ...Object.fromEntries(
    ["arrival", "service", "target", "within", "growth", "installed"].map((kind) => [
      kind,
      (o: CaseInput["options"][number], k: number) => o.workloads[k],
    ]),
  ),
};
