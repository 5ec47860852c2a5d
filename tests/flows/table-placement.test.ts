/**
 * One placement, every renderer: a sheet built with SheetBuilder (no hand positions) puts each
 * table on the same rows in Excel (the in-memory Excel of tests/excel/fake-excel.ts, written by the
 * pane's renderer), in the .xlsx (ExcelJS writer and streaming writer) and in the HTML report.
 * The expected rows are counted by hand from the rule "one blank row between blocks".
 */
import ExcelJS from "exceljs";
import JSZip from "jszip";
import { SheetBuilder } from "../../src/workbook/sheet-builder";
import { WorkbookPlan } from "../../src/workbook/plan";
import { renderWorkbookPlan } from "../../src/excel/render-plan";
import { renderXlsx, renderXlsxContent } from "../../src/report/xlsx";
import { renderHtml } from "../../src/report/html";
import { createFakeHost, installFakeHost } from "../excel/fake-excel";
import { Readable } from "stream";

function plan(): WorkbookPlan {
  const sb = new SheetBuilder("Placed", ["Title", "A second note"]);
  const cols = [
    { key: "n", header: "n", get: (r: number) => r, keep: true },
    {
      key: "twice",
      header: "twice",
      get: (r: number, ref: (k: string) => string) => ({ formula: `${ref("n")}*2`, result: 2 * r }),
      keep: true,
    },
  ];
  sb.table("First", cols, [1, 2, 3]);
  sb.table("Second", cols, [4]);
  sb.columnarTable(
    "Third",
    [{ key: "v", header: "v", data: () => ({ kind: "number", values: [7, 8], empty: [] }) }],
    2,
  );
  return { title: "placement", sources: [], warnings: [], sheets: [sb.sheet()] };
}

// Notes in rows 1–2, row 3 blank; First: header row 4, rows 5–7, row 8 blank; Second: header 9,
// row 10, row 11 blank; Third: header 12, rows 13–14.
const EXPECTED: Record<string, string> = { First: "A4:B7", Second: "A9:B10", Third: "A12:A14" };

describe("a table placed without hand positions lands on the same rows everywhere", () => {
  test("the plan", () => {
    const tables = plan().sheets[0].tables;
    expect(tables.map((t) => [t.name, t.at.row + 1, t.at.col])).toEqual([
      ["First", 4, 0],
      ["Second", 9, 0],
      ["Third", 12, 0],
    ]);
  });

  test("Excel (the pane's Office.js renderer, in-memory Excel)", async () => {
    const host = createFakeHost();
    installFakeHost(globalThis as unknown as Record<string, unknown>, host);
    await renderWorkbookPlan(plan(), { functionsRegistered: false });
    const placed = Object.fromEntries(
      host.workbook.tables.map((t) => [
        t.name,
        `${String.fromCharCode(65 + t.col)}${t.row + 1}:${String.fromCharCode(65 + t.col + t.cols - 1)}${t.row + t.rows}`,
      ]),
    );
    expect(placed).toEqual(EXPECTED);
    const sheet = host.workbook.sheet("Placed")!;
    expect(sheet.get(4, 1)!.formula).toBe("=A5*2"); // the formula names the cell where the value is
    expect(sheet.get(9, 0)!.value).toBe(4);
  });

  test(".xlsx (ExcelJS writer): the Excel tables' ranges", async () => {
    const zip = await JSZip.loadAsync(await renderXlsx(plan()));
    const refs: Record<string, string> = {};
    for (const f of Object.keys(zip.files).filter((f) => /^xl\/tables\/table\d+\.xml$/.test(f))) {
      const xml = await zip.file(f)!.async("string");
      refs[/ name="([^"]+)"/.exec(xml)![1]] = / ref="([^"]+)"/.exec(xml)![1];
    }
    expect(refs).toEqual(EXPECTED);
  });

  test(".xlsx (streaming writer): the header cells", async () => {
    const stream = await renderXlsxContent(plan(), { streamAboveCells: 0 });
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.read(stream as Readable);
    {
      const ws = wb.getWorksheet("Placed")!;
      expect([ws.getCell("A4").value, ws.getCell("A9").value, ws.getCell("A12").value]).toEqual(["n", "n", "v"]);
      expect([ws.getCell("A7").value, ws.getCell("A10").value, ws.getCell("A14").value]).toEqual([3, 4, 8]);
      expect([ws.getCell("A8").value, ws.getCell("A11").value]).toEqual([null, null]);
    }
  });

  test("HTML: each table says where it is in the workbook", () => {
    const html = renderHtml(plan());
    const ranges = Object.fromEntries(
      [...html.matchAll(/<table data-range="([^"]+)">\s*<caption>([^<]+)<\/caption>/g)].map((m) => [m[2], m[1]]),
    );
    expect(ranges).toEqual(EXPECTED);
  });
});
