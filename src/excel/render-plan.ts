/**
 * The Office.js renderer of a {@link WorkbookPlan}: every `Excel.run` of the lab import is here.
 * It receives a plan and returns plain data (sheets written, tables, charts, one log entry per
 * request with its serialized size), so the pane and the tests need no Office objects.
 *
 * How it writes (docs/excel/performance.md, excel-add-ins-ranges-large.md):
 * - each table's cells as 2-D `Range.numberFormat` + `Range.values` blocks (≤ 5,000 rows and
 *   ≤ ~3.8 MB of JSON each, one sync per block, calculation suspended while writing), then one
 *   `sheet.tables.add` over the written range — never row by row. Each block is converted in a
 *   task of its own while the previous request is on its way, just before it is queued; its size
 *   bounds the pane's longest task (queueing, Office.js serializing the request) and the host's;
 *   see {@link SLICE_ROWS};
 * - a request refused as too large (`RequestPayloadSizeLimitExceeded`, Excel on the web) is sent
 *   again in blocks half the size;
 * - number formats before values, so text that begins with = + - @ tab CR stays text;
 * - a sheet or table name already in the workbook gets a suffix ("Steps (2)", "Steps_2"): nothing
 *   existing is overwritten;
 * - charts are native XYScatter charts with `seriesBy: Columns` set explicitly (`auto` misplots on
 *   the web, OfficeDev/office-js#2929). A series the plan takes from a table's columns (the
 *   chart's `source`) refers to those columns' cells, so editing an input (a Model formula's
 *   operand) re-draws it; a series with `cells` refers to those (a hidden helper table of chart
 *   data the plan placed: fitted curves, knees); the others (the Subintervals time series) are
 *   drawn from a data block beside the tables, sampled to at most 1,000 points. Helper tables and
 *   data blocks are hidden columns, with `plotVisibleOnly` off so the charts still draw them
 *   (ExcelApi 1.8; on 1.7 they stay visible);
 * - `CAPLAB.*` formulas only when the custom functions are registered in this runtime (else Excel
 *   can leave them at #NAME?, OfficeDev/office-js#6611); otherwise their computed values.
 */
import {
  cellResult,
  ChartPlan,
  cellA1,
  columnIndex,
  MAX_CHART_POINTS,
  samplePoints,
  SeriesPlan,
  SheetPlan,
  TablePlan,
  WorkbookPlan,
  tableCell,
  tableRowCount,
} from "../workbook/plan";
import {
  MAX_REQUEST_BYTES,
  RowBlock,
  formatRuns,
  formulaRuns,
  freeSheetName,
  freeTableName,
  jsonBytes,
  rowBlocks,
} from "../report/blocks";

/**
 * Most rows per request the pane sends: the low end of the 5k–20k rows Microsoft advises for
 * large writes (excel-add-ins-ranges-large.md), because each block is converted, then queued and
 * serialized by Office.js, in one task of the pane's thread, and the host applies it in one go: a
 * 1,000,000-row import's longest task shrinks with the block (docs/benchmarks.md, bench:pane), for
 * ~250 round trips instead of ~100 of up to 3.8 MB.
 */
export const SLICE_ROWS = 5_000;

/** The requirement set the renderer needs: series.add/setValues, freezePanes, chart series types (1.7). */
export const REQUIRED_EXCEL_API = "1.7";

/** What the pane shows while writing. */
export interface RenderProgress {
  /** 1-based index of the sheet being written, and how many there are. */
  sheet: number;
  sheets: number;
  name: string;
  /** Data rows written so far in this sheet, out of its total. */
  rows: number;
  rowsTotal: number;
}

export interface RenderOptions {
  /** True when the CAPLAB custom functions are registered in this runtime. */
  functionsRegistered: boolean;
  onProgress?: (p: RenderProgress) => void;
  /** Checked between requests; when aborted, writing stops with a {@link RenderCancelled}. */
  signal?: AbortSignal;
  /** Payload budget per request (default 4,500,000 bytes). */
  maxRequestBytes?: number;
  /** Most table rows per request (default {@link SLICE_ROWS}). */
  maxRowsPerRequest?: number;
}

/** One request sent (one `context.sync`). */
export interface RequestLogEntry {
  sheet: string;
  what: string;
  /** Serialized size of the arrays sent (values, number formats, formulas, chart data). */
  bytes: number;
  rows: number;
}

export interface RenderResult {
  /** Plan sheet name → the name written (differs when the name was taken). */
  sheets: { planned: string; written: string }[];
  tables: string[];
  charts: number;
  /** Whether CAPLAB.* formulas were written (else their values). */
  addinFormulas: boolean;
  requests: RequestLogEntry[];
  /** Requests refused as too large and sent again smaller. */
  retries: number;
}

/** Thrown when the signal is aborted; `written` lists the sheets completed before it. */
export class RenderCancelled extends Error {
  constructor(readonly written: string[]) {
    super(
      written.length > 0
        ? `Import cancelled; sheets already written: ${written.join(", ")}`
        : "Import cancelled; nothing was written",
    );
    this.name = "RenderCancelled";
  }
}

/**
 * What the host lacks for the import, as a sentence, or null when everything is there.
 *
 * @returns e.g. "Importing needs ExcelApi 1.7 (Excel 2019 or later, Microsoft 365, Excel on the web); this Excel supports ExcelApi 1.4."
 */
export function missingRequirements(): string | null {
  if (typeof Office === "undefined" || !Office.context?.requirements) return "Not running inside Excel.";
  const req = Office.context.requirements;
  if (req.isSetSupported("ExcelApi", REQUIRED_EXCEL_API)) return null;
  let best = "none";
  for (let minor = 1; minor < 7; minor++) if (req.isSetSupported("ExcelApi", `1.${minor}`)) best = `1.${minor}`;
  return (
    `Importing needs ExcelApi ${REQUIRED_EXCEL_API} (Excel 2019 or later, Microsoft 365, Excel on the web); ` +
    `this Excel supports ExcelApi ${best}. Update Excel, or use \`caplab report\` to write an .xlsx file.`
  );
}

/**
 * Resolves in a later task (the host paints and runs due timers in between): a message to a
 * channel of our own, because a setTimeout(0) nested in timers is held back to 4 ms (HTML
 * Standard, timers: nesting level over 5), which over hundreds of blocks adds seconds.
 */
function nextTask(): Promise<void> {
  if (typeof MessageChannel === "undefined") return new Promise((resolve) => setTimeout(resolve, 0));
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

function isPayloadTooLarge(e: unknown): boolean {
  const code = (e as { code?: string })?.code ?? "";
  return code === "RequestPayloadSizeLimitExceeded" || /payload.*(size|large)/i.test(String((e as Error)?.message));
}

class Writer {
  readonly log: RequestLogEntry[] = [];
  retries = 0;
  constructor(
    private readonly context: Excel.RequestContext,
    private readonly options: RenderOptions,
  ) {}

  private get budget(): number {
    return this.options.maxRequestBytes ?? MAX_REQUEST_BYTES;
  }

  async sync(sheet: string, what: string, bytes: number, rows: number): Promise<void> {
    if (this.options.signal?.aborted) throw new RenderCancelled([]);
    await this.context.sync();
    this.log.push({ sheet, what, bytes, rows });
  }

  /**
   * Notes in column A (text-formatted: a note is never a formula), then the plan's live notes
   * (`noteFormulas`, native formulas such as a case's conclusion) over their text, in the same request.
   */
  writeNotes(ws: Excel.Worksheet, notes: string[], noteFormulas: SheetPlan["noteFormulas"] = []): number {
    if (notes.length === 0) return 0;
    const range = ws.getRangeByIndexes(0, 0, notes.length, 1);
    const formats = notes.map(() => ["@"]);
    const values = notes.map((n) => [n]);
    range.numberFormat = formats;
    range.values = values;
    let bytes = jsonBytes(formats) + jsonBytes(values);
    for (const { note, formula } of noteFormulas) {
      const cell = ws.getRangeByIndexes(note, 0, 1, 1);
      cell.numberFormat = [["General"]];
      cell.formulas = [[`=${formula}`]];
      bytes += formula.length + 20;
    }
    if (notes.length > 0) ws.getRangeByIndexes(0, 0, 1, 1).format.font.bold = true;
    return bytes;
  }

  /** Writes one table's header and data blocks, then makes it an Excel table. */
  async writeTable(
    ws: Excel.Worksheet,
    sheetName: string,
    table: TablePlan,
    at: { row: number; col: number },
    tableName: string,
    progress: (rows: number) => void,
  ): Promise<boolean> {
    const cols = table.columns.length;
    // A table whose rows are what one CAPLAB formula returns (DOE_FIT): with the functions
    // registered, that formula in the header's first cell, spilling (an Excel table cannot hold a
    // spill); otherwise the values below.
    const arrayFormula = table.arrayFormula;
    if (arrayFormula && this.options.functionsRegistered) {
      const cell = ws.getRangeByIndexes(at.row, at.col, 1, 1);
      cell.numberFormat = [["General"]];
      cell.formulas = [[`=${arrayFormula}`]];
      this.setWidths(ws, table, at, 0);
      await this.sync(sheetName, `${tableName} spilling formula`, arrayFormula.length + 20, 1);
      progress(tableRowCount(table));
      return false;
    }
    const headerFormats = [table.columns.map(() => "@")];
    const headerValues = [table.columns.map((c) => c.header)];
    const queueHeader = (): number => {
      const header = ws.getRangeByIndexes(at.row, at.col, 1, cols);
      header.numberFormat = headerFormats;
      header.values = headerValues;
      return jsonBytes(headerFormats) + jsonBytes(headerValues);
    };
    // The header goes with the first block; until that request succeeds it is pending.
    let pendingBytes = queueHeader();
    const n = tableRowCount(table);
    const addin = this.options.functionsRegistered;
    let budget = this.budget * 0.85;
    let start = 0;
    while (start < n) {
      let failed = false;
      const blocks = rowBlocks(table, addin, budget, this.options.maxRowsPerRequest ?? SLICE_ROWS, start);
      for (let next = blocks.next(); !next.done;) {
        const block = next.value;
        const bytes = this.queueBlock(ws, block, at) + pendingBytes;
        const request = this.sync(
          sheetName,
          `${tableName} rows ${block.first + 1}-${block.first + block.values.length}`,
          bytes,
          block.values.length,
        );
        // The next block is converted while this request makes its round trip (nothing is queued
        // on the context meanwhile: only plain arrays are built), in a task of its own so the
        // pane paints and runs its timers between the two. The rejection is handled at `await`.
        request.catch(() => undefined);
        await nextTask();
        next = blocks.next();
        try {
          await request;
        } catch (e) {
          if (!isPayloadTooLarge(e) || block.values.length <= 1) throw e;
          // Refused as too large: nothing of the request was applied, so send the same rows again
          // in blocks half the size, with the header when it was in the refused request.
          this.retries++;
          if (pendingBytes > 0) pendingBytes = queueHeader();
          budget = Math.max(budget / 2, 1000);
          start = block.first;
          failed = true;
          break;
        }
        pendingBytes = 0;
        start = block.first + block.values.length;
        progress(start);
      }
      if (!failed) break;
    }
    const range = ws.getRangeByIndexes(at.row, at.col, n + 1, cols);
    const t = ws.tables.add(range, true);
    t.name = tableName;
    this.setWidths(ws, table, at, n);
    await this.sync(sheetName, `${tableName} table`, pendingBytes, 0);
    return true;
  }

  /**
   * Queues what the plan adds around a table's cells: its title in the row above the header (as
   * text: a title is never a formula), single cells' own number formats, and a
   * callout's figures in bold (the case's recommendation). Sent with the next request.
   */
  decorateTable(ws: Excel.Worksheet, table: TablePlan): void {
    const at = table.at;
    if (table.title !== undefined && at.row > 0) {
      const cell = ws.getRangeByIndexes(at.row - 1, at.col, 1, 1);
      cell.numberFormat = [["@"]];
      cell.values = [[table.title]];
      cell.format.font.bold = true;
      cell.format.font.size = table.callout ? 13 : 12;
    }
    for (const f of table.cellFormats ?? [])
      ws.getRangeByIndexes(at.row + 1 + f.row, at.col + f.col, 1, 1).numberFormat = [[f.numFmt]];
    if (table.callout) {
      ws.getRangeByIndexes(at.row + 1, at.col + 1, tableRowCount(table), table.columns.length - 1).format.font.bold =
        true;
    }
  }

  /** Queues a block's formats, values and formulas; returns the serialized size queued. */
  private queueBlock(ws: Excel.Worksheet, block: RowBlock, at: { row: number; col: number }): number {
    const rows = block.values.length;
    const cols = block.values[0].length;
    this.context.application.suspendApiCalculationUntilNextSync();
    const row = at.row + 1 + block.first;
    // Formats before values (text stays text); runs of one format as one 1×1 write (blocks.ts).
    for (const run of formatRuns(block))
      ws.getRangeByIndexes(row, at.col + run.col, rows, run.cols).numberFormat = run.formats;
    ws.getRangeByIndexes(row, at.col, rows, cols).values = block.values;
    // The block's size as measured while it was cut (values and formats as sent), not serialized again.
    let bytes = block.bytes;
    for (const run of formulaRuns(block)) {
      ws.getRangeByIndexes(at.row + 1 + block.first + run.row, at.col + run.col, run.formulas.length, 1).formulas =
        run.formulas;
      bytes += jsonBytes(run.formulas);
    }
    return bytes;
  }

  private setWidths(ws: Excel.Worksheet, table: TablePlan, at: { row: number; col: number }, n: number): void {
    table.columns.forEach((c, j) => {
      const column = ws.getRangeByIndexes(at.row, at.col + j, 1, 1).getEntireColumn();
      // Excel's column width is in points; a character of the default font is about 7 points.
      if (c.width !== undefined) column.format.columnWidth = Math.round(c.width * 7 + 5);
      else ws.getRangeByIndexes(at.row, at.col + j, Math.min(n, 200) + 1, 1).format.autofitColumns();
    });
  }

  /**
   * Draws a horizontal bar chart (a tornado) over its source table's cells: categories from the
   * `xColumn`, one series per y column, bars from the plan's base (the value axis crosses there),
   * the first category on top. Nothing is drawn when the source table is not on the sheet.
   */
  addBarChart(
    ws: Excel.Worksheet,
    chart: ChartPlan,
    anchor: { row: number; col: number },
    placed: { table: TablePlan; at: { row: number; col: number } } | undefined,
  ): number {
    const source = chart.source;
    if (!placed || !source) return 0;
    const n = tableRowCount(placed.table);
    const x = columnIndex(placed.table, source.xColumn);
    const ys = source.yColumns.map((key) => columnIndex(placed.table, key));
    if (n === 0 || x < 0 || ys.some((y) => y < 0)) return 0;
    const first = placed.at.row + 1;
    const categories = ws.getRangeByIndexes(first, placed.at.col + x, n, 1);
    let excelChart: Excel.Chart | null = null;
    ys.forEach((y, i) => {
      const values = ws.getRangeByIndexes(first, placed.at.col + y, n, 1);
      let s: Excel.ChartSeries;
      if (excelChart === null) {
        excelChart = ws.charts.add(Excel.ChartType.barClustered, values, Excel.ChartSeriesBy.columns);
        s = excelChart.series.getItemAt(0);
      } else s = excelChart.series.add(chart.series[i]?.name ?? "");
      s.setValues(values);
      s.setXAxisValues(categories);
      s.name = chart.series[i]?.name ?? "";
    });
    if (excelChart === null) return 0;
    const c = excelChart as Excel.Chart;
    c.title.text = chart.title;
    c.axes.valueAxis.title.text = chart.yTitle;
    c.axes.categoryAxis.reversePlotOrder = true; // the first row (largest swing) on top
    // The category axis crosses at the base case, so the bars start there (ChartAxis.setPositionAt,
    // ExcelApi 1.8; the tests' in-memory Excel has no such method, and then the bars start at 0).
    const valueAxis = c.axes.valueAxis as Partial<Excel.ChartAxis>;
    if (typeof valueAxis.setPositionAt === "function") valueAxis.setPositionAt(chart.base ?? 0);
    c.axes.categoryAxis.tickLabelPosition = "Low";
    (c.series.getItemAt(0) as Partial<Excel.ChartSeries>).overlap = 100;
    c.setPosition(cellA1(anchor), cellA1({ row: anchor.row + 17, col: anchor.col + 7 }));
    return 0;
  }

  /**
   * Draws a native XY scatter chart: series over the source table's cells where the plan allows
   * (see {@link liveColumns}), the others from a (sampled) data block written beside the tables.
   *
   * @param tables - the sheet's tables with their positions (to resolve the chart's source)
   * @returns the serialized size of the data written
   */
  addChart(
    ws: Excel.Worksheet,
    chart: ChartPlan,
    dataCol: number,
    anchor: { row: number; col: number },
    tables: { table: TablePlan; at: { row: number; col: number } }[],
  ): number {
    let col = dataCol;
    let bytes = 0;
    let excelChart: Excel.Chart | null = null;
    const placed = tables.find((t) => t.table.name === chart.source?.table);
    if (chart.kind === "bar") return this.addBarChart(ws, chart, anchor, placed);
    for (const [i, series] of chart.series.entries()) {
      let xRange: Excel.Range;
      let yRange: Excel.Range;
      const own = series.cells ? cellsOf(tables, series.cells, series.x.length) : null;
      const live = placed && chart.source ? liveColumns(placed.table, chart.source, i, series) : null;
      if (own) {
        // The series' own cells in a (hidden) helper table the plan placed.
        xRange = ws.getRangeByIndexes(own.row, own.x, own.n, 1);
        yRange = ws.getRangeByIndexes(own.row, own.y, own.n, 1);
      } else if (live && placed) {
        const first = placed.at.row + 1;
        const n = tableRowCount(placed.table);
        xRange = ws.getRangeByIndexes(first, placed.at.col + live.x, n, 1);
        yRange = ws.getRangeByIndexes(first, placed.at.col + live.y, n, 1);
      } else {
        const { x, y } = samplePoints(series.x, series.y);
        if (x.length === 0) continue;
        const block = [[`${chart.id}: ${series.name} x`, "y"], ...x.map((xi, k) => [xi, y[k]])];
        const formats = block.map((_, k) => (k === 0 ? ["@", "@"] : ["General", "General"]));
        const range = ws.getRangeByIndexes(0, col, block.length, 2);
        range.numberFormat = formats;
        range.values = block;
        bytes += jsonBytes(block) + jsonBytes(formats);
        xRange = ws.getRangeByIndexes(1, col, x.length, 1);
        yRange = ws.getRangeByIndexes(1, col + 1, x.length, 1);
        col += 3;
      }
      let s: Excel.ChartSeries;
      if (excelChart === null) {
        // Created over the y cells alone, then x and y set explicitly: the two may not be adjacent.
        excelChart = ws.charts.add(Excel.ChartType.xyscatter, yRange, Excel.ChartSeriesBy.columns);
        s = excelChart.series.getItemAt(0);
      } else s = excelChart.series.add(series.name);
      s.setXAxisValues(xRange);
      s.setValues(yRange);
      s.name = series.name;
      s.chartType =
        series.style === "points"
          ? Excel.ChartType.xyscatter
          : series.style === "line"
            ? Excel.ChartType.xyscatterLinesNoMarkers
            : Excel.ChartType.xyscatterLines;
    }
    if (excelChart === null) return bytes;
    excelChart.title.text = chart.title;
    excelChart.axes.categoryAxis.title.text = chart.xTitle;
    excelChart.axes.valueAxis.title.text = chart.yTitle;
    // A scatter chart's x axis is a value axis: logBase applies (ExcelApi 1.7, as the rest here).
    if (chart.xLog) excelChart.axes.categoryAxis.logBase = 10;
    // Chart data may sit in hidden columns; Excel leaves hidden cells out unless told (ExcelApi 1.8).
    if (canHideChartData()) excelChart.plotVisibleOnly = false;
    excelChart.setPosition(cellA1(anchor), cellA1({ row: anchor.row + 17, col: anchor.col + 7 }));
    return bytes;
  }
}

/**
 * The table columns (indexes) series `i` of a chart can refer to, or null when it must be drawn
 * from a copy: the plan names a y column for it, and the table's rows show exactly the series'
 * points — every row with a number in both columns (in the series' order when it draws a line; as
 * a set for points alone, which the plan sorts by x), and no row whose y is a number (or an error,
 * which Excel would plot) without a number x. Otherwise (a series of some of the rows, e.g. those
 * of the CPU line's basis) a live range would draw other points than the plan's.
 */
export function liveColumns(
  table: TablePlan,
  source: NonNullable<ChartPlan["source"]>,
  i: number,
  series: SeriesPlan,
): { x: number; y: number } | null {
  const yKey = source.yColumns[i];
  if (yKey === undefined) return null;
  const x = columnIndex(table, source.xColumn);
  const y = columnIndex(table, yKey);
  const n = tableRowCount(table);
  if (x < 0 || y < 0 || n === 0 || n > MAX_CHART_POINTS) return null;
  const cells: [number, number][] = [];
  for (let r = 0; r < n; r++) {
    const xv = cellResult(tableCell(table, r, x));
    const yv = cellResult(tableCell(table, r, y));
    if (typeof yv !== "number") {
      if (yv === null || yv === "") continue; // a blank y is not plotted
      return null;
    }
    if (typeof xv !== "number") return null;
    cells.push([xv, yv]);
  }
  const planned: [number, number][] = series.x.map((xv, k) => [xv, series.y[k]]);
  if (planned.length !== cells.length || series.y.length !== cells.length) return null;
  if (series.style === "points") {
    const order = (a: [number, number], b: [number, number]): number => a[0] - b[0] || a[1] - b[1];
    cells.sort(order);
    planned.sort(order);
  }
  return cells.every(([xv, yv], k) => xv === planned[k][0] && yv === planned[k][1]) ? { x, y } : null;
}

/** The rows and columns of a series' `cells` in its placed table; null when they cannot be found. */
function cellsOf(
  tables: { table: TablePlan; at: { row: number; col: number } }[],
  cells: NonNullable<SeriesPlan["cells"]>,
  n: number,
): { row: number; x: number; y: number; n: number } | null {
  const placed = tables.find((t) => t.table.name === cells.table);
  if (!placed || n === 0 || n > tableRowCount(placed.table)) return null;
  const x = columnIndex(placed.table, cells.x);
  const y = columnIndex(placed.table, cells.y);
  if (x < 0 || y < 0) return null;
  return { row: placed.at.row + 1, x: placed.at.col + x, y: placed.at.col + y, n };
}

/**
 * True when chart data may be hidden: `Chart.plotVisibleOnly` (ExcelApi 1.8) lets a chart draw
 * hidden cells. On an older Excel the data stays visible rather than vanishing from the charts.
 */
function canHideChartData(): boolean {
  return typeof Office !== "undefined" && Office.context?.requirements?.isSetSupported("ExcelApi", "1.8") === true;
}

/** Hides columns `from` to `to` − 1 (chart data: hidden tables and data blocks), when charts can still draw them. */
function hideColumns(ws: Excel.Worksheet, from: number, to: number): void {
  if (to > from && canHideChartData())
    ws.getRangeByIndexes(0, from, 1, to - from).getEntireColumn().columnHidden = true;
}

/**
 * The sheet's print setup (`SheetPlan.print`): orientation, scale, print area and page breaks, where
 * the host has the page layout API (ExcelApi 1.9); elsewhere the sheet prints with Excel's defaults.
 */
function applyPrint(ws: Excel.Worksheet, sheet: SheetPlan): void {
  const p = sheet.print;
  if (!p || typeof Office === "undefined" || !Office.context?.requirements?.isSetSupported("ExcelApi", "1.9")) return;
  if (!ws.pageLayout || !ws.horizontalPageBreaks) return;
  ws.pageLayout.orientation =
    p.orientation === "portrait" ? Excel.PageOrientation.portrait : Excel.PageOrientation.landscape;
  ws.pageLayout.zoom = { scale: p.minScale ?? p.scale };
  ws.pageLayout.setPrintArea(p.area);
  for (const r of p.pageBreaks) if (r > 0) ws.horizontalPageBreaks.add(`A${r + 1}`);
}

/** Columns used by a sheet's notes and tables (charts and their data go to the right of them). */
function usedColumns(sheet: SheetPlan): number {
  let cols = sheet.notes.length > 0 ? 1 : 0;
  for (const t of sheet.tables) cols = Math.max(cols, t.at.col + t.columns.length);
  return cols;
}

/**
 * Writes a workbook plan into the open workbook, after the existing sheets.
 *
 * @param plan - the analysis (from `buildLabPlan`)
 * @param options - whether CAPLAB functions are registered; progress and cancel
 * @returns the sheets, tables and charts written and the request log
 * @throws Error naming the missing requirement set; {@link RenderCancelled} when cancelled
 */
export async function renderWorkbookPlan(plan: WorkbookPlan, options: RenderOptions): Promise<RenderResult> {
  const missing = missingRequirements();
  if (missing) throw new Error(missing);
  const written: { planned: string; written: string }[] = [];
  const tables: string[] = [];
  let charts = 0;
  let log: RequestLogEntry[] = [];
  let retries = 0;
  try {
    await Excel.run(async (context) => {
      const writer = new Writer(context, options);
      log = writer.log;
      const sheets = context.workbook.worksheets;
      sheets.load("items/name");
      const workbookTables = context.workbook.tables;
      workbookTables.load("items/name");
      await writer.sync("", "read sheet and table names", 0, 0);
      const takenSheets = new Set(sheets.items.map((s) => s.name.toLowerCase()));
      const takenTables = new Set(workbookTables.items.map((t) => t.name.toLowerCase()));
      let first: Excel.Worksheet | null = null;
      for (const [k, sheet] of plan.sheets.entries()) {
        const name = freeSheetName(sheet.name, takenSheets);
        const ws = sheets.add(name);
        first ??= ws;
        const rowsTotal = sheet.tables.reduce((a, t) => a + tableRowCount(t), 0);
        let rowsBefore = 0;
        const report = (rows: number): void =>
          options.onProgress?.({ sheet: k + 1, sheets: plan.sheets.length, name, rows, rowsTotal });
        report(0);
        const noteBytes = writer.writeNotes(ws, sheet.notes, sheet.noteFormulas);
        await writer.sync(name, "sheet and notes", noteBytes, sheet.notes.length);
        for (const table of sheet.tables) {
          const tableName = freeTableName(table.name, takenTables);
          const isTable = await writer.writeTable(ws, name, table, table.at, tableName, (rows) =>
            report(rowsBefore + rows),
          );
          rowsBefore += tableRowCount(table);
          if (isTable) tables.push(tableName);
          writer.decorateTable(ws, table);
        }
        if (sheet.freezeHeader && sheet.tables.length > 0) ws.freezePanes.freezeRows(sheet.tables[0].at.row + 1);
        for (const t of sheet.tables) if (t.hidden) hideColumns(ws, t.at.col, t.at.col + t.columns.length);
        const used = usedColumns(sheet);
        const dataCol = used + 10;
        let chartBytes = 0;
        // Each chart's data blocks (3 columns a series) after the previous chart's, never over them.
        let chartCol = dataCol;
        sheet.charts.forEach((chart, i) => {
          chartBytes += writer.addChart(
            ws,
            chart,
            chartCol,
            chart.anchor ?? { row: 1 + i * 19, col: used + 1 },
            sheet.tables.map((table) => ({ table, at: table.at })),
          );
          chartCol += 3 * Math.max(1, chart.series.length);
          charts++;
        });
        hideColumns(ws, dataCol, chartCol);
        applyPrint(ws, sheet);
        await writer.sync(name, `freeze panes and ${sheet.charts.length} charts`, chartBytes, 0);
        written.push({ planned: sheet.name, written: name });
        report(rowsTotal);
      }
      first?.activate();
      await writer.sync("", "activate first sheet", 0, 0);
      retries = writer.retries;
    });
  } catch (e) {
    if (e instanceof RenderCancelled) throw new RenderCancelled(written.map((w) => w.written));
    throw e;
  }
  return { sheets: written, tables, charts, addinFormulas: options.functionsRegistered, requests: log, retries };
}
