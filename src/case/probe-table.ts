/**
 * The case's Probes table: the choice asked again, live, at the grid of moves of every driver that
 * is not linear in the costs (`robustness.ts`: the discount rate, escalations, each workload's
 * arrival rate, service time, sizing target, growth and installed servers, the load as a whole, the
 * service-level target). One row per driver and grid point (p, 2p and 5p up, then down; p the
 * driver's plausible move, an input of the Break-even table):
 *
 * - the move (multiple × p) and the driver's value there: value × (1 + move) (a rate at 0: the
 *   move in points; a whole count: the whole number within the move nearest the value; "" outside
 *   the input's valid range: not tried), the value before it (the previous point's, or the value
 *   now) and the distance |value − now|/|now|;
 * - the servers of every workload the driver sizes, by the Capacity table's rule at the moved
 *   inputs (`probe-plan.ts`);
 * - each option's net present cost there if it qualifies ("left out" if not): the cost now plus
 *   the change — at a rate r′ the flows of Cost per year discounted at r′; at an escalation e′ the
 *   line's amount × Σ_t ((1 + e′)^t − (1 + e)^t)/(1 + r)^t; at moved servers (servers′ − servers) ×
 *   (cost per server + cost per server-year × Σ_t (1 + r)^−t); with growth, the present value of
 *   the moved purchase plan's server costs less the plan's own (`probe-plan.ts`);
 * - the choice there (the first qualifying option within a cent of the least cost; 0: none), and
 *   whether it differs from the choice now.
 *
 * `computeCase` on the input moved the same way gives the cached values, so after any edit the
 * sheet and `caplab case` on the edited input agree point for point. Cost: 6 rows per driver of
 * (options + sized workloads + 6) cells.
 */
import { pWaitFormula } from "./mmc-cells";
import { serversCell, WorkloadRow } from "./capacity";
import {
  movedRow,
  movedServers,
  movedWorkloads,
  movesSizing,
  planPvChange,
  probedDrivers,
  probeKey,
} from "./probe-plan";
import { distanceOf, DriverRobustness, PROBE_MULTIPLES, ProbePoint } from "./robustness";
import { formatOf } from "./break-even-table";
import { CaseSheet, lineKey, makeTable, native, opt, rateCell, workloadKey, yearKey } from "./sheet-context";
import { CellValue, ColumnPlan, TablePlan } from "../workbook/plan";
import { CaseInput } from "./input";
import { PlacedTable } from "../workbook/sheet-builder";

/** The Probes table's row keys. */
export function probeRows(drivers: readonly DriverRobustness[]): string[] {
  return probedDrivers(drivers).flatMap((d) => PROBE_MULTIPLES.map((_, k) => probeKey(d.driver.key, k)));
}

/** The Probes table's column keys. */
export function probeColumns(input: CaseInput): string[] {
  const servers = input.options.flatMap((o, i) => o.workloads.map((_, j) => `servers:${i}:${j}`));
  const costs = input.options.map((_, i) => `cost:${i}`);
  return ["driver", "multiple", "move", "value", "previous", "gap", ...servers, ...costs, "choice", "changed"];
}

/** The cell holding a driver's value in the case (absolute), or null when it has none (the load: 1; an escalation without an Escalation table: 0). */
export function driverInput(ctx: CaseSheet, key: string): string | null {
  const { sheet } = ctx;
  const [kind, a, b] = key.split(":");
  const wk = workloadKey(Number(a), Number(b));
  const cap = (col: string): string => sheet.cell(ctx.capacity as PlacedTable, wk, col, true);
  const target = (col: string): string => sheet.cell(ctx.serviceTarget as PlacedTable, "value", col, true);
  const growth = (col: string): string => sheet.cell(ctx.growth as PlacedTable, wk, col, true);
  switch (kind) {
    case "rate":
      return rateCell(ctx);
    case "esc": {
      if (!ctx.escalation) return null;
      const label = ctx.input.options[Number(a)].opex[Number(b)].label.toLowerCase();
      const m = ctx.lineLabels.findIndex((l) => l.toLowerCase() === label);
      return sheet.cell(ctx.escalation, lineKey(m), opt(Number(a)), true);
    }
    case "target_level":
      return target("level");
    case "target_within":
      return target("answer_within");
    case "arrival":
      return cap("rate");
    case "service":
      return cap("service_time");
    case "target":
      return cap("target");
    case "within":
      return cap("answer_within");
    case "growth":
      return growth("growth");
    case "installed":
      return growth("installed");
    default:
      return null;
  }
}

/** A driver's value now as a formula term: its input cell, or its constant. */
export function baseTerm(ctx: CaseSheet, d: DriverRobustness): string {
  return driverInput(ctx, d.driver.key) ?? String(d.driver.base);
}

/** The valid-range test of a value `v`, the bounds that are inputs (a response target above the service time) as cells. */
function rangeTest(ctx: CaseSheet, d: DriverRobustness, v: string): string {
  const { lo, loOpen, hi, hiOpen } = d.driver.range;
  const [kind, a, b] = d.driver.key.split(":");
  const response = (col: string): string | null => {
    const w = ctx.input.options[Number(a)]?.workloads[Number(b)];
    if (!w || w.sizing.kind !== "response") return null;
    return ctx.sheet.cell(ctx.capacity as PlacedTable, workloadKey(Number(a), Number(b)), col, true);
  };
  const loCell = kind === "target" ? response("service_time") : null;
  const hiCell = kind === "service" ? response("target") : null;
  const tests: string[] = [];
  if (loCell) tests.push(`${v}>${loCell}`);
  else if (Number.isFinite(lo)) tests.push(`${v}${loOpen ? ">" : ">="}${lo}`);
  if (hiCell) tests.push(`${v}<${hiCell}`);
  else if (Number.isFinite(hi)) tests.push(`${v}${hiOpen ? "<" : "<="}${hi}`);
  return tests.length === 0 ? "TRUE" : tests.length === 1 ? tests[0] : `AND(${tests.join(",")})`;
}

/** The value cell: the value now moved, whole where a count, "" outside the valid range (`probeValue` in robustness.ts). */
function valueFormula(ctx: CaseSheet, d: DriverRobustness, move: string, multiple: number): string {
  const b = baseTerm(ctx, d);
  const raw = d.driver.unit === "rate" ? `IF(${b}=0,${move},${b}*(1+${move}))` : `${b}*(1+${move})`;
  // ⌊raw + 1e-9⌋ up, ⌈raw − 1e-9⌉ down (INT rounds towards −∞; ROUNDUP would take −1e-9 to −1).
  const v = d.driver.whole ? (multiple > 0 ? `INT(${raw}+1E-9)` : `-INT(1E-9-${raw})`) : raw;
  return `IF(${rangeTest(ctx, d, v)},${v},"")`;
}

/** Σ_t (1 + r)^−t over the case's years (a formula term). */
function annuityTerm(ctx: CaseSheet): string {
  const years = ctx.sheet.span(ctx.perYear, [yearKey(0), "year"], [yearKey(ctx.input.years - 1), "year"], true);
  return `SUMPRODUCT(1/(1+${rateCell(ctx)})^${years})`;
}

/** Whether a workload qualifies with `servers` (the Capacity table's rule: carries its load, meets the case's target). */
function qualifiesTerm(ctx: CaseSheet, row: WorkloadRow, servers: string, level?: string, within?: string): string {
  const c = { ...row.cells, servers };
  const a = `(${c.rate}*${c.service})`;
  const stable = `${servers}>${a}`;
  const t = ctx.serviceTarget;
  if (!t || !ctx.input.serviceTarget) return stable;
  const lv = level ?? ctx.sheet.cell(t, "value", "level", true);
  const tw = within ?? ctx.sheet.cell(t, "value", "answer_within", true);
  const pWait = servers === row.cells.servers ? row.cells.pWait : pWaitFormula(c);
  // The target's time is in the ServiceTarget table's unit; this row's may be another (as the Capacity table).
  const ts = ctx.shownTime.scale;
  const ratio = ts === row.time.scale ? `${tw}/${c.shown ?? c.service}` : `(${tw}/${ts})/${c.service}`;
  const share = `1-${pWait}*EXP(-(${servers}-${a})*${ratio})`;
  return `AND(${stable},${share}>=${lv}-1E-9)`;
}

/** Option i's net present cost at the row's point (a formula term), from the cost now and the change. */
function movedCost(ctx: CaseSheet, d: DriverRobustness, k: number, i: number, value: string): string {
  const { sheet, input } = ctx;
  const [kind, a, b] = d.driver.key.split(":");
  const npv = sheet.cell(ctx.costs, "npv", opt(i), true);
  const rate = rateCell(ctx);
  if (kind === "rate") {
    const flows = sheet.span(ctx.perYear, [yearKey(0), opt(i)], [yearKey(ctx.result.periods - 1), opt(i)], true);
    const years = sheet.span(ctx.perYear, [yearKey(0), "year"], [yearKey(ctx.result.periods - 1), "year"], true);
    return `SUMPRODUCT(${flows}/(1+${value})^${years})`;
  }
  if (kind === "esc") {
    if (Number(a) !== i) return npv;
    const label = input.options[i].opex[Number(b)].label.toLowerCase();
    const m = ctx.lineLabels.findIndex((l) => l.toLowerCase() === label);
    const amount = sheet.cell(ctx.costs, lineKey(m), opt(i), true);
    const e = baseTerm(ctx, d);
    const years = sheet.span(ctx.perYear, [yearKey(0), "year"], [yearKey(input.years - 1), "year"], true);
    return `${npv}+${amount}*SUMPRODUCT(((1+${value})^${years}-(1+${e})^${years})/(1+${rate})^${years})`;
  }
  const moved = movedWorkloads(input, d.driver.key).filter(([x]) => x === i);
  if (moved.length === 0) return npv;
  if (ctx.purchases) return `${npv}+${planPvChange(ctx, d, k, i)}`;
  if (!movesSizing(d.driver.key)) return npv;
  const delta = moved
    .map(([, j]) => {
      const now = sheet.cell(ctx.capacity as PlacedTable, workloadKey(i, j), "servers", true);
      const there = sheet.cell(ctx.probes as PlacedTable, probeKey(d.driver.key, k), `servers:${i}:${j}`);
      return `${there}-${now}`;
    })
    .join("+");
  const cps = sheet.cell(ctx.costs, "per_server", opt(i), true);
  const cpsy = sheet.cell(ctx.costs, "per_server_year", opt(i), true);
  return `${npv}+(${delta})*(${cps}+${cpsy}*${annuityTerm(ctx)})`;
}

/** Whether option i qualifies at the row's point (a formula condition). */
function movedQualifies(ctx: CaseSheet, d: DriverRobustness, k: number, i: number, value: string): string {
  const { sheet, input } = ctx;
  const key = d.driver.key;
  const kind = key.split(":")[0];
  const now = `${sheet.cell(ctx.choice, "qualifies", opt(i), true)}=1`;
  const o = input.options[i];
  if (o.workloads.length === 0 || !ctx.capacity) return now;
  const point = (d.probes as ProbePoint[])[k];
  const capQ = (j: number): string =>
    `${sheet.cell(ctx.capacity as PlacedTable, workloadKey(i, j), "qualifies", true)}=1`;
  if (kind === "target_level" || kind === "target_within") {
    const terms = o.workloads.map((_, j) => {
      const row = movedRow(ctx, "", i, j, value, point);
      return qualifiesTerm(
        ctx,
        row,
        row.cells.servers,
        kind === "target_level" ? value : undefined,
        kind === "target_within" ? value : undefined,
      );
    });
    return terms.length === 1 ? terms[0] : `AND(${terms.join(",")})`;
  }
  const moved = movedWorkloads(input, key).filter(([x]) => x === i);
  if (moved.length === 0 || !movesSizing(key)) return now;
  const terms = o.workloads.map((_, j) => {
    if (!moved.some(([, y]) => y === j)) return capQ(j);
    const servers = sheet.cell(ctx.probes as PlacedTable, probeKey(key, k), `servers:${i}:${j}`);
    return qualifiesTerm(ctx, movedRow(ctx, key, i, j, value, point), servers);
  });
  return terms.length === 1 ? terms[0] : `AND(${terms.join(",")})`;
}

/** The choice among the row's costs: the first within a cent of the least (1-based; 0 when none qualifies). */
function choiceOf(costs: string[]): string {
  const range = `${costs[0]}:${costs[costs.length - 1]}`;
  const least = `ROUND(MIN(${range}),2)`;
  let pick = String(costs.length);
  for (let i = costs.length - 2; i >= 0; i--)
    pick = `IF(AND(ISNUMBER(${costs[i]}),ROUND(N(${costs[i]}),2)=${least}),${i + 1},${pick})`;
  return `IF(COUNT(${range})=0,0,${pick})`;
}

/** The choice now as a formula term (1-based; 0 when none qualifies). */
export function choiceNow(ctx: CaseSheet): string {
  const n = ctx.input.options.length;
  const flags = ctx.sheet.span(ctx.choice, ["chosen", opt(0)], ["chosen", opt(n - 1)], true);
  return `IFERROR(MATCH(1,${flags},0),0)`;
}

/** One row of the Probes table: driver d at grid point k. */
function probeRowCells(ctx: CaseSheet, d: DriverRobustness, k: number): Record<string, CellValue> {
  const { sheet, input } = ctx;
  const key = d.driver.key;
  const point = (d.probes as ProbePoint[])[k];
  const block = ctx.probes as PlacedTable;
  const at = (col: string, row = k): string => sheet.cell(block, probeKey(key, row), col);
  const multiple = PROBE_MULTIPLES[k];
  const plausible = sheet.cell(ctx.breakEven, key, "plausible", true);
  const base = baseTerm(ctx, d);
  const b = d.driver.base;
  const v = point.value;
  const tried = (f: string): string => `IF(ISNUMBER(${at("value")}),${f},"")`;
  const firstOfSide = k === 0 || k === PROBE_MULTIPLES.length / 2;
  const previous = firstOfSide ? b : ((d.probes as ProbePoint[])[k - 1].value ?? "");
  const cells: Record<string, CellValue> = {
    driver: d.driver.label,
    multiple,
    move: native(`${multiple}*${plausible}`, multiple * d.plausible),
    value: native(valueFormula(ctx, d, at("move"), multiple), v ?? ""),
    // A previous point not tried holds "": ISNUMBER keeps it "" (a bare reference can read it as 0).
    previous: native(firstOfSide ? base : `IF(ISNUMBER(${at("value", k - 1)}),${at("value", k - 1)},"")`, previous),
    gap: native(
      tried(`IF(${base}=0,ABS(${at("value")}-${base}),ROUND(ABS((${at("value")}-${base})/${base}),9))`),
      v === null ? "" : b === 0 ? Math.abs(v - b) : distanceOf(v, b),
    ),
  };
  if (movesSizing(key) && ctx.capacity)
    for (const [i, j] of movedWorkloads(input, key)) {
      const address = at(`servers:${i}:${j}`);
      const row = movedRow(ctx, key, i, j, at("value"), point);
      const count = movedServers(point, i, j);
      const cell = serversCell(ctx, row, { address, count: typeof count === "number" ? count : 0 });
      cells[`servers:${i}:${j}`] =
        cell !== null && typeof cell === "object" && "formula" in cell ? native(tried(cell.formula), count) : cell;
    }
  const costs = input.options.map((_, i) => at(`cost:${i}`));
  input.options.forEach((_, i) => {
    const r = point.result;
    const cached = v === null || !r ? "" : r.options[i].qualifies ? r.options[i].npv : "left out";
    const formula = `IF(${movedQualifies(ctx, d, k, i, at("value"))},${movedCost(ctx, d, k, i, at("value"))},"left out")`;
    cells[`cost:${i}`] = native(tried(formula), cached);
  });
  const chosen = ctx.result.chosen;
  cells.choice = native(
    tried(`IFERROR(${choiceOf(costs)},${choiceNow(ctx)})`),
    point.choice === null ? "" : point.choice + 1,
  );
  cells.changed = native(
    `IF(ISNUMBER(${at("choice")}),IF(${at("choice")}<>${choiceNow(ctx)},1,0),0)`,
    point.choice !== null && point.choice !== chosen ? 1 : 0,
  );
  return cells;
}

const HEADERS: Record<string, ColumnPlan> = {
  driver: { key: "driver", header: "Driver", width: 28, wrap: true },
  multiple: {
    key: "multiple",
    header: "Move (× plausible)",
    numFmt: "+0.0;\u22120.0",
    description: "Multiples of the driver's plausible move (Break-even table)",
  },
  move: { key: "move", header: "Move", numFmt: "+0.0%;\u22120.0%", description: "Multiple × plausible move" },
  value: {
    key: "value",
    header: "Value there",
    description: "Value now × (1 + move) (a rate at 0 moves by the points); empty outside the input's valid range",
  },
  previous: {
    key: "previous",
    header: "Value before",
    description: "The previous point's value (the value now for the first): a change lies between the two",
  },
  gap: {
    key: "gap",
    header: "Distance",
    numFmt: "0.00%",
    description: "|value − now| / |now| (|value − now| when now is 0)",
  },
  choice: {
    key: "choice",
    header: "Choice there",
    numFmt: "0",
    description: "1 = the first option; 0: none qualifies",
  },
  changed: { key: "changed", header: "Changes the choice", numFmt: '"yes";"yes";"no"' },
};

/** The Probes table (placed when a driver is not linear in the costs). */
export function probeTable(ctx: CaseSheet): TablePlan | undefined {
  const block = ctx.probes;
  if (!block) return undefined;
  const { input } = ctx;
  const rows: CellValue[][] = [];
  // Each driver's values in its own unit's format (a rate as %, loads grouped), as in the Break-even table.
  const cellFormats: NonNullable<TablePlan["cellFormats"]> = [];
  for (const d of probedDrivers(ctx.robustness.drivers))
    PROBE_MULTIPLES.forEach((_, k) => {
      const values = probeRowCells(ctx, d, k);
      for (const c of ["value", "previous"])
        if (block.cols.includes(c))
          cellFormats.push({ row: rows.length, col: block.cols.indexOf(c), numFmt: formatOf(ctx, d) });
      rows.push(block.cols.map((c) => values[c] ?? null));
    });
  const names = input.options.map((o) => o.name);
  const columns = block.cols.map((key): ColumnPlan => {
    const [kind, a, b] = key.split(":");
    if (kind === "servers")
      return {
        key,
        header: `Servers: ${names[Number(a)]} › ${input.options[Number(a)].workloads[Number(b)].name}`,
        numFmt: "0",
      };
    if (kind === "cost") return { key, header: `Cost if it qualifies: ${names[Number(a)]}`, numFmt: ctx.cur };
    return HEADERS[key];
  });
  return makeTable(ctx, block, columns, rows, { cellFormats });
}
