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
import { IOGEN_NUMERIC_COLUMNS, IogenNumericColumn, IogenRow } from "../import/iogen-csv";
import { IogenTable, NumberColumn, TextColumn, Uint32Column } from "../import/iogen-table";
import { ColumnData } from "../workbook/plan";
import { FioStep } from "../import/fio-json";

/** iogen columns that place a row in time or name the tool, rather than measure the step. */
type IogenPlacementColumn = "step" | "subinterval" | "start_s" | "seconds" | "iogen_cpu_pct";
const IOGEN_PLACEMENT_COLUMNS: readonly string[] = ["step", "subinterval", "start_s", "seconds", "iogen_cpu_pct"];

/** A metric a step carries: iogen's numeric columns, with the tool's CPU under a tool-neutral name. */
export type StepMetric = Exclude<IogenNumericColumn, IogenPlacementColumn> | "tool_cpu_pct";

/**
 * Metrics a step carries, in iogen's column order (derived from the reader's column list, so the
 * two cannot drift); `tool_cpu_pct` (iogen_cpu_pct, or fio's usr + sys) stands where iogen_cpu_pct is.
 */
export const STEP_METRICS: readonly StepMetric[] = IOGEN_NUMERIC_COLUMNS.flatMap((c): StepMetric[] =>
  c === "iogen_cpu_pct" ? ["tool_cpu_pct"] : IOGEN_PLACEMENT_COLUMNS.includes(c) ? [] : [c as StepMetric],
);

/** Step metrics the plan sets or that bookkeep the run (factors, not results a fit explains). */
export const PLAN_METRICS: readonly StepMetric[] = [
  "target_iops",
  "block_size",
  "read_pct",
  "random_pct",
  "queue_depth",
  "cpu_cores",
  "measure_seconds",
  "achieved_pm",
  "steady_from",
];

/** Step metrics that are results of a step: what the pane offers as the fitted response. */
export const RESULT_METRICS: readonly StepMetric[] = STEP_METRICS.filter((m) => !PLAN_METRICS.includes(m));

/** The iogen column a step metric is read from. */
function iogenColumnOf(m: StepMetric): IogenNumericColumn {
  return m === "tool_cpu_pct" ? "iogen_cpu_pct" : m;
}

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
    /** Mean IOPS over that window. */
    mean: number;
  } | null;
}

/**
 * Where a step's steady state begins, and who judged it. iogen (summary CSV schema 3) writes
 * `steady_from` and `seen_enough` (docs/iogen-csv.md): its summary row then covers the steady-state
 * window only, and the analysis takes its word. Older CSVs (no `steady_from` column) and steps
 * without a summary row get SEEN_ENOUGH run here on the measured IOPS, said so on the sheet.
 */
export interface SteadyState {
  /** "iogen": iogen's own judgement; "recomputed": SEEN_ENOUGH run here (the CSV does not say). */
  basis: "iogen" | "recomputed";
  /** true: steady state found; false: never reached (the rule never held); null: not judged. */
  reached: boolean | null;
  /** Measured subinterval (iogen numbers them from 1) where the steady window starts, if known. */
  from: number | null;
  /** Measured subintervals in the window (from `from` to the last), if known. */
  subintervals: number | null;
  /** Mean IOPS over the window (iogen: the summary row's, which covers the window only). */
  meanIops: number | null;
  /** What was used, in plain words (shown on the Steps sheet). */
  note: string;
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
  /** iogen steps: the steady-state window and who judged it; null for fio or without any window. */
  steady: SteadyState | null;
}

/**
 * The subinterval rows of one host × step × category, from one file: row indices into that
 * file's column store (no row objects).
 */
export interface SubintervalGroup {
  source: string;
  table: IogenTable;
  /** Table row indices, ascending. */
  rows: Uint32Array;
  host: string;
  step: string;
  stepName: string;
  category: string;
}

/**
 * The subinterval rows of one file that the analysis uses (the first file wins when several give
 * the same host × step × category), as indices into the file's column store.
 */
export interface SubintervalSegment {
  source: string;
  table: IogenTable;
  /** Table row indices used, ascending; `null` when every row is used. */
  rows: Uint32Array | null;
  /** Rows used. */
  length: number;
}

export interface LabData {
  steps: LabStep[];
  /** Subinterval rows, file by file, in file order (then row order). */
  subintervals: SubintervalSegment[];
  /** The same rows grouped by host × step × category, groups in first-seen order. */
  subintervalGroups: SubintervalGroup[];
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

/** A column of a group's table, or null when the file lacks it. */
type Col = NumberColumn | null;

const valueAt = (c: Col, i: number): number | null => (c === null ? null : c.value(i));

/**
 * Weighted mean of column `c` over rows `idx`, row `idx[k]` weighing `w[k]` (`w` null: 1 each),
 * skipping empty cells and weights that are not positive; null when nothing is left.
 */
function weighted(idx: ArrayLike<number>, c: Col, w: Float64Array | null): number | null {
  if (c === null) return null;
  let s = 0;
  let ws = 0;
  for (let k = 0; k < idx.length; k++) {
    const v = c.get(idx[k]);
    const wt = w === null ? 1 : w[k];
    if (v !== v || !(wt > 0)) continue;
    s += v * wt;
    ws += wt;
  }
  return ws > 0 ? s / ws : null;
}

function sumOrNull(idx: ArrayLike<number>, c: Col): number | null {
  if (c === null) return null;
  let s = 0;
  let any = false;
  for (let k = 0; k < idx.length; k++) {
    const v = c.get(idx[k]);
    if (v === v) {
      s += v;
      any = true;
    }
  }
  return any ? s : null;
}

function maxOrNull(idx: ArrayLike<number>, c: Col): number | null {
  if (c === null) return null;
  let m: number | null = null;
  for (let k = 0; k < idx.length; k++) {
    const v = c.get(idx[k]);
    if (v === v) m = m === null ? v : Math.max(m, v);
  }
  return m;
}

function firstValue(idx: ArrayLike<number>, c: Col): number | null {
  if (c === null) return null;
  for (let k = 0; k < idx.length; k++) {
    const v = c.get(idx[k]);
    if (v === v) return v;
  }
  return null;
}

/**
 * The group's rows in the measure phase (warm-up excluded), as table row indices.
 *
 * @example measureRowsOf(group).length // => the step's measured subintervals
 */
export function measureRowsOf(g: SubintervalGroup): Uint32Array {
  const phase = g.table.text.phase;
  const measure = phase.texts.indexOf("measure");
  if (measure < 0) return new Uint32Array(0);
  let n = 0;
  for (let k = 0; k < g.rows.length; k++) if (phase.code(g.rows[k]) === measure) n++;
  if (n === g.rows.length) return g.rows;
  const out = new Uint32Array(n);
  n = 0;
  for (let k = 0; k < g.rows.length; k++) if (phase.code(g.rows[k]) === measure) out[n++] = g.rows[k];
  return out;
}

/**
 * The group's rows in the step's steady-state window: its measured rows from iogen's `steady_from`
 * on (the rows its summary covers), else all measured rows.
 */
export function steadyRowsOf(g: SubintervalGroup, step: LabStep): Uint32Array {
  const measure = measureRowsOf(g);
  const from = step.steady?.basis === "iogen" ? step.steady.from : null;
  if (from === null) return measure;
  const subCol = g.table.column("subinterval");
  return measure.filter((i) => (valueAt(subCol, i) ?? 0) >= from);
}

/** SEEN_ENOUGH with its defaults (±5 % at 95 %) on a group's measured IOPS; null when it cannot judge. */
function seenEnoughHere(g: SubintervalGroup, measure: Uint32Array): MeasureWindow["seenEnough"] {
  const t = g.table;
  const subCol = t.column("subinterval");
  const iopsCol = t.column("iops") as NumberColumn; // required column; rows without iops were skipped
  const iops = Array.from(measure, (i) => iopsCol.get(i));
  if (iops.length < 5) return null;
  try {
    const res = seenEnough(iops, { accuracy: 0.05, confidence: 0.95 });
    return {
      accepted: res.seenEnough,
      fromSubinterval: valueAt(subCol, measure[res.from - 1]) ?? 0,
      samples: res.samples,
      achieved: res.achieved,
      mean: res.mean,
    };
  } catch {
    return null; // e.g. all-zero IOPS: no relative accuracy exists
  }
}

/**
 * The measure window of one host × step × category group of subinterval rows (`measure`: its
 * measure-phase rows); SEEN_ENOUGH is run here only when `judge` (iogen did not say).
 */
function windowOf(g: SubintervalGroup, measure: Uint32Array = measureRowsOf(g), judge = true): MeasureWindow | null {
  if (measure.length === 0) return null;
  const t = g.table;
  const subCol = t.column("subinterval");
  const sub = (i: number): number => valueAt(subCol, i) ?? 0;
  const se = judge ? seenEnoughHere(g, measure) : null;
  const secCol = t.column("seconds");
  let seconds = 0;
  for (let k = 0; k < measure.length; k++) seconds += valueAt(secCol, measure[k]) ?? 0;
  return {
    first: sub(measure[0]),
    last: sub(measure[measure.length - 1]),
    subintervals: measure.length,
    seconds,
    warmupSubintervals: g.rows.length - measure.length,
    seenEnough: se,
  };
}

/** A step aggregated from its measure-phase subintervals. */
function stepFromSubintervals(g: SubintervalGroup): LabStep {
  const t = g.table;
  const measure = measureRowsOf(g);
  const window = windowOf(g, measure);
  const use = measure.length > 0 ? measure : g.rows;
  const secCol = t.column("seconds");
  const iopsCol = t.column("iops");
  // Per row used: its seconds and its IOs (IOPS × seconds), the weights of the means below.
  const secs = new Float64Array(use.length);
  const ios = new Float64Array(use.length);
  let totalSeconds = 0;
  let totalIos = 0;
  for (let k = 0; k < use.length; k++) {
    const sec = secCol === null ? 0 : (secCol.value(use[k]) ?? 0);
    const x = iopsCol === null ? 0 : (iopsCol.value(use[k]) ?? 0);
    secs[k] = sec;
    ios[k] = x * sec;
    totalSeconds += sec;
    totalIos += x * sec;
  }
  const v = emptyMetrics();
  const first = g.rows[0];
  for (const c of ["target_iops", "block_size", "read_pct", "random_pct", "queue_depth", "cpu_cores"] as const) {
    v[c] = firstValue(use, t.column(c));
  }
  v.iops = totalSeconds > 0 ? totalIos / totalSeconds : weighted(use, iopsCol, null);
  for (const c of ["mb_s", "avg_in_flight", "cpu_busy_pct", "cpu_sys_pct", "cpu_iowait_pct"] as const) {
    v[c] = weighted(use, t.column(c), secs);
  }
  v.tool_cpu_pct = weighted(use, t.column("iogen_cpu_pct"), secs);
  v.service_ms_avg = weighted(use, t.column("service_ms_avg"), ios);
  v.response_ms_avg = weighted(use, t.column("response_ms_avg"), ios);
  v.service_ms_max = maxOrNull(use, t.column("service_ms_max"));
  v.response_ms_max = maxOrNull(use, t.column("response_ms_max"));
  v.late_ios = sumOrNull(use, t.column("late_ios"));
  v.iogen_lag_ms_avg = weighted(use, t.column("iogen_lag_ms_avg"), ios);
  v.iogen_lag_ms_max = maxOrNull(use, t.column("iogen_lag_ms_max"));
  v.errors = sumOrNull(use, t.column("errors"));
  v.measure_seconds = totalSeconds;
  const labels: Record<string, string> = {};
  for (const l of t.labels) labels[l.name] = l.column.get(first);
  return {
    source: g.source,
    tool: "iogen",
    host: g.host,
    step: g.step,
    order: t.value("step", first) ?? 0,
    stepName: g.stepName,
    category: g.category,
    basis: "subintervals",
    values: v,
    seenEnoughFlag: "",
    labels,
    window,
    steady: recomputedSteady(window, "no summary CSV row for this step"),
  };
}

/** The steady state SEEN_ENOUGH found here on the window, when iogen's CSV does not say (`why`). */
function recomputedSteady(window: MeasureWindow | null, why: string): SteadyState | null {
  const se = window?.seenEnough;
  if (!se) return null;
  return {
    basis: "recomputed",
    reached: se.accepted,
    from: se.fromSubinterval,
    subintervals: se.samples,
    meanIops: se.mean,
    note: `re-computed here (${why}): SEEN_ENOUGH ±5 % at 95 % on the measured IOPS`,
  };
}

/**
 * iogen's own steady-state judgement from a schema-3 summary row (docs/iogen-csv.md): `steady_from`
 * and `seen_enough` (yes: the rule held; no: it never did before --max-duration; off: not asked).
 */
function iogenSteady(
  r: IogenRow,
  window: MeasureWindow | null,
  measure: Uint32Array | null,
  g?: SubintervalGroup,
): SteadyState {
  const from = r.values.steady_from;
  const flag = r.seen_enough;
  const base = { basis: "iogen" as const, meanIops: r.values.iops, subintervals: window?.subintervals ?? null };
  if (flag === "off" || flag === "")
    return {
      ...base,
      reached: null,
      from: null,
      note: "not judged: iogen ran without --seen-enough; the row covers the whole measurement",
    };
  if (from === null)
    return flag === "no"
      ? {
          ...base,
          reached: false,
          from: null,
          note: "iogen: --seen-enough never held before --max-duration; no steady state found, the row covers the whole measurement",
        }
      : {
          ...base,
          reached: null,
          from: null,
          note: "iogen judged precision only (transient check off, or an MPI all row): the row covers the whole measurement",
        };
  let inWindow: number | null = null;
  if (g && measure) {
    const subCol = g.table.column("subinterval");
    inWindow = 0;
    for (let k = 0; k < measure.length; k++) if ((valueAt(subCol, measure[k]) ?? 0) >= from) inWindow++;
  }
  return {
    ...base,
    reached: flag !== "no",
    from,
    subintervals: inWindow,
    note:
      flag === "no"
        ? `iogen: steady from subinterval ${from}, but --seen-enough never held before --max-duration`
        : `iogen's steady_from: the summary row covers subintervals ${from} to the last`,
  };
}

/**
 * A step from an iogen summary row; `g` its subinterval group, if given. `steadyColumn`: the file
 * has iogen's `steady_from` column (schema 3), so iogen's judgement is used and SEEN_ENOUGH is not
 * run again here.
 */
function stepFromSummary(r: IogenRow, source: string, g: SubintervalGroup | undefined, steadyColumn: boolean): LabStep {
  const measure = g ? measureRowsOf(g) : null;
  const window = g && measure ? windowOf(g, measure, !steadyColumn) : null;
  const steady = steadyColumn
    ? iogenSteady(r, window, measure, g)
    : recomputedSteady(window, "the summary CSV has no steady_from: iogen before CSV schema 3");
  const v = emptyMetrics();
  for (const m of STEP_METRICS) v[m] = r.values[iogenColumnOf(m)];
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
    steady,
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
    steady: null,
  };
}

/**
 * Adds one subinterval file's rows to the groups by host × step × category (first file wins when
 * several give the same key). Rows are looked up by their numeric step and their host and
 * category codes, so the text key is built once per group of a file, not once per row.
 *
 * @returns the file's segment of kept rows, or null when it keeps none
 */
function groupSubintervalRows(file: string, table: IogenTable, groups: GroupMap): SubintervalSegment | null {
  const stepCol = table.column("step");
  const host = table.text.host;
  const category = table.text.category;
  const local = new Map<number, Map<number, Uint32Column | null>>();
  // The last group seen per category code: rows of a step come in runs (overall, read, write
  // interleaved), so most rows find their group here without a Map lookup.
  const lastStep: number[] = [];
  const lastHost: number[] = [];
  const lastRows: (Uint32Column | null)[] = [];
  const kept = new Uint32Column();
  for (let i = 0; i < table.length; i++) {
    const step = stepCol === null ? NaN : stepCol.get(i);
    const hc = host.code(i);
    const cc = category.code(i);
    if (lastHost[cc] === hc && Object.is(lastStep[cc], step)) {
      const cached = lastRows[cc];
      if (cached === null) continue;
      cached.push(i);
      kept.push(i);
      continue;
    }
    let byText = local.get(step);
    if (byText === undefined) {
      byText = new Map();
      local.set(step, byText);
    }
    const localKey = hc * 4294967296 + cc;
    let rows = byText.get(localKey);
    if (rows === undefined) {
      const id = stepId(step === step ? step : null);
      const k = key(host.get(i), id, category.get(i));
      let g = groups.get(k);
      if (!g) {
        const group: SubintervalGroup = {
          source: file,
          table,
          rows: new Uint32Array(0),
          host: host.get(i),
          step: id,
          stepName: table.text.step_name.get(i),
          category: category.get(i),
        };
        g = { group, rows: new Uint32Column() };
        groups.set(k, g);
      }
      rows = g.group.source === file ? g.rows : null;
      byText.set(localKey, rows);
    }
    lastStep[cc] = step;
    lastHost[cc] = hc;
    lastRows[cc] = rows;
    if (rows === null) continue;
    rows.push(i);
    kept.push(i);
  }
  if (kept.length === 0) return null;
  const all = kept.length === table.length;
  kept.trim();
  return { source: file, table, rows: all ? null : kept.values(), length: kept.length };
}

/** Subinterval groups by host × step × category key, with the rows gathered for each. */
type GroupMap = Map<string, { group: SubintervalGroup; rows: Uint32Column }>;

/**
 * Groups every subinterval file's rows by host × step × category (first file wins when several give
 * the same key). Rows are looked up by their numeric step and their host and category codes, so
 * the text key is built once per group of a file, not once per row.
 */
function groupSubintervals(
  inputs: readonly LabFileResult[],
  addLabels: (names: Iterable<string>) => void,
): { groups: GroupMap; segments: SubintervalSegment[]; ordered: SubintervalGroup[] } {
  const groups: GroupMap = new Map();
  const segments: SubintervalSegment[] = [];
  for (const input of inputs) {
    if (input.format !== "iogen-subinterval") continue;
    addLabels(input.iogen.labelColumns);
    const segment = groupSubintervalRows(input.file, input.iogen.table, groups);
    if (segment) segments.push(segment);
  }
  const ordered: SubintervalGroup[] = [];
  for (const g of groups.values()) {
    g.rows.trim();
    g.group.rows = g.rows.values();
    ordered.push(g.group);
  }
  return { groups, segments, ordered };
}

/** The steps of one summary CSV (each with its subinterval group, whose key goes into `used`). */
function summarySteps(file: string, table: IogenTable, groups: GroupMap, used: Set<string>): LabStep[] {
  const steadyColumn = table.column("steady_from") !== null;
  const out: LabStep[] = [];
  for (let i = 0; i < table.length; i++) {
    const r = table.row(i);
    const k = key(r.host, stepId(r.values.step), r.category);
    const g = groups.get(k);
    if (g) used.add(k);
    out.push(stepFromSummary(r, file, g?.group, steadyColumn));
  }
  return out;
}

/** The steps of one fio JSON file; a job name used by several jobs gets `#index`. */
function fioSteps(rows: readonly FioStep[]): LabStep[] {
  const jobsPerName = new Map<string, Set<number>>();
  for (const s of rows) {
    const set = jobsPerName.get(s.job) ?? new Set<number>();
    set.add(s.jobIndex);
    jobsPerName.set(s.job, set);
  }
  return rows.map((s) => stepFromFio(s, (jobsPerName.get(s.job)?.size ?? 1) > 1));
}

/** Sorts steps by source order, host, step number and name, then category (overall, read, write, trim). */
function sortSteps(steps: LabStep[], inputs: readonly LabFileResult[]): void {
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
  const labelColumns: string[] = [];
  const addLabels = (names: Iterable<string>): void => {
    for (const n of names) if (!labelColumns.includes(n)) labelColumns.push(n);
  };
  const { groups, segments, ordered } = groupSubintervals(inputs, addLabels);
  const used = new Set<string>();
  for (const input of inputs) {
    if (input.format === "iogen-summary") {
      addLabels(input.iogen.labelColumns);
      steps.push(...summarySteps(input.file, input.iogen.table, groups, used));
    } else if (input.format === "fio-json") steps.push(...fioSteps(input.fio.rows));
  }
  // A subinterval group no summary row covers is a step of its own.
  for (const [k, g] of groups) if (!used.has(k)) steps.push(stepFromSubintervals(g.group));
  if (steps.some((s) => s.tool === "fio")) addLabels(["job", "rw", "numjobs"]);
  for (const s of steps) addLabels(Object.keys(s.labels));
  sortSteps(steps, inputs);
  if (steps.some((s) => s.basis === "subintervals")) {
    warnings.push(
      "Some steps were aggregated from subintervals (no summary CSV given): their p50/p90/p99 are left empty because percentiles cannot be averaged; pass the summary CSV too.",
    );
  }
  return { steps, subintervals: segments, subintervalGroups: ordered, labelColumns, warnings };
}

/**
 * The subinterval rows the workbook shows (the first `limit` of the segments, in order), column by
 * column, as plain arrays ({@link ColumnData}) read straight from the readers' typed arrays: no
 * object per row.
 */
export class SubintervalColumns {
  /** Rows shown. */
  readonly length: number;
  /** Per segment: rows taken (a prefix of the segment). */
  private readonly take: number[];

  constructor(
    private readonly segments: readonly SubintervalSegment[],
    limit: number,
  ) {
    let left = Math.max(0, limit);
    this.take = segments.map((s) => {
      const n = Math.min(s.length, left);
      left -= n;
      return n;
    });
    this.length = this.take.reduce((a, b) => a + b, 0);
  }

  /** A numeric column; `emptyAs` replaces empty cells when given, else they are listed in `empty`. */
  number(name: IogenNumericColumn, emptyAs?: number): ColumnData {
    const values = new Array<number>(this.length);
    const empty: number[] = [];
    let pos = 0;
    this.segments.forEach((s, n) => {
      const c = s.table.column(name);
      const raw = c === null ? null : c.values();
      const rows = s.rows;
      for (let k = 0; k < this.take[n]; k++) {
        const v = raw === null ? NaN : raw[rows === null ? k : rows[k]];
        if (v === v) values[pos] = v;
        else if (emptyAs !== undefined) values[pos] = emptyAs;
        else {
          values[pos] = 0;
          empty.push(pos);
        }
        pos++;
      }
    });
    return { kind: "number", values, empty };
  }

  /** A text column of the readers' tables (`pick` chooses it). */
  text(pick: (t: IogenTable) => TextColumn): ColumnData {
    const texts: string[] = [];
    const index = new Map<string, number>();
    const codes = new Array<number>(this.length);
    let pos = 0;
    this.segments.forEach((s, n) => {
      const col = pick(s.table);
      const remap = col.texts.map((t) => {
        let c = index.get(t);
        if (c === undefined) {
          c = texts.length;
          texts.push(t);
          index.set(t, c);
        }
        return c;
      });
      const raw = col.codes.values();
      const rows = s.rows;
      for (let k = 0; k < this.take[n]; k++) codes[pos++] = remap[raw[rows === null ? k : rows[k]]];
    });
    return { kind: "text", codes, texts };
  }

  /** The source file of each row. */
  source(): ColumnData {
    const texts = this.segments.map((s) => s.source);
    const codes = new Array<number>(this.length);
    let pos = 0;
    this.take.forEach((n, seg) => {
      for (let k = 0; k < n; k++) codes[pos++] = seg;
    });
    return { kind: "text", codes, texts };
  }

  /** The step identifier as text (the CSV's step number; "" when empty). */
  step(): ColumnData {
    const texts: string[] = [];
    const index = new Map<number, number>();
    const codes = new Array<number>(this.length);
    let pos = 0;
    this.segments.forEach((s, n) => {
      const c = s.table.column("step");
      const raw = c === null ? null : c.values();
      const rows = s.rows;
      let last = NaN;
      let lastCode = -1;
      for (let k = 0; k < this.take[n]; k++) {
        const v = raw === null ? NaN : raw[rows === null ? k : rows[k]];
        if (lastCode < 0 || !Object.is(v, last)) {
          let code = index.get(v);
          if (code === undefined) {
            code = texts.length;
            texts.push(stepId(v === v ? v : null));
            index.set(v, code);
          }
          last = v;
          lastCode = code;
        }
        codes[pos++] = lastCode;
      }
    });
    return { kind: "text", codes, texts };
  }

  /** True when any row shown has a value in this numeric column. */
  anyValue(name: IogenNumericColumn): boolean {
    return this.segments.some((s, n) => {
      const c = s.table.column(name);
      if (c === null) return false;
      for (let k = 0; k < this.take[n]; k++) if (c.value(s.rows === null ? k : s.rows[k]) !== null) return true;
      return false;
    });
  }

  /** The rows of a group that are shown (all of them unless the limit cuts into its file). */
  included(g: SubintervalGroup): Uint32Array {
    const n = this.segments.findIndex((s) => s.table === g.table && s.source === g.source);
    if (n < 0) return new Uint32Array(0);
    const s = this.segments[n];
    if (this.take[n] === s.length) return g.rows;
    const bound = this.take[n] === 0 ? 0 : (s.rows === null ? this.take[n] - 1 : s.rows[this.take[n] - 1]) + 1;
    let end = 0;
    while (end < g.rows.length && g.rows[end] < bound) end++;
    return g.rows.subarray(0, end);
  }
}
