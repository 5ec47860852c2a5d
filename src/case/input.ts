/**
 * The inputs of a costed business case, and their validation.
 *
 * A case compares two or more options (keep vs replace, NFS vs FC, two sites vs merged) over
 * `years` years at a discount rate. Each option has a capital cost at year 0, yearly running-cost
 * lines, and optionally workloads to carry (an arrival rate and a service time, e.g. IOPS and CPU
 * seconds per IO) with a sizing rule (a fixed number of servers, a target utilization, a target
 * mean response time or a service level); the servers found are costed per server, once and/or
 * per year. Every cost is paid at the start of its year: year 0 is now and is not discounted, as
 * in `CAPLAB.NPV_IT` (Brealey, Myers & Allen, Principles of Corporate Finance, ch. 2).
 *
 * {@link parseCaseInput} turns untrusted JSON (a file given to `caplab case`, the pane's form) into
 * a {@link CaseInput}; every problem is a `DomainError` whose argument is the input's path, e.g.
 * `options[1].workloads[0].serviceTime: must be a positive time, got -3`. Unknown fields are
 * refused (a misspelt `capx` would otherwise silently cost nothing). The readers of single fields are
 * in `input-fields.ts`; an option, its lines and workloads, and the sensitivity ranges in
 * `input-option.ts`.
 */
import { DomainError } from "../core/errors";
import { describe, fail, keyText, list, notesOf, number, object, optionalNumber, text } from "./input-fields";
import { option, plausibleMoveOf, sensitivityOf } from "./input-option";
import { checkGrowthShift, WorkloadGrowth } from "./growth-input";

export { isCellRef, quoted } from "./input-fields";
export { DEFAULT_SENSITIVITY } from "./input-option";

/** How many servers a workload gets. */
export type Sizing =
  /** A fixed number of servers (staff, cores): a whole number ≥ 1 with utilization below 1. */
  | { kind: "servers"; servers: number }
  /** The fewest servers with utilization λ·S/c at most `utilization` (a fraction in (0, 1]); always stable. */
  | { kind: "utilization"; utilization: number }
  /** The fewest servers with mean response S + Wq at most `response` (same time unit as S; > S). */
  | { kind: "response"; response: number }
  /** The fewest servers answering at least `level` (fraction in [0, 1)) within `answerWithin`. */
  | { kind: "serviceLevel"; level: number; answerWithin: number };

/** A workload an option must carry: an M/M/c queue to size (its load may grow: `growth-input.ts`). */
export interface Workload extends WorkloadGrowth {
  name: string;
  /** λ, arrivals (IOs, calls) per time unit of the case. */
  arrivalRate: number;
  /** S, mean service time (CPU time per IO, handling time per call) in the case's time unit. */
  serviceTime: number;
  /**
   * Where S comes from when it is taken from another sheet (e.g. `'Model'!$F$5`, an analysis's
   * CPU cost per IO): the case sheet then refers to that cell instead of holding a copy. The
   * value in `serviceTime` is that cell's current value. A list of cells means their mean (e.g.
   * the steps at one protocol level): `AVERAGE(…)` on the sheet.
   */
  serviceTimeRef?: string | string[];
  /**
   * With `serviceTimeRef`: the referenced cell is divided by this to give S in the case's time
   * unit (1000 for an analysis's CPU-ms per IO in a case counted in seconds). Default 1.
   */
  serviceTimeRefDivisor?: number;
  sizing: Sizing;
  /** Where the rate and service time come from (free text, shown on the sheet as text). */
  source?: string;
  /** The move judged plausible for its rate, service time, targets, growth and installed servers (a share: 0.1 for ±10 %). */
  plausibleMove?: number;
}

/** One yearly running-cost line (support, licences, rent). Negative amounts are savings. */
export interface OpexLine {
  label: string;
  perYear: number;
  /** Where the amount comes from (free text). */
  source?: string;
  /** Growth of the amount per year as a fraction (0.03: +3 % a year): year t pays perYear·(1 + e)^t. Default 0. */
  escalation: number;
  /** The move judged plausible for the amount and its escalation (a share: 0.1 for ±10 %). */
  plausibleMove?: number;
}

/** A one-off cost (migration, training, decommissioning) paid at the start of one year. Negative: a one-off income. */
export interface OneOffLine {
  label: string;
  amount: number;
  /** Where the amount comes from (free text). */
  source?: string;
  /** The year it is paid, 0 (now) … years − 1. Default 0. */
  year: number;
  /** The move judged plausible for the amount (a share: 0.1 for ±10 %). */
  plausibleMove?: number;
}

/** Low and high values of one sensitivity driver. */
export interface Range {
  low: number;
  high: number;
}

/**
 * The values the sensitivity table (tornado) and the low/high scenarios use. Load, capex and
 * server cost are factors on the case's values (0.7 = 30 % less); the discount rate is a rate.
 */
export interface Sensitivity {
  load: Range;
  discountRate: Range;
  capex: Range;
  serverCost: Range;
  /** Points added to every year's growth rate (−0.1: ten points less); used when a workload grows. */
  growth: Range;
}

export interface CaseOption {
  name: string;
  /** Capital cost paid at year 0 (currency), ≥ 0. */
  capex: number;
  opex: OpexLine[];
  workloads: Workload[];
  /** One-off cost of each server (core, agent's desk) at year 0, ≥ 0. */
  costPerServer: number;
  /** Yearly cost of each server (licence, salary), ≥ 0. */
  costPerServerPerYear: number;
  /** One-off lines (migration and the like), each in its year. */
  oneOff: OneOffLine[];
  /** Value recovered at the end of the last year (resale, book value), ≥ 0; a negative cost at t = years. */
  residualValue: number;
  /** Where the option's capex and per-server costs come from (free text). */
  source?: string;
  /** The move judged plausible for every driver of the option that gives none (a share: 0.1 for ±10 %). */
  plausibleMove?: number;
}

/**
 * The moves judged plausible for the case's drivers (`robustness.ts`), each a share of the value
 * (0.1 for ±10 %): `default` for every driver, and for the case-wide ones — the discount rate, the
 * load as a whole, every workload's growth, the service-level target — moves of their own. A
 * line, one-off, workload or option may give its own (`plausibleMove`), which wins.
 */
export interface PlausibleMoves {
  default: number;
  discountRate?: number;
  load?: number;
  growth?: number;
  serviceTarget?: number;
}

/** The case's free-text notes: shown on the sheet and the page as text, never as formulas. */
export interface CaseNotes {
  assumptions: string[];
  risks: string[];
  sources: string[];
}

export interface CaseInput {
  title: string;
  /** Currency symbol or ISO code used in labels and number formats (£, $, €, ¥ or three capitals). */
  currency: string;
  /** Number of yearly payments, at t = 0 … years − 1. */
  years: number;
  /** Discount rate per year as a fraction (0.1 for 10 %). */
  discountRate: number;
  /** Label of the time unit of service times and response targets (e.g. "s", "min"). */
  timeUnit: string;
  /** Label of the arrival-rate unit (e.g. "IO/s", "calls/min"). */
  rateUnit: string;
  /** Utilization above which a workload is flagged on the sheet (a fraction in (0, 1]; default 0.8). */
  utilizationLimit: number;
  /** Low/high values of the sensitivity drivers (defaults: load ×0.7/×1.3, rate 5 %/15 %, capex and server cost ×0.8/×1.2). */
  sensitivity: Sensitivity;
  options: CaseOption[];
  /** Assumptions, risks and sources of the case as a whole (empty lists when not given). */
  notes: CaseNotes;
  /**
   * The service every option must give to be chosen: at least `level` of arrivals answered within
   * `answerWithin` (the case's time unit), in every workload. Absent: only options that cannot carry
   * their load are left out.
   */
  serviceTarget?: ServiceTarget;
  /** The moves judged plausible (default ±10 % for every driver). */
  plausibleMoves: PlausibleMoves;
}

/** A service level every option must reach: the share answered within a time. */
export interface ServiceTarget {
  /** A fraction in [0, 1) (0.8 for 80 %). */
  level: number;
  /** Time allowed before an answer, in the case's time unit, ≥ 0. */
  answerWithin: number;
}

export const MAX_YEARS = 50;
export const MAX_OPTIONS = 10;
/** Discount rates at or below this are refused (see parseCaseInput). */
const MIN_DISCOUNT_RATE = -0.5;
const MAX_TITLE = 120;

/**
 * The first object key repeated within one object of a JSON text, with its line, or null.
 * `JSON.parse` keeps the last of two equal keys silently ("years":3,"years":4 gives 4), so a case
 * file is checked for them before it is read. Expects valid JSON (run after `JSON.parse`).
 *
 * @example duplicateKey('{"years":3,\n"years":4}') // => { key: "years", line: 2 }
 */
export function duplicateKey(text: string): { key: string; line: number } | null {
  const stack: (Set<string> | null)[] = [];
  let line = 1;
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "\n") line++;
    else if (ch === "{") {
      stack.push(new Set());
      expectKey = true;
    } else if (ch === "[") {
      stack.push(null);
      expectKey = false;
    } else if (ch === "}" || ch === "]") stack.pop();
    else if (ch === ",") expectKey = stack[stack.length - 1] instanceof Set;
    else if (ch === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      if (expectKey) {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        const keys = stack[stack.length - 1] as Set<string>;
        if (keys.has(key)) return { key, line };
        keys.add(key);
        expectKey = false;
      }
      i = j;
    }
  }
  return null;
}

/**
 * Parses a case file's text: JSON with no key repeated in an object.
 *
 * @throws DomainError naming the repeated key and its line; SyntaxError for text that is not JSON
 */
export function parseCaseJson(text: string): unknown {
  const json = JSON.parse(text) as unknown;
  const dup = duplicateKey(text);
  if (dup)
    throw new DomainError(
      keyText(dup.key),
      `appears twice in one object (line ${dup.line}); JSON readers keep only one of them, so give it once`,
      "value",
    );
  return json;
}

/** A rate rounded to 1e-12 (0.1 + 0.05 is 0.15000000000000002 in binary). */
function points(rate: number): number {
  return Math.round(rate * 1e12) / 1e12;
}

/** The case's plausibleMove: a share for every driver, or an object with a default and case-wide moves. */
function plausibleMovesOf(v: unknown): PlausibleMoves {
  if (v === undefined || typeof v === "number") return { default: plausibleMoveOf(v, "plausibleMove") ?? 0.1 };
  const o = object(v, "plausibleMove", ["default", "discountRate", "load", "growth", "serviceTarget"]);
  const out: PlausibleMoves = { default: plausibleMoveOf(o.default, "plausibleMove.default") ?? 0.1 };
  for (const key of ["discountRate", "load", "growth", "serviceTarget"] as const) {
    const p = plausibleMoveOf(o[key], `plausibleMove.${key}`);
    if (p !== undefined) out[key] = p;
  }
  return out;
}

/**
 * Checks a business case given as parsed JSON and returns it with defaults filled in.
 *
 * Defaults: title "Business case", currency "£", timeUnit "s", rateUnit "per s", capex 0, no
 * opex lines, no workloads, server costs 0. Cost O(size of the input).
 *
 * @param json - the parsed JSON (untrusted)
 * @returns the validated input (a fresh object; `json` is not modified)
 * @throws DomainError (`#VALUE!`) whose argument is the path of the first bad input, e.g.
 *   `discountRate` or `options[1].opex[0].perYear`, and whose message says what is wrong
 * @example
 * parseCaseInput({ years: 3, discountRate: 0.1, options: [
 *   { name: "Keep", opex: [{ label: "Support", perYear: 100000 }] },
 *   { name: "Replace", capex: 250000 } ] }).options[1].capex; // => 250000
 */
export function parseCaseInput(json: unknown): CaseInput {
  const o = object(json, "", [
    "title",
    "currency",
    "years",
    "discountRate",
    "timeUnit",
    "rateUnit",
    "utilizationLimit",
    "sensitivity",
    "options",
    "assumptions",
    "risks",
    "sources",
    "serviceTarget",
    "plausibleMove",
    "$comment",
  ]);
  const currency = o.currency === undefined ? "£" : o.currency;
  if (typeof currency !== "string" || !/^(?:[£$€¥]|[A-Z]{3})$/.test(currency))
    fail("currency", `must be £, $, €, ¥ or a three-letter code such as CHF, got ${describe(currency)}`);
  const years = number(
    o.years,
    "years",
    (x) => Number.isInteger(x) && x >= 1 && x <= MAX_YEARS,
    `a whole number of years from 1 to ${MAX_YEARS}`,
  );
  if (o.discountRate === undefined) fail("discountRate", "is required (a fraction per year, 0.1 for 10%)");
  // A rate near −100 % makes 1/(1 + r)^t explode (−0.999999: NPVs of 1e302, options £1,000 apart
  // "cost the same"); 100 % or more is most likely a percentage typed as a number.
  const discountRate = number(
    o.discountRate,
    "discountRate",
    (x) => x > MIN_DISCOUNT_RATE,
    `a rate per year above ${MIN_DISCOUNT_RATE} as a fraction (0.1 for 10%)`,
  );
  if (discountRate >= 1)
    fail(
      "discountRate",
      `must be a fraction per year below 1 (0.1 for 10%); ${discountRate} would be ${discountRate * 100}%`,
    );
  const timeUnit = text(o.timeUnit, "timeUnit", 12, "s");
  const rateUnit = text(o.rateUnit, "rateUnit", 16, `per ${timeUnit}`);
  const utilizationLimit = optionalNumber(
    o.utilizationLimit,
    "utilizationLimit",
    0.8,
    (x) => x > 0 && x <= 1,
    "a utilization as a fraction in (0, 1] (0.8 for 80%)",
  );
  const sensitivity = sensitivityOf(o.sensitivity);
  // The discount rate's sensitivity is centred on the case's own rate (±5 points) unless given.
  const givenRate = (o.sensitivity as { discountRate?: unknown } | undefined)?.discountRate as
    { low?: unknown; high?: unknown } | undefined;
  if (givenRate?.low === undefined) sensitivity.discountRate.low = Math.max(points(discountRate - 0.05), -0.49);
  if (givenRate?.high === undefined) sensitivity.discountRate.high = Math.min(points(discountRate + 0.05), 0.99);
  if (o.options === undefined) fail("options", "is required (two or more options to compare)");
  const options = list(o.options, "options", 2, MAX_OPTIONS).map((v, i) =>
    option(v, `options[${i}]`, timeUnit, rateUnit, years),
  );
  checkGrowthShift(options, sensitivity.growth.low);
  options.forEach((opt, i) => {
    const j = options.findIndex((other) => other.name.toLowerCase() === opt.name.toLowerCase());
    if (j < i)
      fail(`options[${i}].name`, `repeats options[${j}].name "${options[j].name}" (options need different names)`);
  });
  let serviceTarget: ServiceTarget | undefined;
  if (o.serviceTarget !== undefined) {
    const t = object(o.serviceTarget, "serviceTarget", ["serviceLevel", "answerWithin"]);
    serviceTarget = {
      level: number(
        t.serviceLevel,
        "serviceTarget.serviceLevel",
        (x) => x >= 0 && x < 1,
        "a service level as a fraction in [0, 1) (0.8 for 80%)",
      ),
      answerWithin: number(t.answerWithin, "serviceTarget.answerWithin", (x) => x >= 0, `a time ≥ 0 in ${timeUnit}`),
    };
    if (!options.some((opt) => opt.workloads.length > 0))
      fail("serviceTarget", "is given but no option has workloads to answer within it");
  }
  return {
    plausibleMoves: plausibleMovesOf(o.plausibleMove),
    title: text(o.title, "title", MAX_TITLE, "Business case"),
    currency,
    years,
    discountRate,
    timeUnit,
    rateUnit,
    utilizationLimit,
    sensitivity,
    options,
    notes: {
      assumptions: notesOf(o.assumptions, "assumptions"),
      risks: notesOf(o.risks, "risks"),
      sources: notesOf(o.sources, "sources"),
    },
    ...(serviceTarget ? { serviceTarget } : {}),
  };
}
