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
 * Files: {@link writeXlsxFile} renders fully in memory, writes a temporary file beside the
 * target and renames it into place, so a reader never sees half a file and a failure leaves
 * nothing behind.
 */
import ExcelJS from "exceljs";
import * as fs from "fs";
import * as path from "path";
import { CellValue, SheetPlan, TablePlan, WorkbookPlan } from "../analysis/plan";

const MAX_WIDTH = 60;
const MIN_WIDTH = 6;

function isFormula(v: CellValue): v is { formula: string; result: number | string | null } {
  return typeof v === "object" && v !== null && "formula" in v;
}

function isError(v: CellValue): v is { error: "#N/A" | "#NUM!" | "#VALUE!" | "#DIV/0!" } {
  return typeof v === "object" && v !== null && "error" in v;
}

/** The ExcelJS value for a plan cell. Strings are always string values, never formulas. */
export function excelValue(v: CellValue): ExcelJS.CellValue {
  if (v === null || v === undefined) return null;
  if (typeof v === "string") return v; // ExcelJS writes plain strings as (shared) strings, not formulas
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (typeof v === "boolean") return v;
  if (isFormula(v)) {
    const f = v.formula.replace(/^=/, "");
    return v.result === null ? { formula: f, date1904: false } : { formula: f, result: v.result, date1904: false };
  }
  if (isError(v)) return { error: v.error } as ExcelJS.CellErrorValue;
  return null;
}

/** Approximate display width of a cell in characters, for column fitting. */
function displayWidth(v: CellValue, numFmt: string | undefined): number {
  if (v === null || v === undefined) return 0;
  if (typeof v === "string") return v.length;
  if (typeof v === "boolean") return 5;
  if (isError(v)) return v.error.length;
  const n = isFormula(v) ? v.result : v;
  if (typeof n === "string") return n.length;
  if (typeof n !== "number") return 0;
  const decimals = numFmt ? (/\.(0+)/.exec(numFmt)?.[1].length ?? 0) : 2;
  const grouped = numFmt?.includes(",") ?? false;
  let text = Math.abs(n) >= 1e15 ? n.toExponential(3) : n.toFixed(decimals);
  if (grouped) text = text.replace(/\B(?=(\d{3})+(?!\d))/, ",").replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  if (numFmt?.includes("%")) text += "%";
  return text.length;
}

function renderTable(
  ws: ExcelJS.Worksheet,
  table: TablePlan,
  at: { row: number; col: number },
  widths: number[],
): void {
  const r0 = at.row + 1; // ExcelJS rows and columns are 1-based
  const c0 = at.col + 1;
  table.columns.forEach((col, j) => {
    widths[at.col + j] = Math.max(widths[at.col + j] ?? 0, col.header.length + 3); // room for the filter button
  });
  if (table.rows.length === 0) {
    // Excel tables need a data row; write a plain header and say there is nothing.
    table.columns.forEach((col, j) => {
      const cell = ws.getCell(r0, c0 + j);
      cell.value = col.header;
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
    columns: table.columns.map((c) => ({ name: c.header, filterButton: true })),
    rows: table.rows.map((row) => row.map(excelValue)),
  });
  table.columns.forEach((col, j) => {
    const column = ws.getColumn(c0 + j);
    let w = widths[at.col + j] ?? 0;
    for (let i = 0; i < table.rows.length; i++) {
      const v = table.rows[i][j];
      const cell = ws.getCell(r0 + 1 + i, c0 + j);
      if (col.numFmt) cell.numFmt = col.numFmt;
      if (i < 2000) w = Math.max(w, displayWidth(v, col.numFmt) + 1);
    }
    widths[at.col + j] = w;
    const header = ws.getCell(r0, c0 + j);
    // Explicit header style too: LibreOffice does not draw Excel table styles.
    header.font = { bold: true, color: { argb: "FFFFFFFF" } };
    header.fill = { type: "pattern", pattern: "solid", fgColor: { argb: "FF2F5597" } };
    header.alignment = { vertical: "middle", wrapText: false };
    if (col.description) header.note = col.description;
    void column;
  });
}

function renderSheet(wb: ExcelJS.Workbook, sheet: SheetPlan): void {
  const ws = wb.addWorksheet(sheet.name, {
    pageSetup: { orientation: "landscape", fitToPage: true, fitToWidth: 1, fitToHeight: 0, paperSize: 9 },
  });
  sheet.notes.forEach((note, i) => {
    const cell = ws.getCell(i + 1, 1);
    cell.value = note;
    if (i === 0) cell.font = { bold: true, size: 13 };
  });
  const widths: number[] = [];
  let next = sheet.notes.length > 0 ? sheet.notes.length + 1 : 0;
  let firstHeader: number | null = null;
  for (const table of sheet.tables) {
    const at = table.at ?? { row: next, col: 0 };
    renderTable(ws, table, at, widths);
    if (firstHeader === null) firstHeader = at.row;
    next = Math.max(next, at.row + table.rows.length + 3);
  }
  widths.forEach((w, j) => {
    ws.getColumn(j + 1).width = Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, w));
  });
  if (sheet.freezeHeader && firstHeader !== null) {
    ws.views = [{ state: "frozen", xSplit: 0, ySplit: firstHeader + 1, topLeftCell: `A${firstHeader + 2}` }];
  }
}

/**
 * Renders a workbook plan to .xlsx bytes.
 *
 * @param plan - the plan (not modified)
 * @returns the .xlsx file contents
 * @example
 * const bytes = await renderXlsx(buildLabPlan([readLabText(csv, "s.csv")]));
 */
export async function renderXlsx(plan: WorkbookPlan): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  wb.creator = "Capacity Lab";
  wb.title = plan.title;
  wb.created = new Date(0);
  wb.modified = new Date(0);
  for (const sheet of plan.sheets) renderSheet(wb, sheet);
  const out = await wb.xlsx.writeBuffer();
  return Buffer.from(out as ArrayBuffer);
}

/**
 * Writes bytes to `target` atomically: a temporary file in the same directory, then a rename.
 * On failure the temporary file is removed and `target` is untouched.
 *
 * @param target - the output path
 * @param bytes - the contents
 */
export function writeFileAtomic(target: string, bytes: Buffer | string): void {
  const dir = path.dirname(path.resolve(target));
  const tmp = path.join(dir, `.${path.basename(target)}.${process.pid}.${Date.now()}.tmp`);
  try {
    fs.writeFileSync(tmp, bytes, { flag: "wx" });
    fs.renameSync(tmp, target);
  } catch (e) {
    try {
      fs.unlinkSync(tmp);
    } catch {
      // nothing to clean up
    }
    throw e;
  }
}

/**
 * Renders the plan and writes it to `target` (temporary file + rename).
 *
 * @param plan - the workbook plan
 * @param target - the .xlsx path
 */
export async function writeXlsxFile(plan: WorkbookPlan, target: string): Promise<void> {
  writeFileAtomic(target, await renderXlsx(plan));
}
