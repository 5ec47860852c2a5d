/**
 * End to end in a real browser: the built pane imports a multi-host iogen CSV pair (iogen under
 * MPI, tests/lab/fixtures/iogen-mpi: three ranks' rows and an `all` row per subinterval) and
 * the workbook gets a Hosts sheet, with the same cells as the plan `caplab report` builds from the
 * same files, and Steps rows from the `all` rows.
 */
import * as fs from "fs";
import * as path from "path";
import { chooseFiles, openPane, pressImport, ROOT, distServer } from "./harness";
import { readLabText } from "../../src/import/detect";
import { buildLabPlan } from "../../src/lab/lab-plan";
import { tableRow, tableRowCount, TablePlan } from "../../src/workbook/plan";

const FILES = ["subintervals.csv", "summary.csv"].map((f) => path.join(ROOT, "tests/lab/fixtures/iogen-mpi", f));
jest.setTimeout(240_000);

const server = distServer();

test("a multi-host iogen CSV pair: Steps from the all rows, a Hosts sheet with each host and the imbalance", async () => {
  const s = await openPane(server.url);
  try {
    const { page } = s;
    await chooseFiles(page, FILES, /2 files ready/);
    await pressImport(page);
    const plan = buildLabPlan(FILES.map((f) => readLabText(fs.readFileSync(f, "utf8"), path.basename(f))));
    const sheets = await page.evaluate(() => {
      const wb = (window as unknown as { __fakeExcel: { workbook: import("../excel/fake-excel").FakeWorkbook } })
        .__fakeExcel.workbook;
      return wb.sheets.map((sh) => ({
        name: sh.name,
        cells: Array.from(sh.cells.entries()).map(([k, c]) => [k, { value: c.value, formula: c.formula }] as const),
      }));
    });
    expect(sheets.map((x) => x.name)).toEqual(plan.sheets.map((x) => x.name));
    expect(sheets.map((x) => x.name)).toContain("Hosts");
    const cellsOf = (name: string): Map<string, { value: unknown; formula: string | null }> =>
      new Map(sheets.find((x) => x.name === name)!.cells);
    /** Every cell of a plan table as the workbook got it: numbers and texts exactly, formulas live. */
    const compare = (sheet: string, t: TablePlan): number => {
      const cells = cellsOf(sheet);
      let n = 0;
      for (let r = 0; r < tableRowCount(t); r++) {
        tableRow(t, r).forEach((cell, c) => {
          const got = cells.get(`${t.at!.row + 1 + r},${t.at!.col + c}`);
          if (typeof cell === "number" || typeof cell === "string") expect(got?.value).toBe(cell);
          else if (cell !== null && typeof cell === "object" && "formula" in cell)
            expect(got?.formula).toBe(`=${cell.formula}`);
          n++;
        });
      }
      return n;
    };
    const hostsPlan = plan.sheets.find((x) => x.name === "Hosts")!;
    const [hosts, imbalance] = hostsPlan.tables;
    expect(compare("Hosts", hosts)).toBeGreaterThan(30);
    expect(compare("Hosts", imbalance)).toBeGreaterThan(10);
    // Three hosts per step, two steps; Steps holds the two `all` rows.
    const hostCol = hosts.columns.findIndex((c) => c.header === "host");
    expect(Array.from({ length: tableRowCount(hosts) }, (_, r) => tableRow(hosts, r)[hostCol])).toEqual([
      "lab1#1",
      "lab1#2",
      "lab1#3",
      "lab1#1",
      "lab1#2",
      "lab1#3",
    ]);
    const steps = plan.sheets.find((x) => x.name === "Steps")!.tables[0];
    expect(compare("Steps", steps)).toBeGreaterThan(20);
    expect(tableRowCount(steps)).toBe(2);
    expect(s.consoleErrors).toEqual([]);
    expect(s.externalRequests).toEqual([]);
  } finally {
    await s.close();
  }
});
