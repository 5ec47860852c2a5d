/**
 * What the Case form needs from the validator, in the words of the form: numbers typed as people
 * type them ("10%", "70k", "1.5M", "81 µs"), field paths as the labels a planner sees
 * ("FC › Workload 1 › Arrival rate" rather than `options[1].workloads[0].arrivalRate`), and every
 * problem of a draft at once (the validator of `caplab case` stops at the first).
 */
import { parseCaseInput } from "../case/input";
import { buildCasePlan } from "../case/case-plan";
import { isDomainError } from "../core/errors";

/** Seconds per time unit, for times typed with a unit. */
const SECONDS: Record<string, number> = {
  ns: 1e-9,
  µs: 1e-6,
  us: 1e-6,
  ms: 1e-3,
  s: 1,
  sec: 1,
  min: 60,
  h: 3600,
  hr: 3600,
};

/**
 * A number as typed: plain ("0.1", "70000", "1e-5", "70,000"), a percentage ("10%" → 0.1), with a
 * magnitude ("70k" → 70000, "1.5M" → 1500000, "2G"), or a time with its unit ("81 µs", "0.5 ms") in
 * the case's time unit (`timeUnit`: "81 µs" in a case in seconds → 0.000081). Empty → undefined;
 * anything else is returned as the text, for the validator to name.
 *
 * @example typedNumber("10%") // => 0.1
 * @example typedNumber("81 µs", "s") // => 0.000081
 */
export function typedNumber(text: string, timeUnit?: string): unknown {
  const t = text.trim();
  if (t === "") return undefined;
  const plain = Number(t.replace(/(\d),(?=\d{3}\b)/g, "$1"));
  if (Number.isFinite(plain)) return plain;
  const m = /^([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(%|k|K|M|G|[a-zµ]+)$/.exec(t);
  if (!m) return t;
  const n = Number(m[1]);
  const suffix = m[2];
  if (suffix === "%") return n / 100;
  if (suffix === "k" || suffix === "K") return n * 1e3;
  if (suffix === "M") return n * 1e6;
  if (suffix === "G") return n * 1e9;
  const from = SECONDS[suffix];
  const to = SECONDS[(timeUnit ?? "").trim()];
  if (from !== undefined && to !== undefined) return Number(((n * from) / to).toPrecision(15));
  return t;
}

type Obj = Record<string, unknown>;

const FIELD_NAMES: Record<string, string> = {
  title: "Title",
  currency: "Currency",
  years: "Years",
  discountRate: "Discount rate",
  timeUnit: "Time unit",
  rateUnit: "Rate unit",
  utilizationLimit: "Flag utilization above",
  name: "Name",
  capex: "Capex",
  opex: "Yearly costs",
  label: "Label",
  perYear: "Per year",
  escalation: "Escalation",
  oneOff: "One-off costs",
  amount: "Amount",
  year: "Year",
  residualValue: "Residual value",
  workloads: "Workloads",
  costPerServer: "Cost per server, one-off",
  costPerServerPerYear: "Cost per server per year",
  arrivalRate: "Arrival rate",
  serviceTime: "Service time",
  serviceTimeRef: "Service time from",
  serviceTimeRefDivisor: "Service time divisor",
  growth: "Growth per year",
  growthRef: "Load and growth from",
  growthRefDivisor: "Growth divisor",
  arrivalRateRef: "Load and growth from",
  installed: "Servers installed",
  purchaseUnit: "Purchase unit",
  purchasePolicy: "Buy",
  sizing: "Size by",
  servers: "Servers",
  utilization: "Target utilization",
  response: "Target mean response",
  serviceLevel: "Service level",
  answerWithin: "Answer within",
  source: "Source",
  options: "Options",
};

/** "FC", "Workload 1 (IO)", "Cost line 2 (Support)" for the item `i` of a list of that kind. */
function itemLabel(kind: string | undefined, i: number, node: unknown): string | undefined {
  const name = typeof node === "object" && node !== null ? ((node as Obj).name ?? (node as Obj).label) : undefined;
  const named = typeof name === "string" && name.trim() !== "" ? name.trim() : undefined;
  const suffix = named ? ` (${named})` : "";
  if (kind === "options") return named ?? `Option ${i + 1}`;
  if (kind === "workloads") return `Workload ${i + 1}${suffix}`;
  if (kind === "opex") return `Cost line ${i + 1}${suffix}`;
  if (kind === "oneOff") return `One-off ${i + 1}${suffix}`;
  return undefined;
}

/**
 * A validator path in the form's words: the option's name, the line's or workload's number and
 * name, the field's label.
 *
 * @example humanPath("options[1].workloads[0].arrivalRate", { options: [{ name: "A" }, { name: "FC", workloads: [{ name: "IO" }] }] })
 * // => "FC › Workload 1 (IO) › Arrival rate"
 */
export function humanPath(path: string, draft: unknown): string {
  const parts: string[] = [];
  let node: unknown = draft;
  for (const m of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    const key = m[1];
    const index = m[2];
    if (key !== undefined) {
      node = typeof node === "object" && node !== null ? (node as Obj)[key] : undefined;
      if (!["options", "workloads", "opex", "oneOff"].includes(key)) parts.push(FIELD_NAMES[key] ?? key);
      continue;
    }
    const i = Number(index);
    const parent = parts.length;
    const list = node;
    node = Array.isArray(list) ? (list[i] as unknown) : undefined;
    const container = /(options|workloads|opex|oneOff)\[\d+\]$/.exec(path.slice(0, (m.index ?? 0) + m[0].length));
    const label = itemLabel(container?.[1], i, node);
    if (label) parts.push(label);
    else parts.splice(parent, 0, `${i + 1}`);
  }
  return parts.join(" › ");
}

/** One problem of a draft: the validator's path and message. */
export interface Problem {
  path: string | null;
  message: string;
}

function check(draft: unknown): Problem | null {
  try {
    buildCasePlan(parseCaseInput(draft));
    return null;
  } catch (e) {
    if (isDomainError(e)) return { path: e.argument, message: e.message.slice(e.argument.length + 2) };
    return { path: null, message: (e as Error).message };
  }
}

/** A valid option to stand beside the one being checked. */
const FILLER = { name: "\u2063filler", capex: 0 };
const GENERAL = { years: 1, discountRate: 0.1 };

/**
 * Every problem of a draft that can be told apart: the case's own fields, then each option alone
 * (with its workloads left out), then each workload alone in its option — each checked by the same
 * validator, beside a valid stand-in where the case needs two options. One problem per scope
 * (the validator stops at the first within it); a problem only the whole case shows (two options
 * with the same name) comes last.
 */
export function allProblems(draft: unknown): Problem[] {
  const d = (typeof draft === "object" && draft !== null ? draft : {}) as Obj;
  const whole = check(d);
  if (whole === null) return [];
  const out: Problem[] = [];
  const seen = new Set<string>();
  const add = (p: Problem | null, remap: (path: string) => string): void => {
    if (p === null || p.path === null) return;
    const path = remap(p.path);
    if (seen.has(path)) return;
    seen.add(path);
    out.push({ path, message: p.message });
  };
  const options = Array.isArray(d.options) ? (d.options as unknown[]) : [];
  const units = { timeUnit: d.timeUnit, rateUnit: d.rateUnit };
  add(check({ ...d, options: [FILLER, { ...FILLER, name: "\u2063filler 2" }] }), (p) => p);
  const general = { ...GENERAL, ...Object.fromEntries(Object.entries(units).filter(([, v]) => v !== undefined)) };
  options.forEach((o, i) => {
    if (typeof o !== "object" || o === null) return;
    const opt = o as Obj;
    const alone = { ...opt };
    delete alone.workloads;
    delete alone.costPerServer;
    delete alone.costPerServerPerYear;
    const years = typeof d.years === "number" && d.years >= 1 && d.years <= 50 ? d.years : 50;
    add(check({ ...general, years, options: [alone, FILLER] }), (p) => p.replace(/^options\[0\]/, `options[${i}]`));
    const workloads = Array.isArray(opt.workloads) ? (opt.workloads as unknown[]) : [];
    workloads.forEach((w, j) =>
      add(
        check({
          ...general,
          options: [
            {
              name: "\u2063w",
              workloads: [w],
              costPerServer: opt.costPerServer,
              costPerServerPerYear: opt.costPerServerPerYear,
            },
            FILLER,
          ],
        }),
        (p) =>
          p
            .replace(/^options\[0\]\.workloads\[0\]/, `options[${i}].workloads[${j}]`)
            .replace(/^options\[0\]/, `options[${i}]`),
      ),
    );
  });
  if (whole.path === null || !seen.has(whole.path)) out.push(whole);
  return out;
}
