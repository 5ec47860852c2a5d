/**
 * The marginal CPU cost per IO: CPU % = a + b·IOPS fitted over the steps (per protocol or option
 * level when the steps carry one), with 95 % intervals, the censoring of saturated steps, the
 * per-step regression diagnostics and a plain-words verdict on whether the estimate can be used.
 *
 * Why a line and not U/X per step: the utilization law D = U/X of one step divides ALL the busy
 * CPU, background work included, by that step's IOPS, so at low load it overstates the cost of an
 * IO many times over. The slope b is what one more IO costs (operational analysis, Denning & Buzen
 * 1978; the intercept a is the background). A step at ≥ {@link CPU_CENSOR_PCT} % CPU is censored:
 * the counter cannot pass 100 while a + bX would, and the CPU then throttles X, so such a step is
 * kept off the line and only listed (it would sit at maximum leverage and pull b down).
 */
import { isDomainError } from "../core/errors";
import { inverseEstimate, InverseEstimate, linearFit, LinearFitResult } from "../core/linear-fit-ci";
import { LabStep } from "./data";

/** Steps at or above this CPU busy % are censored (kept off the fitted line). */
export const CPU_CENSOR_PCT = 98;
/** The interval's confidence level. */
export const CPU_FIT_CONFIDENCE = 0.95;
/** Label columns (case-insensitive) whose levels get a line each: the option being compared. */
export const GROUP_LABELS = ["protocol", "option"];

/** A step's CPU figures: host CPU (busy % of `cores`) when known, else the generator's own CPU (% of one CPU). */
export interface CpuBasis {
  basis: "host" | "tool" | null;
  busyPct: number | null;
  cores: number | null;
}

/** CPU utilization basis: host CPU (busy % × cores) when known, else the generator's own CPU. */
export function cpuBasis(s: LabStep): CpuBasis {
  if (s.values.cpu_busy_pct !== null && s.values.cpu_cores !== null && s.values.cpu_cores > 0)
    return { basis: "host", busyPct: s.values.cpu_busy_pct, cores: s.values.cpu_cores };
  if (s.values.tool_cpu_pct !== null) return { basis: "tool", busyPct: s.values.tool_cpu_pct, cores: 1 }; // % of one CPU
  return { basis: null, busyPct: null, cores: null };
}

/** An estimate with its 95 % interval (null ends: no interval). */
export interface Interval {
  estimate: number;
  lo: number | null;
  hi: number | null;
}

/** Where a step stands in the CPU fit. */
export interface StepFitRole {
  /** "used": a point of the line; "censored": CPU ≥ the threshold; "excluded": no CPU, other basis, or no IOPS. */
  role: "used" | "censored" | "excluded";
  /** The group (protocol level) whose line it belongs to. */
  group: string;
  leverage: number | null;
  studentized: number | null;
  cooks: number | null;
}

export interface CpuFitGroup {
  /** The level, e.g. "protocol nfs"; "all steps" when the data has no protocol/option label. */
  group: string;
  /** The label column and level this group is, or null for all steps. */
  label: { column: string; level: string } | null;
  basis: "host" | "tool";
  cores: number;
  used: LabStep[];
  censored: LabStep[];
  /** The fit over `used` (null with fewer than 3 distinct-IOPS steps). */
  fit: LinearFitResult | null;
  /** Marginal CPU-milliseconds per IO = b/100 × cores × 1000 (= cores per 1000 IOPS), with its interval. */
  marginalMs: Interval | null;
  /** Background CPU % at zero IOPS (the intercept a), with its interval. */
  backgroundPct: Interval | null;
  /** IOPS where the line reaches 100 % CPU, with Fieller's interval (null ends: not bounded). */
  saturationIops: Interval | null;
  /** Usable, weak or not usable, in plain words. */
  usable: "usable" | "weak" | "not usable";
  verdict: string;
}

export interface CpuFits {
  groups: CpuFitGroup[];
  roles: Map<LabStep, StepFitRole>;
}

const fmt = (x: number, digits = 3): string => Number(x.toPrecision(digits)).toLocaleString("en-US");

/** The protocol/option label column whose levels split the steps, if any has two or more levels. */
function groupColumn(main: LabStep[]): string | null {
  for (const wanted of GROUP_LABELS) {
    const names = new Set(main.flatMap((s) => Object.keys(s.labels)));
    const col = [...names].find((n) => n.toLowerCase() === wanted);
    if (col === undefined) continue;
    const levels = new Set(main.map((s) => s.labels[col] ?? ""));
    if (levels.size >= 2) return col;
  }
  return null;
}

/** A protocol/option level's steps (or all steps when the data has no such label). */
export interface StepGroup {
  /** "protocol nfs", or "all steps". */
  name: string;
  label: { column: string; level: string } | null;
  steps: LabStep[];
}

/**
 * The steps split by the protocol/option label (the first of {@link GROUP_LABELS} with two or
 * more levels), levels in first-seen order; one group of all steps when there is none.
 */
export function stepGroups(main: readonly LabStep[]): StepGroup[] {
  const column = groupColumn([...main]);
  if (column === null) return [{ name: "all steps", label: null, steps: [...main] }];
  const levels = [...new Set(main.map((s) => s.labels[column] ?? ""))];
  return levels.map((level) => ({
    // Steps without the label (e.g. fio's beside labelled iogen steps): named in words, not "protocol ".
    name: level === "" ? `${column} not given` : `${column} ${level}`,
    label: { column, level },
    steps: main.filter((s) => (s.labels[column] ?? "") === level),
  }));
}

/**
 * Fits the CPU line of each protocol/option level (or of all steps).
 *
 * @param main - the overall steps (Steps sheet rows)
 * @returns one group per level with steps that have CPU figures, and each step's role
 */
export function cpuFits(main: readonly LabStep[]): CpuFits {
  const roles = new Map<LabStep, StepFitRole>();
  const groups: CpuFitGroup[] = [];
  for (const { name, label, steps } of stepGroups(main)) {
    for (const s of steps)
      roles.set(s, { role: "excluded", group: name, leverage: null, studentized: null, cooks: null });
    const withCpu = steps.filter((s) => cpuBasis(s).basis !== null && s.values.iops !== null);
    if (withCpu.length === 0) continue;
    // One basis and core count per line: the first step's (a mixed file's other steps stay excluded).
    const first = cpuBasis(withCpu[0]);
    const same = withCpu.filter((s) => {
      const b = cpuBasis(s);
      return b.basis === first.basis && b.cores === first.cores;
    });
    const censored = same.filter((s) => (cpuBasis(s).busyPct as number) >= CPU_CENSOR_PCT);
    const used = same.filter((s) => !censored.includes(s));
    for (const s of censored) roles.get(s)!.role = "censored";
    for (const s of used) roles.get(s)!.role = "used";
    const g = fitGroup(name, label, first as { basis: "host" | "tool"; cores: number }, used, censored);
    if (g.fit) {
      used.forEach((s, i) => {
        const r = roles.get(s)!;
        r.leverage = g.fit!.leverage[i];
        r.studentized = g.fit!.studentized[i];
        r.cooks = g.fit!.cooks[i];
      });
    }
    groups.push(g);
  }
  return { groups, roles };
}

function fitGroup(
  group: string,
  label: CpuFitGroup["label"],
  b: { basis: "host" | "tool"; cores: number },
  used: LabStep[],
  censored: LabStep[],
): CpuFitGroup {
  const base = { group, label, basis: b.basis, cores: b.cores, used, censored };
  const x = used.map((s) => s.values.iops as number);
  const y = used.map((s) => cpuBasis(s).busyPct as number);
  const distinct = new Set(x).size;
  const censoredText =
    censored.length > 0
      ? ` ${censored.length} step${censored.length > 1 ? "s" : ""} at ≥ ${CPU_CENSOR_PCT} % CPU ${censored.length > 1 ? "are" : "is"} censored (left off the line: ${censored.map(stepName).join(", ")}).`
      : "";
  let fit: LinearFitResult | null = null;
  try {
    if (distinct >= 3) fit = linearFit(x, y, { confidence: CPU_FIT_CONFIDENCE });
  } catch (e) {
    if (!isDomainError(e)) throw e;
  }
  if (fit === null) {
    return {
      ...base,
      fit: null,
      marginalMs: null,
      backgroundPct: null,
      saturationIops: null,
      usable: "not usable",
      verdict: `Not usable: ${distinct} unsaturated step${distinct === 1 ? "" : "s"} with different IOPS; a line with an interval needs at least 3.${censoredText}`,
    };
  }
  const perMs = (b.cores * 1000) / 100; // CPU % per IOPS → CPU-ms per IO
  const marginalMs: Interval = { estimate: fit.slope * perMs, lo: fit.slopeCi[0] * perMs, hi: fit.slopeCi[1] * perMs };
  const backgroundPct: Interval = { estimate: fit.intercept, lo: fit.interceptCi[0], hi: fit.interceptCi[1] };
  let saturationIops: Interval | null = null;
  if (fit.slope > 0) {
    const inv: InverseEstimate = inverseEstimate(fit, 100);
    saturationIops = { estimate: inv.estimate, lo: inv.ci ? inv.ci[0] : null, hi: inv.ci ? inv.ci[1] : null };
  }
  const { usable, verdict } = judge(fit, marginalMs, used, censored, saturationIops);
  return { ...base, fit, marginalMs, backgroundPct, saturationIops, usable, verdict: verdict + censoredText };
}

const stepName = (s: LabStep): string => `step ${s.step}${s.stepName && s.stepName !== s.step ? ` ${s.stepName}` : ""}`;

/** Usable / weak / not usable, and why, in a planner's words. */
function judge(
  fit: LinearFitResult,
  d: Interval,
  used: LabStep[],
  censored: LabStep[],
  sat: Interval | null,
): { usable: CpuFitGroup["usable"]; verdict: string } {
  if (!(fit.slopeCi[0] > 0)) {
    return {
      usable: "not usable",
      verdict: `Not usable: the CPU does not rise measurably with IOPS over these ${fit.n} steps (the 95 % interval of the slope reaches 0 or below); other work dominates the CPU.`,
    };
  }
  const rel = ((d.hi as number) - (d.lo as number)) / 2 / d.estimate;
  const notes: string[] = [];
  // Influential = moves the line (Cook's D > 1) AND sits off it (|rstudent| > 2): high leverage
  // alone is what the highest step always has (Hoaglin & Welsch; Cook 1977).
  const influential = fit.cooks.findIndex((c, i) => (c ?? 0) > 1 && Math.abs(fit.studentized[i] ?? 0) > 2);
  if (influential >= 0)
    notes.push(
      `${stepName(used[influential])} pulls the line (Cook's distance ${fmt(fit.cooks[influential] as number, 2)}, studentized residual ${fmt(fit.studentized[influential] as number, 2)})`,
    );
  const outlier = fit.studentized.findIndex((r, i) => i !== influential && r !== null && Math.abs(r) > 3);
  if (outlier >= 0)
    notes.push(
      `${stepName(used[outlier])} lies off the line (studentized residual ${fmt(fit.studentized[outlier] as number, 2)})`,
    );
  const maxCensored = Math.max(...censored.map((s) => s.values.iops as number));
  if (sat && censored.length > 0 && sat.hi !== null && maxCensored > sat.hi)
    notes.push(
      `a censored step reached ${fmt(maxCensored, 4)} IOPS, beyond the line's 100 % point (${fmt(sat.estimate, 4)}): the cost per IO falls at high load, or the line is off`,
    );
  const extra = notes.length > 0 ? ` Check: ${notes.join("; ")}.` : "";
  const pm = `±${fmt(rel * 100, 2)} % at 95 %, over ${fit.n} steps`;
  if (rel > 1)
    return {
      usable: "not usable",
      verdict: `Not usable: ${pm}, wider than the estimate itself; measure more steps below saturation.${extra}`,
    };
  if (rel > 0.25 || influential >= 0)
    return {
      usable: "weak",
      verdict: `Weak: ${pm}; use the interval's ends in a business case, or measure more steps below saturation.${extra}`,
    };
  return { usable: "usable", verdict: `Usable: ${pm}.${extra}` };
}
