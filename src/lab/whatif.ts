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
import { columnLetter, FormulaCell, SheetPlan, TablePlan } from "../workbook/plan";
import { ColumnSpec, F, SheetBuilder } from "../workbook/sheet-builder";

/** Years of the forecast table (0 = now). */
export const FORECAST_YEARS = 5;
/** Defaults the planner overwrites. */
export const WHATIF_DEFAULTS = { growthPct: 20, targetCpuPct: 70 };

/** One line's figures from the Model sheet, each with the address of its cell. */
interface LineRefs {
  group: string;
  cores: Cell;
  d: Cell;
  bg: Cell;
  meanS: Cell;
  meanSat: Cell;
  p99S: Cell;
  p99Sat: Cell;
  /** The lightest rated step's IOPS (the default current load) and the knee response (the default SLA). */
  lightest: number | null;
  kneeR: number | null;
}

/** A cell of another table: its address from this sheet, and its value. */
interface Cell {
  ref: string;
  value: number | null;
}

/** The cell of `key` in data row `row` of a placed table on sheet `sheet` ('Model'!F4), and its value. */
function cellOf(sheet: string, t: TablePlan, row: number, key: string): Cell {
  const c = t.columns.findIndex((col) => col.key === key);
  if (c < 0 || !t.at) throw new Error(`internal: no column ${key} in ${t.name}`);
  const v = t.rows[row]?.[c];
  const value = typeof v === "number" ? v : null;
  return { ref: `'${sheet}'!$${columnLetter(t.at.col + c)}$${t.at.row + 2 + row}`, value };
}

/** A formula with its computed result (null result: the cell shows the formula's own answer, e.g. an error). */
function f(formula: string, result: number | string | null): FormulaCell {
  return { formula, result: typeof result === "number" && !Number.isFinite(result) ? null : result };
}

/** Excel's date serial of a UTC day (1900 system: 1899-12-30 is 0). */
function excelDate(d: Date): number {
  return Math.floor(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) / 86400000) + 25569;
}

/** EDATE on a serial date (month arithmetic, clamped to the month's last day). */
function edate(serial: number, months: number): number {
  const d = new Date((serial - 25569) * 86400000);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + months;
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return excelDate(new Date(Date.UTC(y, m, Math.min(d.getUTCDate(), last))));
}

interface InputRow {
  line: LineRefs;
  current: number;
  growth: number;
  target: number;
  sla: number;
  on: "mean" | "p99";
  start: number;
}

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
  const sheet = new SheetBuilder("What-if", [
    "What-if: type your figures in the Inputs table (current load, growth, target CPU, response SLA); the rest follows, as native formulas over the Model sheet's fitted lines (no add-in needed).",
    "CPU IOPS at target = (target CPU % − background %) / (CPU % per IOPS) from the CpuFit line. SLA IOPS = X_max × (1 − S / SLA) from the ResponseFit curve (mean or p99, as chosen). Capacity = the smaller.",
    "Years until crossed = LN(capacity / current) / LN(1 + growth); cores needed = (background cores + load × CPU-ms per IO / 1000) / target; units needed = load / SLA IOPS of one unit like the one tested.",
    "Defaults: current load = the lightest rated step, growth 20 %/year, target CPU 70 %, SLA = 2 × the light-load mean response (the knee). Overwrite them.",
  ]);
  // The Inputs table first: its cells are what the other formulas refer to.
  const inputCols: ColumnSpec<InputRow>[] = [
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
  const inTable = sheet.table("WhatIfInputs", inputCols, inputs);
  const inRef = (i: number, key: string): string => {
    const c = inTable.columns.findIndex((col) => col.key === key);
    return `$${columnLetter((inTable.at as { col: number }).col + c)}$${(inTable.at as { row: number }).row + 2 + i}`;
  };
  // Computed values, row by row, for the cached results.
  const calc = inputs.map((r) => {
    const L = r.line;
    const slope = (L.d.value as number) / ((L.cores.value as number) * 10);
    const cpuIops = (r.target - (L.bg.value as number)) / slope;
    const p99 = r.on === "p99" && L.p99S.ref !== "";
    const s = p99 ? L.p99S.value : L.meanS.value;
    const sat = p99 ? L.p99Sat.value : L.meanSat.value;
    const slaIops = s !== null && sat !== null ? Math.max(0, sat * (1 - s / r.sla)) : null;
    const capacity = slaIops === null ? cpuIops : Math.min(cpuIops, slaIops);
    const years =
      r.current >= capacity
        ? 0
        : r.growth <= 0
          ? "never"
          : Math.log(capacity / r.current) / Math.log(1 + r.growth / 100);
    return { slope, cpuIops, slaIops, capacity, years, meanS: L.meanS.value, meanSat: L.meanSat.value };
  });
  type OutRow = { i: number };
  const slopeF = (i: number): string => `(${lines[i].d.ref}/(${lines[i].cores.ref}*10))`;
  const outCols: ColumnSpec<OutRow>[] = [
    { key: "line", header: "line", numFmt: F.text, keep: true, get: ({ i }) => lines[i].group },
    {
      key: "cpu_iops",
      header: "IOPS at target CPU",
      numFmt: F.iops,
      keep: true,
      description: "(target CPU % − background %) / (CPU % per IOPS) on the CpuFit line",
      get: ({ i }) => f(`(${inRef(i, "target")}-${lines[i].bg.ref})/${slopeF(i)}`, calc[i].cpuIops),
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
  sheet.table(
    "WhatIf",
    outCols,
    lines.map((_, i) => ({ i })),
  );
  // Per line and year: the load, cores and units needed, the tested host's CPU and response.
  type YearRow = { i: number; y: number };
  const yearRows: YearRow[] = lines.flatMap((_, i) =>
    Array.from({ length: FORECAST_YEARS + 1 }, (_u, y) => ({ i, y })),
  );
  const load = (r: YearRow): number => inputs[r.i].current * (1 + inputs[r.i].growth / 100) ** r.y;
  const yearCols: ColumnSpec<YearRow>[] = [
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
          `${lines[r.i].bg.ref}+${ref("load")}*${slopeF(r.i)}`,
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
  // The WhatIf table's cells, for the units formula (same sheet).
  const outTable = sheet.tables[1];
  function outCell(i: number, key: string): string {
    const c = outTable.columns.findIndex((col) => col.key === key);
    return `$${columnLetter((outTable.at as { col: number }).col + c)}$${(outTable.at as { row: number }).row + 2 + i}`;
  }
  sheet.table("WhatIfYears", yearCols, yearRows);
  return sheet.sheet(false);
}
