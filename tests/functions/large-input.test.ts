/**
 * A full Excel column (1,048,576 cells) through the worksheet wrappers: no recursion or argument
 * spreading in proportion to the input (Excel passes a column as 1,048,576 one-cell rows).
 */
import { DOE_FIT, NPV_IT, SEEN_ENOUGH } from "../../src/functions/functions";
import { npv } from "../../src/core/npv";
import { seenEnough } from "../../src/core/seen-enough";
import { expectRelClose } from "../core/close";

const EXCEL_ROWS = 1_048_576;

/** A deterministic noisy series around 100 (Park–Miller generator), one number per row. */
function column(): number[] {
  const out: number[] = [];
  let s = 1;
  for (let i = 0; i < EXCEL_ROWS; i++) {
    s = (s * 16807) % 2147483647;
    out.push(100 + (s / 2147483647 - 0.5) * 20);
  }
  return out;
}

describe("a 1,048,576-cell column", () => {
  const values = column();
  const asColumn = values.map((v) => [v]);

  it("NPV_IT takes it (as a column and as a row) and equals the core on the same numbers", () => {
    const expected = npv(0.0001, values);
    expectRelClose(NPV_IT(0.0001, asColumn), expected, 1e-15);
    expectRelClose(NPV_IT(0.0001, [values]), expected, 1e-15);
  });

  it("NPV_IT counts blank cells as 0 in a full column", () => {
    const withBlanks = asColumn.map((row, i) => (i % 2 === 1 ? [""] : row));
    const flows = values.map((v, i) => (i % 2 === 1 ? 0 : v));
    expectRelClose(NPV_IT(0.0001, withBlanks), npv(0.0001, flows), 1e-15);
  });

  it("SEEN_ENOUGH takes it and equals the core on the same numbers", () => {
    const table = SEEN_ENOUGH(asColumn, 0.00001) as unknown[][];
    const r = seenEnough(values, { accuracy: 0.00001 });
    expect(table[1].slice(0, 6)).toEqual([r.seenEnough, r.from, r.samples, r.mean, r.achieved, r.required]);
    expect(r.samples).toBeGreaterThan(1000); // ±0.001 % needs a long window: the whole column is used
  });

  it("DOE_FIT takes full columns (a header and 1,048,575 runs) and recovers an exact model", () => {
    // y = 3 + 2·A − 0.5·B + 0.25·A·B on an unbalanced random design (the QR path): exact estimates.
    const factors: unknown[][] = [["A", "B"]];
    const response: unknown[][] = [["y"]];
    let s = 7;
    for (let i = 1; i < EXCEL_ROWS; i++) {
      s = (s * 48271) % 2147483647;
      const a = s % 3 === 0 ? 1 : -1;
      const b = s % 5 === 0 ? 1 : -1;
      factors.push([a, b]);
      response.push([3 + 2 * a - 0.5 * b + 0.25 * a * b]);
    }
    const out = DOE_FIT(factors, response, 2, "raw") as unknown[][];
    const estimates = out.slice(1, 5).map((row) => row[1] as number);
    expect(out.slice(1, 5).map((row) => row[0])).toEqual(["(Intercept)", "A", "B", "A:B"]);
    [3, 2, -0.5, 0.25].forEach((b, j) => expect(Math.abs(estimates[j] - b)).toBeLessThan(1e-12));
    expect(out.find((row) => row[0] === "Observations")?.[1]).toBe(EXCEL_ROWS - 1);
  });
});
