/**
 * "Prepare for sharing" and "Export a values-only workbook" in the open workbook (Office.js).
 *
 * Prepare for sharing: reads the sheets (formulas, values, value types of each used range),
 * plans the freeze with {@link planFreeze} (values computed by our own worksheet functions in this
 * runtime), copies each chosen sheet with `Worksheet.copy` (ExcelApi 1.7; formats and charts come
 * with the copy, the original is not touched), writes into the copy the values (`Range.values`,
 * only numbers, booleans and text that cannot read as a formula), the native equivalents
 * (`Range.formulas`), or Excel's own values (`Range.copyFrom(original, "Values")`, 1.9: a value
 * copy never re-parses text), lists every frozen cell on a `Frozen formulas` sheet (formula
 * texts written into text-formatted cells), and then reads the copies back to check that no
 * `CAPLAB.` formula is left and that each frozen cell shows the original's value.
 *
 * Export: reads the copies (and, with ExcelApi 1.15, their charts' ranges) and opens a new
 * workbook built from them by ExcelJS (`valuesOnlyWorkbook`, charts added as native charts over
 * the same cells) with `Excel.createWorkbook(base64)` (1.8) — no custom-function names, no add-in
 * part, no trust prompt. (`getFileAsync` cannot give the .xlsx on the web, and cannot strip
 * the add-in parts anywhere.)
 *
 * All `Excel.run` calls of the feature are here; the logic is in `src/sharing/` (pure: `freeze.ts`, `evaluate.ts`, `export.ts`).
 */
import { parseCell } from "../analysis/plan";
import { formulaOf, frozenListing, FrozenCell, hasCaplabFormula, planFreeze, SheetSnapshot } from "../sharing/freeze";
import { isErrorValue, Scalar } from "../sharing/evaluate";
import type { ExportChart, ExportSheet } from "../sharing/export";

/**
 * Sheets above this many used cells are not read (a large Subintervals sheet). Each sheet is read
 * in a request of its own, and Excel on the web refuses a response over 5 MB
 * (`ResponsePayloadSizeLimitExceeded`, docs/concepts/resource-limits-and-performance-optimization.md):
 * 100,000 cells of formulas, values, value types and number formats is about 4.5 MB of JSON.
 */
export const MAX_SCAN_CELLS = 100_000;
/** Sheet-name limit in Excel. */
const MAX_SHEET_NAME = 31;
export const FROZEN_SHEET = "Frozen formulas";

export interface ShareOptions {
  /** Sheets to copy; default every sheet with a Capacity Lab formula. */
  sheets?: string[];
  /** Keep NPV_IT live as first flow + NPV(rate, rest) (default false). */
  nativeEquivalents?: boolean;
}

export interface ShareReport {
  /** Original → copy names. */
  copies: { original: string; copy: string }[];
  frozen: FrozenCell[];
  /** Name of the listing sheet. */
  listing: string;
  /** Capacity Lab formulas found in the copies after freezing (0 when all went well). */
  remainingCaplab: number;
  /** Frozen cells whose value in the copy differs from the original's. */
  mismatches: string[];
  /** Sheets not read because they are too large (their cells cannot be frozen or referred to). */
  skipped: string[];
}

/** Throws a clear error when the host lacks a requirement set. */
function requireSet(version: string, what: string): void {
  const supported = Office.context.requirements.isSetSupported("ExcelApi", version);
  if (!supported) throw new Error(`${what} needs ExcelApi ${version}, which this version of Excel does not support`);
}

/** A sheet name not yet used: "Model (shared)", "Model (shared 2)", cut to 31 characters. */
export function uniqueSheetName(base: string, suffix: string, taken: Set<string>): string {
  for (let n = 1; ; n++) {
    // "Model (shared)" → "Model (shared 2)"; "Frozen formulas" → "Frozen formulas 2".
    const tail = n === 1 ? suffix : /\)$/.test(suffix) ? suffix.replace(/\)$/, ` ${n})`) : `${suffix} ${n}`;
    const name = (base.slice(0, MAX_SHEET_NAME - tail.length) + tail).replace(/[:\\/?*[\]]/g, "_");
    if (!taken.has(name.toLowerCase())) {
      taken.add(name.toLowerCase());
      return name;
    }
  }
}

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
}

/**
 * The workbook's sheets with data, for choosing what to copy (those with a Capacity Lab formula
 * are the default).
 *
 * @returns the sheets in workbook order
 */
export async function listShareableSheets(): Promise<ShareableSheet[]> {
  return Excel.run(async (context) => {
    const { snapshots, skipped, names } = await readSheets(context);
    const caplab = new Set(sheetsWithCaplab(snapshots));
    const read = new Set(snapshots.map((s) => s.name));
    return names
      .filter((name) => read.has(name) || skipped.includes(name))
      .map((name) => ({ name, caplab: caplab.has(name), tooLarge: skipped.includes(name) }));
  });
}

function writableValue(v: Scalar): string | number | boolean {
  // null in Range.values means "leave the cell as it is"; an empty result must clear it.
  if (v === null || isErrorValue(v)) return "";
  return v;
}

/**
 * Makes values-only copies of the chosen sheets and the `Frozen formulas` listing.
 *
 * @param options - which sheets (default: those with a Capacity Lab formula), native equivalents
 * @returns what was copied and frozen, and the check of the copies
 * @throws Error when the host lacks ExcelApi 1.9, when a chosen sheet does not exist or is too
 *   large to read, or when no sheet has a Capacity Lab formula and none was chosen
 */
export async function prepareForSharing(options: ShareOptions = {}): Promise<ShareReport> {
  requireSet("1.9", "Prepare for sharing");
  return Excel.run(async (context) => {
    const { snapshots, skipped } = await readSheets(context);
    const byName = new Map(snapshots.map((s) => [s.name.toLowerCase(), s] as const));
    const chosen = options.sheets ?? sheetsWithCaplab(snapshots);
    if (chosen.length === 0)
      throw new Error("No sheet has a Capacity Lab formula: there is nothing to prepare for sharing");
    for (const name of chosen) {
      if (!byName.has(name.toLowerCase())) {
        throw new Error(
          skipped.some((s) => s.toLowerCase() === name.toLowerCase())
            ? `${name}: more than ${MAX_SCAN_CELLS.toLocaleString("en-US")} cells; too large to prepare for sharing`
            : `${name}: no such sheet with data`,
        );
      }
    }
    const frozen = planFreeze(snapshots, chosen, { nativeEquivalents: options.nativeEquivalents });

    const taken = new Set([...snapshots.map((s) => s.name.toLowerCase()), ...skipped.map((s) => s.toLowerCase())]);
    const sheets = context.workbook.worksheets;
    const copies = chosen.map((name) => {
      const original = (byName.get(name.toLowerCase()) as SheetSnapshot).name;
      const copy = uniqueSheetName(original, " (shared)", taken);
      const ws = sheets.getItem(original).copy(Excel.WorksheetPositionType.end);
      ws.name = copy;
      return { original, copy, ws };
    });
    const listingName = uniqueSheetName(FROZEN_SHEET, "", taken);
    await context.sync();

    const copyOf = new Map(copies.map((c) => [c.original, c] as const));
    for (const cell of frozen) {
      const target = copyOf.get(cell.sheet);
      if (!target) continue;
      const { row, col } = parseCell(cell.address);
      const r = cell.replacement;
      if (r.kind === "values") {
        target.ws.getRangeByIndexes(row, col, r.values.length, r.values[0]?.length ?? 1).values = r.values.map((line) =>
          line.map(writableValue),
        );
      } else if (r.kind === "formula") {
        target.ws.getRangeByIndexes(row, col, 1, 1).formulas = [[r.formula]];
      } else {
        const source = sheets.getItem(cell.sheet).getRangeByIndexes(row, col, r.rows, r.columns);
        target.ws.getRangeByIndexes(row, col, r.rows, r.columns).copyFrom(source, Excel.RangeCopyType.values);
      }
    }

    // The listing: formulas as text in text-formatted cells (a formula written as a value would run).
    const rows = frozenListing(frozen, new Map(copies.map((c) => [c.original, c.copy])));
    const listing = sheets.add(listingName);
    const header = [["Sheet", "Cell", "Formula (as it was)", "Value", "Frozen as"]];
    const all = [...header, ...rows.map((line) => line.map((v) => (v === null ? "" : v)))];
    const block = listing.getRangeByIndexes(0, 0, all.length, 5);
    block.numberFormat = all.map((line) => line.map((v, j) => (j === 3 && typeof v !== "string" ? "General" : "@")));
    block.values = all as (string | number | boolean)[][];
    listing.getRangeByIndexes(0, 0, 1, 5).format.font.bold = true;
    block.format.autofitColumns();
    await context.sync();

    // Check the copies: no Capacity Lab formula left; each frozen cell shows the original's value.
    const checks = copies.map((c) => {
      const used = c.ws.getUsedRangeOrNullObject();
      used.load("rowIndex,columnIndex,formulas,values");
      return { c, used };
    });
    await context.sync();
    let remaining = 0;
    const mismatches: string[] = [];
    for (const { c, used } of checks) {
      if (used.isNullObject) continue;
      used.formulas.forEach((line, i) =>
        line.forEach((f, j) => {
          if (hasCaplabFormula(formulaOf(f, used.values[i][j]))) remaining++;
        }),
      );
      const original = byName.get(c.original.toLowerCase()) as SheetSnapshot;
      for (const cell of frozen.filter((f) => f.sheet === c.original)) {
        const { row, col } = parseCell(cell.address);
        const was = original.values[row - original.row]?.[col - original.col];
        const now = used.values[row - used.rowIndex]?.[col - used.columnIndex];
        const same =
          typeof was === "number" && typeof now === "number"
            ? Math.abs(was - now) <= 1e-9 * Math.max(1, Math.abs(was))
            : was === now;
        if (!same) mismatches.push(`${c.copy}!${cell.address}: ${String(now)} (original ${String(was)})`);
      }
    }
    return {
      copies: copies.map(({ original, copy }) => ({ original, copy })),
      frozen,
      listing: listingName,
      remainingCaplab: remaining,
      mismatches,
      skipped,
    };
  });
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

/** What the export opened. */
export interface ExportResult {
  /** Size of the file in bytes. */
  bytes: number;
  /** Charts written into it. */
  charts: number;
  /** Charts not carried, and why (empty when all were). */
  chartsLeftOut: string[];
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

/**
 * Opens a new workbook with the given sheets (normally the copies made by
 * {@link prepareForSharing}) as values and native formulas only, with their charts.
 *
 * @param sheetNames - the sheets to export, in order
 * @param title - the new workbook's title
 * @param open - opens the file (default `Excel.createWorkbook`); tests pass their own
 * @returns the size of the file and what became of the charts
 * @throws Error when the host lacks ExcelApi 1.8, a sheet does not exist, or a sheet still has a
 *   Capacity Lab formula
 */
export async function exportValuesOnlyWorkbook(
  sheetNames: string[],
  title: string,
  open: (base64: string) => Promise<void> = (b) => Excel.createWorkbook(b),
): Promise<ExportResult> {
  requireSet("1.8", "Export a values-only workbook");
  const sheets = await Excel.run(async (context) => {
    const read: { name: string; ws: Excel.Worksheet; used: Excel.Range }[] = [];
    for (const name of sheetNames) {
      const ws = context.workbook.worksheets.getItem(name);
      const used = ws.getUsedRangeOrNullObject();
      used.load("rowIndex,columnIndex,formulas,values,valueTypes,numberFormat,columnCount");
      read.push({ name, ws, used });
      // One sheet per request (each within MAX_SCAN_CELLS): a response over 5 MB is refused on the web.
      // eslint-disable-next-line office-addins/no-context-sync-in-loop -- deliberate (see MAX_SCAN_CELLS)
      await context.sync();
    }
    const widths = read.map(({ ws, used }) => {
      if (used.isNullObject) return [];
      return Array.from({ length: used.columnIndex + used.columnCount }, (_, j) => {
        const format = ws.getRangeByIndexes(0, j, 1, 1).format;
        format.load("columnWidth");
        return format;
      });
    });
    await context.sync();
    return read.map(({ name, used }, k): ExportSheet =>
      used.isNullObject
        ? { name, row: 0, col: 0, formulas: [], values: [] }
        : {
            name,
            row: used.rowIndex,
            col: used.columnIndex,
            formulas: used.formulas,
            values: used.values,
            valueTypes: used.valueTypes as string[][],
            numberFormat: used.numberFormat as string[][],
            // Excel gives points; a character of the default font is about 7 points wide.
            columnWidths: widths[k].map((f) => f.columnWidth / 7),
          },
    );
  });
  const { charts, problem } = await chartsOf(sheetNames);
  sheets.forEach((sheet, k) => (sheet.charts = charts[k]));
  const { valuesOnlyExport, toBase64 } = await import("../sharing/export");
  const { bytes, ...counted } = await valuesOnlyExport(sheets, title);
  await open(toBase64(bytes));
  const chartsLeftOut = problem ? [problem] : [];
  if (counted.leftOut > 0)
    chartsLeftOut.push(`${counted.leftOut} chart${counted.leftOut === 1 ? " draws" : "s draw"} a sheet not exported`);
  return { bytes: bytes.length, charts: counted.written, chartsLeftOut };
}
