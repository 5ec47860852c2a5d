/** The case's Cost per year table, the cumulative discounted cost beside it, and the chart drawn from it. */
import { CaseSheet, lineKey, makeTable, native, oneOffKey, opt, rateCell, serversTerm, yearKey } from "./sheet-context";
import { ChartPlan, ColumnPlan, TablePlan } from "../workbook/plan";
import { purchaseTerm } from "./purchase-sensitivity";

/** The cost option `i` pays in year `t` (before the residual row), as a formula over the cost tables. */
function yearCostFormula(ctx: CaseSheet, t: number, i: number): string {
  const { sheet, perYear, costs } = ctx;
  const col = opt(i);
  const lines = ctx.lineLabels.length;
  const year = sheet.cell(perYear, yearKey(t), "year");
  const parts: string[] = [];
  const growth = ctx.purchases !== undefined;
  if (t === 0) parts.push(sheet.cell(costs, growth ? "capex" : "upfront", col));
  if (ctx.escalation && lines > 0) {
    const amounts = sheet.span(costs, [lineKey(0), col], [lineKey(lines - 1), col]);
    const rates = sheet.span(ctx.escalation, [lineKey(0), col], [lineKey(lines - 1), col]);
    parts.push(`SUMPRODUCT(${amounts},(1+${rates})^${year})`);
    const servers = growth ? null : serversTerm(ctx, i);
    if (servers) parts.push(`${servers}*${sheet.cell(costs, "per_server_year", col)}`);
  } else if (!growth) parts.push(sheet.cell(costs, "running", col));
  else if (lines > 0) parts.push(`SUM(${sheet.span(costs, [lineKey(0), col], [lineKey(lines - 1), col])})`);
  const serverCost = growth ? purchaseTerm(ctx, i, t, "server_cost") : null;
  if (serverCost) parts.push(serverCost);
  if (ctx.oneOffs && ctx.oneOffYears) {
    const n = ctx.oneOffLabels.length;
    const amounts = sheet.span(ctx.oneOffs, [oneOffKey(0), col], [oneOffKey(n - 1), col]);
    const years = sheet.span(ctx.oneOffYears, [oneOffKey(0), col], [oneOffKey(n - 1), col]);
    parts.push(`SUMPRODUCT((${years}=${year})*${amounts})`);
  }
  return parts.length > 0 ? parts.join("+") : "0";
}

/** The cost each option pays at the start of each year (and, with a residual value, the value recovered at the end). */
export function perYearTable(ctx: CaseSheet): TablePlan {
  const { input, result, sheet, perYear, costs } = ctx;
  const rows = perYear.rows.map((_row, t) => [
    t,
    ...input.options.map((_o, i) => {
      const value = result.options[i].cashflows[t];
      if (t === input.years) return native(`-${sheet.cell(costs, "residual", opt(i))}`, value);
      return native(yearCostFormula(ctx, t, i), value);
    }),
  ]);
  return makeTable(
    ctx,
    perYear,
    [
      { key: "year", header: "Year", numFmt: "0", description: "Payments at the start of the year; year 0 = now" },
      ...input.options.map((o, i): ColumnPlan => ({
        key: opt(i),
        header: o.name,
        numFmt: ctx.cur,
        description: "Cost paid at the start of the year",
      })),
    ],
    rows,
  );
}

/** Beside it, the running sum of the discounted costs (the chart's data). */
export function cumulativeTable(ctx: CaseSheet): TablePlan {
  const { input, result, sheet, perYear, cumulative } = ctx;
  const rate = rateCell(ctx);
  const rows = cumulative.rows.map((row, t) => [
    native(sheet.cell(perYear, row, "year"), t),
    ...input.options.map((_o, i) => {
      const discounted = `${sheet.cell(perYear, row, opt(i))}/(1+${rate})^${sheet.cell(perYear, row, "year")}`;
      const formula = t === 0 ? discounted : `${sheet.cell(cumulative, yearKey(t - 1), opt(i))}+${discounted}`;
      return native(formula, result.options[i].cumulativeDiscounted[t]);
    }),
  ]);
  return makeTable(
    ctx,
    cumulative,
    [
      { key: "year", header: "Year", numFmt: "0" },
      ...input.options.map((o, i): ColumnPlan => ({
        key: opt(i),
        header: o.name,
        numFmt: ctx.cur,
        description: "Cumulative discounted cost: Σ cost/(1 + rate)^year up to this year",
      })),
    ],
    rows,
  );
}

/** The chart "Cumulative discounted cost", one line per option, drawn from the cumulative table. */
export function cumulativeChart(ctx: CaseSheet): ChartPlan {
  const { input, result } = ctx;
  return {
    id: ctx.names("cumulative"),
    title: "Cumulative discounted cost",
    kind: "line",
    xTitle: "Year",
    yTitle: `Cumulative discounted cost (${input.currency})`,
    series: input.options.map((o, i) => ({
      name: o.name,
      x: result.options[i].cumulativeDiscounted.map((_, t) => t),
      y: result.options[i].cumulativeDiscounted,
      style: "points+line",
    })),
    source: { table: ctx.cumulative.name, xColumn: "year", yColumns: input.options.map((_, i) => opt(i)) },
  };
}
