/** The case's Costs table: per option, capex, server costs and running-cost lines (inputs), then year-0 cost, running cost, net present cost, difference and break-even capex. */
import {
  CaseShape,
  CaseSheet,
  lineKey,
  lineOf,
  makeTable,
  native,
  opt,
  rateCell,
  roundMicro,
  serversTerm,
  yearKey,
  yearsText,
} from "./sheet-context";
import { purchaseTerm } from "./purchase-sensitivity";
import { CellValue, ColumnPlan, TablePlan } from "../workbook/plan";

/** The Costs table's row keys. */
export function costRows(shape: Pick<CaseShape, "anyWorkloads" | "lineLabels" | "residual">): string[] {
  return [
    "capex",
    ...(shape.anyWorkloads ? ["per_server", "per_server_year"] : []),
    ...shape.lineLabels.map((_, k) => lineKey(k)),
    ...(shape.residual ? ["residual"] : []),
    "upfront",
    "running",
    "npv",
    "diff",
    "break_even",
  ];
}

/** The label of each Costs row, by its key. */
function costLabels(ctx: CaseSheet): Record<string, string> {
  const { input } = ctx;
  const labels: Record<string, string> = {
    capex: "Capex at year 0 (input)",
    per_server: "Cost per server, one-off (input)",
    per_server_year: "Cost per server per year (input)",
    residual: "Residual value at the end (input)",
    upfront: "Year-0 one-off cost",
    running: ctx.escalates ? "Running cost in year 0" : "Running cost per year",
    npv: `Net present cost over ${yearsText(input.years)}`,
    diff: `Difference from ${input.options[0].name}`,
    break_even: "Break-even capex",
  };
  ctx.lineLabels.forEach((label, k) => (labels[lineKey(k)] = `${label} per year (input)`));
  return labels;
}

/** The year-0 one-off cost and the running cost per year of option `i`, as formulas over its Costs column. */
function upfrontAndRunning(ctx: CaseSheet, row: "upfront" | "running", i: number): CellValue {
  const here = (r: string): string => ctx.sheet.cell(ctx.costs, r, opt(i));
  const servers = serversTerm(ctx, i);
  const r = ctx.result.options[i];
  if (row === "upfront") {
    const parts = [here("capex")];
    const bought = ctx.purchases ? purchaseTerm(ctx, i, 0, "bought") : servers;
    if (bought) parts.push(`${bought}*${here("per_server")}`);
    return native(parts.join("+"), r.upfront);
  }
  const lineRows = ctx.lineLabels.map((_, k) => lineKey(k));
  const parts: string[] = [];
  if (lineRows.length === 1) parts.push(here(lineRows[0]));
  if (lineRows.length > 1) parts.push(`SUM(${here(lineRows[0])}:${here(lineRows[lineRows.length - 1])})`);
  const inService = ctx.purchases ? purchaseTerm(ctx, i, 0, "in_service") : servers;
  if (inService) parts.push(`${inService}*${here("per_server_year")}`);
  return native(parts.length > 0 ? parts.join("+") : "0", r.running);
}

/** The net present cost of option `i`: NPV_IT over its yearly costs (or its native equivalent). */
function npvCell(ctx: CaseSheet, i: number): CellValue {
  const periods = ctx.result.periods;
  const rate = rateCell(ctx);
  const flow = (t: number): string => ctx.sheet.cell(ctx.perYear, yearKey(t), opt(i));
  return ctx.addin(
    ctx.sheet.cell(ctx.costs, "npv", opt(i)),
    `CAPLAB.NPV_IT(${rate},${flow(0)}:${flow(periods - 1)})`,
    ctx.result.options[i].npv,
    // NPV_IT = first flow + Excel's NPV (which discounts from t = 1) over the rest.
    periods === 1 ? flow(0) : `${flow(0)}+NPV(${rate},${flow(1)}:${flow(periods - 1)})`,
  );
}

/** One cell of the Costs table: row `row`, option `i`. */
function costCell(ctx: CaseSheet, row: string, i: number): CellValue {
  const o = ctx.input.options[i];
  const r = ctx.result.options[i];
  const here = (key: string, j = i): string => ctx.sheet.cell(ctx.costs, key, opt(j));
  switch (row) {
    case "capex":
      return o.capex;
    case "per_server":
      return o.costPerServer;
    case "per_server_year":
      return o.costPerServerPerYear;
    case "residual":
      return o.residualValue;
    case "upfront":
    case "running":
      return upfrontAndRunning(ctx, row, i);
    case "npv":
      return npvCell(ctx, i);
    case "diff":
      return native(`ROUND(${here("npv")}-${here("npv", 0)},6)`, roundMicro(r.difference));
    case "break_even":
      return native(`ROUND(${here("capex")}-${here("diff")},6)`, roundMicro(o.capex - roundMicro(r.difference)));
    default:
      return lineOf(ctx, o, Number(row.split(":")[1]))?.perYear ?? 0;
  }
}

/** A row's label: text, or where it names the baseline, a formula quoting its name in the header (so a rename follows). */
function labelCell(ctx: CaseSheet, row: string, label: string): CellValue {
  if (row !== "diff") return label;
  return native(`"Difference from "&${ctx.sheet.cell(ctx.costs, "header", opt(0))}`, label);
}

/** The Costs table: one column per option. */
export function costsTable(ctx: CaseSheet): TablePlan {
  const { input, costs } = ctx;
  const labels = costLabels(ctx);
  return makeTable(
    ctx,
    costs,
    [
      { key: "item", header: "Item" },
      ...input.options.map((o, i): ColumnPlan => ({ key: opt(i), header: o.name, numFmt: ctx.cur })),
    ],
    costs.rows.map((row) => [labelCell(ctx, row, labels[row]), ...input.options.map((_, i) => costCell(ctx, row, i))]),
    {
      cellFormats: input.options.map((_, i) => ({
        row: costs.rows.indexOf("break_even"),
        col: i + 1,
        numFmt: breakEvenFormat(ctx.cur),
      })),
    },
  );
}

/**
 * The break-even capex's number format: money, and words where it is below zero (the option costs
 * more than the baseline even with no capex, so no price reaches it). The cell stays a number, so
 * the formulas that read it still can.
 */
export function breakEvenFormat(cur: string): string {
  const [positive, , zero] = cur.split(";");
  return `${positive};"${UNREACHABLE}";${zero ?? positive}`;
}

/**
 * What a break-even capex below zero shows: short, because the Costs table prints on page 1 and a
 * long text would widen every option's column (docs/case.md says what it means).
 */
export const UNREACHABLE = "not reachable (< 0)";
