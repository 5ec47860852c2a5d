/**
 * The figures of a business case, computed by the core (`mmcStaff`, `mmcMetrics`, `npv`): nothing
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
 * i.e. max(⌈λ·S/u⌉, ⌊λ·S⌋ + 1). Sizing by response R uses `mmcStaff` with the mean-wait target
 * R − S; by service level, `mmcStaff` with `answerWithin`. Cost: O(Σ servers) for the queueing,
 * O(options·years) for the money.
 */
import { DomainError, isDomainError } from "../core/errors";
import { mmcMetrics, mmcStaff } from "../core/mmc";
import { npv } from "../core/npv";
import { CaseInput, Sizing, Workload } from "./case-input";

export interface WorkloadResult {
  servers: number;
  utilization: number;
  meanResponse: number;
  meanWait: number;
  pWait: number;
}

export interface OptionResult {
  workloads: WorkloadResult[];
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
}

export interface CaseResult {
  options: OptionResult[];
  /** Index of the option with the lowest net present cost, to the cent (the first one on a tie). */
  cheapest: number;
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
 * The fewest whole servers with utilization λ·S/c ≤ target and λ·S < c (stable).
 *
 * @param load - offered load λ·S in erlangs (> 0)
 * @param utilization - target utilization, a fraction in (0, 1]
 * @returns the server count
 * @example
 * serversForUtilization(70000 * 0.000081, 1); // => 6
 */
export function serversForUtilization(load: number, utilization: number): number {
  return Math.max(Math.ceil(load / utilization), Math.floor(load) + 1);
}

function servers(w: Workload, sizing: Sizing, path: string): number {
  switch (sizing.kind) {
    case "servers":
      return sizing.servers;
    case "utilization":
      return serversForUtilization(w.arrivalRate * w.serviceTime, sizing.utilization);
    case "response":
      return mmcStaff(w.serviceTime, w.arrivalRate, sizing.response - w.serviceTime);
    case "serviceLevel":
      return mmcStaff(w.serviceTime, w.arrivalRate, sizing.level, sizing.answerWithin);
    default:
      throw new DomainError(`${path}.sizing`, "unknown sizing rule", "value");
  }
}

/** The input path a core argument name stands for, so errors name what the user wrote. */
function renamed(e: unknown, path: string, sizing: Sizing): unknown {
  if (!isDomainError(e)) return e;
  const problem = e.message.slice(e.argument.length + 2);
  const names: Record<string, string> = {
    service_time: `${path}.serviceTime`,
    arrival_rate: `${path}.arrivalRate`,
    servers: `${path}.sizing.servers`,
    target: `${path}.sizing.${sizing.kind === "serviceLevel" ? "serviceLevel" : sizing.kind}`,
    answer_within: `${path}.sizing.answerWithin`,
  };
  return new DomainError(names[e.argument] ?? path, problem, e.kind);
}

function workloadResult(w: Workload, path: string): WorkloadResult {
  try {
    const c = servers(w, w.sizing, path);
    const m = mmcMetrics(c, w.serviceTime, w.arrivalRate);
    return {
      servers: c,
      utilization: m.utilization,
      meanResponse: m.meanResponse,
      meanWait: m.meanWait,
      pWait: m.pWait,
    };
  } catch (e) {
    throw renamed(e, path, w.sizing);
  }
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
  const options = input.options.map((opt, i) => {
    const workloads = opt.workloads.map((w, j) => workloadResult(w, `options[${i}].workloads[${j}]`));
    const total = workloads.reduce((s, w) => s + w.servers, 0);
    const upfront = opt.capex + total * opt.costPerServer;
    const running = opt.opex.reduce((s, l) => s + l.perYear, 0) + total * opt.costPerServerPerYear;
    const cashflows = Array.from({ length: input.years }, (_, t) => (t === 0 ? upfront + running : running));
    let present: number;
    try {
      present = npv(input.discountRate, cashflows);
    } catch (e) {
      if (!isDomainError(e)) throw e;
      const problem = e.message.slice(e.argument.length + 2);
      throw new DomainError(e.argument === "rate" ? "discountRate" : `options[${i}]`, problem, e.kind);
    }
    const cumulativeDiscounted: number[] = [];
    cashflows.forEach((cf, t) => {
      cumulativeDiscounted.push((t > 0 ? cumulativeDiscounted[t - 1] : 0) + cf / Math.pow(1 + input.discountRate, t));
    });
    return { workloads, servers: total, upfront, running, cashflows, cumulativeDiscounted, npv: present };
  });
  const base = options[0].npv;
  // The first option within a cent of the lowest: NPVs that differ only by rounding (1e-10) are a
  // tie, as a spreadsheet summing the same flows in another order would see them.
  const least = cents(Math.min(...options.map((o) => o.npv)));
  const cheapest = options.findIndex((o) => cents(o.npv) === least);
  return {
    options: options.map((o, i) => ({
      ...o,
      difference: o.npv - base,
      breakEvenCapex: input.options[i].capex - (o.npv - base),
    })),
    cheapest,
  };
}
