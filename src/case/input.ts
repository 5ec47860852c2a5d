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
 * refused (a misspelt `capx` would otherwise silently cost nothing).
 */
import { DomainError } from "../core/errors";
import { parseReference } from "../workbook/plan";

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

/** A workload an option must carry: an M/M/c queue to size. */
export interface Workload {
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
}

/** One yearly running-cost line (support, licences, rent). Negative amounts are savings. */
export interface OpexLine {
  label: string;
  perYear: number;
  /** Where the amount comes from (free text). */
  source?: string;
  /** Growth of the amount per year as a fraction (0.03: +3 % a year): year t pays perYear·(1 + e)^t. Default 0. */
  escalation: number;
}

/** A one-off cost (migration, training, decommissioning) paid at the start of one year. Negative: a one-off income. */
export interface OneOffLine {
  label: string;
  amount: number;
  /** Where the amount comes from (free text). */
  source?: string;
  /** The year it is paid, 0 (now) … years − 1. Default 0. */
  year: number;
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
}

/** The sensitivity values when the input gives none. */
export const DEFAULT_SENSITIVITY: Sensitivity = {
  load: { low: 0.7, high: 1.3 },
  discountRate: { low: 0.05, high: 0.15 },
  capex: { low: 0.8, high: 1.2 },
  serverCost: { low: 0.8, high: 1.2 },
};

export const MAX_YEARS = 50;
export const MAX_OPTIONS = 10;
const MAX_NAME = 40;
/** A free-text note (an assumption, a risk, a source): a paragraph at most. */
const MAX_NOTE = 1000;
const MAX_NOTES = 30;
/** Discount rates at or below this are refused (see parseCaseInput). */
const MIN_DISCOUNT_RATE = -0.5;
const MAX_LABEL = 60;
const MAX_TITLE = 120;
const MAX_LINES = 30;
const MAX_WORKLOADS = 20;
/** Cells a service time may average (the steps of one protocol level). */
const MAX_REFS = 200;

type Json = Record<string, unknown>;

function fail(path: string, problem: string): never {
  throw new DomainError(path, problem, "value");
}

/**
 * Text from the input, quoted for a message: JSON-escaped (no raw control characters or
 * terminal escapes reach the terminal) and shortened to `max` characters.
 *
 * @example quoted("a\u001b[2Jb") // => '"a\\u001b[2Jb"'
 */
export function quoted(text: string, max = 40): string {
  return JSON.stringify(text.length > max ? text.slice(0, max) + "…" : text);
}

/** A key from the input for a path in a message: as is when it is a plain name, else quoted. */
function keyText(key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]{0,39}$/.test(key) ? key : quoted(key);
}

function describe(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v.length > 40 ? v.slice(0, 40) + "…" : v);
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "an object";
  return String(v);
}

function object(v: unknown, path: string, allowed: readonly string[]): Json {
  if (typeof v !== "object" || v === null || Array.isArray(v)) fail(path, `must be an object, got ${describe(v)}`);
  for (const key of Object.keys(v)) {
    if (!allowed.includes(key))
      fail(`${path ? path + "." : ""}${keyText(key)}`, `unknown field (expected one of ${allowed.join(", ")})`);
  }
  return v as Json;
}

function number(v: unknown, path: string, check: (x: number) => boolean, wanted: string): number {
  if (typeof v !== "number" || !Number.isFinite(v) || !check(v)) fail(path, `must be ${wanted}, got ${describe(v)}`);
  return v;
}

function optionalNumber(
  v: unknown,
  path: string,
  fallback: number,
  check: (x: number) => boolean,
  wanted: string,
): number {
  return v === undefined ? fallback : number(v, path, check, wanted);
}

function text(v: unknown, path: string, max: number, fallback?: string): string {
  if (v === undefined && fallback !== undefined) return fallback;
  if (typeof v !== "string") fail(path, `must be text, got ${describe(v)}`);
  const t = v.trim();
  if (t === "") fail(path, "must not be empty");
  if (t.length > max) fail(path, `must be at most ${max} characters, got ${t.length}`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001F\u007F]/.test(t)) fail(path, "must not contain control characters (line breaks, tabs)");
  return t;
}

/** An optional free-text `source` (at most {@link MAX_NOTE} characters, no control characters). */
function sourceOf(v: unknown, path: string): { source?: string } {
  return v === undefined ? {} : { source: text(v, path, MAX_NOTE) };
}

/** A list of free-text notes, or [] when absent. */
function notesOf(v: unknown, path: string): string[] {
  if (v === undefined) return [];
  return list(v, path, 0, MAX_NOTES).map((t, i) => text(t, `${path}[${i}]`, MAX_NOTE));
}

function list(v: unknown, path: string, min: number, max: number): unknown[] {
  if (!Array.isArray(v)) fail(path, `must be a list, got ${describe(v)}`);
  if (v.length < min || v.length > max) fail(path, `must have ${min} to ${max} entries, got ${v.length}`);
  return v;
}

const nonNegative = (x: number): boolean => x >= 0;
const positive = (x: number): boolean => x > 0;

/**
 * A cell reference a case may point to for a service time: a sheet name (quoted when needed)
 * and an absolute or relative A1 cell address. Nothing else (no functions, no ranges), so the
 * reference cannot smuggle a formula into the sheet.
 */
export function isCellRef(ref: string): boolean {
  const r = parseReference(ref);
  return r !== null && r.single && r.sheet !== undefined;
}

function sizing(v: unknown, path: string, serviceTime: number, timeUnit: string): Sizing {
  const o = object(v, path, ["servers", "utilization", "response", "serviceLevel", "answerWithin"]);
  const given = ["servers", "utilization", "response", "serviceLevel"].filter((k) => o[k] !== undefined);
  if (given.length !== 1) {
    fail(
      path,
      `give exactly one of servers (a fixed count), utilization (target, a fraction), response (target mean response time) ` +
        `or serviceLevel with answerWithin; got ${given.length === 0 ? "none" : given.join(", ")}`,
    );
  }
  if (o.answerWithin !== undefined && given[0] !== "serviceLevel")
    fail(`${path}.answerWithin`, "only goes with serviceLevel");
  switch (given[0]) {
    case "servers":
      return {
        kind: "servers",
        servers: number(
          o.servers,
          `${path}.servers`,
          (x) => Number.isInteger(x) && x >= 1 && x <= 1e7,
          "a whole number of servers from 1 to 10000000",
        ),
      };
    case "utilization":
      return {
        kind: "utilization",
        utilization: number(
          o.utilization,
          `${path}.utilization`,
          (x) => x > 0 && x <= 1,
          "a target utilization as a fraction in (0, 1] (0.7 for 70%)",
        ),
      };
    case "response":
      return {
        kind: "response",
        response: number(
          o.response,
          `${path}.response`,
          (x) => x > serviceTime,
          `a target mean response time above the service time ${serviceTime} ${timeUnit} (queueing only adds to it)`,
        ),
      };
    default:
      return {
        kind: "serviceLevel",
        level: number(
          o.serviceLevel,
          `${path}.serviceLevel`,
          (x) => x >= 0 && x < 1,
          "a service level as a fraction in [0, 1) (0.8 for 80%)",
        ),
        answerWithin: number(o.answerWithin, `${path}.answerWithin`, nonNegative, `a time ≥ 0 in ${timeUnit}`),
      };
  }
}

function workload(v: unknown, path: string, timeUnit: string, rateUnit: string): Workload {
  const o = object(v, path, [
    "name",
    "arrivalRate",
    "serviceTime",
    "serviceTimeRef",
    "serviceTimeRefDivisor",
    "sizing",
    "source",
  ]);
  const serviceTime = number(o.serviceTime, `${path}.serviceTime`, positive, `a positive time in ${timeUnit}`);
  const w: Workload = {
    name: text(o.name, `${path}.name`, MAX_NAME),
    arrivalRate: number(o.arrivalRate, `${path}.arrivalRate`, positive, `a positive rate in ${rateUnit}`),
    serviceTime,
    sizing: sizing(o.sizing, `${path}.sizing`, serviceTime, timeUnit),
    ...sourceOf(o.source, `${path}.source`),
  };
  if (o.serviceTimeRef !== undefined) {
    const refs = Array.isArray(o.serviceTimeRef) ? o.serviceTimeRef : [o.serviceTimeRef];
    if (refs.length === 0 || refs.length > MAX_REFS) {
      fail(`${path}.serviceTimeRef`, `must list 1 to ${MAX_REFS} cells, got ${refs.length}`);
    }
    refs.forEach((ref, i) => {
      if (typeof ref !== "string" || !isCellRef(ref)) {
        fail(
          Array.isArray(o.serviceTimeRef) ? `${path}.serviceTimeRef[${i}]` : `${path}.serviceTimeRef`,
          `must be one cell on another sheet such as 'Model'!$F$5, got ${describe(ref)}`,
        );
      }
    });
    w.serviceTimeRef = Array.isArray(o.serviceTimeRef) ? [...(refs as string[])] : (o.serviceTimeRef as string);
  }
  if (o.serviceTimeRefDivisor !== undefined) {
    if (w.serviceTimeRef === undefined) fail(`${path}.serviceTimeRefDivisor`, "only goes with serviceTimeRef");
    w.serviceTimeRefDivisor = number(
      o.serviceTimeRefDivisor,
      `${path}.serviceTimeRefDivisor`,
      (x) => x > 0 && x <= 1e12,
      "a positive number the referenced cell is divided by (1000 for milliseconds in a case counted in seconds)",
    );
  }
  return w;
}

function option(v: unknown, path: string, timeUnit: string, rateUnit: string, years: number): CaseOption {
  const o = object(v, path, [
    "name",
    "capex",
    "opex",
    "oneOff",
    "residualValue",
    "workloads",
    "costPerServer",
    "costPerServerPerYear",
    "source",
  ]);
  const name = text(o.name, `${path}.name`, MAX_NAME);
  // The first column of the case's tables is headed "Item" or "Year".
  if (/^(item|year)$/i.test(name))
    fail(`${path}.name`, `"${name}" is a column heading of the case sheet; choose another name`);
  const opex = (o.opex === undefined ? [] : list(o.opex, `${path}.opex`, 0, MAX_LINES)).map((line, i): OpexLine => {
    const p = `${path}.opex[${i}]`;
    const l = object(line, p, ["label", "perYear", "escalation", "source"]);
    return {
      label: text(l.label, `${p}.label`, MAX_LABEL),
      perYear: number(l.perYear, `${p}.perYear`, () => true, "an amount per year (negative for a saving)"),
      escalation: optionalNumber(
        l.escalation,
        `${p}.escalation`,
        0,
        (x) => x > -0.5 && x <= 1,
        "a growth per year as a fraction from -0.5 to 1 (0.03 for 3% a year)",
      ),
      ...sourceOf(l.source, `${p}.source`),
    };
  });
  const oneOff = (o.oneOff === undefined ? [] : list(o.oneOff, `${path}.oneOff`, 0, MAX_LINES)).map(
    (line, i): OneOffLine => {
      const p = `${path}.oneOff[${i}]`;
      const l = object(line, p, ["label", "amount", "year", "source"]);
      return {
        label: text(l.label, `${p}.label`, MAX_LABEL),
        amount: number(l.amount, `${p}.amount`, () => true, "an amount (negative for a one-off income)"),
        year: optionalNumber(
          l.year,
          `${p}.year`,
          0,
          (x) => Number.isInteger(x) && x >= 0 && x < years,
          `a whole year from 0 (now) to ${years - 1}`,
        ),
        ...sourceOf(l.source, `${p}.source`),
      };
    },
  );
  oneOff.forEach((line, i) => {
    const j = oneOff.findIndex((other) => other.label.toLowerCase() === line.label.toLowerCase());
    if (j < i) fail(`${path}.oneOff[${i}].label`, `repeats ${path}.oneOff[${j}].label "${oneOff[j].label}"`);
  });
  opex.forEach((line, i) => {
    const j = opex.findIndex((other) => other.label.toLowerCase() === line.label.toLowerCase());
    if (j < i) fail(`${path}.opex[${i}].label`, `repeats ${path}.opex[${j}].label "${opex[j].label}"`);
  });
  const workloads = (o.workloads === undefined ? [] : list(o.workloads, `${path}.workloads`, 0, MAX_WORKLOADS)).map(
    (w, i) => workload(w, `${path}.workloads[${i}]`, timeUnit, rateUnit),
  );
  workloads.forEach((w, i) => {
    const j = workloads.findIndex((other) => other.name.toLowerCase() === w.name.toLowerCase());
    if (j < i) fail(`${path}.workloads[${i}].name`, `repeats ${path}.workloads[${j}].name "${workloads[j].name}"`);
  });
  const costPerServer = optionalNumber(o.costPerServer, `${path}.costPerServer`, 0, nonNegative, "an amount ≥ 0");
  const costPerServerPerYear = optionalNumber(
    o.costPerServerPerYear,
    `${path}.costPerServerPerYear`,
    0,
    nonNegative,
    "an amount per year ≥ 0",
  );
  if (workloads.length === 0 && (costPerServer > 0 || costPerServerPerYear > 0)) {
    fail(`${path}.costPerServer`, "is given but the option has no workloads to size servers for");
  }
  return {
    name,
    capex: optionalNumber(o.capex, `${path}.capex`, 0, nonNegative, "an amount ≥ 0"),
    opex,
    workloads,
    costPerServer,
    costPerServerPerYear,
    oneOff,
    residualValue: optionalNumber(o.residualValue, `${path}.residualValue`, 0, nonNegative, "an amount ≥ 0"),
    ...sourceOf(o.source, `${path}.source`),
  };
}

const DRIVERS: Record<keyof Sensitivity, { wanted: string; check: (x: number) => boolean }> = {
  load: {
    wanted: "a factor on the arrival rates from 0.01 to 100 (0.7 for 30% less)",
    check: (x) => x >= 0.01 && x <= 100,
  },
  discountRate: { wanted: "a discount rate from -0.5 to 1 (0.05 for 5%)", check: (x) => x >= -0.5 && x <= 1 },
  capex: { wanted: "a factor on capex from 0 to 100 (0.8 for 20% less)", check: (x) => x >= 0 && x <= 100 },
  serverCost: { wanted: "a factor on per-server costs from 0 to 100", check: (x) => x >= 0 && x <= 100 },
};

function sensitivityOf(v: unknown): Sensitivity {
  if (v === undefined) return structuredClone(DEFAULT_SENSITIVITY);
  const o = object(v, "sensitivity", Object.keys(DRIVERS));
  const out = structuredClone(DEFAULT_SENSITIVITY);
  for (const key of Object.keys(DRIVERS) as (keyof Sensitivity)[]) {
    if (o[key] === undefined) continue;
    const path = `sensitivity.${key}`;
    const r = object(o[key], path, ["low", "high"]);
    const { wanted, check } = DRIVERS[key];
    out[key] = {
      low: optionalNumber(r.low, `${path}.low`, out[key].low, check, wanted),
      high: optionalNumber(r.high, `${path}.high`, out[key].high, check, wanted),
    };
  }
  return out;
}

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
  if (o.options === undefined) fail("options", "is required (two or more options to compare)");
  const options = list(o.options, "options", 2, MAX_OPTIONS).map((v, i) =>
    option(v, `options[${i}]`, timeUnit, rateUnit, years),
  );
  options.forEach((opt, i) => {
    const j = options.findIndex((other) => other.name.toLowerCase() === opt.name.toLowerCase());
    if (j < i)
      fail(`options[${i}].name`, `repeats options[${j}].name "${options[j].name}" (options need different names)`);
  });
  return {
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
  };
}
