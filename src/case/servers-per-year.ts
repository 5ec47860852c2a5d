/**
 * The purchase plan at a glance: per year, each option's servers required and in service (summed
 * over its workloads, from the PurchasePlan table), and the chart "Servers required and in service
 * per year" drawn from it — a step in the in-service line is a purchase; required above in service
 * never happens at a year's start (every purchase covers it).
 */
import { planKey } from "./purchase-plan";
import { CaseSheet, makeTable, native, yearKey } from "./sheet-context";
import { CellValue, ChartPlan, ColumnPlan, TablePlan } from "../workbook/plan";

const requiredKey = (i: number): string => `required_${i + 1}`;
const inServiceKey = (i: number): string => `in_service_${i + 1}`;

/** The table's columns: the year, then per option with workloads its required and in-service servers. */
export function serversPerYearColumns(ctx: Pick<CaseSheet, "input">): string[] {
  return [
    "year",
    ...ctx.input.options.flatMap((o, i) => (o.workloads.length > 0 ? [requiredKey(i), inServiceKey(i)] : [])),
  ];
}

/** The year rows of the table. */
export function serversPerYearRows(ctx: Pick<CaseSheet, "input">): string[] {
  return Array.from({ length: ctx.input.years }, (_, t) => yearKey(t));
}

/** Σ over option i's workloads of a PurchasePlan column in year t, as a formula and its value. */
function sum(ctx: CaseSheet, i: number, t: number, col: "required" | "in_service"): CellValue {
  const plan = ctx.purchases as NonNullable<CaseSheet["purchases"]>;
  const cells = ctx.input.options[i].workloads.map((_, j) => ctx.sheet.cell(plan, planKey(i, j, t), col));
  const value = ctx.result.options[i].workloads.reduce((n, w) => {
    const y = w.plans?.base.years[t];
    return n + (y ? (col === "required" ? y.required : y.inService) : 0);
  }, 0);
  return native(cells.join("+"), value);
}

/** The ServersPerYear table (placed only when the load grows). */
export function serversPerYearTable(ctx: CaseSheet): TablePlan | undefined {
  const block = ctx.serversPerYear;
  if (!block) return undefined;
  const { input } = ctx;
  const columns: ColumnPlan[] = [{ key: "year", header: "Year", numFmt: "0" }];
  input.options.forEach((o, i) => {
    if (o.workloads.length === 0) return;
    columns.push(
      { key: requiredKey(i), header: `${o.name}: required`, numFmt: "0", description: "Servers the year's load needs" },
      { key: inServiceKey(i), header: `${o.name}: in service`, numFmt: "0", description: "Installed + bought" },
    );
  });
  const rows = block.rows.map((_row, t) => [
    t,
    ...input.options.flatMap((o, i) =>
      o.workloads.length > 0 ? [sum(ctx, i, t, "required"), sum(ctx, i, t, "in_service")] : [],
    ),
  ]);
  return makeTable(ctx, block, columns, rows);
}

/** The chart "Servers required and in service per year", two lines per option. */
export function serversPerYearChart(ctx: CaseSheet): ChartPlan {
  const { input, result } = ctx;
  const withWorkloads = input.options.map((o, i) => ({ o, i })).filter(({ o }) => o.workloads.length > 0);
  const years = Array.from({ length: input.years }, (_, t) => t);
  const total = (i: number, pick: "required" | "inService"): number[] =>
    years.map((t) => result.options[i].workloads.reduce((n, w) => n + (w.plans?.base.years[t][pick] ?? 0), 0));
  return {
    id: ctx.names("servers_per_year"),
    title: "Servers required and in service per year",
    kind: "line",
    xTitle: "Year",
    yTitle: "Servers",
    series: withWorkloads.flatMap(({ o, i }) => [
      { name: `${o.name}: required`, x: years, y: total(i, "required"), style: "points+line" as const },
      { name: `${o.name}: in service`, x: years, y: total(i, "inService"), style: "points+line" as const },
    ]),
    source: {
      table: (ctx.serversPerYear as NonNullable<CaseSheet["serversPerYear"]>).name,
      xColumn: "year",
      yColumns: withWorkloads.flatMap(({ i }) => [requiredKey(i), inServiceKey(i)]),
    },
  };
}
