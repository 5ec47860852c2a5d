/**
 * The What-if sheet: headroom and forecast from the analysis' fitted lines, as native Excel
 * formulas the planner can drive (live in Excel or LibreOffice without the add-in).
 *
 * Inputs per line (protocol/option level): current IOPS, growth % a year, target CPU %, response
 * SLA (ms, on the mean or the p99) and a start date. Outputs: the IOPS at which the CPU reaches the
 * target (from the CpuFit line: (U* − a)/b), the IOPS at which the response reaches the SLA (from
 * the ResponseFit curve R = S/(1 − X/X_max): X = X_max·(1 − S/SLA)), the capacity (the smaller),
 * headroom in IOPS and %, the years and the month when growth crosses it
 * (t = ln(capacity/current)/ln(1 + g)), and per year: the load, the CPU cores needed at the target
 * utilization, the units like the one tested needed for the SLA, the tested host's CPU % and mean R.
 * Formulas refer to the Model sheet's cells by the plan's layout; every cell carries the value the
 * analysis computed.
 */
import { CpuFitGroup } from "./cpu-fit";
import { ResponseFit } from "./response-fit";
import { Cell, cellOf, excelDate, InputRow, LineRefs } from "./whatif-cells";
import {
  capacityOf,
  INPUT_COLUMNS,
  outputColumns,
  WHATIF_INPUTS_TABLE,
  WhatIfContext,
  yearColumns,
  yearRows,
} from "./whatif-tables";
import { columnIndex, SheetPlan, TablePlan, tableCellA1 } from "../workbook/plan";
import { SheetBuilder } from "../workbook/sheet-builder";

export { FORECAST_YEARS } from "./whatif-tables";
/** Defaults the planner overwrites. */
export const WHATIF_DEFAULTS = { growthPct: 20, targetCpuPct: 70 };

/** The sheet's notes: how to use it and what each figure is. */
const WHATIF_NOTES = [
  "What-if: type your figures in the Inputs table (current load, growth, target CPU, response SLA); the rest follows, as native formulas over the Model sheet's fitted lines (no add-in needed).",
  "CPU IOPS at target = (target CPU % − background %) / (CPU % per IOPS) from the CpuFit line. SLA IOPS = X_max × (1 − S / SLA) from the ResponseFit curve (mean or p99, as chosen). Capacity = the smaller.",
  "Years until crossed = LN(capacity / current) / LN(1 + growth); cores needed = (background cores + load × CPU-ms per IO / 1000) / target; units needed = load / SLA IOPS of one unit like the one tested.",
  "Defaults: current load = the lightest rated step, growth 20 %/year, target CPU 70 %, SLA = 2 × the light-load mean response (the knee). Overwrite them.",
];

/**
 * The What-if sheet, or null when no line has both a CPU fit and a response curve.
 *
 * @param model - the Model sheet as built (its CpuFit and ResponseFit tables, placed)
 * @param cpu - the CpuFit rows, in table order
 * @param curves - the ResponseFit rows, in table order
 * @param today - the start date of the forecast (default: today, UTC)
 */
export function whatIfSheet(
  model: SheetPlan,
  cpu: CpuFitGroup[],
  curves: ResponseFit[],
  today: Date = new Date(),
): SheetPlan | null {
  const fitTable = model.tables.find((t) => t.name === "CpuFit");
  const respTable = model.tables.find((t) => t.name === "ResponseFit");
  if (!fitTable || !respTable) return null;
  const lines: LineRefs[] = [];
  cpu.forEach((g, i) => {
    const mean = curves.findIndex((c) => c.group === g.group && c.metric === "mean");
    const p99 = curves.findIndex((c) => c.group === g.group && c.metric === "p99");
    if (!g.marginalMs || !g.backgroundPct || mean < 0 || !curves[mean].fit) return;
    const at = (k: number, key: string): Cell =>
      k < 0 ? { ref: "", value: null } : cellOf(model.name, respTable, k, key);
    const m = curves[mean];
    lines.push({
      group: g.group,
      cores: cellOf(model.name, fitTable, i, "cores"),
      d: cellOf(model.name, fitTable, i, "d"),
      bg: cellOf(model.name, fitTable, i, "bg"),
      meanS: at(mean, "s"),
      meanSat: at(mean, "sat"),
      p99S: at(p99, "s"),
      p99Sat: at(p99, "sat"),
      lightest: m.used.length > 0 ? (m.used[0].values.iops as number) : null,
      kneeR: m.fit?.knee.response ?? null,
    });
  });
  if (lines.length === 0) return null;
  const start = excelDate(today);
  const inputs: InputRow[] = lines.map((line) => ({
    line,
    current: Math.round(line.lightest ?? 1000),
    growth: WHATIF_DEFAULTS.growthPct,
    target: WHATIF_DEFAULTS.targetCpuPct,
    sla: Number((line.kneeR ?? 1).toPrecision(3)),
    on: "mean",
    start,
  }));
  const sheet = new SheetBuilder("What-if", WHATIF_NOTES);
  // The Inputs table first: its cells are what the other formulas refer to.
  const inTable = sheet.table(WHATIF_INPUTS_TABLE, INPUT_COLUMNS, inputs);
  const ctx: WhatIfContext = {
    lines,
    inputs,
    calc: inputs.map(capacityOf),
    inRef: (i, key) => tableCellA1(inTable, key, i, { absolute: true }),
  };
  const outTable = sheet.table(
    "WhatIf",
    outputColumns(ctx),
    lines.map((_, i) => ({ i })),
  );
  // Per line and year: the load, cores and units needed, the tested host's CPU and response.
  sheet.table("WhatIfYears", yearColumns(ctx, outTable), yearRows(lines));
  return sheet.sheet(false);
}

/** One line's What-if figures as the sheet shows them (the defaults of its Inputs table). */
export interface WhatIfFigures {
  group: string;
  currentIops: number;
  growthPctPerYear: number;
  targetCpuPct: number;
  responseSlaMs: number;
  slaOn: "mean" | "p99";
  cpuIops: number | null;
  slaIops: number | null;
  capacityIops: number | null;
  limitedBy: string;
  headroomIops: number | null;
  headroomPct: number | null;
  /** Years until compound growth crosses the capacity (0: already over; null: never, no growth). */
  yearsUntilCrossed: number | null;
  /** The month it is crossed, "YYYY-MM" (null: never), and its year. */
  crossedIn: string | null;
  yearCrossed: number | null;
}

/**
 * The What-if sheet's figures per line, read from its tables' cached results (the values its
 * formulas show with the default inputs): nothing is computed again here.
 *
 * @param sheet - the sheet {@link whatIfSheet} built
 */
export function whatIfFigures(sheet: SheetPlan): WhatIfFigures[] {
  const inputs = sheet.tables.find((t) => t.name === "WhatIfInputs");
  const out = sheet.tables.find((t) => t.name === "WhatIf");
  if (!inputs || !out) return [];
  const value = (t: TablePlan, row: number, key: string): unknown => {
    const v = t.rows[row]?.[columnIndex(t, key)];
    return v !== null && typeof v === "object" && "result" in v ? v.result : v;
  };
  const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
  return out.rows.map((_, i) => {
    const crossed = num(value(out, i, "crossed"));
    const date = crossed === null ? null : new Date((crossed - 25569) * 86400000);
    return {
      group: String(value(out, i, "line")),
      currentIops: num(value(inputs, i, "current")) ?? 0,
      growthPctPerYear: num(value(inputs, i, "growth")) ?? 0,
      targetCpuPct: num(value(inputs, i, "target")) ?? 0,
      responseSlaMs: num(value(inputs, i, "sla")) ?? 0,
      slaOn: value(inputs, i, "on") === "p99" ? "p99" : "mean",
      cpuIops: num(value(out, i, "cpu_iops")),
      slaIops: num(value(out, i, "sla_iops")),
      capacityIops: num(value(out, i, "capacity")),
      limitedBy: String(value(out, i, "limit")),
      headroomIops: num(value(out, i, "headroom")),
      headroomPct: num(value(out, i, "headroom_pct")),
      yearsUntilCrossed: num(value(out, i, "years")),
      crossedIn: date ? `${date.getUTCFullYear()}-${String(date.getUTCMonth() + 1).padStart(2, "0")}` : null,
      yearCrossed: date ? date.getUTCFullYear() : null,
    };
  });
}
