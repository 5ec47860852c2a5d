/** The case's Savings table: per year and option, the saving against the baseline, its running sum and its discounted running sum. */
import { VsBaseline } from "./model";
import { CaseSheet, cumSavKey, dcumSavKey, makeTable, native, opt, rateCell, savKey, yearKey } from "./sheet-context";
import { CellValue, ColumnPlan, TablePlan } from "../workbook/plan";

/** Year `t`'s row: the year, then per option other than the baseline its saving, cumulative and discounted cumulative. */
function savingsRow(ctx: CaseSheet, row: string, t: number): CellValue[] {
  const { input, result, sheet, savings, perYear } = ctx;
  const rate = rateCell(ctx);
  const cells: CellValue[] = [native(sheet.cell(perYear, row, "year"), t)];
  const year = sheet.cell(savings, row, "year");
  for (let i = 1; i < input.options.length; i++) {
    const v = result.options[i].vsBaseline as VsBaseline;
    const sav = sheet.cell(savings, row, savKey(i));
    const prev = (key: string): string => (t === 0 ? "" : `${sheet.cell(savings, yearKey(t - 1), key)}+`);
    cells.push(
      native(`${sheet.cell(perYear, row, opt(0))}-${sheet.cell(perYear, row, opt(i))}`, v.savings[t]),
      native(`${prev(cumSavKey(i))}${sav}`, v.cumulative[t]),
      native(`${prev(dcumSavKey(i))}${sav}/(1+${rate})^${year}`, v.cumulativeDiscounted[t]),
    );
  }
  return cells;
}

/** Per year and option: the saving against the baseline, its running sum and its discounted running sum. */
export function savingsTable(ctx: CaseSheet): TablePlan {
  const { input, savings } = ctx;
  const others = input.options.map((_, i) => i).slice(1);
  return makeTable(
    ctx,
    savings,
    [
      { key: "year", header: "Year", numFmt: "0" },
      ...others.flatMap((i): ColumnPlan[] => [
        {
          key: savKey(i),
          header: `${input.options[i].name}: saving`,
          numFmt: ctx.cur,
          description: "Baseline cost − this option's cost in the year",
        },
        { key: cumSavKey(i), header: `${input.options[i].name}: cumulative`, numFmt: ctx.cur },
        { key: dcumSavKey(i), header: `${input.options[i].name}: cumulative discounted`, numFmt: ctx.cur },
      ]),
    ],
    savings.rows.map((row, t) => savingsRow(ctx, row, t)),
  );
}
