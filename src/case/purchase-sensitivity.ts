/**
 * The purchase plan at the Sensitivity table's low and high load and growth (table
 * PurchaseSensitivity), the present value of each plan's server costs per option (PurchasePV), and
 * the terms the other tables use when a case's load grows: the Costs table's year-0 servers, the
 * Cost per year's server costs, the tornado's load and growth rows and the scenarios' present
 * values. All live formulas over the plan's inputs (`purchase-plan.ts`).
 */
import { capacityRowFor, planKey, neededCell } from "./purchase-plan";
import { PlanKey, WorkloadPlans } from "./growth-model";
import { CaseSheet, makeTable, native, opt, rateCell, workloadKey } from "./sheet-context";
import { TornadoRow } from "./model";
import { CellValue, ColumnPlan, TablePlan } from "../workbook/plan";
import { presentValue, serverCostsPerYear } from "./growth-model";

/** The variants of the PurchaseSensitivity table: which plan, and which Sensitivity cell moves it. */
export const VARIANTS = [
  { key: "load_low", plan: "loadLow", driver: "load", side: "low" },
  { key: "load_high", plan: "loadHigh", driver: "load", side: "high" },
  { key: "growth_low", plan: "growthLow", driver: "growth", side: "low" },
  { key: "growth_high", plan: "growthHigh", driver: "growth", side: "high" },
  // The Scenarios table's: load and growth both low, or both high.
  { key: "scenario_low", plan: "scenarioLow", driver: "scenario", side: "low" },
  { key: "scenario_high", plan: "scenarioHigh", driver: "scenario", side: "high" },
] as const;
const FIGURES = ["load", "needed", "needed_end", "required", "bought", "in_service", "cost"] as const;

/** The PurchaseSensitivity table's columns. */
export function sensitivityPlanColumns(): string[] {
  return ["option", "workload", "year", ...VARIANTS.flatMap((v) => FIGURES.map((f) => `${v.key}:${f}`))];
}

/** The PurchasePV table's columns. */
export const PV_COLUMNS = [
  "option",
  "pv_base",
  "pv_load_low",
  "pv_load_high",
  "pv_growth_low",
  "pv_growth_high",
  "pv_scenario_low",
  "pv_scenario_high",
];

const PV_OF: Record<string, PlanKey> = {
  pv_base: "base",
  pv_load_low: "loadLow",
  pv_load_high: "loadHigh",
  pv_growth_low: "growthLow",
  pv_growth_high: "growthHigh",
  pv_scenario_low: "scenarioLow",
  pv_scenario_high: "scenarioHigh",
};

/** One variant's cells of one row (option i, workload j, year t). */
function variantCells(
  ctx: CaseSheet,
  v: (typeof VARIANTS)[number],
  i: number,
  j: number,
  t: number,
): Record<string, CellValue> {
  const { sheet, costs } = ctx;
  const table = ctx.purchaseSensitivity as NonNullable<CaseSheet["purchaseSensitivity"]>;
  const plan = ctx.purchases as NonNullable<CaseSheet["purchases"]>;
  const growth = ctx.growth as NonNullable<CaseSheet["growth"]>;
  const row = capacityRowFor(ctx, i, j);
  const y = (ctx.result.options[i].workloads[j].plans as WorkloadPlans)[v.plan].years[t];
  const at = (f: string, year = t): string => sheet.cell(table, planKey(i, j, year), `${v.key}:${f}`);
  const base = (col: string, year = t): string => sheet.cell(plan, planKey(i, j, year), col);
  const g = (col: string): string => sheet.cell(growth, workloadKey(i, j), col, true);
  const shift = (driver: "load" | "growth"): string => sheet.cell(ctx.sensitivity, driver, v.side, true);
  const moves = (driver: "load" | "growth"): boolean => v.driver === driver || v.driver === "scenario";
  // The year's growth of this variant: the plan's, plus the shift for the growth and scenario variants.
  const gr = (year: number): string =>
    moves("growth") ? `(${base("growth", year)}+${shift("growth")})` : base("growth", year);
  const load0 = moves("load") ? `${row.cells.rate}*${shift("load")}` : row.cells.rate;
  const loadEnd = `(${at("load")}*(1+${gr(t)}))`;
  const prev = t === 0 ? g("installed") : at("in_service", t - 1);
  return {
    [`${v.key}:load`]: native(t === 0 ? load0 : `${at("load", t - 1)}*(1+${gr(t - 1)})`, y.loadStart),
    [`${v.key}:needed`]: neededCell(ctx, row, at("load"), y.needed, y.loadStart, at("needed")),
    [`${v.key}:needed_end`]: neededCell(ctx, row, loadEnd, y.neededEnd, y.loadEnd, at("needed_end")),
    [`${v.key}:required`]: native(
      `IF(${g("policy")}="headroom",MAX(${at("needed")},${at("needed_end")}),${at("needed")})`,
      y.required,
    ),
    [`${v.key}:bought`]: native(`ROUNDUP(MAX(0,${at("required")}-${prev})/${g("unit")},0)*${g("unit")}`, y.bought),
    [`${v.key}:in_service`]: native(`${prev}+${at("bought")}`, y.inService),
    [`${v.key}:cost`]: native(
      `${at("bought")}*${sheet.cell(costs, "per_server", opt(i))}+${at("in_service")}*${sheet.cell(costs, "per_server_year", opt(i))}`,
      y.oneOffCost + y.yearlyCost,
    ),
  };
}

const VARIANT_TEXT: Record<(typeof VARIANTS)[number]["key"], string> = {
  load_low: "low load",
  load_high: "high load",
  growth_low: "low growth",
  growth_high: "high growth",
  scenario_low: "low scenario",
  scenario_high: "high scenario",
};

/** The PurchaseSensitivity table (placed only when the load grows). */
export function purchaseSensitivityTable(ctx: CaseSheet): TablePlan | undefined {
  const table = ctx.purchaseSensitivity;
  if (!table) return undefined;
  const columns: ColumnPlan[] = [
    { key: "option", header: "Option" },
    { key: "workload", header: "Workload" },
    { key: "year", header: "Year", numFmt: "0" },
    ...VARIANTS.flatMap((v) =>
      FIGURES.map((f): ColumnPlan => ({
        key: `${v.key}:${f}`,
        header: `${f === "cost" ? "Server cost" : f.replace("_", " ").replace(/^./, (c) => c.toUpperCase())}, ${VARIANT_TEXT[v.key]}`,
        numFmt: f === "cost" ? ctx.cur : f === "load" ? "#,##0" : "0",
      })),
    ),
  ];
  const rows: CellValue[][] = [];
  ctx.input.options.forEach((o, i) =>
    o.workloads.forEach((w, j) => {
      for (let t = 0; t < ctx.input.years; t++) {
        const values: Record<string, CellValue> = { option: o.name, workload: w.name, year: t };
        for (const v of VARIANTS) Object.assign(values, variantCells(ctx, v, i, j, t));
        rows.push(columns.map((c) => values[c.key] ?? null));
      }
    }),
  );
  return makeTable(ctx, table, columns, rows);
}

/** The present value of option i's server costs in column `col` of `table` (its rows are contiguous). */
function pvFormula(ctx: CaseSheet, i: number, table: NonNullable<CaseSheet["purchases"]>, col: string): string {
  const n = ctx.input.options[i].workloads.length;
  if (n === 0) return "0";
  const { sheet } = ctx;
  const first = planKey(i, 0, 0);
  const last = planKey(i, n - 1, ctx.input.years - 1);
  const plan = ctx.purchases as NonNullable<CaseSheet["purchases"]>;
  const years = sheet.span(plan, [first, "year"], [last, "year"]);
  return `SUMPRODUCT(${sheet.span(table, [first, col], [last, col])}/(1+${rateCell(ctx)})^${years})`;
}

/** The PurchasePV table: per option, the present value of each plan's server costs. */
export function purchasePvTable(ctx: CaseSheet): TablePlan | undefined {
  const table = ctx.purchasePv;
  if (!table) return undefined;
  const plan = ctx.purchases as NonNullable<CaseSheet["purchases"]>;
  const variants = ctx.purchaseSensitivity as NonNullable<CaseSheet["purchaseSensitivity"]>;
  const rows = ctx.input.options.map((o, i): CellValue[] => {
    const plans = ctx.result.options[i].workloads.map((w) => w.plans as WorkloadPlans);
    const value = (key: PlanKey): number =>
      presentValue(serverCostsPerYear(plans, key, ctx.input.years), ctx.input.discountRate);
    return [
      o.name,
      ...PV_COLUMNS.slice(1).map((col) => {
        const key = PV_OF[col];
        const source =
          key === "base" ? pvFormula(ctx, i, plan, "server_cost") : pvFormula(ctx, i, variants, `${col.slice(3)}:cost`);
        return native(source, value(key));
      }),
    ];
  });
  return makeTable(
    ctx,
    table,
    [
      { key: "option", header: "Option" },
      {
        key: "pv_base",
        header: "Server costs PV",
        numFmt: ctx.cur,
        description: "Σ server cost of the year / (1 + rate)^year",
      },
      { key: "pv_load_low", header: "At low load", numFmt: ctx.cur },
      { key: "pv_load_high", header: "At high load", numFmt: ctx.cur },
      { key: "pv_growth_low", header: "At low growth", numFmt: ctx.cur },
      { key: "pv_growth_high", header: "At high growth", numFmt: ctx.cur },
      { key: "pv_scenario_low", header: "Low scenario", numFmt: ctx.cur, description: "Load and growth both low" },
      { key: "pv_scenario_high", header: "High scenario", numFmt: ctx.cur, description: "Load and growth both high" },
    ],
    rows,
  );
}

/** Σ over option i's workloads of a PurchasePlan column in year t (a formula term), or null without workloads. */
export function purchaseTerm(ctx: CaseSheet, i: number, t: number, col: string): string | null {
  const plan = ctx.purchases;
  const n = ctx.input.options[i].workloads.length;
  if (!plan || n === 0) return null;
  const cells = Array.from({ length: n }, (_, j) => ctx.sheet.cell(plan, planKey(i, j, t), col));
  return n === 1 ? cells[0] : `(${cells.join("+")})`;
}

/** A PurchasePV cell of option i (absolute). */
export function purchasePvCell(ctx: CaseSheet, i: number, col: string): string {
  return ctx.sheet.cell(ctx.purchasePv as NonNullable<CaseSheet["purchasePv"]>, opt(i), col, true);
}

/**
 * The tornado's load or growth saving of the recommended option k when the load grows: the base
 * saving plus the change of the baseline's server-cost PV minus that of option k.
 */
export function growthSavingFormula(ctx: CaseSheet, driver: "load" | "growth", side: "low" | "high"): string {
  const k = ctx.result.recommended;
  const base = ctx.sheet.cell(ctx.returns, opt(k), "npv_saving");
  const col = `pv_${driver}_${side}`;
  const pv = (i: number, c: string): string => purchasePvCell(ctx, i, c);
  return `${base}+(${pv(0, col)}-${pv(0, "pv_base")})-(${pv(k, col)}-${pv(k, "pv_base")})`;
}

/** The tornado's label of the growth driver. */
export const GROWTH_DRIVER_TEXT: Record<Extract<TornadoRow["driver"], "growth">, string> = {
  growth: "Growth (+ points a year)",
};
