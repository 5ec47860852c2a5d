/**
 * End to end in a real browser: the built pane (dist/) with an in-memory Excel in place of
 * office.js. Imports a real iogen CSV pair and a real fio JSON through the file input, and checks
 * what the workbook received against the plan `caplab report` builds from the same files.
 * Leaves docs/screenshots/pane-first-run.png and docs/screenshots/pane-imported.png.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import {
  chooseFiles,
  isEnabled,
  openPane,
  PaneSession,
  pressImport,
  ROOT,
  distServer,
  waitForText,
  settled,
} from "./harness";
import { readLabText } from "../../src/import/detect";
import { buildLabPlan } from "../../src/lab/lab-plan";
import { tableRow, tableRowCount } from "../../src/workbook/plan";
import type { FakeWorkbook } from "../excel/fake-excel";
import { writeIogenCsv } from "../../bench/iogen-csv-file";

const FILES = [
  "tests/lab/fixtures/iogen-real/subintervals.csv",
  "tests/lab/fixtures/iogen-real/summary.csv",
  "tests/import/golden/fio-randrw-jsonplus/input.json",
].map((f) => path.join(ROOT, f));
const SHOTS = path.join(ROOT, "docs/screenshots");
// Generous: the machine running the suite may be busy (a 2-core box shared with builds).
jest.setTimeout(240_000);

const server = distServer();

/** The fake workbook as plain data (Maps turned into arrays). */
async function workbook(s: PaneSession): Promise<{
  sheets: {
    name: string;
    cells: [string, { value: unknown; format: string; formula: string | null }][];
    charts: { type: string; seriesBy: string; title: string; series: { name: string; x: unknown[] }[] }[];
    frozenRows: number;
  }[];
  tables: FakeWorkbook["tables"];
  requests: FakeWorkbook["requests"];
}> {
  return s.page.evaluate(() => {
    const host = (window as unknown as { __fakeExcel: { workbook: FakeWorkbook } }).__fakeExcel;
    const wb = host.workbook;
    return {
      sheets: wb.sheets.map((sh) => ({
        name: sh.name,
        cells: Array.from(sh.cells.entries()),
        charts: sh.charts,
        frozenRows: sh.frozenRows,
      })),
      tables: wb.tables,
      requests: wb.requests,
    };
  });
}

describe("task pane in headless Chromium with an in-memory Excel", () => {
  test("first run, then import of an iogen CSV pair and a fio JSON: sheets, tables, formulas, charts, progress", async () => {
    const s = await openPane(server.url);
    try {
      const { page } = s;
      await waitForText(page, "status", /Connected to Excel/);
      expect(await page.isVisible("#first-run")).toBe(true);
      fs.mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SHOTS, "pane-first-run.png"), fullPage: true });
      await page.click("#sample-skip");
      expect(await page.isVisible("#first-run")).toBe(false);

      // Record every progress label shown.
      await page.evaluate(() => {
        const seen: string[] = [];
        (window as unknown as { progressSeen: string[] }).progressSeen = seen;
        const label = document.getElementById("progress-label") as HTMLElement;
        new MutationObserver(() => seen.push(label.textContent ?? "")).observe(label, {
          childList: true,
          characterData: true,
          subtree: true,
        });
      });
      await page.setInputFiles("#file-input", FILES);
      await page.waitForFunction(() =>
        /3 files ready/.test(document.getElementById("import-status")?.textContent ?? ""),
      );
      const preview = await page.$$eval("#file-list li", (lis) => lis.map((li) => li.textContent ?? ""));
      expect(preview[0]).toMatch(/subintervals\.csv.*iogen subinterval CSV · 60 rows · 4 steps · 60 subintervals/);
      expect(preview[1]).toMatch(/summary\.csv.*iogen summary CSV/);
      expect(preview[2]).toMatch(/input\.json.*fio JSON/);
      expect(await page.inputValue("#response")).toBe("response_ms_avg");
      expect(await isEnabled(page, "#import")).toBe(true);

      await page.click("#import");
      await waitForText(page, "import-status", /^Imported:/, 60_000);
      await settled(page);
      await page.screenshot({ path: path.join(SHOTS, "pane-imported.png"), fullPage: true });
      const progress = await page.evaluate(() => (window as unknown as { progressSeen: string[] }).progressSeen);

      // The plan caplab report builds from the same files (file names as the pane gives them).
      const plan = buildLabPlan(FILES.map((f) => readLabText(fs.readFileSync(f, "utf8"), path.basename(f))));
      const wb = await workbook(s);
      expect(wb.sheets.map((x) => x.name)).toEqual(plan.sheets.map((x) => x.name));
      expect(wb.tables.map((t) => t.name)).toEqual(
        plan.sheets.flatMap((x) => x.tables.filter((t) => !t.arrayFormula).map((t) => t.name)),
      );
      expect(progress).toContain(`Writing sheet 1 of ${plan.sheets.length}: Summary`);
      expect(progress).toContain(
        `Writing sheet ${plan.sheets.length} of ${plan.sheets.length}: ${plan.sheets.at(-1)!.name}`,
      );
      expect(progress.some((p) => /^Reading files/.test(p))).toBe(true);
      expect(progress).toContain("Analysing…");

      // Steps: every cell the workbook got equals the plan's (numbers exactly, formulas live).
      const stepsPlan = plan.sheets.find((x) => x.name === "Steps")!.tables[0];
      const steps = new Map(wb.sheets.find((x) => x.name === "Steps")!.cells);
      const at = stepsPlan.at!;
      let compared = 0;
      for (let r = 0; r < tableRowCount(stepsPlan); r++) {
        tableRow(stepsPlan, r).forEach((cell, c) => {
          const got = steps.get(`${at.row + 1 + r},${at.col + c}`);
          if (typeof cell === "number") {
            expect(got?.value).toBe(cell);
            compared++;
          } else if (typeof cell === "string") expect(got?.value).toBe(cell);
        });
      }
      expect(compared).toBeGreaterThan(50);
      expect(wb.sheets.find((x) => x.name === "Steps")!.frozenRows).toBe(at.row + 1);

      // Model: the plan's live formulas arrived as formulas.
      const model = wb.sheets.find((x) => x.name === "Model")!;
      const formulas = model.cells.filter(([, c]) => c.formula !== null).map(([, c]) => c.formula as string);
      // The first step's U = CPU % / 100 × cores, at the plan's place for the Model table.
      const modelPlan = plan.sheets.find((x) => x.name === "Model")!.tables.find((t) => t.name === "Model")!;
      const u = tableRow(modelPlan, 0)[modelPlan.columns.findIndex((c) => c.key === "u")] as { formula: string };
      expect(formulas).toContain(`=${u.formula}`);
      expect(u.formula).toMatch(/^G\d+\/100\*H\d+$/);
      // Charts: native XYScatter, seriesBy Columns, the model series present.
      const charts = wb.sheets.flatMap((x) => x.charts);
      expect(charts.length).toBe(plan.sheets.reduce((a, x) => a + x.charts.length, 0));
      expect(charts.every((c) => c.type === "XYScatter" && c.seriesBy === "Columns")).toBe(true);
      const rt = charts.find((c) => c.title === "Response time vs throughput")!;
      expect(rt.series.map((x) => x.name)).toEqual(
        plan.sheets
          .flatMap((x) => x.charts)
          .find((c) => c.id === "response-vs-throughput")!
          .series.map((x) => x.name),
      );
      expect(wb.requests.every((r) => r.bytes < 4_000_000 && !r.refused)).toBe(true);
      expect(s.consoleErrors).toEqual([]);
      expect(s.externalRequests).toEqual([]);
    } finally {
      await s.close();
    }
  });

  test("a file over the Subintervals row limit: every step analysed, the first rows written, the cut named in the pane and on Summary; a limit out of range refused", async () => {
    // 40,000 rows: 8 steps × overall/read × 2,500 subintervals (the benchmark's generator).
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "caplab-e2e-large-"));
    const file = path.join(dir, "subintervals-40k.csv");
    await writeIogenCsv(file, 40_000, 2_500);
    const s = await openPane(server.url);
    try {
      const { page } = s;
      await waitForText(page, "status", /Connected to Excel/);
      await page.click("#sample-skip");
      // The pane's default and its ceiling (an Excel sheet's rows below a header).
      expect(await page.inputValue("#max-rows")).toBe("100000");
      expect(await page.getAttribute("#max-rows", "max")).toBe("1048575");
      await page.setInputFiles("#file-input", file);
      await page.waitForFunction(() =>
        /1 file ready/.test(document.getElementById("import-status")?.textContent ?? ""),
      );
      expect(await page.textContent("#file-list")).toMatch(/40,000 rows · 8 steps · 40,000 subintervals/);

      // Out of range: refused with the field named, nothing written.
      await page.fill("#max-rows", "1048576");
      await page.click("#import");
      // …under the field, which has the focus and points at it.
      expect(await page.textContent("#max-rows-error")).toMatch(
        /^Subinterval rows to write: enter a whole number from 0 to 1,048,575 .*Nothing was written\.$/,
      );
      expect(await page.evaluate(() => document.activeElement?.id)).toBe("max-rows");
      expect(await page.getAttribute("#max-rows", "aria-describedby")).toContain("max-rows-error");
      expect(
        await page.evaluate(
          () => (window as unknown as { __fakeExcel: { workbook: FakeWorkbook } }).__fakeExcel.workbook.sheets.length,
        ),
      ).toBe(0);

      await page.fill("#max-rows", "12345");
      await pressImport(page);
      const got = await page.evaluate(() => {
        const wb = (window as unknown as { __fakeExcel: { workbook: FakeWorkbook } }).__fakeExcel.workbook;
        const summary = wb.sheet("Summary")!;
        const texts: string[] = [];
        for (let r = 0; r < 100; r++) {
          const v = summary.valueAt(r, 0);
          if (typeof v === "string") texts.push(v);
        }
        const sub = wb.sheet("Subintervals")!;
        const header = sub.values(0, 0, 1, 23)[0];
        const stepCol = header.indexOf("step");
        const subCol = header.indexOf("subinterval");
        const catCol = header.indexOf("category");
        return {
          sheets: wb.sheets.map((x) => x.name),
          tables: wb.tables.map((t) => [t.name, t.rows - 1]),
          summary: texts,
          lastRow: sub.values(12_345, 0, 1, 23)[0],
          afterLast: sub.has(12_346, 0),
          stepCol,
          subCol,
          catCol,
          // The pane's warnings: a message bar per kind, the rows left out first.
          warnings: Array.from(document.querySelectorAll("#import-warnings fluent-message-bar"), (e) => e.textContent),
        };
      });
      expect(got.sheets).toEqual(["Summary", "Steps", "Model", "What-if", "Fit", "Subintervals", "Categories"]);
      const rows = new Map(got.tables as [string, number][]);
      // Steps and Categories from every row (8 steps; their read rows), Subintervals cut at 12,345.
      expect(rows.get("Steps")).toBe(8);
      expect(rows.get("Categories")).toBe(8);
      expect(rows.get("Subintervals")).toBe(12_345);
      // Rows in file order, overall and read alternating, 5,000 rows a step: row 12,345 is the
      // 2,345th of step 3, i.e. its subinterval 1,173, overall.
      expect(got.lastRow[got.stepCol]).toBe("3");
      expect(got.lastRow[got.subCol]).toBe(1_173);
      expect(got.lastRow[got.catCol]).toBe("overall");
      expect(got.afterLast).toBe(false);
      const warning =
        "Subintervals: 40,000 rows, only the first 12,345 are written (the row limit of this import; an Excel sheet " +
        "holds 1,048,576 rows); left out: step 3 overall (1,327 of 2,500 rows), step 3 read (1,328 of 2,500 rows), " +
        "step 4 overall (2,500 of 2,500 rows), step 4 read (2,500 of 2,500 rows), step 5 overall (2,500 of 2,500 rows), " +
        "step 5 read (2,500 of 2,500 rows), step 6 overall (2,500 of 2,500 rows), step 6 read (2,500 of 2,500 rows) " +
        "and 4 more. Steps, Model, Fit and Categories use every row.";
      expect(got.summary).toContain(warning);
      expect(got.warnings[0]).toContain(warning);
      expect(got.warnings[0]).toMatch(/raise “Subinterval rows to write” and import again/);
      expect(s.consoleErrors).toEqual([]);
    } finally {
      await s.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("Cancel while Subintervals is being written stops between requests; requests refused as too large are resent smaller", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "caplab-e2e-cancel-"));
    const file = path.join(dir, "subintervals-40k.csv");
    await writeIogenCsv(file, 40_000, 2_500);
    // An Excel that refuses requests over 300 kB: the renderer's 5,000-row blocks are larger, refused and resent smaller.
    const s = await openPane(server.url, { hostOptions: { maxRequestBytes: 300_000 } });
    try {
      const { page } = s;
      await chooseFiles(page, file, /1 file ready/);
      // Press Cancel from the page as soon as Subintervals rows are being written (no race with the test process).
      await page.evaluate(() => {
        const label = document.getElementById("progress-label") as HTMLElement;
        const observer = new MutationObserver(() => {
          if (/Subintervals \([1-9][\d,]* of 40,000 rows\)/.test(label.textContent ?? "")) {
            observer.disconnect();
            (document.getElementById("cancel") as HTMLButtonElement).click();
          }
        });
        observer.observe(label, { childList: true, characterData: true, subtree: true });
      });
      await page.fill("#max-rows", "40000");
      await pressImport(page, /^Import cancelled/);
      // Every sheet this import wrote is named, Subintervals (cut short) included, and offered for removal.
      expect(await page.textContent("#import-status")).toMatch(
        /^Import cancelled; this import wrote 6 sheets “Summary”, “Steps”, “Model”, “What-if”, “Fit”, “Subintervals” \(the last one cut short\)\./,
      );
      expect(await page.isVisible("#import-remove-sheets")).toBe(true);
      const wb = await page.evaluate(() => {
        const book = (window as unknown as { __fakeExcel: { workbook: FakeWorkbook } }).__fakeExcel.workbook;
        // The first data row of Subintervals arrived (after its first block was refused and resent smaller).
        const sub = book.sheet("Subintervals");
        return {
          tables: book.tables.map((t) => t.name),
          refused: book.requests.filter((r) => r.refused).length,
          firstRow: sub ? sub.values(1, 0, 1, 5)[0] : [],
        };
      });
      expect(wb.tables).not.toContain("Subintervals");
      expect(wb.refused).toBeGreaterThan(0);
      expect(wb.firstRow.slice(2, 5)).toEqual(["1", "step-1", 1]); // step, step name, subinterval
      expect(await isEnabled(page, "#import")).toBe(true);
      expect(await page.isHidden("#cancel")).toBe(true);
      expect(s.consoleErrors).toEqual([]);
    } finally {
      await s.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a file too large for the pane is refused at once, naming the file and the command line way; the others still read", async () => {
    // A sparse file: 1.3 GiB long, no disk used, never read (the size alone refuses it).
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "caplab-e2e-huge-"));
    const huge = path.join(dir, "huge-subintervals.csv");
    fs.closeSync(fs.openSync(huge, "w"));
    fs.truncateSync(huge, Math.round(1.3 * 2 ** 30));
    const s = await openPane(server.url);
    try {
      const { page } = s;
      await chooseFiles(page, [huge, FILES[2]], /1 file ready, 1 with errors/);
      const list = (await page.textContent("#file-list")) ?? "";
      expect(list).toContain("huge-subintervals.csv: 1.30 GiB is more than the pane reads at once (1.25 GiB");
      expect(list).toContain("caplab report huge-subintervals.csv -o huge-subintervals.xlsx");
      expect(list).toMatch(/fio JSON/);
      expect(await isEnabled(page, "#import")).toBe(false);
      // Alone it is refused too, and the pane is not left waiting for a read that never started.
      await page.click("#clear");
      await page.setInputFiles("#file-input", [huge]);
      await page.waitForFunction(() =>
        /0 files ready, 1 with errors/.test(document.getElementById("import-status")?.textContent ?? ""),
      );
      expect(await isEnabled(page, "#import")).toBe(false);
      expect(s.consoleErrors).toEqual([]);
    } finally {
      await s.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the pane and its reading worker do not bundle the worksheet functions (they live in functions.js)", () => {
    // A message only src/functions/functions.ts has (DOE_FIT's argument check).
    const marker = "needs a header row of names and";
    const bundle = (name: string): string => fs.readFileSync(path.join(ROOT, "dist", name), "utf8");
    expect(bundle("functions.js")).toContain(marker);
    expect(bundle("taskpane.js")).not.toContain(marker);
    expect(bundle("read-worker.js")).not.toContain(marker);
  });

  test("outside Excel: says so plainly, still previews files, Import stays disabled", async () => {
    const s = await openPane(server.url, { fakeHost: false });
    try {
      const { page } = s;
      await page.waitForFunction(
        () => /Not running inside Excel/.test(document.getElementById("status")?.textContent ?? ""),
        null,
        {
          timeout: 60_000,
        },
      );
      await page.click("#sample-skip");
      await page.setInputFiles("#file-input", [FILES[2]]);
      await page.waitForFunction(() =>
        /1 file ready/.test(document.getElementById("import-status")?.textContent ?? ""),
      );
      expect(await page.textContent("#file-list")).toMatch(/fio JSON/);
      expect(await isEnabled(page, "#import")).toBe(false);
    } finally {
      await s.close();
    }
  });

  test("the sample is imported in one click and reachable again", async () => {
    const s = await openPane(server.url);
    try {
      const { page } = s;
      await waitForText(page, "status", /Connected to Excel/);
      await page.click("#sample-import");
      await waitForText(page, "import-status", /^Imported:/, 60_000);
      const wb = await workbook(s);
      expect(wb.sheets.map((x) => x.name)).toContain("Steps");
      await page.click("#clear");
      await page.click("#sample-again");
      await page.waitForFunction(
        () => /Steps \(2\)/.test(document.getElementById("import-status")?.textContent ?? ""),
        null,
        { timeout: 60_000 },
      );
      expect(s.consoleErrors).toEqual([]);
    } finally {
      await s.close();
    }
  });
});
