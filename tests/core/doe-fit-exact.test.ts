/**
 * DOE_FIT against exact (50-digit) references on balanced 2^k factorials: responses on a large
 * offset (up to 1e10 × the noise), near-constant responses (one run 1 ulp off 0.1), and responses
 * near the ends of the double range (1e±155 … 1e±300). References: mpmath least squares on the
 * same doubles, tests/core/fixtures/gen-doe-exact.py → doe-exact.json.
 *
 * Tolerances: estimates, standard errors, t values, σ̂, R² and F to 1e-12 relative (12 digits, the
 * promise of docs/functions/DOE_FIT.md); p-values to 1e-9 relative (the t and beta tails of
 * @stdlib are accurate to ~1e-14 but the p of a t near 0 is a difference of two tails); on
 * near-constant responses R² and F to 1e-6 absolute (the input has one significant bit of
 * variation, so a few bits of rounding in the fitted values move them).
 */
import { doeFit, type DoeFitResult } from "../../src/core/doe-fit";
import { leastSquares } from "../../src/core/least-squares";
import { codeFactors, modelTerms, termColumns } from "../../src/core/model-matrix";
import { balancedFactorialFit } from "../../src/core/yates";
import { evaluateFormula } from "../../src/cli/formula";
import exact from "./fixtures/doe-exact.json";

interface ExactTerm {
  name: string;
  estimate: number;
  stdError?: number;
  tValue?: number;
  pValue?: number;
}
interface ExactCase {
  name: string;
  group: "offset" | "near-constant" | "magnitude";
  order: number;
  factors: number[][];
  y: number[];
  expected: {
    residualDf: number;
    terms: ExactTerm[];
    residualStandardError?: number;
    rSquared?: number;
    adjRSquared?: number;
    fStatistic?: number;
    fPValue?: number;
  };
}

const cases = exact.cases as ExactCase[];
const names = (c: ExactCase): string[] => c.factors.map((_, f) => `F${f}`);

/** |a − b| ≤ tol·|b| (b = 0 needs a = 0). */
function expectRel(actual: number | null | undefined, expected: number, tol: number, what: string): void {
  if (typeof actual !== "number") throw new Error(`${what}: got ${String(actual)}, expected ${expected}`);
  const err = Math.abs(actual - expected);
  if (!(err <= tol * Math.abs(expected)))
    throw new Error(`${what}: ${actual} vs exact ${expected} (relative error ${err / Math.abs(expected)})`);
}

function expectAbs(actual: number | null | undefined, expected: number, tol: number, what: string): void {
  if (typeof actual !== "number" || !(Math.abs(actual - expected) <= tol))
    throw new Error(`${what}: ${String(actual)} vs exact ${expected} (absolute tolerance ${tol})`);
}

function compare(c: ExactCase, fit: DoeFitResult): void {
  const e = c.expected;
  expect(fit.residualDf).toBe(e.residualDf);
  expect(fit.terms.map((t) => t.name)).toEqual(e.terms.map((t) => t.name));
  e.terms.forEach((t, j) => {
    const got = fit.terms[j];
    expectRel(got.estimate, t.estimate, 1e-12, `${c.name}: ${t.name} estimate`);
    expectRel(got.stdError, t.stdError as number, 1e-12, `${c.name}: ${t.name} SE`);
    expectRel(got.tValue, t.tValue as number, 1e-12, `${c.name}: ${t.name} t`);
    expectRel(got.pValue, t.pValue as number, 1e-9, `${c.name}: ${t.name} p`);
  });
  expectRel(fit.residualStandardError, e.residualStandardError as number, 1e-12, `${c.name}: sigma`);
  if (c.group === "near-constant") {
    expectAbs(fit.rSquared, e.rSquared as number, 1e-6, `${c.name}: R²`);
    expectAbs(fit.adjRSquared, e.adjRSquared as number, 1e-6, `${c.name}: adjusted R²`);
    expectAbs(fit.fStatistic, e.fStatistic as number, 1e-6, `${c.name}: F`);
  } else {
    expectRel(fit.rSquared, e.rSquared as number, 1e-12, `${c.name}: R²`);
    expectRel(fit.adjRSquared, e.adjRSquared as number, 1e-11, `${c.name}: adjusted R²`);
    expectRel(fit.fStatistic, e.fStatistic as number, 1e-12, `${c.name}: F`);
  }
  expectRel(fit.fPValue, e.fPValue as number, 1e-9, `${c.name}: F p-value`);
}

describe("DOE_FIT against 50-digit references (tests/core/fixtures/doe-exact.json)", () => {
  it.each(cases.map((c) => [c.name, c] as const))("%s", (_, c) => {
    // Every case is a balanced full 2^k factorial: doeFit takes Yates' path.
    const coded = codeFactors(names(c), c.factors, "coded");
    expect(
      balancedFactorialFit(
        coded,
        modelTerms(names(c), c.order, true),
        c.y.map(() => 0),
      ),
    ).not.toBeNull();
    compare(c, doeFit(names(c), c.factors, c.y, { order: c.order }));
  });

  it("the QR path gives the same estimates on the offset and near-constant designs", () => {
    for (const c of cases.filter((x) => x.group !== "magnitude")) {
      const terms = modelTerms(names(c), c.order, true);
      const qr = leastSquares(termColumns(terms, codeFactors(names(c), c.factors, "coded")), c.y);
      c.expected.terms.forEach((t, j) =>
        expectRel(qr.coefficients[j], t.estimate, 1e-12, `${c.name}: QR ${t.name} estimate`),
      );
    }
  });

  it('DOE_FIT({"A";1;-1;1;-1},{1E200;2E200;3E200;5E200},1): finite SE, t and p', async () => {
    const c = cases.find((x) => x.name === "A = 1,-1,1,-1; y = 1,2,3,5 x 1e+200") as ExactCase;
    const table = (await evaluateFormula('DOE_FIT({"A";1;-1;1;-1},{1E200;2E200;3E200;5E200},1)')) as unknown[][];
    const row = (label: string): unknown[] => table.find((r) => r[0] === label) as unknown[];
    c.expected.terms.forEach((t) => {
      const [, estimate, se, tv, p] = row(t.name === "F0" ? "A" : t.name) as number[];
      expectRel(estimate, t.estimate, 1e-12, `${t.name} estimate`);
      expectRel(se, t.stdError as number, 1e-12, `${t.name} SE`);
      expectRel(tv, t.tValue as number, 1e-12, `${t.name} t`);
      expectRel(p, t.pValue as number, 1e-9, `${t.name} p`);
    });
    expectRel(row("Multiple R-squared")[1] as number, c.expected.rSquared as number, 1e-12, "R²");
    expectRel(row("F-statistic")[1] as number, c.expected.fStatistic as number, 1e-12, "F");
  });
});
