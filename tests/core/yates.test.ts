/**
 * Yates' algorithm (balancedFactorialFit) against the QR path (leastSquares on the model matrix)
 * on the same designs: the two must give the same numbers to 12 digits, and Yates must refuse
 * anything that is not a balanced full 2^k factorial in ±1 coding.
 */
import { doeFit } from "../../src/core/doe-fit";
import { leastSquares } from "../../src/core/least-squares";
import { codeFactors, modelTerms, termColumns } from "../../src/core/model-matrix";
import { balancedFactorialFit } from "../../src/core/yates";

/** Full factorial in standard order (first factor fastest), each run `replicates` times, shuffled. */
function design(k: number, replicates: number, seed: number): number[][] {
  const runs: number[][] = [];
  for (let rep = 0; rep < replicates; rep++) {
    for (let c = 0; c < 2 ** k; c++) runs.push(Array.from({ length: k }, (_, f) => ((c >> f) & 1 ? 1 : -1)));
  }
  let s = seed;
  for (let i = runs.length - 1; i > 0; i--) {
    s = (s * 16807) % 2147483647;
    const j = s % (i + 1);
    [runs[i], runs[j]] = [runs[j], runs[i]];
  }
  return Array.from({ length: k }, (_, f) => runs.map((r) => r[f]));
}

/** A response with real effects and noise, deterministic. */
function response(columns: number[][], seed: number): number[] {
  let s = seed;
  return columns[0].map((_, i) => {
    s = (s * 48271) % 2147483647;
    const noise = (s / 2147483647 - 0.5) * 3;
    return 50 + 7 * columns[0][i] - 3 * (columns[1]?.[i] ?? 0) * columns[0][i] + 0.25 * (columns[2]?.[i] ?? 0) + noise;
  });
}

function maxRelDiff(a: readonly (number | null)[], b: readonly (number | null)[]): number {
  const scale = Math.max(...b.map((v) => Math.abs(v ?? 0)));
  return Math.max(...a.map((v, j) => Math.abs((v as number) - (b[j] as number)) / scale));
}

describe("Yates and QR agree on the same designs", () => {
  it.each([
    [3, 1, 3, true],
    [3, 3, 2, false],
    [4, 2, 2, true],
    [5, 1, 5, true],
    [6, 2, 3, true],
    [7, 1, 2, false],
  ])("2^%p × %p replicates, order %p, intercept %p", (k, reps, order, intercept) => {
    const cols = design(k, reps, 7 + k);
    const y = response(cols, 11 + k);
    const names = cols.map((_, f) => `F${f}`);
    const coded = codeFactors(names, cols, "coded");
    const terms = modelTerms(names, order, intercept);
    const yates = balancedFactorialFit(coded, terms, y);
    expect(yates).not.toBeNull();
    const qr = leastSquares(termColumns(terms, coded), y);
    expect(maxRelDiff(yates!.coefficients, qr.coefficients)).toBeLessThan(1e-12);
    expect(maxRelDiff(yates!.unscaledVariance, qr.unscaledVariance)).toBeLessThan(1e-12);
    const scaleY = Math.max(...y.map(Math.abs));
    expect(Math.abs(yates!.rss - qr.rss)).toBeLessThanOrEqual(1e-12 * scaleY * scaleY * y.length);
    const residualGap = yates!.residuals.reduce((m, e, i) => Math.max(m, Math.abs(e - qr.residuals[i])), 0);
    expect(residualGap).toBeLessThanOrEqual(1e-12 * scaleY);
    expect(yates!.rank).toBe(qr.rank);
    expect(qr.aliased.every((a) => !a)).toBe(true);
  });

  it("doeFit on a text-and-number 2^3 design gives the QR numbers (coded: 10/20 and low/high map to ±1)", () => {
    const cols = design(3, 2, 5);
    const raw: (number | string)[][] = [
      cols[0].map((v) => (v < 0 ? 10 : 20)),
      cols[1].map((v) => (v < 0 ? "high" : "low")), // alphabetical: "high" → −1
      cols[2],
    ];
    const y = response(cols, 3);
    const fit = doeFit(["A", "B", "C"], raw, y, { order: 3 });
    const coded = codeFactors(["A", "B", "C"], raw, "coded");
    const qr = leastSquares(termColumns(modelTerms(["A", "B", "C"], 3, true), coded), y);
    expect(
      maxRelDiff(
        fit.terms.map((t) => t.estimate),
        qr.coefficients,
      ),
    ).toBeLessThan(1e-12);
  });
});

describe("Yates refuses what is not a balanced full 2^k factorial in ±1", () => {
  const cols = design(3, 2, 9);
  const y = response(cols, 4);
  const terms = modelTerms(["A", "B", "C"], 2, true);
  it("an unbalanced design (one run dropped)", () => {
    expect(
      balancedFactorialFit(
        cols.map((c) => c.slice(1)),
        terms,
        y.slice(1),
      ),
    ).toBeNull();
  });
  it("a centre point (0)", () => {
    expect(
      balancedFactorialFit(
        [
          [...cols[0], 0],
          [...cols[1], 0],
          [...cols[2], 0],
        ],
        terms,
        [...y, 50],
      ),
    ).toBeNull();
  });
  it("raw levels other than ±1", () => {
    expect(balancedFactorialFit([cols[0].map((v) => v * 10), cols[1], cols[2]], terms, y)).toBeNull();
  });
  it("a half fraction (cells missing)", () => {
    const keep = cols[0].map((_, i) => cols[0][i] * cols[1][i] * cols[2][i] === 1);
    const half = cols.map((c) => c.filter((_, i) => keep[i]));
    expect(
      balancedFactorialFit(
        half,
        terms,
        y.filter((_, i) => keep[i]),
      ),
    ).toBeNull();
  });
});

describe("a 2^12 full factorial to order 12 (4,096 terms) through doeFit", () => {
  it("every effect equals its contrast x_S'y / n computed directly", () => {
    const cols = design(12, 1, 42);
    const y = response(cols, 42);
    const names = cols.map((_, f) => `F${f + 1}`);
    const fit = doeFit(names, cols, y, { order: 12 });
    expect(fit.terms).toHaveLength(4096);
    expect(fit.residualDf).toBe(0);
    expect(fit.significanceFrom).toBe("lenth");
    // Spot-check 50 terms against the definition (an independent O(n) sum per term).
    for (let j = 0; j < 4096; j += 83) {
      const t = fit.terms[j];
      const factors = t.name === "(Intercept)" ? [] : t.name.split(":").map((nm) => Number(nm.slice(1)) - 1);
      let contrast = 0;
      for (let i = 0; i < y.length; i++) contrast += factors.reduce((p, f) => p * cols[f][i], 1) * y[i];
      expect(Math.abs((t.estimate as number) - contrast / y.length)).toBeLessThan(1e-12 * 60);
    }
  });
});
