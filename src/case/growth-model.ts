/**
 * The figures of a case whose load grows: each workload's year-by-year purchase plan
 * (`src/core/capacity-plan.ts`) and the option's cash flows that follow from it,
 *
 *     CF_t = [t = 0]·capex + Σ_lines perYear·(1 + e)^t + one-off lines of year t
 *            + Σ_workloads (b_t·costPerServer + c_t·costPerServerPerYear)
 *
 * (b_t servers bought at the start of year t, c_t in service during it; installed servers pay no
 * one-off cost), a residual value at t = years as before. With growth 0, nothing installed and a
 * purchase unit of 1 every workload buys its servers in year 0 and keeps them: the flows of the
 * case without growth. The sensitivity's load factor scales today's rate (and so every year's);
 * the growth driver adds points to every year's rate (−0.1: ten points less). Cost: O(workloads ×
 * years) sizings per plan, seven plans per workload (base, load low/high, growth low/high, and
 * the low and high scenarios, where load and growth move together).
 */
import { GrowthRates, PoolPlan, poolPlan } from "../core/capacity-plan";
import { CaseInput, CaseOption, Workload } from "./input";
import { plansGrowth } from "./growth-input";

/**
 * A workload's plans: at base, at the low and high load factor, at the low and high growth, and
 * the low and high scenarios (load and growth both low, both high).
 */
export interface WorkloadPlans {
  base: PoolPlan;
  loadLow: PoolPlan;
  loadHigh: PoolPlan;
  growthLow: PoolPlan;
  growthHigh: PoolPlan;
  scenarioLow: PoolPlan;
  scenarioHigh: PoolPlan;
}

/** Which plan a set of flows is made from. */
export type PlanKey = keyof WorkloadPlans;

/** Whether the case plans purchases year by year (a workload has a growth field). */
export function isGrowthCase(input: CaseInput): boolean {
  return input.options.some((o) => o.workloads.some(plansGrowth));
}

/** The workload's growth rates moved by `shift` points (a rate per year, or one per year). */
export function shiftedGrowth(w: Workload, shift: number): GrowthRates {
  const g = w.growth ?? 0;
  if (shift === 0) return g;
  return typeof g === "number" ? g + shift : g.map((x) => x + shift);
}

/**
 * One workload's purchase plan at today's rate × `loadFactor` and growth + `growthShift`.
 *
 * @param sizeAt - the case's sizing rule for this workload at an arrival rate
 */
export function workloadPlan(
  input: CaseInput,
  opt: CaseOption,
  w: Workload,
  sizeAt: (rate: number) => number,
  loadFactor = 1,
  growthShift = 0,
): PoolPlan {
  return poolPlan({
    years: input.years,
    // The sheet multiplies in this order (rate × factor).
    arrivalRate: loadFactor === 1 ? w.arrivalRate : w.arrivalRate * loadFactor,
    serviceTime: w.serviceTime,
    growth: shiftedGrowth(w, growthShift),
    installed: w.installed ?? 0,
    unit: w.purchaseUnit ?? 1,
    policy: w.purchasePolicy ?? "asNeeded",
    serversFor: sizeAt,
    answerWithin: w.sizing.kind === "serviceLevel" ? w.sizing.answerWithin : undefined,
    costPerServer: opt.costPerServer,
    costPerServerPerYear: opt.costPerServerPerYear,
  });
}

/** The seven plans of a workload (see {@link WorkloadPlans}). */
export function workloadPlans(
  input: CaseInput,
  opt: CaseOption,
  w: Workload,
  sizeAt: (rate: number) => number,
): WorkloadPlans {
  const s = input.sensitivity;
  return {
    base: workloadPlan(input, opt, w, sizeAt),
    loadLow: workloadPlan(input, opt, w, sizeAt, s.load.low),
    loadHigh: workloadPlan(input, opt, w, sizeAt, s.load.high),
    growthLow: workloadPlan(input, opt, w, sizeAt, 1, s.growth.low),
    growthHigh: workloadPlan(input, opt, w, sizeAt, 1, s.growth.high),
    scenarioLow: workloadPlan(input, opt, w, sizeAt, s.load.low, s.growth.low),
    scenarioHigh: workloadPlan(input, opt, w, sizeAt, s.load.high, s.growth.high),
  };
}

/** The server costs of an option per year (one-off for the bought, yearly for those in service), × `factor`. */
export function serverCostsPerYear(plans: readonly WorkloadPlans[], key: PlanKey, years: number, factor = 1): number[] {
  return Array.from({ length: years }, (_, t) =>
    plans.reduce((sum, p) => sum + (p[key].years[t].oneOffCost + p[key].years[t].yearlyCost) * factor, 0),
  );
}

/**
 * Cash flows of an option whose servers are bought year by year: CF_0 … CF_{periods−1} with
 * capex × `capexFactor` and the server costs of `serverCosts` (see the module comment).
 */
export function growthFlows(
  input: CaseInput,
  opt: CaseOption,
  periods: number,
  serverCosts: readonly number[],
  capexFactor = 1,
): number[] {
  return Array.from({ length: periods }, (_, t) => {
    if (t === input.years) return -opt.residualValue;
    let cf = opt.opex.reduce(
      (s, l) => s + (l.escalation === 0 ? l.perYear : l.perYear * Math.pow(1 + l.escalation, t)),
      0,
    );
    cf += serverCosts[t];
    for (const x of opt.oneOff) if (x.year === t) cf += x.amount;
    return t === 0 ? opt.capex * capexFactor + cf : cf;
  });
}

/** Present value of a list of yearly amounts paid at the start of each year. */
export function presentValue(amounts: readonly number[], rate: number): number {
  return amounts.reduce((s, x, t) => s + x / Math.pow(1 + rate, t), 0);
}

/** The servers a plan starts from (installed before year 0): in service in year 0 less those bought then. */
export function installedOf(plan: PoolPlan): number {
  return plan.years[0].inService - plan.years[0].bought;
}

/**
 * The first year any of an option's workloads with servers installed runs out of them; null when
 * none does within the years; undefined when the option has no servers installed (it buys all it
 * needs, nothing runs out).
 */
export function optionRunsOutIn(plans: readonly WorkloadPlans[]): number | null | undefined {
  const installed = plans.filter((p) => installedOf(p.base) > 0);
  if (installed.length === 0) return undefined;
  const years = installed.map((p) => p.base.runsOutIn).filter((y): y is number => y !== null);
  return years.length === 0 ? null : Math.min(...years);
}
