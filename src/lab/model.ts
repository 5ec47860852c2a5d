/**
 * The Model sheet: utilization law, Little's law, saturation and M/M/c per step, the CPU line
 * fitted over the steps, and the response-vs-throughput and CPU-vs-IOPS charts.
 */
import { isDomainError } from "../core/errors";
import { mmcMetrics } from "../core/mmc";
import { cpuBasis, CPU_CENSOR_PCT, CpuFitGroup, cpuFits, CpuFits, StepFitRole } from "./cpu-fit";
import { LabStep } from "./data";
import { KNEE_FACTOR, ResponseFit } from "./response-fit";
import {
  AddinFormulaCell,
  cellA1,
  CellValue,
  ChartPlan,
  rowBelow,
  SeriesPlan,
  SheetPlan,
  TableLayout,
  TablePlan,
  workbookLayout,
} from "../workbook/plan";
import { ColumnSpec, F, fmt, formula, num, NUM, series, SheetBuilder } from "../workbook/sheet-builder";

interface ModelRow {
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

function modelRow(s: LabStep, fits: CpuFits, servers: number | null): ModelRow {
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

function modelColumns(inputs: ModelInputCells, rows: readonly ModelRow[]): ColumnSpec<ModelRow>[] {
  // The M/M/c columns are kept (blank until c is typed) when the steps have the X and S they need.
  const mmcInputs = rows.some((m) => m.step.values.iops !== null && m.step.values.service_ms_avg !== null);
  const withR = rows.some((m) => m.step.values.response_ms_avg !== null);
  const cols: ColumnSpec<ModelRow>[] = [
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
  return cols.filter((c) => mmcInputs || !MMC_KEYS.includes(c.key)).filter((c) => withR || c.key !== "ratio");
}

/** The per-step M/M/c columns (kept blank until the planner names c; left out when no step has X and S). */
const MMC_KEYS = ["rho", "pred", "ratio"];

/** The Model sheet's input cells other columns refer to (absolute A1 on the same sheet). */
interface ModelInputCells {
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
function modelInputColumns(): ColumnSpec<{ name: string; value: number | null }>[] {
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

/** The Model sheet's notes. */
function modelNotes(): string[] {
  return [
    "Marginal CPU cost per IO (table CpuFit): CPU % = a + b·IOPS fitted by least squares over each protocol/option level's steps below " +
      `${CPU_CENSOR_PCT} % CPU, with 95 % intervals. b is the cost of one more IO (CPU-ms per IO = b/100 × cores × 1000 = cores per 1000 IOPS); ` +
      "a is the background CPU at zero IOPS; the CPU saturation IOPS is where the line reaches 100 % (Fieller's interval). This, not U/X per step, is the CPU time per IO a business case should use.",
    `Knee and saturation (table ResponseFit): R = S/(1 − X/X_max) fitted to the rated steps at their target (weighted least squares on 1/R), for the mean and the p99 response; the knee is where R = ${KNEE_FACTOR} × S, X = X_max/2; ` +
      `the model-free knee is the largest measured IOPS whose R is at most ${KNEE_FACTOR} × the lightest step's.`,
    "Per step (table Model): U/X = all busy CPU over the step's IOPS, background work included; cores ÷ (U/X) is the pessimistic IOPS bound it implies. Little's law: N = X·R.",
    "Before launch: R − S is the time from an IO's scheduled time to its launch (waiting for a generator slot plus iogen's own launch lag, shown apart): generator time, not storage queueing.",
    "M/M/c (table ModelInputs): type the storage's servers c (e.g. the array's front-end ports or controllers that serve IOs in parallel) to see each step's M/M/c prediction with S = its measured mean service time and λ = its IOPS; blank (the default) shows none. " +
      "The generator's queue depth is not c: it counts iogen's slots, and waiting for them is generator time.",
  ];
}

/** The Summary's headline on the CPU cost: one sentence per fitted level. */
export function cpuHeadline(groups: CpuFitGroup[]): string {
  if (groups.length === 0) return "CPU cost per IO: no step has CPU figures.";
  return groups
    .map((g) => {
      const who = groups.length > 1 || g.label ? ` (${g.group})` : "";
      if (!g.marginalMs || !g.backgroundPct) return `CPU cost per IO${who}: ${g.verdict}`;
      const d = g.marginalMs;
      const sat = g.saturationIops;
      const satText = !sat
        ? ""
        : `; the CPU would reach 100 % near ${fmtIops(sat.estimate)} IOPS${sat.lo !== null && sat.hi !== null ? ` (95 % CI ${fmtIops(sat.lo)}–${fmtIops(sat.hi)})` : " (no finite interval)"}`;
      return (
        `CPU cost per IO${who}: ${fmt(d.estimate, 3)} CPU-ms (95 % CI ${fmt(d.lo, 3)}–${fmt(d.hi, 3)}), ` +
        `background ${fmt(g.backgroundPct.estimate, 3)} % CPU${satText}. ${g.verdict}`
      );
    })
    .join(" ");
}

const fmtIops = (x: number): string => Math.round(x).toLocaleString("en-US");

/** The Summary's headline on the knee and saturation: one sentence per level (mean response). */
export function responseHeadline(curves: ResponseFit[]): string {
  const mean = curves.filter((c) => c.metric === "mean");
  if (mean.length === 0) return "Knee and saturation: no response times.";
  return mean
    .map((c) => {
      const who = mean.length > 1 || c.group !== "all steps" ? ` (${c.group})` : "";
      const rule = c.rule
        ? ` Measured: the largest step with R ≤ ${KNEE_FACTOR} × light load is ${fmtIops(c.rule.x)} IOPS (R ${fmt(c.rule.r, 3)} ms).`
        : "";
      if (!c.fit) return `Knee${who}: ${c.note}${rule}`;
      const k = c.fit.knee;
      const sat = c.fit.saturation;
      const ci = (lo: number | null, hi: number | null): string =>
        lo !== null && hi !== null ? ` (95 % CI ${fmtIops(lo)}–${fmtIops(hi)})` : " (no finite interval)";
      return (
        `Knee${who}: the mean response doubles from ${fmt(c.fit.serviceTime?.estimate ?? 1 / c.fit.fit.intercept, 3)} ms near ${fmtIops(k.estimate)} IOPS${ci(k.lo, k.hi)}; ` +
        `it saturates near ${fmtIops(sat.estimate)} IOPS${ci(sat.lo, sat.hi)}.${rule}`
      );
    })
    .join(" ");
}

/** The CpuFit table: one row per fitted level, every column always present (other sheets and the case form refer to its cells). */
/** An estimate with its 95 % interval (ends null when not bounded). */
type Interval = { estimate: number; lo: number | null; hi: number | null };

/**
 * Three always-present columns for an estimate and its 95 % interval: `key`, `key_lo`, `key_hi`
 * (other sheets and the case form refer to them by these keys).
 */
function intervalColumns<T>(
  key: string,
  header: string,
  numFmt: string,
  description: string,
  get: (row: T) => Interval | null,
): ColumnSpec<T>[] {
  return [
    { key, header, numFmt, description, keep: true, get: (r) => num(get(r)?.estimate) },
    {
      key: `${key}_lo`,
      header: `${header} 95 % low`,
      numFmt,
      keep: true,
      description: "Lower end of the 95 % interval",
      get: (r) => num(get(r)?.lo),
    },
    {
      key: `${key}_hi`,
      header: `${header} 95 % high`,
      numFmt,
      keep: true,
      description: "Upper end of the 95 % interval",
      get: (r) => num(get(r)?.hi),
    },
  ];
}

function cpuFitColumns(): ColumnSpec<CpuFitGroup>[] {
  const iv = intervalColumns<CpuFitGroup>;
  return [
    {
      key: "group",
      header: "line",
      numFmt: F.text,
      keep: true,
      description: "The steps fitted: a protocol/option level, or all steps",
      get: (g) => g.group,
    },
    {
      key: "basis",
      header: "CPU basis",
      numFmt: F.text,
      keep: true,
      description: "host: CPU busy % of all cores; tool: the generator's own CPU, % of one CPU",
      get: (g) => g.basis,
    },
    {
      key: "cores",
      header: "cores",
      numFmt: F.int,
      keep: true,
      description: "CPUs the % refers to",
      get: (g) => g.cores,
    },
    {
      key: "n",
      header: "steps on the line",
      numFmt: F.int,
      keep: true,
      description: `Steps below ${CPU_CENSOR_PCT} % CPU used for the line`,
      get: (g) => g.used.length,
    },
    {
      key: "censored",
      header: "censored steps",
      numFmt: F.int,
      keep: true,
      description: `Steps at ≥ ${CPU_CENSOR_PCT} % CPU, left off the line (saturated: the CPU throttles the IOPS)`,
      get: (g) => g.censored.length,
    },
    ...iv(
      "d",
      "marginal CPU-ms per IO",
      F.d,
      "Slope b/100 × cores × 1000: the CPU time one more IO costs, without background work (= cores per 1000 IOPS)",
      (g) => g.marginalMs,
    ),
    ...iv("bg", "background CPU %", F.pct, "Intercept a: CPU busy % at zero IOPS (other work)", (g) => g.backgroundPct),
    ...iv(
      "sat",
      "CPU saturation IOPS",
      F.iops,
      "IOPS where the fitted line reaches 100 % CPU; interval by Fieller's method (empty: not bounded)",
      (g) => g.saturationIops,
    ),
    {
      key: "r2",
      header: "R²",
      numFmt: F.stat,
      keep: true,
      description: "Share of the CPU variation the line explains",
      get: (g) => num(g.fit?.r2),
    },
    {
      key: "s",
      header: "residual SD CPU %",
      numFmt: F.stat,
      keep: true,
      description: "Residual standard deviation of the line, in CPU %",
      get: (g) => num(g.fit?.s),
    },
    {
      key: "usable",
      header: "usable",
      numFmt: F.text,
      keep: true,
      description: "usable, weak or not usable (see verdict)",
      get: (g) => g.usable,
    },
    {
      key: "verdict",
      header: "verdict",
      numFmt: F.text,
      keep: true,
      description: "Whether the estimate can be used, and why",
      get: (g) => g.verdict,
    },
  ];
}

/** The ResponseFit table: knee and saturation from response vs throughput, per level and metric. */
function responseFitColumns(): ColumnSpec<ResponseFit>[] {
  const iv = intervalColumns<ResponseFit>;
  return [
    {
      key: "group",
      header: "line",
      numFmt: F.text,
      keep: true,
      description: "The steps fitted: a protocol/option level, or all steps",
      get: (f) => f.group,
    },
    {
      key: "metric",
      header: "response",
      numFmt: F.text,
      keep: true,
      description: "mean or p99 response time",
      get: (f) => f.metric,
    },
    {
      key: "n",
      header: "steps on the curve",
      numFmt: F.int,
      keep: true,
      description: "Rated steps at their target and below CPU saturation",
      get: (f) => f.used.length,
    },
    ...iv(
      "s",
      "light-load R ms",
      F.ms,
      "S = 1/β₀ of the fitted curve R = S/(1 − X/X_max): the response time at low load",
      (f) => f.fit?.serviceTime ?? null,
    ),
    ...iv(
      "sat",
      "saturation IOPS",
      F.iops,
      "X_max of the fitted curve: where the response time grows without bound (Fieller's interval)",
      (f) => f.fit?.saturation ?? null,
    ),
    ...iv(
      "knee",
      `knee IOPS (R = ${KNEE_FACTOR} × light load)`,
      F.iops,
      `X_max × (1 − 1/${KNEE_FACTOR}): where the fitted response reaches ${KNEE_FACTOR} × its light-load value`,
      (f) => f.fit?.knee ?? null,
    ),
    {
      key: "knee_r",
      header: "R at the knee ms",
      numFmt: F.ms,
      keep: true,
      description: `${KNEE_FACTOR} × the light-load R of the fit`,
      get: (f) => num(f.fit?.knee.response),
    },
    {
      key: "rule_x",
      header: `largest measured IOPS with R ≤ ${KNEE_FACTOR} × light load`,
      numFmt: F.iops,
      keep: true,
      description: `Model-free knee: the highest step whose response is at most ${KNEE_FACTOR} × the lightest step's`,
      get: (f) => num(f.rule?.x),
    },
    {
      key: "rule_r",
      header: "its R ms",
      numFmt: F.ms,
      keep: true,
      description: "That step's response time",
      get: (f) => num(f.rule?.r),
    },
    {
      key: "rule_next",
      header: "next measured IOPS",
      numFmt: F.iops,
      keep: true,
      description: "The next step by IOPS: the knee lies between the two",
      get: (f) => num(f.rule?.nextX),
    },
    {
      key: "r2",
      header: "R² of 1/R",
      numFmt: F.stat,
      keep: true,
      description: "Share of the variation of 1/R the weighted line explains",
      get: (f) => num(f.fit?.fit.r2),
    },
    {
      key: "note",
      header: "note",
      numFmt: F.text,
      keep: true,
      description: "What to make of the fit, and the steps left off the curve",
      get: (f) => f.note,
    },
  ];
}

/** The table name of the fitted CPU cost, and its columns' keys in order: the layout other code refers to. */
export const CPU_FIT_TABLE = "CpuFit";
export const CPU_FIT_KEYS: readonly string[] = cpuFitColumns().map((c) => c.key);

/**
 * Where the plan puts the CpuFit table's columns, from {@link workbookLayout} over a Model sheet
 * built by the same builder (every CpuFit column is always present, so the layout does not depend
 * on the data): what the case form reads a workbook's CpuFit table by.
 */
export function cpuFitTableLayout(): TableLayout {
  const b = new SheetBuilder("Model", modelNotes());
  b.table(CPU_FIT_TABLE, cpuFitColumns(), []);
  return workbookLayout({ title: "", sources: [], warnings: [], sheets: [b.sheet()] })[CPU_FIT_TABLE];
}

/** True when the x values span a decade or more (then a log axis shows the light steps apart). */
function spansDecades(xs: number[]): boolean {
  const pos = xs.filter((x) => x > 0);
  return pos.length > 1 && Math.max(...pos) / Math.min(...pos) >= 10;
}

/** A step's measured mean or p99 response (ms), NaN when it has none. */
function responseOf(s: LabStep, metric: "mean" | "p99"): number {
  return (metric === "mean" ? s.values.response_ms_avg : s.values.response_ms_p99) ?? NaN;
}

/** The fitted curve R = S/(1 − X/X_max) from below the lightest step to near saturation, log-spaced on a log axis. */
function curveSeries(c: ResponseFit, log: boolean, many: boolean): SeriesPlan[] {
  if (!c.fit) return [];
  const f = c.fit;
  const xs = c.used.map((s) => s.values.iops as number);
  const sat = f.saturation.estimate;
  const from = Math.min(...xs) * 0.8;
  // Up to just past the measured range, and no higher than 1.5 × the slowest step fitted (where
  // R = 1/(a + b·X) reaches it): near X_max the curve shoots up and would flatten the measured points.
  const rCap = 1.5 * Math.max(...c.used.map((s) => responseOf(s, c.metric)));
  const xCap = Number.isFinite(rCap) && f.fit.slope < 0 ? (1 / rCap - f.fit.intercept) / f.fit.slope : Infinity;
  const to = Math.min(0.97 * sat, 1.15 * Math.max(...xs, f.knee.estimate), Math.max(xCap, f.knee.estimate));
  if (!(to > from) || !(from > 0)) return [];
  const points = 60;
  const x: number[] = [];
  const y: number[] = [];
  for (let i = 0; i <= points; i++) {
    const xi = log ? from * (to / from) ** (i / points) : from + ((to - from) * i) / points;
    x.push(xi);
    y.push(1 / (f.fit.intercept + f.fit.slope * xi));
  }
  const who = many ? `, ${c.group}` : "";
  return [
    { name: `fitted S/(1 − X/X_max)${who}`, x, y, style: "line" },
    {
      name: `knee (R = ${KNEE_FACTOR} × light load)${who}`,
      x: [f.knee.estimate],
      y: [f.knee.response],
      style: "points",
    },
  ];
}

/**
 * Response time against throughput for the mean (over the Model table's cells) or the p99: the
 * measured steps, each level's fitted curve and its knee; a log x-axis when the steps span decades.
 */
function responseChart(rows: ModelRow[], curves: ResponseFit[], metric: "mean" | "p99"): ChartPlan | null {
  const measured: [number, number][] = [];
  for (const m of rows) {
    const x = m.step.values.iops;
    const r = metric === "mean" ? m.step.values.response_ms_avg : m.step.values.response_ms_p99;
    if (x !== null && r !== null) measured.push([x, r]);
  }
  if (measured.length === 0) return null;
  const mine = curves.filter((c) => c.metric === metric);
  const log = spansDecades(measured.map((p) => p[0]));
  return {
    id: metric === "mean" ? "response-vs-throughput" : "p99-vs-throughput",
    title: metric === "mean" ? "Response time vs throughput" : "p99 response time vs throughput",
    kind: "scatter",
    xTitle: log ? "IOPS (log scale)" : "IOPS",
    yTitle: metric === "mean" ? "mean response time (ms)" : "p99 response time (ms)",
    xLog: log,
    series: [series("measured", measured, "points"), ...mine.flatMap((c) => curveSeries(c, log, mine.length > 1))],
    ...(metric === "mean" ? { source: { table: "Model", xColumn: "x", yColumns: ["r"] } } : {}),
  };
}

/**
 * CPU against IOPS: every step with CPU figures (drawn over the Model table's cells), the censored
 * ones marked again, and each level's fitted line up to 100 %.
 */
function cpuChart(rows: ModelRow[], groups: CpuFitGroup[]): ChartPlan | null {
  const pts: [number, number][] = [];
  const censored: [number, number][] = [];
  for (const m of rows) {
    if (m.busyPct === null || m.step.values.iops === null || !m.fit || m.fit.role === "excluded") continue;
    pts.push([m.step.values.iops, m.busyPct]);
    if (m.fit.role === "censored") censored.push([m.step.values.iops, m.busyPct]);
  }
  if (pts.length === 0) return null;
  const s: SeriesPlan[] = [series("steps", pts, "points")];
  for (const g of groups) {
    if (!g.fit) continue;
    const xs = [...g.used, ...g.censored].map((st) => st.values.iops as number);
    const end = g.fit.slope > 0 ? Math.max(...xs, (100 - g.fit.intercept) / g.fit.slope) : Math.max(...xs);
    s.push({
      name: groups.length > 1 ? `fitted line, ${g.group}` : "fitted line",
      x: [0, end],
      y: [g.fit.intercept, Math.min(100, g.fit.intercept + g.fit.slope * end)],
      style: "line",
    });
  }
  if (censored.length > 0) s.push(series(`censored (≥ ${CPU_CENSOR_PCT} % CPU, off the line)`, censored, "points"));
  const tool = groups.length > 0 && groups.every((g) => g.basis === "tool");
  // The steps series is the Model table's X and CPU % columns only when every row with both is on
  // it (an excluded step has CPU figures but is not drawn); otherwise it is drawn from chart data.
  const live = pts.length === rows.filter((m) => m.busyPct !== null && m.step.values.iops !== null).length;
  return {
    id: "cpu-vs-iops",
    title: "CPU vs IOPS",
    kind: "scatter",
    xTitle: "IOPS",
    yTitle: tool ? "tool CPU % (of one CPU)" : "CPU busy %",
    series: s,
    ...(live ? { source: { table: "Model", xColumn: "x", yColumns: ["busy"] } } : {}),
  };
}

/** Name of the Model sheet's hidden table of chart data. */
export const MODEL_CHART_DATA_TABLE = "ModelChartData";

/**
 * The chart data no table of the sheet holds (fitted curves, knees, fitted lines, the measured
 * p99), as one hidden helper table two columns a series, placed one column right of the sheet's
 * tables from the first table's header row; each such series gets `cells` naming its columns. A
 * series the chart's `source` maps to a table column keeps that mapping.
 *
 * @returns the helper table (already given its position), or null when every series is in a table
 */
export function chartDataTable(
  name: string,
  sheet: { notes: string[]; tables: TablePlan[] },
  charts: ChartPlan[],
): TablePlan | null {
  const columns: TablePlan["columns"] = [];
  const data: number[][] = [];
  for (const chart of charts)
    chart.series.forEach((s, i) => {
      if (s.cells || (chart.source && chart.source.yColumns[i] !== undefined) || s.x.length === 0) return;
      const key = `${chart.id}:${i}`;
      columns.push(
        { key: `${key}:x`, header: `${chart.id} ${i + 1} x: ${s.name}`, numFmt: "General" },
        { key: `${key}:y`, header: `${chart.id} ${i + 1} y`, numFmt: "General" },
      );
      data.push(s.x, s.y);
      s.cells = { table: name, x: `${key}:x`, y: `${key}:y` };
    });
  if (columns.length === 0) return null;
  const n = Math.max(...data.map((d) => d.length));
  const rows: CellValue[][] = Array.from({ length: n }, (_, r) =>
    data.map((d) => (r < d.length && Number.isFinite(d[r]) ? d[r] : null)),
  );
  const right = Math.max(1, ...sheet.tables.map((t) => t.at.col + t.columns.length));
  const top = sheet.tables[0]?.at.row ?? rowBelow(0, sheet.notes.length);
  return { name, columns, rows, at: { row: top, col: right + 1 }, hidden: true };
}

/**
 * The Model sheet over the main steps.
 *
 * @returns the sheet, the CPU fits (the Summary and the JSON answer use them) and the Summary's headline
 */
export function modelSheet(
  main: LabStep[],
  cpu: CpuFits = cpuFits(main),
  curves: ResponseFit[] = [],
  servers: number | null = null,
): { sheet: SheetPlan; headline: string } {
  const rows = main.map((s) => modelRow(s, cpu, servers));
  const model = new SheetBuilder("Model", modelNotes());
  model.table(CPU_FIT_TABLE, cpuFitColumns(), cpu.groups);
  if (curves.length > 0) model.table("ResponseFit", responseFitColumns(), curves);
  const inputs = model.table(MODEL_INPUTS_TABLE, modelInputColumns(), [{ name: "storage servers c", value: servers }]);
  const serversCell = cellA1({ row: inputs.at.row + 1, col: inputs.at.col + 1 }, { absolute: true });
  model.table("Model", modelColumns({ servers: serversCell }, rows), rows);
  for (const chart of [
    responseChart(rows, curves, "mean"),
    responseChart(rows, curves, "p99"),
    cpuChart(rows, cpu.groups),
  ])
    if (chart) model.charts.push(chart);
  const sheet = model.sheet();
  const helper = chartDataTable(MODEL_CHART_DATA_TABLE, sheet, sheet.charts);
  if (helper) sheet.tables.push(helper);
  return { sheet, headline: cpuHeadline(cpu.groups) };
}
