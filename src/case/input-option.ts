/** The parts of a case's JSON below the top level: an option (capex, running-cost and one-off lines, workloads, server costs), a workload and its sizing rule, and the sensitivity ranges. */
import type { CaseOption, OneOffLine, OpexLine, Sensitivity, Sizing, Workload } from "./input";
import {
  describe,
  fail,
  isCellRef,
  list,
  nonNegative,
  number,
  object,
  optionalNumber,
  positive,
  sourceOf,
  text,
} from "./input-fields";
import { GROWTH_FIELDS, growthOf } from "./growth-input";

/** The sensitivity values when the input gives none. */
export const DEFAULT_SENSITIVITY: Sensitivity = {
  load: { low: 0.7, high: 1.3 },
  discountRate: { low: 0.05, high: 0.15 },
  capex: { low: 0.8, high: 1.2 },
  serverCost: { low: 0.8, high: 1.2 },
  growth: { low: -0.1, high: 0.1 },
};

const MAX_NAME = 40;
const MAX_LABEL = 60;
const MAX_LINES = 30;
const MAX_WORKLOADS = 20;
/** Cells a service time may average (the steps of one protocol level). */
const MAX_REFS = 200;

/**
 * A plausible move as given (a share of the value, 0 < p ≤ 1: 0.1 for ±10 %), or undefined when
 * not given.
 */
export function plausibleMoveOf(v: unknown, path: string): number | undefined {
  if (v === undefined) return undefined;
  return number(
    v,
    path,
    (x) => x > 0 && x <= 1,
    "a plausible move as a share of the value, above 0 and at most 1 (0.1 for ±10%)",
  );
}

/** `{ plausibleMove }` when given, else nothing (so the field is absent, not undefined). */
function plausibleField(v: unknown, path: string): { plausibleMove?: number } {
  const p = plausibleMoveOf(v, path);
  return p === undefined ? {} : { plausibleMove: p };
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

export function workload(v: unknown, path: string, timeUnit: string, rateUnit: string, years: number): Workload {
  const o = object(v, path, [
    "name",
    "arrivalRate",
    "serviceTime",
    "serviceTimeRef",
    "serviceTimeRefDivisor",
    "sizing",
    "source",
    "plausibleMove",
    ...GROWTH_FIELDS,
  ]);
  const serviceTime = number(o.serviceTime, `${path}.serviceTime`, positive, `a positive time in ${timeUnit}`);
  const w: Workload = {
    name: text(o.name, `${path}.name`, MAX_NAME),
    arrivalRate: number(o.arrivalRate, `${path}.arrivalRate`, positive, `a positive rate in ${rateUnit}`),
    serviceTime,
    sizing: sizing(o.sizing, `${path}.sizing`, serviceTime, timeUnit),
    ...sourceOf(o.source, `${path}.source`),
    ...plausibleField(o.plausibleMove, `${path}.plausibleMove`),
  };
  Object.assign(w, growthOf(o, path, years, w.sizing.kind === "servers"));
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

/** An option's running-cost lines. */
function opexLines(v: unknown, path: string): OpexLine[] {
  return (v === undefined ? [] : list(v, path, 0, MAX_LINES)).map((line, i): OpexLine => {
    const p = `${path}[${i}]`;
    const l = object(line, p, ["label", "perYear", "escalation", "source", "plausibleMove"]);
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
      ...plausibleField(l.plausibleMove, `${p}.plausibleMove`),
    };
  });
}

/** An option's one-off cost lines, each paid in a year within the case. */
function oneOffLines(v: unknown, path: string, years: number): OneOffLine[] {
  return (v === undefined ? [] : list(v, path, 0, MAX_LINES)).map((line, i): OneOffLine => {
    const p = `${path}[${i}]`;
    const l = object(line, p, ["label", "amount", "year", "source", "plausibleMove"]);
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
      ...plausibleField(l.plausibleMove, `${p}.plausibleMove`),
    };
  });
}

/** Fails on the first entry whose `field` repeats an earlier one's, ignoring case. */
function noRepeats<T>(items: T[], path: string, field: string, name: (item: T) => string): void {
  items.forEach((item, i) => {
    const j = items.findIndex((other) => name(other).toLowerCase() === name(item).toLowerCase());
    if (j < i) fail(`${path}[${i}].${field}`, `repeats ${path}[${j}].${field} "${name(items[j])}"`);
  });
}

export function option(v: unknown, path: string, timeUnit: string, rateUnit: string, years: number): CaseOption {
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
    "plausibleMove",
  ]);
  const name = text(o.name, `${path}.name`, MAX_NAME);
  // The first column of the case's tables is headed "Item" or "Year".
  if (/^(item|year)$/i.test(name))
    fail(`${path}.name`, `"${name}" is a column heading of the case sheet; choose another name`);
  const opex = opexLines(o.opex, `${path}.opex`);
  const oneOff = oneOffLines(o.oneOff, `${path}.oneOff`, years);
  noRepeats(oneOff, `${path}.oneOff`, "label", (l) => l.label);
  noRepeats(opex, `${path}.opex`, "label", (l) => l.label);
  const workloads = (o.workloads === undefined ? [] : list(o.workloads, `${path}.workloads`, 0, MAX_WORKLOADS)).map(
    (w, i) => workload(w, `${path}.workloads[${i}]`, timeUnit, rateUnit, years),
  );
  noRepeats(workloads, `${path}.workloads`, "name", (w) => w.name);
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
    ...plausibleField(o.plausibleMove, `${path}.plausibleMove`),
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
  growth: {
    wanted: "points added to every year's growth, from -1 to 10 (-0.1 for ten points less)",
    check: (x) => x >= -1 && x <= 10,
  },
};

export function sensitivityOf(v: unknown): Sensitivity {
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
