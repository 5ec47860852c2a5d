/**
 * `caplab report --json`'s What-if figures and knee status against a model with known answers
 * (fixtures/lab-model.ts; the expected values are the model's, worked from its parameters below,
 * not the analysis' own). With the What-if sheet's defaults (target CPU 70 %, SLA = the knee's
 * response, i.e. 2 × the light-load response S, growth 20 %/year, current load = the lightest rated
 * step) a protocol with background b = 30 %, D CPU-ms per IO on c = 4 cores and R = S/(1 − X/X_max) has
 *   IOPS at the CPU target = (70 − b)·c·10/D,   IOPS at the SLA = X_max·(1 − S/2S) = X_max/2,
 *   capacity = the smaller, headroom = capacity − 1,000, years = ln(capacity/1,000)/ln 1.2.
 * Tolerances: the estimates' own 95 % intervals on this seed are within ±1.5 % (Summary of the
 * first-run sample), so 3 % on IOPS figures, and 0.3 years (3 % / ln 1.2 ≈ 0.16).
 */
import { readLabText } from "../../src/import/detect";
import { buildLabAnalysis } from "../../src/lab/lab-plan";
import { labJson } from "../../src/lab/json";
import { LabModel, syntheticLab, TWO_PROTOCOLS } from "./fixtures/lab-model";

/** The first-run sample's seed (generate-lab-sample.ts). */
const SAMPLE_SEED = 20261125;
const TODAY = new Date(Date.UTC(2026, 0, 1));

function json(model: LabModel, seed: number): ReturnType<typeof labJson> {
  const lab = syntheticLab(model, seed);
  const { plan, answers } = buildLabAnalysis(
    [readLabText(lab.subintervals, "sub.csv"), readLabText(lab.summary, "sum.csv")],
    { today: TODAY },
  );
  return labJson(answers, plan.sources, plan.warnings);
}

const close = (got: number | null, want: number, rel: number): void => {
  expect(got).not.toBeNull();
  expect(Math.abs((got as number) / want - 1)).toBeLessThanOrEqual(rel);
};

describe("--json What-if figures of the two-protocol model", () => {
  const j = json(TWO_PROTOCOLS, SAMPLE_SEED);
  test.each([
    // protocol, D, S, X_max: CPU IOPS = 40·4·10/D; SLA IOPS = X_max/2; years = ln(capacity/1000)/ln 1.2
    ["nfs", 0.081, 30000],
    ["fc", 0.041, 40000],
  ] as const)("%s: capacity, headroom and the year growth crosses it", (protocol, d, xMax) => {
    const line = j.lines.find((l) => l.group === `protocol ${protocol}`)!;
    const w = line.whatIf!;
    expect(w).not.toBeNull();
    const cpuIops = ((70 - 30) * 4 * 10) / d;
    const slaIops = xMax / 2;
    const capacity = Math.min(cpuIops, slaIops);
    expect([w.targetCpuPct, w.growthPctPerYear, w.slaOn]).toEqual([70, 20, "mean"]);
    close(w.currentIops, 1000, 0.03);
    close(w.cpuIops, cpuIops, 0.03);
    close(w.slaIops, slaIops, 0.03);
    close(w.capacityIops, capacity, 0.03);
    expect(w.limitedBy).toBe(slaIops < cpuIops ? "response SLA" : "CPU target");
    close(w.headroomIops, capacity - 1000, 0.03);
    close(w.headroomPct, 1 - 1000 / capacity, 0.01);
    const years = Math.log(capacity / 1000) / Math.log(1.2);
    expect(Math.abs((w.yearsUntilCrossed as number) - years)).toBeLessThanOrEqual(0.3);
    // 2026-01-01 + 14.85 years (nfs) is in 2040, + 16.43 years (fc) in 2042.
    expect(w.yearCrossed).toBe(protocol === "nfs" ? 2040 : 2042);
    expect(w.crossedIn).toMatch(protocol === "nfs" ? /^2040-(09|1[0-2])$/ : /^2042-0[4-8]$/);
    // Steps run to 25,000 / 33,000 IOPS, past the knees at 15,000 / 20,000.
    expect(line.kneeReached).toBe("bracketed");
  });
});

describe("--json tells a knee not reached from a bracketed one", () => {
  test("steps that stop at a quarter of the knee: a curve, but the knee is not reached", () => {
    const low: LabModel = {
      ...TWO_PROTOCOLS,
      protocols: [{ name: "nfs", cpuMsPerIo: 0.081, serviceMs: 0.5, xMax: 30000, targets: [1000, 2000, 3000, 4000] }],
    };
    const line = json(low, 3).lines[0];
    expect(line.knee?.iops).not.toBeNull();
    expect(line.kneeReached).toBe("not reached");
  });

  test("two load levels: no curve, no What-if", () => {
    const two: LabModel = {
      ...TWO_PROTOCOLS,
      protocols: [{ name: "nfs", cpuMsPerIo: 0.081, serviceMs: 0.5, xMax: 30000, targets: [4000, 16000] }],
    };
    const line = json(two, 3).lines[0];
    expect(line.kneeReached).toBe("no curve");
    expect(line.whatIf).toBeNull();
  });
});
