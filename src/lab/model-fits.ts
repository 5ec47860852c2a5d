/** The Model sheet's fit tables: CpuFit (the marginal CPU cost per IO, background CPU and CPU saturation per level) and ResponseFit (knee and saturation per level). */
import { CPU_CENSOR_PCT, CpuFitGroup } from "./cpu-fit";
import { KNEE_FACTOR, ResponseFit } from "./response-fit";
import { ColumnSpec, F, num } from "../workbook/sheet-builder";

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

/** The CpuFit table: one row per fitted level, every column always present (other sheets and the case form refer to its cells). */
export function cpuFitColumns(): ColumnSpec<CpuFitGroup>[] {
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
export function responseFitColumns(): ColumnSpec<ResponseFit>[] {
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
