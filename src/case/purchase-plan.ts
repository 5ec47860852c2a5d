/**
 * The purchase plan of a case whose load grows (`growth-model.ts`): live formulas, so editing a
 * growth rate, a rate, a target, the installed servers, the unit or the policy moves every year's
 * purchases, the costs and the conclusion.
 *
 * - **Growth** (one row per option × workload): growth per year, servers installed, purchase unit
 *   and policy (inputs), and the year the installed servers run out;
 * - **PurchasePlan** (one row per option × workload × year): the growth of the year, the load at
 *   its start (today's rate in year 0, then λ_{t+1} = λ_t·(1 + g_t)) and its end, the servers the
 *   Capacity table's rule needs at both, the servers required (the end's too with the headroom
 *   policy), bought (whole units), in service, utilization and M/M/c response (service level) at
 *   the start and the end, and the year's server cost (bought × one-off + in service × yearly);
 * - **PurchaseSensitivity**: the same plan at the Sensitivity table's low and high load and growth;
 * - **PurchasePV**: per option, the present value of the server costs of each plan (what the
 *   tornado and the scenarios use).
 */
import { searchWidth, nativeMmc, pWaitFormula, MmcCells } from "./mmc-cells";
import { serversCell, workloadRow, WorkloadRow } from "./capacity";
import { WorkloadPlans } from "./growth-model";
import { percentFormat } from "./money-text";
import { commonTimeUnit, loadFormat, timeFormat, withUnit } from "./capacity-units";
import { CaseSheet, makeTable, native, opt, workloadKey } from "./sheet-context";
import { CellValue, ColumnPlan, TablePlan } from "../workbook/plan";
import { PoolPlan } from "../core/capacity-plan";

/** Row key of option i, workload j, year t in the plan tables. */
export const planKey = (i: number, j: number, t: number): string => `p:${i}:${j}:${t}`;

/** The plan tables' row keys: option by option, workload by workload, year by year. */
export function planRows(ctx: Pick<CaseSheet, "input">): string[] {
  const { input } = ctx;
  return input.options.flatMap((o, i) =>
    o.workloads.flatMap((_, j) => Array.from({ length: input.years }, (_u, t) => planKey(i, j, t))),
  );
}

export const GROWTH_COLUMNS = ["option", "workload", "growth", "installed", "unit", "policy", "runs_out"];

/** The PurchasePlan table's columns (service level only when a workload has a service-level target). */
export function planColumns(serviceLevel: boolean): string[] {
  return [
    "option",
    "workload",
    "year",
    "growth",
    "load",
    "load_end",
    "needed",
    "needed_end",
    "required",
    "bought",
    "in_service",
    "utilization_start",
    "utilization_end",
    "response_start",
    "response_end",
    ...(serviceLevel ? ["service_level_start", "service_level_end"] : []),
    "server_cost",
    "short_year",
  ];
}

/** The plans of workload j of option i. */
function plansOf(ctx: CaseSheet, i: number, j: number): WorkloadPlans {
  return ctx.result.options[i].workloads[j].plans as WorkloadPlans;
}

/** A workload's Capacity row with the search window wide enough for every year of every plan. */
export function capacityRowFor(ctx: CaseSheet, i: number, j: number): WorkloadRow {
  const row = workloadRow(ctx, ctx.capacity as NonNullable<CaseSheet["capacity"]>, i, j);
  const s = row.w.serviceTime;
  let width = row.width;
  for (const p of Object.values(plansOf(ctx, i, j)) as PoolPlan[])
    for (const y of p.years)
      width = Math.max(width, searchWidth(y.needed, y.loadStart * s), searchWidth(y.neededEnd, y.loadEnd * s));
  return { ...row, width };
}

/** The servers the workload's rule needs at rate `rate` (a cell or an expression), for the cell at `address`. */
export function neededCell(
  ctx: CaseSheet,
  row: WorkloadRow,
  rate: string,
  value: number,
  load: number,
  address: string,
): CellValue {
  const sized = { ...row, w: { ...row.w, arrivalRate: load }, cells: { ...row.cells, rate } };
  return serversCell(ctx, sized, { address, count: value });
}

/** The M/M/c cells of the workload at `rate` with `servers`. */
function mmcAt(row: WorkloadRow, rate: string, servers: string): MmcCells {
  return { ...row.cells, rate, servers, pWait: "", wait: "" };
}

/** Mean response (in the workload's time unit on the Capacity table) at `rate` with `servers`: #N/A when they cannot carry it. */
function responseCell(
  row: WorkloadRow,
  rate: string,
  servers: string,
  value: number | null,
  a: number,
): { addin: string; result: number | null } | { formula: string; result: number | null } {
  const c = mmcAt(row, rate, servers);
  const s = c.shown ?? c.service;
  const load = `(${rate}*${c.service})`;
  const shown = value === null ? null : value * row.time.scale;
  if (!nativeMmc(a, 0)) {
    const scale = row.time.scale === 1 ? "" : `*${row.time.scale}`;
    const metrics = `INDEX(CAPLAB.MMC_METRICS(${servers},${c.service},${rate}),4,2)${scale}`;
    return { addin: metrics, result: shown };
  }
  return {
    formula: `IF(${servers}<=${load},NA(),${s}+${pWaitFormula(c)}*${s}/(${servers}-${load}))`,
    result: shown,
  };
}

/** Service level at `rate` with `servers` (0 when they cannot carry it). */
function serviceLevelFormula(row: WorkloadRow, rate: string, servers: string): string {
  const c = mmcAt(row, rate, servers);
  const s = c.shown ?? c.service;
  const load = `(${rate}*${c.service})`;
  return `IF(${servers}<=${load},0,1-${pWaitFormula(c)}*EXP(-(${servers}-${load})*${row.within}/${s}))`;
}

/** The Growth table: inputs per workload and the year its installed servers run out. */
export function growthTable(ctx: CaseSheet): TablePlan | undefined {
  const { input, sheet } = ctx;
  const block = ctx.growth;
  const plan = ctx.purchases;
  if (!block || !plan) return undefined;
  const rows: CellValue[][] = [];
  input.options.forEach((o, i) =>
    o.workloads.forEach((w, j) => {
      const short = sheet.span(plan, [planKey(i, j, 0), "short_year"], [planKey(i, j, input.years - 1), "short_year"]);
      const runsOut = plansOf(ctx, i, j).base.runsOutIn;
      const g = w.growth ?? 0;
      rows.push([
        o.name,
        w.name,
        typeof g !== "number" ? null : w.growthRef ? native(`${w.growthRef}/${w.growthRefDivisor ?? 1}`, g) : g,
        w.installed ?? 0,
        w.purchaseUnit ?? 1,
        w.purchasePolicy ?? "asNeeded",
        native(
          `IF(${sheet.cell(block, workloadKey(i, j), "installed")}=0,"nothing installed",IF(COUNT(${short})=0,"never",MIN(${short})))`,
          (w.installed ?? 0) === 0 ? "nothing installed" : (runsOut ?? "never"),
        ),
      ]);
    }),
  );
  const columns: ColumnPlan[] = [
    { key: "option", header: "Option" },
    { key: "workload", header: "Workload" },
    {
      key: "growth",
      header: "Growth per year (input)",
      numFmt: percentFormat(1),
      description: "Compound growth of the load; empty: one rate per year, in the purchase plan's growth column",
    },
    { key: "installed", header: "Servers installed (input)", numFmt: "0", description: "In place before year 0" },
    {
      key: "unit",
      header: "Purchase unit (input)",
      numFmt: "0",
      description: "Servers are bought in units of this many",
    },
    {
      key: "policy",
      header: "Policy (input)",
      description:
        "asNeeded: buy in the year whose load needs it; headroom: buy when the load at the year's end would need it",
    },
    {
      key: "runs_out",
      header: "Runs out in year",
      numFmt: "0",
      description: "The first year the installed servers are fewer than required",
    },
  ];
  return makeTable(ctx, block, columns, rows);
}

/** The cells of one PurchasePlan row (option i, workload j, year t). */
function planRow(ctx: CaseSheet, row: WorkloadRow, i: number, j: number, t: number): Record<string, CellValue> {
  const { input, sheet, costs } = ctx;
  const plan = ctx.purchases as NonNullable<CaseSheet["purchases"]>;
  const growth = ctx.growth as NonNullable<CaseSheet["growth"]>;
  const w = input.options[i].workloads[j];
  const y = plansOf(ctx, i, j).base.years[t];
  const at = (col: string, year = t): string => sheet.cell(plan, planKey(i, j, year), col);
  const g = (col: string): string => sheet.cell(growth, workloadKey(i, j), col, true);
  const prevInService = t === 0 ? g("installed") : at("in_service", t - 1);
  const s = w.serviceTime;
  const levels = plan.cols.includes("service_level_start");
  const level = (rate: string, value: number | undefined): CellValue =>
    w.sizing.kind === "serviceLevel" ? native(serviceLevelFormula(row, rate, at("in_service")), value ?? 0) : null;
  const response = (
    col: "response_start" | "response_end",
    rate: string,
    value: number | null,
    a: number,
  ): CellValue => {
    const r = responseCell(row, rate, at("in_service"), value, a);
    if ("addin" in r) return ctx.addin(at(col), r.addin, r.result ?? 0);
    return { formula: r.formula, result: r.result };
  };
  return {
    option: input.options[i].name,
    workload: w.name,
    year: t,
    growth: typeof w.growth === "object" ? y.growth : native(g("growth"), y.growth),
    load: native(t === 0 ? row.cells.rate : `${at("load", t - 1)}*(1+${at("growth", t - 1)})`, y.loadStart),
    load_end: native(`${at("load")}*(1+${at("growth")})`, y.loadEnd),
    needed: neededCell(ctx, row, at("load"), y.needed, y.loadStart, at("needed")),
    needed_end: neededCell(ctx, row, at("load_end"), y.neededEnd, y.loadEnd, at("needed_end")),
    required: native(
      `IF(${g("policy")}="headroom",MAX(${at("needed")},${at("needed_end")}),${at("needed")})`,
      y.required,
    ),
    bought: native(`ROUNDUP(MAX(0,${at("required")}-${prevInService})/${g("unit")},0)*${g("unit")}`, y.bought),
    in_service: native(`${prevInService}+${at("bought")}`, y.inService),
    utilization_start: native(`${at("load")}*${row.cells.service}/${at("in_service")}`, y.start.utilization),
    utilization_end: native(`${at("load_end")}*${row.cells.service}/${at("in_service")}`, y.end.utilization),
    response_start: response("response_start", at("load"), y.start.meanResponse, y.loadStart * s),
    response_end: response("response_end", at("load_end"), y.end.meanResponse, y.loadEnd * s),
    ...(levels
      ? {
          service_level_start: level(at("load"), y.start.serviceLevel),
          service_level_end: level(at("load_end"), y.end.serviceLevel),
        }
      : {}),
    server_cost: native(
      `${at("bought")}*${sheet.cell(costs, "per_server", opt(i))}+${at("in_service")}*${sheet.cell(costs, "per_server_year", opt(i))}`,
      y.oneOffCost + y.yearlyCost,
    ),
    short_year: native(
      `IF(${at("required")}>${g("installed")},${at("year")},"")`,
      y.required > (w.installed ?? 0) ? t : "",
    ),
  };
}

/**
 * The number format of a workload's mean responses in the purchase plan: decimals for the
 * smallest (3 significant digits), in the row's unit; the unit in the format when rows differ.
 */
function responseFormat(years: PoolPlan["years"], row: WorkloadRow, ownUnit: boolean): string {
  const scale = row.time.scale;
  const times = years
    .flatMap((y) => [y.start.meanResponse, y.end.meanResponse])
    .filter((t): t is number => t !== null && Number.isFinite(t))
    .map((t) => t * scale);
  const format = timeFormat(times.length > 0 ? times : [row.w.serviceTime * scale]);
  return ownUnit ? withUnit(format, row.time.unit) : format;
}

/** The PurchasePlan table. */
export function purchasePlanTable(ctx: CaseSheet): TablePlan | undefined {
  const plan = ctx.purchases;
  if (!plan) return undefined;
  // One unit for every workload's times: in the headers; else in each row's cells.
  const common = commonTimeUnit(ctx.input);
  const inUnit = (header: string): string => (common ? `${header} (${common.unit})` : header);
  const all: ColumnPlan[] = [
    { key: "option", header: "Option" },
    { key: "workload", header: "Workload" },
    { key: "year", header: "Year", numFmt: "0" },
    {
      key: "growth",
      header: "Growth in the year",
      numFmt: percentFormat(1),
      description: "g: the load grows by this during the year",
    },
    {
      key: "load",
      numFmt: "#,##0",
      header: `Load at start (${ctx.input.rateUnit})`,
      description: "λ_t: today's rate in year 0, then the previous year's × (1 + g)",
    },
    { key: "load_end", header: "Load at end", numFmt: "#,##0", description: "λ_t × (1 + g)" },
    {
      key: "needed",
      header: "Servers needed at start",
      numFmt: "0",
      description: "The Capacity table's rule at the load at start",
    },
    {
      key: "needed_end",
      header: "Servers needed at end",
      numFmt: "0",
      description: "The same rule at the load at the year's end",
    },
    {
      key: "required",
      header: "Servers required",
      numFmt: "0",
      description: "Needed at start; with the headroom policy, the larger of start and end",
    },
    {
      key: "bought",
      header: "Servers bought",
      numFmt: "0",
      description: "Whole purchase units to reach the required servers (none are sold)",
    },
    { key: "in_service", header: "Servers in service", numFmt: "0", description: "Installed + bought so far" },
    { key: "utilization_start", header: "Utilization at start", numFmt: "0.0%" },
    {
      key: "utilization_end",
      header: "Utilization at end",
      numFmt: "0.0%",
      description: "Above 100 %: the servers cannot carry the load",
    },
    {
      key: "response_start",
      header: inUnit("Mean response at start"),
      description: "M/M/c: S + mean wait; #N/A when the servers cannot carry the load",
    },
    { key: "response_end", header: inUnit("Mean response at end") },
    { key: "service_level_start", header: "Answered in time at start", numFmt: "0.0%" },
    { key: "service_level_end", header: "Answered in time at end", numFmt: "0.0%" },
    {
      key: "server_cost",
      header: "Server cost of the year",
      numFmt: ctx.cur,
      description: "Bought × one-off cost + in service × yearly cost (Costs table)",
    },
    {
      key: "short_year",
      header: "Short of installed",
      numFmt: "0",
      description: "The year, when the installed servers are fewer than required",
    },
  ];
  const columns = all.filter((c) => plan.cols.includes(c.key));
  const rows: CellValue[][] = [];
  const cellFormats: NonNullable<TablePlan["cellFormats"]> = [];
  const at = (key: string): number => columns.findIndex((c) => c.key === key);
  ctx.input.options.forEach((o, i) =>
    o.workloads.forEach((_w, j) => {
      const row = capacityRowFor(ctx, i, j);
      // Each workload's loads grouped, with the decimals its smallest needs.
      const years = plansOf(ctx, i, j).base.years;
      const loads = loadFormat(years.flatMap((y) => [y.loadStart, y.loadEnd]));
      const times = responseFormat(years, row, common === null);
      for (let t = 0; t < ctx.input.years; t++) {
        const values = planRow(ctx, row, i, j, t);
        for (const key of ["load", "load_end"]) cellFormats.push({ row: rows.length, col: at(key), numFmt: loads });
        for (const key of ["response_start", "response_end"])
          cellFormats.push({ row: rows.length, col: at(key), numFmt: times });
        rows.push(columns.map((c) => values[c.key] ?? null));
      }
    }),
  );
  return makeTable(ctx, plan, columns, rows, { cellFormats });
}
