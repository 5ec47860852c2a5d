/**
 * An in-memory Office / Excel / CustomFunctions host: the subset of Office.js the add-in calls,
 * strict where the add-in depends on Excel's behaviour — batches that fail at their first bad
 * operation, 5 MB request and response limits in UTF-8, typed-value coercion unless a cell is
 * text, formula parsing and calculation by the project's evaluator, #SPILL!, sheet and table name
 * rules, tables kept by a sheet copy, latency per sync. What it models, with sources, and what it
 * does not: tests/excel/README.md.
 *
 * Also for "Prepare for sharing" (`src/excel/sharing-excel.ts`): `Worksheet.copy`, renaming,
 * `getItem`, used ranges and range reads (`load` of formulas, values, valueTypes, numberFormat,
 * column widths, applied in batch order at `sync`), `Range.copyFrom(…, "Values")` and
 * `Excel.createWorkbook` (the base64 is kept in `workbook.created`).
 *
 * The Jest tests use it directly; the browser tests bundle it with its imports (esbuild, in
 * tests/e2e/harness.ts) and install it in place of office.js (`createFakeHost` + `installFakeHost`).
 */

import { errorValue, isErrorValue, isMatrix, parseFormula, Scalar, Value } from "../../src/formula";
import { FormulaEvaluator, Unsupported } from "../../src/sharing/evaluate";

export interface FakeCell {
  value: number | string | boolean;
  format: string;
  formula: string | null;
}

export interface FakeChart {
  type: string;
  seriesBy: string;
  title: string;
  xTitle: string;
  yTitle: string;
  /** The x axis' logBase when set (a log scale). */
  xLogBase?: number;
  position: string[];
  series: {
    name: string;
    chartType: string;
    x: (number | string | boolean)[];
    y: (number | string | boolean)[];
    /** The ranges set by setXAxisValues / setValues (e.g. "Model!E6:E9"): what the series draws. */
    xRef?: string;
    yRef?: string;
  }[];
}

export interface FakeTable {
  name: string;
  sheet: string;
  row: number;
  col: number;
  rows: number;
  cols: number;
}

/** Rows per storage page (a page holds one column's cells for PAGE_ROWS consecutive rows). */
const PAGE_ROWS = 4096;
/** Page key: column × this + row page (1,048,576 rows / 4096 = 256 row pages). */
const ROW_PAGES = 256;
/** Cell kinds in a page's `kind` array. */
const Kind = { Absent: 0, Number: 1, Text: 2, False: 3, True: 4 } as const;

/** One column's cells over PAGE_ROWS rows: kinds, numbers unboxed, texts, format codes, formulas. */
interface Page {
  kind: Uint8Array;
  num: Float64Array | null;
  text: (string | undefined)[] | null;
  format: Uint16Array;
  formulas: Map<number, string> | null;
}

/**
 * A worksheet's cells, stored compactly: per column, pages of 4,096 rows holding typed arrays
 * (3 to 11 bytes a cell instead of a Map entry and an object per cell), so a 1,000,000-row × 23
 * column import fits (a JavaScript Map holds at most 2^24 entries) without the store dominating
 * the page's memory or stalling it while it grows.
 *
 * Accessors: {@link get} (a snapshot), {@link cell} (a live cell: assigning its fields writes the
 * sheet), {@link values}, and {@link cells}, a read/write Map-like view keyed "row,col" (iteration
 * in row-major order).
 */
/**
 * A sheet's page layout as the add-in set it (ExcelApi 1.9, `Worksheet.pageLayout` and
 * `horizontalPageBreaks`): orientation, zoom, print area (A1, this sheet) and the rows page breaks
 * come before (0-based).
 */
export interface FakePrint {
  orientation?: "Portrait" | "Landscape";
  zoom?: { scale?: number; horizontalFitToPages?: number; verticalFitToPages?: number };
  printArea?: string;
  pageBreakRows: number[];
}

export class FakeSheet {
  charts: FakeChart[] = [];
  frozenRows = 0;
  print: FakePrint = { pageBreakRows: [] };
  columnWidths = new Map<number, number>();
  private readonly pages = new Map<number, Page>();
  private readonly formatCodes = new Map<string, number>([["General", 0]]);
  private readonly formatNames: string[] = ["General"];
  private count = 0;
  /** Cells ("row,col") whose value is an Excel error shown as its code ("#N/A"): valueTypes "Error". */
  errors = new Set<string>();
  /** Spilled results: anchor "row,col" → its size; each covered cell "row,col" → its anchor. */
  spills = new Map<string, { rows: number; cols: number }>();
  spillOwner = new Map<string, string>();
  constructor(public name: string) {}

  /** Every formula cell as [row, col, formula]. */
  *formulaCells(): Generator<[number, number, string]> {
    for (const [key, p] of this.pages) {
      if (!p.formulas || p.formulas.size === 0) continue;
      const col = Math.floor(key / ROW_PAGES);
      const base = (key % ROW_PAGES) * PAGE_ROWS;
      for (const [i, f] of p.formulas) yield [base + i, col, f];
    }
  }

  /** A cell written by the add-in is no longer part of a spill: the spill's formula then shows #SPILL!. */
  claim(row: number, col: number): void {
    if (this.spillOwner.size > 0) this.spillOwner.delete(`${row},${col}`);
  }

  /**
   * Shows a formula's result at (row, col): a scalar in the cell, an array spilled over the cells
   * below and to the right — or #SPILL! when one of them holds something, or the formula is in a
   * table (Excel tables do not hold spills). Returns whether anything shown changed.
   */
  writeResult(row: number, col: number, result: Value, inTable: boolean): boolean {
    const anchor = `${row},${col}`;
    const block: Scalar[][] = isMatrix(result) ? result : [[result]];
    const rows = block.length;
    const cols = rows > 0 ? block[0].length : 0;
    const shown = (r: number, c: number): string => JSON.stringify([this.valueAt(r, c), this.errors.has(`${r},${c}`)]);
    const touched = new Map<string, string>();
    const note = (r: number, c: number): void => {
      const k = `${r},${c}`;
      if (!touched.has(k)) touched.set(k, shown(r, c));
    };
    note(row, col);
    let blocked = rows * cols > 1 && inTable;
    for (let i = 0; i < rows && !blocked; i++)
      for (let j = 0; j < cols && !blocked; j++) {
        if (i === 0 && j === 0) continue;
        const k = `${row + i},${col + j}`;
        const free =
          this.spillOwner.get(k) === anchor ||
          (this.formulaAt(row + i, col + j) === null && this.valueAt(row + i, col + j) === "");
        if (!free) blocked = true;
      }
    // Clear the previous spill of this formula.
    const before = this.spills.get(anchor);
    if (before) {
      for (let i = 0; i < before.rows; i++)
        for (let j = 0; j < before.cols; j++) {
          const k = `${row + i},${col + j}`;
          if ((i === 0 && j === 0) || this.spillOwner.get(k) !== anchor) continue;
          note(row + i, col + j);
          this.spillOwner.delete(k);
          this.remove(row + i, col + j);
          this.errors.delete(k);
        }
      this.spills.delete(anchor);
    }
    if (blocked || rows === 0 || cols === 0) {
      this.setValue(row, col, "#SPILL!");
      this.setError(row, col, true);
    } else {
      for (let i = 0; i < rows; i++)
        for (let j = 0; j < cols; j++) {
          note(row + i, col + j);
          const { value, error } = cellOf(block[i][j]);
          if (i > 0 || j > 0) this.spillOwner.set(`${row + i},${col + j}`, anchor);
          this.setValue(row + i, col + j, value);
          this.setError(row + i, col + j, error);
        }
      if (rows * cols > 1) this.spills.set(anchor, { rows, cols });
    }
    for (const [k, old] of touched) {
      const [r, c] = parseKey(k);
      if (shown(r, c) !== old) return true;
    }
    return false;
  }

  private page(row: number, col: number, create: boolean): Page | undefined {
    const key = col * ROW_PAGES + Math.floor(row / PAGE_ROWS);
    let p = this.pages.get(key);
    if (!p && create) {
      p = {
        kind: new Uint8Array(PAGE_ROWS),
        num: null,
        text: null,
        format: new Uint16Array(PAGE_ROWS),
        formulas: null,
      };
      this.pages.set(key, p);
    }
    return p;
  }

  private formatCode(format: string): number {
    let code = this.formatCodes.get(format);
    if (code === undefined) {
      code = this.formatNames.length;
      this.formatNames.push(format);
      this.formatCodes.set(format, code);
    }
    return code;
  }

  /** Whether a cell exists (was written: value, format or formula). */
  has(row: number, col: number): boolean {
    const p = this.page(row, col, false);
    return p !== undefined && p.kind[row % PAGE_ROWS] !== Kind.Absent;
  }

  /** A cell's value ("" when absent). */
  valueAt(row: number, col: number): number | string | boolean {
    const p = this.page(row, col, false);
    if (!p) return "";
    const i = row % PAGE_ROWS;
    switch (p.kind[i]) {
      case Kind.Number:
        return (p.num as Float64Array)[i];
      case Kind.Text:
        return p.text?.[i] ?? "";
      case Kind.False:
        return false;
      case Kind.True:
        return true;
      default:
        return "";
    }
  }

  /** A cell's number format ("General" when absent). */
  formatAt(row: number, col: number): string {
    const p = this.page(row, col, false);
    return p ? this.formatNames[p.format[row % PAGE_ROWS]] : "General";
  }

  /** A cell's formula (null when none). */
  formulaAt(row: number, col: number): string | null {
    return this.page(row, col, false)?.formulas?.get(row % PAGE_ROWS) ?? null;
  }

  private touch(p: Page, i: number): void {
    if (p.kind[i] === Kind.Absent) {
      p.kind[i] = Kind.Text; // an existing cell with no value holds "" (as the Map store did)
      this.count++;
    }
  }

  setValue(row: number, col: number, v: number | string | boolean): void {
    const p = this.page(row, col, true) as Page;
    const i = row % PAGE_ROWS;
    this.touch(p, i);
    if (typeof v === "number") {
      p.kind[i] = Kind.Number;
      (p.num ??= new Float64Array(PAGE_ROWS))[i] = v;
    } else if (typeof v === "boolean") p.kind[i] = v ? Kind.True : Kind.False;
    else {
      p.kind[i] = Kind.Text;
      if (v !== "" || p.text) (p.text ??= new Array<string | undefined>(PAGE_ROWS))[i] = v;
    }
    if (p.kind[i] !== Kind.Text && p.text) p.text[i] = undefined;
  }

  setFormat(row: number, col: number, format: string): void {
    const p = this.page(row, col, true) as Page;
    const i = row % PAGE_ROWS;
    this.touch(p, i);
    p.format[i] = this.formatCode(format);
  }

  setFormula(row: number, col: number, formula: string | null): void {
    const p = this.page(row, col, true) as Page;
    const i = row % PAGE_ROWS;
    this.touch(p, i);
    if (formula === null) p.formulas?.delete(i);
    else (p.formulas ??= new Map()).set(i, formula);
  }

  /** Removes a cell. */
  remove(row: number, col: number): boolean {
    const p = this.page(row, col, false);
    const i = row % PAGE_ROWS;
    if (!p || p.kind[i] === Kind.Absent) return false;
    p.kind[i] = Kind.Absent;
    p.format[i] = 0;
    if (p.text) p.text[i] = undefined;
    p.formulas?.delete(i);
    this.count--;
    return true;
  }

  /** Marks or unmarks a cell's value as an Excel error. */
  setError(row: number, col: number, on: boolean): void {
    if (on) this.errors.add(`${row},${col}`);
    else if (this.errors.size > 0) this.errors.delete(`${row},${col}`);
  }

  /** A deep copy under another name (what `Worksheet.copy` makes). */
  clone(name: string): FakeSheet {
    const s = new FakeSheet(name);
    for (const [r, c] of this.positions()) {
      s.setFormat(r, c, this.formatAt(r, c));
      s.setValue(r, c, this.valueAt(r, c));
      s.setFormula(r, c, this.formulaAt(r, c));
    }
    // Excel points a copied chart at the copy's own cells.
    const moved = (ref: string | undefined): string | undefined =>
      ref?.startsWith(`${this.name}!`) ? `${name}!${ref.slice(this.name.length + 1)}` : ref;
    s.charts = this.charts.map((c) => ({
      ...c,
      position: [...c.position],
      series: c.series.map((x) => ({ ...x, xRef: moved(x.xRef), yRef: moved(x.yRef) })),
    }));
    s.frozenRows = this.frozenRows;
    s.columnWidths = new Map(this.columnWidths);
    s.errors = new Set(this.errors);
    return s;
  }

  /** The bounding box of the cells holding a value or a formula (Excel's used range), or undefined. */
  used(): { row: number; col: number; rows: number; cols: number } | undefined {
    let r0 = Infinity;
    let c0 = Infinity;
    let r1 = -1;
    let c1 = -1;
    for (const [r, col] of this.positions()) {
      if (this.formulaAt(r, col) === null && this.valueAt(r, col) === "") continue;
      r0 = Math.min(r0, r);
      c0 = Math.min(c0, col);
      r1 = Math.max(r1, r);
      c1 = Math.max(c1, col);
    }
    return r1 < 0 ? undefined : { row: r0, col: c0, rows: r1 - r0 + 1, cols: c1 - c0 + 1 };
  }

  /** A snapshot of one cell, or undefined when it was never written. */
  get(row: number, col: number): FakeCell | undefined {
    if (!this.has(row, col)) return undefined;
    return { value: this.valueAt(row, col), format: this.formatAt(row, col), formula: this.formulaAt(row, col) };
  }

  /** The live cell (created empty when absent): reading and assigning its fields reads and writes the sheet. */
  cell(row: number, col: number): FakeCell {
    if (!this.has(row, col)) this.setFormat(row, col, "General");
    return new LiveCell(this, row, col);
  }

  /** Every existing cell's position, in row-major order. */
  *positions(): Generator<[number, number]> {
    const byRowPage = new Map<number, number[]>();
    for (const key of this.pages.keys()) {
      const rp = key % ROW_PAGES;
      const list = byRowPage.get(rp) ?? [];
      list.push(Math.floor(key / ROW_PAGES));
      byRowPage.set(rp, list);
    }
    for (const rp of [...byRowPage.keys()].sort((a, b) => a - b)) {
      const cols = (byRowPage.get(rp) as number[]).sort((a, b) => a - b);
      const pages = cols.map((c) => this.pages.get(c * ROW_PAGES + rp) as Page);
      for (let i = 0; i < PAGE_ROWS; i++)
        for (let k = 0; k < cols.length; k++) if (pages[k].kind[i] !== Kind.Absent) yield [rp * PAGE_ROWS + i, cols[k]];
    }
  }

  /** The cells as a Map-like view keyed "row,col" (snapshots out; `set` writes the sheet). */
  get cells(): CellsView {
    return new CellsView(this, () => this.count);
  }

  /** Replaces every cell by those of `map` (keys "row,col"). */
  set cells(map: Iterable<[string, FakeCell]>) {
    for (const [r, c] of [...this.positions()]) this.remove(r, c);
    for (const [k, v] of map) new CellsView(this, () => this.count).set(k, v);
  }

  /** Values of a rectangle (empty cells as ""). */
  values(row: number, col: number, rows: number, cols: number): (number | string | boolean)[][] {
    const out: (number | string | boolean)[][] = [];
    for (let r = 0; r < rows; r++) {
      const line: (number | string | boolean)[] = [];
      for (let c = 0; c < cols; c++) line.push(this.valueAt(row + r, col + c));
      out.push(line);
    }
    return out;
  }
}

/** A cell of a {@link FakeSheet} whose fields read and write the sheet's store. */
class LiveCell implements FakeCell {
  constructor(
    private readonly sheet: FakeSheet,
    private readonly row: number,
    private readonly col: number,
  ) {}
  get value(): number | string | boolean {
    return this.sheet.valueAt(this.row, this.col);
  }
  set value(v: number | string | boolean) {
    this.sheet.setValue(this.row, this.col, v);
  }
  get format(): string {
    return this.sheet.formatAt(this.row, this.col);
  }
  set format(f: string) {
    this.sheet.setFormat(this.row, this.col, f);
  }
  get formula(): string | null {
    return this.sheet.formulaAt(this.row, this.col);
  }
  set formula(f: string | null) {
    this.sheet.setFormula(this.row, this.col, f);
  }
}

function parseKey(key: string): [number, number] {
  const [r, c] = key.split(",").map(Number);
  return [r, c];
}

/** `FakeSheet.cells`: what the per-cell Map offered (get, has, set, delete, size, iteration). */
export class CellsView implements Iterable<[string, FakeCell]> {
  constructor(
    private readonly sheet: FakeSheet,
    private readonly count: () => number,
  ) {}
  get size(): number {
    return this.count();
  }
  get(key: string): FakeCell | undefined {
    return this.sheet.get(...parseKey(key));
  }
  has(key: string): boolean {
    return this.sheet.has(...parseKey(key));
  }
  set(key: string, cell: FakeCell): this {
    const [r, c] = parseKey(key);
    this.sheet.setFormat(r, c, cell.format);
    this.sheet.setValue(r, c, cell.value);
    this.sheet.setFormula(r, c, cell.formula);
    return this;
  }
  delete(key: string): boolean {
    return this.sheet.remove(...parseKey(key));
  }
  *keys(): Generator<string> {
    for (const [r, c] of this.sheet.positions()) yield `${r},${c}`;
  }
  *values(): Generator<FakeCell> {
    for (const [r, c] of this.sheet.positions()) yield this.sheet.get(r, c) as FakeCell;
  }
  *entries(): Generator<[string, FakeCell]> {
    for (const [r, c] of this.sheet.positions()) yield [`${r},${c}`, this.sheet.get(r, c) as FakeCell];
  }
  [Symbol.iterator](): Generator<[string, FakeCell]> {
    return this.entries();
  }
  forEach(fn: (cell: FakeCell, key: string) => void): void {
    for (const [k, v] of this.entries()) fn(v, k);
  }
}

export interface FakeRequest {
  bytes: number;
  operations: number;
  calculationSuspended: boolean;
  refused: boolean;
}

export class FakeWorkbook {
  sheets: FakeSheet[] = [];
  tables: FakeTable[] = [];
  requests: FakeRequest[] = [];
  activeSheet = "";
  /** The base64 files given to `Excel.createWorkbook`, in order. */
  created: string[] = [];
  /** The selected cell (0-based; the active sheet when `sheet` is empty), for `getSelectedRange`. */
  selection = { sheet: "", row: 0, col: 0 };
  /** Custom functions by id (what `CustomFunctions.associate` registered), for calculation. */
  functions = new Map<string, unknown>();
  /** Formulas the last calculation could not compute (they keep the value written before them). */
  uncalculated: string[] = [];
  /** Milliseconds each `sync()` takes on top of its work (a round trip to Excel on the web). */
  latencyMs = 0;
  constructor(
    public maxRequestBytes = 5_000_000,
    public maxResponseBytes = 5_000_000,
  ) {}

  sheet(name: string): FakeSheet | undefined {
    return this.sheets.find((s) => s.name.toLowerCase() === name.toLowerCase());
  }

  /** The table holding a cell, if any. */
  tableAt(sheet: string, row: number, col: number): FakeTable | undefined {
    return this.tables.find(
      (t) =>
        t.sheet.toLowerCase() === sheet.toLowerCase() &&
        row >= t.row &&
        row < t.row + t.rows &&
        col >= t.col &&
        col < t.col + t.cols,
    );
  }

  /** A reference's values for the evaluator: errors as error values, empty cells as null. */
  rangeValues(home: FakeSheet, name: string | undefined, range: string): Scalar[][] {
    const sheet = name === undefined ? home : this.sheet(name);
    if (!sheet) throw new RangeError(`no sheet ${name}`);
    const m = /^([A-Z]{1,3})(\d+)(?::([A-Z]{1,3})(\d+))?$/.exec(range);
    if (!m) throw new Unsupported(`the reference ${range}`);
    const r0 = Number(m[2]) - 1;
    const c0 = columnIndex(m[1]);
    const r1 = m[4] === undefined ? r0 : Number(m[4]) - 1;
    const c1 = m[3] === undefined ? c0 : columnIndex(m[3]);
    const out: Scalar[][] = [];
    for (let r = Math.min(r0, r1); r <= Math.max(r0, r1); r++) {
      const line: Scalar[] = [];
      for (let c = Math.min(c0, c1); c <= Math.max(c0, c1); c++) {
        const v = sheet.valueAt(r, c);
        line.push(sheet.errors.has(`${r},${c}`) ? errorValue(String(v)) : v === "" ? null : v);
      }
      out.push(line);
    }
    return out;
  }
}

function columnIndex(letters: string): number {
  let col = 0;
  for (const ch of letters) col = col * 26 + (ch.charCodeAt(0) - 64);
  return col - 1;
}

/** An error as Office.js rejects a request with: a message and a code from Excel.ErrorCodes. */
export function excelError(code: string, message: string): Error & { code: string } {
  const e = new Error(`${message} (${code})`) as Error & { code: string };
  e.code = code;
  return e;
}

/** Bytes of `text` as UTF-8 (what goes over the wire; JavaScript's length counts UTF-16 units). */
export function utf8Bytes(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/**
 * Excel's rules for a worksheet name (Microsoft support, "Rename a worksheet"): 1 to 31
 * characters, none of : \ / ? * [ ], not beginning or ending with an apostrophe, not "History".
 */
export function checkSheetName(name: string): void {
  if (name.length === 0 || name.length > 31)
    throw excelError("InvalidArgument", `A sheet name must have 1 to 31 characters: "${name}"`);
  if (/[:\\/?*[\]]/.test(name))
    throw excelError("InvalidArgument", `A sheet name cannot contain : \\ / ? * [ ]: "${name}"`);
  if (name.startsWith("'") || name.endsWith("'"))
    throw excelError("InvalidArgument", `A sheet name cannot begin or end with an apostrophe: "${name}"`);
  if (name.toLowerCase() === "history") throw excelError("InvalidArgument", `"History" is reserved by Excel`);
}

/**
 * Excel's rules for a table name (Microsoft support, "Rename an Excel table"): starts with a letter,
 * an underscore or a backslash; then letters, digits, periods and underscores; at most 255
 * characters; not a cell reference ("A1", "R1C1", "R", "C").
 */
export function checkTableName(name: string): void {
  const ok =
    /^[A-Za-z_\\][A-Za-z0-9_.\\]*$/.test(name) &&
    name.length <= 255 &&
    !/^[A-Za-z]{1,3}\d+$/.test(name) &&
    !/^[Rr]\d*[Cc]?\d*$/.test(name) &&
    !/^[Cc]\d*$/.test(name);
  if (!ok) throw excelError("InvalidArgument", `"${name}" is not a valid table name`);
}

/** Days from 1899-12-30 (Excel's 1900 date system, its 1900 leap-year bug included for later dates). */
function serial(y: number, m: number, d: number): number | undefined {
  const t = Date.UTC(y, m - 1, d);
  const back = new Date(t);
  if (m < 1 || m > 12 || back.getUTCDate() !== d || y < 1900 || y > 9999) return undefined;
  return (t - Date.UTC(1899, 11, 30)) / 86_400_000;
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

function monthOf(word: string): number | undefined {
  const k = MONTHS.indexOf(word.slice(0, 3).toLowerCase());
  const full = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
  ];
  return k >= 0 && (word.length === 3 || full[k] === word.toLowerCase() || (k === 8 && /^sept$/i.test(word)))
    ? k + 1
    : undefined;
}

function year(text: string | undefined, now: number): number {
  if (text === undefined) return now;
  const y = Number(text);
  return text.length <= 2 ? (y < 30 ? 2000 + y : 1900 + y) : y;
}

/** A typed-in date or time (en-US input: m/d/y), as Excel stores it: a serial number and a format. */
function typedDate(t: string): { value: number; format: string } | undefined {
  const now = new Date().getFullYear();
  let m = /^(\d{1,2})[/-](\d{1,2})(?:[/-](\d{2}|\d{4}))?$/.exec(t);
  if (m) {
    const v = serial(year(m[3], now), Number(m[1]), Number(m[2]));
    return v === undefined ? undefined : { value: v, format: m[3] ? "m/d/yyyy" : "d-mmm" };
  }
  m = /^(\d{4})[/-](\d{1,2})[/-](\d{1,2})$/.exec(t);
  if (m) {
    const v = serial(Number(m[1]), Number(m[2]), Number(m[3]));
    return v === undefined ? undefined : { value: v, format: "m/d/yyyy" };
  }
  m = /^(\d{1,2})[- ]([A-Za-z]{3,9})(?:[- ,]+(\d{2}|\d{4}))?$/.exec(t);
  const n = /^([A-Za-z]{3,9})[- ](\d{1,2})(?:[- ,]+(\d{2}|\d{4}))?$/.exec(t);
  if (m || n) {
    const [day, word, y] = m ? [m[1], m[2], m[3]] : [n![2], n![1], n![3]];
    const month = monthOf(word);
    const v = month === undefined ? undefined : serial(year(y, now), month, Number(day));
    return v === undefined ? undefined : { value: v, format: "d-mmm" };
  }
  m = /^([A-Za-z]{3,9})[- ](\d{4})$/.exec(t);
  if (m) {
    const month = monthOf(m[1]);
    const v = month === undefined ? undefined : serial(Number(m[2]), month, 1);
    if (v !== undefined) return { value: v, format: "mmm-yy" };
  }
  m = /^(\d{1,2}):(\d{2})(?::(\d{2}))?(?:\s*([AaPp])[Mm])?$/.exec(t);
  if (m) {
    let h = Number(m[1]);
    if (m[4]) h = (h % 12) + (/p/i.test(m[4]) ? 12 : 0);
    const min = Number(m[2]);
    const sec = Number(m[3] ?? 0);
    if (h > 23 || min > 59 || sec > 59) return undefined;
    return { value: (h * 3600 + min * 60 + sec) / 86_400, format: "h:mm" };
  }
  return undefined;
}

/** A typed-in number: signs, parentheses, thousands separators, an exponent, a currency sign, a percent. */
function typedNumber(t: string): { value: number; format?: string } | undefined {
  let s = t;
  let negative = false;
  let format: string | undefined;
  if (s.startsWith("(") && s.endsWith(")")) {
    negative = true;
    s = s.slice(1, -1).trim();
  }
  const sign = (): void => {
    if (s.startsWith("-") || s.startsWith("+")) {
      negative = negative !== s.startsWith("-");
      s = s.slice(1).trim();
    }
  };
  sign();
  if (/^[$£€]/.test(s)) {
    format = `${s[0]}#,##0.00`;
    s = s.slice(1).trim();
    sign();
  }
  if (s.endsWith("%")) {
    format = "0%";
    s = s.slice(0, -1).trim();
  }
  // A fraction "1 1/2" is a number too.
  const fraction = /^(\d+) (\d+)\/(\d+)$/.exec(s);
  if (fraction && Number(fraction[3]) > 0) {
    const v = Number(fraction[1]) + Number(fraction[2]) / Number(fraction[3]);
    return { value: negative ? -v : v, format: "# ?/?" };
  }
  if (!/^(?:\d{1,3}(?:,\d{3})+|\d+|)(?:\.\d*)?(?:[eE][-+]?\d+)?$/.test(s) || !/\d/.test(s.split(/[eE]/)[0]))
    return undefined;
  let v = Number(s.replace(/,/g, ""));
  if (!Number.isFinite(v)) return undefined;
  if (format === "0%") v /= 100;
  return { value: negative ? -v : v, format };
}

/**
 * What Excel makes of text written through `Range.values` into a cell not formatted as text, as if
 * typed (Office.js: "values … are interpreted as if the user typed them"; Microsoft support, "Stop
 * automatically changing numbers to dates"): numbers (leading zeros dropped, "1e5", "1,000"),
 * percentages, currency amounts, dates and times, fractions, TRUE/FALSE. Anything else stays text.
 * The locale modelled is English (United States) with $, £ and € all read as currency.
 *
 * @returns the value to store and the number format Excel gives the cell (undefined: unchanged)
 */
export function typedValue(text: string): { value: number | string | boolean; format?: string } {
  const t = text.trim();
  if (t === "") return { value: text };
  if (/^(true|false)$/i.test(t)) return { value: t.toUpperCase() === "TRUE" };
  return typedNumber(t) ?? typedDate(t) ?? { value: text };
}

/** Throws Excel's InvalidArgument when `formula` (with its "=") is not a formula Excel accepts. */
function checkFormula(formula: string, where: string): void {
  try {
    parseFormula(formula);
  } catch (e) {
    throw excelError("InvalidArgument", `${where}: the formula ${formula} is not valid: ${(e as Error).message}`);
  }
}

/** Whether the evaluator refused a defined name (none is modelled) or an add-in function not registered. */
function unknownName(message: string): boolean {
  if (/^the function (CAPLAB\.|_XLDUDF_)/i.test(message)) return true;
  const ref = /^the reference (\S+)/.exec(message)?.[1];
  return ref !== undefined && !/[:$]/.test(ref) && !/^[A-Z]{1,3}\d+$/i.test(ref.split("!").pop() ?? "");
}

/** Most recalculation passes before giving up (a circular reference). */
const MAX_PASSES = 20;

/** An error value as a cell shows it: its code ("#N/A"). */
function cellOf(v: Scalar): { value: number | string | boolean; error: boolean } {
  if (isErrorValue(v)) return { value: v.error, error: true };
  if (v === null) return { value: 0, error: false }; // a reference to an empty cell shows 0
  return { value: v, error: false };
}

/**
 * Recalculates every formula of the workbook with the project's evaluator (src/formula, through
 * the sharing module's host): native functions and the registered custom functions, references to
 * any sheet. Array results spill; a spill that would cover a non-empty cell, or that starts in a
 * table, is #SPILL! (Microsoft support, "#SPILL! error"). Formulas the evaluator does not compute
 * keep their value and are listed in `book.uncalculated`. Passes repeat until nothing changes.
 */
function calculate(book: FakeWorkbook): void {
  const functions: Record<string, unknown> = {};
  for (const [id, fn] of book.functions) functions[id.toUpperCase()] = fn;
  book.uncalculated = [];
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    let changed = false;
    book.uncalculated = [];
    for (const sheet of book.sheets) {
      const evaluator = new FormulaEvaluator((name, range) => book.rangeValues(sheet, name, range), functions);
      for (const [row, col, formula] of [...sheet.formulaCells()]) {
        let result: Value;
        try {
          result = evaluator.evaluate(formula);
        } catch (e) {
          if (e instanceof Unsupported && unknownName(e.message)) {
            // No defined names are modelled, and an unregistered add-in function is unknown: #NAME?.
            result = errorValue("#NAME?", e.message);
          } else if (e instanceof Unsupported) {
            book.uncalculated.push(`${sheet.name}!${letters(col)}${row + 1}: ${formula} (${e.message})`);
            continue;
          } else result = errorValue(e instanceof RangeError ? "#REF!" : "#VALUE!", (e as Error).message);
        }
        if (sheet.writeResult(row, col, result, book.tableAt(sheet.name, row, col) !== undefined)) changed = true;
      }
    }
    if (!changed) return;
  }
}

type Op = { json: unknown; apply: () => void };

class Context {
  private queue: Op[] = [];
  readonly workbook: WorkbookProxy;
  readonly application: { suspendApiCalculationUntilNextSync: () => void };
  private suspended = false;

  constructor(readonly book: FakeWorkbook) {
    this.workbook = new WorkbookProxy(this);
    this.application = {
      suspendApiCalculationUntilNextSync: () => {
        this.suspended = true;
        this.push({ suspend: true }, () => undefined);
      },
    };
  }

  push(json: unknown, apply: () => void): void {
    this.queue.push({ json, apply });
  }

  /** Bytes of the response being built (what `load`s read), checked against the 5 MB limit. */
  responseBytes = 0;

  async sync(): Promise<void> {
    const ops = this.queue;
    this.queue = [];
    if (ops.length === 0) return; // nothing to send (Excel.run's closing sync after the last one)
    // The request as it goes over the wire: JSON, UTF-8.
    const bytes = utf8Bytes(JSON.stringify(ops.map((o) => o.json)));
    const refused = bytes > this.book.maxRequestBytes;
    this.book.requests.push({ bytes, operations: ops.length, calculationSuspended: this.suspended, refused });
    this.suspended = false;
    // A real sync is a round trip to the host: the promise settles in a later task, so the page
    // can paint and run its timers between requests (awaiting a microtask here would not let it).
    await new Promise<void>((resolve) => setTimeout(resolve, this.book.latencyMs));
    if (refused) {
      throw excelError(
        "RequestPayloadSizeLimitExceeded",
        `The request payload size has exceeded the limit (${bytes} bytes)`,
      );
    }
    // Operations run in order; the first that fails ends the request (those after it do not run)
    // and the sync rejects with its error.
    this.responseBytes = 0;
    let failure: unknown = null;
    for (const op of ops) {
      try {
        op.apply();
      } catch (e) {
        failure = e;
        break;
      }
    }
    calculate(this.book);
    if (failure !== null) throw failure;
    if (this.responseBytes > this.book.maxResponseBytes) {
      throw excelError(
        "ResponsePayloadSizeLimitExceeded",
        `The response payload size has exceeded the limit (${this.responseBytes} bytes)`,
      );
    }
    // Excel applies and calculates a request in its own process; here that runs in the page, so
    // answer in a task of its own rather than in the one the caller continues in (its next request).
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
  }
}

class WorkbookProxy {
  readonly worksheets: WorksheetsProxy;
  readonly tables: TablesProxy;
  constructor(private readonly ctx: Context) {
    this.worksheets = new WorksheetsProxy(ctx);
    this.tables = new TablesProxy(ctx, null);
  }
  /** Workbook.getSelectedRange (ExcelApi 1.1): the selected cell (FakeWorkbook.selection). */
  getSelectedRange(): RangeProxy {
    const { sheet, row, col } = this.ctx.book.selection;
    const name = sheet || this.ctx.book.activeSheet || this.ctx.book.sheets[0]?.name || "";
    return new RangeProxy(this.ctx, new WorksheetProxy(this.ctx, name), row, col, 1, 1);
  }
}

class WorksheetsProxy {
  items: WorksheetProxy[] = [];
  constructor(private readonly ctx: Context) {}
  load(): void {
    this.ctx.push(
      { load: "worksheets" },
      () => (this.items = this.ctx.book.sheets.map((s) => new WorksheetProxy(this.ctx, s.name))),
    );
  }
  getItem(name: string): WorksheetProxy {
    return new WorksheetProxy(this.ctx, name);
  }
  /** Worksheets.getItemOrNullObject (ExcelApi 1.4): `isNullObject` is known after the next sync. */
  getItemOrNullObject(name: string): WorksheetProxy {
    const ws = new WorksheetProxy(this.ctx, name);
    this.ctx.push({ getSheetOrNull: name }, () => (ws.isNullObject = this.ctx.book.sheet(name) === undefined));
    return ws;
  }
  add(name: string): WorksheetProxy {
    this.ctx.push({ addSheet: name }, () => {
      checkSheetName(name);
      if (this.ctx.book.sheet(name)) throw excelError("ItemAlreadyExists", `A sheet named ${name} already exists`);
      this.ctx.book.sheets.push(new FakeSheet(name));
    });
    return new WorksheetProxy(this.ctx, name);
  }
}

/** A table as `tables.load("items/name")` gives it: its name, its worksheet and `getRange()` (header included). */
interface TableItem {
  name: string;
  worksheet: WorksheetProxy;
  getRange: () => RangeProxy;
}

class TablesProxy {
  items: TableItem[] = [];
  constructor(
    private readonly ctx: Context,
    private readonly sheet: string | null,
  ) {}
  load(): void {
    this.ctx.push(
      { load: "tables" },
      () =>
        (this.items = this.ctx.book.tables
          .filter((t) => this.sheet === null || t.sheet.toLowerCase() === this.sheet.toLowerCase())
          .map((t) => {
            const worksheet = new WorksheetProxy(this.ctx, t.sheet);
            return {
              name: t.name,
              worksheet,
              getRange: () => new RangeProxy(this.ctx, worksheet, t.row, t.col, t.rows, t.cols),
            };
          })),
    );
  }
  add(range: RangeProxy, hasHeaders: boolean): { name: string } {
    const table: FakeTable = {
      name: `Table${this.ctx.book.tables.length + 1}`,
      sheet: range.sheet,
      row: range.row,
      col: range.col,
      rows: range.rows,
      cols: range.cols,
    };
    const proxy = { name: table.name };
    this.ctx.push({ addTable: range.address, hasHeaders }, () => {
      const book = this.ctx.book;
      checkTableName(proxy.name);
      if (book.tables.some((t) => t.name.toLowerCase() === proxy.name.toLowerCase()))
        throw excelError("ItemAlreadyExists", `A table named ${proxy.name} already exists`);
      const overlaps = book.tables.find(
        (t) =>
          t.sheet.toLowerCase() === table.sheet.toLowerCase() &&
          t.row < table.row + table.rows &&
          table.row < t.row + t.rows &&
          t.col < table.col + table.cols &&
          table.col < t.col + t.cols,
      );
      if (overlaps) throw excelError("InvalidArgument", `A table cannot overlap another table (${overlaps.name})`);
      if (hasHeaders) tableHeaders(range.ws.model(), table);
      table.name = proxy.name;
      book.tables.push(table);
    });
    return proxy;
  }
}

/**
 * A table's header row as Excel makes it: every header is text, a blank one becomes "Column1",
 * "Column2", … and a repeated one (case-insensitive) gets a number, "Name2" (Microsoft support,
 * "Overview of Excel tables": headers are unique text).
 */
function tableHeaders(s: FakeSheet, t: FakeTable): void {
  const seen = new Set<string>();
  for (let j = 0; j < t.cols; j++) {
    const v = s.valueAt(t.row, t.col + j);
    let text = v === "" ? `Column${j + 1}` : String(v);
    const base = text;
    for (let n = 2; seen.has(text.toLowerCase()); n++) text = `${base}${n}`;
    seen.add(text.toLowerCase());
    if (text !== v || s.formulaAt(t.row, t.col + j) !== null) {
      s.setFormula(t.row, t.col + j, null);
      s.setValue(t.row, t.col + j, text);
    }
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^$()|[\]\\{}]/g, "\\$&");
}

/** A sheet name as a formula writes it: quoted when it is not a plain name. */
function sheetRef(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_.]*$/.test(name) && !/^[A-Za-z]{1,3}\d+$/.test(name)
    ? name
    : `'${name.replace(/'/g, "''")}'`;
}

/**
 * `Worksheet.pageLayout` (ExcelApi 1.9), the parts the add-in sets, as strict as Excel's reference
 * (learn.microsoft.com/javascript/api/excel/excel.pagelayout): `orientation` is "Portrait" or
 * "Landscape" (`Excel.PageOrientation`); `zoom.scale` is a print scale "between 10 and 400", and
 * goes with neither fit-to-pages count (PageLayoutZoomOptions); `setPrintArea` takes an A1 range
 * of this sheet.
 */
class PageLayoutProxy {
  constructor(
    private readonly ctx: Context,
    private readonly sheet: WorksheetProxy,
  ) {}
  set orientation(o: string) {
    this.ctx.push({ pageOrientation: o }, () => {
      if (o !== "Portrait" && o !== "Landscape")
        throw excelError("InvalidArgument", `orientation must be Portrait or Landscape, got ${o}`);
      this.sheet.model().print.orientation = o;
    });
  }
  get orientation(): string {
    throw new Error("pageLayout.orientation read before load() and sync() (PropertyNotLoaded)");
  }
  set zoom(z: { scale?: number; horizontalFitToPages?: number; verticalFitToPages?: number }) {
    this.ctx.push({ pageZoom: z }, () => {
      const fits = z.horizontalFitToPages !== undefined || z.verticalFitToPages !== undefined;
      if (z.scale !== undefined && (!Number.isFinite(z.scale) || z.scale < 10 || z.scale > 400))
        throw excelError("InvalidArgument", `zoom.scale must be between 10 and 400, got ${z.scale}`);
      if (z.scale !== undefined && fits)
        throw excelError("InvalidArgument", "zoom.scale cannot be set with a fit-to-pages count");
      this.sheet.model().print.zoom = { ...z };
    });
  }
  get zoom(): { scale?: number } {
    throw new Error("pageLayout.zoom read before load() and sync() (PropertyNotLoaded)");
  }
  setPrintArea(printArea: string | RangeProxy): void {
    const range = typeof printArea === "string" ? this.sheet.getRange(printArea) : printArea;
    this.ctx.push({ setPrintArea: range.address }, () => {
      this.sheet.model().print.printArea = range.address.slice(range.address.lastIndexOf("!") + 1);
    });
  }
}

class WorksheetProxy {
  readonly tables: TablesProxy;
  readonly charts: {
    add: (type: string, range: RangeProxy, seriesBy: string) => ChartProxy;
    load: (properties?: string) => void;
    items: ChartReader[];
  };
  readonly freezePanes: { freezeRows: (n: number) => void };
  readonly pageLayout: PageLayoutProxy;
  readonly horizontalPageBreaks: { add: (pageBreakRange: string | RangeProxy) => void };
  /** True when got by getItemOrNullObject for a sheet that does not exist (known after sync). */
  isNullObject = false;
  constructor(
    private readonly ctx: Context,
    private sheetName: string,
  ) {
    this.tables = new TablesProxy(ctx, sheetName);
    const charts: WorksheetProxy["charts"] = {
      add: (type, range, seriesBy) => new ChartProxy(ctx, this, type, range, seriesBy),
      load: () =>
        ctx.push({ load: "charts", sheet: this.name }, () => {
          charts.items = this.model().charts.map((c) => new ChartReader(ctx, c));
        }),
      items: [],
    };
    this.charts = charts;
    this.freezePanes = {
      freezeRows: (n: number) => ctx.push({ freezeRows: n }, () => (this.model().frozenRows = n)),
    };
    this.pageLayout = new PageLayoutProxy(ctx, this);
    // PageBreakCollection.add (ExcelApi 1.9): "adds a page break before the top-left cell of the range".
    this.horizontalPageBreaks = {
      add: (pageBreakRange) => {
        const range = typeof pageBreakRange === "string" ? this.getRange(pageBreakRange) : pageBreakRange;
        ctx.push({ addPageBreak: range.address }, () => {
          const rows = this.model().print.pageBreakRows;
          if (!rows.includes(range.row)) rows.push(range.row);
        });
      },
    };
  }
  /** Worksheet.load("name"): the name is known here already; the request is logged as Excel would get it. */
  load(properties?: string): void {
    this.ctx.push({ load: properties ?? "*", sheet: this.sheetName }, () => undefined);
  }
  /** The sheet's name (after a sync, the name Excel gave it: a copy's, or a new one). */
  get name(): string {
    return this.sheetName;
  }
  set name(name: string) {
    this.ctx.push({ renameSheet: this.sheetName, to: name }, () => {
      const s = this.model();
      checkSheetName(name);
      const other = this.ctx.book.sheet(name);
      if (other && other !== s) throw excelError("ItemAlreadyExists", `A sheet named ${name} already exists`);
      // Excel follows a renamed sheet in every formula that names it, and in its tables.
      const plain = escapeRegExp(s.name);
      const quoted = escapeRegExp(s.name.replace(/'/g, "''"));
      const old = new RegExp(`(^|[^A-Za-z0-9_.'])(?:${plain}|'${quoted}')!`, "gi");
      for (const sheet of this.ctx.book.sheets)
        for (const [r, c, f] of [...sheet.formulaCells()]) {
          const moved = f.replace(old, (_, before: string) => `${before}${sheetRef(name)}!`);
          if (moved !== f) sheet.setFormula(r, c, moved);
        }
      for (const t of this.ctx.book.tables) if (t.sheet === s.name) t.sheet = name;
      // Excel follows a renamed sheet in its charts' references.
      for (const c of s.charts)
        for (const x of c.series)
          for (const k of ["xRef", "yRef"] as const)
            if (x[k]?.startsWith(`${s.name}!`)) x[k] = `${name}!${(x[k] as string).slice(s.name.length + 1)}`;
      s.name = name;
      this.sheetName = name;
    });
  }
  model(): FakeSheet {
    const s = this.ctx.book.sheet(this.sheetName);
    if (!s) throw new Error(`no sheet ${this.sheetName} (ItemNotFound)`);
    return s;
  }
  /**
   * Worksheet.delete (ExcelApi 1.1): the sheet goes, with its tables and charts ("Deletes the
   * worksheet from the workbook", excel.d.ts). Excel refuses to delete the last visible sheet
   * (InvalidOperation), as here.
   */
  delete(): void {
    this.ctx.push({ deleteSheet: this.sheetName }, () => {
      const s = this.model();
      if (this.ctx.book.sheets.length === 1)
        throw excelError("InvalidOperation", "A workbook must contain at least one visible worksheet");
      this.ctx.book.sheets = this.ctx.book.sheets.filter((x) => x !== s);
      this.ctx.book.tables = this.ctx.book.tables.filter((t) => t.sheet.toLowerCase() !== s.name.toLowerCase());
      if (this.ctx.book.activeSheet.toLowerCase() === s.name.toLowerCase()) this.ctx.book.activeSheet = "";
    });
  }
  /** Worksheet.copy (ExcelApi 1.7): a new sheet "Name (2)" with the cells, formats and charts. */
  copy(position?: string): WorksheetProxy {
    const copy = new WorksheetProxy(this.ctx, `${this.sheetName} (copy)`);
    this.ctx.push({ copySheet: this.sheetName, position }, () => {
      const s = this.model();
      let n = 2;
      while (this.ctx.book.sheet(`${s.name} (${n})`)) n++;
      const c = s.clone(`${s.name} (${n})`);
      this.ctx.book.sheets.push(c);
      copy.sheetName = c.name;
      // The copy keeps its tables, under new names (table names are workbook-wide).
      for (const t of this.ctx.book.tables.filter((x) => x.sheet === s.name)) {
        let k = 2;
        while (this.ctx.book.tables.some((x) => x.name.toLowerCase() === `${t.name}${k}`.toLowerCase())) k++;
        this.ctx.book.tables.push({ ...t, name: `${t.name}${k}`, sheet: c.name });
      }
    });
    return copy;
  }
  getUsedRangeOrNullObject(): RangeProxy {
    return new RangeProxy(this.ctx, this, 0, 0, 1, 1, true);
  }
  /** Worksheet.getRange (ExcelApi 1.1) for an A1 address on this sheet ("B3" or "A12:C12"). */
  getRange(address: string): RangeProxy {
    const m = /^\$?([A-Z]{1,3})\$?(\d+)(?::\$?([A-Z]{1,3})\$?(\d+))?$/.exec(address);
    if (!m) throw new Unsupported(`the address ${address}`);
    const r0 = Number(m[2]) - 1;
    const c0 = columnIndex(m[1]);
    const r1 = m[4] === undefined ? r0 : Number(m[4]) - 1;
    const c1 = m[3] === undefined ? c0 : columnIndex(m[3]);
    return new RangeProxy(this.ctx, this, r0, c0, r1 - r0 + 1, c1 - c0 + 1);
  }
  getRangeByIndexes(row: number, col: number, rows: number, cols: number): RangeProxy {
    if (rows < 1 || cols < 1) throw new Error(`getRangeByIndexes: empty range ${rows}x${cols} (InvalidArgument)`);
    return new RangeProxy(this.ctx, this, row, col, rows, cols);
  }
  activate(): void {
    this.ctx.push({ activate: this.name }, () => (this.ctx.book.activeSheet = this.name));
  }
}

function letters(col: number): string {
  let s = "";
  let n = col + 1;
  while (n > 0) {
    const r = (n - 1) % 26;
    s = String.fromCharCode(65 + r) + s;
    n = Math.floor((n - 1) / 26);
  }
  return s;
}

/** What a `load` read from a range. */
interface LoadedRange {
  values?: (number | string | boolean)[][];
  formulas?: (number | string | boolean)[][];
  valueTypes?: string[][];
  numberFormat?: string[][];
}

/** Excel's default column width in points (8.43 characters of Calibri 11). */
const DEFAULT_COLUMN_WIDTH = 48;

class RangeProxy {
  readonly format: {
    columnWidth: number;
    autofitColumns: () => void;
    font: { bold: boolean };
    load: (properties?: string) => void;
  };
  /** True for a used range of an empty sheet (known after `load` and `sync`). */
  isNullObject = false;
  private loaded: LoadedRange = {};
  constructor(
    private readonly ctx: Context,
    readonly ws: WorksheetProxy,
    public row: number,
    public col: number,
    public rows: number,
    public cols: number,
    /** A used range: its position is found when loaded. */
    private readonly usedRange = false,
  ) {
    const push = (json: unknown, apply: () => void): void => ctx.push(json, apply);
    const self = { address: this.address, col };
    let width = 0;
    this.format = {
      set columnWidth(w: number) {
        push({ range: self.address, columnWidth: w }, () => ws.model().columnWidths.set(self.col, w));
      },
      get columnWidth(): number {
        return width;
      },
      load: () =>
        push(
          { range: self.address, load: "format" },
          () => (width = ws.model().columnWidths.get(self.col) ?? DEFAULT_COLUMN_WIDTH),
        ),
      autofitColumns: () => push({ range: self.address, autofit: true }, () => undefined),
      font: {
        set bold(b: boolean) {
          push({ range: self.address, bold: b }, () => undefined);
        },
        get bold(): boolean {
          return false;
        },
      },
    };
  }
  get sheet(): string {
    return this.ws.name;
  }
  get rowIndex(): number {
    return this.row;
  }
  get columnIndex(): number {
    return this.col;
  }
  get rowCount(): number {
    return this.rows;
  }
  get columnCount(): number {
    return this.cols;
  }
  /** Reads the range's cells into this proxy at its place in the batch (a used range finds its bounds first). */
  load(properties?: string): void {
    this.ctx.push({ range: this.address, load: properties ?? "*" }, () => {
      const s = this.ws.model();
      if (this.usedRange) {
        const u = s.used();
        this.isNullObject = u === undefined;
        if (!u) return;
        Object.assign(this, { row: u.row, col: u.col, rows: u.rows, cols: u.cols });
      }
      const grid = <T>(f: (c: FakeCell | undefined, row: number, col: number) => T): T[][] =>
        Array.from({ length: this.rows }, (_, i) =>
          Array.from({ length: this.cols }, (_, j) => f(s.get(this.row + i, this.col + j), this.row + i, this.col + j)),
        );
      this.loaded = {
        values: grid((c) => c?.value ?? ""),
        formulas: grid((c) => c?.formula ?? c?.value ?? ""),
        valueTypes: grid((c, row, col) =>
          !c || c.value === ""
            ? "Empty"
            : s.errors.has(`${row},${col}`)
              ? "Error"
              : typeof c.value === "number"
                ? "Double"
                : typeof c.value === "boolean"
                  ? "Boolean"
                  : "String",
        ),
        numberFormat: grid((c) => c?.format ?? "General"),
      };
      // The response carries what was asked for ("*": everything).
      const asked = (properties ?? "*").split(",").map((p) => p.trim());
      for (const [k, v] of Object.entries(this.loaded))
        if (asked.includes("*") || asked.includes(k)) this.ctx.responseBytes += utf8Bytes(JSON.stringify(v));
    });
  }
  private read<K extends keyof LoadedRange>(what: K): NonNullable<LoadedRange[K]> {
    const v = this.loaded[what];
    if (v === undefined)
      throw new Error(`The property '${what}' is not available: load it and sync first (PropertyNotLoaded)`);
    return v as NonNullable<LoadedRange[K]>;
  }
  get valueTypes(): string[][] {
    return this.read("valueTypes");
  }
  /** Range.copyFrom(source, "Values") (ExcelApi 1.9): values only; a text stays text, never a formula. */
  copyFrom(source: RangeProxy, type: string): void {
    if (type !== "Values") throw new Error(`copyFrom ${type} is not faked`);
    this.ctx.push({ range: this.address, copyFrom: source.address, type }, () => {
      const from = source.ws.model();
      const to = this.ws.model();
      for (let i = 0; i < source.rows; i++)
        for (let j = 0; j < source.cols; j++) {
          const c = from.get(source.row + i, source.col + j);
          const target = to.cell(this.row + i, this.col + j);
          target.value = c?.value ?? "";
          target.formula = null;
          to.setError(this.row + i, this.col + j, from.errors.has(`${source.row + i},${source.col + j}`));
        }
    });
  }
  get address(): string {
    return `${this.ws.name}!${letters(this.col)}${this.row + 1}:${letters(this.col + this.cols - 1)}${this.row + this.rows}`;
  }
  /**
   * Range.select (ExcelApi 1.1): "Selects the specified range in the Excel UI"; the selection's
   * top-left cell becomes FakeWorkbook.selection, and its sheet the active one (Excel shows the
   * sheet of the selection).
   */
  select(): void {
    this.ctx.push({ select: this.address }, () => {
      this.ws.model();
      this.ctx.book.selection = { sheet: this.ws.name, row: this.row, col: this.col };
      this.ctx.book.activeSheet = this.ws.name;
    });
  }
  /** Range.getCell (ExcelApi 1.1): one cell, relative to the range's top-left. */
  getCell(row: number, col: number): RangeProxy {
    return new RangeProxy(this.ctx, this.ws, this.row + row, this.col + col, 1, 1);
  }
  getEntireColumn(): RangeProxy {
    return new RangeProxy(this.ctx, this.ws, 0, this.col, 1_048_576, this.cols);
  }
  private check(a: unknown[][], what: string): void {
    if (a.length !== this.rows || a.some((r) => r.length !== this.cols))
      throw new Error(
        `${what}: ${a.length}x${a[0]?.length} array for a ${this.rows}x${this.cols} range (InvalidArgument)`,
      );
  }
  get numberFormat(): string[][] {
    return this.read("numberFormat");
  }
  /**
   * A 2-D array of the range's size, or a 1×1 array applied to every cell (Excel.Range.numberFormat:
   * "If the argument is a single value, it will be applied to all cells in the range"; the 1×1
   * form on a bounded range: OfficeDev/office-js-docs-pr#5400). Values and formulas take no such
   * broadcast here (office-js-docs-reference#578: it does not work for them).
   */
  set numberFormat(a: string[][]) {
    const broadcast = a.length === 1 && a[0]?.length === 1 && this.rows * this.cols > 1;
    if (!broadcast) this.check(a, "numberFormat");
    this.ctx.push({ range: this.address, numberFormat: a }, () => {
      const s = this.ws.model();
      if (broadcast) {
        for (let r = 0; r < this.rows; r++)
          for (let c = 0; c < this.cols; c++) s.setFormat(this.row + r, this.col + c, a[0][0]);
      } else a.forEach((line, r) => line.forEach((f, c) => s.setFormat(this.row + r, this.col + c, f)));
    });
  }
  get values(): (number | string | boolean)[][] {
    return this.read("values");
  }
  set values(a: (number | string | boolean)[][]) {
    this.check(a, "values");
    this.ctx.push({ range: this.address, values: a }, () => {
      const s = this.ws.model();
      a.forEach((line, r) => line.forEach((v, c) => typeInto(s, this.row + r, this.col + c, v, this.address)));
    });
  }
  get formulas(): (number | string | boolean)[][] {
    return this.read("formulas");
  }
  set formulas(a: (number | string | boolean)[][]) {
    this.check(a, "formulas");
    this.ctx.push({ range: this.address, formulas: a }, () => {
      const s = this.ws.model();
      a.forEach((line, r) =>
        line.forEach((f, c) => {
          const row = this.row + r;
          const col = this.col + c;
          if (typeof f !== "string" || !f.startsWith("=") || f.length < 2 || s.formatAt(row, col) === "@") {
            typeInto(s, row, col, f, this.address); // a constant, or a formula typed into a text cell: text
            return;
          }
          checkFormula(f, this.address);
          s.setError(row, col, false);
          s.claim(row, col);
          s.setFormula(row, col, f);
        }),
      );
    });
  }
}

/**
 * Writes `v` into a cell as Excel takes a value from `Range.values`: into a text-formatted cell
 * ("@") as it is; otherwise as if typed — "=…" (and "+…", "-…", "@…" that are not numbers) is a
 * formula, which must parse (else InvalidArgument, and the request fails), and other text goes
 * through {@link typedValue}.
 */
function typeInto(s: FakeSheet, row: number, col: number, v: number | string | boolean, where: string): void {
  s.setError(row, col, false);
  s.claim(row, col);
  const asIs = (value: number | string | boolean): void => {
    s.setValue(row, col, value);
    if (s.formulaAt(row, col) !== null) s.setFormula(row, col, null);
  };
  if (typeof v !== "string" || s.formatAt(row, col) === "@") return asIs(v);
  if (v.length > 1 && /^[=+\-@]/.test(v) && (v[0] === "=" || v[0] === "@" || typedNumber(v.trim()) === undefined)) {
    const formula = v.startsWith("=") ? v : `=${v.slice(v.startsWith("@") ? 1 : 0)}`;
    checkFormula(formula, where);
    s.setFormula(row, col, formula);
    s.setValue(row, col, "");
    return;
  }
  const typed = typedValue(v);
  asIs(typed.value);
  if (typed.format !== undefined && s.formatAt(row, col) === "General") s.setFormat(row, col, typed.format);
}

class SeriesProxy {
  constructor(
    private readonly ctx: Context,
    private readonly chart: () => FakeChart,
    private readonly index: () => number,
  ) {}
  private model(): FakeChart["series"][number] {
    return this.chart().series[this.index()];
  }
  set name(n: string) {
    this.ctx.push({ seriesName: n }, () => (this.model().name = n));
  }
  set chartType(t: string) {
    this.ctx.push({ seriesType: t }, () => (this.model().chartType = t));
  }
  setXAxisValues(range: RangeProxy): void {
    this.ctx.push({ setXAxisValues: range.address }, () => {
      this.model().x = rangeColumn(this.ctx, range);
      this.model().xRef = range.address;
    });
  }
  setValues(range: RangeProxy): void {
    this.ctx.push({ setValues: range.address }, () => {
      this.model().y = rangeColumn(this.ctx, range);
      this.model().yRef = range.address;
    });
  }
}

function rangeColumn(ctx: Context, range: RangeProxy): (number | string | boolean)[] {
  const s = ctx.book.sheet(range.sheet) as FakeSheet;
  return s.values(range.row, range.col, range.rows, 1).map((r) => r[0]);
}

class ChartProxy {
  private readonly model: FakeChart;
  readonly title: { text: string };
  readonly axes: {
    categoryAxis: { title: { text: string }; logBase: number };
    valueAxis: { title: { text: string } };
  };
  readonly series: { getItemAt: (i: number) => SeriesProxy; add: (name: string) => SeriesProxy };
  constructor(ctx: Context, ws: WorksheetProxy, type: string, range: RangeProxy, seriesBy: string) {
    const model: FakeChart = { type, seriesBy, title: "", xTitle: "", yTitle: "", position: [], series: [] };
    this.model = model;
    ctx.push({ addChart: type, range: range.address, seriesBy }, () => {
      const s = ws.model();
      // seriesBy Columns over two columns: the first is x, the second one series; over one column,
      // one series with x = 1, 2, … (Excel's default when no x values are given).
      const data = s.values(range.row, range.col, range.rows, range.cols);
      const column = (j: number): string =>
        `${s.name}!${letters(range.col + j)}${range.row + 1}:${letters(range.col + j)}${range.row + range.rows}`;
      if (seriesBy === "Columns" && range.cols === 2)
        model.series.push({
          name: "",
          chartType: type,
          x: data.map((r) => r[0]),
          y: data.map((r) => r[1]),
          xRef: column(0),
          yRef: column(1),
        });
      else if (seriesBy === "Columns" && range.cols === 1)
        model.series.push({
          name: "",
          chartType: type,
          x: data.map((_, i) => i + 1),
          y: data.map((r) => r[0]),
          yRef: column(0),
        });
      s.charts.push(model);
    });
    const text = (set: (t: string) => void) => ({
      set text(t: string) {
        ctx.push({ text: t }, () => set(t));
      },
      get text(): string {
        return "";
      },
    });
    this.title = text((t) => (model.title = t));
    this.axes = {
      categoryAxis: {
        title: text((t) => (model.xTitle = t)),
        // ChartAxis.logBase (ExcelApi 1.7): the x axis' log scale, recorded on the model.
        set logBase(b: number) {
          ctx.push({ logBase: b }, () => (model.xLogBase = b));
        },
        get logBase(): number {
          return model.xLogBase ?? 0;
        },
      },
      valueAxis: { title: text((t) => (model.yTitle = t)) },
    };
    let count = 1;
    this.series = {
      getItemAt: (i: number) =>
        new SeriesProxy(
          ctx,
          () => model,
          () => i,
        ),
      add: (name: string) => {
        const i = count++;
        ctx.push({ addSeries: name }, () => model.series.push({ name, chartType: type, x: [], y: [] }));
        return new SeriesProxy(
          ctx,
          () => model,
          () => i,
        );
      },
    };
  }
  setPosition(start: string, end: string): void {
    this.model.position = [start, end];
  }
}

/**
 * A chart as read back (`worksheet.charts.load`): title, axis titles and series, whose
 * `getDimensionDataSourceString` (ExcelApi 1.15) and `getDimensionValues` (1.12) answer at the
 * next sync, as ClientResults do.
 */
class ChartReader {
  readonly title: { text: string; load: () => void };
  readonly axes: {
    categoryAxis: { title: { text: string; load: () => void } };
    valueAxis: { title: { text: string; load: () => void } };
  };
  readonly series: { load: () => void; items: SeriesReader[] };
  constructor(ctx: Context, model: FakeChart) {
    const loaded = (text: string) => ({ text, load: () => undefined });
    this.title = loaded(model.title);
    this.axes = { categoryAxis: { title: loaded(model.xTitle) }, valueAxis: { title: loaded(model.yTitle) } };
    this.series = { load: () => undefined, items: model.series.map((x) => new SeriesReader(ctx, x)) };
  }
}

class SeriesReader {
  readonly name: string;
  readonly chartType: string;
  constructor(
    private readonly ctx: Context,
    private readonly model: FakeChart["series"][number],
  ) {
    this.name = model.name;
    this.chartType = model.chartType;
  }
  private result<T>(dimension: string, get: () => T): { value: T } {
    const out = { value: undefined as unknown as T };
    this.ctx.push({ getDimension: dimension }, () => (out.value = get()));
    return out;
  }
  /** Excel's form: `='Sheet name'!$B$2:$B$5`. */
  getDimensionDataSourceString(dimension: string): { value: string } {
    return this.result(dimension, () => {
      const ref = dimension === "XValues" ? this.model.xRef : this.model.yRef;
      if (!ref) return "";
      const bang = ref.lastIndexOf("!");
      const cells = ref
        .slice(bang + 1)
        .split(":")
        .map((a) => a.replace(/^([A-Z]+)(\d+)$/, "$$$1$$$2"))
        .join(":");
      return `='${ref.slice(0, bang).replace(/'/g, "''")}'!${cells}`;
    });
  }
  getDimensionValues(dimension: string): { value: (number | string | boolean)[] } {
    return this.result(dimension, () => (dimension === "XValues" ? this.model.x : this.model.y));
  }
}

/** The fake host's globals and its workbook. */
export interface FakeHost {
  workbook: FakeWorkbook;
  Office: unknown;
  Excel: unknown;
  CustomFunctions: unknown;
  /** Functions registered through CustomFunctions.associate. */
  registered: Map<string, unknown>;
  /** Ribbon command functions registered through Office.actions.associate, by name. */
  actions: Map<string, unknown>;
  /** How many times `Office.addin.showAsTaskpane` was called. */
  shown: { count: number };
}

export interface FakeHostOptions {
  /** Highest ExcelApi minor version supported (default 17). */
  excelApiMinor?: number;
  /** Whether the custom-functions runtime is present (default true). */
  customFunctions?: boolean;
  maxRequestBytes?: number;
  /** Largest response (what loads read), default 5 MB. */
  maxResponseBytes?: number;
  /** Milliseconds each sync() waits, as a round trip to Excel would (default 0). */
  latencyMs?: number;
  /** Custom functions registered from the start, by id (as the functions bundle's associate calls do). */
  functions?: Readonly<Record<string, unknown>>;
  /** `Office.context.officeTheme` (absent unless given: as in a host without the theme API). */
  officeTheme?: Record<string, unknown>;
}

/**
 * Creates an in-memory host.
 *
 * @example
 * const host = createFakeHost(); installFakeHost(globalThis, host);
 */
export function createFakeHost(options: FakeHostOptions = {}): FakeHost {
  const workbook = new FakeWorkbook(options.maxRequestBytes, options.maxResponseBytes);
  workbook.latencyMs = options.latencyMs ?? 0;
  const minor = options.excelApiMinor ?? 17;
  const cf = options.customFunctions ?? true;
  const registered = new Map<string, unknown>();
  const actions = new Map<string, unknown>();
  const shown = { count: 0 };
  const isSetSupported = (name: string, version?: string): boolean => {
    const v = Number((version ?? "1.1").split(".")[1] ?? 1);
    if (name === "ExcelApi") return v <= minor;
    if (name === "CustomFunctionsRuntime" || name === "SharedRuntime") return cf && v <= 1;
    return false;
  };
  const Office = {
    HostType: { Excel: "Excel" },
    context: { requirements: { isSetSupported }, partitionKey: undefined, officeTheme: options.officeTheme },
    onReady: (cb?: (info: { host: string; platform: string }) => void) => {
      const info = { host: "Excel", platform: "OfficeOnline" };
      cb?.(info);
      return Promise.resolve(info);
    },
    actions: { associate: (name: string, fn: unknown) => actions.set(name, fn) },
    addin: {
      showAsTaskpane: async (): Promise<void> => {
        shown.count++;
      },
    },
  };
  for (const [id, fn] of Object.entries(options.functions ?? {})) if (typeof fn === "function") registered.set(id, fn);
  workbook.functions = registered;
  const Excel = {
    WorksheetPositionType: { end: "End" },
    PageOrientation: { portrait: "Portrait", landscape: "Landscape" },
    RangeCopyType: { values: "Values" },
    /** ExcelApi 1.8: opens a new workbook from a file; here the file is kept for the test to read. */
    createWorkbook: async (base64: string): Promise<void> => {
      workbook.created.push(base64);
    },
    run: async <T>(fn: (ctx: Context) => Promise<T>): Promise<T> => {
      const ctx = new Context(workbook);
      const result = await fn(ctx);
      await ctx.sync();
      return result;
    },
    ChartType: {
      xyscatter: "XYScatter",
      xyscatterLines: "XYScatterLines",
      xyscatterLinesNoMarkers: "XYScatterLinesNoMarkers",
    },
    ChartSeriesBy: { auto: "Auto", columns: "Columns", rows: "Rows" },
  };
  const CustomFunctions = cf ? { associate: (id: string, fn: unknown) => registered.set(id, fn) } : undefined;
  return { workbook, Office, Excel, CustomFunctions, registered, actions, shown };
}

/** Puts the host's Office, Excel and CustomFunctions on a global object (window or globalThis). */
export function installFakeHost(target: Record<string, unknown>, host: FakeHost): void {
  target.Office = host.Office;
  target.Excel = host.Excel;
  if (host.CustomFunctions) target.CustomFunctions = host.CustomFunctions;
  target.__fakeExcel = host;
}
