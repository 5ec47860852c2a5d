/**
 * The pane writes a case sheet's print setup through Office.js (ExcelApi 1.9: `pageLayout`,
 * `horizontalPageBreaks`) as the .xlsx writer does in the file: portrait, the plan's print area, a
 * page break before each of the plan's page starts, a print scale Excel accepts (10–400). The
 * in-memory Excel refuses what Excel refuses (fake-excel.ts, PageLayoutProxy). On a host without
 * ExcelApi 1.9 the sheet is written without a print setup and without an error.
 */
import * as fs from "fs";
import * as path from "path";
import { createFakeHost, FakeHost, installFakeHost } from "./fake-excel";
import * as wrappers from "../../src/functions/functions";
import { renderWorkbookPlan } from "../../src/excel/render-plan";
import { casePlanFromJson } from "../../src/case/case-plan";

function install(options = {}): FakeHost {
  const host = createFakeHost({ functions: wrappers, ...options });
  installFakeHost(globalThis as unknown as Record<string, unknown>, host);
  return host;
}

const EXAMPLES = path.join(__dirname, "..", "..", "examples");
const plan = (f: string) => casePlanFromJson(JSON.parse(fs.readFileSync(path.join(EXAMPLES, f), "utf8"))).plan;

describe("the case sheet's print setup through Office.js", () => {
  test.each(["helpdesk-fixed-staff.json", "growing-datastore.json"])("%s: as the plan says", async (f) => {
    const host = install();
    const p = plan(f);
    await renderWorkbookPlan(p, { functionsRegistered: true });
    const sheet = host.workbook.sheet(p.sheets[0].name)!;
    const want = p.sheets[0].print!;
    expect(sheet.print.orientation).toBe("Portrait");
    // The area as an A1 range: the plan writes "A1:Q284", Excel keeps "A1:Q284".
    expect(sheet.print.printArea).toBe(want.area);
    expect([...sheet.print.pageBreakRows].sort((a, b) => a - b)).toEqual(want.pageBreaks.filter((r) => r > 0));
    const scale = sheet.print.zoom?.scale as number;
    expect(scale).toBeGreaterThanOrEqual(10);
    expect(scale).toBeLessThanOrEqual(400);
    expect(scale).toBeLessThanOrEqual(want.scale);
  });

  test("a host before ExcelApi 1.9 writes the sheet without a print setup", async () => {
    const host = install({ excelApiMinor: 8 });
    const p = plan("helpdesk-fixed-staff.json");
    await renderWorkbookPlan(p, { functionsRegistered: true });
    const sheet = host.workbook.sheet(p.sheets[0].name)!;
    expect(sheet.print).toEqual({ pageBreakRows: [] });
    expect(sheet.formulaCells().next().done).toBe(false);
  });

  test("the in-memory Excel refuses a print scale outside 10–400, as Excel does", async () => {
    install();
    const Excel = (globalThis as unknown as { Excel: { run: (f: (ctx: unknown) => Promise<void>) => Promise<void> } })
      .Excel;
    await expect(
      Excel.run(async (ctx) => {
        const ws = (
          ctx as { workbook: { worksheets: { add: (n: string) => { pageLayout: { zoom: unknown } } } } }
        ).workbook.worksheets.add("P");
        ws.pageLayout.zoom = { scale: 5 };
      }),
    ).rejects.toThrow(/between 10 and 400/);
  });
});
