/**
 * The growth fields of a case's workload, and their validation: how the load grows over the
 * case's years, the servers already installed, the purchase unit and when to buy
 * (`src/core/capacity-plan.ts` turns them into a year-by-year plan).
 *
 * In the input file, on a workload (all optional; a case without any of them is the case as
 * before, one sizing at today's load for every year):
 * - `growth`: the load's growth per year as a fraction (0.2 for 20 %), compound; or a list of one
 *   rate per year (`years` entries, year 0 first);
 * - `growthRef`: a cell of another sheet holding the growth (What-if's growth % per year), with
 *   `growthRefDivisor` (100 for a percentage); `arrivalRateRef`: a cell holding today's load;
 * - `installed`: servers already in place (bought before year 0: no one-off cost);
 * - `purchaseUnit`: servers come in units of this many (a node of 4 cores, a shelf);
 * - `purchasePolicy`: `"asNeeded"` (buy at the start of the year whose load needs it) or
 *   `"headroom"` (buy when the utilization would pass the target by the year's end).
 * A fixed server count (`sizing.servers`) does not grow; with it these fields are refused.
 */
import type { GrowthRates, PurchasePolicy } from "../core/capacity-plan";
import { describe as show, fail, isCellRef } from "./input-fields";

/** The growth fields of one workload, as validated. */
export interface WorkloadGrowth {
  /** A rate per year (> −1) or one rate per year of the case. */
  growth?: GrowthRates;
  /** A cell of another sheet holding the growth, divided by `growthRefDivisor` (default 1). */
  growthRef?: string;
  growthRefDivisor?: number;
  /** A cell of another sheet holding today's arrival rate. */
  arrivalRateRef?: string;
  installed?: number;
  purchaseUnit?: number;
  purchasePolicy?: PurchasePolicy;
}

/** The input fields this module reads on a workload. */
export const GROWTH_FIELDS = [
  "growth",
  "growthRef",
  "growthRefDivisor",
  "arrivalRateRef",
  "installed",
  "purchaseUnit",
  "purchasePolicy",
] as const;

/** Growth rates accepted: above −100 % (the load would vanish), at most 1,000 % (10 as a fraction). */
const MAX_GROWTH = 10;

function rate(v: unknown, path: string): number {
  if (typeof v !== "number" || !Number.isFinite(v) || v <= -1 || v > MAX_GROWTH)
    fail(
      path,
      `must be a growth per year as a fraction above -1 and at most ${MAX_GROWTH} (0.2 for 20%), got ${show(v)}` +
        (typeof v === "number" && v > MAX_GROWTH ? ` (${v} would be ${v * 100}%)` : ""),
    );
  return v;
}

function wholeServers(v: unknown, path: string, min: number): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > 1e7)
    fail(path, `must be a whole number of servers from ${min} to 10000000, got ${show(v)}`);
  return v;
}

/** The growth: one rate, or one per year. */
function growthRates(v: unknown, path: string, years: number): GrowthRates {
  if (!Array.isArray(v)) return rate(v, path);
  if (v.length !== years) fail(path, `must list one rate per year (${years}), year 0 first, got ${v.length}`);
  return v.map((g, t) => rate(g, `${path}[${t}]`));
}

/** The references (growthRef with its divisor, arrivalRateRef), checked against the growth given. */
function references(o: Record<string, unknown>, path: string, out: WorkloadGrowth): void {
  for (const key of ["growthRef", "arrivalRateRef"] as const) {
    const ref = o[key];
    if (ref === undefined) continue;
    if (typeof ref !== "string" || !isCellRef(ref))
      fail(`${path}.${key}`, `must be one cell on another sheet such as 'What-if'!$C$5, got ${show(ref)}`);
    out[key] = ref;
  }
  if (out.growthRef !== undefined && out.growth === undefined)
    fail(`${path}.growth`, "is required with growthRef (the referenced cell's current value, as a fraction)");
  if (out.growthRef !== undefined && Array.isArray(out.growth))
    fail(`${path}.growthRef`, "goes with one compound growth rate, not a list of rates");
  if (o.growthRefDivisor === undefined) return;
  if (out.growthRef === undefined) fail(`${path}.growthRefDivisor`, "only goes with growthRef");
  const d = o.growthRefDivisor;
  if (typeof d !== "number" || !Number.isFinite(d) || d <= 0 || d > 1e12)
    fail(`${path}.growthRefDivisor`, `must be a positive number (100 for a cell in percent), got ${show(d)}`);
  out.growthRefDivisor = d;
}

function policy(v: unknown, path: string): PurchasePolicy {
  if (v !== "asNeeded" && v !== "headroom")
    fail(
      path,
      `must be "asNeeded" (buy in the year that needs it) or "headroom" (buy when the utilization would pass the target by the year's end), got ${show(v)}`,
    );
  return v;
}

/**
 * The growth fields of a workload (`o` is the workload's object, already checked for unknown
 * fields), or {} when it has none.
 *
 * @throws DomainError naming the field, e.g. `options[0].workloads[0].growth[2]`
 */
export function growthOf(
  o: Record<string, unknown>,
  path: string,
  years: number,
  fixedServers: boolean,
): WorkloadGrowth {
  const given = GROWTH_FIELDS.filter((k) => o[k] !== undefined);
  if (given.length === 0) return {};
  const grows = given.find((k) => k !== "arrivalRateRef");
  if (fixedServers && grows)
    fail(
      `${path}.${grows}`,
      "goes with a sizing target (utilization, response or serviceLevel): a fixed number of servers does not grow",
    );
  const out: WorkloadGrowth = {};
  if (o.growth !== undefined) out.growth = growthRates(o.growth, `${path}.growth`, years);
  references(o, path, out);
  if (o.installed !== undefined) out.installed = wholeServers(o.installed, `${path}.installed`, 0);
  if (o.purchaseUnit !== undefined) out.purchaseUnit = wholeServers(o.purchaseUnit, `${path}.purchaseUnit`, 1);
  if (o.purchasePolicy !== undefined) out.purchasePolicy = policy(o.purchasePolicy, `${path}.purchasePolicy`);
  return out;
}

/** Whether a workload takes part in the year-by-year plan (any growth field given). */
export function plansGrowth(w: WorkloadGrowth): boolean {
  return (
    w.growth !== undefined ||
    w.installed !== undefined ||
    w.purchaseUnit !== undefined ||
    w.purchasePolicy !== undefined
  );
}

/** Every growth rate moved by the sensitivity's low growth must stay above −100 %. */
export function checkGrowthShift(options: { workloads: WorkloadGrowth[] }[], low: number): void {
  options.forEach((o, i) =>
    o.workloads.forEach((w, j) => {
      const rates = w.growth === undefined ? [] : typeof w.growth === "number" ? [w.growth] : w.growth;
      const least = Math.min(...rates);
      if (rates.length > 0 && least + low <= -1)
        fail(
          "sensitivity.growth.low",
          `moves options[${i}].workloads[${j}].growth ${least} to ${least + low}, at or below -1 (the load would vanish); give a smaller shift`,
        );
    }),
  );
}
