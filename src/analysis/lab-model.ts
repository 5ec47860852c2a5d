/**
 * The Model sheet: utilization law, Little's law, saturation and M/M/c per step, the CPU line
 * fitted over the steps, and the response-vs-throughput and CPU-vs-IOPS charts.
 */
import { isDomainError } from "../core/errors";
import { leastSquares } from "../core/least-squares";
import { mmcMetrics } from "../core/mmc";
import { LabStep } from "./lab-data";
import { AddinFormulaCell, CellValue, ChartPlan, SeriesPlan, SheetPlan } from "./plan";
import { ColumnSpec, F, fmt, formula, num, NUM, series, SheetBuilder } from "./sheet-builder";

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
  const { basis, busyPct, cores } = cpuBasis(s);
  const busyCores = busyPct !== null && cores !== null ? (busyPct / 100) * cores : null;
  const dMs = busyCores !== null && x !== null && x > 0 ? (busyCores / x) * 1000 : null;
  const xMax = dMs !== null && dMs > 0 && cores !== null ? cores / (dMs / 1000) : null;
  const r = s.values.response_ms_avg;
  const sv = s.values.service_ms_avg;
  const xr = x !== null && r !== null ? (x * r) / 1000 : null;
  const xs = x !== null && sv !== null ? (x * sv) / 1000 : null;
  const mmc = mmcOf(s.values.queue_depth, sv, x);
  return { step: s, basis, busyPct, cores, busyCores, dMs, xMax, xr, xs, mmc };
}

/** CPU utilization basis: host CPU (busy % × cores) when known, else the generator's own CPU. */
function cpuBasis(s: LabStep): Pick<ModelRow, "basis" | "busyPct" | "cores"> {
  if (s.values.cpu_busy_pct !== null && s.values.cpu_cores !== null && s.values.cpu_cores > 0)
    return { basis: "host", busyPct: s.values.cpu_busy_pct, cores: s.values.cpu_cores };
  if (s.values.tool_cpu_pct !== null) return { basis: "tool", busyPct: s.values.tool_cpu_pct, cores: 1 }; // % of one CPU
  return { basis: null, busyPct: null, cores: null };
}

/** M/M/c with c = queue depth, S = service avg (ms), λ = X; null when an input is missing. */
function mmcOf(c: number | null, sv: number | null, x: number | null): ModelRow["mmc"] {
  if (c === null || sv === null || x === null || !(sv > 0) || !(x > 0) || !Number.isInteger(c) || c < 1) return null;
  const rho = (x * (sv / 1000)) / c;
  try {
    const m = mmcMetrics(c, sv / 1000, x);
    return { c, sMs: sv, rho, predicted: m.meanResponse * 1000, note: "" };
  } catch (e) {
    if (!isDomainError(e)) throw e;
    return { c, sMs: sv, rho, predicted: null, note: `no steady state: ${e.message}` };
  }
}

/**
 * The Model table's header of the per-step CPU cost (column key "d"): the pane finds the cells a
 * business case can refer to by it (src/excel/case-sources.ts).
 */
export const CPU_COST_HEADER = "D CPU-ms per IO";

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
      header: CPU_COST_HEADER,
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

/** The Model sheet's notes and the Summary's headline on the CPU cost. */
function cpuNotes(line: CpuLine | null): { headline: string; notes: string[] } {
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
  return { headline, notes: modelNotes };
}

/** Measured and M/M/c response time against throughput, with the M/M/c curve. */
function responseChart(rows: ModelRow[]): ChartPlan | null {
  const measured: [number, number][] = [];
  const predicted: [number, number][] = [];
  for (const m of rows) {
    const x = m.step.values.iops;
    const r = m.step.values.response_ms_avg;
    if (x !== null && r !== null) measured.push([x, r]);
    if (x !== null && m.mmc?.predicted != null) predicted.push([x, m.mmc.predicted]);
  }
  if (measured.length > 0) {
    return {
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
    };
  }
  return null;
}

/** CPU against IOPS with the fitted line. */
function cpuChart(rows: ModelRow[], line: CpuLine | null): ChartPlan | null {
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
    return {
      id: "cpu-vs-iops",
      title: "CPU vs IOPS",
      kind: "scatter",
      xTitle: "IOPS",
      yTitle: line?.basis === "tool" ? "tool CPU % (of one CPU)" : "CPU busy %",
      series: s,
      source: { table: "Model", xColumn: "x", yColumns: ["busy"] },
    };
  }
  return null;
}

/**
 * The Model sheet over the main steps.
 *
 * @returns the sheet and the Summary's headline on the CPU cost
 */
export function modelSheet(main: LabStep[]): { sheet: SheetPlan; headline: string } {
  const rows = main.map(modelRow);
  const line = cpuLine(rows);
  const { headline, notes } = cpuNotes(line);
  const model = new SheetBuilder("Model", notes);
  model.table("Model", modelColumns(), rows);
  for (const chart of [responseChart(rows), cpuChart(rows, line)]) if (chart) model.charts.push(chart);
  return { sheet: model.sheet(), headline };
}
