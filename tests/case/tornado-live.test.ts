/**
 * The tornado's bars start at the base case after an edit: they plot each side's change from the
 * base saving, computed in the Sensitivity table from the Returns table's live saving, and the
 * chart's axis crosses at 0 (an axis crossing is a number fixed when the file is written; before,
 * it was the base saving, stale after any edit). LibreOffice's recalculation of these cells after
 * edits is checked with the rest of the table in sensitivity-libreoffice.test.ts.
 */
import * as fs from "fs";
import * as path from "path";
import { casePlanFromJson } from "../../src/case/case-plan";
import { CellValue, cellResult, isFormulaCell, TablePlan } from "../../src/workbook/plan";

const cellFormula = (v: CellValue): string => (isFormulaCell(v) ? v.formula : "");

const EXAMPLES = path.join(__dirname, "..", "..", "examples");

describe.each(fs.readdirSync(EXAMPLES).filter((f) => f.endsWith(".json")))("tornado of %s", (f) => {
  const c = casePlanFromJson(JSON.parse(fs.readFileSync(path.join(EXAMPLES, f), "utf8")));
  const tables = c.plan.sheets[0].tables;
  const sens = tables.find((t) => t.name === "Sensitivity") as TablePlan;
  const chart = c.plan.sheets[0].charts!.find((ch) => ch.source?.table === sens.name)!;
  const col = (k: string): number => sens.columns.findIndex((x) => x.key === k);

  test("bars from 0, read from the change columns", () => {
    expect(chart.base).toBe(0);
    expect(chart.source!.yColumns).toEqual(["change_low", "change_high"]);
    expect(chart.yTitle).not.toMatch(/\d/);
  });

  test("each change is the side's saving less the base saving, as a formula on the Returns cell", () => {
    const returns = tables.find((t) => t.name === "Return") as TablePlan;
    const baseCells = returns.rows.flat().map((v) => cellResult(v));
    sens.rows.forEach((row, r) => {
      for (const [side, s] of [
        ["change_low", 0],
        ["change_high", 1],
      ] as const) {
        const saving = cellResult(row[col(side === "change_low" ? "saving_low" : "saving_high")]);
        const change = cellResult(row[col(side)]);
        const f = cellFormula(row[col(side)]);
        expect(f).toMatch(/ISNUMBER/);
        expect(f).not.toMatch(/\d{4,}/); // no base figure written in
        const y = chart.series[s].y[r];
        if (typeof saving === "number") {
          expect(typeof change).toBe("number");
          // the base saving is one of the Returns table's cells
          expect(baseCells.some((b) => typeof b === "number" && Math.abs(saving - (change as number) - b) < 1e-6)).toBe(
            true,
          );
          expect(y).toBeCloseTo(change as number, 6);
        } else {
          expect(change).toBe("n/a");
          expect(Number.isNaN(y)).toBe(true);
        }
      }
    });
  });
});
