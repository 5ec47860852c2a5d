/** The case's Return table: per option against the baseline, the NPV saving, incremental IRR, payback and discounted payback. */
import { VsBaseline } from "./model";
import { CaseSheet, cumSavKey, dcumSavKey, makeTable, native, opt, savKey, yearKey, yearsText } from "./sheet-context";
import { CellValue, ColumnPlan, TablePlan } from "../workbook/plan";

/** The Return table's columns after the option's name; `cur` is the money format. */
const returnColumns = (cur: string): ColumnPlan[] => [
  {
    key: "npv_saving",
    header: "NPV saving",
    numFmt: cur,
    description: "Baseline net present cost − this option's",
  },
  {
    key: "irr",
    header: "Incremental IRR",
    numFmt: "0.0%",
    description: "The rate at which the yearly savings' NPV is zero; n/a unless the savings change sign exactly once",
  },
  {
    key: "payback",
    header: "Payback (years)",
    numFmt: "0",
    description: "Years until the cumulative saving stays ≥ 0 (payments at the start of each year)",
  },
  {
    key: "discounted_payback",
    header: "Discounted payback (years)",
    numFmt: "0",
    description: "The same on the discounted savings",
  },
];

/** The range of a Savings column over every year. */
function savingsYears(ctx: CaseSheet, key: string): string {
  return ctx.sheet.span(ctx.savings, [yearKey(0), key], [yearKey(ctx.result.periods - 1), key]);
}

/** The incremental IRR of option `i` over the baseline: spreadsheet IRR where the savings change sign exactly once. */
function irrCell(ctx: CaseSheet, i: number, irr: number | null): CellValue {
  const m = ctx.result.periods;
  if (m < 2) return "n/a";
  const later = ctx.sheet.span(ctx.savings, [yearKey(1), savKey(i)], [yearKey(m - 1), savKey(i)]);
  const earlier = ctx.sheet.span(ctx.savings, [yearKey(0), savKey(i)], [yearKey(m - 2), savKey(i)]);
  const all = savingsYears(ctx, savKey(i));
  return native(
    // The guess is the IRR found when the case was built: spreadsheets' IRR is Newton's method from
    // the guess (10 % by default) and fails for rates far from it (LibreOffice, at -15 %).
    `IF(AND(COUNTIF(${all},0)=0,SUMPRODUCT(--(${later}*${earlier}<0))=1),IFERROR(IRR(${all},${irr ?? 0.1}),"n/a"),"n/a")`,
    irr ?? "n/a",
  );
}

/** Per option against the baseline: NPV saving, incremental IRR, payback and discounted payback. */
export function returnsTable(ctx: CaseSheet): TablePlan {
  const { input, result, sheet, returns, costs } = ctx;
  const m = result.periods;
  const notWithin = `not within ${yearsText(input.years)}`;
  const payback = (key: string, value: number | null): CellValue => {
    // 1 + the last year whose cumulative saving is negative (core/payback.ts); the last year itself: not reached.
    const last = `SUMPRODUCT(MAX((${savingsYears(ctx, key)}<0)*(${savingsYears(ctx, "year")}+1)))`;
    return native(`IF(${last}=${m},"${notWithin}",${last})`, value === null ? notWithin : value);
  };
  const rows = returns.rows.map((row) => {
    const i = Number(row.split("_")[1]) - 1;
    const v = result.options[i].vsBaseline as VsBaseline;
    return [
      input.options[i].name,
      native(`${sheet.cell(costs, "npv", opt(0))}-${sheet.cell(costs, "npv", opt(i))}`, v.npvSaving),
      irrCell(ctx, i, v.irr),
      payback(cumSavKey(i), v.payback),
      payback(dcumSavKey(i), v.discountedPayback),
    ];
  });
  return makeTable(
    ctx,
    returns,
    [{ key: "option", header: `Against ${input.options[0].name}` }, ...returnColumns(ctx.cur)],
    rows,
  );
}
