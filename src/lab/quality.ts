/**
 * Per-step answers a planner can trust or not: confidence intervals for the mean and p99 response
 * time, and every measurement-quality problem in plain words (iogen's achieved precision, its own
 * launch lag against the service time, windows too short, saturated steps).
 *
 * Intervals come from the step's measure-phase subintervals, by batch means
 * (`batchMeansInterval`): the mean response over IO-weighted batches; the p99 by sectioning —
 * centred on the step's pooled p99 (iogen's merged histogram in the summary CSV), with the spread
 * of the batches' per-subinterval p99s (percentiles of a step cannot be rebuilt from per-second
 * ones, so their spread is the only evidence of its uncertainty; docs/analysis.md says so).
 */
import { batchMeansInterval, BatchMeansResult } from "../core/batch-means";
import { isDomainError } from "../core/errors";
import { CPU_CENSOR_PCT, cpuBasis, CpuFits } from "./cpu-fit";
import { LabData, LabStep, SubintervalGroup } from "./data";
import { steadyRowsOf } from "./data-subintervals";

/** The precision iogen is asked for by default (its `--seen-enough` accuracy, which the CSV does not record). */
export const ASKED_ACCURACY = 0.05;
/** Launch lag above this share of the mean service time is reported. */
export const LAG_SHARE_LIMIT = 0.1;
/** Fewer measured subintervals than this give no interval worth the name. */
export const MIN_SUBINTERVALS = 10;
/** A response-time interval wider than ± this share of the estimate is reported. */
export const RESPONSE_PRECISION_LIMIT = 0.1;
/** A step below this share of its target IOPS did not keep up: saturated. */
export const TARGET_SHARE = 0.95;

export interface StepAnswer {
  step: LabStep;
  /** "step 3 nfs-12000" (with the host when the run has several). */
  name: string;
  iops: number | null;
  responseMsMean: number | null;
  responseMsMeanCi95: [number, number] | null;
  responseMsP99: number | null;
  responseMsP99Ci95: [number, number] | null;
  warnings: string[];
}

/** What a step check sees. */
export interface StepContext {
  step: LabStep;
  name: string;
  /** Measured subintervals of the step's overall rows in its steady-state window, or null without a subinterval file. */
  measured: number | null;
  mean: BatchMeansResult | null;
  p99: BatchMeansResult | null;
  cpu: CpuFits;
}

const pct = (x: number): string => `${Number((x * 100).toPrecision(2)).toLocaleString("en-US")} %`;
const n3 = (x: number): string => Number(x.toPrecision(3)).toLocaleString("en-US");

/**
 * The measurement-quality checks, each a plain-words warning or null. A new check is one more
 * entry here: it lands on the Summary's Warnings, the Steps sheet's count and the JSON answer's
 * per-step `warnings`.
 */
export const STEP_CHECKS: ((c: StepContext) => string | null)[] = [
  // iogen's own steady-state rule never held (schema-3 CSVs say so; SEEN_ENOUGH re-run here on an
  // older CSV is not iogen's decision — its accuracy and window may differ — so it is not reported).
  // Why: SEEN_ENOUGH (±5 % at 95 %) on the measured IOPS, when the subintervals are there.
  ({ step, name }) => {
    if (step.steady?.basis !== "iogen" || step.steady.reached !== false) return null;
    const why = step.window?.steadyWhyNot
      ? ` (SEEN_ENOUGH ±5 % at 95 % on the measured IOPS: ${step.window.steadyWhyNot})`
      : "";
    return `${name}: never reached steady state: iogen's --seen-enough rule did not hold before --max-duration${why}, so its mean may include a warm-up transient or a drift (docs/seen-enough.md); measure longer (raise --max-duration) before trusting this step.`;
  },
  // SEEN_ENOUGH's non-stationarity warnings on the measured IOPS (docs/seen-enough.md, "Report").
  ({ step, name }) => {
    const w = step.window?.steadyWarnings ?? [];
    if (w.length === 0) return null;
    return `${name}: steady state is in doubt: ${w.join("; ")} (SEEN_ENOUGH on the measured IOPS, docs/seen-enough.md); its mean may not describe a steady state.`;
  },
  // iogen's own precision on its focus metric, against what it is asked by default.
  ({ step, name }) => {
    const pm = step.values.achieved_pm;
    if (pm === null || !(pm > ASKED_ACCURACY)) return null;
    return `${name}: iogen's achieved precision is ±${pct(pm)} at 95 % (asked ±${pct(ASKED_ACCURACY)}, iogen's default): the step is too short or too unsteady for its mean to be trusted; measure longer (iogen --seen-enough).`;
  },
  // The generator's own lateness, part of every response time it reports.
  ({ step, name }) => {
    const lag = step.values.iogen_lag_ms_avg;
    const s = step.values.service_ms_avg;
    if (lag === null || s === null || !(s > 0) || !(lag / s > LAG_SHARE_LIMIT)) return null;
    return `${name}: iogen's own launch lag averaged ${n3(lag)} ms, ${pct(lag / s)} of the mean service time (${n3(s)} ms): the response times include the generator's lateness (the host running iogen was too busy at this rate), not only storage queueing.`;
  },
  ({ name, measured, step }) => {
    const seconds = step.window?.seconds ?? step.values.measure_seconds;
    if (measured !== null && measured < MIN_SUBINTERVALS)
      return `${name}: only ${measured} measured subinterval${measured === 1 ? "" : "s"}${seconds !== null ? ` (${n3(seconds)} s)` : ""}: too short a window for a confidence interval; measure at least ${MIN_SUBINTERVALS}.`;
    if (measured === null && step.tool === "iogen")
      return `${name}: no subintervals for this step (pass the subinterval CSV too): no confidence intervals.`;
    return null;
  },
  ({ name, mean }) => {
    if (!mean || !(mean.estimate > 0) || !(mean.halfWidth / mean.estimate > RESPONSE_PRECISION_LIMIT)) return null;
    return `${name}: the mean response time is known only to ±${pct(mean.halfWidth / mean.estimate)} (95 %, batch means over the subintervals).`;
  },
  // Batch means assume nearly independent batches: a lag-1 correlation beyond 2/√k (about two
  // standard errors of r under independence) says the batches are too short.
  ({ name, mean }) => {
    if (!mean || mean.batches < 4 || !(mean.lag1 > 2 / Math.sqrt(mean.batches))) return null;
    return `${name}: the subinterval batches are correlated (lag-1 r = ${n3(mean.lag1)} over ${mean.batches} batches): the response-time interval may be too narrow; measure longer.`;
  },
  // Saturation: the CPU at its ceiling, or IOPS below the target.
  ({ name, step, cpu }) => {
    const role = cpu.roles.get(step);
    if (role?.role !== "censored") return null;
    return `${name}: CPU at ${n3(cpuBasis(step).busyPct as number)} % (≥ ${CPU_CENSOR_PCT} %): saturated; left off the CPU line (censored).`;
  },
  ({ name, step }) => {
    const x = step.values.iops;
    const target = step.values.target_iops;
    if (x === null) return null;
    if (target === null && step.tool === "iogen")
      return `${name}: ran as fast as possible (target max): a saturation step; its response time is set by the queue depth (closed loop), not comparable with the rated steps.`;
    if (target !== null && target > 0 && x < TARGET_SHARE * target)
      return `${name}: reached ${n3(x)} of its ${n3(target)} target IOPS (${pct(x / target)}): saturated; the generator or the system could not keep up.`;
    return null;
  },
];

/** The overall subinterval group of a step (same host, step and category), if any. */
function groupOf(data: LabData, s: LabStep): SubintervalGroup | undefined {
  return data.subintervalGroups.find((g) => g.host === s.host && g.step === s.step && g.category === s.category);
}

function interval(values: number[], weights: number[], center: number | null): BatchMeansResult | null {
  if (values.length < MIN_SUBINTERVALS || center === null) return null;
  try {
    return batchMeansInterval(values, { weights, center });
  } catch (e) {
    if (isDomainError(e)) return null;
    throw e;
  }
}

/**
 * The series of one column over a step's steady-state rows (iogen's `steady_from` on, the rows its
 * summary covers; else every measured row), with the IOs of each row; rows without a value left out.
 */
function series(
  g: SubintervalGroup,
  step: LabStep,
  column: "response_ms_avg" | "response_ms_p99",
): { v: number[]; w: number[] } {
  const t = g.table;
  const col = t.column(column);
  const iops = t.column("iops");
  const sec = t.column("seconds");
  const v: number[] = [];
  const w: number[] = [];
  if (col === null) return { v, w };
  for (const i of steadyRowsOf(g, step)) {
    const y = col.value(i);
    const x = iops?.value(i) ?? null;
    if (y === null || x === null) continue;
    v.push(y);
    w.push(x * (sec?.value(i) ?? 1));
  }
  return { v, w };
}

/**
 * The per-step answers: intervals and warnings.
 *
 * @param data - the collected lab data (its subinterval groups give the series)
 * @param main - the overall steps (Steps sheet rows)
 * @param cpu - the CPU fits (for the censored steps)
 */
export function stepAnswers(data: LabData, main: readonly LabStep[], cpu: CpuFits): StepAnswer[] {
  const hosts = new Set(main.map((s) => s.host)).size > 1;
  const sources = new Set(main.map((s) => s.source)).size > 1;
  return main.map((step) => {
    const name = [
      sources ? step.source : "",
      hosts ? step.host : "",
      `step ${step.step}${step.stepName && step.stepName !== step.step ? ` ${step.stepName}` : ""}`,
      step.tool === "fio" ? step.category : "",
    ]
      .filter((x) => x !== "")
      .join(" ");
    const g = step.tool === "iogen" ? groupOf(data, step) : undefined;
    const measured = g ? steadyRowsOf(g, step).length : null;
    let mean: BatchMeansResult | null = null;
    let p99: BatchMeansResult | null = null;
    if (g) {
      const r = series(g, step, "response_ms_avg");
      mean = interval(r.v, r.w, step.values.response_ms_avg);
      const q = series(g, step, "response_ms_p99");
      p99 = interval(q.v, q.w, step.values.response_ms_p99);
    }
    const ctx: StepContext = { step, name, measured, mean, p99, cpu };
    const warnings = STEP_CHECKS.map((check) => check(ctx)).filter((w): w is string => w !== null);
    return {
      step,
      name,
      iops: step.values.iops,
      responseMsMean: step.values.response_ms_avg,
      responseMsMeanCi95: mean ? [mean.lo, mean.hi] : null,
      responseMsP99: step.values.response_ms_p99,
      responseMsP99Ci95: p99 ? [p99.lo, p99.hi] : null,
      warnings,
    };
  });
}
