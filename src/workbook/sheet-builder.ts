/**
 * The sheet builder, the only way a sheet of a plan is built: it stacks tables below a sheet's
 * notes by the plan's one placement rule ({@link rowBelow}: one blank row between blocks), so every
 * table has its position, name and column keys before any formula names a cell of it; plus the
 * number formats and the small cell and chart helpers the sheet modules share.
 *
 * Two ways to add a table, one placement: {@link SheetBuilder.table} places and fills a table in one
 * step (its formulas name cells of the same row); {@link SheetBuilder.place} places a table by the
 * keys of its rows and columns before any cell is made, so formulas that refer across tables (the
 * business case's) ask {@link SheetBuilder.cell} for the address by table, row key and column key —
 * never by searching for a label — and {@link SheetBuilder.fill} then makes its cells.
 */
import {
  cellA1,
  CellPosition,
  CellValue,
  ChartPlan,
  ColumnData,
  ColumnPlan,
  ErrorCell,
  FormulaCell,
  isAddinFormulaCell,
  isFormulaCell,
  rowBelow,
  SeriesPlan,
  SheetPlan,
  TablePlan,
} from "./plan";

export interface ColumnSpec<T> extends ColumnPlan {
  key: string;
  get: (row: T, ref: (key: string) => string) => CellValue;
  /** Keep the column even when every value is empty. */
  keep?: boolean;
}

/**
 * A table placed before its cells are made: its header's position and the keys of its rows and
 * columns, in order (internal identifiers such as `line:2` or `option_1`, never a label from the
 * input).
 */
export interface PlacedTable {
  name: string;
  /** 0-based sheet position of the header row's first cell. */
  at: CellPosition;
  rows: readonly string[];
  cols: readonly string[];
}

/** Where {@link SheetBuilder.place} puts a table. */
export interface PlaceOptions {
  /** To the right of this table (same header row, one blank column between) instead of below. */
  beside?: PlacedTable;
  /** Leave the row above the header free for the table's title ({@link TablePlan.title}). */
  titled?: boolean;
  /**
   * To the right of every table made so far (one blank column after the rightmost, at least
   * column C), its header on the first table's header row (below the notes when there is none):
   * for a hidden helper table that must not move the sheet's tables.
   */
  rightOfAll?: boolean;
}

/** Builds one sheet, stacking tables below the notes by {@link rowBelow}. */
export class SheetBuilder {
  /** The tables made so far, in the order they were made (which is the order they were placed). */
  readonly tables: TablePlan[] = [];
  readonly charts: ChartPlan[] = [];
  private nextRow: number;
  /** Every table name given so far (a name is placed once). */
  private readonly names = new Set<string>();
  /** The tables placed by keys, waiting for (or given) their cells. */
  private readonly placed = new Map<string, PlacedTable>();

  constructor(
    readonly name: string,
    readonly notes: string[],
  ) {
    this.nextRow = rowBelow(0, notes.length);
  }

  /**
   * The one placement step: the header position of a table of `dataRows` rows, below the previous
   * blocks (one blank row between) or beside another table, with a title row above when `titled`.
   */
  private reserve(name: string, dataRows: number, options: PlaceOptions = {}): CellPosition {
    if (this.names.has(name)) throw new Error(`internal: table ${name} placed twice`);
    this.names.add(name);
    const titleRows = options.titled ? 1 : 0;
    const beside = options.beside;
    const at = beside
      ? { row: beside.at.row, col: beside.at.col + beside.cols.length + 1 }
      : options.rightOfAll
        ? this.rightOfAll()
        : { row: this.nextRow + titleRows, col: 0 };
    this.nextRow = Math.max(this.nextRow, rowBelow(at.row - titleRows, titleRows + 1 + dataRows));
    return at;
  }

  /** Where {@link PlaceOptions.rightOfAll} puts a table's header. */
  private rightOfAll(): CellPosition {
    const right = Math.max(1, ...this.tables.map((t) => t.at.col + t.columns.length));
    return { row: this.tables[0]?.at.row ?? rowBelow(0, this.notes.length), col: right + 1 };
  }

  /**
   * Leaves `rows` rows free below the blocks placed so far (for a chart anchored there) and returns
   * the first of them (0-based); the next table goes below them.
   */
  skipRows(rows: number): number {
    const first = this.nextRow;
    this.nextRow = rowBelow(first, rows);
    return first;
  }

  /**
   * Places a table by the keys of its rows and columns, fixing every address before any cell is
   * made; {@link fill} makes its cells later.
   *
   * @throws Error when a key repeats (an address must name one cell) or the name is taken
   */
  place(name: string, rows: readonly string[], cols: readonly string[], options: PlaceOptions = {}): PlacedTable {
    for (const keys of [rows, cols])
      if (new Set(keys).size !== keys.length) throw new Error(`internal: repeated key in table ${name}`);
    const block: PlacedTable = { name, at: this.reserve(name, rows.length, options), rows: [...rows], cols: [...cols] };
    this.placed.set(name, block);
    return block;
  }

  /**
   * Makes the cells of a placed table: its columns and rows must match the keys it was placed with.
   * `extra` adds the table's title, callout, cell formats or hidden flag.
   */
  fill(
    block: PlacedTable,
    columns: ColumnPlan[],
    rows: CellValue[][],
    extra: Pick<TablePlan, "title" | "callout" | "cellFormats" | "hidden"> = {},
  ): TablePlan {
    if (this.placed.get(block.name) !== block) throw new Error(`internal: table ${block.name} not placed here`);
    if (columns.map((c) => c.key).join("\n") !== block.cols.join("\n"))
      throw new Error(`internal: columns of ${block.name} differ from its placement`);
    if (rows.length !== block.rows.length || rows.some((r) => r.length !== columns.length))
      throw new Error(`internal: rows of ${block.name} differ from its placement`);
    if (this.tables.some((t) => t.name === block.name)) throw new Error(`internal: table ${block.name} made twice`);
    const t: TablePlan = { name: block.name, columns, rows, at: block.at, ...extra };
    this.tables.push(t);
    return t;
  }

  /** The 0-based sheet row of a row key (`"header"` is the header row). */
  row(block: PlacedTable, rowKey: string): number {
    if (rowKey === "header") return block.at.row;
    const i = block.rows.indexOf(rowKey);
    if (i < 0) throw new Error(`internal: row ${rowKey} not in table ${block.name}`);
    return block.at.row + 1 + i;
  }

  /** The 0-based sheet column of a column key. */
  col(block: PlacedTable, colKey: string): number {
    const j = block.cols.indexOf(colKey);
    if (j < 0) throw new Error(`internal: column ${colKey} not in table ${block.name}`);
    return block.at.col + j;
  }

  /** A1 address of a placed table's cell by row key and column key (`abs`: $A$1). */
  cell(block: PlacedTable, rowKey: string, colKey: string, abs = false): string {
    return cellA1({ row: this.row(block, rowKey), col: this.col(block, colKey) }, { absolute: abs });
  }

  /** A1 range over rows `from` … `to` of one column, or over columns `from` … `to` of one row. */
  span(block: PlacedTable, from: [string, string], to: [string, string], abs = false): string {
    const a = this.cell(block, from[0], from[1], abs);
    const b = this.cell(block, to[0], to[1], abs);
    return a === b ? a : `${a}:${b}`;
  }

  /** Adds a table; `get` receives `ref(key)`, the A1 address of another column in the same row. */
  table<T>(name: string, specs: ColumnSpec<T>[], items: readonly T[], arrayFormula?: string): TablePlan {
    const at = this.reserve(name, items.length);
    const present = specs.filter((c) => c.keep || items.some((it) => !isEmpty(c.get(it, () => "A1"))));
    const index = new Map(present.map((c, i) => [c.key, i] as const));
    const rows = items.map((it, i) => {
      const ref = (k: string): string => {
        const c = index.get(k);
        if (c === undefined) throw new Error(`internal: column ${k} not in table ${name}`);
        return cellA1({ row: at.row + 1 + i, col: at.col + c });
      };
      return present.map((c) => c.get(it, ref));
    });
    const t: TablePlan = {
      name,
      columns: present.map(({ key, header, numFmt, width, description }) => ({
        key,
        header,
        numFmt,
        width,
        description,
      })),
      rows,
      at,
      ...(arrayFormula !== undefined ? { arrayFormula } : {}),
    };
    this.tables.push(t);
    return t;
  }

  /**
   * Adds a table stored column by column ({@link ColumnarRows}): no row arrays are built. Columns
   * whose every value is empty are dropped unless `keep`; `data` is called once per column.
   */
  columnarTable(name: string, specs: ColumnarSpec[], length: number): TablePlan {
    const at = this.reserve(name, length);
    const present: { spec: ColumnarSpec; data: ColumnData }[] = [];
    for (const spec of specs) {
      const data = spec.data();
      if (spec.keep || hasValue(data)) present.push({ spec, data });
    }
    const t: TablePlan = {
      name,
      columns: present.map(({ spec: { key, header, numFmt, width, description } }) => ({
        key,
        header,
        numFmt,
        width,
        description,
      })),
      rows: [],
      columnar: { length, data: present.map((p) => p.data) },
      at,
    };
    this.tables.push(t);
    return t;
  }

  /**
   * The sheet: its notes, tables and charts.
   *
   * @throws Error when a placed table was never filled (its rows would stay blank)
   */
  sheet(freezeHeader = true): SheetPlan {
    for (const name of this.placed.keys())
      if (!this.tables.some((t) => t.name === name)) throw new Error(`internal: table ${name} placed but not made`);
    return { name: this.name, notes: this.notes, tables: this.tables, charts: this.charts, freezeHeader };
  }
}

/** A column of a columnar table: its plan and its data (made when the table is built). */
export interface ColumnarSpec extends ColumnPlan {
  key: string;
  data: () => ColumnData;
  keep?: boolean;
}

/** True when a column has a non-empty cell. */
function hasValue(d: ColumnData): boolean {
  if (d.kind === "number") return d.empty.length < d.values.length;
  const nonEmpty = d.texts.map((t) => t !== "");
  for (let i = 0; i < d.codes.length; i++) if (nonEmpty[d.codes[i]]) return true;
  return false;
}

function isEmpty(v: CellValue): boolean {
  return v === null || v === "" || ((isFormulaCell(v) || isAddinFormulaCell(v)) && v.result === null);
}

export const num = (v: number | null | undefined): CellValue =>
  v === null || v === undefined || !Number.isFinite(v) ? null : v;

export function formula(f: string, result: number | null): FormulaCell | null {
  return result === null || !Number.isFinite(result) ? null : { formula: f, result };
}

export const NUM: ErrorCell = { error: "#NUM!" };

// ---------------------------------------------------------------------------------------------
// Formats

export const F = {
  int: "#,##0",
  iops: "#,##0.0",
  ms: "0.0000",
  pct: "0.0",
  mbs: "#,##0.00",
  ratio: "0.000",
  d: "0.000000",
  stat: "0.0000",
  p: "0.0000",
  text: "@",
};

/** A number with `digits` significant digits for notes ("n/a" when missing). */
export function fmt(x: number | null | undefined, digits = 3): string {
  return x === null || x === undefined || !Number.isFinite(x) ? "n/a" : Number(x.toPrecision(digits)).toString();
}

// ---------------------------------------------------------------------------------------------
// Charts

function byX(points: [number, number][]): [number[], number[]] {
  const sorted = [...points].sort((a, b) => a[0] - b[0]);
  return [sorted.map((p) => p[0]), sorted.map((p) => p[1])];
}

/** A series from (x, y) points, sorted by x. */
export function series(name: string, pts: [number, number][], style: SeriesPlan["style"]): SeriesPlan {
  const [x, y] = byX(pts);
  return { name, x, y, style };
}

/** Most series in one chart (time series of more steps are left out, with a warning). */
export const MAX_SERIES = 24;
