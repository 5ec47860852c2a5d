/** The metrics a lab step carries (iogen's numeric columns, the tool's CPU under a neutral name), and which of them are plan settings rather than results. */
import { IOGEN_NUMERIC_COLUMNS, IogenNumericColumn } from "../import/iogen-csv";

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
export function iogenColumnOf(m: StepMetric): IogenNumericColumn {
  return m === "tool_cpu_pct" ? "iogen_cpu_pct" : m;
}
