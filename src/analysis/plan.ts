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

/** An Excel error value in a cell (e.g. an aliased DOE_FIT term). */
export interface ErrorCell {
  error: "#N/A" | "#NUM!" | "#VALUE!" | "#DIV/0!";
}

/**
 * A cell. Strings are ALWAYS data: renderers must write them as text, never as formulas,
 * even when they begin with "=", "+", "-", "@", tab or CR (formula injection).
 */
export type CellValue = number | string | boolean | null | FormulaCell | ErrorCell;

export interface ColumnPlan {
  /** Header text as shown. */
  header: string;
  /** Excel number format, e.g. "0.00", "0.0%", "#,##0", "@" for text. */
  numFmt?: string;
  /** Width in characters; renderers fit to content when absent. */
  width?: number;
  /** One-line explanation (HTML tooltip, Excel note). */
  description?: string;
}

export interface TablePlan {
  /** Excel table name: letters, digits, underscores; unique in the workbook. */
  name: string;
  columns: ColumnPlan[];
  rows: CellValue[][];
  /**
   * Where the header row is, as a 0-based sheet position (row 0 = Excel row 1). Grid renderers
   * (xlsx, Office.js) write the sheet's `notes` in column A from row 0 down, and place each table
   * at `at`; FormulaCell formulas in the rows refer to cells by these positions. When absent, a
   * renderer places the table below the notes and the previous table, one blank row between.
   */
  at?: { row: number; col: number };
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
  /** The table (by name) and columns the series come from, for native Excel charts. */
  source?: { table: string; xColumn: string; yColumns: string[] };
}

export interface SheetPlan {
  /** Sheet name (≤ 31 chars, none of : \ / ? * [ ]). */
  name: string;
  /** Lines of text above the tables (title, notes, warnings). */
  notes: string[];
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
