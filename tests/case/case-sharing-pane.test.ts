/** The pane's sharing section: the status line it shows after "Prepare for sharing". */
import { describeReport } from "../../src/taskpane/case-sharing";
import { ShareReport } from "../../src/excel/sharing-excel";

const base: ShareReport = {
  copies: [{ original: "Business case", copy: "Business case (shared)" }],
  frozen: [
    { sheet: "Business case", address: "J11", formula: "=X", replacement: { kind: "values", values: [[1]] }, value: 1 },
    {
      sheet: "Business case",
      address: "B22",
      formula: "=Y",
      replacement: { kind: "formula", formula: "=B1+NPV(A1,B2:B3)" },
      value: 2,
    },
  ],
  listing: "Frozen formulas",
  remainingCaplab: 0,
  mismatches: [],
  skipped: [],
};

describe("describeReport", () => {
  it("says what was made and how each formula was frozen", () => {
    expect(describeReport(base)).toBe(
      'Made "Business case (shared)": 1 formula replaced by its value, 1 kept live as native Excel formulas; listed on "Frozen formulas".',
    );
  });

  it("warns about formulas left, differing values and sheets not read", () => {
    const text = describeReport({
      ...base,
      remainingCaplab: 2,
      mismatches: ["Business case (shared)!J11: 3 (original 1)"],
      skipped: ["Subintervals"],
    });
    expect(text).toContain("Warning: 2 Capacity Lab formula(s) are still in the copies.");
    expect(text).toContain("values differ from the originals at Business case (shared)!J11: 3 (original 1)");
    expect(text).toContain("Not read (too large): Subintervals.");
  });
});
