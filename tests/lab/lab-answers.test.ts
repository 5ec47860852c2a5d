/**
 * The analysis' answers with known truth: lab results drawn from the model of
 * fixtures/lab-model.ts (NFS 0.081 and FC 0.041 CPU-ms per IO, 30 % background CPU on 4 cores,
 * R = S/(1 − X/X_max) with X_max 30,000 / 40,000 IOPS, noise, seeded), analysed as a user would
 * (CSV text → readers → buildLabAnalysis). Over 100 seeds the 95 % intervals must cover the truth
 * in ≥ 90 % of seeds, and the knee and saturation estimates must be within 15 % of the model's.
 * Also: the 4-step run of fixtures/issue-4step shows its precision and lag warnings on the Summary;
 * a clean run shows "none".
 */
import * as fs from "fs";
import * as path from "path";
import { readLabText } from "../../src/import/detect";
import { buildLabAnalysis } from "../../src/lab/lab-plan";
import { labJson } from "../../src/lab/json";
import { LabModel, syntheticLab, TWO_PROTOCOLS } from "./fixtures/lab-model";

function analyse(model: LabModel, seed: number): ReturnType<typeof buildLabAnalysis> {
  const lab = syntheticLab(model, seed);
  return buildLabAnalysis([readLabText(lab.subintervals, "sub.csv"), readLabText(lab.summary, "sum.csv")]);
}

const within = (x: number | null, lo: number | null, hi: number | null): boolean =>
  x !== null && lo !== null && hi !== null && lo <= x && x <= hi;

describe("known truth over 100 seeds (TWO_PROTOCOLS)", () => {
  const SEEDS = 100;
  const hits = { marginal: 0, background: 0, cpuSaturation: 0, saturation: 0, knee: 0, mean: 0, p99: 0 };
  let lines = 0;
  let stepCis = 0;
  let worstKnee = 0;
  let worstSaturation = 0;
  let worstKneeRule = 0;
  for (let seed = 1; seed <= SEEDS; seed++) {
    const { plan, answers } = analyse(TWO_PROTOCOLS, seed);
    const json = labJson(answers, plan.sources, plan.warnings);
    const truth = syntheticLab(TWO_PROTOCOLS, seed).truth;
    for (const t of truth) {
      const line = json.lines.find((l) => l.group === `protocol ${t.protocol}`)!;
      lines++;
      const m = line.marginalCpuMsPerIo!;
      if (within(t.marginalCpuMsPerIo, ...m.ci95)) hits.marginal++;
      if (within(t.backgroundCpuPct, ...line.backgroundCpuPct!.ci95)) hits.background++;
      if (within(t.cpuSaturationIops, ...line.cpuSaturationIops!.ci95)) hits.cpuSaturation++;
      if (within(t.saturationIops, ...line.saturationIops!.ci95)) hits.saturation++;
      if (within(t.kneeIops, ...line.knee!.ci95)) hits.knee++;
      worstKnee = Math.max(worstKnee, Math.abs(line.knee!.iops! / t.kneeIops - 1));
      worstSaturation = Math.max(worstSaturation, Math.abs(line.saturationIops!.estimate / t.saturationIops - 1));
      // The model-free rule can only name a measured step: the last one at or below 2 × light load.
      worstKneeRule = Math.max(worstKneeRule, line.knee!.ruleIops! / t.kneeIops - 1);
    }
    // Per rated step: the true mean response S/(1 − target/X_max), and its p99 ln(100)·R.
    for (const s of json.steps) {
      const [proto, target] = s.name.replace(/^step \d+ /, "").split("-");
      if (target === "max" || s.responseMsMeanCi95 === null) continue;
      const p = TWO_PROTOCOLS.protocols.find((x) => x.name === proto)!;
      const r = p.serviceMs / (1 - Number(target) / p.xMax);
      stepCis++;
      if (within(r, ...s.responseMsMeanCi95)) hits.mean++;
      if (within(Math.log(100) * r, ...s.responseMsP99Ci95!)) hits.p99++;
    }
  }

  it.each([
    ["marginal CPU-ms per IO", "marginal"],
    ["background CPU %", "background"],
    ["CPU saturation IOPS", "cpuSaturation"],
    ["saturation IOPS (response curve)", "saturation"],
    ["knee IOPS (response curve)", "knee"],
  ] as [string, keyof typeof hits][])("the 95 %% interval of the %s covers the truth in ≥ 90 %% of seeds", (_, k) => {
    expect(lines).toBe(2 * SEEDS);
    expect(hits[k] / lines).toBeGreaterThanOrEqual(0.9);
    expect(hits[k] / lines).toBeLessThanOrEqual(0.99); // an interval that always covers says nothing
  });

  it("puts the knee and the saturation within 15 % of the model's in every seed", () => {
    expect(worstKnee).toBeLessThan(0.15);
    expect(worstSaturation).toBeLessThan(0.15);
    // The rule's step is at most the knee's 15 % beyond it (the steps are 1–8k apart near it).
    expect(worstKneeRule).toBeLessThan(0.15);
  });

  it("the per-step response intervals (batch means, sectioning for p99) cover the true mean and p99 in ≥ 90 % of steps", () => {
    expect(stepCis).toBe(SEEDS * 12);
    expect(hits.mean / stepCis).toBeGreaterThanOrEqual(0.9);
    expect(hits.p99 / stepCis).toBeGreaterThanOrEqual(0.9);
  });
});

describe("Summary warnings", () => {
  const FIX = path.join(__dirname, "fixtures", "issue-4step");
  const read = (f: string): ReturnType<typeof readLabText> =>
    readLabText(fs.readFileSync(path.join(FIX, f), "utf8"), f);

  it("names the precision, lag, short-window and saturation problems of the 4-step run", () => {
    const { plan, answers } = buildLabAnalysis([read("subintervals.csv"), read("summary.csv")]);
    const summary = plan.sheets.find((s) => s.name === "Summary")!;
    const list = summary.tables.find((t) => t.name === "Warnings")!.rows.map((r) => r[0] as string);
    // iogen's achieved_pm of steps 2 and 3 (from the CSV), and step 3's lag over its service time.
    const csv = fs
      .readFileSync(path.join(FIX, "summary.csv"), "utf8")
      .trim()
      .split("\n")
      .map((l) => l.split(","));
    const col = (name: string): number => csv[0].indexOf(name);
    const pm = (step: number): string => `±${Number((Number(csv[step][col("achieved_pm")]) * 100).toPrecision(2))} %`;
    expect(list).toContainEqual(
      expect.stringMatching(
        new RegExp(`^step 2 nfs-4000: iogen's achieved precision is ${pm(2)} at 95 % \\(asked ±5 %`),
      ),
    );
    expect(list).toContainEqual(
      expect.stringMatching(new RegExp(`^step 3 nfs-12000: iogen's achieved precision is ${pm(3)} at 95 %`)),
    );
    const lagShare = Number(csv[3][col("iogen_lag_ms_avg")]) / Number(csv[3][col("service_ms_avg")]);
    expect(list).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^step 3 nfs-12000: iogen's own launch lag averaged .* ms, ${Number((lagShare * 100).toPrecision(2))} % of the mean service time`,
        ),
      ),
    );
    expect(list).toContainEqual(
      expect.stringMatching(/^step 1 nfs-1000: only 5 measured subintervals \(5 s\): too short/),
    );
    expect(list).toContainEqual(
      expect.stringMatching(/^step 4 nfs-max: CPU at 99\.\d % \(≥ 98 %\): saturated; left off the CPU line/),
    );
    expect(list).toContainEqual(expect.stringMatching(/^CPU line: Not usable: the CPU does not rise measurably/));
    expect(list).not.toContain("none");
    // The same warnings per step in the JSON answer.
    const json = labJson(answers, plan.sources, plan.warnings);
    expect(json.steps[2].warnings.some((w) => /launch lag/.test(w))).toBe(true);
    expect(json.warnings).toEqual(plan.warnings);
  });

  it('says "none" only when there is nothing to say', () => {
    const clean: LabModel = {
      ...TWO_PROTOCOLS,
      protocols: TWO_PROTOCOLS.protocols.map((p) => ({ ...p, targets: p.targets.filter((t) => t !== "max") })),
    };
    const { plan } = analyse(clean, 2);
    const list = plan.sheets[0].tables.find((t) => t.name === "Warnings")!.rows.map((r) => r[0]);
    expect(list).toEqual(["none"]);
    expect(plan.warnings).toEqual([]);
  });
});
