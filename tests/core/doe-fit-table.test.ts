import { doeFit } from "../../src/core/doe-fit";
import { doeFitTable, isMissingValue } from "../../src/core/doe-fit-table";

describe("doeFitTable", () => {
  it("lays out a one-factor fit as R's summary(lm(y ~ A)) (values worked by hand)", () => {
    // y = 1, 3, 2, 4 at A = −1, +1, −1, +1: b0 = 2.5, bA = 1, residuals ±0.5, RSS = 1 on 2 df,
    // σ = √0.5, SE(b) = σ/√4; SST = 5, R² = 0.8, adj. R² = 1 − 0.2·3/2 = 0.7, F = 4/(1/2) = 8.
    // With 2 df, P(|T| > t) = 1 − t/√(2 + t²) (Student's t closed form): t = 2√2 gives 1 − √0.8.
    const t = doeFitTable(doeFit(["A"], [[-1, 1, -1, 1]], [1, 3, 2, 4], { order: 1 }));
    const se = Math.sqrt(0.5) / 2;
    expect(t[0]).toEqual(["Term", "Estimate", "Std. Error", "t value", "Pr(>|t|)"]);
    expect(t.map((r) => r[0])).toEqual([
      "Term",
      "(Intercept)",
      "A",
      "Residual standard error",
      "Residual df",
      "Multiple R-squared",
      "Adjusted R-squared",
      "F-statistic",
      "F numerator df",
      "F denominator df",
      "F p-value",
      "Observations",
    ]);
    const near = (got: unknown, want: number): void => expect(got as number).toBeCloseTo(want, 10);
    near(t[1][1], 2.5);
    near(t[1][2], se);
    near(t[1][3], 2.5 / se);
    near(t[2][1], 1);
    near(t[2][3], 1 / se);
    near(t[2][4], 1 - Math.sqrt(0.8));
    near(t[3][1], Math.sqrt(0.5));
    expect(t[4][1]).toBe(2);
    near(t[5][1], 0.8);
    near(t[6][1], 0.7);
    near(t[7][1], 8);
    near(t[10][1], 1 - Math.sqrt(0.8));
    expect(t[11]).toEqual(["Observations", 4, "", "", ""]);
  });

  it("marks values that do not exist with the reason (aliased term, zero residual df)", () => {
    // B is A repeated: aliased. Two distinct points, two parameters: zero residual df.
    const t = doeFitTable(
      doeFit(
        ["A", "B"],
        [
          [-1, 1],
          [-1, 1],
        ],
        [1, 3],
        { order: 1 },
      ),
    );
    const b = t.find((r) => r[0] === "B")!;
    expect(b.slice(1).every(isMissingValue)).toBe(true);
    expect(b[1]).toEqual({ missing: "B is aliased with earlier terms" });
    const rse = t.find((r) => r[0] === "Residual standard error")!;
    expect(rse[1]).toEqual({ missing: "zero residual degrees of freedom" });
  });
});
