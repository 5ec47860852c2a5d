import fc from "fast-check";
import { expectedMaximumNormal, integrate, isDomainError } from "../../src/core";
import normalCdf from "@stdlib/stats-base-dists-normal-cdf";
import reference from "./fixtures/reference.json";

describe("expectedMaximumNormal", () => {
  it("gives Harter's (1961) tabulated values for M = 2, 4, 10, 100 (7 decimals)", () => {
    // Harter (1961), Biometrika 48: E[max] for M = 2, 4, 10, 100: 0.5641896, 1.0293754, 1.5387527, 2.5075936.
    const expected: [number, number][] = [
      [2, 0.5641896],
      [4, 1.0293754],
      [10, 1.5387527],
      [100, 2.5075936],
    ];
    for (const [m, v] of expected) expect(Math.abs(expectedMaximumNormal(m) - v)).toBeLessThan(5e-8);
  });

  it("matches the closed forms for M = 2 and 3: 1/√π and 3/(2√π)", () => {
    expect(Math.abs(expectedMaximumNormal(2) - 1 / Math.sqrt(Math.PI))).toBeLessThan(1e-12);
    expect(Math.abs(expectedMaximumNormal(3) - 1.5 / Math.sqrt(Math.PI))).toBeLessThan(1e-12);
  });

  it("is 0 for M = 1", () => {
    expect(expectedMaximumNormal(1)).toBe(0);
  });

  it("matches the mpmath reference to 1e-9 absolute for M up to 10^6", () => {
    // tests/core/fixtures/gen-reference.py: mpmath 30-digit tanh-sinh quadrature.
    for (const { count, value } of reference.expectedMaximum) {
      expect(Math.abs(expectedMaximumNormal(count) - value)).toBeLessThan(1e-9);
    }
  });

  it("agrees with a trapezoid rule on ∫_0^∞ (1 − Φ(x)^M − Φ(−x)^M) dx for large M (independent formula)", () => {
    // E[max] = ∫_0^∞ (1 − Φ^M) dx − ∫_{−∞}^0 Φ^M dx = ∫_0^∞ (1 − Φ(x)^M − Φ(−x)^M) dx. The integrand
    // extends to an even, smooth, rapidly decaying function on the real line, for which the
    // trapezoid rule converges geometrically; h = 1/400 on [0, 14] (the tail beyond 14 is < 1e-40).
    for (const m of [50, 12345, 1_000_000, 10_000_000]) {
      const h = 1 / 400;
      const n = 14 * 400;
      let sum = 0;
      for (let i = 0; i <= n; i++) {
        const x = i * h;
        const q = normalCdf(-x, 0, 1);
        const term = -Math.expm1(m * Math.log1p(-q)) - Math.exp(m * Math.log(q));
        sum += (i === 0 || i === n ? 0.5 : 1) * term;
      }
      expect(Math.abs(expectedMaximumNormal(m) - sum * h)).toBeLessThan(1e-9);
    }
  });

  it("is increasing in M (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), (m) => {
        expect(expectedMaximumNormal(m + 1)).toBeGreaterThan(expectedMaximumNormal(m));
      }),
      { numRuns: 50, seed: 7 },
    );
  });

  it.each([0, -3, 2.5, Number.NaN, 1e16])("rejects M = %p with a DomainError", (m) => {
    try {
      expectedMaximumNormal(m);
      throw new Error("expected a DomainError");
    } catch (e) {
      expect(isDomainError(e) && e.argument).toBe("centres");
    }
  });
});

describe("integrate (Gauss–Kronrod 7/15)", () => {
  it("is exact for polynomials up to degree 22 and accurate for smooth functions", () => {
    expect(Math.abs(integrate((x) => x ** 10, [0, 1], 1e-15).value - 1 / 11)).toBeLessThan(1e-15);
    expect(Math.abs(integrate(Math.exp, [0, 1, 2], 1e-14).value - (Math.E * Math.E - 1))).toBeLessThan(1e-13);
    expect(Math.abs(integrate((x) => 1 / (1 + x * x), [-50, 50], 1e-13).value - 2 * Math.atan(50))).toBeLessThan(1e-12);
  });
});
