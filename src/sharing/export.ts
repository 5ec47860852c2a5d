/**
 * "Export a values-only workbook": the shared copies of sheets, as read back from Excel after
 * freezing (values, native formulas, number formats, column widths), written as a new .xlsx
 * with ExcelJS — a file that carries no custom-function names (`_xldudf_`), no add-in
 * (web-extension) part and so no trust prompt, which the pane opens with
 * `Excel.createWorkbook(base64)` (ExcelApi 1.8). Office.js cannot strip add-in parts from the
 * open workbook's own file (OfficeDev/office-js #3740, #3844), hence a new file.
 *
 * Formulas: native formulas are written as formulas with their calculated value cached (so the
 * new workbook stays live and shows the numbers before any recalculation), except those that refer
 * to a sheet not in the new workbook, written as their value (they would be #REF! there); a
 * formula that still names a Capacity Lab function is refused (freeze first). Text is always
 * written as text.
 * Charts: ExcelJS writes none (exceljs#141), so each chart read back from the copy becomes a
 * native scatter chart over the same cells (`src/report/xlsx-charts.ts`), placed below the sheet's
 * data; a chart that draws a sheet not exported is left out. Not carried over: Excel table
 * objects, conditional formats, the charts' exact position and styling. No Office types: testable in Node.
 */
import ExcelJS from "exceljs";
import { tokenize } from "@borgar/fx";
import { addressA1, cellA1, CellPosition, parseReference, quoteSheet, splitSheet } from "../workbook/plan";
import { formulaOf, hasCaplabFormula, SheetSnapshot } from "./freeze";
import { isErrorValue } from "./evaluate";
import { barChartXml, insertCharts, scatterChartXml } from "../report/xlsx-charts";
import { cellText, xmlText } from "../report/xml-text";

/** A chart of a sheet to export, as Office.js reads it back (ExcelApi 1.15). */
export interface ExportChart {
  title: string;
  xTitle: string;
  yTitle: string;
  series: {
    name: string;
    /** `Range` strings as `getDimensionDataSourceString` gives them, e.g. `='Case (shared)'!$J$2:$J$5`. */
    xRef: string;
    yRef: string;
    x: unknown[];
    y: unknown[];
    /** Drawn with lines (XYScatterLines…) rather than markers only. */
    lines: boolean;
  }[];
  /**
   * A horizontal bar chart (Excel's BarClustered, a case's tornado): the x values are the category
   * names, the bars start at `base` (where the category axis crosses the value axis; 0 if unknown).
   */
  bar?: { base: number };
}

/** One sheet to export: its used range as Office.js reads it, with its formats and widths. */
export interface ExportSheet extends SheetSnapshot {
  /** `Range.numberFormat` (optional). */
  numberFormat?: string[][];
  /** Column widths in characters from column A (optional). */
  columnWidths?: number[];
  /** Its charts (optional): written as native charts over the same cells of the new file. */
  charts?: ExportChart[];
}

/** A series range on one of the exported sheets, as `'Sheet'!$A$1:$A$4`; undefined for anything else. */
function exportedRange(
  text: string,
  exported: Set<string>,
): { ref: string; sheet: string; first: CellPosition } | undefined {
  const r = parseReference(text.replace(/^=/, "").trim());
  if (!r || r.sheet === undefined || !exported.has(r.sheet.toLowerCase())) return undefined;
  const range = r.single ? addressA1(r.start) : `${addressA1(r.start)}:${addressA1(r.end)}`;
  return { ref: `${quoteSheet(r.sheet)}!${range}`, sheet: r.sheet, first: r.start };
}

/**
 * A chart point's value for the cache: a number, or the text of one (`getDimensionValues` is typed
 * `string[]` in the Office.js declarations); a blank or other text is no point (NaN, which the
 * cache leaves out) rather than a point at 0 as `Number("")` would make it.
 */
function chartNumber(x: unknown): number {
  if (typeof x === "number") return x;
  if (typeof x === "string" && x.trim() !== "") return Number(x);
  return NaN;
}

/**
 * The chart parts of a sheet's charts whose every series draws cells of the exported sheets
 * (a chart that draws a sheet left out is not carried: it would show nothing there).
 */
function chartParts(sheet: ExportSheet, byName: Map<string, ExportSheet>): { parts: string[]; left: number } {
  const exported = new Set(byName.keys());
  const parts: string[] = [];
  let left = 0;
  for (const chart of sheet.charts ?? []) {
    const series = chart.series.map((s) => ({
      s,
      x: exportedRange(s.xRef, exported),
      y: exportedRange(s.yRef, exported),
    }));
    if (series.length === 0) continue; // nothing to draw
    if (series.some((r) => !r.x || !r.y)) {
      left++;
      continue;
    }
    // The y axis shows the number format of the first y cell, on the sheet that range names.
    const first = series[0].y as { first: CellPosition; sheet: string };
    const ySheet = byName.get(first.sheet.toLowerCase()) as ExportSheet;
    const yFormat = ySheet.numberFormat?.[first.first.row - ySheet.row]?.[first.first.col - ySheet.col] ?? "General";
    if (chart.bar) {
      parts.push(
        barChartXml({
          title: chart.title,
          valueTitle: chart.yTitle,
          valueFormat: yFormat === "@" ? "General" : yFormat,
          categoriesRef: (series[0].x as { ref: string }).ref,
          categories: series[0].s.x.map((c) => (c === null || c === undefined ? "" : String(c))),
          base: chart.bar.base,
          series: series.map(({ s, y }) => ({
            name: s.name,
            valuesRef: (y as { ref: string }).ref,
            values: s.y.map(chartNumber),
          })),
        }),
      );
      continue;
    }
    parts.push(
      scatterChartXml({
        title: chart.title,
        xTitle: chart.xTitle,
        yTitle: chart.yTitle,
        yFormat: yFormat === "@" ? "General" : yFormat,
        series: series.map(({ s, x, y }) => ({
          name: s.name,
          xRef: (x as { ref: string }).ref,
          yRef: (y as { ref: string }).ref,
          x: s.x.map(chartNumber),
          y: s.y.map(chartNumber),
          lines: s.lines,
        })),
      }),
    );
  }
  return { parts, left };
}

/** @borgar/fx token types of cell references that may name a sheet (`A1`, `A:A`/`1:1`, trimmed `A1:A`). */
const SHEET_REFERENCES = new Set(["range", "range_beam", "range_ternary"]);

/**
 * True when a formula refers to something the new workbook does not have, so that its value is
 * written instead: a sheet not in it (a copy's references still point at the original sheets,
 * e.g. `'Model'!$H$6`, `SUM(Steps!B:B)` or `Steps!B5:B`; it would be #REF! there), a table
 * (`Steps[Y]`) or a defined name (`MyName`): the new file has neither (#REF!, #NAME?). A name
 * may also be a LET variable; its value is the safe choice there too.
 */
export function refersOutside(formula: string, exported: Set<string>): boolean {
  let tokens: { type: string; value: string }[];
  try {
    // allowTernary: `A1:A` is one trimmed reference (Excel's), not a cell and a name.
    tokens = tokenize(formula, { allowTernary: true }) as { type: string; value: string }[];
  } catch {
    return true; // not understood: the value is the safe choice
  }
  return tokens.some((t) => {
    if (t.type === "structured" || t.type === "range_named") return true;
    if (!SHEET_REFERENCES.has(t.type)) return false;
    const { sheet } = splitSheet(t.value);
    return sheet !== undefined && !exported.has(sheet.toLowerCase());
  });
}

function cachedResult(v: unknown): ExcelJS.CellFormulaValue["result"] {
  if (typeof v === "string") return cellText(v);
  if (typeof v === "number" || typeof v === "boolean") return v;
  if (isErrorValue(v)) return { error: v.error } as ExcelJS.CellErrorValue;
  return undefined;
}

/**
 * Writes the sheets as a new .xlsx.
 *
 * @param sheets - the frozen copies, as read from Excel
 * @param title - the workbook's title property
 * @returns the file's bytes
 * @throws Error naming the sheet and cell when a formula still calls a Capacity Lab function
 * @example
 * const bytes = await valuesOnlyWorkbook([{ name: "Case", row: 0, col: 0, formulas: [["=1+1"]], values: [[2]] }], "Case");
 */
export async function valuesOnlyWorkbook(sheets: ExportSheet[], title: string): Promise<Uint8Array> {
  return (await valuesOnlyExport(sheets, title)).bytes;
}

/**
 * {@link valuesOnlyWorkbook}, with how many of the sheets' charts it wrote and how many it left
 * out (those that draw a sheet not exported).
 */
export async function valuesOnlyExport(
  sheets: ExportSheet[],
  title: string,
): Promise<{ bytes: Uint8Array; written: number; leftOut: number }> {
  const wb = new ExcelJS.Workbook();
  wb.creator = "Capacity Lab";
  // ExcelJS escapes & < > but writes other characters as given: texts pass the one XML filter.
  wb.title = xmlText(title);
  wb.created = new Date(0);
  wb.modified = new Date(0);
  const byName = new Map(sheets.map((x) => [x.name.toLowerCase(), x]));
  const exported = new Set(byName.keys());
  for (const sheet of sheets) {
    const ws = wb.addWorksheet(xmlText(sheet.name));
    sheet.formulas.forEach((line, i) => line.forEach((formula, j) => exportCell(ws, sheet, i, j, formula, exported)));
    sheet.columnWidths?.forEach((w, j) => {
      if (w > 0) ws.getColumn(j + 1).width = w;
    });
  }
  const out = new Uint8Array((await wb.xlsx.writeBuffer()) as ArrayBuffer);
  // Charts (ExcelJS writes none): native charts over the same cells, below each sheet's data.
  let written = 0;
  let leftOut = 0;
  const placements = sheets.map((sheet) => {
    const { parts, left } = chartParts(sheet, byName);
    written += parts.length;
    leftOut += left;
    return { sheet: sheet.name, charts: parts, row: sheet.row + sheet.formulas.length + 1, col: 0 };
  });
  return { bytes: await insertCharts(out, placements), written, leftOut };
}

/** Cell (i, j) of a sheet as read: the value (an error value as such) and its number format. */
function readCell(sheet: ExportSheet, i: number, j: number): { raw: unknown; value: unknown; fmt: string | undefined } {
  const raw = sheet.values[i]?.[j];
  const value = sheet.valueTypes?.[i]?.[j] === "Error" && typeof raw === "string" ? { error: raw } : raw;
  return { raw, value, fmt: sheet.numberFormat?.[i]?.[j] };
}

const isBlank = (formula: unknown): boolean => formula === "" || formula === null || formula === undefined;

/** Writes cell (i, j) of a sheet's used range into the new workbook (see {@link valuesOnlyWorkbook}). */
function exportCell(
  ws: ExcelJS.Worksheet,
  sheet: ExportSheet,
  i: number,
  j: number,
  formula: unknown,
  exported: Set<string>,
): void {
  const { raw, value, fmt } = readCell(sheet, i, j);
  if (isBlank(formula) && (value === "" || value === null)) return;
  const cell = ws.getCell(sheet.row + i + 1, sheet.col + j + 1);
  const live = formulaOf(formula, raw) !== undefined && typeof formula === "string";
  if (live && hasCaplabFormula(formula)) {
    throw new Error(
      `${sheet.name}!${cellA1({ row: sheet.row + i, col: sheet.col + j })}: still has a Capacity Lab formula (${formula}); freeze it first`,
    );
  }
  if (live && !refersOutside(formula, exported)) {
    cell.value = {
      formula: xmlText(formula.slice(1)),
      result: cachedResult(value),
      date1904: false,
    } as ExcelJS.CellFormulaValue;
  } else if (typeof value === "string") cell.value = cellText(value);
  else if (typeof value === "number" || typeof value === "boolean") cell.value = value;
  else if (isErrorValue(value)) cell.value = { error: value.error } as ExcelJS.CellErrorValue;
  if (fmt && fmt !== "General") cell.numFmt = xmlText(fmt);
}

/** Base64 of bytes, as `Excel.createWorkbook` takes them (chunked: no call-stack limit on large files). */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
