/** What the What-if sheet's formulas are made of: the Model sheet's cells of each fitted line, the planner's input row, formula cells, and Excel date serials. */
import { columnIndex, FormulaCell, TablePlan, tableCellA1 } from "../workbook/plan";

/** One line's figures from the Model sheet, each with the address of its cell. */
export interface LineRefs {
  group: string;
  cores: Cell;
  d: Cell;
  bg: Cell;
  meanS: Cell;
  meanSat: Cell;
  p99S: Cell;
  p99Sat: Cell;
  /** The lightest rated step's IOPS (the default current load) and the knee response (the default SLA). */
  lightest: number | null;
  kneeR: number | null;
}

/** A cell of another table: its address from this sheet, and its value. */
export interface Cell {
  ref: string;
  value: number | null;
}

/** The cell of `key` in data row `row` of a placed table on sheet `sheet` ('Model'!$F$4), and its value. */
export function cellOf(sheet: string, t: TablePlan, row: number, key: string): Cell {
  const v = t.rows[row]?.[columnIndex(t, key)];
  const value = typeof v === "number" ? v : null;
  return { ref: tableCellA1(t, key, row, { absolute: true, sheet }), value };
}

/** A formula with its computed result (null result: the cell shows the formula's own answer, e.g. an error). */
export function f(formula: string, result: number | string | null): FormulaCell {
  return { formula, result: typeof result === "number" && !Number.isFinite(result) ? null : result };
}

/** Excel's date serial of a UTC day (1900 system: 1899-12-30 is 0). */
export function excelDate(d: Date): number {
  return Math.floor(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) / 86400000) + 25569;
}

/** EDATE on a serial date (month arithmetic, clamped to the month's last day). */
export function edate(serial: number, months: number): number {
  const d = new Date((serial - 25569) * 86400000);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + months;
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return excelDate(new Date(Date.UTC(y, m, Math.min(d.getUTCDate(), last))));
}

export interface InputRow {
  line: LineRefs;
  current: number;
  growth: number;
  target: number;
  sla: number;
  on: "mean" | "p99";
  start: number;
}
