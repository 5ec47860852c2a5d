/**
 * DOE_FIT core. Reference figures of the 2³ example are R's output (summary(lm(y ~ (A+B+C)^2))).
 */
import { doeFit } from "../../src/core/doe-fit";
import { lenthPse } from "../../src/core/lenth";
import { MAX_MODEL_TERMS, modelTerms } from "../../src/core/model-matrix";

/** 2³ in standard order (A fastest), two replicates, the model and errors of the worked example in docs/functions/DOE_FIT.md. */
function twoCubed(): { A: number[]; B: number[]; C: number[]; y: number[] } {
  const A: number[] = [];
  const B: number[] = [];
  const C: number[] = [];
  const y: number[] = [];
  const e = [0.3, -0.2, 0.1, -0.4, 0.2, 0.5, -0.1, -0.3];
  for (const sign of [1, -1]) {
    for (let i = 0; i < 8; i++) {
      const a = i & 1 ? 1 : -1;
      const b = i & 2 ? 1 : -1;
      const c = i & 4 ? 1 : -1;
      A.push(a);
      B.push(b);
      C.push(c);
      y.push(10 + 2 * a - 1.5 * b + 0.5 * c + 0.75 * a * b + 0.25 * b * c + sign * e[i]);
    }
  }
  return { A, B, C, y };
}

const close = (a: number | null, b: number, rel = 1e-9): void => {
  expect(a).not.toBeNull();
  expect(Math.abs((a as number) - b)).toBeLessThanOrEqual(rel * Math.max(Math.abs(b), 1e-300) + 1e-13);
};

describe("doeFit: the 2³ worked example (R's summary(lm))", () => {
  const d = twoCubed();
  const fit = doeFit(["A", "B", "C"], Object.freeze([d.A, d.B, d.C]), Object.freeze(d.y), { order: 2 });
  it("names the terms in R's order", () => {
    expect(fit.terms.map((t) => t.name)).toEqual(["(Intercept)", "A", "B", "C", "A:B", "A:C", "B:C"]);
  });
  it("gives every figure R prints", () => {
    [10, 2, -1.5, 0.5, 0.75, 0, 0.25].forEach((b, j) => {
      expect(Math.abs((fit.terms[j].estimate as number) - b)).toBeLessThan(1e-12);
      close(fit.terms[j].stdError, 0.0978945010373, 1e-11);
    });
    close(fit.residualStandardError, 0.391578004149, 1e-11);
    expect(fit.residualDf).toBe(9);
    close(fit.rSquared, 0.988039521581, 1e-11);
    close(fit.adjRSquared, 0.980065869301, 1e-11);
    close(fit.fStatistic, 123.913043478, 1e-11);
    expect([fit.fNumeratorDf, fit.fDenominatorDf]).toEqual([6, 9]);
    close(fit.fPValue, 3.92260198e-8, 1e-8);
    close(fit.terms[1].tValue, 20.4301567382, 1e-11);
    close(fit.terms[1].pValue, 7.52519639e-9, 1e-8);
    expect(fit.observations).toBe(16);
    expect(fit.significanceFrom).toBe("residuals");
  });
  it("skips blank responses and counts the rest", () => {
    const y: (number | null)[] = [...d.y, null, null];
    const cols = [d.A, d.B, d.C].map((c) => [...c, 1, -1]);
    const f2 = doeFit(["A", "B", "C"], cols, y, { order: 2 });
    expect(f2.observations).toBe(16);
    expect(f2.skipped).toBe(2);
    close(f2.fStatistic, 123.913043478, 1e-11);
  });
  it("codes two-level numbers and text exactly like −1/+1", () => {
    const read = d.A.map((a) => (a < 0 ? 0 : 100));
    const blk = d.B.map((b) => (b < 0 ? 4 : 8));
    const proto = d.C.map((c) => (c < 0 ? "fc" : "nfs"));
    const f2 = doeFit(["read", "blk", "protocol"], [read, blk, proto], d.y, { order: 2 });
    f2.terms.forEach((t, j) => close(t.estimate, fit.terms[j].estimate as number, 1e-12));
    expect(f2.terms[4].name).toBe("read:blk");
  });
});

describe("doeFit: aliasing, Lenth, errors", () => {
  it("flags aliased terms in a 2^(3−1) half fraction (C = AB) and still fits the rest", () => {
    const A = [-1, 1, -1, 1, -1, 1, -1, 1];
    const B = [-1, -1, 1, 1, -1, -1, 1, 1];
    const C = A.map((a, i) => a * B[i]);
    const y = [5, 9, 4, 10, 5.2, 8.8, 4.1, 9.9];
    const fit = doeFit(["A", "B", "C"], [A, B, C], y, { order: 2 });
    const aliased = fit.terms.filter((t) => t.aliased).map((t) => t.name);
    expect(aliased).toEqual(["A:B", "A:C", "B:C"]); // AB = C, AC = B, BC = A: the later term is flagged
    for (const t of fit.terms) {
      if (t.aliased) expect([t.estimate, t.stdError, t.tValue, t.pValue]).toEqual([null, null, null, null]);
      else expect(t.estimate).not.toBeNull();
    }
    expect(fit.residualDf).toBe(4);
    expect(fit.fNumeratorDf).toBe(3);
  });
  it("uses Lenth's PSE when the residual df is 0 (unreplicated 2³, full model)", () => {
    const A = [-1, 1, -1, 1, -1, 1, -1, 1];
    const B = [-1, -1, 1, 1, -1, -1, 1, 1];
    const C = [-1, -1, -1, -1, 1, 1, 1, 1];
    const y = A.map((a, i) => 50 + 8 * a - 5 * B[i] + 0.3 * C[i] + [0.2, -0.1, 0.4, -0.3, 0.1, 0.2, -0.2, 0.05][i]);
    const fit = doeFit(["A", "B", "C"], [A, B, C], y, { order: 3 });
    expect(fit.residualDf).toBe(0);
    expect(fit.significanceFrom).toBe("lenth");
    expect(fit.residualStandardError).toBeNull();
    const effects = fit.terms.slice(1).map((t) => t.estimate as number);
    const { pse, df } = lenthPse(effects);
    expect(df).toBeCloseTo(7 / 3, 14);
    expect(fit.terms[0].stdError).toBeNull();
    for (const t of fit.terms.slice(1)) expect(t.stdError).toBe(pse);
    expect(fit.terms[1].pValue as number).toBeLessThan(0.01);
    expect(fit.fStatistic).toBeNull();
  });
  it("rejects a text factor with three levels, naming it", () => {
    expect(() => doeFit(["proto"], [["fc", "nfs", "iscsi", "fc"]], [1, 2, 3, 4])).toThrow(
      /text factor "proto" must have exactly 2 levels/,
    );
  });
  it("rejects a one-level coded factor and a bad coding", () => {
    expect(() => doeFit(["A"], [[1, 1, 1]], [1, 2, 3])).toThrow(/^factors: factor "A" has only one level/);
    expect(() => doeFit(["A"], [[1, 2, 3]], [1, 2, 3], { coding: "log" as "raw" })).toThrow(/^coding:/);
  });
  it("without an intercept, R² is uncentred and F has rank df", () => {
    const fit = doeFit(["x"], [[1, 2, 3, 4]], [2.1, 3.9, 6.2, 7.8], { intercept: false, coding: "raw" });
    const b = fit.terms[0].estimate as number;
    expect(b).toBeCloseTo((2.1 + 7.8 + 18.6 + 31.2) / 30, 12);
    const rss = [2.1, 3.9, 6.2, 7.8].reduce((s, v, i) => s + (v - b * (i + 1)) ** 2, 0);
    const tss = [2.1, 3.9, 6.2, 7.8].reduce((s, v) => s + v * v, 0);
    expect(fit.rSquared as number).toBeCloseTo(1 - rss / tss, 12);
    expect(fit.fNumeratorDf).toBe(1);
  });
});

describe("modelTerms", () => {
  it("lists (a+b+c+d)^3 like R", () => {
    expect(modelTerms(["a", "b", "c", "d"], 3, false).map((t) => t.name)).toEqual([
      "a",
      "b",
      "c",
      "d",
      "a:b",
      "a:c",
      "a:d",
      "b:c",
      "b:d",
      "c:d",
      "a:b:c",
      "a:b:d",
      "a:c:d",
      "b:c:d",
    ]);
  });
  it("refuses a model with more than MAX_MODEL_TERMS terms before building it (review)", () => {
    // 20 factors to order 20 is 2^20 − 1 terms (+ intercept): it used to build them all (24 factors
    // ran out of memory); 12 factors to order 12 (4096 with the intercept) is still allowed.
    const names = (m: number) => Array.from({ length: m }, (_, j) => `f${j}`);
    expect(() => modelTerms(names(20), 20, true)).toThrow(/^order: .*1048576 terms, more than 4096/);
    expect(() => modelTerms(names(200), 2, false)).toThrow(/^order: .*20100 terms/);
    expect(modelTerms(names(12), 12, true)).toHaveLength(MAX_MODEL_TERMS);
  });
});

describe("doeFit: degenerate fits answer instead of failing", () => {
  it("an exact unreplicated fit with mostly zero effects gives estimates without significance", () => {
    const A = [-1, 1, -1, 1];
    const B = [-1, -1, 1, 1];
    const fit = doeFit(["A", "B"], [A, B], [5, 7, 5, 7], { order: 2 });
    expect(fit.significanceFrom).toBe("lenth");
    expect(fit.terms.map((t) => t.estimate)).toEqual([6, 1, 0, 0].map((v) => expect.closeTo(v, 12)));
    expect(fit.terms[0].stdError).toBeNull(); // the intercept has no Lenth SE
  });
  it("effects that are all exactly 0 give estimates and #N/A significance (Lenth's PSE would be 0)", () => {
    const fit = doeFit(
      ["A", "B"],
      [
        [-1, 1, -1, 1],
        [-1, -1, 1, 1],
      ],
      [4, 4, 4, 4],
      { order: 2 },
    );
    expect(fit.terms.map((t) => t.estimate)).toEqual([4, 0, 0, 0]);
    expect(fit.terms.every((t) => t.stdError === null && t.pValue === null)).toBe(true);
  });
  it("a constant response gives R² #N/A-able nulls, not NaN", () => {
    const fit = doeFit(["A"], [[-1, 1, -1, 1]], [3, 3, 3, 3]);
    expect(fit.rSquared).toBeNull();
    expect(fit.fStatistic).toBeNull();
    expect(fit.residualStandardError).toBe(0);
    expect(fit.terms[1].tValue).toBeNull();
  });
  it("a constant response on an unbalanced design: exact zeros beyond the intercept, no F (as R's lm)", () => {
    // R: lm(rep(0.1, 9) ~ A + B + C) gives the intercept 0.1, zero slopes, F-statistic NaN.
    const a = [-1, 1, -1, 1, -1, 1, -1, 1, 0.3];
    const b = [-1, -1, 1, 1, -1, -1, 1, 1, 0.7];
    const c = [-1, -1, -1, -1, 1, 1, 1, 1, -0.2];
    const fit = doeFit(["A", "B", "C"], [a, b, c], new Array(9).fill(0.1), { order: 1, coding: "raw" });
    expect(fit.terms.map((t) => t.estimate)).toEqual([0.1, 0, 0, 0]);
    expect(fit.terms.every((t) => t.tValue === null && t.pValue === null)).toBe(true);
    expect(fit.fStatistic).toBeNull();
    expect(fit.fPValue).toBeNull();
    expect(fit.rSquared).toBeNull();
  });
});
