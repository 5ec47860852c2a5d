/** Statistics wrappers: exact spilled layouts, #N/A cells, errors that name the argument. */
import { DOE_DESIGN, DOE_FIT, SEEN_ENOUGH } from "../../src/functions/functions";
import { isExcelError } from "../../src/functions/excel-error";

function thrown(f: () => unknown): { code: string; message: string } {
  try {
    f();
  } catch (e) {
    if (isExcelError(e)) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error("did not throw");
}

const ISSUE = [100, 102, 98, 101, 99, 100, 101, 99, 100, 100];

describe("SEEN_ENOUGH", () => {
  it("spills the worked example of docs/functions/SEEN_ENOUGH.md exactly (column input, percent text)", () => {
    const out = SEEN_ENOUGH(
      ISSUE.map((v) => [v]),
      "5%",
      0.95,
      4,
      "ivy",
      "off",
    );
    expect(out[0]).toEqual([
      "Seen enough",
      "From",
      "Samples",
      "Mean",
      "Achieved ±",
      "Required ±",
      "Level",
      "Level ±",
      "From earliest",
      "From latest",
      "Floor",
      "Warning",
      "Why not",
    ]);
    expect(out[1].slice(6)).toEqual([100, out[1][4], 7, 7, "4 samples", "", ""]);
    expect(out[1].slice(0, 4)).toEqual([true, 7, 4, 100]);
    expect(out[1][4] as number).toBeCloseTo(0.0259845653, 10);
    expect(out[1][5]).toBeCloseTo(0.05, 15);
  });
  it("says why it is FALSE: too precise a request on the worked example (±1 %, ivy, off)", () => {
    const out = SEEN_ENOUGH([ISSUE], 0.01, 0.95, 4, "ivy", "off");
    expect(out[1].slice(0, 3)).toEqual([false, 4, 7]);
    expect(out[1][12]).toBe("not precise enough yet: ±1.5 % against ±1 % asked");
  });
  it("skips blanks in a row", () => {
    const out = SEEN_ENOUGH([[100, null, 102, 98, "", 101, 99, 100, 101, 99, 100, 100]], 0.01, "95%", 4, "iid", "off");
    expect(out[1].slice(0, 3)).toEqual([true, 6, 5]);
  });
  it("with the transient check on (the default), 10 samples are fewer than the 90-sample steady-state window: FALSE for the whole series", () => {
    const out = SEEN_ENOUGH([ISSUE], "5%", 0.95, 4, "ivy");
    expect(out[1].slice(0, 4)).toEqual([false, 1, 10, 100]);
    expect(out[1][12]).toBe("too few samples: 10 so far, the shortest window is 90");
    expect(SEEN_ENOUGH([ISSUE], "5%", 0.95, 4, "ivy", "detect")).toEqual(out);
  });
  it("values of 1e-200 are scaled before squaring: FALSE at ±57.7 %, not TRUE at ±0 %", () => {
    // Issue 25: the squares underflowed to 0, so s = 0 and h = 0 passed. The whole series is the best
    // window either way: mean 1.8e-200, s = √0.7e-200, h = t(0.975; 4)·s/√5/mean = 0.5771 (t from scipy).
    for (const transient of ["detect", "off"]) {
      const out = SEEN_ENOUGH([[1e-200, 2e-200, 3e-200, 1e-200, 2e-200]], 0.05, 0.95, 2, "iid", transient);
      expect(out[1].slice(0, 3)).toEqual([false, 1, 5]);
      expect(out[1][3] as number).toBeCloseTo(1.8e-200, 214);
      expect(out[1][4] as number).toBeCloseTo((2.7764451051977934 * Math.sqrt(0.7)) / Math.sqrt(5) / 1.8, 12);
      expect(out[1][4] as number).toBeCloseTo(0.577, 3);
    }
  });
  it("errors name the argument", () => {
    expect(thrown(() => SEEN_ENOUGH([[1, "x", 3]]))).toMatchObject({
      code: "#VALUE!",
      message: expect.stringMatching(/^samples:/),
    });
    expect(thrown(() => SEEN_ENOUGH([ISSUE], "five"))).toMatchObject({
      code: "#VALUE!",
      message: expect.stringMatching(/^accuracy:/),
    });
    expect(thrown(() => SEEN_ENOUGH([ISSUE], 0.05, 1.5))).toMatchObject({
      code: "#NUM!",
      message: expect.stringMatching(/^confidence:/),
    });
    expect(thrown(() => SEEN_ENOUGH([ISSUE], 0.05, 0.95, 0))).toMatchObject({
      message: expect.stringMatching(/^min_samples:/),
    });
    expect(thrown(() => SEEN_ENOUGH([ISSUE], 0.05, 0.95, 5, "batch"))).toMatchObject({
      message: expect.stringMatching(/^method:/),
    });
    expect(thrown(() => SEEN_ENOUGH([ISSUE], 0.05, 0.95, 5, "ar1", "auto"))).toMatchObject({
      message: expect.stringMatching(/^transient:/),
    });
    expect(thrown(() => SEEN_ENOUGH([[0, 0, 0]], 0.05, 0.95, 2, "iid"))).toMatchObject({ code: "#DIV/0!" });
    expect(thrown(() => SEEN_ENOUGH([ISSUE], 0.05, 0.95, 5, "ar1", "detect", 0))).toMatchObject({
      code: "#NUM!",
      message: expect.stringMatching(/^subinterval_s:/),
    });
  });
  it("subinterval_s sets a floor in seconds: 100 samples of 0.1 s are not 90 s, and the Floor column says so", () => {
    const steady = Array.from({ length: 100 }, (_, i) => [1000 + (i % 2 === 0 ? 5 : -5)]);
    const bySamples = SEEN_ENOUGH(steady);
    expect(bySamples[1][0]).toBe(true);
    expect(bySamples[1][10]).toBe("90 samples");
    const bySeconds = SEEN_ENOUGH(steady, undefined, undefined, undefined, undefined, undefined, 0.1);
    expect(bySeconds[1][0]).toBe(false);
    expect(bySeconds[1][10]).toBe("900 samples (90 s)");
    expect(bySeconds[1][12]).toBe("too few samples: 100 so far, the shortest window is 900 (90 s)");
  });
});

describe("DOE_FIT", () => {
  // The 2³ × 2 replicates of docs/functions/DOE_FIT.md, as a worksheet range with a response header.
  const e = [0.3, -0.2, 0.1, -0.4, 0.2, 0.5, -0.1, -0.3];
  const factorRows: unknown[][] = [["A", "B", "C"]];
  const responseRows: unknown[][] = [["y"]];
  for (const sign of [1, -1]) {
    for (let i = 0; i < 8; i++) {
      const a = i & 1 ? 1 : -1;
      const b = i & 2 ? 1 : -1;
      const c = i & 4 ? 1 : -1;
      factorRows.push([a, b, c]);
      responseRows.push([10 + 2 * a - 1.5 * b + 0.5 * c + 0.75 * a * b + 0.25 * b * c + sign * e[i]]);
    }
  }
  it("spills header, terms in R's order, then label/value summary rows", () => {
    const out = DOE_FIT(factorRows, responseRows);
    expect(out[0]).toEqual(["Term", "Estimate", "Std. Error", "t value", "Pr(>|t|)"]);
    expect(out.slice(1, 8).map((r) => r[0])).toEqual(["(Intercept)", "A", "B", "C", "A:B", "A:C", "B:C"]);
    expect(out[2][3] as number).toBeCloseTo(20.4301567382, 9);
    expect(out.slice(8).map((r) => r[0])).toEqual([
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
    for (const r of out.slice(8)) expect(r.slice(2)).toEqual(["", "", ""]);
    expect(out[9][1]).toBe(9);
    expect(out[16][1]).toBe(16);
    expect(out).toHaveLength(17);
  });
  it("shows #N/A for aliased terms and counts only rows with a response", () => {
    const f: unknown[][] = [
      ["A", "B", "C"],
      [-1, -1, 1],
      [1, -1, -1],
      [-1, 1, -1],
      [1, 1, 1],
      [1, 1, 1],
      [-1, 1, -1],
    ];
    const y: unknown[][] = [[5], [9], [4], [10], [""], [4.2]];
    const out = DOE_FIT(f, y, 2);
    const ab = out.find((r) => r[0] === "A:B") as unknown[];
    expect(isExcelError(ab[1])).toBe(true);
    expect((ab[1] as { code: string }).code).toBe("#N/A");
    expect(out[out.length - 1]).toEqual(["Observations", 5, "", "", ""]);
  });
  it("labels Lenth columns when the residual df is 0", () => {
    const f: unknown[][] = [
      ["A", "B"],
      [-1, -1],
      [1, -1],
      [-1, 1],
      [1, 1],
    ];
    const out = DOE_FIT(f, [[3], [7], [2.5], [9]], 2);
    expect(out[0][2]).toMatch(/Lenth/);
  });
  it("errors name the argument", () => {
    expect(thrown(() => DOE_FIT([["A"], ["fc"], ["nfs"], ["iscsi"]], [[1], [2], [3]]))).toMatchObject({
      code: "#VALUE!",
      message: expect.stringMatching(/^factors: text factor "A" must have exactly 2 levels/),
    });
    expect(thrown(() => DOE_FIT([["A"], [1], [2]], [[1], [2], [3], [4]]))).toMatchObject({
      message: expect.stringMatching(/^response:/),
    });
    expect(thrown(() => DOE_FIT([["A"], [1], [2]], [[1], [2]], 0))).toMatchObject({
      message: expect.stringMatching(/^order:/),
    });
    expect(thrown(() => DOE_FIT([["A"], [1], [2]], [[1], [2]], 1, "log"))).toMatchObject({
      message: expect.stringMatching(/^coding:/),
    });
    expect(thrown(() => DOE_FIT([[1], [1], [2]], [[1], [2]]))).toMatchObject({
      message: expect.stringMatching(/^factors: the first row/),
    });
  });
});

describe("DOE_DESIGN", () => {
  const range: unknown[][] = [
    ["read", "blk_sz", "protocol"],
    [0, 4, "fc"],
    [100, 8, "nfs"],
    [null, 64, ""],
  ];
  it("spills the header and the runs in standard order without randomize", () => {
    const out = DOE_DESIGN(range, 1, false);
    expect(out[0]).toEqual(["Run", "StdOrder", "Replicate", "read", "blk_sz", "protocol"]);
    expect(out).toHaveLength(1 + 12);
    expect(out[1]).toEqual([1, 1, 1, 0, 4, "fc"]);
    expect(out[2]).toEqual([2, 2, 1, 100, 4, "fc"]);
    expect(out[12]).toEqual([12, 12, 1, 100, 64, "nfs"]);
  });
  it("is reproducible for a seed", () => {
    expect(DOE_DESIGN(range, 2, true, 25027)).toEqual(DOE_DESIGN(range, 2, true, 25027));
  });
  it("errors name the argument", () => {
    expect(thrown(() => DOE_DESIGN([["A"], [1]]))).toMatchObject({
      message: expect.stringMatching(/^factors_and_levels:/),
    });
    expect(thrown(() => DOE_DESIGN(range, 0))).toMatchObject({ message: expect.stringMatching(/^replications:/) });
    expect(thrown(() => DOE_DESIGN(range, 1, "yes"))).toMatchObject({ message: expect.stringMatching(/^randomize:/) });
  });
});
