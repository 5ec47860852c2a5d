/**
 * Pooling two helpdesks (or server groups) into one queue: the M/M/c figures of each site alone
 * and of the combined site.
 *
 * Combined site: c = ca + cb, λ = λa + λb, and the mean service time weighted by arrival rate,
 *
 *     S = (λa·Sa + λb·Sb) / λ,
 *
 * because a random arriving call comes from site A with probability λa/λ. (Weighting by staff, as
 * the PDQ script this function replaces does, is wrong whenever the rates are not proportional to
 * the staff.) When Sa ≠ Sb the pooled service time is a mixture of two exponentials, no longer
 * exponential: its second moment is E[S²] = (λa·2Sa² + λb·2Sb²)/λ and its squared coefficient of
 * variation Cs² = E[S²]/S² − 1 > 1. The combined mean wait uses the Allen–Cunneen correction for
 * M/G/c,
 *
 *     Wq ≈ Wq(M/M/c) · (1 + Cs²) / 2,
 *
 * which is exact when Sa = Sb (Cs² = 1). The combined P(wait) is the M/M/c Erlang C at the pooled
 * mean service time (no correction applied), and utilization is λ·S / c as a fraction.
 *
 * Cost: O(ca + cb).
 *
 * References: Allen, Probability, Statistics and Queueing Theory (2nd ed., 1990), §6.4; Whitt
 * (1993) "Approximations for the GI/G/m queue", Production and Operations Management 2(2).
 */
import { DomainError } from "./errors";
import { ensureFinite } from "./finite";
import { mmcMetrics } from "./mmc";

/** One site's arguments: staff (servers), mean service time, arrival rate (same time unit). */
export interface SiteInput {
  servers: number;
  serviceTime: number;
  arrivalRate: number;
}

/** One row of the comparison; times in the caller's unit, utilization and pWait as fractions. */
export interface SiteResult {
  /** Mean response time R = S + Wq. */
  response: number;
  /** λ·S / c. */
  utilization: number;
  /** Mean wait in queue Wq. */
  wait: number;
  /** Probability of waiting (Erlang C). */
  pWait: number;
}

export interface MergeResult {
  a: SiteResult;
  b: SiteResult;
  combined: SiteResult;
  /** Squared coefficient of variation of the pooled service time (1 when Sa = Sb). */
  combinedServiceScv: number;
}

function site(input: SiteInput, label: "a" | "b"): SiteResult {
  const names = { servers: `staff_${label}`, serviceTime: `service_${label}`, arrivalRate: `rate_${label}` };
  try {
    const m = mmcMetrics(input.servers, input.serviceTime, input.arrivalRate, names);
    return { response: m.meanResponse, utilization: m.utilization, wait: m.meanWait, pWait: m.pWait };
  } catch (e) {
    if (e instanceof DomainError) {
      const problem = e.message.slice(e.argument.length + 2);
      throw new DomainError(e.argument, `site ${label.toUpperCase()}: ${problem}`, e.kind);
    }
    throw e;
  }
}

/**
 * Compares two M/M/c sites with the site formed by pooling their staff and their queues.
 *
 * Variant: arrival-rate-weighted pooled service time; Allen–Cunneen (1 + Cs²)/2 on the combined
 * mean wait when the service times differ (exact M/M/c when they are equal). Cost: O(ca + cb).
 *
 * @param a - site A: servers (whole ≥ 1), serviceTime (> 0), arrivalRate (> 0), stable
 * @param b - site B, same units as site A
 * @returns the figures for A, B and the combined site
 * @throws DomainError (`#NUM!`) naming the argument (staff_a, service_a, rate_a, staff_b, …) and
 *   the site when an argument is bad or a site is unstable
 * @example
 * mergeQueues({ servers: 4, serviceTime: 30, arrivalRate: 0.08 },
 *             { servers: 6, serviceTime: 30, arrivalRate: 0.18 }).combined.response; // => 34.99083250432512
 */
export function mergeQueues(a: SiteInput, b: SiteInput): MergeResult {
  const ra = site(a, "a");
  const rb = site(b, "b");
  const servers = a.servers + b.servers;
  const rate = a.arrivalRate + b.arrivalRate;
  // Equal service times pool to the same time exactly (no rounding below S).
  const serviceTime =
    a.serviceTime === b.serviceTime
      ? a.serviceTime
      : (a.arrivalRate * a.serviceTime + b.arrivalRate * b.serviceTime) / rate;
  const secondMoment =
    (a.arrivalRate * 2 * a.serviceTime * a.serviceTime + b.arrivalRate * 2 * b.serviceTime * b.serviceTime) / rate;
  // When Sa = Sb the mixture is exponential: use Cs² = 1 exactly rather than a value rounded near 1.
  const scv = a.serviceTime === b.serviceTime ? 1 : secondMoment / (serviceTime * serviceTime) - 1;
  const m = mmcMetrics(servers, serviceTime, rate, {
    servers: "staff_a + staff_b",
    serviceTime: "pooled service time",
    arrivalRate: "rate_a + rate_b",
  });
  const wait = (m.meanWait * (1 + scv)) / 2;
  ensureFinite(serviceTime + wait, "service_a");
  return {
    a: ra,
    b: rb,
    combined: { response: serviceTime + wait, utilization: m.utilization, wait, pWait: m.pWait },
    combinedServiceScv: scv,
  };
}
