/**
 * Knee and saturation from response time against throughput, per protocol/option level, for the
 * mean and the p99 response: the single-queue curve R = S/(1 − X/X_max) fitted with intervals
 * (`kneeFit`), and the model-free rule "the largest measured X with R ≤ 2 × R at light load"
 * (`kneeRule`).
 *
 * Only rated, unsaturated steps follow the open-loop curve: a step without a target ("max", closed
 * loop: R = queue depth / X), a step below 95 % of its target, or one whose CPU is censored is
 * left out and named.
 */
import { isDomainError } from "../core/errors";
import { kneeFit, KneeFitResult, kneeRule } from "../core/knee-fit";
import { CpuFits, stepGroups } from "./cpu-fit";
import { LabStep } from "./data";
import { TARGET_SHARE } from "./quality";

/** The knee factor: the knee is where R reaches this multiple of the light-load R. */
export const KNEE_FACTOR = 2;

export interface ResponseFit {
  group: string;
  metric: "mean" | "p99";
  /** Steps on the curve, by increasing X. */
  used: LabStep[];
  /** Steps left off (no target, below target, CPU censored, no response figure). */
  left: LabStep[];
  fit: KneeFitResult | null;
  /** The model-free knee: largest measured X with R ≤ 2 R₀, and the next measured X (the knee lies between). */
  rule: { x: number; r: number; lightLoadR: number; nextX: number | null } | null;
  /** Why there is no fit, or what to make of it, in plain words. */
  note: string;
}

const n4 = (x: number): string => Number(x.toPrecision(4)).toLocaleString("en-US");

/** True when the step follows the open-loop curve: rated, at its target, CPU not censored. */
function onCurve(s: LabStep, cpu: CpuFits, r: number | null): boolean {
  const t = s.values.target_iops;
  const x = s.values.iops;
  if (t === null || x === null || r === null || !(r > 0) || !(x > 0)) return false;
  if (x < TARGET_SHARE * t) return false;
  return cpu.roles.get(s)?.role !== "censored";
}

/**
 * The response fits: per level, the mean and (when the steps have one) the p99 response.
 *
 * @param main - the overall steps
 * @param cpu - the CPU fits (censored steps are left off)
 */
export function responseFits(main: readonly LabStep[], cpu: CpuFits): ResponseFit[] {
  const out: ResponseFit[] = [];
  for (const g of stepGroups(main)) {
    for (const metric of ["mean", "p99"] as const) {
      const rOf = (s: LabStep): number | null =>
        metric === "mean" ? s.values.response_ms_avg : s.values.response_ms_p99;
      if (!g.steps.some((s) => rOf(s) !== null)) continue;
      const used = g.steps
        .filter((s) => onCurve(s, cpu, rOf(s)))
        .sort((a, b) => (a.values.iops as number) - (b.values.iops as number));
      const left = g.steps.filter((s) => !used.includes(s));
      const x = used.map((s) => s.values.iops as number);
      const r = used.map((s) => rOf(s) as number);
      let rule: ResponseFit["rule"] = null;
      if (used.length > 0) {
        const k = kneeRule(x, r, KNEE_FACTOR);
        rule = { x: k.x, r: k.r, lightLoadR: k.lightLoadR, nextX: k.next === null ? null : x[k.next] };
      }
      let fit: KneeFitResult | null = null;
      let note: string;
      // Three load levels at least (replicates of two levels say nothing about the curve's bend).
      const levels = new Set(used.map((s) => s.values.target_iops)).size;
      if (levels < 3) {
        note = `${used.length} rated unsaturated step${used.length === 1 ? "" : "s"} at ${levels} target level${levels === 1 ? "" : "s"}: the curve needs at least 3 levels.`;
      } else {
        try {
          fit = kneeFit(x, r, KNEE_FACTOR);
          const sat = fit.saturation;
          const top = x[x.length - 1];
          note =
            sat.lo === null
              ? "The response time barely rises over these steps: saturation is not bounded (no finite interval); measure closer to saturation."
              : top < 0.5 * sat.estimate
                ? `The highest step (${n4(top)} IOPS) is below half the estimated saturation: the estimate extrapolates; measure closer to it.`
                : "";
        } catch (e) {
          if (!isDomainError(e)) throw e;
          note = "The response time does not rise with throughput over these steps: no saturation within reach.";
        }
      }
      if (left.length > 0)
        note =
          `${note} Left off the curve: ${left.map((s) => `step ${s.step}`).join(", ")} (no target, below ${TARGET_SHARE * 100} % of it, or CPU saturated).`.trim();
      out.push({ group: g.name, metric, used, left, fit, rule, note });
    }
  }
  return out;
}
