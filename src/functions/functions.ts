/**
 * Capacity Lab worksheet functions (namespace CAPLAB).
 *
 * This one file is the input of custom-functions-metadata: every function here with a
 * `@customfunction` tag becomes a worksheet function, its JSDoc becomes the metadata
 * (descriptions with units, `@helpurl`). The wrappers only convert cell values, call the
 * core (`src/core/`) and map errors (`./excel-error`). No math here.
 */

/* ===== Queueing, finance, load balancing ===== */

import { guard } from "./excel-error";
import { DomainError } from "../core/errors";
import { choice, numberVector, optionalNumber, optionalWholeNumber, requiredNumber, wholeNumber } from "./args";
import { mmcMetrics, mmcResponse, mmcServiceLevel, mmcStaff } from "../core/mmc";
import { mergeQueues } from "../core/merge-queues";
import { npv, npvLevel } from "../core/npv";
import { lbMaxUtil } from "../core/load-balancing";

/**
 * Mean response time R = S + Wq (service plus queueing) of an M/M/c queue, exact Erlang C; in the time unit of service_time.
 * @customfunction MMC_RESPONSE
 * @param servers Number of servers c (agents, cores, threads): a whole number ≥ 1.
 * @param service_time Mean service time S per request, in any time unit (e.g. seconds): > 0.
 * @param arrival_rate Arrival rate λ in requests per that same time unit: > 0 and below servers / service_time.
 * @returns Mean response time R, in the time unit of service_time.
 * @helpurl https://localhost:3000/help.html#MMC_RESPONSE
 */
export function MMC_RESPONSE(servers: unknown, service_time: unknown, arrival_rate: unknown): number {
  return guard(() =>
    mmcResponse(
      wholeNumber(servers, "servers"),
      requiredNumber(service_time, "service_time"),
      requiredNumber(arrival_rate, "arrival_rate"),
    ),
  );
}

/**
 * M/M/c queue figures as a two-column table (label, value): utilization (fraction), P(wait) (fraction), mean wait and mean response (time unit of service_time), mean queue length Lq and mean number in system L (requests).
 * @customfunction MMC_METRICS
 * @param servers Number of servers c (agents, cores, threads): a whole number ≥ 1.
 * @param service_time Mean service time S per request, in any time unit (e.g. seconds): > 0.
 * @param arrival_rate Arrival rate λ in requests per that same time unit: > 0 and below servers / service_time.
 * @returns A 6×2 table: Utilization, P(wait), Mean wait, Mean response, Mean queue length (Lq), Mean number in system (L).
 * @helpurl https://localhost:3000/help.html#MMC_METRICS
 */
export function MMC_METRICS(
  servers: unknown,
  service_time: unknown,
  arrival_rate: unknown,
): Array<Array<string | number>> {
  return guard(() => {
    const m = mmcMetrics(
      wholeNumber(servers, "servers"),
      requiredNumber(service_time, "service_time"),
      requiredNumber(arrival_rate, "arrival_rate"),
    );
    return [
      ["Utilization", m.utilization],
      ["P(wait)", m.pWait],
      ["Mean wait", m.meanWait],
      ["Mean response", m.meanResponse],
      ["Mean queue length (Lq)", m.meanQueueLength],
      ["Mean number in system (L)", m.meanInSystem],
    ];
  });
}

/**
 * Service level of an M/M/c queue: the fraction of requests that start service within answer_within, 1 − C·exp(−(c − a)·t/S).
 * @customfunction MMC_SERVICE_LEVEL
 * @param servers Number of servers c (agents, cores, threads): a whole number ≥ 1.
 * @param service_time Mean service time S per request, in any time unit (e.g. seconds): > 0.
 * @param arrival_rate Arrival rate λ in requests per that same time unit: > 0 and below servers / service_time.
 * @param answer_within Waiting-time threshold t, in the time unit of service_time: ≥ 0.
 * @returns The probability (a fraction from 0 to 1) that the wait is at most answer_within.
 * @helpurl https://localhost:3000/help.html#MMC_SERVICE_LEVEL
 */
export function MMC_SERVICE_LEVEL(
  servers: unknown,
  service_time: unknown,
  arrival_rate: unknown,
  answer_within: unknown,
): number {
  return guard(() =>
    mmcServiceLevel(
      wholeNumber(servers, "servers"),
      requiredNumber(service_time, "service_time"),
      requiredNumber(arrival_rate, "arrival_rate"),
      requiredNumber(answer_within, "answer_within"),
    ),
  );
}

/**
 * Smallest number of servers (M/M/c) meeting a target: with answer_within, service level ≥ target (a fraction); without it, mean wait ≤ target (time unit of service_time).
 * @customfunction MMC_STAFF
 * @param service_time Mean service time S per request, in any time unit (e.g. seconds): > 0.
 * @param arrival_rate Arrival rate λ in requests per that same time unit: > 0.
 * @param target With answer_within: the service level to reach, a fraction in [0, 1) (0.8 for 80%). Without: the largest acceptable mean wait, in the time unit of service_time.
 * @param answer_within Optional waiting-time threshold t for the service level, in the time unit of service_time: ≥ 0.
 * @returns The minimal whole number of servers.
 * @helpurl https://localhost:3000/help.html#MMC_STAFF
 */
export function MMC_STAFF(
  service_time: unknown,
  arrival_rate: unknown,
  target: unknown,
  answer_within?: unknown,
): number {
  return guard(() =>
    mmcStaff(
      requiredNumber(service_time, "service_time"),
      requiredNumber(arrival_rate, "arrival_rate"),
      requiredNumber(target, "target"),
      optionalNumber(answer_within, "answer_within"),
    ),
  );
}

/**
 * What happens when two queues (helpdesks, server pools) are merged: response, utilization (fraction), wait and P(wait) for site A, site B and the combined site; times in the unit of the service times.
 * @customfunction MERGE_QUEUES
 * @param staff_a Site A: number of servers (staff), a whole number ≥ 1.
 * @param service_a Site A: mean service time per request, in any time unit (e.g. minutes): > 0.
 * @param rate_a Site A: arrival rate in requests per that same time unit: > 0 and below staff_a / service_a.
 * @param staff_b Site B: number of servers (staff), a whole number ≥ 1.
 * @param service_b Site B: mean service time per request, in the same time unit as site A: > 0.
 * @param rate_b Site B: arrival rate in requests per that same time unit: > 0 and below staff_b / service_b.
 * @returns A 4×5 table: header Site | Response | Utilization | Wait | P(wait), then rows A, B, Combined.
 * @helpurl https://localhost:3000/help.html#MERGE_QUEUES
 */
export function MERGE_QUEUES(
  staff_a: unknown,
  service_a: unknown,
  rate_a: unknown,
  staff_b: unknown,
  service_b: unknown,
  rate_b: unknown,
): Array<Array<string | number>> {
  return guard(() => {
    const r = mergeQueues(
      {
        servers: wholeNumber(staff_a, "staff_a"),
        serviceTime: requiredNumber(service_a, "service_a"),
        arrivalRate: requiredNumber(rate_a, "rate_a"),
      },
      {
        servers: wholeNumber(staff_b, "staff_b"),
        serviceTime: requiredNumber(service_b, "service_b"),
        arrivalRate: requiredNumber(rate_b, "rate_b"),
      },
    );
    return [
      ["Site", "Response", "Utilization", "Wait", "P(wait)"],
      ["A", r.a.response, r.a.utilization, r.a.wait, r.a.pWait],
      ["B", r.b.response, r.b.utilization, r.b.wait, r.b.pWait],
      ["Combined", r.combined.response, r.combined.utilization, r.combined.wait, r.combined.pWait],
    ];
  });
}

/**
 * Net present value Σ R_t/(1 + rate)^t with the first cash flow at t = 0 (not discounted, unlike Excel's NPV); in the currency of the cash flows.
 * @customfunction NPV_IT
 * @param rate Discount rate per period as a fraction (0.1 for 10% a year): > −1.
 * @param cashflows Cash flows R_0, R_1, … (currency), a row or column; blank cells count as 0. Or a single amount repeated at t = 0..periods.
 * @param periods Optional: with a single amount in cashflows, the last period N (whole number ≥ 0), so the amount is paid N + 1 times.
 * @returns The present value at t = 0, in the currency of the cash flows.
 * @helpurl https://localhost:3000/help.html#NPV_IT
 */
export function NPV_IT(rate: unknown, cashflows: unknown[][], periods?: unknown): number {
  return guard(() => {
    const r = requiredNumber(rate, "rate");
    const flows = numberVector(cashflows, "cashflows", "zero");
    const n = optionalWholeNumber(periods, "periods", 0);
    if (n === undefined) return npv(r, flows);
    if (flows.length !== 1) {
      throw new DomainError(
        "periods",
        `only applies to a single amount, but cashflows has ${flows.length} values`,
        "value",
      );
    }
    return npvLevel(r, flows[0], n);
  });
}

/**
 * Expected load of the busiest of M service centres when N workloads, each Normal(mean, sd²), are spread evenly: (N/M)·mean + sd·√(N/M)·E[max of M]; in the unit of mean.
 * @customfunction LB_MAXUTIL
 * @param workloads Number of workloads N spread over the centres: > 0.
 * @param centres Number of service centres M (links, cores, controllers): a whole number ≥ 1.
 * @param mean Mean load of one workload (e.g. utilization as a fraction, IOPS, MB/s): ≥ 0.
 * @param sd Standard deviation of one workload's load, in the unit of mean: ≥ 0.
 * @param method Optional: "exact" (default; E[max] by numerical integration) or "bound" (σ·√(2 ln M), an upper bound that overstates).
 * @returns Expected load of the busiest centre, in the unit of mean.
 * @helpurl https://localhost:3000/help.html#LB_MAXUTIL
 */
export function LB_MAXUTIL(workloads: unknown, centres: unknown, mean: unknown, sd: unknown, method?: unknown): number {
  return guard(() =>
    lbMaxUtil(
      requiredNumber(workloads, "workloads"),
      wholeNumber(centres, "centres"),
      requiredNumber(mean, "mean"),
      requiredNumber(sd, "sd"),
      choice(method, "method", ["exact", "bound"] as const),
    ),
  );
}

/* ===== Statistics: DOE_FIT, DOE_DESIGN, SEEN_ENOUGH ===== */
