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
 * Not carried over: charts (ExcelJS writes none; exceljs#141), Excel table objects, conditional
 * formats. No Office types: testable in Node.
 */
import ExcelJS from "exceljs";
import { tokenize } from "@borgar/fx";
import { columnLetter } from "../analysis/plan";
import { formulaOf, hasCaplabFormula, SheetSnapshot } from "./sharing";
import { isErrorValue, splitReference } from "./sharing-eval";

/** One sheet to export: its used range as Office.js reads it, with its formats and widths. */
export interface ExportSheet extends SheetSnapshot {
  /** `Range.numberFormat` (optional). */
  numberFormat?: string[][];
  /** Column widths in characters from column A (optional). */
  columnWidths?: number[];
}

// Characters XML 1.0 cannot hold; Excel's 32,767-character cell limit (as src/report/xlsx.ts does;
// that module reads files with fs and is not for the browser).
// eslint-disable-next-line no-control-regex
const XML_INVALID = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;
function cellText(text: string): string {
  const clean = text.replace(XML_INVALID, "\uFFFD");
  return clean.length > 32767 ? clean.slice(0, 32766) + "…" : clean;
}

/**
 * True when a formula refers to a sheet that is not in the new workbook (a copy's references still
 * point at the original sheets, e.g. `'Model'!$H$6` or `Steps!B5`): such a formula would become
 * #REF! there, so its value is written instead.
 */
export function refersOutside(formula: string, exported: Set<string>): boolean {
  let tokens: { type: string; value: string }[];
  try {
    tokens = tokenize(formula) as { type: string; value: string }[];
  } catch {
    return true; // not understood: the value is the safe choice
  }
  return tokens.some((t) => {
    if (t.type !== "range") return false;
    const { sheet } = splitReference(t.value);
    return sheet !== undefined && !exported.has(sheet.toLowerCase());
  });
}

function cachedResult(v: unknown): ExcelJS.CellFormulaValue["result"] {
  if (typeof v === "number" || typeof v === "string" || typeof v === "boolean") return v;
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
  const wb = new ExcelJS.Workbook();
  wb.creator = "Capacity Lab";
  wb.title = title;
  wb.created = new Date(0);
  wb.modified = new Date(0);
  const exported = new Set(sheets.map((x) => x.name.toLowerCase()));
  for (const sheet of sheets) {
    const ws = wb.addWorksheet(sheet.name);
    sheet.formulas.forEach((line, i) =>
      line.forEach((formula, j) => {
        const raw = sheet.values[i]?.[j];
        const value = sheet.valueTypes?.[i]?.[j] === "Error" && typeof raw === "string" ? { error: raw } : raw;
        const fmt = sheet.numberFormat?.[i]?.[j];
        if ((formula === "" || formula === null || formula === undefined) && (value === "" || value === null)) return;
        const cell = ws.getCell(sheet.row + i + 1, sheet.col + j + 1);
        const live = formulaOf(formula, raw) !== undefined && typeof formula === "string";
        if (live && hasCaplabFormula(formula)) {
          throw new Error(
            `${sheet.name}!${columnLetter(sheet.col + j)}${sheet.row + i + 1}: still has a Capacity Lab formula (${formula}); freeze it first`,
          );
        }
        if (live && !refersOutside(formula, exported)) {
          cell.value = {
            formula: formula.slice(1),
            result: cachedResult(value),
            date1904: false,
          } as ExcelJS.CellFormulaValue;
        } else if (typeof value === "string") cell.value = cellText(value);
        else if (typeof value === "number" || typeof value === "boolean") cell.value = value;
        else if (isErrorValue(value)) cell.value = { error: value.error } as ExcelJS.CellErrorValue;
        if (fmt && fmt !== "General") cell.numFmt = fmt;
      }),
    );
    sheet.columnWidths?.forEach((w, j) => {
      if (w > 0) ws.getColumn(j + 1).width = w;
    });
  }
  const out = await wb.xlsx.writeBuffer();
  return new Uint8Array(out as ArrayBuffer);
}

/** Base64 of bytes, as `Excel.createWorkbook` takes them (chunked: no call-stack limit on large files). */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
