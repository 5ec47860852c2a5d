/**
 * The Subintervals sheet: the time series as a columnar table (the readers' typed arrays, not a row
 * array per CSV row), and IOPS and response time per subinterval for each step.
 */
import { IogenNumericColumn } from "../import/iogen-csv";
import { LabData, SubintervalGroup } from "./data";
import { SubintervalColumns } from "./data-subintervals";
import { ChartPlan, SeriesPlan, SheetPlan } from "../workbook/plan";
import { ColumnarSpec, F, MAX_SERIES, SheetBuilder } from "../workbook/sheet-builder";

/**
 * The Subintervals sheet, or null when there are no subinterval rows.
 *
 * @param maxRows - most rows written (a warning says how many were left out)
 * @param warnings - receives the warnings about rows or series left out
 * @param onStage - told as each column and the charts are made (a million rows take a while)
 */
export function subintervalsSheet(
  data: LabData,
  maxRows: number,
  warnings: string[],
  onStage: (stage: string) => void = () => undefined,
): SheetPlan | null {
  const totalSub = data.subintervals.reduce((s, seg) => s + seg.length, 0);
  const subCols = new SubintervalColumns(data.subintervals, maxRows);
  if (totalSub > maxRows) {
    const n = (x: number): string => x.toLocaleString("en-US");
    warnings.push(
      `Subintervals: ${n(totalSub)} rows, only the first ${n(maxRows)} are written (the row limit of this import; ` +
        `an Excel sheet holds 1,048,576 rows); left out: ${leftOut(data, subCols)}. ` +
        "Steps, Model, Fit and Categories use every row.",
    );
  }
  if (subCols.length === 0) return null;
  {
    const sub = new SheetBuilder("Subintervals", []);
    const v = (c: IogenNumericColumn, header: string, numFmt: string, keep = false): ColumnarSpec => ({
      key: c,
      header,
      numFmt,
      keep,
      data: () => subCols.number(c),
    });
    const specs: ColumnarSpec[] = [
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
    ];
    sub.columnarTable(
      "Subintervals",
      specs.map((spec, i) => ({
        ...spec,
        data: () => {
          onStage(`the Subintervals table, column ${i + 1} of ${specs.length}`);
          return spec.data();
        },
      })),
      subCols.length,
    );
    onStage("the Subintervals charts");
    sub.charts.push(...timeSeriesCharts(data, subCols, warnings));
    return sub.sheet();
  }
}

/** Name of a step's series: source and host only when they differ between series. */
function seriesName(
  g: { source: string; host: string; step: string; stepName: string },
  multiSource: boolean,
  multiHost: boolean,
): string {
  return [multiSource ? g.source : "", multiHost ? g.host : "", `step ${g.step}${g.stepName ? ` ${g.stepName}` : ""}`]
    .filter((x) => x !== "")
    .join(" ");
}

/** Time series per step (overall category), x = start_s when present, else the subinterval number. */
function timeSeriesCharts(data: LabData, subCols: SubintervalColumns, warnings: string[]): ChartPlan[] {
  const shown = data.subintervalGroups.map((g) => ({ g, rows: subCols.included(g) })).filter((x) => x.rows.length > 0);
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
    const name = seriesName(g, multiSource, multiHost);
    const { x, y, lx, ly } = stepSeries(g.table, rows);
    iopsSeries.push({ name, x, y, style: "line" });
    if (lx.length > 0) latSeries.push({ name, x: lx, y: ly, style: "line" });
  }
  if (dropped > 0) warnings.push(`Charts: time series of ${dropped} steps left out (at most ${MAX_SERIES} per chart).`);
  const xTitle = subCols.anyValue("start_s") ? "time (s, start_s)" : "subinterval";
  const charts: ChartPlan[] = [];
  if (iopsSeries.length > 0) {
    charts.push({
      id: "iops-time-series",
      title: "IOPS per subinterval",
      kind: "line",
      xTitle,
      yTitle: "IOPS",
      series: iopsSeries,
    });
  }
  if (latSeries.length > 0) {
    charts.push({
      id: "latency-time-series",
      title: "Mean response time per subinterval",
      kind: "line",
      xTitle,
      yTitle: "response avg (ms)",
      series: latSeries,
    });
  }
  return charts;
}

/** One step's IOPS and response-time points: x = start_s when present, else the subinterval number. */
function stepSeries(
  t: SubintervalGroup["table"],
  rows: ArrayLike<number>,
): { x: number[]; y: number[]; lx: number[]; ly: number[] } {
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
  return { x, y, lx, ly };
}

/** Which steps lost rows to the Subintervals row limit, e.g. "step 3 overall (40 of 100 rows)". */
function leftOut(data: LabData, subCols: SubintervalColumns): string {
  const cut: string[] = [];
  for (const g of data.subintervalGroups) {
    const kept = subCols.included(g).length;
    const n = (x: number): string => x.toLocaleString("en-US");
    if (kept < g.rows.length)
      cut.push(`step ${g.step} ${g.category} (${n(g.rows.length - kept)} of ${n(g.rows.length)} rows)`);
  }
  const shown = 8;
  return cut.length > shown ? `${cut.slice(0, shown).join(", ")} and ${cut.length - shown} more` : cut.join(", ");
}
