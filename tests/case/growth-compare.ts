/**
 * Comparing a case sheet recalculated after an edit with the case built again from the edited
 * input: which cells the case computes once when built (they cannot follow an edit), and the
 * rebuilt case's values laid out as the edited sheet is.
 */
import { CasePlan } from "../../src/case/case-plan";
import { cellResult, CellValue } from "../../src/workbook/plan";

/**
 * Cells the case computes once, when it is built, by design of the decision layer: the break-even
 * moves found by probing ("probed when built", values rather than formulas), the ranks over them,
 * and the confidence verdict and closest break-even worded from them. An edit on the sheet cannot
 * move them; everything else must follow it.
 */
export function builtOnce(layout: CasePlan): Set<string> {
  const out = new Set<string>();
  const tables = layout.plan.sheets[0].tables;
  const be = tables.find((t) => t.name === "BreakEven");
  if (be) {
    const col = (key: string): number => be.at!.col + be.columns.findIndex((c) => c.key === key);
    be.rows.forEach((row, i) => {
      const probed = cellResult(row[be.columns.findIndex((c) => c.key === "method")]) === "probed when built";
      const keys = probed ? ["base", "break_even", "move", "distance", "rival", "within", "rank"] : ["rank"];
      for (const k of keys) out.add(`${be.at!.row + 1 + i},${col(k)}`);
    });
  }
  const rec = tables.find((t) => t.name === "Recommendation");
  rec?.rows.forEach((row, i) => {
    if (/^(Confidence|Closest break-even)/.test(String(cellResult(row[0]))))
      out.add(`${rec.at!.row + 1 + i},${rec.at!.col + 1}`);
  });
  return out;
}

/** Tables whose rows are ordered by their figures when the sheet is built (matched by their first cell). */
export const BY_DRIVER = ["Sensitivity", "BreakEven"];

/**
 * `want`'s values laid out as `layout` is (same tables; the Sensitivity rows matched by driver,
 * since their order by swing may change with an edit).
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
