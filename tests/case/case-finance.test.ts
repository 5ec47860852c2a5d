/**
 * The finance figures of the three examples against an independent calculation:
 * tests/case/fixtures/finance.json, written by generate-finance.py beside it with numpy-financial
 * (npv, irr) and numpy (cumulative sums for the paybacks), servers re-sized by
 * generate-expected.py's 50-digit mpmath sizing at the scaled loads. Not from the code under test.
 * Regenerate: python3 tests/case/fixtures/generate-finance.py > tests/case/fixtures/finance.json
 */
import * as fs from "fs";
import * as path from "path";
import { casePlanFromJson } from "../../src/case/case-plan";
import { TornadoRow } from "../../src/case/model";
import { irr, signChanges } from "../../src/core/irr";
import { payback } from "../../src/core/payback";

interface Fixture {
  examples: Record<
    string,
    {
      recommended: number;
      options: {
        npvSaving: number;
        irr: number | null;
        payback: number | null;
        discountedPayback: number | null;
        savings: number[];
      }[];
      tornado: Record<TornadoRow["driver"], [number, number]>;
      scenarios: { low: number[]; base: number[]; high: number[] };
    }
  >;
}
const FIXTURE = JSON.parse(fs.readFileSync(path.join(__dirname, "fixtures", "finance.json"), "utf8")) as Fixture;
const EXAMPLES = path.join(__dirname, "..", "..", "examples");

/** Equal within `rel` of the larger of |expected| and `scale` (savings are differences of NPVs). */
function close(actual: number, expected: number, scale: number, rel = 1e-11): void {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(rel * Math.max(Math.abs(expected), scale));
}

describe.each(Object.keys(FIXTURE.examples))("finance of %s against numpy-financial", (file) => {
  const want = FIXTURE.examples[file];
  const c = casePlanFromJson(JSON.parse(fs.readFileSync(path.join(EXAMPLES, file), "utf8")));
  const scale = Math.max(...c.result.options.map((o) => Math.abs(o.npv)));

  it("NPV saving, incremental IRR, payback and discounted payback of every option against the baseline", () => {
    expect(c.result.options.length - 1).toBe(want.options.length);
    want.options.forEach((w, k) => {
      const got = c.result.options[k + 1].vsBaseline;
      expect(got).toBeDefined();
      if (!got) return;
      got.savings.forEach((s, t) => close(s, w.savings[t], scale));
      close(got.npvSaving, w.npvSaving, scale);
      if (w.irr === null) expect(got.irr).toBeNull();
      else close(got.irr as number, w.irr, 0, 1e-9);
      expect(got.payback).toBe(w.payback);
      expect(got.discountedPayback).toBe(w.discountedPayback);
    });
  });

  it("tornado: the recommended option's NPV saving with each driver low and high", () => {
    expect(c.result.recommended).toBe(want.recommended);
    for (const row of c.result.tornado) {
      const [lo, hi] = want.tornado[row.driver];
      close(row.savingLow, lo, scale);
      close(row.savingHigh, hi, scale);
    }
    const hasWorkloads = c.input.options.some((o) => o.workloads.length > 0);
    expect(c.result.tornado.map((r) => r.driver)).toEqual(
      hasWorkloads ? ["load", "discountRate", "capex", "serverCost"] : ["discountRate", "capex"],
    );
  });

  it("scenarios: every option's net present cost with load, capex and server costs all low, base, all high", () => {
    c.result.options.forEach((o, i) => {
      close(o.scenario.low, want.scenarios.low[i], scale);
      close(o.npv, want.scenarios.base[i], scale);
      close(o.scenario.high, want.scenarios.high[i], scale);
    });
  });

  it("the sheet shows them: a Return table, a Sensitivity table with its tornado chart, and Scenarios", () => {
    const sheet = c.plan.sheets[0];
    const names = sheet.tables.map((t) => t.name);
    for (const n of ["Recommendation", "Return", "Savings", "Sensitivity", "Scenarios"]) expect(names).toContain(n);
    expect(sheet.charts.map((ch) => ch.title)).toEqual([
      "Cumulative discounted cost",
      `Sensitivity: NPV saving of ${c.input.options[want.recommended].name} vs ${c.input.options[0].name}`,
    ]);
  });
});

it("two of the examples have an option that pays back with an IRR (in the third, FC never saves)", () => {
  const paying = Object.values(FIXTURE.examples).filter((e) =>
    e.options.some((w) => w.irr !== null && w.payback !== null),
  );
  expect(paying.length).toBe(2);
});

describe("core finance helpers", () => {
  it("irr: the root of a conventional series; refused without exactly one sign change", () => {
    // numpy_financial.irr([-150000, 100000, 100000]) = 0.21525043702153024; by hand:
    // 1.5·(1 + r)² = (1 + r) + 1 → 1 + r = (1 + √7)/3.
    expect(irr([-150000, 100000, 100000])).toBeCloseTo((1 + Math.sqrt(7)) / 3 - 1, 14);
    expect(irr([0, -100, 110])).toBeCloseTo(0.1, 14);
    expect(() => irr([100, 50])).toThrow("never change sign");
    expect(() => irr([-100, 230, -132])).toThrow("change sign 2 times");
    expect(signChanges([-1, 0, 2, 0, 3])).toBe(1);
  });

  it("payback: whole years to the last negative cumulative saving, null when not reached", () => {
    expect(payback([-150000, 100000, 100000])).toBe(2);
    expect(payback([-150000, 50000, 50000])).toBeNull();
    expect(payback([10, -5, 1])).toBe(0);
    // A later dip below zero counts: last negative year 2 → 3 years.
    expect(payback([-10, 20, -15, 30])).toBe(3);
    // Discounted at 10 %: −100 + 60 + 60/1.1 = 14.5 ≥ 0 after year 2.
    expect(payback([-100, 60, 60], 0.1)).toBe(2);
    expect(payback([-100, 50, 55], 0.1)).toBeNull();
  });
});
