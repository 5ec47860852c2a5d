/**
 * Year-by-year capacity plans against an independent calculation: tests/case/fixtures/
 * capacity-plan.json, written by generate-capacity-plan.py beside it (50-digit mpmath: Erlang C by
 * its closed form through the Poisson pmf and the regularized incomplete gamma, sizing by search;
 * numpy-financial NPV). Not from the code under test. 150 seeded pools (growth −20 % to +100 %,
 * purchase units 1–48, installed 0–500, every sizing rule, both purchase policies) and the example
 * examples/growing-datastore.json. Tolerance 1e-9 relative (the fixture's loads are exact to 50
 * digits; the code's are doubles, off by a few ulps per year of growth); counts exactly.
 * Regenerate: python3 tests/case/fixtures/generate-capacity-plan.py > tests/case/fixtures/capacity-plan.json
 */
import * as fs from "fs";
import * as path from "path";
import { GrowthRates, PoolPlan, PoolState, poolPlan, PurchasePolicy } from "../../src/core/capacity-plan";
import { npv } from "../../src/core/npv";
import { serversAt } from "../../src/case/model";
import { casePlanFromJson, CasePlan } from "../../src/case/case-plan";
import { cellResult, TablePlan } from "../../src/workbook/plan";
import { Sizing } from "../../src/case/input";

interface FixtureSizing {
  utilization?: number;
  response?: number;
  serviceLevel?: number;
  answerWithin?: number;
}
interface FixturePool {
  input: {
    years: number;
    arrivalRate: number;
    serviceTime: number;
    growth: GrowthRates;
    sizing: FixtureSizing;
    installed: number;
    unit: number;
    policy: PurchasePolicy;
    costPerServer: number;
    costPerServerPerYear: number;
    discountRate: number;
  };
  expected: PoolPlan & { npv: number };
}
interface Scenario {
  low: number;
  high: number;
}
interface Fixture {
  pools: FixturePool[];
  example: {
    file: string;
    expected: { options: { pools: PoolPlan[]; cashflows: number[]; npv: number; scenario: Scenario }[] };
  };
  /** Two-option growth cases and each option's low and high scenario (load, growth, capex, server costs). */
  scenarioCases: { case: unknown; expected: Scenario[] }[];
}
const FIXTURE = JSON.parse(fs.readFileSync(path.join(__dirname, "fixtures", "capacity-plan.json"), "utf8")) as Fixture;

/** |actual − expected| ≤ 1e-9·max(|expected|, tiny), with a message naming the figure. */
function close(actual: number | null | undefined, expected: number | null | undefined, what: string): void {
  if (expected === null || expected === undefined) {
    expect({ what, actual }).toEqual({ what, actual: expected });
    return;
  }
  const ok = typeof actual === "number" && Math.abs(actual - expected) <= 1e-9 * Math.max(Math.abs(expected), 1e-300);
  if (!ok) throw new Error(`${what}: expected ${expected}, got ${String(actual)}`);
}

function closeState(actual: PoolState, expected: PoolState, what: string): void {
  close(actual.utilization, expected.utilization, `${what} utilization`);
  close(actual.meanResponse, expected.meanResponse, `${what} mean response`);
  close(actual.serviceLevel, expected.serviceLevel, `${what} service level`);
}

/** The case's own sizing rule (the Capacity table's) for a fixture pool. */
function sizingRule(s: number, z: FixtureSizing): (rate: number) => number {
  const sizing: Sizing =
    z.utilization !== undefined
      ? { kind: "utilization", utilization: z.utilization }
      : z.response !== undefined
        ? { kind: "response", response: z.response }
        : { kind: "serviceLevel", level: z.serviceLevel as number, answerWithin: z.answerWithin as number };
  return (rate) => serversAt({ name: "pool", arrivalRate: rate, serviceTime: s, sizing }, rate);
}

/** Every year of a plan against the fixture's. */
function expectPlan(got: PoolPlan, want: PoolPlan, what: string): void {
  expect([what, got.runsOutIn]).toEqual([what, want.runsOutIn]);
  expect(got.years.length).toBe(want.years.length);
  got.years.forEach((y, t) => {
    const w = want.years[t];
    const at = `${what} year ${t}`;
    close(y.loadStart, w.loadStart, `${at} load at start`);
    close(y.loadEnd, w.loadEnd, `${at} load at end`);
    expect([at, y.needed, y.neededEnd, y.required, y.bought, y.inService]).toEqual([
      at,
      w.needed,
      w.neededEnd,
      w.required,
      w.bought,
      w.inService,
    ]);
    closeState(y.start, w.start, `${at} start`);
    closeState(y.end, w.end, `${at} end`);
    close(y.oneOffCost, w.oneOffCost, `${at} one-off cost`);
    close(y.yearlyCost, w.yearlyCost, `${at} yearly cost`);
  });
}

describe("poolPlan against the mpmath/numpy-financial year-by-year plans", () => {
  it("covers at least 100 pools over the asked ranges", () => {
    const inputs = FIXTURE.pools.map((p) => p.input);
    expect(inputs.length).toBeGreaterThanOrEqual(100);
    const rates = inputs.flatMap((p) => (typeof p.growth === "number" ? [p.growth] : [...p.growth]));
    expect(Math.min(...rates)).toBeCloseTo(-0.2, 2);
    expect(Math.max(...rates)).toBeCloseTo(1, 2);
    expect(Math.min(...inputs.map((p) => p.unit))).toBe(1);
    expect(Math.max(...inputs.map((p) => p.unit))).toBeGreaterThanOrEqual(45);
    expect(Math.max(...inputs.map((p) => p.installed))).toBeGreaterThanOrEqual(450);
    expect(new Set(inputs.map((p) => Object.keys(p.sizing)[0])).size).toBe(3);
  });

  it.each(FIXTURE.pools.map((p, i) => [i, p] as const))("pool %i: every year's figures", (i, { input, expected }) => {
    const frozen = Object.freeze({
      ...input,
      growth: typeof input.growth === "number" ? input.growth : Object.freeze([...input.growth]),
      serversFor: sizingRule(input.serviceTime, input.sizing),
      answerWithin: input.sizing.answerWithin,
    });
    const got = poolPlan(frozen);
    expectPlan(got, expected, `pool ${i}`);
    const flows = got.years.map((y) => y.oneOffCost + y.yearlyCost);
    close(npv(input.discountRate, flows), expected.npv, `pool ${i} NPV`);
  });
});

describe("examples/growing-datastore.json against the same generator", () => {
  const want = FIXTURE.example.expected;
  const file = path.join(__dirname, "..", "..", FIXTURE.example.file);
  const c = casePlanFromJson(JSON.parse(fs.readFileSync(file, "utf8")));

  it("every option's purchase plan, year by year", () => {
    want.options.forEach((o, i) =>
      o.pools.forEach((p, j) =>
        expectPlan(c.result.options[i].workloads[j].plans?.base as PoolPlan, p, `option ${i} workload ${j}`),
      ),
    );
  });

  it("every option's yearly cash flows and net present cost (numpy-financial)", () => {
    want.options.forEach((o, i) => {
      const got = c.result.options[i];
      expect(got.cashflows.length).toBe(o.cashflows.length);
      got.cashflows.forEach((cf, t) => close(cf, o.cashflows[t], `option ${i} cash flow ${t}`));
      close(got.npv, o.npv, `option ${i} NPV`);
    });
  });

  it("reproduces its source's growth: 23 % a year for five years is 2.815 × (IDC: 64.2 ZB in 2020 → 180.7 ZB in 2025)", () => {
    const years = c.result.options[0].workloads[0].plans?.base.years ?? [];
    const factor = years[years.length - 1].loadEnd / years[0].loadStart;
    expect(years.length).toBe(5);
    close(factor, 1.23 ** 5, "growth over five years");
    expect(Math.round(64.2 * factor * 10) / 10).toBe(180.7);
    // NFS runs out in year 2 (13 cores needed, 12 installed) and buys a node of 4 then and in year 4.
    expect(c.result.options[0].runsOutIn).toBe(2);
    expect(years.map((y) => y.bought)).toEqual([0, 0, 4, 0, 4]);
    expect(c.result.options[1].runsOutIn).toBeNull();
  });
});

/** The Scenarios table's cached low and high net present cost of each option. */
function scenarioCells(c: CasePlan): Scenario[] {
  const t = c.plan.sheets[0].tables.find((x) => x.name === "Scenarios") as TablePlan;
  const col = (key: string): number => t.columns.findIndex((x) => x.key === key);
  return t.rows.map((r) => ({
    low: cellResult(r[col("npv_low")]) as number,
    high: cellResult(r[col("npv_high")]) as number,
  }));
}

describe("the low and high scenarios move growth with the load, capex and server costs", () => {
  const cases = [
    {
      name: FIXTURE.example.file,
      json: JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", FIXTURE.example.file), "utf8")),
      want: FIXTURE.example.expected.options.map((o) => o.scenario),
    },
    ...FIXTURE.scenarioCases.map((x, k) => ({ name: `generated case ${k}`, json: x.case, want: x.expected })),
  ];

  it("covers the example and at least 20 generated cases", () => {
    expect(cases.length).toBeGreaterThanOrEqual(21);
  });

  it.each(cases.map((c) => [c.name, c] as const))(
    "%s: every option's low and high scenario (mpmath, numpy-financial)",
    (name, c) => {
      const plan = casePlanFromJson(c.json);
      const cells = scenarioCells(plan);
      c.want.forEach((want, i) => {
        const got = plan.result.options[i].scenario;
        close(got.low, want.low, `${name} option ${i} low scenario`);
        close(got.high, want.high, `${name} option ${i} high scenario`);
        close(cells[i].low, want.low, `${name} option ${i} Scenarios table, low`);
        close(cells[i].high, want.high, `${name} option ${i} Scenarios table, high`);
      });
    },
  );
});

describe("growth 0 gives today's case", () => {
  const examples = ["storage-replacement.json", "nfs-vs-fc-70k-iops.json", "merging-helpdesks.json"];
  it.each(examples)(
    "%s: with growth 0 on every sized workload, the same cash flows, NPVs, servers and conclusion",
    (file) => {
      const json = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "examples", file), "utf8"));
      const today = casePlanFromJson(json);
      const zero = structuredClone(json) as { options: { workloads?: { sizing: object; growth?: number }[] }[] };
      let grown = 0;
      for (const o of zero.options)
        for (const w of o.workloads ?? [])
          if (!("servers" in w.sizing)) {
            w.growth = 0;
            grown++;
          }
      const planned = casePlanFromJson(zero);
      if (grown > 0) expect(planned.plan.sheets[0].tables.some((t) => t.name === "PurchasePlan")).toBe(true);
      planned.result.options.forEach((o, i) => {
        const t = today.result.options[i];
        expect([o.cashflows, o.npv, o.servers, o.upfront, o.running]).toEqual([
          t.cashflows,
          t.npv,
          t.servers,
          t.upfront,
          t.running,
        ]);
      });
      expect(planned.plan.sheets[0].notes[1]).toBe(today.plan.sheets[0].notes[1]);
    },
  );
});
