/**
 * End to end in a real browser: the built pane (dist/) with the in-memory Excel of
 * tests/excel/fake-excel.ts. Imports the two-protocol lab sample, starts a case from the growing
 * datastore example, takes each workload's current load and growth from the What-if sheet (and its
 * service time from the Model sheet's fitted CPU cost) in the Case form, builds the case sheet, and
 * checks that the sheet refers to those cells — the arrival rate `='What-if'!$B$7`, the growth
 * `='What-if'!$C$7/100` — rather than holding copies, with the What-if cells' values; that the
 * purchase plan on the sheet is the one the case computes from those values; and that the
 * purchase plan reaches the page a manager reads (the HTML page's table and chart).
 * Leaves docs/screenshots/case-servers-chart.png and case-purchase-plan.png (the HTML page's
 * servers chart and purchase plan table of examples/growing-datastore.json).
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { chooseFiles, distServer, openPane, pressImport, ROOT } from "./harness";
import { casePlanFromJson } from "../../src/case/case-plan";
import { readLabText } from "../../src/import/detect";
import { buildLabPlan } from "../../src/lab/lab-plan";
import { renderHtml } from "../../src/report/html";
import { cellResult, SheetPlan, TablePlan } from "../../src/workbook/plan";
import type { FakeCell, FakeWorkbook } from "../excel/fake-excel";

const SAMPLE = ["subintervals.csv", "summary.csv"].map((f) => path.join(ROOT, "tests/lab/fixtures/lab-sample", f));
const SHOTS = path.join(ROOT, "docs/screenshots");
jest.setTimeout(240_000);

const server = distServer();

/** The fake workbook's cells of one sheet, keyed "row,col" (0-based). */
async function sheetCells(page: import("playwright-core").Page, name: string): Promise<Map<string, FakeCell>> {
  const cells = await page.evaluate((n) => {
    const wb = (window as unknown as { __fakeExcel: { workbook: FakeWorkbook } }).__fakeExcel.workbook;
    const sh = wb.sheets.find((s) => s.name === n);
    return sh ? Array.from(sh.cells.entries()) : [];
  }, name);
  return new Map(cells);
}

/** The A1 reference ('What-if'!$B$7) of a table's data cell. */
function refOf(sheet: string, t: TablePlan, row: number, key: string): string {
  const c = t.at!.col + t.columns.findIndex((x) => x.key === key);
  let letters = "";
  for (let n = c + 1; n > 0; n = Math.floor((n - 1) / 26)) letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return `'${sheet}'!$${letters}$${t.at!.row + 2 + row}`;
}

describe("the Case form takes current load and growth from What-if, live", () => {
  test("a case built from the sample with growth from What-if refers to the What-if cells", async () => {
    const s = await openPane(server.url);
    try {
      const { page } = s;
      await chooseFiles(page, SAMPLE, /2 files ready/);
      await pressImport(page);
      await page.click("#tab-case");
      await page.waitForFunction(() =>
        /An analysis is in this workbook/.test(document.getElementById("case-analysis")?.textContent ?? ""),
      );
      await page.selectOption("#case-example", "growing-datastore");
      // What the lab import wrote: the What-if Inputs table and the CpuFit table.
      const lab = buildLabPlan(SAMPLE.map((f) => readLabText(fs.readFileSync(f, "utf8"), path.basename(f))));
      const whatIf = lab.sheets.find((x) => x.name === "What-if") as SheetPlan;
      const inputs = whatIf.tables.find((t) => t.name === "WhatIfInputs") as TablePlan;
      for (const i of [0, 1]) {
        const select = `[data-path="options[${i}].workloads[0].growthRef"]`;
        const offered = await page.$$eval(`${select} option`, (os) => os.map((o) => o.textContent ?? ""));
        expect(offered).toEqual([
          "numbers typed here",
          expect.stringMatching(/^What-if: protocol nfs \([\d,]+ IOPS now, 20 % a year\)$/),
          expect.stringMatching(/^What-if: protocol fc \([\d,]+ IOPS now, 20 % a year\)$/),
        ]);
        await page.selectOption(select, `line-${i}`);
        const cost = `[data-path="options[${i}].workloads[0].serviceTimeRef"]`;
        await page.selectOption(cost, `choice-${i}`);
      }
      await page.click("#case-build");
      await page.waitForFunction(() => /\b(ok|error)\b/.test(document.getElementById("case-status")?.className ?? ""), {
        timeout: 120_000,
      });
      expect(await page.getAttribute("#case-status", "class")).toMatch(/\bok\b/);

      const draft = JSON.parse(await page.inputValue("#case-json")) as Record<string, unknown>;
      const plan = casePlanFromJson(draft, { forExcelAddin: true });
      const table = (name: string): TablePlan => plan.plan.sheets[0].tables.find((t) => t.name === name)!;
      const capacity = table("Capacity");
      const growth = table("Growth");
      const at = (t: TablePlan, row: number, key: string): string =>
        `${t.at!.row + 1 + row},${t.at!.col + t.columns.findIndex((c) => c.key === key)}`;
      const sheet = await sheetCells(page, "Business case");
      const whatIfCells = await sheetCells(page, "What-if");
      for (const i of [0, 1]) {
        const current = refOf("What-if", inputs, i, "current");
        const rate = sheet.get(at(capacity, i, "rate"))!;
        const g = sheet.get(at(growth, i, "growth"))!;
        // References, not copies: the formulas name the What-if cells...
        expect(rate.formula).toBe(`=${current}`);
        expect(g.formula).toBe(`=${refOf("What-if", inputs, i, "growth")}/100`);
        // ... and show what those cells hold.
        const cell = (key: string): unknown => whatIfCells.get(at(inputs, i, key))?.value;
        expect(rate.value).toBe(cell("current"));
        expect(g.value).toBeCloseTo((cell("growth") as number) / 100, 12);
      }
      // The purchase plan on the sheet is the case's, year by year (bought and in service).
      const purchases = table("PurchasePlan");
      purchases.rows.forEach((row, r) => {
        for (const key of ["load", "needed", "bought", "in_service", "server_cost"]) {
          const want = cellResult(row[purchases.columns.findIndex((c) => c.key === key)]);
          const got = sheet.get(at(purchases, r, key))!;
          expect(got.formula).toMatch(/^=/);
          expect(got.value).toBeCloseTo(want as number, 6);
        }
      });
      expect(s.consoleErrors).toEqual([]);

      // The page a manager reads: the servers chart and the purchase plan table.
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "caplab-growth-e2e-"));
      try {
        const example = casePlanFromJson(
          JSON.parse(fs.readFileSync(path.join(ROOT, "examples/growing-datastore.json"), "utf8")),
        );
        const html = path.join(dir, "case.html");
        fs.writeFileSync(html, renderHtml(example.plan));
        const context = await s.browser.newContext({ viewport: { width: 1000, height: 1200 } });
        const view = await context.newPage();
        await view.goto(`file://${html}`);
        await view.waitForSelector("body[data-charts-drawn]");
        const chart = view.locator("figure.chart", { hasText: "Servers required and in service per year" });
        await expect(chart.count()).resolves.toBe(1);
        const captions = await view.$$eval("caption", (cs) => cs.map((c) => c.textContent ?? ""));
        expect(captions).toContain("Purchase plan: servers needed, bought and in service, year by year");
        await chart.screenshot({ path: path.join(SHOTS, "case-servers-chart.png") });
        const planTable = view.locator("table", { hasText: "Servers in service" }).filter({ hasText: "Load at start" });
        await planTable.first().screenshot({ path: path.join(SHOTS, "case-purchase-plan.png") });
        await context.close();
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    } finally {
      await s.close();
    }
  });
});
