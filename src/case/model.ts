/**
 * The figures of a business case, computed by the core (`staffForTarget`, `mmcMetrics`, `npv`): nothing
 * here re-implements a queueing or finance formula, so the sheet's `CAPLAB.*` formulas and these
 * numbers are the same code.
 *
 * Per workload: the servers its sizing rule gives, then the M/M/c utilization, mean response, mean
 * wait and P(wait) at that size. Per option: servers = the sum over its workloads; cash flow at
 * year t (t = 0 … years − 1)
 *
 *     CF_t = [t = 0]·(capex + servers·costPerServer) + Σ opex + servers·costPerServerPerYear,
 *
 * net present cost NPV = Σ CF_t/(1 + r)^t (first payment undiscounted, `npv`), the cumulative
 * discounted cost per year, the difference from the first option (the baseline) and the
 * break-even capex: the capex at which the option would cost exactly what the baseline costs,
 * capex − (NPV − NPV_baseline).
 *
 * Sizing by utilization u is the utilization law: the fewest whole c with λ·S/c ≤ u and λ·S < c,
 * i.e. max(⌈λ·S/u⌉, ⌊λ·S⌋ + 1), and by response R the mean-wait target R − S, by service level
 * the share answered within `answerWithin` — each decided on 12 significant digits exactly as the
 * sheet's formulas decide (`src/core/sheet-sizing.ts`), so cached and recalculated counts agree. Cost: O(Σ servers) for the queueing,
 * O(options·years) for the money.
 *
 * When a workload's load grows (`growth-model.ts`), its servers are planned year by year and the
 * option's server costs follow the purchases: CF_t then has b_t·costPerServer + c_t·costPerServerPerYear
 * in place of the servers' one-off and yearly costs above (the same flows when nothing grows).
 */
import { DomainError, isDomainError } from "../core/errors";
import { mmcMetrics, mmcServiceLevel } from "../core/mmc";
import { serversForUtilization as coreServersForUtilization, staffForTarget } from "../core/sheet-sizing";
import { npv } from "../core/npv";
import { irr, signChanges } from "../core/irr";
import { payback } from "../core/payback";
import { fractionalPayback } from "../core/payback-fraction";
import { returnMeasure, ReturnMeasure } from "../core/return-measure";
import { CaseInput, CaseOption, Sizing, Workload } from "./input";
import {
  growthFlows,
  isGrowthCase,
  optionRunsOutIn,
  PlanKey,
  presentValue,
  serverCostsPerYear,
  WorkloadPlans,
  workloadPlans,
} from "./growth-model";

export interface WorkloadResult {
  servers: number;
  /** λ·S < servers: the queue is stable. False only for a fixed count the load exceeds (the wait is then unbounded). */
  stable: boolean;
  /**
   * The share answered within the case's service-level target time (`serviceTarget`), for every
   * sizing rule (fixed staff too); 0 when unstable; null when the case has no target.
   */
  withinTarget: number | null;
  /** Servers at the sensitivity's low and high load (rate × factor), same rule. */
  serversLowLoad: number;
  serversHighLoad: number;
  utilization: number;
  /** Mean response and mean wait (Infinity when unstable), P(wait) (1 when unstable). */
  meanResponse: number;
  meanWait: number;
  pWait: number;
  /** With growth: the year-by-year purchase plans (base, load low/high, growth low/high). */
  plans?: WorkloadPlans;
}

export interface OptionResult {
  workloads: WorkloadResult[];
  /** Every workload is stable and meets the case's service-level target (when it has one): the option may be chosen. */
  qualifies: boolean;
  servers: number;
  /** Year-0 one-off cost: capex + servers·costPerServer. */
  upfront: number;
  /** Cost paid every year including year 0: Σ opex + servers·costPerServerPerYear. */
  running: number;
  /** CF_0 … CF_{years−1}. */
  cashflows: number[];
  /** Running sums of CF_t/(1 + r)^t. */
  cumulativeDiscounted: number[];
  /** Net present cost, NPV_IT(rate, cashflows). */
  npv: number;
  /** npv − the first option's npv (negative: cheaper than the baseline). */
  difference: number;
  /** capex − difference: the capex at which this option breaks even with the baseline. */
  breakEvenCapex: number;
  /** Servers summed over the workloads at the sensitivity's low and high load. */
  serversLowLoad: number;
  serversHighLoad: number;
  /** Present value of the per-server costs (one-off + yearly over the years) at low, base and high load (with growth: the low and high scenarios' plans). */
  serverCostPv: { low: number; base: number; high: number };
  /** Net present cost with load, capex and per-server cost all at their low (high) values. */
  scenario: { low: number; high: number };
  /** Against the baseline (absent for the baseline itself). */
  vsBaseline?: VsBaseline;
  /** With growth: the first year a workload's installed servers stop meeting its target (null: none within the years). */
  runsOutIn?: number | null;
}

/** What an option returns against the baseline. */
export interface VsBaseline {
  /** Baseline cost − this option's cost, per year (the yearly saving). */
  savings: number[];
  /** Running sums of the savings, plain and discounted. */
  cumulative: number[];
  cumulativeDiscounted: number[];
  /** NPV of the savings: baseline net present cost − this option's. */
  npvSaving: number;
  /** IRR of the savings when no saving is zero and they change sign exactly once, else null. */
  irr: number | null;
  /** Years until the cumulative (discounted) saving stays ≥ 0, null when not within the years. */
  payback: number | null;
  discountedPayback: number | null;
  /** The savings' rate of return, classified: an IRR, a borrowing rate, or none (`core/return-measure`). */
  measure: ReturnMeasure;
  /** Payback with each year's saving accruing evenly through the year (`core/payback-fraction`), plain and discounted. */
  paybackFraction: number | null;
  discountedPaybackFraction: number | null;
}

/** One row of the tornado: the NPV saving of the recommended option at a driver's low and high value. */
export interface TornadoRow {
  driver: "load" | "discountRate" | "capex" | "serverCost" | "growth";
  low: number;
  high: number;
  savingLow: number;
  savingHigh: number;
}

export interface CaseResult {
  options: OptionResult[];
  /** Number of yearly flows: years, plus one at t = years when an option has a residual value. */
  periods: number;
  /** The option the tornado compares with the baseline: the cheapest, or the runner-up when that is the baseline. */
  recommended: number;
  /** The tornado rows: load (when an option has workloads), discount rate, capex, server cost (with workloads). */
  tornado: TornadoRow[];
  /** Index of the option with the lowest net present cost, to the cent (the first one on a tie), qualifying or not. */
  cheapest: number;
  /** The choice: the qualifying option with the lowest net present cost to the cent (first on a tie); −1 when none qualifies. */
  chosen: number;
}

/**
 * An amount rounded to cents, half away from zero as the spreadsheet's ROUND(x, 2) does.
 *
 * @example cents(-0.125) // => -0.13
 */
export function cents(x: number): number {
  return (Math.sign(x) * Math.round(Math.abs(x) * 100)) / 100;
}

/**
 * The fewest whole servers with utilization λ·S/c ≤ target and λ·S < c (stable), decided on 12
 * significant digits as the sheet's formula is (src/core/sheet-sizing.ts): 7/s × 0.1 s at 70 % is 1.
 *
 * @param load - offered load λ·S in erlangs (> 0)
 * @param utilization - target utilization, a fraction in (0, 1]
 * @returns the server count
 * @example
 * serversForUtilization(70000 * 0.000081, 1); // => 6
 */
export function serversForUtilization(load: number, utilization: number): number {
  return coreServersForUtilization(load, utilization, "target");
}

/** Servers a workload gets at its arrival rate × `load` (the sheet multiplies in the same order). */
function servers(w: Workload, sizing: Sizing, path: string, load = 1): number {
  return serversAt(w, load === 1 ? w.arrivalRate : w.arrivalRate * load, path);
}

/**
 * Servers a workload's sizing rule gives at arrival rate `rate` (the rule of the Capacity table).
 *
 * @example serversAt({ name: "IO", arrivalRate: 70000, serviceTime: 8.1e-5, sizing: { kind: "utilization", utilization: 1 } }, 70000); // => 6
 */
export function serversAt(w: Workload, rate: number, path = "workload"): number {
  const sizing = w.sizing;
  switch (sizing.kind) {
    case "servers":
      return sizing.servers;
    case "utilization":
      return serversForUtilization(rate * w.serviceTime, sizing.utilization);
    // The searches compare on 12 significant digits, as the sheet's formulas do (sheet-sizing.ts).
    case "response":
      return staffForTarget(w.serviceTime, rate, { kind: "wait", wait: sizing.response - w.serviceTime }, "target");
    case "serviceLevel":
      return staffForTarget(
        w.serviceTime,
        rate,
        { kind: "serviceLevel", level: sizing.level, answerWithin: sizing.answerWithin },
        "target",
      );
    default:
      throw new DomainError(`${path}.sizing`, "unknown sizing rule", "value");
  }
}

/** The input field of a sizing rule's target (servers, utilization, response or serviceLevel). */
function targetField(sizing: Sizing): string {
  return sizing.kind === "serviceLevel" ? "serviceLevel" : sizing.kind;
}

/** The input path a core argument name stands for, so errors name what the user wrote. */
function renamed(e: unknown, path: string, sizing: Sizing): unknown {
  if (!isDomainError(e)) return e;
  const problem = e.message.slice(e.argument.length + 2);
  const names: Record<string, string> = {
    service_time: `${path}.serviceTime`,
    arrival_rate: `${path}.arrivalRate`,
    // The servers are an input only for a fixed count; for a target they come from the load, so
    // a count out of range names the sizing rule the input has (never a field it lacks).
    servers: sizing.kind === "servers" ? `${path}.sizing.servers` : `${path}.sizing.${targetField(sizing)}`,
    target: `${path}.sizing.${targetField(sizing)}`,
    answer_within: `${path}.sizing.answerWithin`,
  };
  if (e.argument === "servers" && sizing.kind !== "servers")
    return new DomainError(
      names.servers,
      `this load needs more servers than Capacity Lab sizes (${problem}); check the arrivalRate and serviceTime`,
      e.kind,
    );
  return new DomainError(names[e.argument] ?? path, problem, e.kind);
}

function workloadResult(w: Workload, path: string, input: CaseInput, opt: CaseOption, growth: boolean): WorkloadResult {
  try {
    const c = servers(w, w.sizing, path);
    const m = serviceAt(w, c, input);
    return {
      servers: c,
      serversLowLoad: servers(w, w.sizing, path, input.sensitivity.load.low),
      serversHighLoad: servers(w, w.sizing, path, input.sensitivity.load.high),
      ...m,
      ...(growth ? { plans: workloadPlans(input, opt, w, (rate) => serversAt(w, rate, path)) } : {}),
    };
  } catch (e) {
    throw renamed(e, path, w.sizing);
  }
}

/** The service a workload gets from `c` servers: stable or not, the M/M/c figures, the share within the case's target. */
function serviceAt(
  w: Workload,
  c: number,
  input: CaseInput,
): Omit<WorkloadResult, "servers" | "serversLowLoad" | "serversHighLoad"> {
  const a = w.arrivalRate * w.serviceTime;
  const target = input.serviceTarget;
  // A fixed count the load exceeds: the option cannot carry it (it does not qualify); the wait is unbounded.
  if (!(a < c))
    return {
      stable: false,
      withinTarget: target ? 0 : null,
      utilization: a / c,
      meanResponse: Infinity,
      meanWait: Infinity,
      pWait: 1,
    };
  const m = mmcMetrics(c, w.serviceTime, w.arrivalRate);
  return {
    stable: true,
    withinTarget: target ? mmcServiceLevel(c, w.serviceTime, w.arrivalRate, target.answerWithin) : null,
    utilization: m.utilization,
    meanResponse: m.meanResponse,
    meanWait: m.meanWait,
    pWait: m.pWait,
  };
}

/** A service level counts as met within this (a count sized to exactly the target meets it). */
const TARGET_TOLERANCE = 1e-9;

/** Whether an option may be chosen: every workload stable and meeting the case's target. */
function qualifies(input: CaseInput, workloads: readonly Pick<WorkloadResult, "stable" | "withinTarget">[]): boolean {
  const t = input.serviceTarget;
  return workloads.every(
    (w) => w.stable && (t === undefined || (w.withinTarget as number) >= t.level - TARGET_TOLERANCE),
  );
}

/** The qualifying option with the lowest cost to the cent (the first on a tie), −1 when none qualifies. */
function pick(npvs: readonly number[], ok: readonly boolean[]): number {
  const eligible = npvs.filter((_, i) => ok[i]);
  if (eligible.length === 0) return -1;
  const least = cents(Math.min(...eligible));
  return npvs.findIndex((v, i) => ok[i] && cents(v) === least);
}

/**
 * Computes every figure of a validated business case.
 *
 * @param input - a case from {@link parseCaseInput} (not modified)
 * @returns per-option servers, cash flows, NPV, difference from the first option, break-even capex
 * @throws DomainError naming the input path when a fixed server count cannot carry its load
 *   (utilization ≥ 1) or a target cannot be met
 * @example
 * computeCase(parseCaseInput({ years: 3, discountRate: 0.1, options: [
 *   { name: "Keep", opex: [{ label: "Support", perYear: 100000 }] },
 *   { name: "Replace", capex: 250000 } ] })).options[0].npv; // => 273553.71900826444
 */
export function computeCase(input: CaseInput): CaseResult {
  const periods = input.years + (input.options.some((o) => o.residualValue !== 0) ? 1 : 0);
  const growth = isGrowthCase(input);
  const options = input.options.map((opt, i) => {
    const workloads = opt.workloads.map((w, j) =>
      workloadResult(w, `options[${i}].workloads[${j}]`, input, opt, growth),
    );
    if (growth) return growthOption(input, opt, i, periods, workloads);
    const total = workloads.reduce((s, w) => s + w.servers, 0);
    const upfront = opt.capex + total * opt.costPerServer;
    const running = opt.opex.reduce((s, l) => s + l.perYear, 0) + total * opt.costPerServerPerYear;
    const cashflows = flows(input, opt, periods, total, 1, 1);
    const present = npvOf(input.discountRate, cashflows, i);
    const cumulativeDiscounted = runningSums(cashflows, input.discountRate);
    const low = workloads.reduce((s, w) => s + w.serversLowLoad, 0);
    const high = workloads.reduce((s, w) => s + w.serversHighLoad, 0);
    return {
      workloads,
      servers: total,
      upfront,
      running,
      cashflows,
      cumulativeDiscounted,
      npv: present,
      serversLowLoad: low,
      serversHighLoad: high,
      serverCostPv: {
        low: serverCostPv(input, opt, low, input.discountRate),
        base: serverCostPv(input, opt, total, input.discountRate),
        high: serverCostPv(input, opt, high, input.discountRate),
      },
      scenario: {
        low: scenarioNpv(input, opt, i, periods, low, "low"),
        high: scenarioNpv(input, opt, i, periods, high, "high"),
      },
    };
  });
  const base = options[0].npv;
  // The first option within a cent of the lowest: NPVs that differ only by rounding (1e-10) are a
  // tie, as a spreadsheet summing the same flows in another order would see them.
  const least = cents(Math.min(...options.map((o) => o.npv)));
  const cheapest = options.findIndex((o) => cents(o.npv) === least);
  const ok = options.map((o) => qualifies(input, o.workloads));
  const chosen = pick(
    options.map((o) => o.npv),
    ok,
  );
  // The option the tornado compares with the baseline: the choice, or (when the baseline is chosen,
  // or none qualifies) the cheapest other option, qualifying ones first.
  let recommended = chosen > 0 ? chosen : 1;
  if (chosen <= 0) {
    const rank = (i: number): [number, number] => [ok[i] || chosen < 0 ? 0 : 1, cents(options[i].npv)];
    for (let i = 2; i < options.length; i++) {
      const [a, b] = [rank(i), rank(recommended)];
      if (a[0] < b[0] || (a[0] === b[0] && a[1] < b[1])) recommended = i;
    }
  }
  const results: OptionResult[] = options.map((o, i) => ({
    ...o,
    qualifies: ok[i],
    difference: o.npv - base,
    breakEvenCapex: input.options[i].capex - (o.npv - base),
    ...(i === 0 ? {} : { vsBaseline: vsBaseline(input, options[0].cashflows, o.cashflows, base - o.npv) }),
  }));
  const rows = growth
    ? growthTornado(input, results, recommended, periods)
    : tornado(input, results, recommended, periods);
  return { options: results, cheapest, chosen, periods, recommended, tornado: rows };
}

type OptionFigures = Omit<OptionResult, "difference" | "breakEvenCapex" | "vsBaseline" | "qualifies">;

/** An option's figures when its servers are bought year by year (see `growth-model.ts`). */
function growthOption(
  input: CaseInput,
  opt: CaseOption,
  i: number,
  periods: number,
  workloads: WorkloadResult[],
): OptionFigures {
  const plans = workloads.map((w) => w.plans as WorkloadPlans);
  const s = input.sensitivity;
  const costs = (key: PlanKey, factor = 1): number[] => serverCostsPerYear(plans, key, input.years, factor);
  const cashflows = growthFlows(input, opt, periods, costs("base"));
  const year0 = (key: "bought" | "inService"): number => plans.reduce((n, p) => n + p.base.years[0][key], 0);
  const pv = (key: PlanKey): number => presentValue(costs(key), input.discountRate);
  const scenario = (side: "low" | "high"): number =>
    npvOf(
      input.discountRate,
      growthFlows(
        input,
        opt,
        periods,
        costs(side === "low" ? "scenarioLow" : "scenarioHigh", s.serverCost[side]),
        s.capex[side],
      ),
      i,
    );
  return {
    workloads,
    servers: workloads.reduce((n, w) => n + w.servers, 0),
    upfront: opt.capex + year0("bought") * opt.costPerServer,
    running: opt.opex.reduce((n, l) => n + l.perYear, 0) + year0("inService") * opt.costPerServerPerYear,
    cashflows,
    cumulativeDiscounted: runningSums(cashflows, input.discountRate),
    npv: npvOf(input.discountRate, cashflows, i),
    serversLowLoad: workloads.reduce((n, w) => n + w.serversLowLoad, 0),
    serversHighLoad: workloads.reduce((n, w) => n + w.serversHighLoad, 0),
    serverCostPv: { low: pv("scenarioLow"), base: pv("base"), high: pv("scenarioHigh") },
    scenario: { low: scenario("low"), high: scenario("high") },
    runsOutIn: optionRunsOutIn(plans),
  };
}

/**
 * The tornado of a case with growth: as {@link tornado}, the load and per-server drivers acting
 * through the purchase plans at low and high load, and a growth row (points added to every rate).
 */
function growthTornado(input: CaseInput, options: OptionResult[], k: number, periods: number): TornadoRow[] {
  const s = input.sensitivity;
  const flowsOf = (i: number, key: PlanKey, capexFactor = 1, serverFactor = 1): number[] => {
    const plans = options[i].workloads.map((w) => w.plans as WorkloadPlans);
    const costs = serverCostsPerYear(plans, key, input.years, serverFactor);
    return growthFlows(input, input.options[i], periods, costs, capexFactor);
  };
  const saving = (key: PlanKey, capexFactor = 1, serverFactor = 1): number =>
    npvOf(input.discountRate, flowsOf(0, key, capexFactor, serverFactor), 0) -
    npvOf(input.discountRate, flowsOf(k, key, capexFactor, serverFactor), k);
  const atRate = (r: number): number => npvOf(r, options[0].cashflows, 0) - npvOf(r, options[k].cashflows, k);
  return [
    { driver: "load", ...s.load, savingLow: saving("loadLow"), savingHigh: saving("loadHigh") },
    { driver: "growth", ...s.growth, savingLow: saving("growthLow"), savingHigh: saving("growthHigh") },
    {
      driver: "discountRate",
      ...s.discountRate,
      savingLow: atRate(s.discountRate.low),
      savingHigh: atRate(s.discountRate.high),
    },
    { driver: "capex", ...s.capex, savingLow: saving("base", s.capex.low), savingHigh: saving("base", s.capex.high) },
    {
      driver: "serverCost",
      ...s.serverCost,
      savingLow: saving("base", 1, s.serverCost.low),
      savingHigh: saving("base", 1, s.serverCost.high),
    },
  ];
}

/**
 * Cash flows CF_0 … CF_{periods−1} of an option with `servers` servers, capex × `capexFactor`
 * and per-server costs × `serverFactor`:
 * CF_t = [t = 0]·(capex + servers·costPerServer) + Σ_lines perYear·(1 + e)^t + servers·costPerServerPerYear
 * + the one-off lines of year t, for t < years; CF_years = −residualValue when `periods` > years.
 */
function flows(
  input: CaseInput,
  opt: CaseOption,
  periods: number,
  servers: number,
  capexFactor: number,
  serverFactor: number,
): number[] {
  const upfront = opt.capex * capexFactor + servers * opt.costPerServer * serverFactor;
  const perServer = servers * opt.costPerServerPerYear * serverFactor;
  return Array.from({ length: periods }, (_, t) => {
    if (t === input.years) return -opt.residualValue;
    let cf = opt.opex.reduce(
      (s, l) => s + (l.escalation === 0 ? l.perYear : l.perYear * Math.pow(1 + l.escalation, t)),
      0,
    );
    cf += perServer;
    for (const x of opt.oneOff) if (x.year === t) cf += x.amount;
    return t === 0 ? upfront + cf : cf;
  });
}

/** Present value of an option's per-server costs with `servers` servers: one-off now, yearly over the years. */
function serverCostPv(input: CaseInput, opt: CaseOption, servers: number, rate: number): number {
  let annuity = 0;
  for (let t = 0; t < input.years; t++) annuity += 1 / Math.pow(1 + rate, t);
  return servers * (opt.costPerServer + opt.costPerServerPerYear * annuity);
}

function npvOf(rate: number, cashflows: number[], option: number): number {
  try {
    return npv(rate, cashflows);
  } catch (e) {
    if (!isDomainError(e)) throw e;
    const problem = e.message.slice(e.argument.length + 2);
    throw new DomainError(e.argument === "rate" ? "discountRate" : `options[${option}]`, problem, e.kind);
  }
}

/** Running sums of CF_t/(1 + r)^t. */
function runningSums(cashflows: number[], rate: number): number[] {
  const out: number[] = [];
  cashflows.forEach((cf, t) => out.push((t > 0 ? out[t - 1] : 0) + cf / Math.pow(1 + rate, t)));
  return out;
}

function vsBaseline(input: CaseInput, baseline: number[], option: number[], npvSaving: number): VsBaseline {
  const savings = baseline.map((b, t) => b - option[t]);
  const cumulative: number[] = [];
  savings.forEach((x, t) => cumulative.push((t > 0 ? cumulative[t - 1] : 0) + x));
  return {
    savings,
    cumulative,
    cumulativeDiscounted: runningSums(savings, input.discountRate),
    npvSaving,
    // The sheet's rule: no zero saving and exactly one change between neighbours (which is then
    // Descartes' count, so one IRR exists).
    irr: savings.length >= 2 && savings.every((x) => x !== 0) && signChanges(savings) === 1 ? irrOrNull(savings) : null,
    payback: payback(savings, 0),
    discountedPayback: payback(savings, input.discountRate),
    measure: returnMeasure(savings),
    paybackFraction: fractionalPayback(savings, 0),
    discountedPaybackFraction: fractionalPayback(savings, input.discountRate),
  };
}

/** The IRR, or null when none is found below v = 1e300 (a rate within ~1e-300 of −100 %). */
function irrOrNull(savings: number[]): number | null {
  try {
    return irr(savings);
  } catch (e) {
    if (isDomainError(e)) return null;
    throw e;
  }
}

/**
 * An option's net present cost in the low or high scenario (servers at that load, capex and server
 * costs × that factor). The base case is computed first, so an overflow here comes from a factor:
 * the error names it (`sensitivity.capex.high`), not the option.
 */
function scenarioNpv(
  input: CaseInput,
  opt: CaseOption,
  i: number,
  periods: number,
  servers: number,
  which: "low" | "high",
): number {
  const s = input.sensitivity;
  const cf = (): number[] => flows(input, opt, periods, servers, s.capex[which], s.serverCost[which]);
  const scaled = (amount: number, factor: number): boolean => amount !== 0 && !Number.isFinite(amount * factor);
  const cost = Math.max(opt.costPerServer, opt.costPerServerPerYear) * servers;
  const field = scaled(opt.capex, s.capex[which])
    ? `sensitivity.capex.${which}`
    : scaled(cost, s.serverCost[which])
      ? `sensitivity.serverCost.${which}`
      : `sensitivity.load.${which}`;
  return sensitivityField(field, () => npvOf(input.discountRate, cf(), i));
}

/**
 * A tornado figure: the base case computed, so a figure that overflows here does so because of
 * the sensitivity's factor or rate, and the error names that input (`sensitivity.capex.high`), not
 * the option whose cash flow it scaled.
 */
function sensitivityField(field: string, compute: () => number): number {
  try {
    return compute();
  } catch (e) {
    if (!isDomainError(e)) throw e;
    const problem = e.message.slice(e.argument.length + 2);
    throw new DomainError(
      field,
      `with this factor, ${e.argument}: ${problem}; the amounts are too large for it`,
      e.kind,
    );
  }
}

/** NPV saving of option k over the baseline with one driver changed (see {@link TornadoRow}). */
function tornado(input: CaseInput, options: OptionResult[], k: number, periods: number): TornadoRow[] {
  const s = input.sensitivity;
  const [o0, ok] = [options[0], options[k]];
  const [i0, ik] = [input.options[0], input.options[k]];
  const saving = (a: number, b: number): number => a - b;
  const atRate = (r: number): number =>
    sensitivityField(`sensitivity.discountRate.${r === s.discountRate.low ? "low" : "high"}`, () => {
      return npvOf(r, o0.cashflows, 0) - npvOf(r, ok.cashflows, k);
    });
  const withFlows = (low: boolean, what: "load" | "capex" | "serverCost"): number => {
    const pick = (o: OptionResult): number =>
      what === "load" ? (low ? o.serversLowLoad : o.serversHighLoad) : o.servers;
    const f = (x: { low: number; high: number }): number => (low ? x.low : x.high);
    const cf = (opt: CaseOption, o: OptionResult): number[] =>
      flows(
        input,
        opt,
        periods,
        pick(o),
        what === "capex" ? f(s.capex) : 1,
        what === "serverCost" ? f(s.serverCost) : 1,
      );
    return sensitivityField(`sensitivity.${what}.${low ? "low" : "high"}`, () =>
      saving(npvOf(input.discountRate, cf(i0, o0), 0), npvOf(input.discountRate, cf(ik, ok), k)),
    );
  };
  const rows: TornadoRow[] = [];
  const anyWorkloads = input.options.some((o) => o.workloads.length > 0);
  if (anyWorkloads)
    rows.push({ driver: "load", ...s.load, savingLow: withFlows(true, "load"), savingHigh: withFlows(false, "load") });
  rows.push({
    driver: "discountRate",
    ...s.discountRate,
    savingLow: atRate(s.discountRate.low),
    savingHigh: atRate(s.discountRate.high),
  });
  rows.push({
    driver: "capex",
    ...s.capex,
    savingLow: withFlows(true, "capex"),
    savingHigh: withFlows(false, "capex"),
  });
  if (anyWorkloads)
    rows.push({
      driver: "serverCost",
      ...s.serverCost,
      savingLow: withFlows(true, "serverCost"),
      savingHigh: withFlows(false, "serverCost"),
    });
  return rows;
}

/**
 * The choice alone — `computeCase(input).chosen` without the low/high loads, tornado, scenarios and
 * returns, which the break-even search (`robustness.ts`) asks many times; a case with growth goes
 * through {@link computeCase} (its costs follow the purchase plans). Cost: O(Σ sizing + options·years).
 *
 * @param input - a validated case (not modified)
 * @returns the index of the qualifying option with the lowest net present cost, −1 when none qualifies
 * @throws DomainError as {@link computeCase}
 */
export function chooseOption(input: CaseInput): number {
  if (isGrowthCase(input)) return computeCase(input).chosen;
  const periods = input.years + (input.options.some((o) => o.residualValue !== 0) ? 1 : 0);
  const npvs: number[] = [];
  const ok: boolean[] = [];
  input.options.forEach((opt, i) => {
    const ws = opt.workloads.map((w, j) => {
      const path = `options[${i}].workloads[${j}]`;
      try {
        const c = servers(w, w.sizing, path);
        return { servers: c, ...serviceAt(w, c, input) };
      } catch (e) {
        throw renamed(e, path, w.sizing);
      }
    });
    const total = ws.reduce((s, w) => s + w.servers, 0);
    npvs.push(npvOf(input.discountRate, flows(input, opt, periods, total, 1, 1), i));
    ok.push(qualifies(input, ws));
  });
  return pick(npvs, ok);
}
