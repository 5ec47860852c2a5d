/**
 * The workbook plan: what an analysis produces, as plain data.
 *
 * One analysis (`src/analysis/`) builds a plan; two renderers draw it: ExcelJS/HTML
 * (`src/report/`, headless) and Office.js (`src/excel/`, inside Excel). A plan holds no
 * Office or ExcelJS objects and no functions, so it can be serialised to JSON and
 * compared in tests. Renderers never compute numbers: everything shown is in the plan.
 */

/** A formula a renderer writes as a live native Excel formula (no CAPLAB.* functions). */
export interface FormulaCell {
  formula: string; // without the leading "=", in A1 style, e.g. "B2/C2"
  result: number | string | null; // the value the analysis computed, for renderers that cannot evaluate
}

/**
 * A cell whose live form is a CAPLAB.* add-in formula, with the value the analysis computed.
 * Renderers choose: Office.js writes the formula once the add-in's functions are registered in
 * its runtime; renderers without the add-in (ExcelJS, HTML, text) write `result`, because a file
 * opened without the add-in shows `#NAME?` for CAPLAB formulas.
 *
 * One cell, one formula (e.g. MMC_RESPONSE per row). A formula that returns an array (DOE_FIT)
 * covers a whole table instead: see {@link TablePlan.arrayFormula}.
 *
 * @example { addinFormula: "CAPLAB.MMC_RESPONSE(R5,S5/1000,E5)*1000", result: 0.21 }
 */
export interface AddinFormulaCell {
  /** Without the leading "=", A1 style; references to other sheets are quoted ('Steps'!B3). */
  addinFormula: string;
  /** The value the analysis computed for this cell. */
  result: number | string | null;
}

/** An Excel error value in a cell (e.g. an aliased DOE_FIT term). */
export interface ErrorCell {
  error: "#N/A" | "#NUM!" | "#VALUE!" | "#DIV/0!";
}

/**
 * A cell. Strings are ALWAYS data: renderers must write them as text, never as formulas,
 * even when they begin with "=", "+", "-", "@", tab or CR (formula injection).
 */
export type CellValue = number | string | boolean | null | FormulaCell | AddinFormulaCell | ErrorCell;

/** True for a {@link FormulaCell}. */
export function isFormulaCell(v: CellValue): v is FormulaCell {
  return typeof v === "object" && v !== null && "formula" in v;
}

/** True for an {@link AddinFormulaCell}. */
export function isAddinFormulaCell(v: CellValue): v is AddinFormulaCell {
  return typeof v === "object" && v !== null && "addinFormula" in v;
}

/**
 * The value a renderer without live formulas shows for a cell: a formula's result, an error's
 * code kept as the error object, anything else as is.
 *
 * @example cellResult({ addinFormula: "CAPLAB.MMC_RESPONSE(1,2,0.1)", result: 2.5 }) // => 2.5
 */
export function cellResult(v: CellValue): number | string | boolean | null | ErrorCell {
  if (isFormulaCell(v) || isAddinFormulaCell(v)) return v.result;
  return v;
}

export interface ColumnPlan {
  /**
   * Stable identifier of the column within its table (e.g. `iops`, `label:protocol`), used by
   * tests, chart sources and text tables instead of the display header, which may change.
   */
  key: string;
  /** Header text as shown. */
  header: string;
  /** Excel number format, e.g. "0.00", "0.0%", "#,##0", "@" for text. */
  numFmt?: string;
  /** Width in characters; renderers fit to content when absent. */
  width?: number;
  /** One-line explanation (HTML tooltip, Excel note). */
  description?: string;
}

/**
 * One column of a table stored column by column, as JSON-safe plain data: numbers in one array of
 * doubles (V8 keeps it unboxed, 8 bytes a value, nothing for the garbage collector to trace) with
 * the positions of empty cells listed apart (ascending; their slot in `values` holds 0), or texts
 * as codes into a list of distinct texts. The task pane's worker hands `values` and `codes` over as
 * typed arrays (their buffers transferred, not copied); readers only index them and read `length`.
 */
export type ColumnData =
  | { kind: "number"; values: number[] | Float64Array; empty: number[] }
  | { kind: "text"; codes: number[] | Uint32Array; texts: string[] };

/**
 * A large table's cells column by column (the Subintervals sheet of a million-row CSV): one array
 * per column instead of a `CellValue[]` per row, read cell by cell with {@link tableCell} /
 * {@link tableRow}.
 */
export interface ColumnarRows {
  /** Number of rows; every column has this many values. */
  length: number;
  /** One entry per table column, in `columns` order. */
  data: ColumnData[];
}

export interface TablePlan {
  /** Excel table name: letters, digits, underscores; unique in the workbook. */
  name: string;
  columns: ColumnPlan[];
  /** The rows, when the table is not `columnar` (then this is empty). Read with {@link tableRow}. */
  rows: CellValue[][];
  /**
   * Present for tables stored column by column; `rows` is then empty. Renderers read any table
   * through {@link tableRowCount}, {@link tableRow} and {@link tableCell}, which handle both forms.
   */
  columnar?: ColumnarRows;
  /**
   * Where the header row is, as a 0-based sheet position (row 0 = Excel row 1). Grid renderers
   * (xlsx, Office.js) write the sheet's `notes` in column A from row 0 down, and place each table
   * at `at`; FormulaCell formulas in the rows refer to cells by these positions. When absent, a
   * renderer places the table below the notes and the previous table, one blank row between.
   */
  at?: { row: number; col: number };
  /**
   * When present, the header and rows are the array this add-in formula returns (without "=";
   * e.g. `CAPLAB.DOE_FIT(A5:B9,C5:C9,2)`, addresses relative to the same sheet). A live renderer
   * writes the formula in the header's first cell and lets it spill (not inside an Excel table,
   * which cannot hold a spilling formula), after the add-in's functions are registered; the
   * others write the header and rows as values.
   */
  arrayFormula?: string;
}

export interface SeriesPlan {
  name: string;
  x: number[];
  y: number[];
  style: "points" | "line" | "points+line";
}

export interface ChartPlan {
  id: string;
  title: string;
  kind: "scatter" | "line";
  xTitle: string;
  yTitle: string;
  series: SeriesPlan[];
  /**
   * The table (by name) and its columns (by {@link ColumnPlan.key}) the series come from, for
   * native Excel charts drawn over the cells. `yColumns[i]` gives `series[i]` where both exist.
   */
  source?: { table: string; xColumn: string; yColumns: string[] };
}

export interface SheetPlan {
  /** Sheet name (≤ 31 chars, none of : \ / ? * [ ]). */
  name: string;
  /** Lines of text above the tables (title, notes, warnings). */
  notes: string[];
  /**
   * Notes that are live formulas where the renderer writes formulas (xlsx, Office.js): `notes[note]`
   * is the formula's value (what text renderers show, and the cached result), `formula` (A1, no
   * "=", native functions only) computes it from the sheet's cells, e.g. a case's conclusion line.
   */
  noteFormulas?: { note: number; formula: string }[];
  tables: TablePlan[];
  charts: ChartPlan[];
  /** Freeze the first table's header row. */
  freezeHeader: boolean;
}

export interface WorkbookPlan {
  title: string;
  /** Input files, as given. */
  sources: string[];
  /** Problems the user should know about (skipped truncated lines, missing data). */
  warnings: string[];
  sheets: SheetPlan[];
}

/**
 * Number of data rows of a table, whichever form it has.
 *
 * @param table - a table plan
 * @returns its row count (header not included)
 * @example
 * tableRowCount({ name: "T", columns: [{ key: "a", header: "a" }], rows: [[1], [2]] }) // => 2
 */
export function tableRowCount(table: TablePlan): number {
  return table.columnar ? table.columnar.length : table.rows.length;
}

/**
 * One cell of a table, whichever form it has. Cost O(1) (O(log e) for a number column with e
 * empty cells); a columnar cell is made on the spot (a listed empty cell → null, a code → its text).
 *
 * @param table - a table plan
 * @param row - 0-based data row, below {@link tableRowCount}
 * @param col - 0-based column
 * @returns the cell (null when empty)
 * @example
 * tableCell({ name: "T", columns: [{ key: "a", header: "a" }], rows: [], columnar: { length: 1, data: [{ kind: "number", values: [0], empty: [0] }] } }, 0, 0)
 * // => null
 */
export function tableCell(table: TablePlan, row: number, col: number): CellValue {
  const c = table.columnar;
  if (!c) return table.rows[row][col] ?? null;
  const d = c.data[col];
  if (d.kind === "text") return d.texts[d.codes[row]];
  return d.empty.length > 0 && isListed(d.empty, row) ? null : d.values[row];
}

/** Binary search in an ascending list. */
function isListed(sorted: number[], x: number): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] === x) return true;
    if (sorted[mid] < x) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/**
 * One row of a table as cells, whichever form it has (a fresh array for a columnar table, the
 * plan's own array otherwise: do not modify it).
 *
 * @param table - a table plan
 * @param row - 0-based data row
 * @returns the row's cells in column order
 * @example
 * tableRow({ name: "T", columns: [{ key: "a", header: "a" }], rows: [["x"]] }, 0) // => ["x"]
 */
export function tableRow(table: TablePlan, row: number): CellValue[] {
  if (!table.columnar) return table.rows[row];
  const out: CellValue[] = new Array<CellValue>(table.columns.length);
  for (let j = 0; j < out.length; j++) out[j] = tableCell(table, row, j);
  return out;
}

/**
 * The 0-based index of a table's column by key.
 *
 * @param table - a table plan
 * @param key - a {@link ColumnPlan.key}
 * @returns its index, or -1 when the table has no such column
 * @example columnIndex({ name: "T", columns: [{ key: "x", header: "X IOPS" }], rows: [] }, "x") // => 0
 */
export function columnIndex(table: TablePlan, key: string): number {
  return table.columns.findIndex((c) => c.key === key);
}

/**
 * Column letters of a 0-based column index, as in A1 references: 0 → A, 25 → Z, 26 → AA.
 * Cost O(log₂₆ col).
 *
 * @param col - 0-based column
 * @returns the letters
 * @example
 * columnLetter(27) // => "AB"
 */
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
