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
import { LabFileResult } from "../import/detect";
import { IogenTable } from "../import/iogen-table";
import { FioStep } from "../import/fio-json";
import { StepMetric } from "./data-metrics";
import { stepFromFio, stepFromSubintervals, stepFromSummary } from "./data-steps";
import { GroupMap, groupSubintervals, key, stepId } from "./data-subintervals";

// The pane's import section offers the result metrics as the fitted response.
export { RESULT_METRICS } from "./data-metrics";

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
  /**
   * SEEN_ENOUGH's non-stationarity warnings on the measured IOPS, in words (empty when none). Found
   * whoever judged the window: they depend on where steady state begins, not on the accuracy asked.
   */
  steadyWarnings?: string[];
  /**
   * Why that SEEN_ENOUGH (±5 % at 95 %) on the measured IOPS is FALSE, in words ("" when TRUE or not
   * judged): shown beside a steady state that was never reached.
   */
  steadyWhyNot?: string;
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
