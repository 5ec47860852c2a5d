/**
 * An in-memory Office / Excel / CustomFunctions host: the subset of Office.js the lab renderer
 * (`src/excel/render-plan.ts`) calls, with the behaviours that matter for it:
 * - operations are queued and applied at `context.sync()`, like Office.js batches;
 * - each sync's request is serialized (JSON of every queued operation and its arguments) and a
 *   request over `maxRequestBytes` (default 5 MB, Excel on the web's limit) is refused with
 *   `RequestPayloadSizeLimitExceeded` and nothing of it applied;
 * - `Range.values` with a text that begins with "=" in a cell not formatted as text ("@") becomes a
 *   formula (the injection trap), and "+", "-", "@" texts likewise;
 * - a worksheet name already used (case-insensitive) is refused, as Excel does.
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
  series: { name: string; chartType: string; x: (number | string | boolean)[]; y: (number | string | boolean)[] }[];
}

export interface FakeTable {
  name: string;
  sheet: string;
  row: number;
  col: number;
  rows: number;
  cols: number;
}

export class FakeSheet {
  cells = new Map<string, FakeCell>();
  charts: FakeChart[] = [];
  frozenRows = 0;
  columnWidths = new Map<number, number>();
  constructor(public name: string) {}

  get(row: number, col: number): FakeCell | undefined {
    return this.cells.get(`${row},${col}`);
  }

  cell(row: number, col: number): FakeCell {
    let c = this.cells.get(`${row},${col}`);
    if (!c) {
      c = { value: "", format: "General", formula: null };
      this.cells.set(`${row},${col}`, c);
    }
    return c;
  }

  /** Values of a rectangle (empty cells as ""). */
  values(row: number, col: number, rows: number, cols: number): (number | string | boolean)[][] {
    const out: (number | string | boolean)[][] = [];
    for (let r = 0; r < rows; r++) {
      const line: (number | string | boolean)[] = [];
      for (let c = 0; c < cols; c++) line.push(this.get(row + r, col + c)?.value ?? "");
      out.push(line);
    }
    return out;
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
  constructor(public maxRequestBytes = 5_000_000) {}

  sheet(name: string): FakeSheet | undefined {
    return this.sheets.find((s) => s.name.toLowerCase() === name.toLowerCase());
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
    if (refused) {
      const e = new Error(`The request payload size has exceeded the limit (${bytes} bytes).`) as Error & {
        code: string;
      };
      e.code = "RequestPayloadSizeLimitExceeded";
      throw e;
    }
    for (const op of ops) op.apply();
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
  items: { name: string }[] = [];
  constructor(private readonly ctx: Context) {}
  load(): void {
    this.ctx.push({ load: "worksheets" }, () => (this.items = this.ctx.book.sheets.map((s) => ({ name: s.name }))));
  }
  add(name: string): WorksheetProxy {
    this.ctx.push({ addSheet: name }, () => {
      if (this.ctx.book.sheet(name)) throw new Error(`A sheet named ${name} already exists (ItemAlreadyExists)`);
      this.ctx.book.sheets.push(new FakeSheet(name));
    });
    return new WorksheetProxy(this.ctx, name);
  }
}

class TablesProxy {
  items: { name: string }[] = [];
  constructor(
    private readonly ctx: Context,
    private readonly sheet: string | null,
  ) {}
  load(): void {
    this.ctx.push({ load: "tables" }, () => (this.items = this.ctx.book.tables.map((t) => ({ name: t.name }))));
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
  readonly charts: { add: (type: string, range: RangeProxy, seriesBy: string) => ChartProxy };
  readonly freezePanes: { freezeRows: (n: number) => void };
  constructor(
    private readonly ctx: Context,
    readonly name: string,
  ) {
    this.tables = new TablesProxy(ctx, name);
    this.charts = { add: (type, range, seriesBy) => new ChartProxy(ctx, this, type, range, seriesBy) };
    this.freezePanes = {
      freezeRows: (n: number) => ctx.push({ freezeRows: n }, () => (this.model().frozenRows = n)),
    };
  }
  model(): FakeSheet {
    const s = this.ctx.book.sheet(this.name);
    if (!s) throw new Error(`no sheet ${this.name} (ItemNotFound)`);
    return s;
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

class RangeProxy {
  readonly format: {
    columnWidth: number;
    autofitColumns: () => void;
    font: { bold: boolean };
  };
  constructor(
    private readonly ctx: Context,
    private readonly ws: WorksheetProxy,
    readonly row: number,
    readonly col: number,
    readonly rows: number,
    readonly cols: number,
  ) {
    const push = (json: unknown, apply: () => void): void => ctx.push(json, apply);
    const self = { address: this.address, col };
    this.format = {
      set columnWidth(w: number) {
        push({ range: self.address, columnWidth: w }, () => ws.model().columnWidths.set(self.col, w));
      },
      get columnWidth(): number {
        return 0;
      },
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
  set numberFormat(a: string[][]) {
    this.check(a, "numberFormat");
    this.ctx.push({ range: this.address, numberFormat: a }, () => {
      const s = this.ws.model();
      a.forEach((line, r) => line.forEach((f, c) => (s.cell(this.row + r, this.col + c).format = f)));
    });
  }
  set values(a: (number | string | boolean)[][]) {
    this.check(a, "values");
    this.ctx.push({ range: this.address, values: a }, () => {
      const s = this.ws.model();
      a.forEach((line, r) =>
        line.forEach((v, c) => {
          const cell = s.cell(this.row + r, this.col + c);
          // Excel parses typed-in text: in a cell not formatted as text, "=…", "+…", "-…", "@…" is a formula.
          if (typeof v === "string" && cell.format !== "@" && /^[=+\-@]/.test(v) && v.length > 1) {
            cell.formula = v.startsWith("=") ? v : `=${v.slice(v.startsWith("@") ? 1 : 0)}`;
            cell.value = "#NAME?";
          } else {
            cell.value = v;
            cell.formula = null;
          }
        }),
      );
    });
  }
  set formulas(a: string[][]) {
    this.check(a, "formulas");
    this.ctx.push({ range: this.address, formulas: a }, () => {
      const s = this.ws.model();
      a.forEach((line, r) =>
        line.forEach((f, c) => {
          const cell = s.cell(this.row + r, this.col + c);
          if (cell.format === "@")
            cell.value = f; // a formula typed into a text cell stays text
          else cell.formula = f;
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
    });
  }
  setValues(range: RangeProxy): void {
    this.ctx.push({ setValues: range.address }, () => {
      this.model().y = rangeColumn(this.ctx, range);
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
      // seriesBy Columns over two columns: the first is x, the second one series.
      const data = s.values(range.row, range.col, range.rows, range.cols);
      if (seriesBy === "Columns" && range.cols === 2)
        model.series.push({ name: "", chartType: type, x: data.map((r) => r[0]), y: data.map((r) => r[1]) });
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
  const Excel = {
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
