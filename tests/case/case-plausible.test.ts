/**
 * How far a move is plausible, per driver, from the case file (`plausibleMove` on the case, an
 * option, a running-cost line, a one-off, a workload): validated with errors naming the field, the
 * most specific one taken (`plausibleOf`), written into the Break-even table's input column, and
 * used for the grid the Probes table asks (p, 2p, 5p) and for the confidence.
 */
import { parseCaseInput } from "../../src/case/input";
import { plausibleOf } from "../../src/case/case-drivers";
import { casePlanFromJson } from "../../src/case/case-plan";
import { computeCase } from "../../src/case/model";
import { judgeCase } from "../../src/case/robustness";
import { cellResult, TablePlan } from "../../src/workbook/plan";

const CASE = {
  years: 3,
  discountRate: 0.08,
  options: [
    {
      name: "Keep",
      opex: [
        { label: "Support", perYear: 40000, escalation: 0.03, plausibleMove: 0.05 },
        { label: "Power", perYear: 9000 },
      ],
      oneOff: [{ label: "Audit", amount: 5000, plausibleMove: 0.4 }],
    },
    {
      name: "Cloud",
      plausibleMove: 0.25,
      capex: 20000,
      opex: [{ label: "Fees", perYear: 30000 }],
      workloads: [{ name: "Calls", arrivalRate: 3, serviceTime: 4, sizing: { utilization: 0.8 }, plausibleMove: 0.15 }],
      costPerServerPerYear: 1000,
    },
  ],
  plausibleMove: { default: 0.12, discountRate: 0.3, load: 0.2 },
};

function message(json: unknown): string {
  try {
    parseCaseInput(json);
  } catch (e) {
    return (e as Error).message;
  }
  return "accepted";
}

describe("plausible moves from the case file", () => {
  it("takes the most specific move: line, one-off, workload, option, then the case's for its kind, then its default", () => {
    const input = parseCaseInput(CASE);
    expect(plausibleOf(input, "opex:0:0")).toBe(0.05);
    expect(plausibleOf(input, "esc:0:0")).toBe(0.05);
    expect(plausibleOf(input, "opex:0:1")).toBe(0.12);
    expect(plausibleOf(input, "oneoff:0:0")).toBe(0.4);
    expect(plausibleOf(input, "capex:1")).toBe(0.25);
    expect(plausibleOf(input, "opex:1:0")).toBe(0.25);
    expect(plausibleOf(input, "arrival:1:0")).toBe(0.15);
    expect(plausibleOf(input, "target:1:0")).toBe(0.15);
    expect(plausibleOf(input, "rate")).toBe(0.3);
    expect(plausibleOf(input, "load")).toBe(0.2);
    expect(plausibleOf(parseCaseInput({ ...CASE, plausibleMove: 0.07 }), "rate")).toBe(0.07);
    expect(plausibleOf(parseCaseInput({ ...CASE, plausibleMove: undefined }), "opex:0:1")).toBe(0.1);
  });

  it("refuses a move out of (0, 1] and an unknown case-wide key, naming the field", () => {
    expect(message({ ...CASE, plausibleMove: 0 })).toMatch(/^plausibleMove: /);
    expect(message({ ...CASE, plausibleMove: 10 })).toMatch(/^plausibleMove: .*at most 1/);
    expect(message({ ...CASE, plausibleMove: { default: 0.1, capex: 0.2 } })).toMatch(/capex/);
    const line = structuredClone(CASE);
    (line.options[0].opex[0] as { plausibleMove: unknown }).plausibleMove = "10%";
    expect(message(line)).toMatch(/^options\[0\]\.opex\[0\]\.plausibleMove: /);
    const typo = structuredClone(CASE) as { options: Record<string, unknown>[] };
    typo.options[1].plausibleMoves = 0.2;
    expect(message(typo)).toMatch(/plausibleMoves/);
  });

  it("writes each driver's move into the Break-even table's input column and asks the Probes grid at p, 2p, 5p of it", () => {
    const plan = casePlanFromJson(CASE);
    const tables = plan.plan.sheets[0].tables;
    const be = tables.find((t) => t.name === "BreakEven") as TablePlan;
    const col = (key: string): number => be.columns.findIndex((c) => c.key === key);
    const row = (label: string): unknown[] => be.rows.find((r) => r[0] === label) as unknown[];
    expect(row("Keep: Support per year")[col("plausible")]).toBe(0.05);
    expect(row("Cloud: capex")[col("plausible")]).toBe(0.25);
    expect(row("Discount rate")[col("plausible")]).toBe(0.3);
    const probes = tables.find((t) => t.name === "Probes") as TablePlan;
    const moves = probes.rows
      .filter((r) => r[0] === "Discount rate")
      .map((r) => cellResult(r[probes.columns.findIndex((c) => c.key === "move")] as never));
    expect(moves).toEqual([0.3, 0.6, 1.5, -0.3, -0.6, -1.5]);
    // The judge uses the same moves: the discount rate's grid is 8 % × (1 + move)
    const input = parseCaseInput(CASE);
    const rate = judgeCase(input, computeCase(input)).drivers.find((d) => d.driver.key === "rate");
    // (−0.04 at −5p is a valid rate: above −50 %).
    expect(rate?.probes?.map((p) => p.value)).toEqual(moves.map((m) => 0.08 * (1 + (m as number))));
  });
});
