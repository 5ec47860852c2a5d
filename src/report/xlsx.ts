/**
 * Headless renderer: a {@link WorkbookPlan} to an .xlsx file with ExcelJS.
 *
 * What it writes: one worksheet per sheet plan; the notes in column A from row 1; each table as an
 * Excel table (header row, autofilter, banded rows) at its `at` position, with the column number
 * formats; the first table's header row frozen; column widths fitted to the content (capped).
 * FormulaCells become native formulas with their computed result cached (Excel, LibreOffice and
 * viewers that do not recalculate show the same numbers). ErrorCells become Excel error values.
 *
 * Formula injection: every string in the plan is written as a string cell — a label such as
 * `=HYPERLINK("http://x","y")` stays the text it is. Only FormulaCells produce formulas, and the
 * analysis only builds those from cell addresses and arithmetic.
 *
 * Size: ExcelJS's in-memory writer needs about 1 KB of memory per cell while it writes, so a
 * plan with more than `streamAboveCells` cells (default 250,000; a long subinterval table) is
 * written by `xlsx-stream.ts` instead, row by row as text (ExcelJS's own streaming writer managed
 * ~220,000 cells/s). In that mode each table is a header row with the same style, number formats,
 * frozen header and an autofilter on the largest table — no Excel table objects.
 *
 * No file I/O: the renderer returns bytes or a stream; the command line's `writeOutputs`
 * (`src/cli/outputs.ts`) writes them.
 */
import ExcelJS from "exceljs";
import type { Readable } from "stream";
import {
  cellResult,
  CellValue,
  SheetPlan,
  TablePlan,
  tableCell,
  tableRow,
  tableRowCount,
  WorkbookPlan,
} from "../workbook/plan";
import { cellNumber } from "../core/finite";
import { addNativeCharts } from "./xlsx-charts";
import { formatNumber } from "./html";
import { xlsxStream } from "./xlsx-stream";
import { cellText, planXmlText } from "./xml-text";

const MAX_WIDTH = 60;
const MIN_WIDTH = 6;

function isFormula(v: CellValue): v is { formula: string; result: number | string | null } {
  return typeof v === "object" && v !== null && "formula" in v;
}

/** CAPLAB add-in formulas are written as their computed value: without the add-in they read #NAME?. */
function isAddinFormula(v: CellValue): v is { addinFormula: string; result: number | string | null } {
  return typeof v === "object" && v !== null && "addinFormula" in v;
}

function isError(v: CellValue): v is { error: "#N/A" | "#NUM!" | "#VALUE!" | "#DIV/0!" } {
  return typeof v === "object" && v !== null && "error" in v;
}

// Text as a cell can hold it (characters XML cannot hold → U+FFFD, Excel's 32,767-character limit).
export { cellText };

/**
 * Table column names as Excel requires them: non-empty and unique ignoring case (a label column
 * named like a metric column would otherwise make Excel "repair" the file). Repeats get " (2)", " (3)".
 */
export function uniqueHeaders(headers: readonly string[]): string[] {
  const seen = new Set<string>();
  return headers.map((h, j) => {
    let name = cellText(h).trim() || `column ${j + 1}`;
    for (let n = 2; seen.has(name.toLowerCase()); n++) name = `${cellText(h).trim() || `column ${j + 1}`} (${n})`;
    seen.add(name.toLowerCase());
    return name;
  });
}

/** A computed number as a cell value: finite, `#NUM!` for ±Infinity, empty for NaN ({@link cellNumber}). */
function numberValue(v: number): number | ExcelJS.CellErrorValue | null {
  const c = cellNumber(v);
  return c === "#NUM!" ? { error: c } : c;
}

/** The ExcelJS value for a plan cell. Strings are always string values, never formulas. */
export function excelValue(v: CellValue): ExcelJS.CellValue {
  if (v === null || v === undefined) return null;
  if (typeof v === "string") return cellText(v); // ExcelJS writes plain strings as (shared) strings, not formulas
  if (typeof v === "number") return numberValue(v);
  if (typeof v === "boolean") return v;
  if (isFormula(v)) {
    const f = v.formula.replace(/^=/, "");
    const result = typeof v.result === "number" ? numberValue(v.result) : v.result;
    return result === null ? { formula: f, date1904: false } : { formula: f, result, date1904: false };
  }
  if (isError(v)) return { error: v.error } as ExcelJS.CellErrorValue;
  if (isAddinFormula(v)) return excelValue(v.result);
  return null;
}

/** Approximate display width of a cell in characters, for column fitting. */
function displayWidth(v: CellValue, numFmt: string | undefined): number {
  if (v === null || v === undefined) return 0;
  if (typeof v === "string") return v.length;
  if (typeof v === "boolean") return 5;
  if (isError(v)) return v.error.length;
  const n = isFormula(v) || isAddinFormula(v) ? v.result : v;
  if (typeof n === "string") return n.length;
  if (typeof n !== "number") return 0;
  return numberWidth(n, numFmt);
}

/** Approximate display width of a number in its format. */
function numberWidth(n: number, numFmt: string | undefined): number {
  // A format that shows words for this number (a text-only section): their length.
  const shown = numFmt ? formatNumber(n, numFmt) : "";
  if (shown !== "" && !/\d/.test(shown)) return shown.length;
  const decimals = numFmt ? (/\.(0+)/.exec(numFmt)?.[1].length ?? 0) : 2;
  const grouped = numFmt?.includes(",") ?? false;
  let text = Math.abs(n) >= 1e15 ? n.toExponential(3) : n.toFixed(decimals);
  if (grouped) text = text.replace(/\B(?=(\d{3})+(?!\d))/, ",").replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  if (numFmt?.includes("%")) text += "%";
  return text.length;
}

/** Header cell style, written explicitly too: LibreOffice does not draw Excel table styles. */
function styleHeader(cell: ExcelJS.Cell, description: string | undefined): void {
  cell.font = { bold: true, color: { argb: "FFFFFFFF" } };
  cell.fill = { type: "pattern", pattern: "solid", fgColor: { argb: "FF2F5597" } };
  cell.alignment = { vertical: "middle", wrapText: false };
  if (description) cell.note = description;
}

const PAGE_SETUP: Partial<ExcelJS.PageSetup> = {
  orientation: "landscape",
  fitToPage: true,
  fitToWidth: 1,
  fitToHeight: 0,
  paperSize: 9,
};

/** On a sheet that prints, a header wider than this wraps instead of widening its column. */
const PRINT_HEADER_WIDTH = 16;

function renderTable(ws: ExcelJS.Worksheet, table: TablePlan, widths: number[], prints = false): void {
  const at = table.at;
  const r0 = at.row + 1; // ExcelJS rows and columns are 1-based
  const c0 = at.col + 1;
  const headers = uniqueHeaders(table.columns.map((c) => c.header));
  table.columns.forEach((col, j) => {
    // Room for the filter button; on a printed sheet long headers wrap (the page has a width).
    const header = prints ? Math.min(headers[j].length + 3, PRINT_HEADER_WIDTH) : headers[j].length + 3;
    widths[at.col + j] = Math.max(widths[at.col + j] ?? 0, header);
  });
  const nRows = tableRowCount(table);
  if (nRows === 0) {
    // Excel tables need a data row; write a plain header and say there is nothing.
    table.columns.forEach((col, j) => {
      const cell = ws.getCell(r0, c0 + j);
      cell.value = headers[j];
      cell.font = { bold: true };
    });
    ws.getCell(r0 + 1, c0).value = "(no rows)";
    return;
  }
  ws.addTable({
    name: table.name,
    ref: `${ws.getCell(r0, c0).address}`,
    headerRow: true,
    totalsRow: false,
    style: { theme: "TableStyleMedium2", showRowStripes: true },
    columns: headers.map((name) => ({ name, filterButton: true })),
    rows: Array.from({ length: nRows }, (_, i) => tableRow(table, i).map(excelValue)),
  });
  const formats = new Map((table.cellFormats ?? []).map((f) => [`${f.row},${f.col}`, f.numFmt] as const));
  table.columns.forEach((col, j) => {
    const column = ws.getColumn(c0 + j);
    let w = widths[at.col + j] ?? 0;
    for (let i = 0; i < nRows; i++) {
      const v = i < 2000 ? tableCell(table, i, j) : null;
      const numFmt = formats.get(`${i},${j}`) ?? col.numFmt;
      const cell = ws.getCell(r0 + 1 + i, c0 + j);
      if (col.numFmt) cell.numFmt = col.numFmt;
      if (col.wrap) cell.alignment = { vertical: "top", wrapText: true };
      // A long text in a callout runs on to the right rather than widening the column.
      if (i < 2000 && !(table.callout && typeof cellResult(v) === "string" && String(cellResult(v)).length > 40))
        w = Math.max(w, displayWidth(v, numFmt) + 1);
    }
    // A column of free text with a width set keeps it: its long texts run on to the right (or wrap in it).
    widths[at.col + j] =
      col.width !== undefined && (col.numFmt === "@" || col.wrap) ? Math.max(widths[at.col + j] ?? 0, col.width) : w;
    styleHeader(ws.getCell(r0, c0 + j), col.description);
    if (prints) ws.getCell(r0, c0 + j).alignment = { wrapText: true, vertical: "top" };
    void column;
  });
  for (const f of table.cellFormats ?? []) ws.getCell(r0 + 1 + f.row, c0 + f.col).numFmt = f.numFmt;
  if (table.title !== undefined && at.row > 0) {
    const cell = ws.getCell(r0 - 1, c0);
    cell.value = cellText(table.title);
    cell.font = { bold: true, size: table.callout ? 13 : 12, color: { argb: "FF1F3864" } };
  }
  if (table.callout) boxCallout(ws, table, r0, c0, nRows);
}

/** The verdict's box: a medium border round the table, the figures bold on a light fill. */
function boxCallout(ws: ExcelJS.Worksheet, table: TablePlan, r0: number, c0: number, nRows: number): void {
  const last = table.columns.length - 1;
  const edge = { style: "medium" as const, color: { argb: "FF2F5597" } };
  for (let i = 0; i <= nRows; i++)
    for (let j = 0; j <= last; j++) {
      const cell = ws.getCell(r0 + i, c0 + j);
      cell.border = {
        top: i === 0 ? edge : undefined,
        bottom: i === nRows ? edge : undefined,
        left: j === 0 ? edge : undefined,
        right: j === last ? edge : undefined,
      };
      if (i > 0) {
        cell.fill = { type: "pattern", pattern: "solid", fgColor: { argb: "FFEAF1FB" } };
        cell.font = { bold: j > 0 || i === 1, size: 12 };
        // No wrap unless the column asks for it: a long verdict runs on over the empty cells to its right.
        cell.alignment = { vertical: "top", wrapText: table.columns[j]?.wrap === true };
      }
    }
}

/**
 * Printable width of A4 in pixels at 96 dpi with half-inch margins (697 portrait, 1027 landscape),
 * less 25 %: LibreOffice draws a column of the same width about that much wider than Excel's 7 px a
 * character (its default font's digits are wider), and page 1 must fit in both.
 */
const PRINTABLE_PX = { portrait: 520, landscape: 770 };

/** A column's width in pixels as Excel draws it: 7 px a character of the default font, plus 5. */
const columnPx = (chars: number): number => Math.trunc(Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, chars)) * 7 + 5);

/** The print scale: the plan's, lowered (not below its minimum) until columns 0 … fitColumns fit the page width. */
function printScale(sheet: SheetPlan, widths: number[]): number {
  const p = sheet.print;
  if (!p) return 100;
  if (p.fitColumns === undefined) return p.scale;
  let px = 0;
  for (let j = 0; j <= p.fitColumns; j++) px += columnPx(widths[j] ?? MIN_WIDTH);
  const fit = Math.floor((100 * PRINTABLE_PX[p.orientation]) / px);
  return Math.max(p.minScale ?? 10, Math.min(p.scale, fit));
}

/** The page setup of a sheet with a print plan: its orientation, area and scale, no fit-to-page (text keeps its size). */
function pageSetupOf(sheet: SheetPlan, widths: number[] = []): Partial<ExcelJS.PageSetup> {
  const p = sheet.print;
  if (!p) return PAGE_SETUP;
  return {
    orientation: p.orientation,
    fitToPage: false,
    scale: printScale(sheet, widths),
    paperSize: 9,
    printArea: p.area,
    margins: { left: 0.5, right: 0.5, top: 0.5, bottom: 0.5, header: 0.3, footer: 0.3 },
  };
}

/**
 * A sheet's print plan beyond the page setup: page breaks above the rows that begin a page, and the
 * notes wrapped across the printed width (merged, with room for their lines) so none is cut.
 */
function applyPrint(ws: ExcelJS.Worksheet, sheet: SheetPlan, widths: number[]): void {
  const p = sheet.print;
  if (!p) return;
  for (const r of p.pageBreaks) if (r > 0) ws.getRow(r).addPageBreak();
  if (p.notesToColumn === undefined) return;
  const last = p.notesToColumn;
  let chars = 0;
  for (let j = 0; j <= last; j++) chars += Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, widths[j] ?? MIN_WIDTH));
  sheet.notes.forEach((note, i) => {
    if (last > 0) ws.mergeCells(i + 1, 1, i + 1, last + 1);
    const cell = ws.getCell(i + 1, 1);
    cell.alignment = { wrapText: true, vertical: "top" };
    // Merged cells do not grow to fit their text: room for the lines it needs, 15 pt each (the title 18).
    const lines = Math.max(1, Math.ceil((note.length * 1.1) / Math.max(chars, 1)));
    ws.getRow(i + 1).height = lines * (i === 0 ? 18 : 15);
  });
}

function renderSheet(wb: ExcelJS.Workbook, sheet: SheetPlan): void {
  const ws = wb.addWorksheet(sheet.name, { pageSetup: pageSetupOf(sheet) });
  sheet.notes.forEach((note, i) => {
    const cell = ws.getCell(i + 1, 1);
    const live = sheet.noteFormulas?.find((f) => f.note === i);
    cell.value = live ? { formula: live.formula, result: cellText(note), date1904: false } : cellText(note);
    if (i === 0) cell.font = { bold: true, size: 13 };
  });
  const widths: number[] = [];
  for (const table of sheet.tables) renderTable(ws, table, widths, sheet.print !== undefined);
  const firstHeader = sheet.tables.length > 0 ? sheet.tables[0].at.row : null;
  widths.forEach((w, j) => {
    ws.getColumn(j + 1).width = Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, w));
  });
  for (const j of hiddenColumns(sheet)) ws.getColumn(j + 1).hidden = true;
  if (sheet.freezeHeader && firstHeader !== null) {
    ws.views = [{ state: "frozen", xSplit: 0, ySplit: firstHeader + 1, topLeftCell: `A${firstHeader + 2}` }];
  }
  if (sheet.print) ws.pageSetup = { ...ws.pageSetup, ...pageSetupOf(sheet, widths) };
  applyPrint(ws, sheet, widths);
  if (sheet.print) {
    fitWrappedRows(ws, sheet, widths);
    fitFirstPage(ws, sheet);
  }
}

/** Printable height of A4 in points with half-inch margins. */
const PRINTABLE_PT = { portrait: 842 - 72, landscape: 595 - 72 };

/** Lowers the print scale (not below the plan's minimum) until the rows above the first page break fit page 1. */
function fitFirstPage(ws: ExcelJS.Worksheet, sheet: SheetPlan): void {
  const p = sheet.print;
  const first = p?.pageBreaks.find((r) => r > 0);
  if (!p || first === undefined) return;
  let pt = 0;
  for (let r = 1; r <= first; r++) pt += ws.getRow(r).height ?? 15;
  const fit = Math.floor((100 * PRINTABLE_PT[p.orientation]) / pt);
  const now = ws.pageSetup.scale ?? 100;
  if (fit < now) ws.pageSetup = { ...ws.pageSetup, scale: Math.max(p.minScale ?? 10, fit) };
}

/**
 * Rows with wrapped text get the height of their lines (15 pt a line): spreadsheets do not grow a
 * row written without a height when they open a file, so the text would be cut.
 */
function fitWrappedRows(ws: ExcelJS.Worksheet, sheet: SheetPlan, widths: number[]): void {
  const lines = new Map<number, number>();
  const need = (row: number, text: string, col: number): void => {
    const width = Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, widths[col] ?? MIN_WIDTH));
    const n = Math.ceil(text.length / Math.max(width - 1, 1));
    lines.set(row, Math.max(lines.get(row) ?? 1, n));
  };
  for (const t of sheet.tables) {
    t.columns.forEach((c, j) => need(t.at.row, c.header, t.at.col + j));
    t.columns.forEach((c, j) => {
      if (!c.wrap) return;
      for (let i = 0; i < Math.min(tableRowCount(t), 2000); i++) {
        const v = cellResult(tableCell(t, i, j));
        if (typeof v === "string") need(t.at.row + 1 + i, v, t.at.col + j);
      }
    });
  }
  for (const [row, n] of lines) if (n > 1) ws.getRow(row + 1).height = 15 * n;
}

/** 0-based columns of a sheet's hidden (chart data) tables: written, then hidden. */
export function hiddenColumns(sheet: SheetPlan): number[] {
  const out: number[] = [];
  for (const t of sheet.tables) if (t.hidden) for (let j = 0; j < t.columns.length; j++) out.push(t.at.col + j);
  return out;
}

/**
 * Renders a workbook plan to .xlsx bytes.
 *
 * @param plan - the plan (not modified)
 * @returns the .xlsx file contents
 * @example
 * const bytes = await renderXlsx(buildLabPlan([readLabText(csv, "s.csv")]));
 */
export async function renderXlsx(original: WorkbookPlan): Promise<Buffer> {
  // ExcelJS escapes & < > but writes any other character as given: the plan's texts (title → core.xml,
  // sheet names → workbook.xml, headers, notes, formulas) go through the one XML filter first.
  const plan = planXmlText(original);
  const wb = new ExcelJS.Workbook();
  wb.creator = "Capacity Lab";
  wb.title = plan.title;
  wb.created = new Date(0);
  wb.modified = new Date(0);
  for (const sheet of plan.sheets) renderSheet(wb, sheet);
  const out = await wb.xlsx.writeBuffer();
  return Buffer.from(out as ArrayBuffer);
}

/** Number of cells in the plan's tables (header rows included). */
export function planCells(plan: WorkbookPlan): number {
  let n = 0;
  for (const sheet of plan.sheets) for (const t of sheet.tables) n += (tableRowCount(t) + 1) * t.columns.length;
  return n;
}

export interface XlsxOptions {
  /** Above this many cells the streaming writer is used (default 250,000). */
  streamAboveCells?: number;
  /**
   * Called by the streaming writer as it goes (about every 64 KiB of XML) with the table cells
   * written so far (as {@link planCells} counts them) and the sheet being written.
   */
  progress?: (cellsWritten: number, sheet: string) => void;
}

const DEFAULT_STREAM_ABOVE = 250_000;

/** Column widths of a sheet from its headers and (the first 2000 rows of) its tables. */
function sheetWidths(sheet: SheetPlan): number[] {
  const widths: number[] = [];
  for (const table of sheet.tables) {
    const at = table.at;
    table.columns.forEach((col, j) => {
      let w = Math.max(widths[at.col + j] ?? 0, col.header.length + 3);
      const n = Math.min(tableRowCount(table), 2000);
      for (let i = 0; i < n; i++) w = Math.max(w, displayWidth(tableCell(table, i, j), col.numFmt) + 1);
      widths[at.col + j] = w;
    });
  }
  return widths.map((w) => Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, w ?? MIN_WIDTH)));
}

/**
 * The plan as .xlsx for the command line's writer: bytes from ExcelJS, or — above
 * `streamAboveCells` cells — a stream from the text-level writer (`xlsx-stream.ts`). No file is
 * opened here.
 *
 * @param plan - the workbook plan
 * @param options - `streamAboveCells`, `progress`
 * @returns the .xlsx bytes, or a stream of them
 */
export async function renderXlsxContent(plan: WorkbookPlan, options: XlsxOptions = {}): Promise<Buffer | Readable> {
  if (planCells(plan) > (options.streamAboveCells ?? DEFAULT_STREAM_ABOVE))
    return xlsxStream(planXmlText(plan), { cellText, uniqueHeaders, sheetWidths }, options.progress);
  // Native charts (those over a table's cells) are added to the in-memory file; the streamed one,
  // for plans too large to hold, has none (the HTML report draws them). Their texts and sheet
  // references go through the same XML filter as the sheets'.
  return addNativeCharts(await renderXlsx(plan), planXmlText(plan));
}
