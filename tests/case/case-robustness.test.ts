/**
 * The choice of a case and the confidence the sheet gives it, against an independent check:
 * tests/case/fixtures/robustness.json, written by generate-robustness.py beside it
 * (numpy-financial, 40-digit mpmath Erlang C; no Capacity Lab code). For every example and 220
 * seeded cases it holds which options qualify, the choice, every single −10 %/+10 % move of a
 * numeric input that changes the choice, whether the lead is under 2 %, the M/M/c service figures
 * at the case's target and the IRRs.
 *
 * - the choice (cheapest qualifying option, −1 none) equals the check's, and so do the qualifying flags;
 * - wherever one move reverses the choice, the sheet's Confidence is not "High"; wherever the lead is
 *   under 2 % of the chosen option's net present cost, it is "Low" (acceptance 1);
 * - utilization, P(wait), mean wait and the share within the target equal mpmath to 1e-9 (acceptance 3);
 * - the IRR equals numpy-financial where the savings change sign once; with several, the roots
 *   found are numpy's and the label says which (acceptance 4);
 * - every driver not linear in the costs is asked at the same grid of moves as the check asks it
 *   (p, 2p, 5p up and down, p its plausible move), and the choice at each point is the check's
 *   (what the sheet's Probes table shows, and the break-even brackets come from).
 * Regenerate: python3 tests/case/fixtures/generate-robustness.py > tests/case/fixtures/robustness.json
 */
import * as fs from "fs";
import * as path from "path";
import { CaseInput, parseCaseInput } from "../../src/case/input";
import { computeCase } from "../../src/case/model";
import { judgeCase } from "../../src/case/robustness";
import { buildCasePlan } from "../../src/case/case-plan";
import { cellResult } from "../../src/workbook/plan";

interface Expected {
  choice: number;
  qualifies: boolean[];
  npv: number[];
  lead: number | null;
  closeLead: boolean;
  target: { level: number; answerWithin: number } | null;
  reversals: { input: string; factor: number; choice: number }[];
  grid: { driver: string; plausible: number; choices: (number | null)[] }[];
  workloads: {
    servers: number;
    stable: boolean;
    utilization?: number;
    pWait?: number;
    meanWait?: number;
    share?: number | null;
  }[][];
  returns: { savings: number[]; signChanges: number; irr: number | null; roots: number[] }[];
}
interface Fixture {
  skipped: { name: string; why: string }[];
  cases: { name: string; input: unknown; expected: Expected }[];
}
const FIXTURE = JSON.parse(fs.readFileSync(path.join(__dirname, "fixtures", "robustness.json"), "utf8")) as Fixture;

/** The check's name of a driver (its input path; "load" for every arrival rate together). */
function pathOf(key: string, input: CaseInput): string {
  const [kind, a, b] = key.split(":");
  const w = `options[${a}].workloads[${b}]`;
  switch (kind) {
    case "rate":
      return "discountRate";
    case "esc":
      return `options[${a}].opex[${b}].escalation`;
    case "arrival":
      return `${w}.arrivalRate`;
    case "service":
      return `${w}.serviceTime`;
    case "target": {
      const z = input.options[Number(a)].workloads[Number(b)].sizing;
      return `${w}.sizing.${z.kind}`;
    }
    case "within":
      return `${w}.sizing.answerWithin`;
    case "target_level":
      return "serviceTarget.serviceLevel";
    case "target_within":
      return "serviceTarget.answerWithin";
    default:
      return key;
  }
}

function rel(actual: number, expected: number): number {
  return Math.abs(actual - expected) / Math.max(Math.abs(expected), 1e-300);
}

describe("the choice and its confidence against the independent check (robustness.json)", () => {
  const cases = FIXTURE.cases.map((c) => {
    const input = parseCaseInput(c.input);
    const result = computeCase(input);
    return { ...c, input, result };
  });

  it("covers every example but those it says it skips, 220 generated cases, reversals, close leads and unqualified options", () => {
    const examples = fs.readdirSync(path.join(__dirname, "..", "..", "examples")).filter((f) => f.endsWith(".json"));
    const covered = new Set([...cases.map((c) => c.name), ...FIXTURE.skipped.map((s) => s.name)]);
    for (const e of examples) expect(covered.has(e)).toBe(true);
    expect(cases.filter((c) => c.name.startsWith("generated")).length).toBeGreaterThanOrEqual(200);
    expect(cases.filter((c) => c.expected.reversals.length > 0).length).toBeGreaterThan(50);
    expect(cases.filter((c) => c.expected.closeLead).length).toBeGreaterThan(5);
    expect(cases.filter((c) => c.expected.qualifies.includes(false)).length).toBeGreaterThan(20);
  });

  it("chooses the cheapest qualifying option the check chooses (qualifying flags too)", () => {
    const wrong = cases
      .filter(
        (c) =>
          c.result.chosen !== c.expected.choice ||
          c.result.options.some((o, i) => o.qualifies !== c.expected.qualifies[i]),
      )
      .map((c) => `${c.name}: chose ${c.result.chosen}, the check ${c.expected.choice}`);
    expect(wrong).toEqual([]);
  });

  it("the sheet's Confidence is never High where one plausible move (±10 % unless the case says otherwise) reverses the choice, and Low where the lead is under 2 %", () => {
    const wrong: string[] = [];
    let high = 0;
    for (const c of cases) {
      const plan = buildCasePlan(c.input);
      const rec = plan.plan.sheets[0].tables.find((t) => t.name === "Recommendation");
      const row = rec?.rows.find((r) => r[0] === "Confidence");
      const text = String(cellResult(row?.[1] ?? null));
      const grade = judgeCase(c.input, c.result).grade;
      expect(text.startsWith(grade)).toBe(true);
      if (grade === "High") high++;
      if (c.expected.reversals.length > 0 && grade === "High")
        wrong.push(
          `${c.name}: High, but ${c.expected.reversals[0].input} × ${c.expected.reversals[0].factor} reverses it`,
        );
      if (c.expected.closeLead && grade !== "Low") wrong.push(`${c.name}: ${grade} with a lead under 2 %`);
    }
    expect(wrong).toEqual([]);
    // The rule is not "never High": robust cases keep the top grade.
    expect(high).toBeGreaterThan(10);
  });

  it("utilization, P(wait), mean wait and the share within the target equal 40-digit mpmath to 1e-9", () => {
    let compared = 0;
    for (const c of cases)
      c.expected.workloads.forEach((ws, i) =>
        ws.forEach((w, j) => {
          const got = c.result.options[i].workloads[j];
          expect([c.name, i, j, got.servers, got.stable]).toEqual([c.name, i, j, w.servers, w.stable]);
          if (!w.stable) return;
          for (const key of ["utilization", "pWait", "meanWait"] as const)
            expect([c.name, key, rel(got[key], w[key] as number) <= 1e-9]).toEqual([c.name, key, true]);
          if (w.share !== null && w.share !== undefined) {
            expect(got.withinTarget).not.toBeNull();
            expect(rel(got.withinTarget as number, w.share) <= 1e-9).toBe(true);
            compared++;
          }
        }),
      );
    expect(compared).toBeGreaterThan(50);
  });

  it("the IRR equals numpy-financial for one sign change; several are labelled with numpy's roots", () => {
    let one = 0;
    let several = 0;
    for (const c of cases)
      c.expected.returns.forEach((want, k) => {
        const v = c.result.options[k + 1].vsBaseline;
        if (!v) throw new Error("no comparison with the baseline");
        expect(v.measure.signChanges).toBe(want.signChanges);
        if (want.signChanges === 1 && want.irr !== null) {
          one++;
          expect([c.name, k, rel(v.measure.rate as number, want.irr) <= 1e-9]).toEqual([c.name, k, true]);
          const first = want.savings.find((s) => s !== 0) as number;
          expect(v.measure.shape).toBe(first < 0 ? "invest-then-save" : "save-then-pay");
        }
        if (want.signChanges > 1) {
          several++;
          const inRange = want.roots.filter((r) => r > -0.99 && r < 99);
          expect(v.measure.roots.length).toBe(inRange.length);
          v.measure.roots.forEach((r, i) =>
            expect(Math.abs(r - inRange[i])).toBeLessThanOrEqual(1e-7 * Math.max(1, Math.abs(r))),
          );
          const band = inRange.filter((r) => r > -0.5 && r < 1);
          if (band.length === 1) expect(v.measure.rate).toBeCloseTo(band[0], 7);
          else expect([v.measure.shape, v.measure.rate]).toEqual(["no-rate", null]);
        }
      });
    expect(one).toBeGreaterThan(50);
    expect(several).toBeGreaterThan(10);
  });

  it("asks every non-linear driver at the check's grid of moves and finds the check's choice at every point", () => {
    const wrong: string[] = [];
    let points = 0;
    let changes = 0;
    for (const c of cases) {
      const r = judgeCase(c.input, c.result);
      const grid = r.drivers.filter((d) => d.probes !== null);
      const got = new Map(grid.map((d) => [pathOf(d.driver.key, c.input), d]));
      expect([c.name, [...got.keys()].sort()]).toEqual([c.name, c.expected.grid.map((g) => g.driver).sort()]);
      for (const want of c.expected.grid) {
        const d = got.get(want.driver);
        if (!d || !d.probes) continue;
        expect(d.plausible).toBe(want.plausible);
        const choices = d.probes.map((p) => p.choice);
        points += choices.filter((x) => x !== null).length;
        changes += choices.filter((x) => x !== null && x !== c.expected.choice).length;
        if (JSON.stringify(choices) !== JSON.stringify(want.choices))
          wrong.push(`${c.name} ${want.driver}: ${JSON.stringify(choices)}, the check ${JSON.stringify(want.choices)}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(points).toBeGreaterThan(5000);
    expect(changes).toBeGreaterThan(300);
  });
});
