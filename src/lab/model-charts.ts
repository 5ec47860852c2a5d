/** The Model sheet's charts (response vs throughput, mean and p99; CPU vs IOPS) and the hidden table holding the chart data no other table holds. */
import { CPU_CENSOR_PCT, CpuFitGroup } from "./cpu-fit";
import { LabStep } from "./data";
import { ModelRow } from "./model-steps";
import { KNEE_FACTOR, ResponseFit } from "./response-fit";
import { CellValue, ChartPlan, SeriesPlan, TablePlan } from "../workbook/plan";
import { series, SheetBuilder } from "../workbook/sheet-builder";

/** True when the x values span a decade or more (then a log axis shows the light steps apart). */
function spansDecades(xs: number[]): boolean {
  const pos = xs.filter((x) => x > 0);
  return pos.length > 1 && Math.max(...pos) / Math.min(...pos) >= 10;
}

/** A step's measured mean or p99 response (ms), NaN when it has none. */
function responseOf(s: LabStep, metric: "mean" | "p99"): number {
  return (metric === "mean" ? s.values.response_ms_avg : s.values.response_ms_p99) ?? NaN;
}

/** The fitted curve R = S/(1 − X/X_max) from below the lightest step to near saturation, log-spaced on a log axis. */
function curveSeries(c: ResponseFit, log: boolean, many: boolean): SeriesPlan[] {
  if (!c.fit) return [];
  const f = c.fit;
  const xs = c.used.map((s) => s.values.iops as number);
  const sat = f.saturation.estimate;
  const from = Math.min(...xs) * 0.8;
  // Up to just past the measured range, and no higher than 1.5 × the slowest step fitted (where
  // R = 1/(a + b·X) reaches it): near X_max the curve shoots up and would flatten the measured points.
  const rCap = 1.5 * Math.max(...c.used.map((s) => responseOf(s, c.metric)));
  const xCap = Number.isFinite(rCap) && f.fit.slope < 0 ? (1 / rCap - f.fit.intercept) / f.fit.slope : Infinity;
  const to = Math.min(0.97 * sat, 1.15 * Math.max(...xs, f.knee.estimate), Math.max(xCap, f.knee.estimate));
  if (!(to > from) || !(from > 0)) return [];
  const points = 60;
  const x: number[] = [];
  const y: number[] = [];
  for (let i = 0; i <= points; i++) {
    const xi = log ? from * (to / from) ** (i / points) : from + ((to - from) * i) / points;
    x.push(xi);
    y.push(1 / (f.fit.intercept + f.fit.slope * xi));
  }
  const who = many ? `, ${c.group}` : "";
  return [
    { name: `fitted S/(1 − X/X_max)${who}`, x, y, style: "line" },
    {
      name: `knee (R = ${KNEE_FACTOR} × light load)${who}`,
      x: [f.knee.estimate],
      y: [f.knee.response],
      style: "points",
    },
  ];
}

/**
 * Response time against throughput for the mean (over the Model table's cells) or the p99: the
 * measured steps, each level's fitted curve and its knee; a log x-axis when the steps span decades.
 */
export function responseChart(rows: ModelRow[], curves: ResponseFit[], metric: "mean" | "p99"): ChartPlan | null {
  const measured: [number, number][] = [];
  for (const m of rows) {
    const x = m.step.values.iops;
    const r = metric === "mean" ? m.step.values.response_ms_avg : m.step.values.response_ms_p99;
    if (x !== null && r !== null) measured.push([x, r]);
  }
  if (measured.length === 0) return null;
  const mine = curves.filter((c) => c.metric === metric);
  const log = spansDecades(measured.map((p) => p[0]));
  return {
    id: metric === "mean" ? "response-vs-throughput" : "p99-vs-throughput",
    title: metric === "mean" ? "Response time vs throughput" : "p99 response time vs throughput",
    kind: "scatter",
    xTitle: log ? "IOPS (log scale)" : "IOPS",
    yTitle: metric === "mean" ? "mean response time (ms)" : "p99 response time (ms)",
    xLog: log,
    series: [series("measured", measured, "points"), ...mine.flatMap((c) => curveSeries(c, log, mine.length > 1))],
    ...(metric === "mean" ? { source: { table: "Model", xColumn: "x", yColumns: ["r"] } } : {}),
  };
}

/**
 * CPU against IOPS: every step with CPU figures (drawn over the Model table's cells), the censored
 * ones marked again, and each level's fitted line up to 100 %.
 */
export function cpuChart(rows: ModelRow[], groups: CpuFitGroup[]): ChartPlan | null {
  const pts: [number, number][] = [];
  const censored: [number, number][] = [];
  for (const m of rows) {
    if (m.busyPct === null || m.step.values.iops === null || !m.fit || m.fit.role === "excluded") continue;
    pts.push([m.step.values.iops, m.busyPct]);
    if (m.fit.role === "censored") censored.push([m.step.values.iops, m.busyPct]);
  }
  if (pts.length === 0) return null;
  const s: SeriesPlan[] = [series("steps", pts, "points")];
  for (const g of groups) {
    if (!g.fit) continue;
    const xs = [...g.used, ...g.censored].map((st) => st.values.iops as number);
    const end = g.fit.slope > 0 ? Math.max(...xs, (100 - g.fit.intercept) / g.fit.slope) : Math.max(...xs);
    s.push({
      name: groups.length > 1 ? `fitted line, ${g.group}` : "fitted line",
      x: [0, end],
      y: [g.fit.intercept, Math.min(100, g.fit.intercept + g.fit.slope * end)],
      style: "line",
    });
  }
  if (censored.length > 0) s.push(series(`censored (≥ ${CPU_CENSOR_PCT} % CPU, off the line)`, censored, "points"));
  const tool = groups.length > 0 && groups.every((g) => g.basis === "tool");
  // The steps series is the Model table's X and CPU % columns only when every row with both is on
  // it (an excluded step has CPU figures but is not drawn); otherwise it is drawn from chart data.
  const live = pts.length === rows.filter((m) => m.busyPct !== null && m.step.values.iops !== null).length;
  return {
    id: "cpu-vs-iops",
    title: "CPU vs IOPS",
    kind: "scatter",
    xTitle: "IOPS",
    yTitle: tool ? "tool CPU % (of one CPU)" : "CPU busy %",
    series: s,
    ...(live ? { source: { table: "Model", xColumn: "x", yColumns: ["busy"] } } : {}),
  };
}

/** Name of the Model sheet's hidden table of chart data. */
export const MODEL_CHART_DATA_TABLE = "ModelChartData";

/**
 * The chart data no table of the sheet holds (fitted curves, knees, fitted lines, the measured
 * p99), as one hidden helper table two columns a series, placed by the sheet builder to the right
 * of the sheet's tables from the first table's header row; each such series gets `cells` naming
 * its columns. A series the chart's `source` maps to a table column keeps that mapping.
 *
 * @returns the helper table (made on `sheet`), or null when every series is in a table
 */
export function chartDataTable(name: string, sheet: SheetBuilder, charts: ChartPlan[]): TablePlan | null {
  const columns: TablePlan["columns"] = [];
  const data: number[][] = [];
  for (const chart of charts)
    chart.series.forEach((s, i) => {
      if (s.cells || (chart.source && chart.source.yColumns[i] !== undefined) || s.x.length === 0) return;
      const key = `${chart.id}:${i}`;
      columns.push(
        { key: `${key}:x`, header: `${chart.id} ${i + 1} x: ${s.name}`, numFmt: "General" },
        { key: `${key}:y`, header: `${chart.id} ${i + 1} y`, numFmt: "General" },
      );
      data.push(s.x, s.y);
      s.cells = { table: name, x: `${key}:x`, y: `${key}:y` };
    });
  if (columns.length === 0) return null;
  const n = Math.max(...data.map((d) => d.length));
  const rows: CellValue[][] = Array.from({ length: n }, (_, r) =>
    data.map((d) => (r < d.length && Number.isFinite(d[r]) ? d[r] : null)),
  );
  const block = sheet.place(
    name,
    rows.map((_, r) => `r:${r}`),
    columns.map((c) => c.key),
    { rightOfAll: true },
  );
  return sheet.fill(block, columns, rows, { hidden: true });
}
