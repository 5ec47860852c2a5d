/** The What-if sheet's tables: the planner's Inputs, the capacity and headroom per line (WhatIf), and the forecast per line and year (WhatIfYears). */
import { edate, f, InputRow, LineRefs } from "./whatif-cells";
import { TablePlan, tableCellA1 } from "../workbook/plan";
import { ColumnSpec, F } from "../workbook/sheet-builder";

/** Years of the forecast table (0 = now). */
export const FORECAST_YEARS = 5;

/** The name of the planner's Inputs table (a case refers to its current-load and growth cells). */
export const WHATIF_INPUTS_TABLE = "WhatIfInputs";

/** What the formulas of the WhatIf and WhatIfYears tables refer to. */
export interface WhatIfContext {
  lines: LineRefs[];
  inputs: InputRow[];
  /** The values computed here for each line ({@link capacityOf}). */
  calc: Capacity[];
  /** The absolute address of an input cell of line `i`. */
  inRef: (i: number, key: string) => string;
}

/** One line's capacity, computed here for the cached results. */
export interface Capacity {
  slope: number;
  cpuIops: number;
  slaIops: number | null;
  capacity: number;
  years: number | string;
  meanS: number | null;
  meanSat: number | null;
}

/** The Inputs table's columns: the planner's figures for each line. */
export const INPUT_COLUMNS: ColumnSpec<InputRow>[] = [
  { key: "line", header: "line", numFmt: F.text, keep: true, get: (r) => r.line.group },
  {
    key: "current",
    header: "current IOPS",
    numFmt: F.iops,
    keep: true,
    description: "Today's load (type yours)",
    get: (r) => r.current,
  },
  {
    key: "growth",
    header: "growth % per year",
    numFmt: F.pct,
    keep: true,
    description: "Compound growth of the load",
    get: (r) => r.growth,
  },
  {
    key: "target",
    header: "target CPU %",
    numFmt: F.pct,
    keep: true,
    description: "CPU busy % not to exceed",
    get: (r) => r.target,
  },
  {
    key: "sla",
    header: "response SLA ms",
    numFmt: F.ms,
    keep: true,
    description: "Response time not to exceed",
    get: (r) => r.sla,
  },
  {
    key: "on",
    header: "SLA on (mean or p99)",
    numFmt: F.text,
    keep: true,
    description: "Which response time the SLA is about: mean or p99",
    get: (r) => r.on,
  },
  {
    key: "start",
    header: "start date",
    numFmt: "yyyy-mm-dd",
    keep: true,
    description: "Year 0 of the forecast",
    get: (r) => r.start,
  },
];

/** A line's CPU and SLA capacity, the smaller of the two, and the years until growth crosses it. */
export function capacityOf(r: InputRow): Capacity {
  const L = r.line;
  const slope = (L.d.value as number) / ((L.cores.value as number) * 10);
  const cpuIops = (r.target - (L.bg.value as number)) / slope;
  const p99 = r.on === "p99" && L.p99S.ref !== "";
  const s = p99 ? L.p99S.value : L.meanS.value;
  const sat = p99 ? L.p99Sat.value : L.meanSat.value;
  const slaIops = s !== null && sat !== null ? Math.max(0, sat * (1 - s / r.sla)) : null;
  const capacity = slaIops === null ? cpuIops : Math.min(cpuIops, slaIops);
  const years =
    r.current >= capacity ? 0 : r.growth <= 0 ? "never" : Math.log(capacity / r.current) / Math.log(1 + r.growth / 100);
  return { slope, cpuIops, slaIops, capacity, years, meanS: L.meanS.value, meanSat: L.meanSat.value };
}

type OutRow = { i: number };

/** The CPU % per IOPS of line `i`, as a formula over the Model sheet's cells. */
function slopeF(lines: LineRefs[], i: number): string {
  return `(${lines[i].d.ref}/(${lines[i].cores.ref}*10))`;
}

/** The WhatIf table's columns: capacity at the CPU target and at the SLA, headroom, and when growth crosses it. */
export function outputColumns(ctx: WhatIfContext): ColumnSpec<OutRow>[] {
  const { lines, inputs, calc, inRef } = ctx;
  return [
    { key: "line", header: "line", numFmt: F.text, keep: true, get: ({ i }) => lines[i].group },
    {
      key: "cpu_iops",
      header: "IOPS at target CPU",
      numFmt: F.iops,
      keep: true,
      description: "(target CPU % − background %) / (CPU % per IOPS) on the CpuFit line",
      get: ({ i }) => f(`(${inRef(i, "target")}-${lines[i].bg.ref})/${slopeF(lines, i)}`, calc[i].cpuIops),
    },
    {
      key: "sla_iops",
      header: "IOPS at the SLA",
      numFmt: F.iops,
      keep: true,
      description:
        "X_max × (1 − S / SLA) on the fitted response curve (mean or p99); 0 when the SLA is below the light-load response",
      get: ({ i }) =>
        f(
          lines[i].p99S.ref === ""
            ? `MAX(0,${lines[i].meanSat.ref}*(1-${lines[i].meanS.ref}/${inRef(i, "sla")}))`
            : `MAX(0,IF(${inRef(i, "on")}="p99",${lines[i].p99Sat.ref}*(1-${lines[i].p99S.ref}/${inRef(i, "sla")}),${lines[i].meanSat.ref}*(1-${lines[i].meanS.ref}/${inRef(i, "sla")})))`,
          calc[i].slaIops,
        ),
    },
    {
      key: "capacity",
      header: "capacity IOPS",
      numFmt: F.iops,
      keep: true,
      description: "The smaller of the two",
      get: (_r, ref) => f(`MIN(${ref("cpu_iops")},${ref("sla_iops")})`, calc[_r.i].capacity),
    },
    {
      key: "limit",
      header: "limited by",
      numFmt: F.text,
      keep: true,
      description: "Which limit is reached first",
      get: (r, ref) =>
        f(
          `IF(${ref("cpu_iops")}<=${ref("sla_iops")},"CPU target","response SLA")`,
          calc[r.i].slaIops === null || calc[r.i].cpuIops <= calc[r.i].slaIops! ? "CPU target" : "response SLA",
        ),
    },
    {
      key: "headroom",
      header: "headroom IOPS",
      numFmt: F.iops,
      keep: true,
      description: "Capacity − current load (negative: over capacity now)",
      get: (r, ref) => f(`${ref("capacity")}-${inRef(r.i, "current")}`, calc[r.i].capacity - inputs[r.i].current),
    },
    {
      key: "headroom_pct",
      header: "headroom % of capacity",
      numFmt: "0.0%",
      keep: true,
      description: "1 − current / capacity",
      get: (r, ref) => f(`1-${inRef(r.i, "current")}/${ref("capacity")}`, 1 - inputs[r.i].current / calc[r.i].capacity),
    },
    {
      key: "years",
      header: "years until crossed",
      numFmt: "0.0",
      keep: true,
      description:
        "LN(capacity / current) / LN(1 + growth): when compound growth reaches the capacity (0: already; never: no growth)",
      get: (r, ref) =>
        f(
          `IF(${inRef(r.i, "current")}>=${ref("capacity")},0,IF(${inRef(r.i, "growth")}<=0,"never",LN(${ref("capacity")}/${inRef(r.i, "current")})/LN(1+${inRef(r.i, "growth")}/100)))`,
          calc[r.i].years,
        ),
    },
    {
      key: "crossed",
      header: "crossed in",
      numFmt: "mmm yyyy",
      keep: true,
      description: "The month the load crosses the capacity: EDATE(start, whole months)",
      get: (r, ref) => {
        const y = calc[r.i].years;
        return f(
          `IF(ISNUMBER(${ref("years")}),EDATE(${inRef(r.i, "start")},INT(12*${ref("years")})),"never")`,
          typeof y === "number" ? edate(inputs[r.i].start, Math.floor(12 * y)) : "never",
        );
      },
    },
  ];
}

type YearRow = { i: number; y: number };

/** The WhatIfYears rows: every line, years 0 … {@link FORECAST_YEARS}. */
export function yearRows(lines: LineRefs[]): YearRow[] {
  return lines.flatMap((_, i) => Array.from({ length: FORECAST_YEARS + 1 }, (_u, y) => ({ i, y })));
}

/** The WhatIfYears table's columns: the load, the cores and units needed, the tested host's CPU and mean R. */
export function yearColumns(ctx: WhatIfContext, outTable: TablePlan): ColumnSpec<YearRow>[] {
  const { lines, inputs, calc, inRef } = ctx;
  const load = (r: YearRow): number => inputs[r.i].current * (1 + inputs[r.i].growth / 100) ** r.y;
  // The WhatIf table's cells, for the units formula (same sheet).
  const outCell = (i: number, key: string): string => tableCellA1(outTable, key, i, { absolute: true });
  return [
    { key: "line", header: "line", numFmt: F.text, keep: true, get: (r) => lines[r.i].group },
    { key: "year", header: "year", numFmt: F.int, keep: true, get: (r) => r.y },
    {
      key: "load",
      header: "IOPS",
      numFmt: F.iops,
      keep: true,
      description: "current × (1 + growth)^year",
      get: (r, ref) => f(`${inRef(r.i, "current")}*(1+${inRef(r.i, "growth")}/100)^${ref("year")}`, load(r)),
    },
    {
      key: "cores",
      header: "CPU cores needed at target",
      numFmt: F.int,
      keep: true,
      description:
        "ROUNDUP((background % × cores + IOPS × CPU-ms per IO / 1000) / target CPU %): the background work stays, the IO work grows",
      get: (r, ref) => {
        const L = lines[r.i];
        const v = Math.ceil(
          (((L.bg.value as number) / 100) * (L.cores.value as number) + (load(r) * (L.d.value as number)) / 1000) /
            (inputs[r.i].target / 100) -
            1e-9,
        );
        return f(
          `ROUNDUP((${L.bg.ref}/100*${L.cores.ref}+${ref("load")}*${L.d.ref}/1000)/(${inRef(r.i, "target")}/100),0)`,
          v,
        );
      },
    },
    {
      key: "units",
      header: "units needed for the SLA",
      numFmt: F.int,
      keep: true,
      description: "ROUNDUP(IOPS / IOPS at the SLA of one unit like the one tested), load balanced",
      get: (r, ref) => {
        const sla = calc[r.i].slaIops;
        const v = sla !== null && sla > 0 ? Math.ceil(load(r) / sla - 1e-9) : null;
        return v === null ? null : f(`ROUNDUP(${ref("load")}/${outCell(r.i, "sla_iops")},0)`, v);
      },
    },
    {
      key: "cpu_pct",
      header: "CPU % of the tested host",
      numFmt: F.pct,
      keep: true,
      description: "background % + IOPS × CPU % per IOPS (above 100: it would not keep up)",
      get: (r, ref) =>
        f(
          `${lines[r.i].bg.ref}+${ref("load")}*${slopeF(lines, r.i)}`,
          (lines[r.i].bg.value as number) + load(r) * calc[r.i].slope,
        ),
    },
    {
      key: "r_mean",
      header: "mean R on one unit ms",
      numFmt: F.ms,
      keep: true,
      description: "S / (1 − IOPS / X_max) on the fitted mean-response curve; over capacity at or beyond X_max",
      get: (r, ref) => {
        const L = lines[r.i];
        const x = load(r);
        const S = L.meanS.value as number;
        const sat = L.meanSat.value as number;
        return f(
          `IF(${ref("load")}<${L.meanSat.ref},${L.meanS.ref}/(1-${ref("load")}/${L.meanSat.ref}),"over capacity")`,
          x < sat ? S / (1 - x / sat) : "over capacity",
        );
      },
    },
  ];
}
