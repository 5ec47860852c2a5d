import fc from "fast-check";
import { isDomainError } from "../../src/core";
import { firstChange, GRID_MULTIPLES, linearBreakEven, probedBreakEven } from "../../src/core/break-even";
import { expectRelClose } from "./close";

describe("linearBreakEven", () => {
  it("gives the seed's break-even: Keep (3 × £100,000 at 10 %) against Replace (£250,000)", () => {
    // Keep's support line has slope 1 + 1/1.1 + 1/1.21 = 331/121 per £ of yearly support; Replace 0.
    const costs = Object.freeze([(100000 * 331) / 121, 250000]);
    const slopes = Object.freeze([331 / 121, 0]);
    const be = linearBreakEven(costs, slopes, 1);
    // Keep's support must fall by (273,553.72 − 250,000)/(331/121) = £8,610.27 a year.
    expect(be.down?.rival).toBe(0);
    expectRelClose(be.down?.move, -((100000 * 331) / 121 - 250000) / (331 / 121), 1e-14);
    expect(be.up).toBeNull();
    expect(costs).toEqual([(100000 * 331) / 121, 250000]);
  });

  it("takes the nearest of several rivals on each side and skips ineligible ones", () => {
    // Chosen 1 (cost 100, slope 1). Rival 0: 110, slope 0 → up at +10. Rival 2: 105, slope 0.5 → up at +10 too? (105−100)/(1−0.5) = 10.
    // Rival 3: 103, slope 0.9 → up at +30. Rival 4: 102, slope 2 → down at −2.
    const be = linearBreakEven([110, 100, 104, 103, 102], [0, 1, 0.5, 0.9, 2], 1);
    expect(be.up).toEqual({ move: 8, rival: 2 });
    expect(be.down).toEqual({ move: -2, rival: 4 });
    const skip = linearBreakEven([110, 100, 104, 103, 102], [0, 1, 0.5, 0.9, 2], 1, [true, true, false, true, false]);
    expect(skip.up).toEqual({ move: 10, rival: 0 });
    expect(skip.down).toBeNull();
  });

  it("at the move found, the rival costs the same as the chosen option (property)", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.integer({ min: 0, max: 1e6 }),
            fc.integer({ min: -1000, max: 1000 }).map((k) => k / 100),
          ),
          {
            minLength: 2,
            maxLength: 8,
          },
        ),
        (opts) => {
          const costs = opts.map((o) => o[0]);
          const slopes = opts.map((o) => o[1]);
          const c = costs.indexOf(Math.min(...costs));
          const be = linearBreakEven(costs, slopes, c);
          for (const s of [be.up, be.down]) {
            if (!s) continue;
            const at = (i: number): number => costs[i] + slopes[i] * s.move;
            expect(Math.abs(at(s.rival) - at(c))).toBeLessThanOrEqual(1e-6 * (1 + Math.abs(at(c))));
            // Nobody is cheaper than the chosen option strictly before the move.
            const before = s.move * (1 - 1e-9);
            costs.forEach((_, j) =>
              expect(costs[j] + slopes[j] * before).toBeGreaterThanOrEqual(
                costs[c] + slopes[c] * before - 1e-6 * (1 + Math.abs(costs[c])),
              ),
            );
          }
        },
      ),
      { seed: 31, numRuns: 300 },
    );
  });

  it("refuses mismatched lengths and a chosen index out of range, naming the argument", () => {
    expect(() => linearBreakEven([1, 2], [0], 0)).toThrow(/slopes/);
    expect(() => linearBreakEven([1, 2], [0, 0], 2)).toThrow(/chosen/);
    try {
      linearBreakEven([1, NaN], [0, 0], 0);
    } catch (e) {
      expect(isDomainError(e)).toBe(true);
    }
  });
});

describe("probedBreakEven", () => {
  it("narrows a switch between two probes to the tolerance", () => {
    const be = probedBreakEven((x) => (x < 1.234 ? 0 : 1), 1, [1.1, 1.2, 1.3], 1e-12);
    expect(be.down).toBeNull();
    expect(be.up?.rival).toBe(1);
    expect(Math.abs((be.up?.move ?? 0) - 0.234)).toBeLessThanOrEqual(2e-12);
  });

  it("finds a switch downwards and reports none when every probe keeps the choice", () => {
    const be = probedBreakEven((x) => (x > 0.07 ? 2 : 0), 0.1, [0.09, 0.05], 1e-12);
    expect(be.down?.rival).toBe(0);
    expect(Math.abs((be.down?.move ?? 0) + 0.03)).toBeLessThanOrEqual(2e-12);
    expect(probedBreakEven(() => 3, 0.1, [0.11, 0.2], 1e-9)).toEqual({ up: null, down: null });
  });

  it("finds a switch at exactly a probe (a plausible end) and a switch to 'no option' (−1)", () => {
    const be = probedBreakEven((x) => (x >= 1.1 ? -1 : 0), 1, [1.05, 1.1], 1e-12);
    expect(be.up?.rival).toBe(-1);
    expect(be.up?.move).toBeLessThanOrEqual(0.1 + 1e-12);
  });

  it("refuses probes that do not move away from the base on one side", () => {
    expect(() => probedBreakEven(() => 0, 1, [1.2, 1.1], 1e-9)).toThrow(/probes/);
    expect(() => probedBreakEven(() => 0, 1, [1.2, 0.9], 1e-9)).toThrow(/probes/);
    expect(() => probedBreakEven(() => 0, 1, [1.2], 0)).toThrow(/tolerance/);
  });
});

describe("the grid: firstChange", () => {
  it("tries p, 2p and 5p, nearest first, so the plausible move p itself is a point", () => {
    expect(GRID_MULTIPLES).toEqual([1, 2, 5]);
  });

  it("finds the first point whose choice differs from the base choice, skipping points not tried", () => {
    expect(firstChange(0, [0, 0, 1, 1])).toBe(2);
    expect(firstChange(0, [null, 0, -1, 1])).toBe(2);
    expect(firstChange(1, [1, 1, null, null])).toBe(-1);
    // A change that reverts further out is still the first change.
    expect(firstChange(0, [2, 0, 0, 0])).toBe(0);
  });
});
