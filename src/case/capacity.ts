/** The case's Capacity table: one row per option × workload with its rate, service time and sizing target (inputs), then servers, utilization, response, wait, P(wait), servers at low and high load, and a check. */
import { checkFormula, checkText, PWAIT_WARNING } from "./capacity-check";
import {
  commonTimeUnit,
  rateFormat,
  serviceTimeFormula,
  timeFormat,
  TimeUnit,
  withUnit,
  workloadTimeUnit,
} from "./capacity-units";
import { CaseInput, Workload } from "./input";
import {
  MmcCells,
  nativeMmc,
  pWaitFormula,
  responseFormula,
  searchWidth,
  serversForUtilizationFormula,
  staffForResponseFormula,
  staffForServiceLevelFormula,
  utilizationFormula,
  waitFormula,
} from "./mmc-cells";
import { WorkloadResult } from "./model";
import { YES_NO } from "./choice";
import { CaseCells, CaseSheet, makeTable, native, workloadKey } from "./sheet-context";
import { CellValue, ColumnPlan, TablePlan } from "../workbook/plan";
import { PlacedTable } from "../workbook/sheet-builder";

const SIZING_TEXT = {
  servers: "fixed servers",
  utilization: "utilization ≤ target",
  response: "response ≤ target",
  serviceLevel: "answered in time ≥ target",
} as const;

function hasServiceLevel(input: CaseInput): boolean {
  return input.options.some((o) => o.workloads.some((w) => w.sizing.kind === "serviceLevel"));
}

/** The Capacity table's column keys (the answer-within column only when a workload has a service-level target). */
export function capacityColumns(input: CaseInput): string[] {
  return [
    "option",
    "workload",
    "rate",
    "service_time",
    "sizing_rule",
    "target",
    ...(hasServiceLevel(input) ? ["answer_within"] : []),
    "servers",
    "utilization",
    "mean_response",
    "mean_wait",
    "p_wait",
    "servers_low",
    "servers_high",
    ...(input.serviceTarget ? ["within_target"] : []),
    "qualifies",
    "check",
  ];
}

/**
 * The Capacity table's columns for times shown in `unit` with number format `tf`; with `unit` null
 * (workloads in units of their own), the time headers name no unit: each cell's format carries it.
 */
function capacityColumnPlans(rateUnit: string, unit: string | null, tf: string | undefined): ColumnPlan[] {
  const inUnit = (header: string): string => (unit === null ? header : `${header} (${unit})`);
  const timeIn = unit ?? "the unit beside each figure";
  return [
    { key: "option", header: "Option" },
    { key: "workload", header: "Workload" },
    {
      key: "rate",
      header: `Rate (${rateUnit}) (input)`,
      description: "λ: arrival rate (IOs, calls) per time unit",
    },
    {
      key: "service_time",
      header: `${inUnit("Service time")} (input)`,
      numFmt: tf,
      description: "S: mean service time (CPU time per IO, handling time per call)",
    },
    { key: "sizing_rule", header: "Sizing rule" },
    {
      key: "target",
      header: "Target (input)",
      description: `Servers for a fixed count; a percentage for utilization or service level; a time in ${timeIn} for response`,
    },
    {
      key: "answer_within",
      header: "Answer within (input)",
      numFmt: tf,
      description: `For a service-level target: the wait allowed, in ${timeIn}`,
    },
    {
      key: "servers",
      header: "Servers",
      numFmt: "0",
      description: "Servers (cores, agents) the sizing rule gives",
    },
    {
      key: "utilization",
      header: "Utilization",
      numFmt: "0.0%",
      description: "λ·S / servers",
    },
    {
      key: "mean_response",
      header: inUnit("Mean response"),
      numFmt: tf,
      description: "S + mean wait (M/M/c, exact Erlang C)",
    },
    {
      key: "mean_wait",
      header: inUnit("Mean wait"),
      numFmt: tf,
      description: "Mean time queued before service",
    },
    {
      key: "p_wait",
      header: "P(wait)",
      numFmt: "0.0%",
      description: "Probability that an arrival waits (Erlang C)",
    },
    {
      key: "servers_low",
      header: "Servers, low load",
      numFmt: "0",
      description: "The same rule at the arrival rate × the Sensitivity table's low load factor",
    },
    {
      key: "servers_high",
      header: "Servers, high load",
      numFmt: "0",
      description: "The same rule at the arrival rate × the high load factor",
    },
    {
      key: "within_target",
      header: "Answered within the target time",
      numFmt: "0.0%",
      description:
        "Achieved service level: the share of arrivals answered within the Service target's time, 1 − P(wait)·e^(−(c − a)·t/S)",
    },
    {
      key: "qualifies",
      header: "Qualifies",
      numFmt: YES_NO,
      description: "Carries its load (λ·S < servers) and, with a service target, answers its share in time",
    },
    {
      key: "check",
      header: "Check",
      width: 18,
      wrap: true,
      description: `Cannot carry its load (λ·S ≥ servers), utilization above the limit in Assumptions, P(wait) above ${PWAIT_WARNING * 100}%`,
    },
  ];
}

/** The times a workload shows (service time, response target, answer within), in its row's unit. */
function rowTimes(w: Workload, scale: number): number[] {
  const shown = (t: number): number => (scale === 1 ? t : t * scale);
  const times = [shown(w.serviceTime)];
  if (w.sizing.kind === "response") times.push(shown(w.sizing.response));
  if (w.sizing.kind === "serviceLevel" && w.sizing.answerWithin > 0) times.push(shown(w.sizing.answerWithin));
  return times;
}

/**
 * The number format of the table's times: enough decimals for the smallest time shown; per row
 * (with the row's unit in it) when the workloads show times in units of their own.
 */
function capacityTimeFormat(ctx: CaseSheet, row?: WorkloadRow): string {
  if (row) return withUnit(timeFormat(rowTimes(row.w, row.time.scale)), row.time.unit);
  return timeFormat(
    ctx.input.options.flatMap((o, i) =>
      o.workloads.flatMap((w, j) => rowTimes(w, workloadTimeUnit(ctx.input, i, j).scale)),
    ),
  );
}

/** One workload's row: where its cells are, and the facts its formulas need. */
export interface WorkloadRow {
  /** Option and workload index. */
  i: number;
  w: Workload;
  wr: WorkloadResult;
  /** A1 address of a column of this row. */
  at: (col: string) => string;
  cells: MmcCells;
  target: string;
  within: string;
  /** Search window of the native sizing formulas, wide enough for the base, low and high loads. */
  width: number;
  /** The unit this row shows its times in (`workloadTimeUnit`). */
  time: TimeUnit;
}

/**
 * A servers cell of one workload at its rate × `factor` (a cell; none for the case's own load):
 * native sizing where possible, else CAPLAB.MMC_STAFF.
 */
export function serversCell(
  ctx: CaseSheet,
  row: WorkloadRow,
  at: { address: string; count: number; factor?: string },
): CellValue {
  const { w, cells, target, within, width } = row;
  const a = w.arrivalRate * w.serviceTime;
  const c = at.factor ? { ...cells, rate: `(${cells.rate}*${at.factor})` } : cells;
  // A time shown in a smaller unit, back in the case's unit for Capacity Lab's functions.
  const scale = row.time.scale;
  const unscaled = (time: string): string => (scale === 1 ? time : `(${time})/${scale}`);
  switch (w.sizing.kind) {
    case "servers":
      return native(target, at.count);
    case "utilization":
      return native(serversForUtilizationFormula(c, target), at.count);
    case "response":
      if (nativeMmc(a, width)) return native(staffForResponseFormula(c, target, width), at.count);
      return ctx.addin(
        at.address,
        `CAPLAB.MMC_STAFF(${c.service},${c.rate},${unscaled(`${target}-${c.shown ?? c.service}`)})`,
        at.count,
      );
    default:
      if (nativeMmc(a, width)) return native(staffForServiceLevelFormula(c, target, within, width), at.count);
      return ctx.addin(at.address, `CAPLAB.MMC_STAFF(${c.service},${c.rate},${target},${unscaled(within)})`, at.count);
  }
}

/** Where workload j of option i is on the Capacity table, and the facts its formulas need. */
export function workloadRow(ctx: CaseSheet, block: PlacedTable, i: number, j: number): WorkloadRow {
  const time = workloadTimeUnit(ctx.input, i, j);
  const scale = time.scale;
  const w = ctx.input.options[i].workloads[j];
  const wr = ctx.result.options[i].workloads[j];
  const at = (col: string): string => ctx.sheet.cell(block, workloadKey(i, j), col);
  const cells: MmcCells = {
    rate: at("rate"),
    service: scale === 1 ? at("service_time") : `(${at("service_time")}/${scale})`,
    shown: at("service_time"),
    servers: at("servers"),
    pWait: at("p_wait"),
    wait: at("mean_wait"),
  };
  const s = ctx.input.sensitivity.load;
  const width = Math.max(
    searchWidth(wr.servers, w.arrivalRate * w.serviceTime),
    searchWidth(wr.serversLowLoad, w.arrivalRate * s.low * w.serviceTime),
    searchWidth(wr.serversHighLoad, w.arrivalRate * s.high * w.serviceTime),
  );
  const within = block.cols.includes("answer_within") ? at("answer_within") : "";
  return { i, w, wr, at, cells, target: at("target"), within, width, time };
}

/** The workload's inputs: rate, service time (a formula when taken from another sheet), sizing rule and target. */
function inputCells(row: WorkloadRow): Record<string, CellValue> {
  const { w } = row;
  const scale = row.time.scale;
  const shown = (t: number): number => (scale === 1 ? t : t * scale);
  const sizing = w.sizing;
  return {
    workload: w.name,
    rate: w.arrivalRateRef ? native(w.arrivalRateRef, w.arrivalRate) : w.arrivalRate,
    service_time: w.serviceTimeRef
      ? native(
          serviceTimeFormula(w.serviceTimeRef, w.serviceTimeRefDivisor) + (scale === 1 ? "" : `*${scale}`),
          shown(w.serviceTime),
        )
      : shown(w.serviceTime),
    sizing_rule: SIZING_TEXT[sizing.kind],
    target:
      sizing.kind === "servers"
        ? sizing.servers
        : sizing.kind === "utilization"
          ? sizing.utilization
          : sizing.kind === "response"
            ? shown(sizing.response)
            : sizing.level,
    answer_within: sizing.kind === "serviceLevel" ? shown(sizing.answerWithin) : null,
  };
}

/** The workload's figures: servers (base, low and high load), utilization, M/M/c response, wait and P(wait), check. */
function figureCells(ctx: CaseSheet, row: WorkloadRow): Record<string, CellValue> {
  const { w, wr, at, cells: c } = row;
  const scale = row.time.scale;
  const shown = (t: number): number => (scale === 1 ? t : t * scale);
  const live = nativeMmc(w.arrivalRate * w.serviceTime, 0);
  const metrics = `CAPLAB.MMC_METRICS(${c.servers},${c.service},${c.rate})`;
  const perScale = scale === 1 ? "" : `*${scale}`;
  const loadAt = (side: "low" | "high"): string => ctx.sheet.cell(ctx.sensitivity, "load", side, true);
  const limit = ctx.sheet.cell(ctx.assumptions, "value", "utilization_limit", true);
  // Made in this order: the add-in formulas are listed in the order their cells are made.
  return {
    servers: serversCell(ctx, row, { address: c.servers, count: wr.servers }),
    servers_low: serversCell(ctx, row, {
      address: at("servers_low"),
      count: wr.serversLowLoad,
      factor: loadAt("low"),
    }),
    servers_high: serversCell(ctx, row, {
      address: at("servers_high"),
      count: wr.serversHighLoad,
      factor: loadAt("high"),
    }),
    utilization: native(utilizationFormula(c), wr.utilization),
    ...serviceCells(ctx, row),
    // A fixed count the load exceeds: the wait grows without bound, #N/A on the sheet (no cached number).
    mean_response: !wr.stable
      ? { formula: responseFormula(c), result: null }
      : live
        ? native(responseFormula(c), shown(wr.meanResponse))
        : ctx.addin(at("mean_response"), `INDEX(${metrics},4,2)${perScale}`, shown(wr.meanResponse)),
    mean_wait: !wr.stable
      ? { formula: waitFormula(c), result: null }
      : live
        ? native(waitFormula(c), shown(wr.meanWait))
        : ctx.addin(at("mean_wait"), `INDEX(${metrics},3,2)${perScale}`, shown(wr.meanWait)),
    p_wait: live ? native(pWaitFormula(c), wr.pWait) : ctx.addin(at("p_wait"), `INDEX(${metrics},2,2)`, wr.pWait),
    check: native(
      checkFormula(c, at("utilization"), limit),
      checkText(!wr.stable, wr.utilization, wr.pWait, ctx.input.utilizationLimit),
    ),
  };
}

/**
 * A workload's achieved service: the share answered within the case's target time (fixed staff
 * too; 0 when it cannot carry its load) and whether it qualifies (1/0), as live formulas.
 */
function serviceCells(ctx: CaseSheet, row: WorkloadRow): Record<string, CellValue> {
  const { wr, at, cells: c } = row;
  const a = `(${c.rate}*${c.service})`;
  const stable = `${c.servers}>${a}`;
  const target = ctx.serviceTarget;
  if (!target || !ctx.input.serviceTarget) return { qualifies: native(`IF(${stable},1,0)`, wr.stable ? 1 : 0) };
  const level = ctx.sheet.cell(target, "value", "level", true);
  const within = ctx.sheet.cell(target, "value", "answer_within", true);
  // The target's time is in the ServiceTarget table's unit; this row's may be another.
  const ts = ctx.shownTime.scale;
  const ratio = ts === row.time.scale ? `${within}/${c.shown ?? c.service}` : `(${within}/${ts})/${c.service}`;
  const share = `IF(${stable},1-${c.pWait}*EXP(-(${c.servers}-${a})*${ratio}),0)`;
  return {
    within_target: native(share, wr.withinTarget ?? 0),
    // Met within 1e-9, as computeCase judges it: a count sized to exactly the target meets it.
    qualifies: native(
      `IF(AND(${stable},${at("within_target")}>=${level}-1E-9),1,0)`,
      wr.stable && (wr.withinTarget ?? 0) >= ctx.input.serviceTarget.level - 1e-9 ? 1 : 0,
    ),
  };
}

/** Where a workload's inputs and figures are, for {@link CaseCells}. */
function workloadCells(ctx: CaseSheet, row: WorkloadRow): CaseCells["workloads"][number][number] {
  const { at, cells: c, w } = row;
  return {
    rate: c.rate,
    serviceTime: c.service,
    servers: c.servers,
    utilization: at("utilization"),
    meanResponse: at("mean_response"),
    meanWait: c.wait,
    pWait: c.pWait,
    check: at("check"),
    timeScale: row.time.scale,
    native:
      nativeMmc(w.arrivalRate * w.serviceTime, 0) && ctx.cells.addinFormulas.every((f) => f.address !== c.servers),
  };
}

/** The Capacity table (placed only when an option has workloads); records every workload's cells in `ctx.cells`. */
export function capacityTable(ctx: CaseSheet): TablePlan | undefined {
  const block = ctx.capacity;
  if (!block) return undefined;
  const common = commonTimeUnit(ctx.input);
  const tf = capacityTimeFormat(ctx);
  const columns = capacityColumnPlans(ctx.input.rateUnit, common?.unit ?? null, common ? tf : undefined).filter((c) =>
    block.cols.includes(c.key),
  );
  const timeCols = ["service_time", "answer_within", "mean_response", "mean_wait"].map((k) =>
    columns.findIndex((c) => c.key === k),
  );
  const rows: CellValue[][] = [];
  const cellFormats: NonNullable<TablePlan["cellFormats"]> = [];
  const targetCol = columns.findIndex((c) => c.key === "target");
  const rateCol = columns.findIndex((c) => c.key === "rate");
  ctx.input.options.forEach((o, i) => {
    const cellsOf: CaseCells["workloads"][number] = [];
    o.workloads.forEach((w, j) => {
      const row = workloadRow(ctx, block, i, j);
      const kind = w.sizing.kind;
      // Times in the row's own unit when the rows differ: the unit in each time cell's format.
      const rowTf = common ? tf : capacityTimeFormat(ctx, row);
      if (!common)
        for (const col of timeCols.filter((c) => c >= 0)) cellFormats.push({ row: rows.length, col, numFmt: rowTf });
      cellFormats.push({
        row: rows.length,
        col: targetCol,
        numFmt: kind === "servers" ? "0" : kind === "response" ? rowTf : "0%",
      });
      cellFormats.push({ row: rows.length, col: rateCol, numFmt: rateFormat(w.arrivalRate) });
      const values: Record<string, CellValue> = {
        option: o.name,
        ...inputCells(row),
        ...figureCells(ctx, row),
      };
      rows.push(columns.map((col) => values[col.key]));
      cellsOf.push(workloadCells(ctx, row));
    });
    ctx.cells.workloads.push(cellsOf);
    ctx.cells.servers.push(cellsOf.map((x) => x.servers));
  });
  return makeTable(ctx, block, columns, rows, { cellFormats });
}
