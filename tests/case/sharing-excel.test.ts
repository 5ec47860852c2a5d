/**
 * "Prepare for sharing" and the values-only export through Office.js, against the in-memory Excel
 * of tests/excel/fake-excel.ts (the one the browser harness serves): a workbook with the business case written as the pane writes it (CAPLAB
 * formulas live, a label that begins with "=" stored as text) and an analysis sheet without
 * Capacity Lab formulas.
 */
import * as fs from "fs";
import * as path from "path";
import JSZip from "jszip";
import { casePlanFromJson } from "../../src/analysis/case-plan";
import { exportValuesOnlyWorkbook, prepareForSharing, uniqueSheetName } from "../../src/excel/sharing-excel";
import { hasCaplabFormula } from "../../src/sharing/freeze";
import { excelSnapshot } from "./sheet-eval";
import { createFakeHost, FakeSheet, FakeWorkbook, installFakeHost } from "../excel/fake-excel";
import * as wrappers from "../../src/functions/functions";

const EXAMPLE = path.join(__dirname, "..", "..", "examples", "merging-helpdesks.json");

/**
 * The case sheet as Excel with the add-in holds it (formulas with their calculated values: the
 * plan's), a chart on it, and an analysis sheet without Capacity Lab formulas, in the in-memory
 * Excel the browser harness uses (ExcelApi 1.`excelApiMinor`).
 */
function workbook(excelApiMinor = 17): FakeWorkbook {
  const json = JSON.parse(fs.readFileSync(EXAMPLE, "utf8")) as { options: { name: string }[] };
  json.options[0].name = '=HYPERLINK("http://x","two sites")'; // a hostile label: must stay text
  const built = casePlanFromJson(json);
  const snap = excelSnapshot(built.plan.sheets[0], built.layout.addinFormulas);
  const host = createFakeHost({ excelApiMinor, functions: wrappers });
  installFakeHost(globalThis as unknown as Record<string, unknown>, host);
  const wb = host.workbook;
  const model = new FakeSheet("Model");
  model.cell(0, 0).value = "Utilization law";
  model.cell(1, 0).value = 0.5;
  const s = new FakeSheet("Business case");
  wb.sheets.push(model, s);
  // Two charts: one over the case's cells, one over the Model sheet (not exported with the copy).
  const series = (sheetName: string) => ({
    name: "Two sites",
    chartType: "XYScatterLines",
    x: [0, 1],
    y: [1, 2],
    xRef: `${sheetName}!A1:A2`,
    yRef: `${sheetName}!B1:B2`,
  });
  for (const [title, on] of [
    ["Cumulative discounted cost", "Business case"],
    ["Utilization", "Model"],
  ])
    s.charts.push({
      type: "XYScatterLines",
      seriesBy: "Columns",
      title,
      xTitle: "Year",
      yTitle: "£",
      position: [],
      series: [series(on)],
    });
  snap.formulas.forEach((line, r) =>
    line.forEach((f, c) => {
      if (f === "" || f === null) return;
      const cell = s.cell(r, c);
      const v = snap.values[r][c];
      if (typeof f === "string" && f.startsWith("=") && f !== v) {
        cell.value = v === null || v === undefined ? "" : (v as number | string);
        cell.formula = f;
      } else {
        if (typeof f === "string") cell.format = "@";
        cell.value = f as string | number;
      }
    }),
  );
  return wb;
}

function sheet(wb: FakeWorkbook, name: string): FakeSheet {
  const s = wb.sheet(name);
  if (!s) throw new Error(`no sheet ${name}`);
  return s;
}

function state(s: FakeSheet): string {
  return JSON.stringify([...s.cells.entries()].sort());
}

function caplabFormulas(s: FakeSheet): number {
  return [...s.cells.values()].filter((c) => c.formula !== null && hasCaplabFormula(c.formula)).length;
}

describe("prepareForSharing (Office.js, in-memory Excel)", () => {
  it("copies the sheets with CAPLAB formulas, freezes them to the same values, lists them, and leaves the originals alone", async () => {
    const wb = workbook();
    const original = sheet(wb, "Business case");
    const before = state(original);
    // The NPV_IT of each of the three options (the M/M/c figures are native formulas now).
    expect(caplabFormulas(original)).toBeGreaterThanOrEqual(3);

    const report = await prepareForSharing();

    expect(report.copies).toEqual([{ original: "Business case", copy: "Business case (shared)" }]);
    expect(report.remainingCaplab).toBe(0);
    expect(report.mismatches).toEqual([]);
    expect(report.skipped).toEqual([]);
    expect(state(original)).toBe(before); // original untouched
    const copy = sheet(wb, "Business case (shared)");
    expect(caplabFormulas(copy)).toBe(0);
    expect(copy.charts.map((c) => c.title)).toEqual(["Cumulative discounted cost", "Utilization"]); // Worksheet.copy keeps charts
    // Every cell shows what the original shows; the hostile label is still text.
    for (const [k, c] of original.cells) expect(copy.cells.get(k)?.value).toEqual(c.value);
    const label = [...copy.cells.values()].find((c) => c.value === '=HYPERLINK("http://x","two sites")');
    expect(label?.formula).toBeNull();
    // Native formulas stay live in the copy.
    expect([...copy.cells.values()].filter((c) => c.formula !== null).length).toBeGreaterThan(10);

    const listing = sheet(wb, report.listing);
    expect(report.listing).toBe("Frozen formulas");
    expect(listing.cells.get("0,2")?.value).toBe("Formula (as it was)");
    const formulasListed = [...listing.cells.entries()].filter(([k]) => k.endsWith(",2") && k !== "0,2");
    expect(formulasListed.length).toBe(report.frozen.length);
    for (const [, c] of formulasListed) {
      expect(c.formula).toBeNull(); // listed as text, not run
      expect(String(c.value)).toMatch(/^=.*CAPLAB\./);
    }
    expect(wb.sheets.map((s) => s.name)).toEqual([
      "Model",
      "Business case",
      "Business case (shared)",
      "Frozen formulas",
    ]);
  });

  it("keeps NPV_IT live with its native equivalent when asked", async () => {
    const wb = workbook();
    const report = await prepareForSharing({ nativeEquivalents: true });
    expect(report.mismatches).toEqual([]);
    const copy = sheet(wb, "Business case (shared)");
    const npv = [...copy.cells.values()].filter((c) => c.formula !== null && /\+NPV\(/.test(c.formula));
    expect(npv.length).toBe(3);
  });

  it("a second preparation gets new names; a chosen sheet without data is refused", async () => {
    const wb = workbook();
    await prepareForSharing();
    const again = await prepareForSharing({ sheets: ["Business case"] });
    expect(again.copies[0].copy).toBe("Business case (shared 2)");
    expect(again.listing).toBe("Frozen formulas 2");
    await expect(prepareForSharing({ sheets: ["Nope"] })).rejects.toThrow("Nope: no such sheet with data");
    expect(wb.sheets.length).toBe(6);
  });

  it("says what is missing when Excel is too old", async () => {
    workbook(8);
    await expect(prepareForSharing()).rejects.toThrow("Prepare for sharing needs ExcelApi 1.9");
  });

  it("exports the copy as a new workbook with no _xldudf_, no CAPLAB formula and no web-extension part", async () => {
    const wb = workbook();
    const report = await prepareForSharing();
    const {
      bytes: size,
      charts,
      chartsLeftOut,
    } = await exportValuesOnlyWorkbook(
      report.copies.map((c) => c.copy),
      "Business case",
    );
    expect(wb.created.length).toBe(1);
    // The chart over the copy's cells is carried (its ranges now on the copy); the other is not.
    expect(charts).toBe(1);
    expect(chartsLeftOut).toEqual(["1 chart draws a sheet not exported"]);
    const bytes = Buffer.from(wb.created[0], "base64");
    expect(bytes.length).toBe(size);
    const zip = await JSZip.loadAsync(bytes);
    const names = Object.keys(zip.files);
    expect(names.filter((n) => /webextension|taskpane/i.test(n))).toEqual([]);
    expect(names).toContain("xl/worksheets/sheet1.xml");
    for (const name of names.filter((n) => /\.(xml|rels)$/.test(n))) {
      const xml = await (zip.file(name) as JSZip.JSZipObject).async("string");
      expect(xml).not.toMatch(/_xldudf_|CAPLAB\.|webextension/i);
    }
    const sheetXml = await (zip.file("xl/worksheets/sheet1.xml") as JSZip.JSZipObject).async("string");
    expect(sheetXml).toMatch(/<f>/); // native formulas are kept
  });

  it("refuses to export a sheet that still has a CAPLAB formula", async () => {
    workbook();
    await expect(exportValuesOnlyWorkbook(["Business case"], "x")).rejects.toThrow(/still has a Capacity Lab formula/);
  });
});

describe("uniqueSheetName", () => {
  it("adds a number and keeps within 31 characters", () => {
    const taken = new Set(["model (shared)"]);
    expect(uniqueSheetName("Model", " (shared)", taken)).toBe("Model (shared 2)");
    expect(uniqueSheetName("A very long sheet name indeed!!", " (shared)", taken)).toBe(
      "A very long sheet name (shared)",
    );
    expect(uniqueSheetName("A very long sheet name indeed!!", " (shared)", taken).length).toBeLessThanOrEqual(31);
  });
});
