/**
 * An in-memory Office / Excel / CustomFunctions host: the subset of Office.js the lab renderer
 * (`src/excel/render-plan.ts`) calls, with the behaviours that matter for it:
 * - operations are queued and applied at `context.sync()`, like Office.js batches;
 * - each sync's request is serialized (JSON of every queued operation and its arguments) and a
 *   request over `maxRequestBytes` (default 5 MB, Excel on the web's limit) is refused with
 *   `RequestPayloadSizeLimitExceeded` and nothing of it applied;
 * - `Range.values` with a text that begins with "=" in a cell not formatted as text ("@") becomes a
 *   formula (the injection trap), and "+", "-", "@" texts likewise;
 * - a worksheet name already used (case-insensitive) is refused, as Excel does;
 * - for "Prepare for sharing" (`src/excel/sharing-excel.ts`): `Worksheet.copy` (cells, formats,
 *   charts), renaming, `getItem`, used ranges and range reads (`load` of formulas, values,
 *   valueTypes, numberFormat, column widths, applied in batch order at `sync`),
 *   `Range.copyFrom(…, "Values")` and `Excel.createWorkbook` (the base64 is kept in
 *   `workbook.created`);
 * - calculation: a formula cell keeps the value written before it (the renderers write the computed
 *   result first, then the formula, in one request), except a formula that is a bare call of a
 *   registered custom function on references and numbers (`=CAPLAB.DOE_FIT(A5:B8,C5:C8,2)`), which
 *   is computed at each sync by that function — as Excel does — and spills its array result.
 *
 * A plain module with no Node imports: the Jest tests use it directly and the browser e2e host page
 * bundles it (`createFakeHost` + `installFakeHost`).
 */

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
export class FakeSheet {
  charts: FakeChart[] = [];
  frozenRows = 0;
  columnWidths = new Map<number, number>();
  private readonly pages = new Map<number, Page>();
  private readonly formatCodes = new Map<string, number>([["General", 0]]);
  private readonly formatNames: string[] = ["General"];
  private count = 0;
  /** Cells ("row,col") whose value is an Excel error shown as its code ("#N/A"): valueTypes "Error". */
  errors = new Set<string>();
  constructor(public name: string) {}

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
    else this.errors.delete(`${row},${col}`);
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
  /** Custom functions by id (what `CustomFunctions.associate` registered), for calculation. */
  functions = new Map<string, unknown>();
  /** Cells holding a bare custom-function call, recalculated at each sync. */
  calls: { sheet: FakeSheet; row: number; col: number }[] = [];
  constructor(public maxRequestBytes = 5_000_000) {}

  sheet(name: string): FakeSheet | undefined {
    return this.sheets.find((s) => s.name.toLowerCase() === name.toLowerCase());
  }
}

const BARE_CALL = /^=CAPLAB\.([A-Z][A-Z0-9_.]*)\((.*)\)$/i;
const REFERENCE =
  /^(?:'((?:[^']|'')+)'!|([A-Za-z_][A-Za-z0-9_.]*)!)?\$?([A-Z]{1,3})\$?(\d+)(?::\$?([A-Z]{1,3})\$?(\d+))?$/;

function columnIndex(letters: string): number {
  let col = 0;
  for (const ch of letters) col = col * 26 + (ch.charCodeAt(0) - 64);
  return col - 1;
}

/** Splits a call's argument text at its top-level commas. */
function splitArguments(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "'" || ch === '"') quoted = !quoted;
    else if (!quoted && (ch === "(" || ch === "{")) depth++;
    else if (!quoted && (ch === ")" || ch === "}")) depth--;
    else if (!quoted && depth === 0 && ch === ",") {
      out.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(text.slice(start).trim());
  return out;
}

/** An argument as Excel passes it to a custom function: a number, or a range's values (2-D). */
function argumentValue(book: FakeWorkbook, home: FakeSheet, text: string): unknown {
  if (/^-?\d+(\.\d+)?(E[+-]?\d+)?$/i.test(text)) return Number(text);
  const m = REFERENCE.exec(text);
  if (!m) return undefined;
  const sheet = m[1] !== undefined || m[2] !== undefined ? book.sheet((m[1] ?? "").replace(/''/g, "'") || m[2]) : home;
  if (!sheet) return undefined;
  const row = Number(m[4]) - 1;
  const col = columnIndex(m[3]);
  if (m[5] === undefined) return sheet.values(row, col, 1, 1)[0][0]; // one cell: its value
  return sheet.values(row, col, Number(m[6]) - row, columnIndex(m[5]) - col + 1);
}

/** An element of a function's result as a cell: an error object shows its code. */
function resultCell(v: unknown): { value: number | string | boolean; error?: boolean } {
  if (typeof v === "number" || typeof v === "string" || typeof v === "boolean") return { value: v };
  const code = (v as { code?: unknown } | null)?.code;
  return { value: typeof code === "string" && code.startsWith("#") ? code : "#VALUE!", error: true };
}

/** Recalculates the bare custom-function calls (see the module comment), spilling array results. */
async function calculate(book: FakeWorkbook): Promise<void> {
  for (const { sheet, row, col } of book.calls) {
    const cell = sheet.get(row, col);
    const m = cell?.formula ? BARE_CALL.exec(cell.formula) : null;
    if (!cell || !m || !book.sheets.includes(sheet)) continue;
    const fn = book.functions.get(m[1].toUpperCase());
    const args = splitArguments(m[2]).map((a) => argumentValue(book, sheet, a));
    if (typeof fn !== "function" || args.some((a) => a === undefined)) continue;
    let result: unknown;
    try {
      result = await (fn as (...a: unknown[]) => unknown)(...args);
    } catch (e) {
      result = e;
    }
    const block = Array.isArray(result) ? (result as unknown[][]) : [[result]];
    block.forEach((line, i) =>
      (Array.isArray(line) ? line : [line]).forEach((v, j) => {
        const { value, error } = resultCell(v);
        sheet.cell(row + i, col + j).value = value;
        sheet.setError(row + i, col + j, error === true);
      }),
    );
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

  async sync(): Promise<void> {
    const ops = this.queue;
    this.queue = [];
    if (ops.length === 0) return; // nothing to send (Excel.run's closing sync after the last one)
    const bytes = JSON.stringify(ops.map((o) => o.json)).length;
    const refused = bytes > this.book.maxRequestBytes;
    this.book.requests.push({ bytes, operations: ops.length, calculationSuspended: this.suspended, refused });
    this.suspended = false;
    // A real sync is a round trip to the host: the promise settles in a later task, so the page
    // can paint and run its timers between requests (awaiting a microtask here would not let it).
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
    if (refused) {
      const e = new Error(`The request payload size has exceeded the limit (${bytes} bytes).`) as Error & {
        code: string;
      };
      e.code = "RequestPayloadSizeLimitExceeded";
      throw e;
    }
    for (const op of ops) op.apply();
    await calculate(this.book);
    // Excel applies and calculates a request in its own process; here that runs in the page, so
    // answer in a task of its own rather than in the one the caller continues in (its next request).
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
  }
}

class WorkbookProxy {
  readonly worksheets: WorksheetsProxy;
  readonly tables: TablesProxy;
  constructor(ctx: Context) {
    this.worksheets = new WorksheetsProxy(ctx);
    this.tables = new TablesProxy(ctx, null);
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
      if (this.ctx.book.sheet(name)) throw new Error(`A sheet named ${name} already exists (ItemAlreadyExists)`);
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
      const names = new Set(this.ctx.book.tables.map((t) => t.name.toLowerCase()));
      if (names.has(proxy.name.toLowerCase())) throw new Error(`Table name ${proxy.name} already exists`);
      table.name = proxy.name;
      this.ctx.book.tables.push(table);
    });
    return proxy;
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
      const other = this.ctx.book.sheet(name);
      if (other && other !== s) throw new Error(`A sheet named ${name} already exists (ItemAlreadyExists)`);
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
    });
    return copy;
  }
  getUsedRangeOrNullObject(): RangeProxy {
    return new RangeProxy(this.ctx, this, 0, 0, 1, 1, true);
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
    private readonly ws: WorksheetProxy,
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
  set numberFormat(a: string[][]) {
    this.check(a, "numberFormat");
    this.ctx.push({ range: this.address, numberFormat: a }, () => {
      const s = this.ws.model();
      a.forEach((line, r) => line.forEach((f, c) => s.setFormat(this.row + r, this.col + c, f)));
    });
  }
  get values(): (number | string | boolean)[][] {
    return this.read("values");
  }
  set values(a: (number | string | boolean)[][]) {
    this.check(a, "values");
    this.ctx.push({ range: this.address, values: a }, () => {
      const s = this.ws.model();
      a.forEach((line, r) =>
        line.forEach((v, c) => {
          const row = this.row + r;
          const col = this.col + c;
          s.setError(row, col, false);
          // Excel parses typed-in text: in a cell not formatted as text, "=…", "+…", "-…", "@…" is a formula.
          if (typeof v === "string" && v.length > 1 && /^[=+\-@]/.test(v) && s.formatAt(row, col) !== "@") {
            s.setFormula(row, col, v.startsWith("=") ? v : `=${v.slice(v.startsWith("@") ? 1 : 0)}`);
            s.setValue(row, col, "#NAME?");
          } else {
            s.setValue(row, col, v);
            if (s.formulaAt(row, col) !== null) s.setFormula(row, col, null);
          }
        }),
      );
    });
  }
  get formulas(): (number | string | boolean)[][] {
    return this.read("formulas");
  }
  set formulas(a: string[][]) {
    this.check(a, "formulas");
    this.ctx.push({ range: this.address, formulas: a }, () => {
      const s = this.ws.model();
      a.forEach((line, r) =>
        line.forEach((f, c) => {
          const row = this.row + r;
          const col = this.col + c;
          if (s.formatAt(row, col) === "@")
            s.setValue(row, col, f); // a formula typed into a text cell stays text
          else {
            s.setFormula(row, col, f);
            if (BARE_CALL.test(f)) this.ctx.book.calls.push({ sheet: s, row, col });
          }
        }),
      );
    });
  }
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
  readonly axes: { categoryAxis: { title: { text: string } }; valueAxis: { title: { text: string } } };
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
      categoryAxis: { title: text((t) => (model.xTitle = t)) },
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
}

export interface FakeHostOptions {
  /** Highest ExcelApi minor version supported (default 17). */
  excelApiMinor?: number;
  /** Whether the custom-functions runtime is present (default true). */
  customFunctions?: boolean;
  maxRequestBytes?: number;
}

/**
 * Creates an in-memory host.
 *
 * @example
 * const host = createFakeHost(); installFakeHost(globalThis, host);
 */
export function createFakeHost(options: FakeHostOptions = {}): FakeHost {
  const workbook = new FakeWorkbook(options.maxRequestBytes);
  const minor = options.excelApiMinor ?? 17;
  const cf = options.customFunctions ?? true;
  const registered = new Map<string, unknown>();
  const isSetSupported = (name: string, version?: string): boolean => {
    const v = Number((version ?? "1.1").split(".")[1] ?? 1);
    if (name === "ExcelApi") return v <= minor;
    if (name === "CustomFunctionsRuntime" || name === "SharedRuntime") return cf && v <= 1;
    return false;
  };
  const Office = {
    HostType: { Excel: "Excel" },
    context: { requirements: { isSetSupported }, partitionKey: undefined },
    onReady: (cb?: (info: { host: string; platform: string }) => void) => {
      const info = { host: "Excel", platform: "OfficeOnline" };
      cb?.(info);
      return Promise.resolve(info);
    },
    actions: { associate: () => undefined },
  };
  workbook.functions = registered;
  const Excel = {
    WorksheetPositionType: { end: "End" },
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
  return { workbook, Office, Excel, CustomFunctions, registered };
}

/** Puts the host's Office, Excel and CustomFunctions on a global object (window or globalThis). */
export function installFakeHost(target: Record<string, unknown>, host: FakeHost): void {
  target.Office = host.Office;
  target.Excel = host.Excel;
  if (host.CustomFunctions) target.CustomFunctions = host.CustomFunctions;
  target.__fakeExcel = host;
}
