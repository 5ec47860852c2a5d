/**
 * Comparing a case sheet recalculated after an edit with the case built again from the edited
 * input: the rebuilt case's values laid out as the edited sheet is. Every cell follows an edit,
 * the decision layer's too (the Break-even moves, their ranks, the Probes table, the confidence
 * words), so every cell is compared.
 */
import { CasePlan } from "../../src/case/case-plan";
import { CellValue } from "../../src/workbook/plan";

/** Tables whose rows are ordered by their figures when the sheet is built (matched by their first cell). */
export const BY_DRIVER = ["Sensitivity", "BreakEven"];

/**
 * `want`'s values laid out as `layout` is (same tables; the Sensitivity and Break-even rows matched
 * by driver, since their order by swing or closeness may change with an edit).
 */
export function relaid(want: CasePlan, layout: CasePlan): CasePlan {
  const copy = structuredClone(layout);
  const tables = copy.plan.sheets[0].tables;
  want.plan.sheets[0].tables.forEach((t, k) => {
    const target = tables[k];
    if (target.name !== t.name || target.rows.length !== t.rows.length) throw new Error(`layout differs at ${t.name}`);
    target.rows = t.rows.map((row, i) =>
      BY_DRIVER.includes(t.name) ? (t.rows.find((r) => r[0] === target.rows[i][0]) as CellValue[]) : row,
    );
  });
  copy.plan.sheets[0].notes = [...want.plan.sheets[0].notes];
  copy.result = want.result;
  return copy;
}
