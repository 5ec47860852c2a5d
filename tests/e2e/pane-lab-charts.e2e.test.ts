/**
 * End to end in a real browser: the first-run sample (tests/lab/fixtures/lab-sample) imported
 * through the built pane into the in-memory Excel, and what the Model sheet's charts were given:
 * the response charts on a log x axis, the measured points over the Model table's cells, the
 * fitted curves and knees over the hidden helper table the plan placed (ModelChartData), not
 * over a visible data block.
 *
 * The in-memory Excel records charts but cannot draw them, so the pictures are: the pane after the
 * import (docs/screenshots/lab-pane-imported.png) and the Model sheet's charts as the HTML report
 * (`caplab report --html`) draws them in the same Chromium (docs/screenshots/lab-html-model-charts.png).
 * The LibreOffice render of the .xlsx's native charts is scripts/lab-screenshots.ts'.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { openPane, ROOT, distServer, waitForText, settled } from "./harness";
import { readLabText } from "../../src/import/detect";
import { buildLabPlan } from "../../src/lab/lab-plan";
import { MODEL_CHART_DATA_TABLE } from "../../src/lab/model-charts";
import { cellA1 } from "../../src/workbook/plan";
import { renderHtml } from "../../src/report/html";
import type { FakeChart, FakeWorkbook } from "../excel/fake-excel";

const SAMPLE = ["subintervals.csv", "summary.csv"].map((f) => path.join(ROOT, "tests/lab/fixtures/lab-sample", f));
const SHOTS = path.join(ROOT, "docs/screenshots");
// Generous: the machine running the suite may be busy (a 2-core box shared with builds).
jest.setTimeout(240_000);

const server = distServer();

describe("the first-run sample imported through the pane: Model charts", () => {
  test("log axis, measured points over the Model table, fitted curves over the hidden helper table", async () => {
    const s = await openPane(server.url, { width: 360, height: 900 });
    try {
      const { page } = s;
      await waitForText(page, "status", /Connected to Excel/);
      await page.click("#sample-import");
      await waitForText(page, "import-status", /^Imported:/, 120_000);
      fs.mkdirSync(SHOTS, { recursive: true });
      await settled(page);
      await page.screenshot({ path: path.join(SHOTS, "lab-pane-imported.png"), fullPage: true });

      const got = await page.evaluate(() => {
        const wb = (window as unknown as { __fakeExcel: { workbook: FakeWorkbook } }).__fakeExcel.workbook;
        const model = wb.sheets.find((x) => x.name === "Model");
        return { charts: model ? model.charts : [], tables: wb.tables };
      });
      // The plan the pane built (the sample files under the names the pane gives them).
      const plan = buildLabPlan(
        SAMPLE.map((f, i) =>
          readLabText(fs.readFileSync(f, "utf8"), ["lab-sample-subintervals.csv", "lab-sample-summary.csv"][i]),
        ),
      );
      const modelPlan = plan.sheets.find((x) => x.name === "Model")!;
      const helper = modelPlan.tables.find((t) => t.name === MODEL_CHART_DATA_TABLE)!;
      const modelTable = modelPlan.tables.find((t) => t.name === "Model")!;
      expect(helper.hidden).toBe(true);
      expect(got.tables.map((t) => t.name)).toContain(MODEL_CHART_DATA_TABLE);

      const byTitle = new Map<string, FakeChart>(got.charts.map((c) => [c.title, c]));
      expect([...byTitle.keys()]).toEqual(modelPlan.charts.map((c) => c.title));
      for (const chartPlan of modelPlan.charts) {
        const chart = byTitle.get(chartPlan.title)!;
        expect(chart.xLogBase).toBe(chartPlan.xLog ? 10 : undefined);
        expect(chart.series.map((x) => x.name)).toEqual(chartPlan.series.map((x) => x.name));
        chartPlan.series.forEach((sp, i) => {
          const drawn = chart.series[i];
          if (sp.cells) {
            // The series' own columns of the helper table, its x.length rows from the first.
            const xCol = helper.at.col + helper.columns.findIndex((c) => c.key === sp.cells!.x);
            const first = cellA1({ row: helper.at.row + 1, col: xCol });
            const last = cellA1({ row: helper.at.row + sp.x.length, col: xCol });
            expect(drawn.xRef).toBe(`Model!${first}:${last}`);
            // The same numbers to the last bits (the browser's Math.pow may differ from Node's in the last ulp).
            const close = (got: unknown[], want: number[]): void => {
              expect(got).toHaveLength(want.length);
              got.forEach((g, k) =>
                expect(Math.abs((g as number) - want[k])).toBeLessThanOrEqual(1e-12 * Math.abs(want[k])),
              );
            };
            close(drawn.x, sp.x);
            close(drawn.y, sp.y);
          } else {
            // Measured points: the Model table's own cells (live).
            const xCol = modelTable.at.col + modelTable.columns.findIndex((c) => c.key === "x");
            expect(drawn.xRef).toBe(
              `Model!${cellA1({ row: modelTable.at.row + 1, col: xCol })}:${cellA1({ row: modelTable.at.row + modelTable.rows.length, col: xCol })}`,
            );
          }
        });
      }
      const response = byTitle.get("Response time vs throughput")!;
      expect(response.xLogBase).toBe(10);
      expect(response.series.some((x) => /^fitted S\/\(1 − X\/X_max\)/.test(x.name))).toBe(true);
      expect(response.series.some((x) => /^knee/.test(x.name))).toBe(true);

      // The HTML report of the same files in the same browser: its Model charts.
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "caplab-html-"));
      try {
        const html = path.join(dir, "lab.html");
        fs.writeFileSync(html, renderHtml(plan));
        const report = await s.browser.newPage({ viewport: { width: 900, height: 900 } });
        await report.goto(`file://${html}`);
        const section = report.locator(`section.sheet:has(h2:text-is("Model")) .charts`);
        await section.waitFor();
        await report.waitForFunction(() => document.querySelectorAll(".chart-area canvas").length >= 3);
        await section.screenshot({ path: path.join(SHOTS, "lab-html-model-charts.png") });
        await report.close();
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
      expect(s.consoleErrors).toEqual([]);
    } finally {
      await s.close();
    }
  });
});
