/**
 * The Steps sheet (one row per step and host, overall category; fio: per job and direction) and
 * the Categories sheet (iogen's read and write rows), which share the Steps columns.
 */
import { LabData, LabStep } from "./data";
import { StepMetric } from "./data-metrics";
import { StepAnswer } from "./quality";
import { SheetPlan, TablePlan } from "../workbook/plan";
import { ColumnSpec, F, num, SheetBuilder } from "../workbook/sheet-builder";

const METRIC_HEADERS: Partial<Record<StepMetric, [string, string, string]>> = {
  target_iops: ["target IOPS", F.iops, "Requested IOPS (iogen --iops, fio rate_iops); empty = as fast as possible"],
  iops: ["IOPS", F.iops, "Achieved IOs per second over the measure window (fio: jobs[].<dir>.iops)"],
  mb_s: ["MB/s", F.mbs, "Throughput in 10^6 bytes per second"],
  block_size: ["block size B", F.int, "Bytes per IO"],
  read_pct: ["read %", F.pct, "Share of reads in the mix (fio: 100 for the read direction, 0 for write)"],
  random_pct: ["random %", F.pct, "Share of random offsets"],
  queue_depth: ["queue depth", F.int, "Most IOs in flight (iogen --queue-depth, fio iodepth)"],
  service_ms_avg: ["service avg ms", F.ms, "Mean service time: completion − launch (fio: clat)"],
  service_ms_p99: ["service p99 ms", F.ms, "99th percentile of the service time"],
  response_ms_avg: ["response avg ms", F.ms, "Mean response time: completion − scheduled time (fio: lat, from issue)"],
  response_ms_p99: ["response p99 ms", F.ms, "99th percentile of the response time"],
  avg_in_flight: ["avg in flight", F.ratio, "Time-average of IOs in flight"],
  late_ios: ["late IOs", F.int, "IOs that waited for a free queue slot (iogen)"],
  iogen_lag_ms_avg: [
    "iogen lag avg ms",
    F.ms,
    "iogen's own launch lag (launch − scheduled) of the IOs that found a free slot: generator lateness, in every response time",
  ],
  iogen_lag_ms_p99: ["iogen lag p99 ms", F.ms, "99th percentile of iogen's own launch lag"],
  errors: ["IO errors", F.int, "IO errors counted"],
  cpu_busy_pct: ["CPU busy %", F.pct, "Host CPU busy % over all cores (/proc/stat)"],
  cpu_cores: ["CPU cores", F.int, "Host CPU count"],
  tool_cpu_pct: ["tool CPU %", F.pct, "The load generator's own CPU, % of one CPU (iogen getrusage; fio usr+sys)"],
};

/** Label columns that bookkeep a plan rather than describe the workload. */
export const BOOKKEEPING_LABELS = new Set([
  "run",
  "stdorder",
  "std_order",
  "replicate",
  "block",
  "blocks",
  "runorder",
  "run_order",
]);

/** The interval columns of a step metric: low and high ends from the step's answer. */
function intervalColumns(
  key: string,
  what: string,
  how: string,
  get: (a: StepAnswer) => [number, number] | null,
  answers: Map<LabStep, StepAnswer>,
): ColumnSpec<LabStep>[] {
  return (["low", "high"] as const).map((end, i) => ({
    key: `${key}_${end === "low" ? "lo" : "hi"}`,
    header: `${what} 95 % ${end} ms`,
    numFmt: F.ms,
    description: `${end === "low" ? "Lower" : "Upper"} end of the 95 % confidence interval of the ${what}: ${how}`,
    get: (s: LabStep) => {
      const a = answers.get(s);
      const ci = a ? get(a) : null;
      return ci ? num(ci[i]) : null;
    },
  }));
}

/** Which step: source, host, step, name, category and the input's labels. */
function identityColumns(data: LabData): ColumnSpec<LabStep>[] {
  const cols: ColumnSpec<LabStep>[] = [
    { key: "source", header: "source", numFmt: F.text, get: (s) => s.source, keep: true, description: "Input file" },
    { key: "host", header: "host", numFmt: F.text, get: (s) => s.host },
    {
      key: "step",
      header: "step",
      numFmt: F.text,
      get: (s) => s.step,
      keep: true,
      description: "iogen step number or fio job name",
    },
    { key: "step_name", header: "step name", numFmt: F.text, get: (s) => (s.stepName === s.step ? "" : s.stepName) },
    { key: "category", header: "category", numFmt: F.text, get: (s) => s.category, keep: true },
  ];
  for (const l of data.labelColumns) {
    cols.push({
      key: `label:${l}`,
      header: l,
      numFmt: F.text,
      get: (s) => s.labels[l] ?? "",
      description: "Label from the input",
    });
  }
  return cols;
}

/** A step metric's column, with its header, format and description. */
function metric(m: StepMetric, keep = false): ColumnSpec<LabStep> {
  const [header, numFmt, description] = METRIC_HEADERS[m] ?? [m, F.ratio, m];
  return { key: m, header, numFmt, description, get: (s) => num(s.values[m]), keep };
}

/** The step's metrics in the sheet's order, the response times with their 95 % intervals. */
function metricColumns(answers: Map<LabStep, StepAnswer>): ColumnSpec<LabStep>[] {
  return [
    metric("block_size"),
    metric("read_pct"),
    metric("random_pct"),
    metric("queue_depth"),
    metric("target_iops"),
    metric("iops", true),
    metric("mb_s"),
    metric("service_ms_avg"),
    metric("service_ms_p99"),
    metric("response_ms_avg"),
    ...intervalColumns(
      "response_ms_avg",
      "response avg",
      "batch means over the measured subintervals, IO-weighted (docs/analysis.md)",
      (a) => a.responseMsMeanCi95,
      answers,
    ),
    metric("response_ms_p99"),
    ...intervalColumns(
      "response_ms_p99",
      "response p99",
      "centred on the step's p99, with the spread of the per-subinterval p99s over batches (sectioning; docs/analysis.md)",
      (a) => a.responseMsP99Ci95,
      answers,
    ),
    metric("avg_in_flight"),
    metric("late_ios"),
    metric("iogen_lag_ms_avg"),
    metric("iogen_lag_ms_p99"),
    metric("errors"),
    metric("cpu_busy_pct"),
    metric("cpu_cores"),
    metric("tool_cpu_pct"),
  ];
}

/** The measure window, the steady state (who judged it, where it begins) and the step's warnings. */
function windowColumns(answers: Map<LabStep, StepAnswer>): ColumnSpec<LabStep>[] {
  return [
    {
      key: "window",
      header: "measure window",
      numFmt: F.text,
      description: "Measure-phase subintervals used (warm-up excluded)",
      get: (s) => (s.window ? `${s.window.first}–${s.window.last}` : ""),
    },
    {
      key: "warmup",
      header: "warm-up excluded",
      numFmt: F.int,
      description: "Warm-up subintervals left out",
      get: (s) => (s.window ? s.window.warmupSubintervals : null),
    },
    {
      key: "measure_s",
      header: "measure s",
      numFmt: "0.0",
      description: "Seconds measured",
      get: (s) => num(s.window ? s.window.seconds : s.values.measure_seconds),
    },
    {
      key: "steady_from",
      header: "steady from",
      numFmt: F.int,
      description:
        "Measured subinterval where steady state begins (iogen's steady_from, or SEEN_ENOUGH re-computed here; see steady-state basis); the window ends at the last",
      get: (s) => s.steady?.from ?? null,
    },
    {
      key: "steady_n",
      header: "steady n",
      numFmt: F.int,
      description: "Measured subintervals in the steady-state window",
      get: (s) => s.steady?.subintervals ?? null,
    },
    {
      key: "steady_iops",
      header: "steady mean IOPS",
      numFmt: F.iops,
      description: "Mean IOPS over the steady-state window (iogen: its summary row, which covers that window only)",
      get: (s) => num(s.steady?.meanIops),
    },
    {
      key: "steady",
      header: "steady state",
      numFmt: F.text,
      description:
        "yes: found; never reached: the rule never held (a warning on the Summary when iogen says so); not judged: iogen ran without --seen-enough or without its transient check",
      get: (s) =>
        s.steady ? (s.steady.reached === null ? "not judged" : s.steady.reached ? "yes" : "never reached") : "",
    },
    {
      key: "se_pm",
      header: "re-computed achieved ±",
      numFmt: "0.00%",
      description:
        "SEEN_ENOUGH's achieved relative half-width on IOPS over the re-computed window (only when iogen's CSV has no steady_from)",
      get: (s) => num(s.steady?.basis === "recomputed" && s.window?.seenEnough ? s.window.seenEnough.achieved : null),
    },
    {
      key: "steady_basis",
      header: "steady-state basis",
      numFmt: F.text,
      description:
        "Who judged the steady state: iogen (summary CSV schema 3: steady_from, seen_enough) or SEEN_ENOUGH re-computed here",
      get: (s) => s.steady?.note ?? "",
    },
    {
      key: "iogen_se",
      header: "iogen seen_enough",
      numFmt: F.text,
      description: "iogen's own decision from the summary CSV: yes, no, or off (fixed duration)",
      get: (s) => s.seenEnoughFlag,
    },
    {
      key: "iogen_pm",
      header: "iogen achieved ±",
      numFmt: "0.00%",
      description: "iogen's achieved_pm from the summary CSV (a fraction)",
      get: (s) => num(s.values.achieved_pm),
    },
    { key: "basis", header: "basis", numFmt: F.text, get: (s) => s.basis, description: "summary, subintervals or fio" },
    {
      key: "warnings",
      header: "warnings",
      numFmt: F.int,
      description: "Measurement-quality warnings about this step, listed on the Summary sheet",
      get: (s) => (answers.has(s) ? (answers.get(s) as StepAnswer).warnings.length : null),
    },
  ];
}

function stepColumns(data: LabData, answers: Map<LabStep, StepAnswer> = new Map()): ColumnSpec<LabStep>[] {
  return [...identityColumns(data), ...metricColumns(answers), ...windowColumns(answers)];
}

/** The Steps sheet's line on where the steady-state windows come from, by how many steps each. */
export function steadyNote(main: readonly LabStep[]): string {
  const iogen = main.filter((s) => s.steady?.basis === "iogen").length;
  const here = main.filter((s) => s.steady?.basis === "recomputed").length;
  const never = main.filter((s) => s.steady?.basis === "iogen" && s.steady.reached === false).length;
  const parts: string[] = [];
  if (iogen > 0)
    parts.push(
      `iogen's own judgement (summary CSV steady_from and seen_enough) for ${iogen} step${iogen === 1 ? "" : "s"}${never > 0 ? `, ${never} of which never reached steady state` : ""}`,
    );
  if (here > 0)
    parts.push(
      `SEEN_ENOUGH re-computed here (±5 % at 95 % on the measured IOPS) for ${here} step${here === 1 ? "" : "s"} whose CSV does not say (no steady_from column: iogen before CSV schema 3, or no summary CSV)`,
    );
  return parts.length > 0
    ? `Steady state: ${parts.join("; ")}.`
    : "Steady state: not known (no iogen subinterval or schema-3 summary data).";
}

/**
 * The Steps sheet: one row per step in `main`.
 *
 * @returns the sheet and its table (other sheets' formulas refer to its cells)
 */
export function stepsSheet(
  data: LabData,
  main: LabStep[],
  answers: StepAnswer[],
): { sheet: SheetPlan; table: TablePlan } {
  const steps = new SheetBuilder("Steps", [
    "One row per step and host (iogen: category overall; fio: one row per job and direction with IO).",
    "Measure window: measure-phase subintervals, warm-up excluded. " + steadyNote(main),
    "Response-time intervals (95 %): batch means over the steady-state window's subintervals (at least 10); the p99's is centred on the step's p99 with the spread of the per-subinterval p99s. The warnings column counts the step's warnings on the Summary.",
  ]);
  const table = steps.table("Steps", stepColumns(data, new Map(answers.map((a) => [a.step, a]))), main);
  return { sheet: steps.sheet(), table };
}

/** The Categories sheet (iogen read/write rows), or null when there are none. */
export function categoriesSheet(data: LabData, categories: LabStep[]): SheetPlan | null {
  if (categories.length === 0) return null;
  const cat = new SheetBuilder("Categories", [
    "iogen's read and write rows of each step (the Steps sheet shows the overall rows).",
  ]);
  cat.table("Categories", stepColumns(data), categories);
  return cat.sheet();
}
