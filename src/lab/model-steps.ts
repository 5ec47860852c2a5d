/** The Model sheet's per-step table (utilization law, Little's law, the step's place on the CPU line, M/M/c at the servers the planner names) and its ModelInputs table. */
import { isDomainError } from "../core/errors";
import { mmcMetrics } from "../core/mmc";
import { cpuBasis, CPU_CENSOR_PCT, CpuFits, StepFitRole } from "./cpu-fit";
import { LabStep } from "./data";
import { AddinFormulaCell, CellValue } from "../workbook/plan";
import { ColumnSpec, F, formula, num, NUM } from "../workbook/sheet-builder";

export interface ModelRow {
  step: LabStep;
  /** CPU utilization basis: "host" (cpu_busy_pct × cores) or "tool" (the generator's CPU). */
  basis: "host" | "tool" | null;
  busyPct: number | null;
  cores: number | null;
  busyCores: number | null;
  dMs: number | null;
  xMax: number | null;
  xr: number | null;
  xs: number | null;
  mmc: { c: number; sMs: number; rho: number; predicted: number | null; note: string } | null;
  /** The step's place in the CPU line of its protocol/option level. */
  fit: StepFitRole | null;
}

export function modelRow(s: LabStep, fits: CpuFits, servers: number | null): ModelRow {
  const x = s.values.iops;
  const { basis, busyPct, cores } = cpuBasis(s);
  const busyCores = busyPct !== null && cores !== null ? (busyPct / 100) * cores : null;
  const dMs = busyCores !== null && x !== null && x > 0 ? (busyCores / x) * 1000 : null;
  const xMax = dMs !== null && dMs > 0 && cores !== null ? cores / (dMs / 1000) : null;
  const r = s.values.response_ms_avg;
  const sv = s.values.service_ms_avg;
  const xr = x !== null && r !== null ? (x * r) / 1000 : null;
  const xs = x !== null && sv !== null ? (x * sv) / 1000 : null;
  const mmc = mmcOf(servers, sv, x);
  return { step: s, basis, busyPct, cores, busyCores, dMs, xMax, xr, xs, mmc, fit: fits.roles.get(s) ?? null };
}

/** M/M/c with c = the servers the planner names, S = service avg (ms), λ = X; null when an input is missing. */
function mmcOf(c: number | null, sv: number | null, x: number | null): ModelRow["mmc"] {
  if (c === null || sv === null || x === null || !(sv > 0) || !(x > 0) || !Number.isInteger(c) || c < 1) return null;
  const rho = (x * (sv / 1000)) / c;
  try {
    const m = mmcMetrics(c, sv / 1000, x);
    return { c, sMs: sv, rho, predicted: m.meanResponse * 1000, note: "" };
  } catch (e) {
    if (!isDomainError(e)) throw e;
    return { c, sMs: sv, rho, predicted: null, note: `no steady state: ${e.message}` };
  }
}

/** Which step, its throughput, and its CPU by the utilization law (U = busy % × cores, D = U/X). */
function cpuColumns(): ColumnSpec<ModelRow>[] {
  return [
    { key: "source", header: "source", numFmt: F.text, get: (m) => m.step.source, keep: true },
    { key: "host", header: "host", numFmt: F.text, get: (m) => m.step.host },
    { key: "step", header: "step", numFmt: F.text, get: (m) => m.step.step, keep: true },
    { key: "category", header: "category", numFmt: F.text, get: (m) => m.step.category, keep: true },
    {
      key: "x",
      header: "X IOPS",
      numFmt: F.iops,
      get: (m) => num(m.step.values.iops),
      keep: true,
      description: "Throughput X",
    },
    {
      key: "basis",
      header: "CPU basis",
      numFmt: F.text,
      description:
        "host: CPU busy % × cores from /proc/stat; tool: the load generator's own CPU (fio usr+sys), one CPU",
      get: (m) => m.basis ?? "",
    },
    {
      key: "busy",
      header: "CPU %",
      numFmt: F.pct,
      get: (m) => num(m.busyPct),
      description: "Busy % (host: of all cores; tool: of one CPU)",
    },
    { key: "cores", header: "cores", numFmt: F.int, get: (m) => num(m.cores), description: "CPUs the % refers to" },
    {
      key: "u",
      header: "U busy cores",
      numFmt: F.ratio,
      description: "Utilization in cores: CPU % / 100 × cores",
      get: (m, ref) => formula(`${ref("busy")}/100*${ref("cores")}`, m.busyCores),
    },
    {
      key: "d",
      header: "U/X CPU-ms per IO (includes background work)",
      numFmt: F.d,
      description:
        "Utilization law D = U / X of this step alone, in CPU-milliseconds per IO: ALL busy CPU, background work included, over this step's IOPS, so it overstates the cost of an IO at low load. The cost of one more IO is the fitted marginal cost above.",
      get: (m, ref) => formula(`${ref("u")}/${ref("x")}*1000`, m.dMs),
    },
    {
      key: "d_us",
      header: "U/X CPU-µs per IO (includes background work)",
      numFmt: "0.00",
      description: "The same U/X in CPU-microseconds per IO",
      get: (m, ref) => formula(`${ref("d")}*1000`, m.dMs === null ? null : m.dMs * 1000),
    },
    {
      key: "xmax",
      header: "cores ÷ (U/X) IOPS",
      numFmt: F.iops,
      description:
        "cores / D at this step's U/X: the IOPS at which the CPUs would be 100 % busy if every IO cost this step's U/X, background included (a pessimistic bound; the fitted CPU saturation is above)",
      get: (m, ref) => formula(`${ref("cores")}/(${ref("d")}/1000)`, m.xMax),
    },
  ];
}

/** The step's place on its level's fitted CPU line, with the line's influence measures. */
function fitRoleColumns(): ColumnSpec<ModelRow>[] {
  return [
    {
      key: "fit_role",
      header: "on CPU line",
      numFmt: F.text,
      description: `used: a point of its level's fitted CPU line; censored: CPU ≥ ${CPU_CENSOR_PCT} % (saturated, left off the line); excluded: no CPU figure or another CPU basis`,
      get: (m) => (m.fit ? (m.fit.role === "censored" ? `censored (≥ ${CPU_CENSOR_PCT} %)` : m.fit.role) : ""),
    },
    {
      key: "leverage",
      header: "leverage h",
      numFmt: F.ratio,
      description:
        "Leverage of the step in the CPU line, 1/n + (X − X̄)²/Sxx; above 4/n it steers the line (Hoaglin & Welsch)",
      get: (m) => num(m.fit?.leverage),
    },
    {
      key: "rstudent",
      header: "studentized residual",
      numFmt: F.ratio,
      description: "Externally studentized residual of the step's CPU %; beyond ±3 the step lies off the line",
      get: (m) => num(m.fit?.studentized),
    },
    {
      key: "cooks",
      header: "Cook's D",
      numFmt: F.ratio,
      description: "Cook's distance: how far the line moves without this step; above 1 the step dominates it",
      get: (m) => num(m.fit?.cooks),
    },
  ];
}

/** Response and service times, the generator's lag, and the wait for a slot. */
function responseColumns(): ColumnSpec<ModelRow>[] {
  return [
    {
      key: "r",
      header: "R avg ms",
      numFmt: F.ms,
      get: (m) => num(m.step.values.response_ms_avg),
      description: "Measured mean response time",
    },
    {
      key: "s",
      header: "S avg ms",
      numFmt: F.ms,
      get: (m) => num(m.step.values.service_ms_avg),
      description: "Measured mean service time",
    },
    {
      key: "lag",
      header: "iogen lag avg ms",
      numFmt: F.ms,
      get: (m) => num(m.step.values.iogen_lag_ms_avg),
      description:
        "iogen's own launch lag (launch − scheduled time of the IOs that found a free slot): the generator's lateness, part of R but not of the storage",
    },
    {
      key: "wait",
      header: "R − S − lag ms (waiting for a slot)",
      numFmt: F.ms,
      description:
        "The rest of the response time: waiting for one of the generator's IO slots (queue depth), i.e. queueing in front of the storage as the generator sees it",
      get: (m, ref) => {
        const r = m.step.values.response_ms_avg;
        const sv = m.step.values.service_ms_avg;
        const lag = m.step.values.iogen_lag_ms_avg;
        return lag === null
          ? null
          : formula(`${ref("r")}-${ref("s")}-${ref("lag")}`, r !== null && sv !== null ? r - sv - lag : null);
      },
    },
  ];
}

/** Little's law over the step's throughput and times, and the time before launch. */
function littleColumns(): ColumnSpec<ModelRow>[] {
  return [
    {
      key: "xr",
      header: "X·R in system",
      numFmt: F.ratio,
      description: "Little's law: mean IOs in the system (queued for a slot + in service) = X × R",
      get: (m, ref) => formula(`${ref("x")}*${ref("r")}/1000`, m.xr),
    },
    {
      key: "xs",
      header: "X·S in service",
      numFmt: F.ratio,
      description: "Little's law on the service part: mean IOs launched and not yet complete = X × S",
      get: (m, ref) => formula(`${ref("x")}*${ref("s")}/1000`, m.xs),
    },
    {
      key: "inflight",
      header: "avg in flight",
      numFmt: F.ratio,
      description: "Measured time-average of IOs in flight",
      get: (m) => num(m.step.values.avg_in_flight),
    },
    {
      key: "little",
      header: "in flight ÷ X·S",
      numFmt: F.ratio,
      description: "Little's law check: close to 1 when the measured in-flight average agrees with X × S",
      get: (m, ref) => {
        const n = m.step.values.avg_in_flight;
        return formula(`${ref("inflight")}/${ref("xs")}`, n !== null && m.xs !== null && m.xs > 0 ? n / m.xs : null);
      },
    },
    {
      key: "waiting",
      header: "X·R − in flight",
      numFmt: F.ratio,
      description:
        "Mean IOs waiting for a free slot (Little's law on the wait): X·R counts every IO from its scheduled time, the in-flight average only launched ones",
      get: (m, ref) => {
        const n = m.step.values.avg_in_flight;
        return formula(`${ref("xr")}-${ref("inflight")}`, n !== null && m.xr !== null ? m.xr - n : null);
      },
    },
    {
      key: "prelaunch",
      header: "R − S before launch ms",
      numFmt: F.ms,
      description:
        "Time from an IO's scheduled time to its launch: waiting for a free generator slot plus the generator's own lateness (not storage time)",
      get: (m, ref) => {
        const r = m.step.values.response_ms_avg;
        const sv = m.step.values.service_ms_avg;
        return formula(`${ref("r")}-${ref("s")}`, r !== null && sv !== null ? r - sv : null);
      },
    },
    {
      key: "lag",
      header: "of which iogen launch lag ms",
      numFmt: F.ms,
      description:
        "iogen's own launch lag (iogen_lag_ms_avg): how late the generator itself launched on-time IOs; part of R, not of the storage's queueing",
      get: (m) => num(m.step.values.iogen_lag_ms_avg),
    },
  ];
}

/** M/M/c at the c storage servers the planner names in ModelInputs (blank while c is blank). */
function mmcColumns(inputs: ModelInputCells): ColumnSpec<ModelRow>[] {
  return [
    {
      key: "rho",
      header: "ρ = X·S/c",
      numFmt: F.ratio,
      keep: true,
      description: "Utilization of the c storage servers named in ModelInputs (blank while c is blank)",
      get: (m, ref) => ({
        formula: `IF(${inputs.servers}="","",${ref("x")}*${ref("s")}/1000/${inputs.servers})`,
        result: m.mmc ? m.mmc.rho : "",
      }),
    },
    {
      key: "pred",
      header: "M/M/c R ms",
      numFmt: F.ms,
      keep: true,
      description:
        "Mean response of an M/M/c queue with c = the storage servers named in ModelInputs, S = the step's measured service avg, λ = X (blank while c is blank; #NUM! when ρ ≥ 1)",
      get: (m, ref): CellValue => {
        if (m.mmc?.predicted === null) return NUM;
        // Live in Excel: the add-in's MMC_RESPONSE on the named c and this row's S (s) and X (IOPS).
        const cell: AddinFormulaCell = {
          addinFormula: `IF(${inputs.servers}="","",CAPLAB.MMC_RESPONSE(${inputs.servers},${ref("s")}/1000,${ref("x")})*1000)`,
          result: m.mmc ? m.mmc.predicted : "",
        };
        return cell;
      },
    },
    {
      key: "ratio",
      header: "measured ÷ M/M/c",
      numFmt: F.ratio,
      keep: true,
      description: "Measured R over predicted R (1 = queueing at c storage servers explains the response time)",
      get: (m, ref) => {
        const p = m.mmc?.predicted ?? null;
        const r = m.step.values.response_ms_avg;
        return {
          formula: `IF(ISNUMBER(${ref("pred")}),${ref("r")}/${ref("pred")},"")`,
          result: p !== null && r !== null && p > 0 ? r / p : "",
        };
      },
    },
    { key: "note", header: "model note", numFmt: F.text, get: (m) => m.mmc?.note ?? "" },
  ];
}

/** The Model table's columns; the M/M/c ones only when the steps have the X and S they need. */
export function modelColumns(inputs: ModelInputCells, rows: readonly ModelRow[]): ColumnSpec<ModelRow>[] {
  // The M/M/c columns are kept (blank until c is typed) when the steps have the X and S they need.
  const mmcInputs = rows.some((m) => m.step.values.iops !== null && m.step.values.service_ms_avg !== null);
  const withR = rows.some((m) => m.step.values.response_ms_avg !== null);
  const cols = [...cpuColumns(), ...fitRoleColumns(), ...responseColumns(), ...littleColumns(), ...mmcColumns(inputs)];
  return cols.filter((c) => mmcInputs || !MMC_KEYS.includes(c.key)).filter((c) => withR || c.key !== "ratio");
}

/** The per-step M/M/c columns (kept blank until the planner names c; left out when no step has X and S). */
const MMC_KEYS = ["rho", "pred", "ratio"];

/** The Model sheet's input cells other columns refer to (absolute A1 on the same sheet). */
export interface ModelInputCells {
  /** Storage servers c for the per-step M/M/c; blank: no M/M/c. */
  servers: string;
}

/** Name of the Model sheet's input table (the planner types the storage's servers there). */
export const MODEL_INPUTS_TABLE = "ModelInputs";

/**
 * The ModelInputs table: one row per input, the value in the second column. What an input means is
 * the value column's note and the sheet's notes (a long text here would widen the column the
 * CpuFit table shares).
 */
export function modelInputColumns(): ColumnSpec<{ name: string; value: number | null }>[] {
  return [
    { key: "input", header: "input", numFmt: F.text, keep: true, get: (r) => r.name },
    {
      key: "value",
      header: "value",
      numFmt: F.int,
      keep: true,
      description:
        "Storage servers for the per-step M/M/c (blank: no M/M/c; 1 = a single-server model). Not the generator's queue depth",
      get: (r) => num(r.value),
    },
  ];
}
