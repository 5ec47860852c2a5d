/**
 * The sheet builder, the only way a sheet of a plan is built: it stacks tables below a sheet's
 * notes by the plan's one placement rule ({@link rowBelow}: one blank row between blocks), so every
 * table has its position, name and column keys before any formula names a cell of it; plus the
 * number formats and the small cell and chart helpers the sheet modules share.
 */
import {
  cellA1,
  CellValue,
  ChartPlan,
  ColumnData,
  ColumnPlan,
  ErrorCell,
  FormulaCell,
  isAddinFormulaCell,
  isFormulaCell,
  rowBelow,
  rowBelowTable,
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

/** Builds one sheet, stacking tables below the notes by {@link rowBelow}. */
export class SheetBuilder {
  readonly tables: TablePlan[] = [];
  readonly charts: ChartPlan[] = [];
  private nextRow: number;

  constructor(
    readonly name: string,
    readonly notes: string[],
  ) {
    this.nextRow = rowBelow(0, notes.length);
  }

  /** Adds a table; `get` receives `ref(key)`, the A1 address of another column in the same row. */
  table<T>(name: string, specs: ColumnSpec<T>[], items: readonly T[], arrayFormula?: string): TablePlan {
    const at = { row: this.nextRow, col: 0 };
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
    this.nextRow = rowBelowTable(t);
    return t;
  }

  /**
   * Adds a table stored column by column ({@link ColumnarRows}): no row arrays are built. Columns
   * whose every value is empty are dropped unless `keep`; `data` is called once per column.
   */
  columnarTable(name: string, specs: ColumnarSpec[], length: number): TablePlan {
    const at = { row: this.nextRow, col: 0 };
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
    this.nextRow = rowBelowTable(t);
    return t;
  }

  sheet(freezeHeader = true): SheetPlan {
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
