/**
 * batchMeansInterval against an independent numpy/scipy implementation
 * (tests/core/fixtures/gen-batch-means.py, seeded, %.17g) and, with known truth, the coverage of
 * its 95 % interval on AR(1) series whose mean is known.
 */
import { batchMeansInterval } from "../../src/core/batch-means";
import { DomainError } from "../../src/core/errors";
import reference from "./fixtures/batch-means.json";

interface Ref {
  name: string;
  values: number[];
  weights: number[] | null;
  batches: number;
  confidence: number;
  estimate: number;
  halfWidth: number;
  k: number;
  b: number;
  dropped: number;
  lag1: number;
}

describe("batchMeansInterval: numpy/scipy reference", () => {
  it.each((reference as Ref[]).map((r) => [r.name, r] as [string, Ref]))("%s", (_, r) => {
    const res = batchMeansInterval(Object.freeze([...r.values]), {
      weights: r.weights ?? undefined,
      batches: r.batches,
      confidence: r.confidence,
    });
    const close = (a: number, b: number): void =>
      expect(Math.abs(a - b)).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(b)));
    close(res.estimate, r.estimate);
    close(res.halfWidth, r.halfWidth);
    close(res.lo, r.estimate - r.halfWidth);
    close(res.hi, r.estimate + r.halfWidth);
    expect([res.batches, res.batchSize, res.dropped, res.df]).toEqual([r.k, r.b, r.dropped, r.k - 1]);
    close(res.lag1, r.lag1);
  });
});

describe("batchMeansInterval: coverage with known truth", () => {
  function rng(seed: number): () => number {
    let a = seed >>> 0;
    return () => {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  it("covers the mean of an AR(1) series (ρ = 0.5, 200 samples, 10 batches) in 92–98 % of 400 seeds; s/√m would not", () => {
    let hits = 0;
    let naive = 0;
    const N = 400;
    for (let seed = 1; seed <= N; seed++) {
      const u = rng(seed);
      const z = (): number => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
      let e = 0;
      const x = Array.from({ length: 200 }, () => {
        e = 0.5 * e + Math.sqrt(0.75) * z();
        return 10 + 2 * e;
      });
      const r = batchMeansInterval(x);
      if (r.lo <= 10 && 10 <= r.hi) hits++;
      const mean = x.reduce((a, b) => a + b, 0) / x.length;
      const sd = Math.sqrt(x.reduce((a, b) => a + (b - mean) ** 2, 0) / (x.length - 1));
      if (Math.abs(mean - 10) <= (1.972 * sd) / Math.sqrt(x.length)) naive++;
    }
    expect(hits / N).toBeGreaterThanOrEqual(0.92);
    expect(hits / N).toBeLessThanOrEqual(0.98);
    expect(naive / N).toBeLessThan(0.88); // the correlation makes s/√m too narrow
  });
});

describe("batchMeansInterval: inputs", () => {
  it("refuses too few samples, bad weights, bad batches and confidence; centres on `center` when given", () => {
    expect(() => batchMeansInterval([1, 2, 3])).toThrow(DomainError);
    expect(() => batchMeansInterval([1, 2, 3, 4], { weights: [1, 2] })).toThrow(/weights: must have as many values/);
    expect(() => batchMeansInterval([1, 2, 3, 4], { weights: [0, 0, 1, 1], batches: 2 })).toThrow(
      /batch 1 of 2 has zero total weight/,
    );
    expect(() => batchMeansInterval([1, 2, 3, 4], { batches: 1 })).toThrow(/batches/);
    expect(() => batchMeansInterval([1, 2, 3, 4], { confidence: 0 })).toThrow(/confidence/);
    const r = batchMeansInterval([1, 2, 3, 4, 5, 6, 7, 8], { batches: 4, center: 6 });
    expect(r.estimate).toBe(6);
    expect(r.hi - r.estimate).toBeCloseTo(r.halfWidth, 12);
  });
});
