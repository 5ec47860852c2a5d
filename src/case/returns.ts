/** The case's Return table: per option against the baseline, the NPV saving, incremental IRR, payback and discounted payback. */
import { ReturnMeasure } from "../core/return-measure";
import { VsBaseline } from "./model";
import { percent, percentFormat } from "./money-text";
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
    key: "measure",
    header: "Rate of return",
    width: 16,
    wrap: true,
    description:
      "What the rate in the next column is: an IRR (invest, then save), a borrowing rate (save now, pay later), or why there is none",
  },
  {
    key: "irr",
    header: "Rate",
    numFmt: percentFormat(1),
    description: "The rate at which the yearly savings' NPV is zero, where it means something (see Rate of return)",
  },
  {
    key: "payback",
    header: "Payback (years)",
    numFmt: "0",
    description: "Years until the cumulative saving stays ≥ 0 (payments at the start of each year)",
  },
  {
    key: "payback_fraction",
    header: "Payback, savings through the year (years)",
    numFmt: "0.0",
    description:
      "The same with each year's saving accruing evenly through that year: last negative year + what remains / the next year's saving",
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

/** What the savings' rate means (`core/return-measure`), as the sheet words it. */
export function measureText(m: ReturnMeasure): string {
  const many = `${m.signChanges} sign changes; `;
  switch (m.shape) {
    case "always-saves":
      return "saves every year: no rate";
    case "never-saves":
      return "costs more every year: no rate";
    case "invest-then-save":
      return m.signChanges === 1 ? "IRR (invest, then save)" : `${many}the one rate from −50% to 100%, an IRR`;
    case "save-then-pay":
      return m.signChanges === 1
        ? "borrowing rate (save now, pay later): worth it below the discount rate"
        : `${many}the one rate from −50% to 100%, a borrowing rate`;
    default:
      return (
        many +
        (m.roots.length === 0
          ? "no rate makes the NPV zero: judge by the NPV saving"
          : `${m.roots.map((x) => percent(x)).join(" and ")} all make the NPV zero: judge by the NPV saving`)
      );
  }
}

/**
 * The rate of option `i` over the baseline and what it means: live where the savings have no zero
 * and change sign at most once (IRR with the built root as the guess, so Excel's and LibreOffice's
 * Newton steps converge to it), the values found when built otherwise (several sign changes).
 */
function rateCells(ctx: CaseSheet, i: number, m: ReturnMeasure): { measure: CellValue; irr: CellValue } {
  const n = ctx.result.periods;
  const cached = { measure: measureText(m), irr: m.rate ?? "n/a" };
  if (n < 2) return cached;
  const later = ctx.sheet.span(ctx.savings, [yearKey(1), savKey(i)], [yearKey(n - 1), savKey(i)]);
  const earlier = ctx.sheet.span(ctx.savings, [yearKey(0), savKey(i)], [yearKey(n - 2), savKey(i)]);
  const all = savingsYears(ctx, savKey(i));
  const simple = `COUNTIF(${all},0)=0`;
  const changes = `SUMPRODUCT(--(${later}*${earlier}<0))`;
  const first = `INDEX(${all},1)`;
  const staticMeasure = `"${cached.measure.replace(/"/g, '""')}"`;
  const staticRate = typeof cached.irr === "number" ? String(cached.irr) : '"n/a"';
  return {
    measure: native(
      `IF(${simple},IF(${changes}=0,IF(${first}>0,"${measureText({ ...m, shape: "always-saves" })}","${measureText({ ...m, shape: "never-saves" })}"),` +
        `IF(${changes}=1,IF(${first}<0,"IRR (invest, then save)","${measureText({ ...m, shape: "save-then-pay", signChanges: 1 })}"),${staticMeasure})),${staticMeasure})`,
      cached.measure,
    ),
    irr: native(
      `IF(AND(${simple},${changes}=1),IFERROR(IRR(${all},${m.guess ?? 0.1}),"n/a"),IF(AND(${simple},${changes}=0),"n/a",${staticRate}))`,
      cached.irr,
    ),
  };
}

/** Payback with each year's saving accruing through the year: whole years − 1 + the part of the next year's saving needed. */
function paybackFractionCell(
  ctx: CaseSheet,
  i: number,
  whole: string,
  value: number | null,
  notWithin: string,
): CellValue {
  const cum = savingsYears(ctx, cumSavKey(i));
  const sav = savingsYears(ctx, savKey(i));
  return native(
    `IF(ISNUMBER(${whole}),IF(${whole}=0,0,${whole}-1-INDEX(${cum},${whole})/INDEX(${sav},${whole}+1)),"${notWithin}")`,
    value === null ? notWithin : value,
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
    const rate = rateCells(ctx, i, v.measure);
    return [
      input.options[i].name,
      native(`${sheet.cell(costs, "npv", opt(0))}-${sheet.cell(costs, "npv", opt(i))}`, v.npvSaving),
      rate.measure,
      rate.irr,
      payback(cumSavKey(i), v.payback),
      paybackFractionCell(ctx, i, sheet.cell(returns, row, "payback"), v.paybackFraction, notWithin),
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
