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
 * Variant: exact Erlang C by the Erlang B recursion (see `erlang.ts`), correct for any number of
 * servers (tested to 100000) without factorials; this is what PDQ's multi-server node computes.
 * Time units are whatever the caller uses consistently (S in seconds ⇒ λ per second, R in seconds).
 *
 * Cost: O(c) per evaluation; {@link mmcStaff} is O(c*) for the answer c*.
 *
 * References: Kleinrock, Queueing Systems vol. 1 (1975), §3.5; Gunther, Analyzing Computer System
 * Performance with Perl::PDQ (2011), ch. 2.
 */
import { DomainError } from "./errors";
import { ensureFinite } from "./finite";
import { MAX_SERVERS, checkServerCount, erlangCFromB, formatShort } from "./erlang";

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
 * Erlang B for c servers at load a, stepping the recursion; returns B(c).
 * (Kept here rather than calling erlangB so the checks are done once, with the M/M/c names.)
 */
function erlangBUnchecked(servers: number, load: number): number {
  let b = 1;
  for (let k = 1; k <= servers; k++) {
    const ab = load * b;
    b = ab / (k + ab);
  }
  return b;
}

/**
 * All steady-state figures of an M/M/c queue: utilization, P(wait), Wq, R, Lq, L.
 *
 * Variant: exact Erlang C (B recursion), no approximation. Cost: O(servers).
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
 * Mean response time R = S + Wq of an M/M/c queue (exact Erlang C). Cost: O(servers).
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
 * P(Wq ≤ t) = 1 − C·exp(−(c − a)·t / S). Cost: O(servers).
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

/** The largest staff {@link mmcStaff} will consider before declaring the target out of reach. */
export const MMC_STAFF_LIMIT = MAX_SERVERS;

/**
 * The smallest number of servers c meeting a target: with `answerWithin` given, the service
 * level P(Wq ≤ answerWithin) ≥ `target` (a fraction in [0, 1)); without it, the mean wait
 * Wq ≤ `target` (a time > 0).
 *
 * Variant: exact M/M/c (Erlang C); both criteria improve monotonically with c, so the search
 * steps c up from the smallest stable value ⌊a⌋ + 1, carrying the Erlang B recursion along.
 * Cost: O(c*) for the answer c*.
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
  const bySl = answerWithin !== undefined;
  if (bySl) {
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
  const load = arrivalRate * serviceTime;
  const first = Math.floor(load) + 1;
  if (first > MMC_STAFF_LIMIT) {
    throw new DomainError(
      "arrival_rate",
      `needs more than ${MMC_STAFF_LIMIT} servers just to be stable (load ${formatShort(load)} erlangs)`,
      "num",
    );
  }
  let b = 1;
  for (let k = 1; k <= MMC_STAFF_LIMIT; k++) {
    const ab = load * b;
    b = ab / (k + ab);
    if (k < first) continue;
    const pWait = erlangCFromB(k, load, b);
    if (bySl) {
      const level = 1 - pWait * Math.exp((-(k - load) * (answerWithin as number)) / serviceTime);
      if (level >= target) return k;
    } else {
      const wait = (pWait * serviceTime) / (k - load);
      if (wait <= target) return k;
    }
  }
  throw new DomainError("target", `not reachable with up to ${MMC_STAFF_LIMIT} servers`, "num");
}
