/**
 * Lab results in one shape, whatever tool wrote them: steps (one per step × host × category)
 * and subintervals. Metric names are iogen's CSV column names (`docs/iogen-csv.md`), so a
 * `--response` option names a column the user has seen in the CSV.
 *
 * - iogen summary rows are steps as they are (merged-histogram percentiles).
 * - iogen subinterval rows are grouped into steps when no summary row covers the same host,
 *   step and category: IOPS, MB/s, in-flight, CPU are time-weighted means over the measure phase,
 *   latency means are IO-weighted; percentiles cannot be merged from subinterval percentiles, so
 *   they are left empty (pass the summary CSV for them).
 * - fio job × direction results are steps with category = direction; `clat` is the service time,
 *   `lat` the response time; the job's CPU (usr + sys, % of one CPU) is shared between its
 *   directions in proportion to their IOPS.
 */
import { seenEnough } from "../core/seen-enough";
import { LabFileResult } from "../import/detect";
import { IogenNumericColumn, IogenRow } from "../import/iogen-csv";
import { FioStep } from "../import/fio-json";

/** Metrics a step carries (a subset of iogen's numeric columns plus `tool_cpu_pct`). */
export const STEP_METRICS = [
  "target_iops",
  "iops",
  "mb_s",
  "block_size",
  "read_pct",
  "random_pct",
  "queue_depth",
  "service_ms_avg",
  "service_ms_p50",
  "service_ms_p90",
  "service_ms_p99",
  "service_ms_p999",
  "service_ms_max",
  "response_ms_avg",
  "response_ms_p50",
  "response_ms_p90",
  "response_ms_p99",
  "response_ms_p999",
  "response_ms_max",
  "avg_in_flight",
  "late_ios",
  "errors",
  "cpu_busy_pct",
  "cpu_sys_pct",
  "cpu_iowait_pct",
  "cpu_cores",
  "tool_cpu_pct",
  "measure_seconds",
  "achieved_pm",
] as const;
export type StepMetric = (typeof STEP_METRICS)[number];

/** The measurement window of a step, from its subintervals. */
export interface MeasureWindow {
  /** Subinterval numbers (as in the CSV) of the first and last measure-phase rows. */
  first: number;
  last: number;
  /** Measure-phase subintervals and their total seconds. */
  subintervals: number;
  seconds: number;
  /** Warm-up subintervals excluded. */
  warmupSubintervals: number;
  /** The window SEEN_ENOUGH (±5 % at 95 %, default method) accepts on the IOPS series, if any. */
  seenEnough: {
    accepted: boolean;
    /** Subinterval number where the accepted (or best) window starts. */
    fromSubinterval: number;
    samples: number;
    /** Achieved relative half-width, a fraction. */
    achieved: number;
  } | null;
}

export interface LabStep {
  source: string;
  tool: "iogen" | "fio";
  host: string;
  /** Step identifier: iogen's step number, fio's job name (with `#n` for numjobs clones). */
  step: string;
  /** Numeric order for sorting (iogen step number, fio job index). */
  order: number;
  stepName: string;
  category: string;
  /** Where the numbers come from: "summary", "subintervals" or "fio". */
  basis: "summary" | "subintervals" | "fio";
  values: Record<StepMetric, number | null>;
  /** iogen: yes|no|off from the summary; "" when unknown. */
  seenEnoughFlag: string;
  /** Text labels: iogen label columns, fio's rw / job / numjobs / options that vary. */
  labels: Record<string, string>;
  window: MeasureWindow | null;
}

export interface LabSubinterval {
  source: string;
  host: string;
  step: string;
  stepName: string;
  subinterval: number;
  phase: string;
  category: string;
  values: Record<IogenNumericColumn, number | null>;
}

export interface LabData {
  steps: LabStep[];
  subintervals: LabSubinterval[];
  /** Label columns in first-seen order. */
  labelColumns: string[];
  warnings: string[];
}

function emptyMetrics(): Record<StepMetric, number | null> {
  const v = {} as Record<StepMetric, number | null>;
  for (const m of STEP_METRICS) v[m] = null;
  return v;
}

const key = (host: string, step: string, category: string): string => `${host}\u0000${step}\u0000${category}`;

function stepId(v: number | null): string {
  return v === null ? "" : String(v);
}

/** Weighted mean of `pick` over rows with weight `w`, skipping nulls; null when nothing is left. */
function weighted(rows: IogenRow[], pick: (r: IogenRow) => number | null, w: (r: IogenRow) => number): number | null {
  let s = 0;
  let ws = 0;
  for (const r of rows) {
    const v = pick(r);
    const wt = w(r);
    if (v === null || !(wt > 0)) continue;
    s += v * wt;
    ws += wt;
  }
  return ws > 0 ? s / ws : null;
}

function sumOrNull(rows: IogenRow[], pick: (r: IogenRow) => number | null): number | null {
  let s = 0;
  let any = false;
  for (const r of rows) {
    const v = pick(r);
    if (v !== null) {
      s += v;
      any = true;
    }
  }
  return any ? s : null;
}

function firstValue(rows: IogenRow[], pick: (r: IogenRow) => number | null): number | null {
  for (const r of rows) {
    const v = pick(r);
    if (v !== null) return v;
  }
  return null;
}

/** The measure window of one host × step × category group of subinterval rows. */
function windowOf(rows: IogenRow[]): MeasureWindow | null {
  const measure = rows.filter((r) => r.phase === "measure");
  if (measure.length === 0) return null;
  const sub = (r: IogenRow): number => r.values.subinterval ?? 0;
  const iops = measure.map((r) => r.values.iops as number);
  let se: MeasureWindow["seenEnough"] = null;
  try {
    if (iops.length >= 5) {
      const res = seenEnough(iops, { accuracy: 0.05, confidence: 0.95 });
      se = {
        accepted: res.seenEnough,
        fromSubinterval: sub(measure[res.from - 1]),
        samples: res.samples,
        achieved: res.achieved,
      };
    }
  } catch {
    se = null; // e.g. all-zero IOPS: no relative accuracy exists
  }
  return {
    first: sub(measure[0]),
    last: sub(measure[measure.length - 1]),
    subintervals: measure.length,
    seconds: measure.reduce((s, r) => s + (r.values.seconds ?? 0), 0),
    warmupSubintervals: rows.length - measure.length,
    seenEnough: se,
  };
}

/** A step aggregated from its measure-phase subintervals. */
function stepFromSubintervals(rows: IogenRow[], source: string): LabStep {
  const measure = rows.filter((r) => r.phase === "measure");
  const use = measure.length > 0 ? measure : rows;
  const secs = (r: IogenRow): number => r.values.seconds ?? 0;
  const ios = (r: IogenRow): number => (r.values.iops ?? 0) * secs(r);
  const v = emptyMetrics();
  const first = rows[0];
  for (const c of ["target_iops", "block_size", "read_pct", "random_pct", "queue_depth", "cpu_cores"] as const) {
    v[c] = firstValue(use, (r) => r.values[c]);
  }
  const totalSeconds = use.reduce((s, r) => s + secs(r), 0);
  v.iops =
    totalSeconds > 0
      ? use.reduce((s, r) => s + ios(r), 0) / totalSeconds
      : weighted(
          use,
          (r) => r.values.iops,
          () => 1,
        );
  for (const c of ["mb_s", "avg_in_flight", "cpu_busy_pct", "cpu_sys_pct", "cpu_iowait_pct"] as const) {
    v[c] = weighted(use, (r) => r.values[c], secs);
  }
  v.tool_cpu_pct = weighted(use, (r) => r.values.iogen_cpu_pct, secs);
  v.service_ms_avg = weighted(use, (r) => r.values.service_ms_avg, ios);
  v.response_ms_avg = weighted(use, (r) => r.values.response_ms_avg, ios);
  v.service_ms_max = use.reduce<number | null>((m, r) => maxOrNull(m, r.values.service_ms_max), null);
  v.response_ms_max = use.reduce<number | null>((m, r) => maxOrNull(m, r.values.response_ms_max), null);
  v.late_ios = sumOrNull(use, (r) => r.values.late_ios);
  v.errors = sumOrNull(use, (r) => r.values.errors);
  v.measure_seconds = totalSeconds;
  return {
    source,
    tool: "iogen",
    host: first.host,
    step: stepId(first.values.step),
    order: first.values.step ?? 0,
    stepName: first.step_name,
    category: first.category,
    basis: "subintervals",
    values: v,
    seenEnoughFlag: "",
    labels: { ...first.labels },
    window: windowOf(rows),
  };
}

function maxOrNull(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.max(a, b);
}

function stepFromSummary(r: IogenRow, source: string, window: MeasureWindow | null): LabStep {
  const v = emptyMetrics();
  for (const m of STEP_METRICS) {
    if (m === "tool_cpu_pct") v[m] = r.values.iogen_cpu_pct;
    else v[m] = r.values[m];
  }
  return {
    source,
    tool: "iogen",
    host: r.host,
    step: stepId(r.values.step),
    order: r.values.step ?? 0,
    stepName: r.step_name,
    category: r.category,
    basis: "summary",
    values: v,
    seenEnoughFlag: r.seen_enough,
    labels: { ...r.labels },
    window,
  };
}

/** fio option names that become labels when they differ between steps (plus rw, numjobs, job). */
const FIO_LABEL_OPTIONS = ["ioengine", "direct", "rwmixread", "numjobs", "rw"];

function stepFromFio(s: FioStep, duplicateName: boolean): LabStep {
  const v = emptyMetrics();
  v.target_iops = s.rate_iops;
  v.iops = s.iops;
  v.mb_s = s.mb_s;
  v.block_size = s.bs;
  v.queue_depth = s.iodepth;
  v.read_pct = s.direction === "read" ? 100 : 0;
  v.service_ms_avg = s.clat_ms_avg;
  v.service_ms_p50 = s.clat_ms_p50;
  v.service_ms_p90 = s.clat_ms_p90;
  v.service_ms_p99 = s.clat_ms_p99;
  v.service_ms_p999 = s.clat_ms_p999;
  v.service_ms_max = s.clat_ms_max;
  v.response_ms_avg = s.lat_ms_avg;
  v.response_ms_p50 = s.lat_ms_p50;
  v.response_ms_p90 = s.lat_ms_p90;
  v.response_ms_p99 = s.lat_ms_p99;
  v.response_ms_p999 = s.lat_ms_p999;
  v.response_ms_max = s.lat_ms_max;
  if (s.usr_cpu !== null && s.sys_cpu !== null && s.job_iops > 0) {
    v.tool_cpu_pct = ((s.usr_cpu + s.sys_cpu) * s.iops) / s.job_iops;
  }
  v.measure_seconds = s.runtime_ms / 1000;
  const labels: Record<string, string> = { job: s.job };
  for (const o of FIO_LABEL_OPTIONS) if (s.options[o] !== undefined) labels[o] = s.options[o];
  labels.rw = s.rw;
  labels.numjobs = String(s.numjobs);
  return {
    source: s.file,
    tool: "fio",
    host: "",
    step: duplicateName ? `${s.job}#${s.jobIndex}` : s.job,
    order: s.jobIndex,
    stepName: s.job,
    category: s.direction,
    basis: "fio",
    values: v,
    seenEnoughFlag: "",
    labels,
    window: null,
  };
}

/**
 * Brings the readers' results into one list of steps and subintervals.
 *
 * @param inputs - results of `readLabText`/`readLabStream` without errors
 * @returns steps (sorted by source order, host, step, category), subintervals, label columns, warnings
 */
export function collectLabData(inputs: readonly LabFileResult[]): LabData {
  const warnings: string[] = [];
  const steps: LabStep[] = [];
  const subintervals: LabSubinterval[] = [];
  const labelColumns: string[] = [];
  const addLabels = (names: Iterable<string>): void => {
    for (const n of names) if (!labelColumns.includes(n)) labelColumns.push(n);
  };

  // Subinterval groups, by host × step × category (first file wins when several give the same key).
  const groups = new Map<string, { source: string; rows: IogenRow[] }>();
  for (const input of inputs) {
    if (input.format !== "iogen-subinterval") continue;
    addLabels(input.iogen.labelColumns);
    for (const r of input.iogen.rows) {
      const k = key(r.host, stepId(r.values.step), r.category);
      let g = groups.get(k);
      if (!g) {
        g = { source: input.file, rows: [] };
        groups.set(k, g);
      }
      if (g.source !== input.file) continue;
      g.rows.push(r);
      subintervals.push({
        source: input.file,
        host: r.host,
        step: stepId(r.values.step),
        stepName: r.step_name,
        subinterval: r.values.subinterval ?? 0,
        phase: r.phase,
        category: r.category,
        values: r.values,
      });
    }
  }
  const used = new Set<string>();
  for (const input of inputs) {
    if (input.format === "iogen-summary") {
      addLabels(input.iogen.labelColumns);
      for (const r of input.iogen.rows) {
        const k = key(r.host, stepId(r.values.step), r.category);
        const g = groups.get(k);
        if (g) used.add(k);
        steps.push(stepFromSummary(r, input.file, g ? windowOf(g.rows) : null));
      }
    } else if (input.format === "fio-json") {
      const jobsPerName = new Map<string, Set<number>>();
      for (const s of input.fio.rows) {
        const set = jobsPerName.get(s.job) ?? new Set<number>();
        set.add(s.jobIndex);
        jobsPerName.set(s.job, set);
      }
      for (const s of input.fio.rows) steps.push(stepFromFio(s, (jobsPerName.get(s.job)?.size ?? 1) > 1));
    }
  }
  for (const [k, g] of groups) {
    if (!used.has(k)) steps.push(stepFromSubintervals(g.rows, g.source));
  }
  if (steps.some((s) => s.tool === "fio")) addLabels(["job", "rw", "numjobs"]);
  for (const s of steps) addLabels(Object.keys(s.labels));
  const sourceOrder = new Map(inputs.map((x, i) => [x.file, i] as const));
  const catOrder = (c: string): number => ["overall", "read", "write", "trim"].indexOf(c);
  steps.sort(
    (a, b) =>
      (sourceOrder.get(a.source) ?? 0) - (sourceOrder.get(b.source) ?? 0) ||
      a.host.localeCompare(b.host) ||
      a.order - b.order ||
      a.step.localeCompare(b.step) ||
      catOrder(a.category) - catOrder(b.category),
  );
  if (steps.some((s) => s.basis === "subintervals")) {
    warnings.push(
      "Some steps were aggregated from subintervals (no summary CSV given): their p50/p90/p99 are left empty because percentiles cannot be averaged; pass the summary CSV too.",
    );
  }
  return { steps, subintervals, labelColumns, warnings };
}
