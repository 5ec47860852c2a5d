/**
 * "Export for managers", in one step (Office.js): the chosen sheets of the open workbook as a new
 * workbook of values and native formulas, which opens anywhere without the add-in — and the
 * user's workbook gains nothing (no copies, no listing sheet).
 *
 * It reads the sheets (formulas, values, value types of each used range; one sheet per request),
 * plans the freeze with {@link planFreeze} (each Capacity Lab formula's value computed by our own
 * worksheet functions in this runtime, or Excel's value where they cannot), applies it to the
 * sheets *as read* ({@link applyFreeze}, in memory), reads their number formats, column widths and
 * (ExcelApi 1.15) charts, writes the new .xlsx with ExcelJS (`valuesOnlyExport`: no
 * custom-function names, no add-in part, no trust prompt) and opens it with
 * `Excel.createWorkbook(base64)` (ExcelApi 1.8); the file is also returned for a download link.
 * (`getFileAsync` cannot give the .xlsx on the web, and cannot strip the add-in parts anywhere.)
 *
 * All `Excel.run` calls of the feature are here; the logic is in `src/sharing/` (pure: `freeze.ts`, `evaluate.ts`, `export.ts`).
 */
import { parseCell } from "../workbook/plan";
import { applyFreeze, formulaOf, FrozenCell, hasCaplabFormula, planFreeze, SheetSnapshot } from "../sharing/freeze";
import type { ExportChart, ExportSheet } from "../sharing/export";

/**
 * Sheets above this many used cells are not read (a large Subintervals sheet). Each sheet is read
 * in a request of its own, and Excel on the web refuses a response over 5 MB
 * (`ResponsePayloadSizeLimitExceeded`, docs/concepts/resource-limits-and-performance-optimization.md):
 * 100,000 cells of formulas, values, value types and number formats is about 4.5 MB of JSON.
 */
export const MAX_SCAN_CELLS = 100_000;

/** The sheets a manager reads, ticked by default when the workbook has them (else those with Capacity Lab formulas). */
export const DEFAULT_SHARED_SHEETS = ["Summary", "Steps", "Business case"];

/** Reads every sheet's used range that is small enough; returns the snapshots and the names skipped. */
async function readSheets(
  context: Excel.RequestContext,
): Promise<{ snapshots: SheetSnapshot[]; skipped: string[]; names: string[] }> {
  const sheets = context.workbook.worksheets;
  sheets.load("items/name");
  await context.sync();
  const used = sheets.items.map((ws) => {
    const r = ws.getUsedRangeOrNullObject();
    r.load("rowIndex,columnIndex,rowCount,columnCount");
    return { ws, r };
  });
  await context.sync();
  const skipped: string[] = [];
  const reads: { name: string; r: Excel.Range }[] = [];
  for (const { ws, r } of used) {
    if (r.isNullObject) continue;
    if (r.rowCount * r.columnCount > MAX_SCAN_CELLS) {
      skipped.push(ws.name);
      continue;
    }
    r.load("formulas,values,valueTypes");
    reads.push({ name: ws.name, r });
    // One sheet per request: the responses of several sheets together could pass 5 MB on the web.
    // eslint-disable-next-line office-addins/no-context-sync-in-loop -- deliberate (see MAX_SCAN_CELLS)
    await context.sync();
  }
  return {
    snapshots: reads.map(({ name, r }) => ({
      name,
      row: r.rowIndex,
      col: r.columnIndex,
      formulas: r.formulas,
      values: r.values,
      valueTypes: r.valueTypes as string[][],
    })),
    skipped,
    names: sheets.items.map((ws) => ws.name),
  };
}

/** The names of the sheets holding at least one Capacity Lab formula. */
export function sheetsWithCaplab(snapshots: SheetSnapshot[]): string[] {
  return snapshots
    .filter((s) => s.formulas.some((line, i) => line.some((f, j) => hasCaplabFormula(formulaOf(f, s.values[i]?.[j])))))
    .map((s) => s.name);
}

/** A sheet the pane can offer to copy: whether it has a Capacity Lab formula, or is too large to read. */
export interface ShareableSheet {
  name: string;
  caplab: boolean;
  tooLarge: boolean;
  /** Ticked when the list is first shown (see {@link DEFAULT_SHARED_SHEETS}). */
  byDefault: boolean;
}

/**
 * The workbook's sheets with data, for choosing what to include: Summary, Steps and Business case
 * by default, or, in a workbook without them, the sheets with a Capacity Lab formula.
 *
 * @returns the sheets in workbook order
 */
export async function listShareableSheets(): Promise<ShareableSheet[]> {
  return Excel.run(async (context) => {
    const { snapshots, skipped, names } = await readSheets(context);
    const caplab = new Set(sheetsWithCaplab(snapshots));
    const read = new Set(snapshots.map((s) => s.name));
    const listed = names.filter((name) => read.has(name) || skipped.includes(name));
    const usual = new Set(DEFAULT_SHARED_SHEETS.map((n) => n.toLowerCase()));
    const anyUsual = listed.some((n) => usual.has(n.toLowerCase()) && !skipped.includes(n));
    return listed.map((name) => ({
      name,
      caplab: caplab.has(name),
      tooLarge: skipped.includes(name),
      byDefault: !skipped.includes(name) && (anyUsual ? usual.has(name.toLowerCase()) : caplab.has(name)),
    }));
  });
}

/** A bar chart: Excel says so, or its x values are category names (a scatter's are numbers). */
function isBarChart(chartType: string, x: unknown[] | undefined): boolean {
  if (/^bar/i.test(chartType)) return true;
  return (
    Array.isArray(x) &&
    x.length > 0 &&
    x.every((v) => typeof v === "string" && v.trim() !== "" && !Number.isFinite(Number(v)))
  );
}

/**
 * The charts of each sheet as the export needs them: titles, and per series its name, line style,
 * ranges (`getDimensionDataSourceString`, ExcelApi 1.15) and values (`getDimensionValues`, 1.12).
 * Called only where 1.15 is supported ({@link chartsOf} checks).
 */
async function readCharts(context: Excel.RequestContext, sheets: Excel.Worksheet[]): Promise<ExportChart[][]> {
  const collections = sheets.map((ws) => {
    const charts = ws.charts;
    charts.load("items/name");
    return charts;
  });
  await context.sync();
  const charts = collections.map((c) =>
    c.items.map((chart) => {
      chart.title.load("text");
      chart.axes.categoryAxis.title.load("text");
      chart.axes.valueAxis.title.load("text");
      // Where a bar chart's bars start (ExcelApi 1.8; the tests' in-memory Excel cannot load it: 0 then).
      const valueAxis = chart.axes.valueAxis as Partial<Excel.ChartAxis>;
      if (typeof valueAxis.load === "function") valueAxis.load("positionAt");
      chart.series.load("items/name,items/chartType");
      return chart;
    }),
  );
  await context.sync();
  const series = charts.map((list) =>
    list.map((chart) =>
      chart.series.items.map((s) => ({
        name: s.name,
        lines: /Lines/.test(String(s.chartType)),
        xRef: s.getDimensionDataSourceString("XValues"),
        yRef: s.getDimensionDataSourceString("YValues"),
        x: s.getDimensionValues("XValues"),
        y: s.getDimensionValues("YValues"),
      })),
    ),
  );
  await context.sync();
  return charts.map((list, i) =>
    list.map((chart, j) => ({
      title: chart.title.text,
      xTitle: chart.axes.categoryAxis.title.text,
      yTitle: chart.axes.valueAxis.title.text,
      // A bar chart (the case's tornado): categories, bars from where the axes cross.
      ...(isBarChart(String(chart.series.items[0]?.chartType), series[i][j][0]?.x.value)
        ? { bar: { base: Number((chart.axes.valueAxis as Partial<Excel.ChartAxis>).positionAt) || 0 } }
        : {}),
      series: series[i][j].map((s) => ({
        name: s.name,
        lines: s.lines,
        xRef: s.xRef.value,
        yRef: s.yRef.value,
        x: s.x.value,
        y: s.y.value,
      })),
    })),
  );
}

/** Reads the sheets' charts in a request of its own: a chart Excel cannot describe costs only the charts. */
async function chartsOf(sheetNames: string[]): Promise<{ charts: ExportChart[][]; problem?: string }> {
  if (!Office.context.requirements.isSetSupported("ExcelApi", "1.15"))
    return { charts: sheetNames.map(() => []), problem: "reading charts needs ExcelApi 1.15" };
  try {
    return {
      charts: await Excel.run((context) =>
        readCharts(
          context,
          sheetNames.map((n) => context.workbook.worksheets.getItem(n)),
        ),
      ),
    };
  } catch (e) {
    return { charts: sheetNames.map(() => []), problem: `the charts could not be read (${(e as Error).message})` };
  }
}

/** What "Export for managers" made. */
export interface ManagerExport {
  /** The sheets in the new workbook, in workbook order. */
  sheets: string[];
  /** The Capacity Lab formulas written as their values. */
  frozen: FrozenCell[];
  /** Frozen cells whose value differs from the one Excel shows ("Sheet!A1: new (Excel shows old)"). */
  mismatches: string[];
  /** Sheets too large to read; a formula of the chosen sheets that refers to one is written as its value. */
  skipped: string[];
  /** Size of the file in bytes. */
  bytes: number;
  /** Charts written into it. */
  charts: number;
  /** Charts not carried, and why (empty when all were). */
  chartsLeftOut: string[];
  /** The file, base64 (as Excel.createWorkbook takes it), for a download link. */
  base64: string;
  /** True when the new workbook was opened in Excel; otherwise why not. */
  opened: true | string;
}

/** Number formats and column widths of the chosen sheets (one sheet per request, as readSheets). */
async function readFormats(names: string[]): Promise<{ numberFormat: string[][]; columnWidths: number[] }[]> {
  return Excel.run(async (context) => {
    const read = names.map((name) => {
      const ws = context.workbook.worksheets.getItem(name);
      return { ws, used: ws.getUsedRangeOrNullObject() };
    });
    for (const { used } of read) {
      used.load("numberFormat,columnIndex,columnCount");
      // eslint-disable-next-line office-addins/no-context-sync-in-loop -- deliberate (see MAX_SCAN_CELLS)
      await context.sync();
    }
    const widths = read.map(({ ws, used }) =>
      used.isNullObject
        ? []
        : Array.from({ length: used.columnIndex + used.columnCount }, (_, j) => {
            const format = ws.getRangeByIndexes(0, j, 1, 1).format;
            format.load("columnWidth");
            return format;
          }),
    );
    await context.sync();
    return read.map(({ used }, k) => ({
      numberFormat: used.isNullObject ? [] : (used.numberFormat as string[][]),
      // Excel gives points; a character of the default font is about 7 points wide.
      columnWidths: widths[k].map((f) => f.columnWidth / 7),
    }));
  });
}

/** The frozen cells whose computed value differs from the value Excel shows in the original. */
function mismatchesOf(frozen: FrozenCell[], snapshots: Map<string, SheetSnapshot>): string[] {
  const out: string[] = [];
  for (const cell of frozen) {
    if (cell.replacement.kind !== "values") continue; // "copy" takes Excel's own value
    const sheet = snapshots.get(cell.sheet.toLowerCase()) as SheetSnapshot;
    const { row, col } = parseCell(cell.address);
    const was = sheet.values[row - sheet.row]?.[col - sheet.col];
    const now = cell.value === null ? "" : cell.value;
    const same =
      typeof was === "number" && typeof now === "number"
        ? Math.abs(was - now) <= 1e-9 * Math.max(1, Math.abs(was))
        : was === now;
    if (!same) out.push(`${cell.sheet}!${cell.address}: ${String(now)} (Excel shows ${String(was)})`);
  }
  return out;
}

/**
 * Writes the chosen sheets as a new values-only workbook and opens it; the open workbook is only read.
 *
 * @param sheetNames - the sheets to include (as listed by {@link listShareableSheets}), in any order:
 *   the new workbook has them in the open workbook's order
 * @param title - the new workbook's title
 * @param open - opens the file; default `Excel.createWorkbook` where ExcelApi 1.8 is supported, else
 *   none (the pane then offers the file as a download); tests pass their own
 * @returns what was written, and the file
 * @throws Error naming the sheet when none is chosen, a chosen sheet does not exist or is too large
 *   to read, or (a bug) a Capacity Lab formula would be left in the file
 */
export async function exportForManagers(
  sheetNames: string[],
  title: string,
  open: ((base64: string) => Promise<void>) | null = Office.context.requirements.isSetSupported("ExcelApi", "1.8")
    ? (b) => Excel.createWorkbook(b)
    : null,
): Promise<ManagerExport> {
  if (sheetNames.length === 0) throw new Error("Choose at least one sheet to include");
  const { snapshots, skipped, names } = await Excel.run(readSheets);
  const byName = new Map(snapshots.map((s) => [s.name.toLowerCase(), s] as const));
  const wanted = new Set(sheetNames.map((n) => n.toLowerCase()));
  for (const name of sheetNames) {
    if (byName.has(name.toLowerCase())) continue;
    throw new Error(
      skipped.some((s) => s.toLowerCase() === name.toLowerCase())
        ? `${name}: more than ${MAX_SCAN_CELLS.toLocaleString("en-US")} cells, too large to include`
        : `${name}: no such sheet with data`,
    );
  }
  const chosen = names.filter((n) => wanted.has(n.toLowerCase()));
  const frozen = planFreeze(snapshots, chosen);
  const formats = await readFormats(chosen);
  const { charts, problem } = await chartsOf(chosen);
  const sheets: ExportSheet[] = chosen.map((name, k) => ({
    ...applyFreeze(byName.get(name.toLowerCase()) as SheetSnapshot, frozen),
    ...formats[k],
    charts: charts[k],
  }));
  const { valuesOnlyExport, toBase64 } = await import("../sharing/export");
  const { bytes, written, leftOut } = await valuesOnlyExport(sheets, title);
  const base64 = toBase64(bytes);
  let opened: true | string = "this version of Excel cannot open a new workbook from the add-in (ExcelApi 1.8)";
  if (open) {
    try {
      await open(base64);
      opened = true;
    } catch (e) {
      opened = `Excel did not open it (${(e as Error).message})`;
    }
  }
  const chartsLeftOut = problem ? [problem] : [];
  if (leftOut > 0) chartsLeftOut.push(`${leftOut} chart${leftOut === 1 ? " draws" : "s draw"} a sheet not included`);
  return {
    sheets: chosen,
    frozen,
    mismatches: mismatchesOf(frozen, byName),
    skipped,
    bytes: bytes.length,
    charts: written,
    chartsLeftOut,
    base64,
    opened,
  };
}
