/** Householder QR least squares: exact small cases, aliasing, rank, frozen inputs. */
import fc from "fast-check";
import { inv as inv_, lusolve } from "mathjs";
import { leastSquares } from "../../src/core/least-squares";

describe("leastSquares", () => {
  it("fits a line exactly", () => {
    const x = Object.freeze([Object.freeze([1, 1, 1, 1]), Object.freeze([1, 2, 3, 4])]);
    const r = leastSquares(x, Object.freeze([3, 5, 7, 9]));
    expect(r.coefficients[0] as number).toBeCloseTo(1, 13);
    expect(r.coefficients[1] as number).toBeCloseTo(2, 13);
    expect(r.rss).toBeLessThan(1e-25);
    expect(r.rank).toBe(2);
  });
  it("matches the closed form for simple regression, with (X'X)⁻¹ diagonal from R⁻¹", () => {
    const xs = [1, 2, 4, 7, 8];
    const ys = [2, 3, 7, 8, 12];
    const r = leastSquares([xs.map(() => 1), xs], ys);
    const n = xs.length;
    const mx = xs.reduce((a, b) => a + b) / n;
    const my = ys.reduce((a, b) => a + b) / n;
    const sxx = xs.reduce((s, v) => s + (v - mx) ** 2, 0);
    const sxy = xs.reduce((s, v, i) => s + (v - mx) * (ys[i] - my), 0);
    expect(r.coefficients[1] as number).toBeCloseTo(sxy / sxx, 13);
    expect(r.coefficients[0] as number).toBeCloseTo(my - (sxy / sxx) * mx, 13);
    expect(r.unscaledVariance[1] as number).toBeCloseTo(1 / sxx, 14);
    expect(r.unscaledVariance[0] as number).toBeCloseTo(1 / n + (mx * mx) / sxx, 14);
    const rss = r.residuals.reduce((s, e) => s + e * e, 0);
    expect(r.rss).toBeCloseTo(rss, 12);
  });
  it("identifies a dependent column (the later one), like R's lm", () => {
    const a = [1, 2, 3, 4, 5];
    const b = [2, 1, 0, 1, 2];
    const c = a.map((v, i) => 2 * v - b[i]); // c = 2a − b
    const r = leastSquares([a.map(() => 1), a, b, c], [1, 3, 2, 5, 4]);
    expect(r.aliased).toEqual([false, false, false, true]);
    expect(r.coefficients[3]).toBeNull();
    expect(r.unscaledVariance[3]).toBeNull();
    expect(r.rank).toBe(3);
  });
  it("flags a zero column and columns beyond n", () => {
    const r = leastSquares(
      [
        [1, 1],
        [0, 0],
        [1, 2],
        [3, 1],
      ],
      [1, 2],
    );
    expect(r.aliased).toEqual([false, true, false, true]);
  });
  it("rejects mismatched or non-finite input, naming the argument", () => {
    expect(() => leastSquares([[1, 2]], [1, 2, 3])).toThrow(/^x: column 1 has 2 values/);
    expect(() => leastSquares([[1, NaN]], [1, 2])).toThrow(/^x:/);
    expect(() => leastSquares([[1, 2]], [1, Infinity])).toThrow(/^y:/);
  });
});

describe("leastSquares vs an independent reference (property)", () => {
  it("agrees with the normal equations (mathjs lusolve, test-only reference) on well-conditioned random problems", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 1, max: 2 ** 31 - 2 }),
        (p, extra, seed) => {
          const n = p + 3 + extra;
          let state = seed;
          const rnd = (): number => {
            state = (state * 48271) % 2147483647;
            return state / 2147483647 - 0.5;
          };
          const x = Array.from({ length: p }, () => Array.from({ length: n }, rnd));
          const y = Array.from({ length: n }, rnd);
          const r = leastSquares(x, y);
          const xtx = x.map((a) => x.map((b) => a.reduce((s, v, i) => s + v * b[i], 0)));
          const xty = x.map((a) => a.reduce((s, v, i) => s + v * y[i], 0));
          const ref = (lusolve(xtx, xty) as number[][]).map((row) => row[0]);
          ref.forEach((b, j) =>
            expect(Math.abs((r.coefficients[j] as number) - b)).toBeLessThan(1e-8 * (1 + Math.abs(b))),
          );
          const inv = inv_(xtx);
          inv.forEach((row, j) => expect(r.unscaledVariance[j] as number).toBeCloseTo(row[j], 6));
        },
      ),
      { numRuns: 200, seed: 20261122 },
    );
  });
});
