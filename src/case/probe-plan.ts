/**
 * Where the Probes table's grid (`probe-table.ts`) moves a workload: its Capacity row with the moved
 * input in place (the rate, the service time, the sizing target or its answer-within time), and,
 * when the case's load grows, the ProbePlan table — the workload's purchase plan redone at the
 * moved input, year by year, as the PurchasePlan table does it (`purchase-plan.ts`):
 *
 *     load_0 = the moved rate, load_t = load_{t−1}·(1 + g_{t−1})   (g: the moved growth, else the plan's)
 *     needed_t = the Capacity rule at load_t; needed_end_t = the rule at load_t·(1 + g_t) with the
 *                headroom policy, else needed_t
 *     bought_t = ⌈max(0, max(needed_t, needed_end_t) − in service_{t−1}) / unit⌉·unit
 *     in service_t = in service_{t−1} + bought_t   (in service_{−1}: the moved installed servers)
 *
 * The Probes table adds the present value of the moved plan's server costs less the plan's own to
 * the option's net present cost. Cost: 5 cells per moved workload, year and grid point.
 */
import { workloadRow, WorkloadRow } from "./capacity";
import { searchWidth } from "./mmc-cells";
import { capacityRowFor, neededCell, planKey } from "./purchase-plan";
import { CaseResult } from "./model";
import { CaseInput } from "./input";
import { DriverRobustness, ProbePoint } from "./robustness";
import { CaseSheet, makeTable, native, opt, rateCell, workloadKey } from "./sheet-context";
import { CellValue, ColumnPlan, TablePlan } from "../workbook/plan";
import { PlacedTable } from "../workbook/sheet-builder";
import { PROBE_MULTIPLES } from "./robustness";

/** Row key of a driver's grid point k in the Probes table. */
export const probeKey = (driver: string, k: number): string => `pr:${driver}:${k}`;
/** Row key of a moved plan's year t (driver, grid point k, option i, workload j) in the ProbePlan table. */
export const probePlanKey = (driver: string, k: number, i: number, j: number, t: number): string =>
  `pp:${driver}:${k}:${i}:${j}:${t}`;

/** Drivers that act through a workload's servers or purchases, by the prefix of their key. */
const WORKLOAD_KINDS = ["arrival", "service", "target", "within", "growth", "installed"];
/** Those that change the servers of the Capacity table (growth and installed servers change only the purchases). */
const SIZING_KINDS = ["load", "arrival", "service", "target", "within"];

/** The workloads [option, workload] a driver moves: every one for the load, one for a workload's driver. */
export function movedWorkloads(input: CaseInput, key: string): [number, number][] {
  const [kind, a, b] = key.split(":");
  if (kind === "load") return input.options.flatMap((o, i) => o.workloads.map((_, j): [number, number] => [i, j]));
  return WORKLOAD_KINDS.includes(kind) ? [[Number(a), Number(b)]] : [];
}

/** Whether a driver changes the Capacity table's servers of the workloads it moves. */
export function movesSizing(key: string): boolean {
  return SIZING_KINDS.includes(key.split(":")[0]);
}

/** The non-linear drivers, in the order they are defined (the Probes table's order). */
export function probedDrivers(drivers: readonly DriverRobustness[]): DriverRobustness[] {
  return drivers.filter((d) => d.probes !== null).sort((a, b) => a.order - b.order);
}

/** The ProbePlan table's row keys (cases whose load grows): driver, grid point, moved workload, year. */
export function probePlanRows(input: CaseInput, drivers: readonly DriverRobustness[]): string[] {
  return probedDrivers(drivers).flatMap((d) =>
    PROBE_MULTIPLES.flatMap((_, k) =>
      movedWorkloads(input, d.driver.key).flatMap(([i, j]) =>
        Array.from({ length: input.years }, (_u, t) => probePlanKey(d.driver.key, k, i, j, t)),
      ),
    ),
  );
}

export const PROBE_PLAN_COLUMNS = [
  "driver",
  "multiple",
  "workload",
  "year",
  "load",
  "needed",
  "needed_end",
  "bought",
  "in_service",
];

/**
 * Workload (i, j)'s Capacity row with a driver's moved input in place of its own (`value`: the
 * Probes table's value cell), its search window wide enough for the servers computed there.
 */
export function movedRow(
  ctx: CaseSheet,
  key: string,
  i: number,
  j: number,
  value: string,
  point: ProbePoint,
): WorkloadRow {
  const base = ctx.purchases ? capacityRowFor(ctx, i, j) : workloadRow(ctx, ctx.capacity as PlacedTable, i, j);
  const kind = key.split(":")[0];
  const scale = base.time.scale;
  const cells = { ...base.cells };
  let { target, within } = base;
  let s = base.w.serviceTime;
  if (kind === "load") cells.rate = `(${base.cells.rate}*${value})`;
  if (kind === "arrival") cells.rate = value;
  if (kind === "service") {
    cells.shown = value;
    cells.service = scale === 1 ? value : `(${value}/${scale})`;
    if (point.value !== null) s = scale === 1 ? point.value : point.value / scale;
  }
  if (kind === "target") target = value;
  if (kind === "within") within = value;
  const moved = point.result?.options[i].workloads[j];
  let width = base.width;
  let w = base.w;
  if (moved) {
    const a = moved.utilization * moved.servers;
    w = { ...w, arrivalRate: a / s, serviceTime: s };
    width = Math.max(width, searchWidth(moved.servers, a));
    for (const y of moved.plans?.base.years ?? [])
      width = Math.max(width, searchWidth(y.needed, y.loadStart * s), searchWidth(y.neededEnd, y.loadEnd * s));
  }
  return { ...base, w, cells, target, within, width };
}

/** The cells of one ProbePlan row (driver d at grid point k, workload (i, j), year t). */
function planCells(
  ctx: CaseSheet,
  d: DriverRobustness,
  k: number,
  i: number,
  j: number,
  t: number,
): Record<string, CellValue> {
  const { sheet } = ctx;
  const table = ctx.probePlan as PlacedTable;
  const key = d.driver.key;
  const kind = key.split(":")[0];
  const point = (d.probes as ProbePoint[])[k];
  const value = sheet.cell(ctx.probes as PlacedTable, probeKey(key, k), "value", true);
  const row = movedRow(ctx, key, i, j, value, point);
  const at = (col: string, year = t): string => sheet.cell(table, probePlanKey(key, k, i, j, year), col);
  const plan = (col: string, year = t): string => sheet.cell(ctx.purchases as PlacedTable, planKey(i, j, year), col);
  const g = (col: string): string => sheet.cell(ctx.growth as PlacedTable, workloadKey(i, j), col, true);
  const growth = (year: number): string => (kind === "growth" ? value : plan("growth", year));
  const y = point.result?.options[i].workloads[j].plans?.base.years[t];
  const policy = ctx.input.options[i].workloads[j].purchasePolicy ?? "asNeeded";
  const cached = (x: number | undefined): number | string => x ?? "";
  const prev = t === 0 ? (kind === "installed" ? value : g("installed")) : at("in_service", t - 1);
  const rate = row.w.arrivalRate;
  const needed = neededCell(ctx, row, at("load"), y?.needed ?? 0, y?.loadStart ?? rate, at("needed"));
  const loadEnd = `(${at("load")}*(1+${growth(t)}))`;
  const end = neededCell(ctx, row, loadEnd, y?.neededEnd ?? 0, y?.loadEnd ?? rate, at("needed_end"));
  const headroom = (e: CellValue): CellValue =>
    e !== null && typeof e === "object" && "formula" in e
      ? native(
          `IF(${g("policy")}="headroom",${e.formula},${at("needed")})`,
          cached(policy === "headroom" ? y?.neededEnd : y?.needed),
        )
      : e;
  const w = ctx.input.options[i].workloads[j];
  return {
    driver: d.driver.label,
    multiple: PROBE_MULTIPLES[k],
    workload: `${ctx.input.options[i].name} › ${w.name}`,
    year: t,
    load: native(t === 0 ? row.cells.rate : `${at("load", t - 1)}*(1+${growth(t - 1)})`, cached(y?.loadStart)),
    needed: withResult(needed, cached(y?.needed)),
    needed_end: headroom(end),
    bought: native(
      `ROUNDUP(MAX(0,MAX(${at("needed")},${at("needed_end")})-${prev})/${g("unit")},0)*${g("unit")}`,
      cached(y?.bought),
    ),
    in_service: native(`${prev}+${at("bought")}`, cached(y?.inService)),
  };
}

/** A sizing cell with the cached result of its point ("" where the point was not computed). */
function withResult(cell: CellValue, result: number | string): CellValue {
  if (cell !== null && typeof cell === "object" && "formula" in cell) return native(cell.formula, result);
  return cell;
}

/**
 * The present value of option i's moved server costs less its plan's own at grid point k of
 * driver d (a formula term): Σ over the moved rows ((bought·cost per server + in service·cost per
 * server-year) − the plan's server cost)/(1 + r)^year.
 */
export function planPvChange(ctx: CaseSheet, d: DriverRobustness, k: number, i: number): string {
  const { sheet } = ctx;
  const moved = movedWorkloads(ctx.input, d.driver.key).filter(([x]) => x === i);
  if (moved.length === 0) return "0";
  const table = ctx.probePlan as PlacedTable;
  const plan = ctx.purchases as PlacedTable;
  const years = ctx.input.years;
  const [first, last] = [moved[0][1], moved[moved.length - 1][1]];
  const span = (col: string): string =>
    sheet.span(
      table,
      [probePlanKey(d.driver.key, k, i, first, 0), col],
      [probePlanKey(d.driver.key, k, i, last, years - 1), col],
      true,
    );
  const base = (col: string): string =>
    sheet.span(plan, [planKey(i, first, 0), col], [planKey(i, last, years - 1), col], true);
  const cps = sheet.cell(ctx.costs, "per_server", opt(i), true);
  const cpsy = sheet.cell(ctx.costs, "per_server_year", opt(i), true);
  return (
    `SUMPRODUCT((${span("bought")}*${cps}+${span("in_service")}*${cpsy}-${base("server_cost")})` +
    `/(1+${rateCell(ctx)})^${base("year")})`
  );
}

/** The ProbePlan table (placed when the load grows and a driver moves a workload). */
export function probePlanTable(ctx: CaseSheet): TablePlan | undefined {
  const block = ctx.probePlan;
  if (!block) return undefined;
  const rows: CellValue[][] = [];
  for (const d of probedDrivers(ctx.robustness.drivers))
    PROBE_MULTIPLES.forEach((_, k) =>
      movedWorkloads(ctx.input, d.driver.key).forEach(([i, j]) => {
        for (let t = 0; t < ctx.input.years; t++) {
          const values = planCells(ctx, d, k, i, j, t);
          rows.push(PROBE_PLAN_COLUMNS.map((c) => values[c] ?? null));
        }
      }),
    );
  const columns: ColumnPlan[] = [
    { key: "driver", header: "Driver", width: 28, wrap: true },
    { key: "multiple", header: "Move (× plausible)", numFmt: "+0.0;\u22120.0" },
    { key: "workload", header: "Workload" },
    { key: "year", header: "Year", numFmt: "0" },
    { key: "load", header: `Load at start (${ctx.input.rateUnit})`, numFmt: "#,##0" },
    { key: "needed", header: "Servers needed at start", numFmt: "0" },
    { key: "needed_end", header: "Servers needed at end (headroom policy)", numFmt: "0" },
    { key: "bought", header: "Servers bought", numFmt: "0" },
    { key: "in_service", header: "Servers in service", numFmt: "0" },
  ];
  return makeTable(ctx, block, columns, rows);
}

/** The cached servers of moved workload (i, j) at a point, "" where it was not computed. */
export function movedServers(point: ProbePoint, i: number, j: number): number | string {
  const r: CaseResult | null = point.result;
  return r ? r.options[i].workloads[j].servers : "";
}
