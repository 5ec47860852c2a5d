/**
 * End to end in a real browser: the built pane (dist/) with an in-memory Excel in place of
 * office.js. Imports a real iogen CSV pair and a real fio JSON through the file input, and checks
 * what the workbook received against the plan `caplab report` builds from the same files.
 * Leaves docs/screenshots/pane-first-run.png and docs/screenshots/pane-imported.png.
 */
import * as fs from "fs";
import * as path from "path";
import { openPane, PaneSession, ROOT, serveDist } from "./harness";
import { readLabText } from "../../src/import/detect";
import { buildLabPlan } from "../../src/analysis/lab-plan";
import { tableRow, tableRowCount } from "../../src/analysis/plan";
import type { FakeWorkbook } from "../excel/fake-excel";

const FILES = [
  "tests/analysis/fixtures/iogen-real/subintervals.csv",
  "tests/analysis/fixtures/iogen-real/summary.csv",
  "tests/import/golden/fio-randrw-jsonplus/input.json",
].map((f) => path.join(ROOT, f));
const SHOTS = path.join(ROOT, "docs/screenshots");
// Generous: the machine running the suite may be busy (a 2-core box shared with builds).
jest.setTimeout(240_000);

let server: { url: string; close: () => Promise<void> };
beforeAll(async () => {
  server = await serveDist();
});
afterAll(async () => {
  await server.close();
});

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
      await page.waitForFunction(() => /Connected to Excel/.test(document.getElementById("status")?.textContent ?? ""));
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
      expect(await page.inputValue("#response")).toBe("cpu_busy_pct");
      expect(await page.isEnabled("#import")).toBe(true);

      await page.click("#import");
      await page.waitForFunction(
        () => /^Imported:/.test(document.getElementById("import-status")?.textContent ?? ""),
        null,
        {
          timeout: 60_000,
        },
      );
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
      expect(formulas).toContain("=G6/100*H6");
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
      expect(await page.isEnabled("#import")).toBe(false);
    } finally {
      await s.close();
    }
  });

  test("the sample is imported in one click and reachable again", async () => {
    const s = await openPane(server.url);
    try {
      const { page } = s;
      await page.waitForFunction(() => /Connected to Excel/.test(document.getElementById("status")?.textContent ?? ""));
      await page.click("#sample-import");
      await page.waitForFunction(
        () => /^Imported:/.test(document.getElementById("import-status")?.textContent ?? ""),
        null,
        {
          timeout: 60_000,
        },
      );
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
