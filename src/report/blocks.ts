/**
 * Pure layout for the Office.js renderer (`src/excel/render-plan.ts`): how a plan's cells become
 * the 2-D arrays Office.js is given, and how a table is cut into write blocks bounded by
 * serialized size and rows. It lives with the other pure renderers so that `src/excel/` holds
 * only code that calls Office.js.
 *
 * Why bytes and not only rows: Excel on the web refuses a request over 5 MB
 * (`RequestPayloadSizeLimitExceeded`, docs/concepts/resource-limits-and-performance-optimization.md);
 * a row of 30 numbers is ~400 bytes of JSON, a row of long texts can be 10 times that. Each block
 * is measured as the JSON Office.js sends (values + number formats + formulas).
 *
 * Formula injection: a string that begins with =, +, -, @, tab or CR (or that Excel would turn
 * into a number or date) gets number format "@" (text) in the same request *before* its value.
 *
 * Number formats are sent once per run of columns that share one format in a block, as a 1×1
 * array Excel applies to every cell of the range (Excel.Range.numberFormat: "If the argument is a
 * single value, it will be applied to all cells in the range"; a 1×1 array on a bounded range,
 * OfficeDev/office-js-docs-pr#5400), and as a column of formats only where a column mixes them (a
 * "@" text cell in a General column). A cell-by-cell format array was about half of each request:
 * a million-row import took twice the round trips.
 */
import { CellValue, ColumnPlan, TablePlan, tableCell, tableRowCount } from "../workbook/plan";

/** Largest serialized payload per sync we aim for (Excel on the web refuses 5 MB; 10 % spare). */
export const MAX_REQUEST_BYTES = 4_500_000;
/** Most rows per write block (Microsoft advises 5k–20k rows per block for large writes). */
export const MAX_BLOCK_ROWS = 20_000;
/** Share of the request budget a block's arrays may use (the rest: action framing, formats of headers). */
const BLOCK_SHARE = 0.85;

/**
 * Text Excel would read as a formula, or mangle into a number/date, unless the cell is
 * text-formatted: a formula's first character; a digit, point, currency sign or parenthesis
 * ("00123", "1/2", "£100", "(12)"); TRUE/FALSE; a month name followed by a number ("Jan 5",
 * "June 2024", which Excel takes for dates).
 */
export function needsTextFormat(s: string): boolean {
  return (
    /^[=+\-@\t\r]/.test(s) ||
    /^\s*[\d.$€£(]/.test(s) ||
    /^\s*(true|false)\s*$/i.test(s) ||
    /^\s*(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?[\s\-/,]+\d/i.test(s)
  );
}

/** A formula whose function comes from this add-in (written only when the functions are registered). */
export function isAddinFormula(formula: string): boolean {
  return /\bCAPLAB\./i.test(formula);
}

/** One cell as Office.js takes it: its value, its number format, and a formula (or null). */
export interface ExcelCell {
  value: number | string | boolean;
  format: string;
  formula: string | null;
}

/**
 * The value, number format and formula written for one plan cell.
 *
 * @param cell - the plan's cell
 * @param numFmt - the column's number format ("General" when absent)
 * @param addinFormulas - true when CAPLAB.* formulas may be written (functions registered)
 * @returns what to write
 * @example
 * excelCell("=HYPERLINK(1)", "General", false) // => { value: "=HYPERLINK(1)", format: "@", formula: null }
 */
export function excelCell(cell: CellValue, numFmt: string, addinFormulas: boolean): ExcelCell {
  return excelCellInto({ value: "", format: numFmt, formula: null }, cell, numFmt, addinFormulas);
}

/**
 * {@link excelCell} into an existing object (returned): the block writer converts millions of
 * cells, and a fresh object per cell is garbage the pane's thread must collect.
 */
function excelCellInto(out: ExcelCell, cell: CellValue, numFmt: string, addinFormulas: boolean): ExcelCell {
  out.formula = null;
  out.format = numFmt;
  if (cell === null) out.value = "";
  else if (typeof cell === "string") {
    out.value = cell;
    if (numFmt === "@" || needsTextFormat(cell)) out.format = "@";
  } else if (typeof cell === "number" || typeof cell === "boolean") out.value = cell;
  else if ("error" in cell) {
    out.value = "";
    out.formula = `=${errorFormula(cell.error)}`;
  } else {
    const result = cell.result === null ? "" : cell.result;
    const text = "addinFormula" in cell ? cell.addinFormula : cell.formula;
    const live = !isAddinFormula(text) || addinFormulas;
    // The computed result is written as the value (so a reader of the values sees it even before
    // Excel recalculates); the formula replaces it in the same request.
    out.value = result;
    if (typeof result === "string" && needsTextFormat(result) && !live) out.format = "@";
    else if (numFmt === "@") out.format = "General";
    out.formula = live ? `=${text}` : null;
  }
  return out;
}

/** Formula that yields an Excel error value (errors cannot be written through Range.values). */
function errorFormula(error: string): string {
  switch (error) {
    case "#DIV/0!":
      return "1/0";
    case "#NUM!":
      return "SQRT(-1)";
    case "#VALUE!":
      return '"a"+1';
    default:
      return "NA()";
  }
}

/**
 * Serialized size of a JSON value in bytes as it goes over the wire (UTF-8: a "é" is 2 bytes, a
 * "€" 3; JavaScript's length would count each as 1 and let a block of non-ASCII text overrun 5 MB).
 */
export function jsonBytes(value: unknown): number {
  return utf8Length(JSON.stringify(value));
}

/** Bytes of `text` in UTF-8. */
export function utf8Length(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 2; // a surrogate pair: 4 bytes for 2 units
      i++;
    } else n += 2;
  }
  return n;
}

/** A block of table rows ready to send. */
export interface RowBlock {
  /** First data row (0-based, in the table). */
  first: number;
  values: (number | string | boolean)[][];
  formats: string[][];
  /** Formulas by [row in block, column]; empty when the block has none. */
  formulas: { row: number; col: number; formula: string }[];
  /** Serialized size of values + formats + formulas. */
  bytes: number;
}

/**
 * Cuts a table's data rows into blocks of at most `maxRows` rows and about `maxBytes` serialized bytes.
 *
 * @param table - the plan's table
 * @param addinFormulas - whether CAPLAB.* formulas are written as formulas
 * @param maxBytes - payload budget per block
 * @param maxRows - row cap per block
 * @param start - first data row to include
 * @returns generator of blocks, in row order (rows are converted lazily, one block at a time)
 */
export function* rowBlocks(
  table: TablePlan,
  addinFormulas: boolean,
  maxBytes = MAX_REQUEST_BYTES * BLOCK_SHARE,
  maxRows = MAX_BLOCK_ROWS,
  start = 0,
): Generator<RowBlock> {
  const n = tableRowCount(table);
  const fmts = table.columns.map((c: ColumnPlan) => c.numFmt ?? "General");
  const cost = new FormatCost(fmts.length);
  let block: RowBlock = { first: start, values: [], formats: [], formulas: [], bytes: cost.base };
  const cell: ExcelCell = { value: "", format: "General", formula: null };
  const textBytes = new Map<string, number>();
  for (let r = start; r < n; r++) {
    const values: (number | string | boolean)[] = [];
    const formats: string[] = [];
    const formulas: { col: number; formula: string }[] = [];
    let bytes = 3;
    for (let c = 0; c < fmts.length; c++) {
      excelCellInto(cell, tableCell(table, r, c) ?? null, fmts[c], addinFormulas);
      values.push(cell.value);
      formats.push(cell.format);
      // Exact JSON length of the value plus its separator (a text's measured once per text).
      const v = cell.value;
      let vBytes = typeof v === "string" ? textBytes.get(v) : String(v).length;
      if (vBytes === undefined) {
        vBytes = jsonBytes(v);
        if (textBytes.size < 100_000) textBytes.set(v as string, vBytes);
      }
      bytes += vBytes + 1;
      if (cell.formula !== null) {
        formulas.push({ col: c, formula: cell.formula });
        bytes += utf8Length(cell.formula) + 60; // one small formulas request per cell group
      }
    }
    if (
      block.values.length > 0 &&
      (block.bytes + bytes + cost.added(formats) > maxBytes || block.values.length >= maxRows)
    ) {
      yield block;
      cost.reset();
      block = { first: r, values: [], formats: [], formulas: [], bytes: cost.base };
    }
    for (const f of formulas) block.formulas.push({ row: r - block.first, col: f.col, formula: f.formula });
    block.bytes += bytes + cost.add(formats);
    block.values.push(values);
    block.formats.push(formats);
  }
  if (block.values.length > 0) yield block;
}

/**
 * The bytes of a block's number formats as {@link formatRuns} sends them: a fixed cost per column
 * while the column's cells share one format, the whole column of formats once they differ.
 */
class FormatCost {
  /** Per column: the block's first format, whether the column mixes formats, their bytes so far. */
  private first: (string | undefined)[];
  private mixed: boolean[];
  private columnBytes: number[];
  private readonly sizes = new Map<string, number>();
  /** A block's bytes before any row: brackets, and one small range request per column. */
  readonly base: number;
  constructor(private readonly cols: number) {
    this.first = new Array<string | undefined>(cols).fill(undefined);
    this.mixed = new Array<boolean>(cols).fill(false);
    this.columnBytes = new Array<number>(cols).fill(0);
    this.base = 4 + cols * 80;
  }
  reset(): void {
    this.first.fill(undefined);
    this.mixed.fill(false);
    this.columnBytes.fill(0);
  }
  private size(format: string): number {
    let s = this.sizes.get(format);
    if (s === undefined) {
      s = utf8Length(format) + 5; // quotes, brackets, comma
      this.sizes.set(format, s);
    }
    return s;
  }
  /** What adding a row with these formats would add (the state unchanged). */
  added(formats: string[]): number {
    let bytes = 0;
    for (let c = 0; c < this.cols; c++) {
      const f = formats[c];
      if (this.mixed[c]) bytes += this.size(f);
      else if (this.first[c] !== undefined && this.first[c] !== f) bytes += this.columnBytes[c] + this.size(f);
    }
    return bytes;
  }
  /** Adds a row: returns the bytes it adds. */
  add(formats: string[]): number {
    let bytes = 0;
    for (let c = 0; c < this.cols; c++) {
      const f = formats[c];
      const s = this.size(f);
      if (this.mixed[c]) bytes += s;
      else if (this.first[c] === undefined) this.first[c] = f;
      else if (this.first[c] !== f) {
        this.mixed[c] = true;
        bytes += this.columnBytes[c] + s;
      }
      this.columnBytes[c] += s;
    }
    return bytes;
  }
}

/**
 * A block's number formats as few writes as possible: each run of adjacent columns whose cells all
 * share one format is one range with a 1×1 array (applied to every cell); a column that mixes
 * formats is one range with its column of formats. In column order; every cell is covered once.
 */
export function formatRuns(block: RowBlock): { col: number; cols: number; formats: string[][] }[] {
  const rows = block.formats.length;
  const cols = rows > 0 ? block.formats[0].length : 0;
  const runs: { col: number; cols: number; formats: string[][] }[] = [];
  for (let c = 0; c < cols; c++) {
    const f = block.formats[0][c];
    let uniform = true;
    for (let r = 1; r < rows && uniform; r++) uniform = block.formats[r][c] === f;
    const last = runs.at(-1);
    if (!uniform) runs.push({ col: c, cols: 1, formats: block.formats.map((line) => [line[c]]) });
    else if (last && last.formats.length === 1 && last.formats[0][0] === f && last.col + last.cols === c) last.cols++;
    else runs.push({ col: c, cols: 1, formats: [[f]] });
  }
  return runs;
}

/**
 * Groups a block's formulas into vertical runs in one column, so each run is one `Range.formulas`
 * write (a Model column of 10,000 formulas is one request, not 10,000).
 */
export function formulaRuns(block: RowBlock): { row: number; col: number; formulas: string[][] }[] {
  const byCol = new Map<number, { row: number; formula: string }[]>();
  for (const f of block.formulas) {
    const list = byCol.get(f.col) ?? [];
    list.push(f);
    byCol.set(f.col, list);
  }
  const runs: { row: number; col: number; formulas: string[][] }[] = [];
  for (const [col, list] of byCol) {
    list.sort((a, b) => a.row - b.row);
    let run: { row: number; col: number; formulas: string[][] } | null = null;
    for (const f of list) {
      if (run && f.row === run.row + run.formulas.length) run.formulas.push([f.formula]);
      else {
        run = { row: f.row, col, formulas: [[f.formula]] };
        runs.push(run);
      }
    }
  }
  return runs;
}

/** Excel's sheet-name limit. */
export const MAX_SHEET_NAME = 31;

/**
 * A sheet name not yet taken (case-insensitive, as Excel compares): "Steps", "Steps (2)", …
 *
 * @example
 * freeSheetName("Steps", new Set(["steps"])) // => "Steps (2)"
 */
export function freeSheetName(base: string, taken: Set<string>): string {
  const clean = base.replace(/[:\\/?*[\]]/g, "_");
  for (let n = 1; ; n++) {
    const tail = n === 1 ? "" : ` (${n})`;
    const name = clean.slice(0, MAX_SHEET_NAME - tail.length) + tail;
    if (!taken.has(name.toLowerCase())) {
      taken.add(name.toLowerCase());
      return name;
    }
  }
}

/**
 * A table name not yet taken in the workbook (names are workbook-wide): "Steps", "Steps_2", …
 *
 * @example
 * freeTableName("Steps", new Set(["steps"])) // => "Steps_2"
 */
export function freeTableName(base: string, taken: Set<string>): string {
  for (let n = 1; ; n++) {
    const name = n === 1 ? base : `${base}_${n}`;
    if (!taken.has(name.toLowerCase())) {
      taken.add(name.toLowerCase());
      return name;
    }
  }
}
