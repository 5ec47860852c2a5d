/**
 * The lab analysis workbook: from imported iogen/fio results to a {@link WorkbookPlan}
 * (`docs/analysis.md` documents every sheet and column).
 *
 * Sheets: `Summary` (what is where, sources, headline figures, warnings), `Steps` (one row per
 * step × host, overall category; fio: per job × direction), `Model` (utilization law, Little's law,
 * saturation, M/M/c), `Fit` (DOE_FIT of the response on the two-level factors, when there are at
 * least two), `Subintervals` (the time series), `Categories` (iogen read/write rows, when present).
 *
 * The numbers come from the core (`mmcMetrics`, `doeFit`, `seenEnough`) — nothing is computed
 * twice. Live formulas are used only where a reader may want to edit an input (busy cores, D,
 * X_max, X·R); each carries the value the analysis computed.
 */
import { DomainError, isDomainError } from "../core/errors";
import { mmcMetrics } from "../core/mmc";
import { leastSquares } from "../core/least-squares";
import { doeFit } from "../core/doe-fit";
import { LabFileResult } from "../import/detect";
import { formatProblem } from "../import/types";
import { DOE_FIT } from "../functions/functions";
import { IogenNumericColumn } from "../import/iogen-csv";
import { collectLabData, LabData, LabStep, STEP_METRICS, StepMetric, SubintervalColumns } from "./lab-data";
import {
  AddinFormulaCell,
  CellValue,
  ChartPlan,
  ColumnData,
  ColumnPlan,
  ErrorCell,
  FormulaCell,
  isAddinFormulaCell,
  isFormulaCell,
  SeriesPlan,
  SheetPlan,
  TablePlan,
  WorkbookPlan,
} from "./plan";

export interface LabPlanOptions {
  /** The DoE response column (an iogen metric name or a numeric label), default `cpu_busy_pct`. */
  response?: string;
  /** Workbook title. */
  title?: string;
  /** Most subinterval rows written to the Subintervals sheet (Excel holds 1,048,576 rows). */
  maxSubintervalRows?: number;
}

export const DEFAULT_RESPONSE = "cpu_busy_pct";
/** Sheet names, in workbook order (Fit and Categories only when they have content). */
export const LAB_SHEETS = ["Summary", "Steps", "Model", "Fit", "Subintervals", "Categories"] as const;

// ---------------------------------------------------------------------------------------------
// Layout helpers

/** Column letters of a 0-based column index (0 → A, 26 → AA). */
export function columnLetter(col: number): string {
  let s = "";
  let n = col + 1;
  while (n > 0) {
    const r = (n - 1) % 26;
    s = String.fromCharCode(65 + r) + s;
    n = Math.floor((n - 1) / 26);
  }
  return s;
}

interface ColumnSpec<T> extends ColumnPlan {
  key: string;
  get: (row: T, ref: (key: string) => string) => CellValue;
  /** Keep the column even when every value is empty. */
  keep?: boolean;
}

/** Builds one sheet, stacking tables below the notes with one blank row between blocks. */
class SheetBuilder {
  readonly tables: TablePlan[] = [];
  readonly charts: ChartPlan[] = [];
  private nextRow: number;

  constructor(
    readonly name: string,
    readonly notes: string[],
  ) {
    this.nextRow = notes.length > 0 ? notes.length + 1 : 0;
  }

  /** Adds a table; `get` receives `ref(key)`, the A1 address of another column in the same row. */
  table<T>(name: string, specs: ColumnSpec<T>[], items: readonly T[], arrayFormula?: string): TablePlan {
    const at = { row: this.nextRow, col: 0 };
    const present = specs.filter((c) => c.keep || items.some((it) => !isEmpty(c.get(it, () => "A1"))));
    const index = new Map(present.map((c, i) => [c.key, i] as const));
    const rows = items.map((it, i) => {
      const excelRow = at.row + 2 + i; // 1-based: header at at.row + 1
      const ref = (k: string): string => {
        const c = index.get(k);
        if (c === undefined) throw new Error(`internal: column ${k} not in table ${name}`);
        return `${columnLetter(at.col + c)}${excelRow}`;
      };
      return present.map((c) => c.get(it, ref));
    });
    const t: TablePlan = {
      name,
      columns: present.map(({ key, header, numFmt, width, description }) => ({
        key,
        header,
        numFmt,
        width,
        description,
      })),
      rows,
      at,
      ...(arrayFormula !== undefined ? { arrayFormula } : {}),
    };
    this.tables.push(t);
    this.nextRow += rows.length + 3;
    return t;
  }

  /**
   * Adds a table stored column by column ({@link ColumnarRows}): no row arrays are built. Columns
   * whose every value is empty are dropped unless `keep`; `data` is called once per column.
   */
  columnarTable(name: string, specs: ColumnarSpec[], length: number): TablePlan {
    const at = { row: this.nextRow, col: 0 };
    const present: { spec: ColumnarSpec; data: ColumnData }[] = [];
    for (const spec of specs) {
      const data = spec.data();
      if (spec.keep || hasValue(data)) present.push({ spec, data });
    }
    const t: TablePlan = {
      name,
      columns: present.map(({ spec: { key, header, numFmt, width, description } }) => ({
        key,
        header,
        numFmt,
        width,
        description,
      })),
      rows: [],
      columnar: { length, data: present.map((p) => p.data) },
      at,
    };
    this.tables.push(t);
    this.nextRow += length + 3;
    return t;
  }

  sheet(freezeHeader = true): SheetPlan {
    return { name: this.name, notes: this.notes, tables: this.tables, charts: this.charts, freezeHeader };
  }
}

/** A column of a columnar table: its plan and its data (made when the table is built). */
interface ColumnarSpec extends ColumnPlan {
  key: string;
  data: () => ColumnData;
  keep?: boolean;
}

/** True when a column has a non-empty cell. */
function hasValue(d: ColumnData): boolean {
  if (d.kind === "number") return d.empty.length < d.values.length;
  const nonEmpty = d.texts.map((t) => t !== "");
  for (let i = 0; i < d.codes.length; i++) if (nonEmpty[d.codes[i]]) return true;
  return false;
}

function isEmpty(v: CellValue): boolean {
  return v === null || v === "" || ((isFormulaCell(v) || isAddinFormulaCell(v)) && v.result === null);
}

const num = (v: number | null | undefined): CellValue =>
  v === null || v === undefined || !Number.isFinite(v) ? null : v;

function formula(f: string, result: number | null): FormulaCell | null {
  return result === null || !Number.isFinite(result) ? null : { formula: f, result };
}

const NUM: ErrorCell = { error: "#NUM!" };

// ---------------------------------------------------------------------------------------------
// Formats

const F = {
  int: "#,##0",
  iops: "#,##0.0",
  ms: "0.0000",
  pct: "0.0",
  mbs: "#,##0.00",
  ratio: "0.000",
  d: "0.000000",
  stat: "0.0000",
  p: "0.0000",
  text: "@",
};

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

// ---------------------------------------------------------------------------------------------
// Steps

/** Label columns that bookkeep a plan rather than describe the workload. */
const BOOKKEEPING_LABELS = new Set([
  "run",
  "stdorder",
  "std_order",
  "replicate",
  "block",
  "blocks",
  "runorder",
  "run_order",
]);

function stepColumns(data: LabData): ColumnSpec<LabStep>[] {
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
    metric("response_ms_p99"),
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
  );
  return cols;
}

// ---------------------------------------------------------------------------------------------
// Model

interface ModelRow {
  step: LabStep;
  /** CPU utilization basis: "host" (cpu_busy_pct × cores) or "tool" (the generator's CPU). */
  basis: "host" | "tool" | null;
  busyPct: number | null;
  cores: number | null;
  busyCores: number | null;
  dMs: number | null;
  xMax: number | null;
  xr: number | null;
  xs: number | null;
  mmc: { c: number; sMs: number; rho: number; predicted: number | null; note: string } | null;
}

function modelRow(s: LabStep): ModelRow {
  const x = s.values.iops;
  let basis: ModelRow["basis"] = null;
  let busyPct: number | null = null;
  let cores: number | null = null;
  if (s.values.cpu_busy_pct !== null && s.values.cpu_cores !== null && s.values.cpu_cores > 0) {
    basis = "host";
    busyPct = s.values.cpu_busy_pct;
    cores = s.values.cpu_cores;
  } else if (s.values.tool_cpu_pct !== null) {
    basis = "tool";
    busyPct = s.values.tool_cpu_pct; // % of one CPU
    cores = 1;
  }
  const busyCores = busyPct !== null && cores !== null ? (busyPct / 100) * cores : null;
  const dMs = busyCores !== null && x !== null && x > 0 ? (busyCores / x) * 1000 : null;
  const xMax = dMs !== null && dMs > 0 && cores !== null ? cores / (dMs / 1000) : null;
  const r = s.values.response_ms_avg;
  const sv = s.values.service_ms_avg;
  const xr = x !== null && r !== null ? (x * r) / 1000 : null;
  const xs = x !== null && sv !== null ? (x * sv) / 1000 : null;
  let mmc: ModelRow["mmc"] = null;
  const c = s.values.queue_depth;
  if (c !== null && sv !== null && x !== null && sv > 0 && x > 0 && Number.isInteger(c) && c >= 1) {
    const rho = (x * (sv / 1000)) / c;
    try {
      const m = mmcMetrics(c, sv / 1000, x);
      mmc = { c, sMs: sv, rho, predicted: m.meanResponse * 1000, note: "" };
    } catch (e) {
      if (!isDomainError(e)) throw e;
      mmc = { c, sMs: sv, rho, predicted: null, note: `no steady state: ${e.message}` };
    }
  }
  return { step: s, basis, busyPct, cores, busyCores, dMs, xMax, xr, xs, mmc };
}

function modelColumns(): ColumnSpec<ModelRow>[] {
  return [
    { key: "source", header: "source", numFmt: F.text, get: (m) => m.step.source, keep: true },
    { key: "host", header: "host", numFmt: F.text, get: (m) => m.step.host },
    { key: "step", header: "step", numFmt: F.text, get: (m) => m.step.step, keep: true },
    { key: "category", header: "category", numFmt: F.text, get: (m) => m.step.category, keep: true },
    {
      key: "x",
      header: "X IOPS",
      numFmt: F.iops,
      get: (m) => num(m.step.values.iops),
      keep: true,
      description: "Throughput X",
    },
    {
      key: "basis",
      header: "CPU basis",
      numFmt: F.text,
      description:
        "host: CPU busy % × cores from /proc/stat; tool: the load generator's own CPU (fio usr+sys), one CPU",
      get: (m) => m.basis ?? "",
    },
    {
      key: "busy",
      header: "CPU %",
      numFmt: F.pct,
      get: (m) => num(m.busyPct),
      description: "Busy % (host: of all cores; tool: of one CPU)",
    },
    { key: "cores", header: "cores", numFmt: F.int, get: (m) => num(m.cores), description: "CPUs the % refers to" },
    {
      key: "u",
      header: "U busy cores",
      numFmt: F.ratio,
      description: "Utilization in cores: CPU % / 100 × cores",
      get: (m, ref) => formula(`${ref("busy")}/100*${ref("cores")}`, m.busyCores),
    },
    {
      key: "d",
      header: "D CPU-ms per IO",
      numFmt: F.d,
      description:
        "Utilization law D = U / X, in CPU-milliseconds per IO — numerically the same as cores per 1000 IOPS",
      get: (m, ref) => formula(`${ref("u")}/${ref("x")}*1000`, m.dMs),
    },
    {
      key: "d_us",
      header: "D CPU-µs per IO",
      numFmt: "0.00",
      description: "The same D in CPU-microseconds per IO",
      get: (m, ref) => formula(`${ref("d")}*1000`, m.dMs === null ? null : m.dMs * 1000),
    },
    {
      key: "xmax",
      header: "X_max IOPS",
      numFmt: F.iops,
      description:
        "Saturation estimate X_max = cores / D: the IOPS at which the CPUs would be 100 % busy at this step's D",
      get: (m, ref) => formula(`${ref("cores")}/(${ref("d")}/1000)`, m.xMax),
    },
    {
      key: "r",
      header: "R avg ms",
      numFmt: F.ms,
      get: (m) => num(m.step.values.response_ms_avg),
      description: "Measured mean response time",
    },
    {
      key: "s",
      header: "S avg ms",
      numFmt: F.ms,
      get: (m) => num(m.step.values.service_ms_avg),
      description: "Measured mean service time",
    },
    {
      key: "xr",
      header: "X·R in system",
      numFmt: F.ratio,
      description: "Little's law: mean IOs in the system (queued for a slot + in service) = X × R",
      get: (m, ref) => formula(`${ref("x")}*${ref("r")}/1000`, m.xr),
    },
    {
      key: "xs",
      header: "X·S in service",
      numFmt: F.ratio,
      description: "Little's law on the service part: mean IOs launched and not yet complete = X × S",
      get: (m, ref) => formula(`${ref("x")}*${ref("s")}/1000`, m.xs),
    },
    {
      key: "inflight",
      header: "avg in flight",
      numFmt: F.ratio,
      description: "Measured time-average of IOs in flight",
      get: (m) => num(m.step.values.avg_in_flight),
    },
    {
      key: "little",
      header: "in flight ÷ X·S",
      numFmt: F.ratio,
      description: "Little's law check: close to 1 when the measured in-flight average agrees with X × S",
      get: (m, ref) => {
        const n = m.step.values.avg_in_flight;
        return formula(`${ref("inflight")}/${ref("xs")}`, n !== null && m.xs !== null && m.xs > 0 ? n / m.xs : null);
      },
    },
    {
      key: "waiting",
      header: "X·R − in flight",
      numFmt: F.ratio,
      description:
        "Mean IOs waiting for a free slot (Little's law on the wait): X·R counts every IO from its scheduled time, the in-flight average only launched ones",
      get: (m, ref) => {
        const n = m.step.values.avg_in_flight;
        return formula(`${ref("xr")}-${ref("inflight")}`, n !== null && m.xr !== null ? m.xr - n : null);
      },
    },
    {
      key: "c",
      header: "M/M/c c",
      numFmt: F.int,
      get: (m) => num(m.mmc?.c),
      description: "Servers c = queue depth (IO slots)",
    },
    {
      key: "rho",
      header: "ρ = X·S/c",
      numFmt: F.ratio,
      description: "Slot utilization",
      get: (m) => num(m.mmc?.rho),
    },
    {
      key: "pred",
      header: "M/M/c R ms",
      numFmt: F.ms,
      description: "Predicted mean response of an M/M/c queue with c = queue depth, S = measured service avg, λ = X",
      get: (m, ref): CellValue => {
        if (m.mmc === null) return null;
        if (m.mmc.predicted === null) return NUM;
        // Live in Excel: the add-in's MMC_RESPONSE on this row's c, S (s) and X (IOPS).
        const cell: AddinFormulaCell = {
          addinFormula: `CAPLAB.MMC_RESPONSE(${ref("c")},${ref("s")}/1000,${ref("x")})*1000`,
          result: m.mmc.predicted,
        };
        return cell;
      },
    },
    {
      key: "ratio",
      header: "measured ÷ M/M/c",
      numFmt: F.ratio,
      description: "Measured R over predicted R (1 = the model explains the response time)",
      get: (m) => {
        const p = m.mmc?.predicted ?? null;
        const r = m.step.values.response_ms_avg;
        return p !== null && r !== null && p > 0 ? r / p : null;
      },
    },
    { key: "note", header: "model note", numFmt: F.text, get: (m) => m.mmc?.note ?? "" },
  ];
}

interface CpuLine {
  basis: "host" | "tool";
  slope: number; // CPU % per IOPS
  intercept: number; // CPU % at 0 IOPS (background)
  r2: number;
  cores: number;
  n: number;
}

/** Least-squares line CPU % = a + b·IOPS over the steps sharing one CPU basis and core count. */
function cpuLine(rows: ModelRow[]): CpuLine | null {
  const usable = rows.filter((m) => m.basis !== null && m.busyPct !== null && m.step.values.iops !== null);
  if (usable.length < 2) return null;
  const basis = usable[0].basis as "host" | "tool";
  const cores = usable[0].cores as number;
  const same = usable.filter((m) => m.basis === basis && m.cores === cores);
  const pts = same.map((m) => [m.step.values.iops as number, m.busyPct as number]);
  const xs = new Set(pts.map((p) => p[0]));
  if (xs.size < 2) return null;
  // Householder QR of [1, IOPS] (the core's solver, as R's lm): coefficients and residual sum of squares.
  const y = pts.map((p) => p[1]);
  const fit = leastSquares([pts.map(() => 1), pts.map((p) => p[0])], y);
  const [b, m] = fit.coefficients;
  if (b === null || m === null) return null;
  const mean = y.reduce((sum, v) => sum + v, 0) / y.length;
  const ssTot = y.reduce((sum, v) => sum + (v - mean) ** 2, 0);
  return { basis, slope: m, intercept: b, r2: ssTot > 0 ? 1 - fit.rss / ssTot : 1, cores, n: pts.length };
}

// ---------------------------------------------------------------------------------------------
// Fit

interface FactorInfo {
  name: string;
  /** The factor's column key in the Steps table. */
  key: string;
  levels: (number | string)[];
  get: (s: LabStep) => number | string | null;
}

const FACTOR_METRICS: StepMetric[] = ["block_size", "read_pct", "random_pct", "queue_depth", "target_iops"];

/** Factors that take exactly two levels over the steps (numbers stay numbers, labels stay text). */
function twoLevelFactors(
  steps: LabStep[],
  labelColumns: string[],
  response: string,
): { two: FactorInfo[]; more: string[] } {
  const candidates: FactorInfo[] = [];
  for (const m of FACTOR_METRICS)
    if (m !== response) candidates.push({ name: m, key: m, levels: [], get: (s) => s.values[m] });
  for (const l of labelColumns) {
    if (BOOKKEEPING_LABELS.has(l.toLowerCase()) || l === "job" || l === response) continue;
    candidates.push({
      name: l,
      key: `label:${l}`,
      levels: [],
      get: (s) => {
        const t = s.labels[l];
        if (t === undefined || t.trim() === "") return null;
        const n = Number(t);
        return Number.isFinite(n) && t.trim() !== "" ? n : t;
      },
    });
  }
  const two: FactorInfo[] = [];
  const more: string[] = [];
  for (const c of candidates) {
    const vals = steps.map(c.get);
    if (vals.some((v) => v === null)) continue;
    const levels = [...new Set(vals.map((v) => String(v)))];
    if (levels.length === 2) {
      const typed = levels.map((l) => (typeof vals[0] === "number" ? Number(l) : l));
      typed.sort((a, b) =>
        typeof a === "number" && typeof b === "number" ? a - b : String(a).localeCompare(String(b)),
      );
      two.push({ ...c, levels: typed });
    } else if (levels.length > 2) more.push(c.name);
  }
  // target_iops and a label derived from it are the same factor: keep the first of identical columns.
  const unique: FactorInfo[] = [];
  for (const f of two) {
    const sig = steps.map((s) => String(f.get(s) === f.levels[0])).join();
    if (!unique.some((u) => steps.map((s) => String(u.get(s) === u.levels[0])).join() === sig)) unique.push(f);
  }
  return { two: unique, more };
}

function responseValue(s: LabStep, response: string): number | null {
  if ((STEP_METRICS as readonly string[]).includes(response)) return s.values[response as StepMetric];
  const t = s.labels[response];
  if (t === undefined || t.trim() === "") return null;
  const n = Number(t.replace(",", "."));
  return Number.isFinite(n) ? n : null;
}

/** A1 reference to a cell of the Steps table from another sheet, or null when it has no such column. */
type StepsRef = (row: number, key: string) => string | null;

function stepsRefOf(sheetName: string, steps: TablePlan): StepsRef {
  return (row, key) => {
    const c = steps.columns.findIndex((col) => col.key === key);
    if (c < 0 || !steps.at) return null;
    return `'${sheetName}'!${columnLetter(steps.at.col + c)}${steps.at.row + 2 + row}`;
  };
}

/** The DOE_FIT array as plan cells (an error in the array becomes an ErrorCell with its code). */
function arrayCells(out: Array<Array<string | number | Error>>): CellValue[][] {
  return out.map((row) =>
    row.map((v): CellValue => {
      if (!(v instanceof Error) && typeof v !== "object") return v;
      const code = (v as { code?: unknown }).code;
      return { error: code === "#N/A" || code === "#NUM!" || code === "#DIV/0!" ? code : "#VALUE!" };
    }),
  );
}

/**
 * The Fit tables of one response: `FitData_<suffix>` (the factor and response columns, each cell a
 * live reference to the Steps table, so editing Steps re-fits) and `Fit_<suffix>`, the array
 * `CAPLAB.DOE_FIT` returns over them — computed here by the worksheet function itself, so the
 * headless renderers show exactly what the live formula shows.
 */
function fitTables(
  sb: SheetBuilder,
  steps: LabStep[],
  factors: FactorInfo[],
  response: string,
  tableSuffix: string,
  stepsRef: StepsRef,
): string {
  const ys = steps.map((s) => responseValue(s, response));
  if (ys.some((y) => y === null)) return `${response}: not available for every step, no fit.`;
  const k = factors.length;
  const n = steps.length;
  // Main effects and two-factor interactions when the rows allow it (with zero residual df DOE_FIT
  // takes significance from Lenth's PSE), else main effects only.
  const order = n >= 1 + k + (k * (k - 1)) / 2 ? 2 : 1;
  let fit;
  try {
    fit = doeFit(
      factors.map((f) => f.name),
      factors.map((f) => steps.map((s) => f.get(s) as number | string)),
      ys as number[],
      { order },
    );
  } catch (e) {
    if (!isDomainError(e)) throw e;
    return `${response}: DOE_FIT failed: ${e.message}`;
  }
  const responseKey = (STEP_METRICS as readonly string[]).includes(response) ? response : `label:${response}`;
  const live = (i: number, key: string, value: number | string): CellValue => {
    const ref = stepsRef(i, key);
    if (ref === null) return value;
    // A numeric level read from a text label column: VALUE() so DOE_FIT codes it as a number.
    const text = key.startsWith("label:") && typeof value === "number";
    return { formula: text ? `VALUE(${ref})` : ref, result: value };
  };
  const dataSpecs: ColumnSpec<number>[] = [
    ...factors.map((f, j): ColumnSpec<number> => ({
      key: `factor_${j + 1}`,
      header: f.name,
      numFmt: "General",
      keep: true,
      get: (i) => live(i, f.key, f.get(steps[i]) as number | string),
    })),
    {
      key: "response",
      header: response,
      numFmt: "General",
      keep: true,
      get: (i) => live(i, responseKey, ys[i] as number),
    },
  ];
  const data = sb.table(
    `FitData_${tableSuffix}`,
    dataSpecs,
    steps.map((_, i) => i),
  );
  const at = data.at as { row: number; col: number };
  const first = at.row + 1;
  const last = at.row + 1 + n;
  const factorRange = `${columnLetter(at.col)}${first}:${columnLetter(at.col + k - 1)}${last}`;
  const responseRange = `${columnLetter(at.col + k)}${first}:${columnLetter(at.col + k)}${last}`;
  const header = [factors.map((f) => f.name)];
  const array = arrayCells(
    DOE_FIT(
      [...header, ...steps.map((s) => factors.map((f) => f.get(s) as number | string))],
      [[response], ...ys.map((y) => [y as number])],
      order,
    ),
  );
  const keys = ["term", "estimate", "std_error", "t_value", "p_value"];
  const formats = [F.text, "General", "General", "0.000", "0.00E+00"];
  sb.table(
    `Fit_${tableSuffix}`,
    array[0].map((h, j): ColumnSpec<CellValue[]> => ({
      key: keys[j],
      header: String(h),
      numFmt: formats[j],
      keep: true,
      get: (row) => row[j] ?? null,
    })),
    array.slice(1),
    `CAPLAB.DOE_FIT(${factorRange},${responseRange},${order})`,
  );
  const significance =
    fit.significanceFrom === "lenth" ? " (no residual df: significance from Lenth's pseudo standard error)" : "";
  return `${response}: ${order === 2 ? "main effects and two-factor interactions" : "main effects"}, ${fit.observations} observations, R² = ${fmt(fit.rSquared, 4)}${significance}.`;
}

function fmt(x: number | null | undefined, digits = 3): string {
  return x === null || x === undefined || !Number.isFinite(x) ? "n/a" : Number(x.toPrecision(digits)).toString();
}

// ---------------------------------------------------------------------------------------------
// Charts

function byX(points: [number, number][]): [number[], number[]] {
  const sorted = [...points].sort((a, b) => a[0] - b[0]);
  return [sorted.map((p) => p[0]), sorted.map((p) => p[1])];
}

function series(name: string, pts: [number, number][], style: SeriesPlan["style"]): SeriesPlan {
  const [x, y] = byX(pts);
  return { name, x, y, style };
}

const MAX_SERIES = 24;

/**
 * The M/M/c response curve R(X) for the steps' common queue depth c and the service time S of the
 * lightest-loaded step (what the model predicts if the service time stayed as at low load), from
 * X = 0 to 1.25 × the largest measured X, stopping at ρ = 0.95. None when the queue depth differs
 * between steps or is unknown.
 */
function mmcCurve(rows: ModelRow[]): SeriesPlan[] {
  const usable = rows.filter((m) => m.mmc !== null && m.step.values.iops !== null);
  if (usable.length === 0) return [];
  const c = usable[0].mmc!.c;
  if (usable.some((m) => m.mmc!.c !== c)) return [];
  const lightest = usable.reduce((a, b) => ((a.step.values.iops as number) <= (b.step.values.iops as number) ? a : b));
  const sMs = lightest.mmc!.sMs;
  const xEnd = Math.min(1.25 * Math.max(...usable.map((m) => m.step.values.iops as number)), (0.95 * c) / (sMs / 1000));
  const x: number[] = [];
  const y: number[] = [];
  const points = 40;
  for (let i = 1; i <= points; i++) {
    const lambda = (xEnd * i) / points;
    x.push(lambda);
    y.push(mmcMetrics(c, sMs / 1000, lambda).meanResponse * 1000);
  }
  return [{ name: `M/M/${c} curve (S = ${fmt(sMs, 3)} ms)`, x, y, style: "line" }];
}

// ---------------------------------------------------------------------------------------------

/**
 * Builds the lab analysis workbook plan.
 *
 * @param inputs - readers' results (`readLabText` / `readLabStream`); any with errors makes this throw
 * @param options - `response`: the DoE response column (default `cpu_busy_pct`); `title`
 * @returns the plan (plain data, JSON-serialisable)
 * @throws DomainError naming the file when an input has errors or no steps; naming `response` when
 *   the response column does not exist in the data
 * @example
 * buildLabPlan([readLabText(csv, "s.csv")]).sheets.map((s) => s.name)
 * // => ["Summary", "Steps", "Model", "Subintervals"]
 */
export function buildLabPlan(inputs: readonly LabFileResult[], options: LabPlanOptions = {}): WorkbookPlan {
  for (const input of inputs) {
    if (input.errors.length > 0) throw new DomainError(input.file, input.errors.map(formatProblem).join("; "), "value");
  }
  if (inputs.length === 0) throw new DomainError("inputs", "no input files", "value");
  const data = collectLabData(inputs);
  if (data.steps.length === 0) throw new DomainError(inputs.map((i) => i.file).join(", "), "no steps found", "value");
  const explicitResponse = options.response !== undefined;
  let response = options.response ?? DEFAULT_RESPONSE;
  const knownColumns = [...STEP_METRICS, ...data.labelColumns];
  if (!knownColumns.includes(response) && response !== "iogen_cpu_pct") {
    throw new DomainError(
      "response",
      `unknown column '${response}'; choose one of ${knownColumns.join(", ")}`,
      "value",
    );
  }
  if (response === "iogen_cpu_pct") response = "tool_cpu_pct";

  const warnings = [...inputs.flatMap((i) => i.warnings.map(formatProblem)), ...data.warnings];
  const main = data.steps.filter((s) => s.category === "overall" || s.tool === "fio");
  const categories = data.steps.filter((s) => !(s.category === "overall" || s.tool === "fio"));

  // Steps
  const steps = new SheetBuilder("Steps", [
    "One row per step and host (iogen: category overall; fio: one row per job and direction with IO).",
    "Measure window: measure-phase subintervals, warm-up excluded. Seen-enough: the window SEEN_ENOUGH accepts on the IOPS series (±5 % at 95 %).",
  ]);
  const stepsTable = steps.table("Steps", stepColumns(data), main);

  // Model
  const rows = main.map(modelRow);
  const line = cpuLine(rows);
  const modelNotes = [
    "Utilization law: D = U / X (U in busy cores, X in IOPS). Saturation X_max = cores / D. Little's law: N = X·R.",
    "M/M/c: c = the step's queue depth (the IO slots arrivals queue for in an open-loop generator), S = the step's measured mean service time, λ = achieved IOPS. " +
      "It predicts the response time from slot queueing alone: measured ≫ predicted means burstier arrivals or service times than exponential (or closed-loop fio at full queue depth, where ρ ≈ 1).",
  ];
  let headline = "CPU cost: not enough steps with CPU figures and different IOPS for a fitted line.";
  if (line) {
    const basis = line.basis === "host" ? `host CPU, ${line.cores} cores` : "tool CPU, one CPU";
    const fitted = `Fitted CPU % = ${fmt(line.intercept, 4)} ${line.slope < 0 ? "−" : "+"} ${fmt(Math.abs(line.slope), 4)} × IOPS over ${line.n} steps (R² = ${fmt(line.r2, 4)}, ${basis})`;
    if (line.slope > 0) {
      const dMs = ((line.slope * 1000) / 100) * line.cores; // CPU-ms per IO = cores per 1000 IOPS
      const sat = (100 - line.intercept) / line.slope;
      headline =
        `CPU cost (fitted over ${line.n} steps, ${basis}): ${fmt(dMs, 4)} CPU-ms per IO (= cores per 1000 IOPS), ` +
        `background ${fmt(line.intercept, 3)} %; the CPU would saturate near ${fmt(sat, 4)} IOPS.`;
      modelNotes.push(
        `${fitted}: marginal D = ${fmt(dMs, 4)} CPU-ms per IO without the background; CPU saturation (100 %) at ${fmt(sat, 4)} IOPS. ` +
          "The per-step D below includes the background, so it overstates the cost per IO at low IOPS.",
      );
    } else {
      headline = `CPU cost: CPU does not rise with IOPS in these steps (${fitted}); other work dominates the CPU, so no marginal cost per IO can be estimated.`;
      modelNotes.push(
        `${fitted}: the CPU does not rise with IOPS, so other work dominates it; the per-step D and X_max below include that work.`,
      );
    }
  }
  const model = new SheetBuilder("Model", modelNotes);
  model.table("Model", modelColumns(), rows);
  const measured: [number, number][] = [];
  const predicted: [number, number][] = [];
  for (const m of rows) {
    const x = m.step.values.iops;
    const r = m.step.values.response_ms_avg;
    if (x !== null && r !== null) measured.push([x, r]);
    if (x !== null && m.mmc?.predicted != null) predicted.push([x, m.mmc.predicted]);
  }
  if (measured.length > 0) {
    model.charts.push({
      id: "response-vs-throughput",
      title: "Response time vs throughput",
      kind: "scatter",
      xTitle: "IOPS",
      yTitle: "mean response time (ms)",
      series: [
        series("measured", measured, "points"),
        ...(predicted.length > 0 ? [series("M/M/c per step", predicted, "points")] : []),
        ...mmcCurve(rows),
      ],
      source: { table: "Model", xColumn: "x", yColumns: ["r", "pred"] },
    });
  }
  const cpuPts: [number, number][] = rows
    .filter(
      (m) =>
        m.busyPct !== null &&
        m.step.values.iops !== null &&
        (!line || (m.basis === line.basis && m.cores === line.cores)),
    )
    .map((m) => [m.step.values.iops as number, m.busyPct as number]);
  if (cpuPts.length > 0) {
    const s: SeriesPlan[] = [series("measured", cpuPts, "points")];
    if (line) {
      const xmax = Math.max(...cpuPts.map((p) => p[0]));
      s.push({
        name: "fitted line",
        x: [0, xmax],
        y: [line.intercept, line.intercept + line.slope * xmax],
        style: "line",
      });
    }
    model.charts.push({
      id: "cpu-vs-iops",
      title: "CPU vs IOPS",
      kind: "scatter",
      xTitle: "IOPS",
      yTitle: line?.basis === "tool" ? "tool CPU % (of one CPU)" : "CPU busy %",
      series: s,
      source: { table: "Model", xColumn: "x", yColumns: ["busy"] },
    });
  }

  // Fit
  let fitSheet: SheetPlan | null = null;
  const fitNotes: string[] = [];
  const { two, more } = twoLevelFactors(main, data.labelColumns, response);
  let fitSummary = "no fit (the steps do not vary two or more factors at two levels)";
  if (two.length >= 2) {
    let resp = response;
    if (
      !explicitResponse &&
      main.every((s) => responseValue(s, resp) === null) &&
      main.every((s) => s.values.tool_cpu_pct !== null)
    ) {
      resp = "tool_cpu_pct";
      fitNotes.push(
        "cpu_busy_pct is not in these inputs (fio does not record host CPU): the response is the tool's CPU % instead.",
      );
    }
    const responses = resp === "response_ms_avg" ? [resp] : [resp, "response_ms_avg"];
    // The notes' count is known before the tables are placed (formulas refer to table positions).
    const noteCount = 3 + responses.length + fitNotes.length + (more.length > 0 ? 1 : 0);
    const fit = new SheetBuilder("Fit", new Array<string>(noteCount).fill(""));
    const ref = stepsRefOf("Steps", stepsTable);
    const lines = responses.map((r, i) => fitTables(fit, main, two, r, i === 0 ? "response" : "response_time", ref));
    const coding = two.map((f) => `${f.name}: ${f.levels[0]} → −1, ${f.levels[1]} → +1`).join("; ");
    const notes = [
      `DOE_FIT (least squares on coded factors, R lm() style) of ${responses.join(" and ")} on ${two.map((f) => f.name).join(", ")}.`,
      `Coding: ${coding}.`,
      ...lines,
      ...fitNotes,
      ...(more.length > 0 ? [`Left out (more than two levels): ${more.join(", ")}.`] : []),
      "Per response: the factor and response columns (references to the Steps table, so editing Steps re-fits), then " +
        "DOE_FIT's result over them (terms, then the summary rows). Aliased terms show #N/A.",
    ];
    if (notes.length !== noteCount) throw new Error("internal: Fit notes miscounted");
    fitSheet = { ...fit.sheet(), notes };
    fitSummary = lines.join(" ");
  }

  // Subintervals: a columnar table (the readers' typed arrays, not a row array per CSV row).
  const maxRows = options.maxSubintervalRows ?? 1_000_000;
  const totalSub = data.subintervals.reduce((s, seg) => s + seg.length, 0);
  if (totalSub > maxRows) {
    warnings.push(
      `Subintervals: ${totalSub} rows, only the first ${maxRows} are written (Excel's limit is 1,048,576).`,
    );
  }
  const subCols = new SubintervalColumns(data.subintervals, maxRows);
  let subSheet: SheetPlan | null = null;
  if (subCols.length > 0) {
    const sub = new SheetBuilder("Subintervals", []);
    const v = (c: IogenNumericColumn, header: string, numFmt: string, keep = false): ColumnarSpec => ({
      key: c,
      header,
      numFmt,
      keep,
      data: () => subCols.number(c),
    });
    sub.columnarTable(
      "Subintervals",
      [
        { key: "source", header: "source", numFmt: F.text, keep: true, data: () => subCols.source() },
        { key: "host", header: "host", numFmt: F.text, data: () => subCols.text((t) => t.text.host) },
        { key: "step", header: "step", numFmt: F.text, keep: true, data: () => subCols.step() },
        { key: "step_name", header: "step name", numFmt: F.text, data: () => subCols.text((t) => t.text.step_name) },
        {
          key: "subinterval",
          header: "subinterval",
          numFmt: F.int,
          keep: true,
          data: () => subCols.number("subinterval", 0),
        },
        { key: "phase", header: "phase", numFmt: F.text, keep: true, data: () => subCols.text((t) => t.text.phase) },
        {
          key: "category",
          header: "category",
          numFmt: F.text,
          keep: true,
          data: () => subCols.text((t) => t.text.category),
        },
        v("start_s", "start s", "0.000"),
        v("seconds", "seconds", "0.000"),
        v("target_iops", "target IOPS", F.iops),
        v("iops", "IOPS", F.iops, true),
        v("mb_s", "MB/s", F.mbs),
        v("service_ms_avg", "service avg ms", F.ms),
        v("service_ms_p99", "service p99 ms", F.ms),
        v("response_ms_avg", "response avg ms", F.ms),
        v("response_ms_p99", "response p99 ms", F.ms),
        v("avg_in_flight", "avg in flight", F.ratio),
        v("late_ios", "late IOs", F.int),
        v("errors", "IO errors", F.int),
        v("cpu_busy_pct", "CPU busy %", F.pct),
        v("cpu_iowait_pct", "CPU iowait %", F.pct),
        v("iogen_cpu_pct", "iogen CPU %", F.pct),
      ],
      subCols.length,
    );
    // Time series per step (overall category), x = start_s when present, else the subinterval number.
    const shown = data.subintervalGroups
      .map((g) => ({ g, rows: subCols.included(g) }))
      .filter((x) => x.rows.length > 0);
    const multiHost = new Set(shown.map((x) => x.g.host)).size > 1;
    const multiSource = new Set(shown.map((x) => x.g.source)).size > 1;
    const iopsSeries: SeriesPlan[] = [];
    const latSeries: SeriesPlan[] = [];
    let dropped = 0;
    for (const { g, rows } of shown) {
      if (g.category !== "overall") continue;
      if (iopsSeries.length >= MAX_SERIES) {
        dropped++;
        continue;
      }
      const name = [
        multiSource ? g.source : "",
        multiHost ? g.host : "",
        `step ${g.step}${g.stepName ? ` ${g.stepName}` : ""}`,
      ]
        .filter((x) => x !== "")
        .join(" ");
      const t = g.table;
      const start = t.column("start_s");
      const subNo = t.column("subinterval");
      const iops = t.column("iops");
      const resp = t.column("response_ms_avg");
      const xOf = (i: number): number => start?.value(i) ?? subNo?.value(i) ?? 0;
      const x: number[] = [];
      const y: number[] = [];
      const lx: number[] = [];
      const ly: number[] = [];
      for (let k = 0; k < rows.length; k++) {
        const i = rows[k];
        const xi = xOf(i);
        x.push(xi);
        y.push(iops?.get(i) ?? NaN);
        const r = resp?.value(i) ?? null;
        if (r !== null) {
          lx.push(xi);
          ly.push(r);
        }
      }
      iopsSeries.push({ name, x, y, style: "line" });
      if (lx.length > 0) latSeries.push({ name, x: lx, y: ly, style: "line" });
    }
    if (dropped > 0)
      warnings.push(`Charts: time series of ${dropped} steps left out (at most ${MAX_SERIES} per chart).`);
    const xTitle = subCols.anyValue("start_s") ? "time (s, start_s)" : "subinterval";
    if (iopsSeries.length > 0) {
      sub.charts.push({
        id: "iops-time-series",
        title: "IOPS per subinterval",
        kind: "line",
        xTitle,
        yTitle: "IOPS",
        series: iopsSeries,
      });
    }
    if (latSeries.length > 0) {
      sub.charts.push({
        id: "latency-time-series",
        title: "Mean response time per subinterval",
        kind: "line",
        xTitle,
        yTitle: "response avg (ms)",
        series: latSeries,
      });
    }
    subSheet = sub.sheet();
  }

  // Categories (iogen read/write rows)
  let catSheet: SheetPlan | null = null;
  if (categories.length > 0) {
    const cat = new SheetBuilder("Categories", [
      "iogen's read and write rows of each step (the Steps sheet shows the overall rows).",
    ]);
    cat.table("Categories", stepColumns(data), categories);
    catSheet = cat.sheet();
  }

  // Summary
  const sheetsText: [string, string][] = [
    [
      "Steps",
      "one row per step and host: factors, labels, target and achieved IOPS, MB/s, service and response times, CPU, measure window",
    ],
    [
      "Model",
      "utilization law D = U/X, saturation X_max, Little's law check, M/M/c prediction next to the measured response",
    ],
  ];
  if (fitSheet) sheetsText.push(["Fit", "DOE_FIT of the response on the factors that take two levels"]);
  if (subSheet)
    sheetsText.push(["Subintervals", "the subinterval time series (warm-up rows included, marked by phase)"]);
  if (catSheet) sheetsText.push(["Categories", "read and write rows of the iogen steps"]);
  const summary = new SheetBuilder("Summary", [
    options.title ?? "Capacity Lab — lab analysis",
    `${main.length} steps from ${inputs.length} file${inputs.length > 1 ? "s" : ""}. Documentation: docs/analysis.md.`,
    headline,
    `Fit: ${fitSummary}`,
    `Charts: response time vs throughput and CPU vs IOPS (Model)${subSheet ? ", IOPS and response time per subinterval (Subintervals)" : ""}.`,
  ]);
  summary.table(
    "Sheets",
    [
      { key: "s", header: "sheet", numFmt: F.text, get: (r) => r[0], keep: true },
      { key: "d", header: "contents", numFmt: F.text, get: (r) => r[1], keep: true },
    ] as ColumnSpec<[string, string]>[],
    sheetsText,
  );
  summary.table(
    "Sources",
    [
      { key: "f", header: "file", numFmt: F.text, get: (r) => r.file, keep: true },
      { key: "t", header: "format", numFmt: F.text, get: (r) => r.format, keep: true },
      {
        key: "n",
        header: "rows read",
        numFmt: F.int,
        get: (r) => (r.format === "fio-json" ? r.fio.rows.length : r.format === "unknown" ? 0 : r.iogen.table.length),
        keep: true,
      },
      { key: "w", header: "warnings", numFmt: F.int, get: (r) => r.warnings.length, keep: true },
    ] as ColumnSpec<LabFileResult>[],
    inputs,
  );
  summary.table(
    "Warnings",
    [{ key: "w", header: "warning", numFmt: F.text, get: (r) => r, keep: true }] as ColumnSpec<string>[],
    warnings.length > 0 ? warnings : ["none"],
  );

  const sheets: SheetPlan[] = [summary.sheet(false), steps.sheet(), model.sheet()];
  if (fitSheet) sheets.push(fitSheet);
  if (subSheet) sheets.push(subSheet);
  if (catSheet) sheets.push(catSheet);
  return {
    title: options.title ?? "Capacity Lab — lab analysis",
    sources: inputs.map((i) => i.file),
    warnings,
    sheets,
  };
}
