/**
 * A model, for tests, of what the Office.js side (`src/excel/sharing-excel.ts`) does to a sheet's
 * copy with a freeze plan, so the pure planner's result can be checked cell by cell without Excel.
 */
import { parseCell } from "../../src/analysis/plan";
import { isErrorValue } from "../../src/sharing/evaluate";
import { FrozenCell, SheetSnapshot } from "../../src/sharing/freeze";

/**
 * Applies a freeze plan to a sheet model (what the Office.js side does to the copy, for tests and
 * for checking): each frozen cell gets its values, its native formula, or — for "copy" — the
 * values Excel calculated (`sheet.values`, as `Range.copyFrom(…, "Values")` would). The input is
 * not modified.
 *
 * @param sheet - the sheet as read
 * @param cells - the frozen cells (those of other sheets are ignored)
 * @returns the copy's formulas and values
 */
export function applyFreeze(sheet: SheetSnapshot, cells: FrozenCell[]): SheetSnapshot {
  const formulas = sheet.formulas.map((line) => [...line]);
  const values = sheet.values.map((line) => [...line]);
  const put = (row: number, col: number, formula: unknown, value: unknown): void => {
    const i = row - sheet.row;
    const j = col - sheet.col;
    while (formulas.length <= i) formulas.push([]);
    while (values.length <= i) values.push([]);
    formulas[i][j] = formula;
    values[i][j] = value;
  };
  for (const c of cells) {
    if (c.sheet !== sheet.name) continue;
    const { row, col } = parseCell(c.address);
    const r = c.replacement;
    if (r.kind === "formula") put(row, col, r.formula, c.value);
    else if (r.kind === "values") {
      r.values.forEach((line, i) =>
        line.forEach((v, j) => {
          const shown = isErrorValue(v) ? v.error : v === null ? "" : v;
          put(row + i, col + j, shown, shown);
        }),
      );
    } else {
      for (let i = 0; i < r.rows; i++)
        for (let j = 0; j < r.columns; j++) {
          const v = sheet.values[row + i - sheet.row]?.[col + j - sheet.col] ?? "";
          put(row + i, col + j, v, v);
        }
    }
  }
  return { ...sheet, formulas, values };
}
