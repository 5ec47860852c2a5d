/**
 * "Export for managers" (the values-only workbook made in one step) through Office.js, against the in-memory Excel
 * of tests/excel/fake-excel.ts (the one the browser harness serves): a workbook with the business case written as the pane writes it (CAPLAB
 * formulas live, a label that begins with "=" stored as text) and an analysis sheet without
 * Capacity Lab formulas.
 */
import * as fs from "fs";
import * as path from "path";
import JSZip from "jszip";
import { casePlanFromJson } from "../../src/case/case-plan";
import ExcelJS from "exceljs";
import { exportForManagers, listShareableSheets } from "../../src/excel/sharing-excel";
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

/**
 * A sheet's cells as text, numbers to 12 significant digits (0 below 1e-6): the strict fake Excel
 * recalculates native formulas, and its arithmetic can differ from the plan's cached value in the
 * last bits (the case's closed-form sensitivity cells).
 */
function state(s: FakeSheet): string {
  return JSON.stringify([...s.cells.entries()].sort()).replace(/-?\d+\.\d+(e[-+]?\d+)?/g, (x) =>
    Math.abs(Number(x)) < 1e-6 ? "0" : String(Number(Number(x).toPrecision(12))),
  );
}

function caplabFormulas(s: FakeSheet): number {
  return [...s.cells.values()].filter((c) => c.formula !== null && hasCaplabFormula(c.formula)).length;
}

describe("exportForManagers (Office.js, in-memory Excel)", () => {
  it("writes the chosen sheet as a new workbook with the same values and no CAPLAB formula; the open workbook gains nothing", async () => {
    const wb = workbook();
    const original = sheet(wb, "Business case");
    const before = wb.sheets.map((x) => [x.name, state(x)]);
    // The NPV_IT of each of the three options (the M/M/c figures are native formulas now).
    expect(caplabFormulas(original)).toBeGreaterThanOrEqual(3);

    const r = await exportForManagers(["Business case"], "Business case");

    // The user's workbook: the same sheets, each cell as it was.
    expect(wb.sheets.map((x) => [x.name, state(x)])).toEqual(before);
    expect(r.sheets).toEqual(["Business case"]);
    expect(r.opened).toBe(true);
    expect(r.mismatches).toEqual([]);
    expect(r.frozen.length).toBe(caplabFormulas(original));
    // The chart over the case's cells is carried; the one over Model is not.
    expect(r.charts).toBe(1);
    expect(r.chartsLeftOut).toEqual(["1 chart draws a sheet not included"]);
    expect(wb.created).toEqual([r.base64]);
    const bytes = Buffer.from(r.base64, "base64");
    expect(bytes.length).toBe(r.bytes);
    const zip = await JSZip.loadAsync(bytes);
    const names = Object.keys(zip.files);
    expect(names.filter((n) => /webextension|taskpane/i.test(n))).toEqual([]);
    for (const name of names.filter((n) => /\.(xml|rels)$/.test(n))) {
      const xml = await (zip.file(name) as JSZip.JSZipObject).async("string");
      expect([name, /_xldudf_|CAPLAB\.|webextension/i.test(xml)]).toEqual([name, false]);
    }
    const sheetXml = await (zip.file("xl/worksheets/sheet1.xml") as JSZip.JSZipObject).async("string");
    expect(sheetXml).toMatch(/<f>/); // native formulas are kept live
    // Every cell shows what the original shows; the hostile label is text, not a formula.
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(bytes as unknown as ArrayBuffer);
    expect(book.worksheets.map((w) => w.name)).toEqual(["Business case"]);
    const ws = book.worksheets[0];
    for (const [key, c] of original.cells) {
      if (c.value === "") continue;
      const [row, col] = key.split(",").map(Number);
      const v = ws.getCell(row + 1, col + 1).value;
      const got = v !== null && typeof v === "object" && "formula" in v ? v.result : v;
      if (typeof c.value === "number" && typeof got === "number")
        expect(Math.abs(got - c.value)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(c.value)));
      else expect([key, got ?? 0]).toEqual([key, c.value]); // ExcelJS reads a cached 0 as undefined
    }
    const label = '=HYPERLINK("http://x","two sites")';
    expect(ws.getSheetValues().flat().includes(label)).toBe(true);
  });

  it("ticks Summary, Steps and Business case by default, else the sheets with Capacity Lab formulas", async () => {
    const wb = workbook();
    expect(await listShareableSheets()).toEqual([
      { name: "Model", caplab: false, tooLarge: false, byDefault: false },
      { name: "Business case", caplab: true, tooLarge: false, byDefault: true },
    ]);
    sheet(wb, "Business case").name = "Case";
    expect((await listShareableSheets()).map((x) => [x.name, x.byDefault])).toEqual([
      ["Model", false],
      ["Case", true],
    ]);
    const summary = new FakeSheet("Summary");
    summary.cell(0, 0).value = "Lab results";
    wb.sheets.push(summary);
    expect((await listShareableSheets()).map((x) => [x.name, x.byDefault])).toEqual([
      ["Model", false],
      ["Case", false],
      ["Summary", true],
    ]);
  });

  it("the sheets come in workbook order; nothing chosen, or a sheet without data, is refused by name", async () => {
    const wb = workbook();
    const r = await exportForManagers(["Business case", "Model"], "x");
    expect(r.sheets).toEqual(["Model", "Business case"]);
    expect(r.chartsLeftOut).toEqual([]); // both charts' sheets are in it
    await expect(exportForManagers([], "x")).rejects.toThrow("Choose at least one sheet to include");
    await expect(exportForManagers(["Nope"], "x")).rejects.toThrow("Nope: no such sheet with data");
    expect(wb.sheets.map((x) => x.name)).toEqual(["Model", "Business case"]);
  });

  it("without ExcelApi 1.8 the file is still made, for the download link", async () => {
    const wb = workbook(7);
    const r = await exportForManagers(["Business case"], "x");
    expect(r.opened).toMatch(/cannot open a new workbook from the add-in \(ExcelApi 1\.8\)/);
    expect(wb.created).toEqual([]);
    expect(r.bytes).toBeGreaterThan(1000);
  });
});
