import fc from "fast-check";
import { isDomainError, npv, npvLevel } from "../../src/core";
import { expectRelClose } from "./close";

describe("npv (first cash flow at t = 0)", () => {
  it("gives the seed's example: 100000 a year for t = 0, 1, 2 at 10% = 273553.72", () => {
    // Closed form: NPV_IT(0.1, {100000,100000,100000}) = NPV_IT(0.1, 100000, 2) = 273553.72;
    // exactly 100000·(1 + 1/1.1 + 1/1.21) = 100000·331/121.
    const flows = Object.freeze([100000, 100000, 100000]);
    expectRelClose(npv(0.1, flows), (100000 * 331) / 121, 1e-15);
    expectRelClose(npvLevel(0.1, 100000, 2), (100000 * 331) / 121, 1e-15);
    expect(Math.round(npv(0.1, flows) * 100) / 100).toBe(273553.72);
    expect(flows).toEqual([100000, 100000, 100000]);
  });

  it("does not discount the first cash flow (unlike Excel's NPV)", () => {
    expect(npv(0.5, [42])).toBe(42);
    // Excel: NPV(0.1, 100, 100) = 100/1.1 + 100/1.21 = 173.553…; NPV_IT = 100 + 100/1.1.
    expectRelClose(npv(0.1, [100, 100]), 100 + 100 / 1.1, 1e-15);
  });

  it("at rate 0 is the plain sum; negative rates above −1 are allowed", () => {
    expect(npv(0, [1, -2, 3.5])).toBe(2.5);
    expectRelClose(npv(-0.5, [1, 1]), 3, 1e-15);
  });

  it("is linear in the cash flows (property)", () => {
    const flows = fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 30 });
    fc.assert(
      fc.property(
        fc.double({ min: -0.9, max: 2, noNaN: true }),
        flows,
        flows,
        fc.double({ min: -10, max: 10, noNaN: true }),
        (rate, x, y, k) => {
          const n = Math.min(x.length, y.length);
          const xs = x.slice(0, n);
          const ys = y.slice(0, n);
          const combo = xs.map((v, i) => k * v + ys[i]);
          const lhs = npv(rate, combo);
          const rhs = k * npv(rate, xs) + npv(rate, ys);
          // Scale of the rounding error: the sum of |terms| at the worst discount factor.
          const scale = (Math.abs(k) + 1) * 1e6 * n * Math.max(1, 1 / Math.pow(1 + rate, n));
          expect(Math.abs(lhs - rhs)).toBeLessThanOrEqual(scale * 1e-13);
        },
      ),
      { numRuns: 300, seed: 5 },
    );
  });

  it("npvLevel equals npv of the repeated amount", () => {
    fc.assert(
      fc.property(fc.double({ min: -0.5, max: 1, noNaN: true }), fc.integer({ min: 0, max: 50 }), (rate, n) => {
        expect(npvLevel(rate, 250, n)).toBe(npv(rate, new Array(n + 1).fill(250)));
      }),
      { numRuns: 100, seed: 6 },
    );
  });

  it.each([
    [() => npv(-1, [1]), "rate"],
    [() => npv(Number.NaN, [1]), "rate"],
    [() => npv(0.1, []), "cashflows"],
    [() => npv(0.1, [1, Number.POSITIVE_INFINITY]), "cashflows"],
    [() => npvLevel(0.1, 1, -1), "periods"],
    [() => npvLevel(0.1, 1, 1.5), "periods"],
  ])("rejects bad input %#", (body, name) => {
    try {
      body();
      throw new Error("expected a DomainError");
    } catch (e) {
      expect(isDomainError(e) && e.argument).toBe(name);
    }
  });
});
