/**
 * Erlang B and C against 60-digit mpmath (tests/core/fixtures/gen-reference.py, "erlang"): every c
 * from 1 to 10⁷ on a grid of utilizations up to 0.9999 plus 120 random points, both routes (the
 * recursion below ERLANG_RECURSION_MAX_SERVERS, the Poisson form above) and the overload
 * side (a ≥ c, Erlang B only).
 */
import {
  ERLANG_RECURSION_MAX_SERVERS,
  MAX_SERVERS,
  erlangB,
  erlangBRecursion,
  erlangBUnchecked,
  erlangC,
  mmcMetrics,
  mmcServiceLevel,
  mmcStaff,
} from "../../src/core";
import { expectRelClose } from "./close";
import reference from "./fixtures/reference.json";

/** Relative error allowed for every normal-range value. */
const TOLERANCE = 1e-12;
/** Below this the reference is compared for "underflows to (almost) zero" only. */
const NORMAL_FLOOR = 1e-300;

function expectMatches(actual: number, expected: number): void {
  if (Math.abs(expected) >= NORMAL_FLOOR) expectRelClose(actual, expected, TOLERANCE);
  else expect(Math.abs(actual)).toBeLessThan(1e-290);
}

describe("Erlang B and C against mpmath (60 digits), c = 1 … 10⁷", () => {
  it("covers c up to 10⁷, ρ up to 0.9999 and both sides of the switch point", () => {
    const servers = reference.erlang.map((r) => r.servers);
    expect(Math.max(...servers)).toBe(10_000_000);
    expect(servers.some((c) => c <= ERLANG_RECURSION_MAX_SERVERS)).toBe(true);
    expect(servers.some((c) => c === ERLANG_RECURSION_MAX_SERVERS + 1)).toBe(true);
    expect(reference.erlang.some((r) => r.load / r.servers > 0.9998 && r.servers === 10_000_000)).toBe(true);
  });

  it("every case within 1e-12 relative", () => {
    const failures: string[] = [];
    for (const ref of reference.erlang) {
      try {
        expectMatches(erlangB(ref.servers, ref.load), ref.erlangB);
        if (ref.erlangC !== undefined) expectMatches(erlangC(ref.servers, ref.load), ref.erlangC);
      } catch (e) {
        failures.push(`c=${ref.servers} a=${ref.load}: ${(e as Error).message}`);
      }
    }
    expect(failures).toEqual([]);
  });
});

describe("M/M/c at c = 10⁶ and 10⁷ against mpmath (S = 1)", () => {
  it.each(reference.mmcLarge.map((r) => [r.servers, r.utilization, r] as const))("c=%p ρ=%p", (_c, _rho, ref) => {
    const m = mmcMetrics(ref.servers, ref.serviceTime, ref.arrivalRate);
    expectRelClose(m.meanResponse, ref.meanResponse, TOLERANCE);
    expectMatches(m.pWait, ref.pWait);
    expectMatches(m.meanWait, ref.meanWait);
    expectMatches(m.meanQueueLength, ref.meanQueueLength);
    expectRelClose(m.meanInSystem, ref.meanInSystem, TOLERANCE);
    expectRelClose(
      mmcServiceLevel(ref.servers, ref.serviceTime, ref.arrivalRate, ref.answerWithin),
      ref.serviceLevel,
      TOLERANCE,
    );
  });
});

describe("the two routes and the staffing search at large c", () => {
  it("the switch point leaves the Poisson form only c ≥ 16 (Loader's Stirling series)", () => {
    expect(ERLANG_RECURSION_MAX_SERVERS).toBeGreaterThanOrEqual(15);
  });

  it("recursion and Poisson form agree within 1e-13 on both sides of the switch point", () => {
    for (const c of [16, 40, 41, 64, 200, 1000]) {
      for (const rho of [0.05, 0.5, 0.9, 0.99, 0.9999]) {
        const b = erlangBRecursion(c, rho * c);
        expectRelClose(erlangBUnchecked(c, rho * c), b, 1e-13);
      }
    }
  });

  it.each([
    [1, 9.9e5, 0.8, 1e-3],
    [1, 5e6, 0.95, 1e-4],
    [2, 3.3e6, 0.5, undefined],
  ])("mmcStaff(%p, %p, %p, %p) is minimal at millions of servers", (s, lam, target, t) => {
    const c = mmcStaff(s, lam, target, t);
    const meets = (k: number): boolean =>
      t === undefined ? mmcMetrics(k, s, lam).meanWait <= target : mmcServiceLevel(k, s, lam, t) >= target;
    expect(c).toBeGreaterThan(lam * s);
    expect(meets(c)).toBe(true);
    if (c - 1 > lam * s) expect(meets(c - 1)).toBe(false);
  });

  it("mmcStaff says when even MAX_SERVERS is not enough", () => {
    expect(() => mmcStaff(1, MAX_SERVERS - 0.5, 0.999999, 1e-9)).toThrow(
      /^target: not reachable with up to 10000000 servers/,
    );
  });
});
