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
import { mmcStaff } from "../../src/core/mmc";
import { npv } from "../../src/core/npv";
import { serversForUtilization } from "../../src/case/model";

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
interface Fixture {
  pools: FixturePool[];
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

/** The case's sizing rules (model.ts: utilization law; mmcStaff for a response or a service level). */
function sizingRule(s: number, z: FixtureSizing): (rate: number) => number {
  if (z.utilization !== undefined) return (rate) => serversForUtilization(rate * s, z.utilization as number);
  if (z.response !== undefined) return (rate) => mmcStaff(s, rate, (z.response as number) - s);
  return (rate) => mmcStaff(s, rate, z.serviceLevel as number, z.answerWithin);
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
    expect(got.runsOutIn).toBe(expected.runsOutIn);
    expect(got.years.length).toBe(expected.years.length);
    got.years.forEach((y, t) => {
      const w = expected.years[t];
      const at = `pool ${i} year ${t}`;
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
    const flows = got.years.map((y) => y.oneOffCost + y.yearlyCost);
    close(npv(input.discountRate, flows), expected.npv, `pool ${i} NPV`);
  });
});
