/** The case's Scenarios table: each option's net present cost with every driver low, base or high (with workloads, the servers and server-cost present values behind it). */
import { CaseSheet, makeTable, native, opt, rateCell, serversTerm, workloadKey, yearKey } from "./sheet-context";
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

const scenarioColumnPlans = (cur: string): ColumnPlan[] => [
  { key: "option", header: "Option" },
  { key: "servers_low", header: "Servers, low load", numFmt: "0" },
  { key: "servers_base", header: "Servers, base", numFmt: "0" },
  { key: "servers_high", header: "Servers, high load", numFmt: "0" },
  {
    key: "pv_low",
    header: "Server costs PV, low load",
    numFmt: cur,
    description: "Present value of the per-server costs (one-off + yearly)",
  },
  { key: "pv_base", header: "Server costs PV, base", numFmt: cur },
  { key: "pv_high", header: "Server costs PV, high load", numFmt: cur },
  {
    key: "npv_low",
    header: "Net present cost, low scenario",
    numFmt: cur,
    description: "Load, capex and per-server costs all at their low values",
  },
  { key: "npv_base", header: "Base", numFmt: cur },
  {
    key: "npv_high",
    header: "High scenario",
    numFmt: cur,
    description: "Load, capex and per-server costs all at their high values",
  },
];

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
    native(pvOf(here("servers_low"), "pv_load_low"), r.serverCostPv.low),
    native(pvOf(here("servers_base"), "pv_base"), r.serverCostPv.base),
    native(pvOf(here("servers_high"), "pv_load_high"), r.serverCostPv.high),
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
  const o = ctx.input.options[i];
  const capacity = ctx.capacity;
  if (!capacity || o.workloads.length === 0) return native(formula, value);
  const factor = ctx.input.sensitivity.load[side];
  const cell = (j: number, col: string): string => ctx.sheet.cell(capacity, workloadKey(i, j), col);
  const scale = ctx.shownTime.scale;
  const service = (j: number): string =>
    scale === 1 ? cell(j, "service_time") : `(${cell(j, "service_time")}/${scale})`;
  const load = ctx.sheet.cell(ctx.sensitivity, "load", side, true);
  const over = o.workloads.map((_, j) => `${cell(j, `servers_${side}`)}<=${cell(j, "rate")}*${load}*${service(j)}`);
  const cannot = o.workloads.some(
    (w, j) =>
      ctx.result.options[i].workloads[j] &&
      w.sizing.kind === "servers" &&
      w.sizing.servers <= w.arrivalRate * factor * w.serviceTime,
  );
  return native(
    `IF(OR(${over.join(",")}),"cannot carry its load",${formula})`,
    cannot ? "cannot carry its load" : value,
  );
}

/**
 * Low / base / high scenarios: each option's net present cost with load, capex and per-server
 * costs all at their low (or all at their high) values from the Sensitivity table, the discount
 * rate at base. With workloads, the workings: servers and the present value of the per-server
 * costs at each load.
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
    scenarioColumnPlans(ctx.cur).filter((c) => scenarios.cols.includes(c.key)),
    rows,
  );
}
