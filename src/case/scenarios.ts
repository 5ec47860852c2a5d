/** The case's Scenarios table: each option's net present cost with every driver low, base or high (with workloads, the servers and server-cost present values behind it). */
import { CaseSheet, makeTable, native, opt, rateCell, serversTerm, yearKey } from "./sheet-context";
import { CANNOT_CARRY, cannotCarryAt, cannotCarryFormula } from "./carry";
import { CellValue, ColumnPlan, TablePlan } from "../workbook/plan";
import { purchasePvCell } from "./purchase-sensitivity";

/** The Scenarios table's columns: with workloads, the servers and server-cost PVs at each load. */
export function scenarioColumns(anyWorkloads: boolean): string[] {
  return anyWorkloads
    ? [
        "option",
        "servers_low",
        "servers_base",
        "servers_high",
        "pv_low",
        "pv_base",
        "pv_high",
        "npv_low",
        "npv_base",
        "npv_high",
      ]
    : ["option", "npv_low", "npv_base", "npv_high"];
}

/** The Scenarios table's column plans; with growth, the scenarios move the growth too (`growth`). */
function scenarioColumnPlans(cur: string, growth: boolean): ColumnPlan[] {
  const drivers = growth ? "Load, growth, capex and per-server costs" : "Load, capex and per-server costs";
  const at = growth ? "scenario" : "load";
  return [
    { key: "option", header: "Option" },
    { key: "servers_low", header: "Servers, low load", numFmt: "0" },
    { key: "servers_base", header: "Servers, base", numFmt: "0" },
    { key: "servers_high", header: "Servers, high load", numFmt: "0" },
    {
      key: "pv_low",
      header: `Server costs PV, low ${at}`,
      numFmt: cur,
      description: growth
        ? "Present value of the server costs of the purchase plan with load and growth both low (PurchasePV)"
        : "Present value of the per-server costs (one-off + yearly)",
    },
    { key: "pv_base", header: "Server costs PV, base", numFmt: cur },
    { key: "pv_high", header: `Server costs PV, high ${at}`, numFmt: cur },
    {
      key: "npv_low",
      header: "Net present cost, low scenario",
      numFmt: cur,
      description: `${drivers} all at their low values`,
    },
    { key: "npv_base", header: "Base", numFmt: cur },
    {
      key: "npv_high",
      header: "High scenario",
      numFmt: cur,
      description: `${drivers} all at their high values`,
    },
  ];
}

/** The servers and server-cost present values of option `i` at low, base and high load. */
function serverCells(ctx: CaseSheet, i: number): CellValue[] {
  const { input, result, sheet, costs, perYear, scenarios } = ctx;
  const r = result.options[i];
  const col = opt(i);
  const here = (key: string): string => sheet.cell(scenarios, col, key);
  const years = sheet.span(perYear, [yearKey(0), "year"], [yearKey(input.years - 1), "year"]);
  const annuity = `SUMPRODUCT(1/(1+${rateCell(ctx)})^${years})`;
  const sum = (key: string): string => serversTerm(ctx, i, key) ?? "0";
  const pvOf = (servers: string, plan: string): string => (ctx.purchasePv ? purchasePvCell(ctx, i, plan) : pv(servers));
  const pv = (servers: string): string =>
    `${servers}*(${sheet.cell(costs, "per_server", col)}+${sheet.cell(costs, "per_server_year", col)}*${annuity})`;
  return [
    native(sum("servers_low"), r.serversLowLoad),
    native(sum("servers"), r.servers),
    native(sum("servers_high"), r.serversHighLoad),
    native(pvOf(here("servers_low"), "pv_scenario_low"), r.serverCostPv.low),
    native(pvOf(here("servers_base"), "pv_base"), r.serverCostPv.base),
    native(pvOf(here("servers_high"), "pv_scenario_high"), r.serverCostPv.high),
  ];
}

/** The low, base and high net present cost of option `i`. */
function npvCells(ctx: CaseSheet, i: number): CellValue[] {
  const { result, sheet, costs, sensitivity, scenarios } = ctx;
  const r = result.options[i];
  const col = opt(i);
  const here = (key: string): string => sheet.cell(scenarios, col, key);
  const s = (driver: string, side: string): string => sheet.cell(sensitivity, driver, side, true);
  const npv = sheet.cell(costs, "npv", col);
  const capex = sheet.cell(costs, "capex", col);
  const at = (side: "low" | "high"): string =>
    ctx.anyWorkloads
      ? `${npv}+(${s("capex", side)}-1)*${capex}+${s("serverCost", side)}*${here(`pv_${side}`)}-${here("pv_base")}`
      : `${npv}+(${s("capex", side)}-1)*${capex}`;
  return [
    scenarioCell(ctx, i, "low", at("low"), r.scenario.low),
    native(npv, r.npv),
    scenarioCell(ctx, i, "high", at("high"), r.scenario.high),
  ];
}

/**
 * A scenario's net present cost, or "cannot carry its load" where a workload's servers at that load
 * (a fixed staff) are no more than its load: the scenario is not costed as if it coped.
 */
function scenarioCell(ctx: CaseSheet, i: number, side: "low" | "high", formula: string, value: number): CellValue {
  const over = cannotCarryFormula(ctx, i, side);
  if (over === null) return native(formula, value);
  return native(
    `IF(${over},"${CANNOT_CARRY}",${formula})`,
    cannotCarryAt(ctx.input, ctx.result, i, side) ? CANNOT_CARRY : value,
  );
}

/**
 * Low / base / high scenarios: each option's net present cost with load, capex and per-server
 * costs (and, where the load grows, its growth) all at their low (or all at their high) values from
 * the Sensitivity table, the discount rate at base. With workloads, the workings: servers and the
 * present value of the per-server costs at each load (with growth: of the purchase plan with load
 * and growth both low, or both high).
 */
export function scenariosTable(ctx: CaseSheet): TablePlan {
  const { input, scenarios } = ctx;
  const rows = input.options.map((o, i): CellValue[] => [
    o.name,
    ...(ctx.anyWorkloads ? serverCells(ctx, i) : []),
    ...npvCells(ctx, i),
  ]);
  return makeTable(
    ctx,
    scenarios,
    scenarioColumnPlans(ctx.cur, ctx.purchasePv !== undefined).filter((c) => scenarios.cols.includes(c.key)),
    rows,
  );
}
