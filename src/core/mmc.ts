/**
 * The M/M/c queue: Poisson arrivals at rate λ, exponential service with mean S, `c` identical
 * servers, one first-come-first-served queue, infinite waiting room.
 *
 * With offered load a = λ·S (erlangs), utilization ρ = a/c < 1 and C = ErlangC(c, a):
 *
 *     P(wait) = C
 *     Wq = C·S / (c − a)          mean wait in queue
 *     R  = S + Wq                 mean response (sojourn) time
 *     Lq = λ·Wq,  L = λ·R         Little's law
 *     P(wait ≤ t) = 1 − C·exp(−(c − a)·t / S)
 *
 * Variant: exact Erlang C (see `erlang.ts`: the Erlang B recursion for small c — what PDQ's
 * multi-server node computes — and the Poisson/incomplete-gamma form in O(1) for large c), tested
 * against 60-digit mpmath to c = 10⁷ without factorials.
 * Time units are whatever the caller uses consistently (S in seconds ⇒ λ per second, R in seconds).
 *
 * Cost: O(1) per evaluation (≤ ~0.5 µs at any c); {@link mmcStaff} is O(log c*) evaluations.
 *
 * References: Kleinrock, Queueing Systems vol. 1 (1975), §3.5; Gunther, Analyzing Computer System
 * Performance with Perl::PDQ (2011), ch. 2.
 */
import { DomainError } from "./errors";
import { ensureFinite } from "./finite";
import { MAX_SERVERS, checkServerCount, erlangBUnchecked, erlangCFromB, formatShort } from "./erlang";

/** The steady-state figures of an M/M/c queue; times in the caller's unit. */
export interface MmcMetrics {
  /** ρ = λ·S/c, a fraction in [0, 1). */
  utilization: number;
  /** Erlang C: the probability that an arrival waits. */
  pWait: number;
  /** Wq, mean time in queue. */
  meanWait: number;
  /** R = S + Wq, mean time in system. */
  meanResponse: number;
  /** Lq = λ·Wq, mean number waiting. */
  meanQueueLength: number;
  /** L = λ·R, mean number in system. */
  meanInSystem: number;
}

/** Names used in error messages for the three M/M/c arguments (the worksheet names by default). */
export interface MmcArgumentNames {
  servers: string;
  serviceTime: string;
  arrivalRate: string;
}

export const MMC_ARGUMENT_NAMES: MmcArgumentNames = {
  servers: "servers",
  serviceTime: "service_time",
  arrivalRate: "arrival_rate",
};

/** Checks servers, service time and arrival rate (not stability). */
function checkInputs(servers: number, serviceTime: number, arrivalRate: number, names: MmcArgumentNames): void {
  checkServerCount(servers, names.servers);
  if (!Number.isFinite(serviceTime) || serviceTime <= 0) {
    throw new DomainError(names.serviceTime, `must be a positive time, got ${serviceTime}`, "num");
  }
  if (!Number.isFinite(arrivalRate) || arrivalRate <= 0) {
    throw new DomainError(
      names.arrivalRate,
      `must be a positive rate (arrivals per time unit), got ${arrivalRate}`,
      "num",
    );
  }
}

function unstable(servers: number, serviceTime: number, arrivalRate: number, names: MmcArgumentNames): DomainError {
  const rho = (arrivalRate * serviceTime) / servers;
  return new DomainError(
    names.arrivalRate,
    `the queue is unstable: utilization λ·S/c = ${formatShort(rho)} ≥ 1; ` +
      `${names.arrivalRate} must be below ${names.servers}/${names.serviceTime} = ${formatShort(servers / serviceTime)}`,
    "num",
  );
}

/**
 * All steady-state figures of an M/M/c queue: utilization, P(wait), Wq, R, Lq, L.
 *
 * Variant: exact Erlang C, no approximation. Cost: O(1).
 *
 * @param servers - number of servers c, a whole number from 1 to 10⁷
 * @param serviceTime - mean service time S (> 0), in any time unit
 * @param arrivalRate - arrival rate λ (> 0) per the same time unit, with λ·S < c
 * @param names - argument names for error messages (defaults to servers / service_time / arrival_rate)
 * @returns the metrics; times in the unit of `serviceTime`, counts in customers
 * @throws DomainError (`#NUM!`) for a bad argument or an unstable queue (λ·S ≥ c), naming the argument
 * @example
 * mmcMetrics(4, 30, 0.08).meanResponse; // => 35.38205980066445
 */
export function mmcMetrics(
  servers: number,
  serviceTime: number,
  arrivalRate: number,
  names: MmcArgumentNames = MMC_ARGUMENT_NAMES,
): MmcMetrics {
  checkInputs(servers, serviceTime, arrivalRate, names);
  const load = arrivalRate * serviceTime;
  if (!(load < servers)) throw unstable(servers, serviceTime, arrivalRate, names);
  const c = erlangCFromB(servers, load, erlangBUnchecked(servers, load));
  const meanWait = (c * serviceTime) / (servers - load);
  const meanResponse = serviceTime + meanWait;
  ensureFinite(arrivalRate * meanResponse, names.serviceTime);
  return {
    utilization: load / servers,
    pWait: c,
    meanWait,
    meanResponse,
    meanQueueLength: arrivalRate * meanWait,
    meanInSystem: arrivalRate * meanResponse,
  };
}

/**
 * Mean response time R = S + Wq of an M/M/c queue (exact Erlang C). Cost: O(1).
 *
 * @param servers - number of servers c, a whole number from 1 to 10⁷
 * @param serviceTime - mean service time S (> 0), in any time unit
 * @param arrivalRate - arrival rate λ (> 0) per the same time unit, with λ·S < c
 * @returns R in the unit of `serviceTime`
 * @throws DomainError (`#NUM!`) for a bad argument or an unstable queue, naming the argument
 * @example
 * mmcResponse(4, 30, 0.08); // => 35.38205980066445
 */
export function mmcResponse(servers: number, serviceTime: number, arrivalRate: number): number {
  return mmcMetrics(servers, serviceTime, arrivalRate).meanResponse;
}

function checkAnswerWithin(t: number, name: string): void {
  if (!Number.isFinite(t) || t < 0) {
    throw new DomainError(name, `must be a time ≥ 0 (same unit as service_time), got ${t}`, "num");
  }
}

/**
 * Service level of an M/M/c queue: the probability that an arrival starts service within `t`,
 * P(Wq ≤ t) = 1 − C·exp(−(c − a)·t / S). Cost: O(1).
 *
 * @param servers - number of servers c, a whole number from 1 to 10⁷
 * @param serviceTime - mean service time S (> 0)
 * @param arrivalRate - arrival rate λ (> 0) per the same time unit, with λ·S < c
 * @param answerWithin - the threshold t ≥ 0, in the unit of `serviceTime`
 * @returns a probability in (0, 1]
 * @throws DomainError (`#NUM!`) for a bad argument or an unstable queue, naming the argument
 * @example
 * mmcServiceLevel(8, 180, 100 / 3600, 15); // => 0.8697327136302055
 */
export function mmcServiceLevel(
  servers: number,
  serviceTime: number,
  arrivalRate: number,
  answerWithin: number,
): number {
  checkInputs(servers, serviceTime, arrivalRate, MMC_ARGUMENT_NAMES);
  checkAnswerWithin(answerWithin, "answer_within");
  const m = mmcMetrics(servers, serviceTime, arrivalRate);
  const load = arrivalRate * serviceTime;
  return 1 - m.pWait * Math.exp((-(servers - load) * answerWithin) / serviceTime);
}

/** Checks MMC_STAFF's target: a service level in [0, 1) with answer_within, else a mean wait > 0. */
function checkStaffTarget(target: number, answerWithin: number | undefined): void {
  if (answerWithin !== undefined) {
    checkAnswerWithin(answerWithin, "answer_within");
    if (!Number.isFinite(target) || target < 0 || target >= 1) {
      throw new DomainError(
        "target",
        `with answer_within given, must be a service level as a fraction in [0, 1) (e.g. 0.8 for 80%), got ${target}`,
        "num",
      );
    }
  } else if (!Number.isFinite(target) || target <= 0) {
    throw new DomainError(
      "target",
      `without answer_within, must be a mean wait > 0 (unit of service_time), got ${target}`,
      "num",
    );
  }
}

/** The largest staff {@link mmcStaff} will consider before declaring the target out of reach. */
export const MMC_STAFF_LIMIT = MAX_SERVERS;

/**
 * The smallest number of servers c meeting a target: with `answerWithin` given, the service
 * level P(Wq ≤ answerWithin) ≥ `target` (a fraction in [0, 1)); without it, the mean wait
 * Wq ≤ `target` (a time > 0).
 *
 * Variant: exact M/M/c (Erlang C); both criteria improve monotonically with c, so the search
 * starts at the smallest stable value ⌊a⌋ + 1, doubles the step until the target is met, then
 * bisects the last step (a monotone search). Cost: O(log(c* − a)) evaluations of O(1) each.
 *
 * @param serviceTime - mean service time S (> 0)
 * @param arrivalRate - arrival rate λ (> 0) per the same time unit
 * @param target - service level as a fraction in [0, 1) when `answerWithin` is given, else the
 *   largest acceptable mean wait (> 0, unit of `serviceTime`)
 * @param answerWithin - optional threshold t ≥ 0 for the service level, unit of `serviceTime`
 * @returns the minimal whole number of servers
 * @throws DomainError (`#NUM!`) for a bad argument or a target needing more than {@link MMC_STAFF_LIMIT} servers
 * @example
 * mmcStaff(180, 100 / 3600, 0.85, 15); // => 8
 */
export function mmcStaff(serviceTime: number, arrivalRate: number, target: number, answerWithin?: number): number {
  checkInputs(1, serviceTime, arrivalRate, MMC_ARGUMENT_NAMES);
  checkStaffTarget(target, answerWithin);
  const load = arrivalRate * serviceTime;
  const first = Math.floor(load) + 1;
  if (first > MMC_STAFF_LIMIT) {
    throw new DomainError(
      "arrival_rate",
      `needs more than ${MMC_STAFF_LIMIT} servers just to be stable (load ${formatShort(load)} erlangs)`,
      "num",
    );
  }
  const meets = (c: number): boolean => {
    const pWait = erlangCFromB(c, load, erlangBUnchecked(c, load));
    if (answerWithin !== undefined) return 1 - pWait * Math.exp((-(c - load) * answerWithin) / serviceTime) >= target;
    return (pWait * serviceTime) / (c - load) <= target;
  };
  // Doubling: find hi meeting the target with lo = the last c that does not (or first − 1).
  let lo = first - 1;
  let hi = first;
  for (let step = 1; !meets(hi); step *= 2) {
    if (hi >= MMC_STAFF_LIMIT) {
      throw new DomainError("target", `not reachable with up to ${MMC_STAFF_LIMIT} servers`, "num");
    }
    lo = hi;
    hi = Math.min(hi + step, MMC_STAFF_LIMIT);
  }
  // Bisection on (lo, hi]: invariant meets(hi), !meets(lo) (lo = first − 1 is unstable).
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (meets(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}
