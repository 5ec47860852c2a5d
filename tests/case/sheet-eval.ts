/**
 * A small spreadsheet for tests: lays a {@link SheetPlan} out on a grid the way the grid
 * renderers do (notes in column A from row 1, each table's header at `at`, rows below) and
 * recalculates its formulas from the input cells with the add-in's formula evaluator
 * (`src/sharing/evaluate.ts`: arithmetic, SUM, MAX, INT, ROUNDUP, NPV, INDEX, `CAPLAB.*` through
 * the worksheet functions), so a test can check that every formula in the plan gives the value
 * the plan carries and that editing an input changes the outputs. A formula the evaluator does not
 * know throws, so it fails the test instead of passing silently.
 */
import "./publish-functions";
import { CellValue, parseCell, Reference, SheetPlan, tableRow, tableRowCount } from "../../src/workbook/plan";
import { FormulaEvaluator, Scalar, Unsupported, Value } from "../../src/sharing/evaluate";
import { SheetSnapshot } from "../../src/sharing/freeze";

/** A cell address's 0-based position (the plan's reader; `$` anchors allowed). */
export const parseA1 = parseCell;

/** Rows and columns spanned by cells keyed "row,col" (0-based), as a used range starting at A1. */
export function extentOf(cells: Map<string, unknown>): { rows: number; cols: number } {
  let rows = 0;
  let cols = 0;
  for (const key of cells.keys()) {
    const [r, c] = key.split(",").map(Number);
    rows = Math.max(rows, r + 1);
    cols = Math.max(cols, c + 1);
  }
  return { rows, cols };
}

/** The plan's cells by "row,col" (0-based), as the grid renderers place them. */
export function planCells(sheet: SheetPlan): Map<string, CellValue> {
  const cells = new Map<string, CellValue>();
  sheet.notes.forEach((n, i) => cells.set(`${i},0`, n));
  for (const t of sheet.tables) {
    const { row, col } = t.at;
    t.columns.forEach((c, j) => cells.set(`${row},${col + j}`, c.header));
    for (let i = 0; i < tableRowCount(t); i++) {
      tableRow(t, i).forEach((v, j) => cells.set(`${row + 1 + i},${col + j}`, v));
    }
  }
  return cells;
}

export class SheetGrid {
  readonly cells: Map<string, CellValue>;
  private cache = new Map<string, Value>();
  private onCached = false;
  private readonly evaluator: FormulaEvaluator;

  constructor(
    sheet: SheetPlan,
    private readonly external: (ref: string) => Scalar = (ref) => {
      throw new Error(`reference to another sheet: ${ref}`);
    },
  ) {
    this.cells = planCells(sheet);
    this.evaluator = new FormulaEvaluator((sheetName, range, ref) => this.range(sheetName, range, ref));
  }

  /** Replaces a cell (an input edit); clears computed values. */
  set(a1: string, value: CellValue): void {
    const { row, col } = parseA1(a1);
    this.cells.set(`${row},${col}`, value);
    this.cache.clear();
  }

  /** The value of a cell: a constant as planned, a formula recalculated. */
  value(row: number, col: number): Value {
    const key = `${row},${col}`;
    if (this.cache.has(key)) return this.cache.get(key) as Value;
    const v = this.cells.get(key) ?? null;
    let out: Value;
    if (this.onCached && v !== null && typeof v === "object" && ("formula" in v || "addinFormula" in v))
      return v.result;
    if (v !== null && typeof v === "object") {
      if ("formula" in v) out = this.evaluate(v.formula);
      else if ("addinFormula" in v) out = this.evaluate(v.addinFormula);
      else throw new Error(`cell kind at ${key}: ${JSON.stringify(v)}`);
    } else out = v;
    this.cache.set(key, out);
    return out;
  }

  /**
   * Evaluates a formula over the values the plan carries: a referenced formula cell gives its
   * cached result instead of being recalculated (what Excel hands an add-in formula: the values
   * it calculated for the cells the formula reads).
   */
  evaluateOnCached(formula: string): Value {
    this.onCached = true;
    try {
      return this.evaluate(formula);
    } finally {
      this.onCached = false;
    }
  }

  /** Evaluates a formula (with or without "=") on this sheet; unsupported formulas throw. */
  evaluate(formula: string): Value {
    try {
      return this.evaluator.evaluate(formula);
    } catch (e) {
      if (e instanceof Unsupported) throw new Error(`cannot evaluate ${formula}: ${e.message}`);
      throw e;
    }
  }

  private range(sheetName: string | undefined, range: string, ref: Reference): Scalar[][] {
    if (sheetName !== undefined) return [[this.external(`'${sheetName}'!${range}`)]];
    const { start: a, end: b } = ref;
    const out: Scalar[][] = [];
    for (let r = a.row; r <= b.row; r++) {
      const line: Scalar[] = [];
      for (let c = a.col; c <= b.col; c++) {
        const v = this.value(r, c);
        line.push(Array.isArray(v) ? (v[0]?.[0] ?? null) : v);
      }
      out.push(line);
    }
    return out;
  }
}

/**
 * The case sheet as Excel holds it once the pane has written it with the add-in: `Range.formulas`
 * has the native formulas and, at the add-in cells, the `CAPLAB.*` formulas; `Range.values` has
 * the calculated values (the plan's). Spans A1 to the last used cell.
 */
export function excelSnapshot(
  sheet: SheetPlan,
  addinFormulas: { address: string; formula: string }[],
  name = sheet.name,
): SheetSnapshot {
  const cells = planCells(sheet);
  const { rows, cols } = extentOf(cells);
  const formulas: unknown[][] = Array.from({ length: rows }, () => new Array<unknown>(cols).fill(""));
  const values: unknown[][] = Array.from({ length: rows }, () => new Array<unknown>(cols).fill(""));
  for (const [key, v] of cells) {
    const [r, c] = key.split(",").map(Number);
    if (v !== null && typeof v === "object" && ("formula" in v || "addinFormula" in v)) {
      formulas[r][c] = "=" + ("formula" in v ? v.formula : v.addinFormula);
      values[r][c] = v.result;
    } else if (v !== null && typeof v === "object") throw new Error(`cell kind at ${key}`);
    else {
      formulas[r][c] = v ?? "";
      values[r][c] = v ?? "";
    }
  }
  for (const { address, formula } of addinFormulas) {
    const { row, col } = parseA1(address);
    formulas[row][col] = "=" + formula;
  }
  return { name, row: 0, col: 0, formulas, values };
}
