/** The pane's Share tab: the status line it shows after "Export for managers". */
import { describeExport } from "../../src/taskpane/case-sharing";
import { ManagerExport } from "../../src/excel/sharing-excel";

const base: ManagerExport = {
  sheets: ["Summary", "Steps", "Business case"],
  frozen: [
    { sheet: "Business case", address: "J11", formula: "=X", replacement: { kind: "values", values: [[1]] }, value: 1 },
    { sheet: "Business case", address: "J12", formula: "=Y", replacement: { kind: "values", values: [[2]] }, value: 2 },
  ],
  mismatches: [],
  skipped: [],
  bytes: 20_480,
  charts: 2,
  chartsLeftOut: [],
  base64: "",
  opened: true,
};

describe("describeExport", () => {
  it("says what the new workbook holds, in plain words, and that the user's workbook is unchanged", () => {
    expect(describeExport(base)).toBe(
      "Opened a new workbook with the sheets Summary, Steps and Business case, 2 charts (20 KB): save it and send it. " +
        "2 Capacity Lab results are written as numbers. Your workbook is unchanged.",
    );
    expect(describeExport({ ...base, sheets: ["Summary"], frozen: [], charts: 0 })).toBe(
      "Opened a new workbook with the sheet Summary (20 KB): save it and send it. Your workbook is unchanged.",
    );
  });

  it("when Excel cannot open it, points at the download; names charts left out and numbers to check", () => {
    const text = describeExport({
      ...base,
      opened: "this version of Excel cannot open a new workbook from the add-in (ExcelApi 1.8)",
      chartsLeftOut: ["1 chart draws a sheet not included"],
      mismatches: ["Business case!J11: 3 (Excel shows 1)"],
    });
    expect(text).toMatch(
      /^Made a workbook with the sheets .*; this version of Excel cannot open .* download it below\./,
    );
    expect(text).toContain("Charts not carried: 1 chart draws a sheet not included.");
    expect(text).toContain("differ from what Excel shows: Business case!J11: 3 (Excel shows 1).");
    expect(text).not.toMatch(/\(s\)/);
  });
});
