/**
 * The analysis' key figures as JSON (`caplab report --json FILE`, documented in docs/analysis.md),
 * from the same answers the sheets show: nothing is computed here.
 */
import { CpuFitGroup, Interval } from "./cpu-fit";
import type { LabAnswers } from "./lab-plan";
import { ResponseFit } from "./response-fit";
import type { WhatIfFigures } from "./whatif";

/** The format's version: a script can refuse one it does not know. */
export const LAB_JSON_VERSION = 1;

/** An estimate and its 95 % interval (null ends: no finite interval); null when not estimated. */
export interface JsonInterval {
  estimate: number;
  ci95: [number | null, number | null];
}

export interface JsonLine {
  /** The protocol/option level ("protocol nfs"), or "all steps". */
  group: string;
  marginalCpuMsPerIo: JsonInterval | null;
  backgroundCpuPct: JsonInterval | null;
  cpuSaturationIops: JsonInterval | null;
  /** "usable", "weak" or "not usable", and why. */
  cpuFitUsable: string;
  cpuFitVerdict: string;
  stepsOnCpuLine: number;
  censoredSteps: number;
  /** From the mean response time: the knee on the fitted curve (R = 2 × light load) and the model-free rule. */
  knee: {
    iops: number | null;
    responseMs: number | null;
    ci95: [number | null, number | null];
    ruleIops: number | null;
    ruleResponseMs: number | null;
  } | null;
  saturationIops: JsonInterval | null;
  /** The same from the p99 response time, when the steps have one. */
  kneeP99: JsonLine["knee"];
  saturationIopsP99: JsonInterval | null;
  /**
   * Whether the steps reached the knee of the mean response curve: "bracketed" (steps on both
   * sides of the fitted knee, saturation bounded), "not reached" (a curve was fitted, but every step
   * is below its knee or the saturation is not bounded: the knee is an extrapolation), or "no curve".
   */
  kneeReached: "bracketed" | "not reached" | "no curve";
  /** The What-if sheet's capacity, headroom and when growth crosses it, with its default inputs; null without a What-if line. */
  whatIf: Omit<WhatIfFigures, "group"> | null;
}

export interface LabJson extends Omit<JsonLine, "group"> {
  version: number;
  sources: string[];
  /** Which line the top-level figures are: the first of `lines`. */
  group: string | null;
  /** One entry per protocol/option level (one "all steps" when the data has no such label). */
  lines: JsonLine[];
  steps: {
    name: string;
    iops: number | null;
    responseMsMean: number | null;
    responseMsMeanCi95: [number, number] | null;
    responseMsP99: number | null;
    responseMsP99Ci95: [number, number] | null;
    warnings: string[];
  }[];
  /** Every warning of the run (the Summary's list). */
  warnings: string[];
}

const finite = (x: number | null | undefined): number | null =>
  x === null || x === undefined || !Number.isFinite(x) ? null : x;

function interval(i: Interval | null): JsonInterval | null {
  return i === null || !Number.isFinite(i.estimate)
    ? null
    : { estimate: i.estimate, ci95: [finite(i.lo), finite(i.hi)] };
}

function knee(f: ResponseFit | undefined): JsonLine["knee"] {
  if (!f) return null;
  return {
    iops: finite(f.fit?.knee.estimate),
    responseMs: finite(f.fit?.knee.response),
    ci95: [finite(f.fit?.knee.lo), finite(f.fit?.knee.hi)],
    ruleIops: finite(f.rule?.x),
    ruleResponseMs: finite(f.rule?.r),
  };
}

/** Whether the steps on the curve bracket its fitted knee (see {@link JsonLine.kneeReached}). */
function kneeReached(f: ResponseFit | undefined): JsonLine["kneeReached"] {
  if (!f?.fit) return "no curve";
  const knee = f.fit.knee.estimate;
  const x = f.used.map((s) => s.values.iops).filter((v): v is number => typeof v === "number");
  const bounded = f.fit.saturation.lo !== null && f.fit.saturation.hi !== null;
  return bounded && x.some((v) => v <= knee) && x.some((v) => v >= knee) ? "bracketed" : "not reached";
}

function line(
  group: string,
  cpu: CpuFitGroup | undefined,
  response: ResponseFit[],
  whatIf: WhatIfFigures | undefined,
): JsonLine {
  const mean = response.find((r) => r.group === group && r.metric === "mean");
  const p99 = response.find((r) => r.group === group && r.metric === "p99");
  return {
    group,
    marginalCpuMsPerIo: interval(cpu?.marginalMs ?? null),
    backgroundCpuPct: interval(cpu?.backgroundPct ?? null),
    cpuSaturationIops: interval(cpu?.saturationIops ?? null),
    cpuFitUsable: cpu?.usable ?? "not usable",
    cpuFitVerdict: cpu?.verdict ?? "No step of this level has CPU figures.",
    stepsOnCpuLine: cpu?.used.length ?? 0,
    censoredSteps: cpu?.censored.length ?? 0,
    knee: knee(mean),
    saturationIops: mean?.fit ? interval(mean.fit.saturation) : null,
    kneeP99: knee(p99),
    saturationIopsP99: p99?.fit ? interval(p99.fit.saturation) : null,
    kneeReached: kneeReached(mean),
    whatIf: whatIf ? (({ group: _, ...figures }) => figures)(whatIf) : null,
  };
}

/**
 * The JSON answer of a lab analysis.
 *
 * @param answers - `buildLabAnalysis(...).answers`
 * @param sources - the input files, as given
 * @param warnings - the run's warnings (`plan.warnings`)
 * @returns a plain object (`JSON.stringify` it); no NaN or Infinity anywhere (missing = null)
 */
export function labJson(answers: LabAnswers, sources: string[], warnings: string[]): LabJson {
  const groups = [...new Set([...answers.cpu.groups.map((g) => g.group), ...answers.response.map((r) => r.group)])];
  const lines = groups.map((g) =>
    line(
      g,
      answers.cpu.groups.find((c) => c.group === g),
      answers.response,
      answers.whatIf.find((w) => w.group === g),
    ),
  );
  const first = lines[0] ?? line("all steps", undefined, [], undefined);
  return {
    version: LAB_JSON_VERSION,
    sources,
    ...first,
    group: lines.length > 0 ? first.group : null,
    lines,
    steps: answers.steps.map((s) => ({
      name: s.name,
      iops: finite(s.iops),
      responseMsMean: finite(s.responseMsMean),
      responseMsMeanCi95: s.responseMsMeanCi95,
      responseMsP99: finite(s.responseMsP99),
      responseMsP99Ci95: s.responseMsP99Ci95,
      warnings: s.warnings,
    })),
    warnings,
  };
}
