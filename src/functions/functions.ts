/**
 * Capacity Lab worksheet functions (namespace CAPLAB).
 *
 * This one file is the input of custom-functions-metadata: every function here with a
 * `@customfunction` tag becomes a worksheet function, its JSDoc becomes the metadata
 * (descriptions with units, `@helpurl`). The wrappers only convert cell values, call the
 * core (`src/core/`) and map errors (`./excel-error`). No math here.
 */

import { excelErrorValue, guard } from "./excel-error";
import {
  choice,
  describeValue,
  isMissing,
  numberVector,
  optionalBoolean,
  optionalNumber,
  optionalWholeNumber,
  requiredNumber,
  single,
  wholeNumber,
} from "./args";
import { DomainError } from "../core/errors";
import { mmcMetrics, mmcResponse, mmcServiceLevel, mmcStaff } from "../core/mmc";
import { mergeQueues } from "../core/merge-queues";
import { npv, npvLevel } from "../core/npv";
import { lbMaxUtil } from "../core/load-balancing";
import { doeFit } from "../core/doe-fit";
import { doeFitTable, isMissingValue } from "../core/doe-fit-table";
import { doeDesign } from "../core/doe-design";
import {
  seenEnough,
  seenEnoughWarningText,
  seenEnoughWhyNotText,
  SEEN_ENOUGH_DEFAULTS,
  SEEN_ENOUGH_METHODS,
  STEADY_MIN_SECONDS,
  type SeenEnoughMethod,
  type SeenEnoughTransient,
} from "../core/seen-enough";

/* ===== Queueing, finance, load balancing ===== */

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

/** A fraction given as a number (0.05) or as percent text ("5%"); `fallback` when omitted. */
function fractionArg(value: unknown, name: string, fallback: number): number {
  const v = single(value, name);
  if (isMissing(v)) return fallback;
  if (typeof v === "number" && Number.isFinite(v)) return v;
  if (typeof v === "string") {
    const m = v.trim().match(/^([-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?)\s*%$/i);
    if (m) return Number(m[1]) / 100;
  }
  throw new DomainError(name, `must be a fraction (0.05) or a percentage ("5%"), got ${describeValue(v)}`, "value");
}

/**
 * A range whose first row holds factor names and whose later rows hold values (DOE_FIT's factors,
 * DOE_DESIGN's factors_and_levels): the trimmed names and the value rows.
 *
 * @param value - the range (a scalar counts as a 1×1 range)
 * @param name - the argument's name
 * @param below - what the rows below the names must hold, for the message
 * @throws DomainError `#VALUE!` for fewer than 2 rows or a name that is not non-empty text
 */
function factorTable(value: unknown, name: string, below: string): { names: string[]; rows: unknown[][] } {
  const all = Array.isArray(value) && value.every(Array.isArray) ? (value as unknown[][]) : [[value]];
  if (all.length < 2) throw new DomainError(name, `needs a header row of names and ${below}`, "value");
  const names = all[0].map((c, j) => {
    if (typeof c !== "string" || c.trim() === "") {
      throw new DomainError(
        name,
        `the first row must hold factor names; column ${j + 1} has ${describeValue(c)}`,
        "value",
      );
    }
    return c.trim();
  });
  return { names, rows: all.slice(1) };
}

/** DOE_FIT's response: one column, optionally with a header cell, n numbers or blanks (null). */
function responseColumn(response: unknown, n: number): (number | null)[] {
  const resp = (Array.isArray(response) ? response : [[response]]).map((r) => (Array.isArray(r) ? r : [r]));
  if (resp.some((r) => r.length !== 1)) throw new DomainError("response", "must be a single column", "value");
  let cells = resp.map((r) => r[0]);
  if (cells.length === n + 1 && typeof cells[0] === "string" && cells[0].trim() !== "") cells = cells.slice(1);
  if (cells.length !== n) {
    throw new DomainError("response", `has ${cells.length} values for ${n} factor rows`, "value");
  }
  return cells.map((c, i) => {
    if (isMissing(c)) return null;
    if (typeof c !== "number")
      throw new DomainError("response", `row ${i + 1} must be a number, got ${describeValue(c)}`, "value");
    return c;
  });
}

/** One factor cell of DOE_FIT: a number or (trimmed) text; 0 for a skipped row (not used). */
function factorCell(c: unknown, factor: string, row: number, skipped: boolean): number | string {
  if (skipped) return 0;
  if (typeof c === "number") return c;
  if (typeof c === "string" && c.trim() !== "") return c.trim();
  throw new DomainError(
    "factors",
    `factor "${factor}", row ${row + 1} must be a number or text, got ${describeValue(c)}`,
    "value",
  );
}

/**
 * Least-squares fit of a designed experiment with interactions up to the given order, like R's summary(lm(y ~ (A + B + …)^order)): estimates, standard errors, t and p per term, then R², F and the observation count.
 * @customfunction DOE_FIT
 * @param factors Range with the factor names in its first row and one column per factor (numbers, or text with 2 levels) below.
 * @param response One column of responses (e.g. CPU %), one per factor row, optionally with a header; rows with a blank response are skipped.
 * @param order Optional: highest interaction order, a whole number ≥ 1 (default 2).
 * @param coding Optional: "coded" (default; each factor scaled to −1…+1) or "raw" (numbers as given).
 * @param intercept Optional: TRUE (default) to fit an intercept.
 * @returns A table: header Term | Estimate | Std. Error | t value | Pr(>|t|), one row per term (aliased terms #N/A), then summary rows (label, value) in the unit of the response.
 * @helpurl https://localhost:3000/help.html#DOE_FIT
 */
export function DOE_FIT(
  factors: unknown[][],
  response: unknown[][],
  order?: unknown,
  coding?: unknown,
  intercept?: unknown,
): Array<Array<string | number | Error>> {
  return guard(() => {
    const { names, rows } = factorTable(factors, "factors", "at least one row of values");
    const y = responseColumn(response, rows.length);
    const columns = names.map((name, j) => rows.map((r, i) => factorCell(r[j], name, i, y[i] === null)));
    const fit = doeFit(names, columns, y, {
      order: optionalWholeNumber(order, "order") ?? 2,
      coding: choice(coding, "coding", ["coded", "raw"] as const),
      intercept: optionalBoolean(intercept, "intercept", true),
    });
    // The layout is the core's (shared with the lab analysis); a value that does not exist is #N/A with its reason.
    return doeFitTable(fit).map((row) => row.map((v) => (isMissingValue(v) ? excelErrorValue("#N/A", v.missing) : v)));
  });
}

/** The levels of factor column j (numbers or trimmed text; blank cells ignored). */
function factorLevels(rows: readonly unknown[][], j: number, factor: string, arg: string): (string | number)[] {
  const levels: (string | number)[] = [];
  rows.forEach((r, i) => {
    const v = r[j];
    if (isMissing(v) || (typeof v === "string" && v.trim() === "")) return;
    if (typeof v === "number") levels.push(v);
    else if (typeof v === "string") levels.push(v.trim());
    else
      throw new DomainError(
        arg,
        `factor "${factor}", level ${i + 1} must be a number or text, got ${describeValue(v)}`,
        "value",
      );
  });
  return levels;
}

/**
 * Full factorial run sheet (like R DoE.base fac.design): every combination of the levels, standard order with the first factor fastest, each replicate shuffled by a seeded generator.
 * @customfunction DOE_DESIGN
 * @param factors_and_levels Range with the factor names in its first row and each factor's levels (2 or more; blanks ignored) in the cells below.
 * @param replications Optional: number of replicates, a whole number ≥ 1 (default 1).
 * @param randomize Optional: TRUE (default) to shuffle the runs within each replicate.
 * @param seed Optional: whole number seeding the shuffle (default 1); the same seed gives the same sheet.
 * @returns A table: header Run | StdOrder | Replicate | factor names, then one row per run.
 * @helpurl https://localhost:3000/help.html#DOE_DESIGN
 */
export function DOE_DESIGN(
  factors_and_levels: unknown[][],
  replications?: unknown,
  randomize?: unknown,
  seed?: unknown,
): Array<Array<string | number>> {
  return guard(() => {
    const arg = "factors_and_levels";
    const { names, rows } = factorTable(factors_and_levels, arg, "levels below it");
    const factors = names.map((name, j) => ({ name, levels: factorLevels(rows, j, name, arg) }));
    const runs = doeDesign(factors, {
      replications: optionalWholeNumber(replications, "replications") ?? 1,
      randomize: optionalBoolean(randomize, "randomize", true),
      seed: optionalNumber(seed, "seed") ?? 1, // doeDesign checks it is whole
    });
    return [
      ["Run", "StdOrder", "Replicate", ...factors.map((f) => f.name)],
      ...runs.map((r) => [r.run, r.stdOrder, r.replicate, ...r.levels]),
    ];
  });
}

/**
 * Has a run of consecutive measurements reached steady state and "seen enough" (ivy's measure=on)? Finds where the warm-up transient ends (MSER-5), checks the rest has no trend and that its mean is known to ±accuracy at the confidence given; reports the level, where the warm-up ended, why the data may not be steady and, when not seen enough, which check refused.
 * @customfunction SEEN_ENOUGH
 * @param samples One row or column of consecutive subinterval measurements (e.g. IOPS), oldest first; blanks ignored, text is an error.
 * @param accuracy Optional: required relative half-width as a fraction or percentage, e.g. 0.05 or "5%" (default 5%).
 * @param confidence Optional: confidence level in (0, 1), e.g. 0.95 or "95%" (default 95%).
 * @param min_samples Optional: shortest steady-state window in samples, a whole number ≥ 1 (default 90 with transient "detect": a larger value raises it, for slow warm-ups). With transient "off": the shortest window, 5 when omitted ("ar1" uses at least 30).
 * @param method Optional: "ar1" (default; AR(1) correction), "ivy" (k = 2) or "iid" (k = 1).
 * @param transient Optional: "detect" (default) finds the warm-up first; "off" judges precision alone on windows ending at the last sample (the rule without steady-state detection, for comparison).
 * @param subinterval_s Optional: length of one subinterval in seconds, > 0 (e.g. 0.1 for 100 ms). With "detect" the steady-state window is then at least 90 seconds as well as 90 samples; omitted, samples only.
 * @returns Two rows: header Seen enough | From | Samples | Mean | Achieved ± | Required ± | Level | Level ± | From earliest | From latest | Floor | Warning | Why not, then TRUE/FALSE, where steady state starts (1-based sample), the window's length, its mean, its relative half-width, the accuracy, the level to report (the fitted level at the last sample with "detect") and its ±, the earliest and latest sample where steady state may have begun, what set the shortest window ("90 samples" or "90 s"), the non-stationarity warnings ("" when none) and, when FALSE, which check refused with its figure and limit, e.g. "level moving: … (trend t = 7.24 against a limit of 1.5)" ("" when TRUE).
 * @helpurl https://localhost:3000/help.html#SEEN_ENOUGH
 */
export function SEEN_ENOUGH(
  samples: unknown[][],
  accuracy?: unknown,
  confidence?: unknown,
  min_samples?: unknown,
  method?: unknown,
  transient?: unknown,
  subinterval_s?: unknown,
): Array<Array<string | number | boolean>> {
  return guard(() => {
    const d = SEEN_ENOUGH_DEFAULTS;
    const seconds = optionalNumber(subinterval_s, "subinterval_s");
    const r = seenEnough(numberVector(samples, "samples", "skip"), {
      accuracy: fractionArg(accuracy, "accuracy", d.accuracy),
      confidence: fractionArg(confidence, "confidence", d.confidence),
      minSamples: optionalWholeNumber(min_samples, "min_samples") ?? d.minSamples,
      // The default first: choice() returns it for an omitted argument.
      method: choice(method, "method", [
        d.method,
        ...SEEN_ENOUGH_METHODS.filter((m) => m !== d.method),
      ] as SeenEnoughMethod[]),
      transient: choice(transient, "transient", ["detect", "off"] as SeenEnoughTransient[]),
      ...(seconds === undefined ? {} : { subintervalSeconds: seconds }),
    });
    const floor =
      r.boundBy === "seconds" ? `${r.minWindow} samples (${STEADY_MIN_SECONDS} s)` : `${r.minWindow} samples`;
    return [
      [
        "Seen enough",
        "From",
        "Samples",
        "Mean",
        "Achieved ±",
        "Required ±",
        "Level",
        "Level ±",
        "From earliest",
        "From latest",
        "Floor",
        "Warning",
        "Why not",
      ],
      [
        r.seenEnough,
        r.from,
        r.samples,
        r.mean,
        r.achieved,
        r.required,
        r.level,
        r.levelAchieved,
        r.fromLow,
        r.fromHigh,
        floor,
        r.warnings.map(seenEnoughWarningText).join("; "),
        seenEnoughWhyNotText(r),
      ],
    ];
  });
}
