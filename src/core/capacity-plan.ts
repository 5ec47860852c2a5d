/**
 * A capacity plan over the years: how a growing load turns into servers to buy, year by year, for
 * one pool of servers (one workload's M/M/c queue).
 *
 * Timing follows the business case: year t = 0 … T − 1 starts at time t, purchases are made and
 * paid at the start of their year, and the load grows during the year:
 *
 *     λ_0 = today's arrival rate,   λ_{t+1} = λ_t·(1 + g_t)
 *
 * (compound growth g_t = g every year, or one rate per year). The load of year t is λ_t at its
 * start and λ_{t+1} at its end. With the sizing rule n(λ) (the case's: a target utilization, mean
 * response or service level), the servers needed are n_t = n(λ_t); the servers the pool must have
 * in year t are
 *
 *     r_t = n_t                      policy "asNeeded": buy when this year's load needs it
 *     r_t = max(n_t, n(λ_{t+1}))     policy "headroom": buy when utilization would pass the
 *                                    target before the next purchase (at the year's end)
 *
 * Servers are never sold. Starting from `installed` servers (c_{−1}), each year buys whole units of
 * `unit` servers (a shelf, a node of N cores):
 *
 *     b_t = N·⌈max(0, r_t − c_{t−1})/N⌉,   c_t = c_{t−1} + b_t     (servers in service in year t)
 *
 * and costs b_t·(one-off cost per server) + c_t·(yearly cost per server): installed servers were
 * paid for before year 0 but pay their yearly cost as every server in service does. At the start
 * and the end of year t the pool's utilization is λ·S/c_t, and the service it achieves is the
 * M/M/c mean response S + Wq (null when λ·S ≥ c_t: the queue grows without bound) and, with
 * `answerWithin`, the fraction answered within it, 1 − C·e^{−(c−a)·t/S} (0 when unstable). The
 * installed servers "run out" in the first year t with r_t > installed (null: not within the T
 * years): the year a purchase is first needed.
 *
 * Variant: yearly steps (a purchase covers a whole year); the growth within a year is seen only
 * at its end. Cost: 2T sizings and 2T M/M/c evaluations (each O(1); a sizing by response or
 * service level is O(log c) evaluations, `mmcStaff`).
 *
 * Reference: Menascé & Almeida, Capacity Planning for Web Services (2002), ch. 5 (yearly load
 * forecasts sized by a queueing model); the timing of payments as in `npv.ts`.
 */
import { DomainError } from "./errors";
import { mmcMetrics } from "./mmc";

/** Growth per year as a fraction: one compound rate, or the rate of each year t = 0 … T − 1. */
export type GrowthRates = number | readonly number[];

/** When to buy: when the year's load needs it, or a year's growth ahead (see the module comment). */
export type PurchasePolicy = "asNeeded" | "headroom";

/** One pool of servers to plan (see the module comment for the symbols). */
export interface PoolPlanInput {
  /** T, the number of years (1 … 50). */
  years: number;
  /** λ_0, today's arrival rate (> 0), per the time unit of `serviceTime`. */
  arrivalRate: number;
  /** S, mean service time (> 0). */
  serviceTime: number;
  /** g: a rate per year (> −1), or T rates. */
  growth: GrowthRates;
  /** Servers in place before year 0, a whole number ≥ 0. */
  installed: number;
  /** N, servers per purchase, a whole number ≥ 1. */
  unit: number;
  policy: PurchasePolicy;
  /** The sizing rule: the fewest servers meeting the target at an arrival rate. */
  serversFor: (arrivalRate: number) => number;
  /** With a service-level target: the time within which an arrival should start service. */
  answerWithin?: number;
  /** One-off cost of each bought server, paid in its year (≥ 0). */
  costPerServer: number;
  /** Yearly cost of each server in service (≥ 0). */
  costPerServerPerYear: number;
}

/** The figures of one pool at one point of a year (its start or its end). */
export interface PoolState {
  /** λ·S/c_t (above 1: the servers cannot carry the load). */
  utilization: number;
  /** S + Wq, or null when λ·S ≥ c_t. */
  meanResponse: number | null;
  /** P(Wq ≤ answerWithin), when `answerWithin` is given (0 when λ·S ≥ c_t). */
  serviceLevel?: number;
}

export interface PoolYear {
  year: number;
  /** g_t, the growth during the year. */
  growth: number;
  /** λ_t and λ_{t+1}. */
  loadStart: number;
  loadEnd: number;
  /** n_t = n(λ_t). */
  needed: number;
  /** n(λ_{t+1}): the servers the load at the year's end needs (what the headroom policy buys for). */
  neededEnd: number;
  /** r_t, the servers the pool must have this year. */
  required: number;
  /** b_t, servers bought at the start of the year (a multiple of the unit). */
  bought: number;
  /** c_t, servers in service during the year. */
  inService: number;
  start: PoolState;
  end: PoolState;
  /** b_t·costPerServer. */
  oneOffCost: number;
  /** c_t·costPerServerPerYear. */
  yearlyCost: number;
}

export interface PoolPlan {
  years: PoolYear[];
  /** The first year whose required servers exceed the installed ones, null when none does. */
  runsOutIn: number | null;
}

/**
 * λ_0 … λ_T: the load at the start of each year and at the end of the last.
 *
 * @param arrivalRate - λ_0 (> 0)
 * @param growth - one rate per year (> −1) or `years` rates
 * @param years - T, a whole number from 1 to 50
 * @returns T + 1 rates
 * @throws DomainError (`#NUM!`) naming `growth` or `years`
 * @example yearlyLoads(1000, 0.2, 3); // => [1000, 1200, 1440, 1728]
 */
export function yearlyLoads(arrivalRate: number, growth: GrowthRates, years: number): number[] {
  const rates = growthRates(growth, years);
  const loads = [arrivalRate];
  for (let t = 0; t < years; t++) loads.push(loads[t] * (1 + rates[t]));
  return loads;
}

/** The rate of each year, checked. */
function growthRates(growth: GrowthRates, years: number): number[] {
  if (!Number.isInteger(years) || years < 1 || years > 50)
    throw new DomainError("years", `must be a whole number from 1 to 50, got ${years}`, "num");
  const rates = typeof growth === "number" ? Array.from({ length: years }, () => growth) : [...growth];
  if (rates.length !== years)
    throw new DomainError("growth", `must give one rate per year (${years}), got ${rates.length}`, "num");
  rates.forEach((g, t) => {
    if (!Number.isFinite(g) || g <= -1)
      throw new DomainError("growth", `the rate of year ${t} must be above -1 (a fraction), got ${g}`, "num");
  });
  return rates;
}

/** Utilization and service of `servers` at `rate`. */
function stateAt(input: PoolPlanInput, servers: number, rate: number): PoolState {
  const a = rate * input.serviceTime;
  const stable = a < servers;
  const m = stable ? mmcMetrics(servers, input.serviceTime, rate) : null;
  const state: PoolState = { utilization: a / servers, meanResponse: m ? m.meanResponse : null };
  if (input.answerWithin !== undefined)
    state.serviceLevel = m ? 1 - m.pWait * Math.exp((-(servers - a) * input.answerWithin) / input.serviceTime) : 0;
  return state;
}

/**
 * The year-by-year plan of one pool: loads, servers needed, bought and in service, utilization
 * and service at each year's start and end, costs, and the year the installed servers run out.
 *
 * @param input - the pool (see {@link PoolPlanInput}; not modified)
 * @returns one {@link PoolYear} per year and `runsOutIn`
 * @throws DomainError (`#NUM!`) naming `growth`, `years`, `installed`, `unit` or a cost; errors of
 *   `serversFor` pass through
 * @example
 * // 1,000 IO/s of 1 ms growing 50 % a year, sized to 70 % utilization, 1 server installed, bought in 2s:
 * const p = poolPlan({ years: 3, arrivalRate: 1000, serviceTime: 0.001, growth: 0.5, installed: 1,
 *   unit: 2, policy: "asNeeded", serversFor: (l) => Math.max(Math.ceil(l * 0.001 / 0.7), Math.floor(l * 0.001) + 1),
 *   costPerServer: 100, costPerServerPerYear: 10 });
 * p.years.map((y) => y.bought); // => [2, 0, 2]  (needs 2, 3, 4: 1 → 3 → 3 → 5)
 * p.runsOutIn; // => 0
 */
export function poolPlan(input: PoolPlanInput): PoolPlan {
  const loads = yearlyLoads(input.arrivalRate, input.growth, input.years);
  const rates = growthRates(input.growth, input.years);
  const whole = (name: "installed" | "unit", min: number): void => {
    const x = input[name];
    if (!Number.isInteger(x) || x < min || x > 1e7)
      throw new DomainError(name, `must be a whole number of servers from ${min} to 10000000, got ${x}`, "num");
  };
  whole("installed", 0);
  whole("unit", 1);
  for (const name of ["costPerServer", "costPerServerPerYear"] as const)
    if (!Number.isFinite(input[name]) || input[name] < 0)
      throw new DomainError(name, `must be an amount ≥ 0, got ${input[name]}`, "num");
  let inService = input.installed;
  let runsOutIn: number | null = null;
  const years: PoolYear[] = [];
  for (let t = 0; t < input.years; t++) {
    const needed = input.serversFor(loads[t]);
    const neededEnd = input.serversFor(loads[t + 1]);
    const required = input.policy === "headroom" ? Math.max(needed, neededEnd) : needed;
    if (runsOutIn === null && required > input.installed) runsOutIn = t;
    const bought = input.unit * Math.ceil(Math.max(0, required - inService) / input.unit);
    inService += bought;
    years.push({
      year: t,
      growth: rates[t],
      loadStart: loads[t],
      loadEnd: loads[t + 1],
      needed,
      neededEnd,
      required,
      bought,
      inService,
      start: stateAt(input, inService, loads[t]),
      end: stateAt(input, inService, loads[t + 1]),
      oneOffCost: bought * input.costPerServer,
      yearlyCost: inService * input.costPerServerPerYear,
    });
  }
  return { years, runsOutIn };
}
