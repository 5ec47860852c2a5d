/**
 * The Steps sheet (one row per step and host, overall category; fio: per job and direction) and
 * the Categories sheet (iogen's read and write rows), which share the Steps columns.
 */
import { LabData, LabStep, StepMetric } from "./lab-data";
import { StepAnswer } from "./lab-quality";
import { SheetPlan, TablePlan } from "./plan";
import { ColumnSpec, F, num, SheetBuilder } from "./sheet-builder";

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

function stepColumns(data: LabData, answers: Map<LabStep, StepAnswer> = new Map()): ColumnSpec<LabStep>[] {
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
  const metric = (m: StepMetric, keep = false): ColumnSpec<LabStep> => {
    const [header, numFmt, description] = METRIC_HEADERS[m] ?? [m, F.ratio, m];
    return { key: m, header, numFmt, description, get: (s) => num(s.values[m]), keep };
  };
  cols.push(
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
      key: "se_from",
      header: "seen-enough from",
      numFmt: F.int,
      description:
        "First subinterval of the window SEEN_ENOUGH accepts (±5 % at 95 % on IOPS); the window ends at the last",
      get: (s) => (s.window?.seenEnough ? s.window.seenEnough.fromSubinterval : null),
    },
    {
      key: "se_n",
      header: "seen-enough n",
      numFmt: F.int,
      description: "Subintervals in that window",
      get: (s) => (s.window?.seenEnough ? s.window.seenEnough.samples : null),
    },
    {
      key: "se_pm",
      header: "achieved ±",
      numFmt: "0.00%",
      description: "Relative half-width of the IOPS confidence interval over that window (SEEN_ENOUGH's achieved)",
      get: (s) => num(s.window?.seenEnough ? s.window.seenEnough.achieved : null),
    },
    {
      key: "se_ok",
      header: "seen enough",
      numFmt: F.text,
      description: "yes: a window reached ±5 % at 95 %; no: none did (the ar1 method needs at least 30 subintervals)",
      get: (s) => (s.window?.seenEnough ? (s.window.seenEnough.accepted ? "yes" : "no") : ""),
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
  );
  return cols;
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
    "Measure window: measure-phase subintervals, warm-up excluded. Seen-enough: the window SEEN_ENOUGH accepts on the IOPS series (±5 % at 95 %).",
    "Response-time intervals (95 %): batch means over the measured subintervals (at least 10); the p99's is centred on the step's p99 with the spread of the per-subinterval p99s. The warnings column counts the step's warnings on the Summary.",
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
