/**
 * The workbook plan: what an analysis produces, as plain data.
 *
 * The lab analysis (`src/lab/`) and the business case (`src/case/`) build a plan; two renderers draw it: ExcelJS/HTML
 * (`src/report/`, headless) and Office.js (`src/excel/`, inside Excel). A plan holds no
 * Office or ExcelJS objects and no functions, so it can be serialised to JSON and
 * compared in tests. Renderers never compute numbers: everything shown is in the plan.
 *
 * The plan is also the one contract on geometry: this module alone decides where a table goes
 * ({@link rowBelow}), reads and writes A1 references ({@link parseReference}, {@link cellA1}),
 * samples chart series ({@link samplePoints}) and gives a table's cells by table name and column
 * key ({@link workbookLayout}, {@link tableCellA1}), so no renderer or consumer re-derives a row
 * or searches for a header text.
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
  /** Wrap long texts in this column's cells (within `width`) instead of letting them run on to the right. */
  wrap?: boolean;
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

/** A 0-based sheet position: row 0, col 0 is A1. */
export interface CellPosition {
  row: number;
  col: number;
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
   * Where the header row is, as a 0-based sheet position (row 0 = Excel row 1). Every renderer
   * places the table here and nowhere else (the notes go in column A from row 0 down); formulas in
   * the rows refer to cells by these positions. {@link SheetBuilder} sets it by the one placement
   * rule, {@link rowBelow}; a renderer never computes a position of its own.
   */
  at: CellPosition;
  /**
   * When present, the header and rows are the array this add-in formula returns (without "=";
   * e.g. `CAPLAB.DOE_FIT(A5:B9,C5:C9,2)`, addresses relative to the same sheet). A live renderer
   * writes the formula in the header's first cell and lets it spill (not inside an Excel table,
   * which cannot hold a spilling formula), after the add-in's functions are registered; the
   * others write the header and rows as values.
   */
  arrayFormula?: string;
  /**
   * A helper table holding chart data (fitted curves, knees) that is not a result to read: the
   * workbook renderers write it and hide its columns (charts still draw from them); the HTML and
   * text reports leave it out (they draw the series from the chart plan).
   */
  hidden?: boolean;
  /**
   * A human title for the table ("Cost per year"), shown above it: in a workbook in the row above
   * the header (the placement leaves that row free for it), in HTML as the table's caption.
   * Without one, HTML captions show {@link TablePlan.name}.
   */
  title?: string;
  /** The table is the sheet's verdict (a case's recommendation): drawn boxed and emphasised. */
  callout?: boolean;
  /**
   * Number formats of single cells that differ from their column's (a column mixing a server
   * count, a fraction shown as a percentage and a time); `row` is the 0-based data row.
   */
  cellFormats?: { row: number; col: number; numFmt: string }[];
}

/** The number format of one data cell: its own (see {@link TablePlan.cellFormats}) or its column's. */
export function cellNumFmt(table: TablePlan, row: number, col: number): string | undefined {
  const own = table.cellFormats?.find((f) => f.row === row && f.col === col);
  return own ? own.numFmt : table.columns[col]?.numFmt;
}

export interface SeriesPlan {
  name: string;
  x: number[];
  y: number[];
  style: "points" | "line" | "points+line";
  /**
   * The series' cells on the chart's own sheet: a table (by name) and its x and y columns (by key),
   * rows from the first down to `x.length` (usually a {@link TablePlan.hidden} helper table).
   * Workbook renderers draw the series over these cells.
   */
  cells?: { table: string; x: string; y: string };
}

export interface ChartPlan {
  id: string;
  title: string;
  /**
   * `bar`: horizontal bars, one category per row of the source table (its `xColumn` holds the
   * category names, in `categories`), each series a bar drawn from {@link ChartPlan.base} to the
   * series' value (a tornado: low and high values of each driver around the base case).
   */
  kind: "scatter" | "line" | "bar";
  /** For `bar`: the category names, top to bottom. */
  categories?: string[];
  /** For `bar`: the value the bars start from (the category axis crosses there). */
  base?: number;
  xTitle: string;
  yTitle: string;
  /** A base-10 logarithmic x axis (all x > 0): for throughputs that span decades. */
  xLog?: boolean;
  series: SeriesPlan[];
  /**
   * The table (by name) and its columns (by {@link ColumnPlan.key}) the series come from, for
   * native Excel charts drawn over the cells. `yColumns[i]` gives `series[i]` where both exist.
   */
  source?: { table: string; xColumn: string; yColumns: string[] };
  /**
   * Where a workbook renderer puts the chart's top-left corner (0-based; rows the sheet left free
   * for it, see {@link PrintSetup}); without it, below the sheet's tables.
   */
  anchor?: CellPosition;
}

/**
 * How a sheet prints: orientation, the print area, where pages break, at what scale. Text keeps its
 * size (no fit-to-page shrinking: a wide sheet fitted to one page width prints at 3 pt); wide
 * tables continue on the pages to their right.
 */
export interface PrintSetup {
  orientation: "portrait" | "landscape";
  /** The print area, an A1 range without a sheet name. */
  area: string;
  /** 0-based rows that begin a new page (so no chart or table is cut across pages). */
  pageBreaks: number[];
  /** Print scale in percent (10–400): the largest the renderer uses (see `fitColumns`). */
  scale: number;
  /**
   * The last column (0-based) page 1 must show whole: the renderer lowers the scale, not below
   * `minScale`, until columns 0 … this fit the page's width.
   */
  fitColumns?: number;
  /** The least scale in percent (73: 11-point text prints at 8 points). */
  minScale?: number;
  /** The notes are wrapped across columns 0 … this (0-based), so a long line prints whole. */
  notesToColumn?: number;
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
  /** How the sheet prints (renderers that print: .xlsx, Office.js). */
  print?: PrintSetup;
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

// ---------------------------------------------------------------------------------------------
// Placement: the one rule

/** Blank rows between the notes and the first table, and between one table and the next. */
export const BLANK_ROWS_BETWEEN = 1;

/**
 * The first row free for the next block below a block of `height` rows starting at row `top`,
 * leaving {@link BLANK_ROWS_BETWEEN} blank rows: the only placement rule of a sheet.
 *
 * @param top - the block's first row (0-based)
 * @param height - its rows (a table: header + data rows; notes: their count); 0 for no block
 * @returns the row for the next block (`top` itself when the block is empty)
 * @example
 * rowBelow(0, 3) // => 4 (notes in rows 1–3, row 4 blank, the table's header in row 5)
 */
export function rowBelow(top: number, height: number): number {
  return height > 0 ? top + height + BLANK_ROWS_BETWEEN : top;
}

/**
 * The first row free below a table (its header, its rows, then the blank rows).
 *
 * @example
 * rowBelowTable({ name: "T", at: { row: 4, col: 0 }, columns: [{ key: "a", header: "a" }], rows: [[1], [2]] }) // => 8
 */
export function rowBelowTable(table: TablePlan): number {
  return rowBelow(table.at.row, 1 + tableRowCount(table));
}

// ---------------------------------------------------------------------------------------------
// A1 references: the one reader and writer

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

/**
 * The 0-based column index of A1 column letters (case-insensitive): A → 0, Z → 25, AA → 26.
 *
 * @example
 * columnOfLetters("AB") // => 27
 */
export function columnOfLetters(letters: string): number {
  let col = 0;
  for (const ch of letters.toUpperCase()) col = col * 26 + (ch.charCodeAt(0) - 64);
  return col - 1;
}

/** Excel's last row and column (1,048,576 rows, XFD columns). */
export const EXCEL_ROWS = 1_048_576;
export const EXCEL_COLUMNS = 16_384;

/** One end of an A1 reference: its position and whether each part is absolute (`$`). */
export interface CellAddress extends CellPosition {
  rowAbsolute: boolean;
  colAbsolute: boolean;
}

/** An A1 cell or range reference, optionally on a named sheet. */
export interface Reference {
  /** The sheet name unquoted (`'It''s'` → `It's`), or undefined for the formula's own sheet. */
  sheet: string | undefined;
  start: CellAddress;
  /** The other corner for a range (`A1:B2`); equal to `start` for one cell. */
  end: CellAddress;
  /** True when the text named one cell (no `:`). */
  single: boolean;
}

/**
 * Splits a reference into its sheet (unquoted) and the rest, without reading the rest:
 * `'My sheet'!A1:B2` → `My sheet`, `A1:B2`; `Model!A1` → `Model`, `A1`; `A1` → undefined, `A1`.
 *
 * @example
 * splitSheet("'It''s'!$B$2") // => { sheet: "It's", range: "$B$2" }
 */
export function splitSheet(ref: string): { sheet: string | undefined; range: string } {
  const bang = ref.lastIndexOf("!");
  if (bang < 0) return { sheet: undefined, range: ref };
  let sheet = ref.slice(0, bang);
  if (sheet.length >= 2 && sheet.startsWith("'") && sheet.endsWith("'")) sheet = sheet.slice(1, -1).replace(/''/g, "'");
  return { sheet, range: ref.slice(bang + 1) };
}

const CELL = /^(\$?)([A-Za-z]{1,3})(\$?)([0-9]{1,7})$/;
/**
 * A sheet name as a reference writes it: quoted ('' for a quote inside), or bare letters, digits,
 * _ and . (letters of any script) — never with a character Excel refuses in a sheet name (\ / ? * [ ] :).
 */
const SHEET = /^(?:'(?:[^'\\/?*[\]:]|'')+'|[\p{L}_][\p{L}\p{N}_.]*)$/u;

function cellAddress(text: string): CellAddress | null {
  const m = CELL.exec(text);
  if (!m) return null;
  const row = Number(m[4]) - 1;
  const col = columnOfLetters(m[2]);
  if (row < 0 || row >= EXCEL_ROWS || col >= EXCEL_COLUMNS) return null;
  return { row, col, rowAbsolute: m[3] === "$", colAbsolute: m[1] === "$" };
}

/**
 * Reads an A1 reference: a cell or a range, `$` anchors allowed, optionally after a sheet name
 * (quoted with '' for a quote inside, or bare). Whole rows or columns (`A:A`, `1:1`), names and
 * table references are not A1 cell references: null.
 *
 * @param text - e.g. `'Model (2)'!$H$6`, `B2:C9`, `Steps!A1`
 * @returns the reference, or null when the text is not one
 * @example
 * parseReference("'Model'!$H$6")
 * // => { sheet: "Model", start: { row: 5, col: 7, rowAbsolute: true, colAbsolute: true }, end: (the same), single: true }
 */
export function parseReference(text: string): Reference | null {
  const bang = text.lastIndexOf("!");
  if (bang >= 0 && !SHEET.test(text.slice(0, bang))) return null;
  const { sheet, range } = splitSheet(text);
  const [a, b, more] = range.split(":");
  if (more !== undefined) return null;
  const start = cellAddress(a);
  const end = b === undefined ? start : cellAddress(b);
  if (!start || !end) return null;
  return { sheet, start, end, single: b === undefined };
}

/**
 * The position of a one-cell A1 reference (no sheet allowed).
 *
 * @throws Error naming the text when it is not one cell
 * @example
 * parseCell("$C$4") // => { row: 3, col: 2 }
 */
export function parseCell(text: string): CellPosition {
  const r = parseReference(text);
  if (!r || !r.single || r.sheet !== undefined) throw new Error(`${text}: not a cell address such as B2`);
  return { row: r.start.row, col: r.start.col };
}

/**
 * A sheet name as a reference writes it: always quoted, a quote inside doubled.
 *
 * @example
 * quoteSheet("It's") // => "'It''s'"
 */
export function quoteSheet(name: string): string {
  return `'${name.replace(/'/g, "''")}'`;
}

/** How {@link cellA1} writes an address. */
export interface A1Options {
  /** `$` before column and row. */
  absolute?: boolean;
  /** A sheet to name before it (quoted). */
  sheet?: string;
}

/**
 * The A1 address of a 0-based position.
 *
 * @example
 * cellA1({ row: 5, col: 7 }, { absolute: true, sheet: "Model" }) // => "'Model'!$H$6"
 */
export function cellA1(at: CellPosition, options: A1Options = {}): string {
  const d = options.absolute ? "$" : "";
  const a1 = `${d}${columnLetter(at.col)}${d}${at.row + 1}`;
  return options.sheet === undefined ? a1 : `${quoteSheet(options.sheet)}!${a1}`;
}

/**
 * The A1 address of a cell with its `$` anchors as read ({@link parseReference}).
 *
 * @example
 * addressA1({ row: 2, col: 0, rowAbsolute: true, colAbsolute: false }) // => "A$3"
 */
export function addressA1(a: CellAddress): string {
  return `${a.colAbsolute ? "$" : ""}${columnLetter(a.col)}${a.rowAbsolute ? "$" : ""}${a.row + 1}`;
}

/**
 * The A1 address of a range from `from` to `to` (inclusive).
 *
 * @example
 * rangeA1({ row: 1, col: 0 }, { row: 9, col: 1 }) // => "A2:B10"
 */
export function rangeA1(from: CellPosition, to: CellPosition, options: A1Options = {}): string {
  const end = cellA1(to, { absolute: options.absolute });
  return `${cellA1(from, options)}:${end}`;
}

// ---------------------------------------------------------------------------------------------
// Layout: a table's cells by table name and column key

/**
 * The sheet position of a table's cell: data row `row` (0-based; -1 for the header) of the column
 * with key `key`.
 *
 * @throws Error naming the table and key when the table has no such column
 * @example
 * tableCellAt({ name: "T", at: { row: 4, col: 1 }, columns: [{ key: "x", header: "X" }], rows: [[1]] }, "x", 0)
 * // => { row: 5, col: 1 }
 */
export function tableCellAt(table: TablePlan, key: string, row: number): CellPosition {
  const c = columnIndex(table, key);
  if (c < 0) throw new Error(`internal: table ${table.name} has no column ${key}`);
  return { row: table.at.row + 1 + row, col: table.at.col + c };
}

/**
 * The A1 address of a table's cell (see {@link tableCellAt}).
 *
 * @example
 * tableCellA1({ name: "T", at: { row: 4, col: 1 }, columns: [{ key: "x", header: "X" }], rows: [[1]] }, "x", 0) // => "B6"
 */
export function tableCellA1(table: TablePlan, key: string, row: number, options: A1Options = {}): string {
  return cellA1(tableCellAt(table, key, row), options);
}

/**
 * The A1 range of a column's data cells (with its header cell when `header`), e.g. the x or y of
 * a chart or a function's argument. A table without rows gives its header cell's address alone.
 *
 * @example
 * tableColumnA1({ name: "T", at: { row: 4, col: 1 }, columns: [{ key: "x", header: "X" }], rows: [[1], [2]] }, "x") // => "B6:B7"
 */
export function tableColumnA1(table: TablePlan, key: string, options: A1Options & { header?: boolean } = {}): string {
  const n = tableRowCount(table);
  const { header, ...a1 } = options;
  if (n === 0) return cellA1(tableCellAt(table, key, -1), a1);
  return rangeA1(tableCellAt(table, key, header ? -1 : 0), tableCellAt(table, key, n - 1), a1);
}

/** Where one table of a plan is: its sheet, header position, data rows and columns by key. */
export interface TableLayout {
  sheet: string;
  table: string;
  /** The header row's first cell. */
  at: CellPosition;
  /** Data rows below the header. */
  rows: number;
  /** Column key → its header text and its 0-based sheet column. */
  columns: Record<string, { header: string; col: number }>;
}

/**
 * The layout of a plan: every table by name, with the sheet it is on, its position and its
 * columns by key — what a consumer uses to name a cell of a plan (`'Model'!$H$6`) instead of
 * searching a sheet for a header text.
 *
 * @param plan - a workbook plan
 * @returns table name → its layout (table names are unique in a workbook)
 * @example
 * workbookLayout(plan)["Model"].columns["d_cpu_ms"].col // => 7
 */
export function workbookLayout(plan: WorkbookPlan): Record<string, TableLayout> {
  const out: Record<string, TableLayout> = {};
  for (const sheet of plan.sheets) {
    for (const t of sheet.tables) {
      const columns: TableLayout["columns"] = {};
      t.columns.forEach((c, j) => (columns[c.key] = { header: c.header, col: t.at.col + j }));
      out[t.name] = { sheet: sheet.name, table: t.name, at: { ...t.at }, rows: tableRowCount(t), columns };
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Chart sampling

/** Most points per chart series a renderer draws: larger series are sampled evenly (first and last kept). */
export const MAX_CHART_POINTS = 1000;

/**
 * Evenly samples paired x/y arrays down to at most `max` points (first and last kept), so a
 * chart of a million subintervals gets `max` points.
 *
 * @example
 * samplePoints([1, 2, 3, 4, 5], [1, 2, 3, 4, 5], 3) // => { x: [1, 3, 5], y: [1, 3, 5] }
 */
export function samplePoints(x: number[], y: number[], max = MAX_CHART_POINTS): { x: number[]; y: number[] } {
  const n = Math.min(x.length, y.length);
  if (n <= max) return { x: x.slice(0, n), y: y.slice(0, n) };
  const xs: number[] = [];
  const ys: number[] = [];
  for (let i = 0; i < max; i++) {
    const k = Math.round((i * (n - 1)) / (max - 1));
    xs.push(x[k]);
    ys.push(y[k]);
  }
  return { x: xs, y: ys };
}
