/**
 * The HTML report in a real browser: Debian's Chromium, headless, driven by playwright-core.
 * Renders the fixture plan to `.tmp/html-report/report.html`, opens it from disk with every
 * non-file request blocked, and checks that no request was even attempted, that no console
 * error or page error occurred (a CSP violation is a console error), that every chart drew
 * its series (coloured pixels on uPlot's canvas, not just grey axes), that hostile labels show
 * as text and no dialog opened. Saves screen and print-media screenshots under `.tmp/`.
 *
 * Needs /usr/bin/chromium (`apt-get install -y chromium`; CI installs it in `.ci/run`).
 * Set CAPLAB_SKIP_BROWSER=1 to skip on a machine without it.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "fs";
import { join, resolve } from "path";
import { pathToFileURL } from "url";
import { chromium, type Browser } from "playwright-core";
import { buildLabPlan } from "../../src/lab/lab-plan";
import { readLabText } from "../../src/import/detect";
import { renderHtml } from "../../src/report/html";
import { fixturePlan, HOSTILE_SCRIPT } from "./html-fixture";
import { describeUnless } from "../helpers/skip";

const CHROMIUM = "/usr/bin/chromium";
const OUT_DIR = resolve(__dirname, "../../.tmp/html-report");
const whyNot = process.env.CAPLAB_SKIP_BROWSER === "1" ? "CAPLAB_SKIP_BROWSER=1" : null;

describeUnless(whyNot, "HTML report in headless Chromium", () => {
  let browser: Browser;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `${CHROMIUM} not found: install it (apt-get update && apt-get install -y chromium), ` +
          "or set CAPLAB_SKIP_BROWSER=1 to skip the browser tests",
      );
    }
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  /** Opens `html` from disk with every non-file request blocked; returns what happened. */
  async function openInBrowser(name: string, html: string) {
    mkdirSync(OUT_DIR, { recursive: true });
    const file = join(OUT_DIR, `${name}.html`);
    writeFileSync(file, html);
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, deviceScaleFactor: 1 });
    const attempted: string[] = [];
    await context.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith("file:")) return route.continue();
      attempted.push(url);
      return route.abort("blockedbyclient");
    });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("request", (req) => {
      if (!req.url().startsWith("file:")) attempted.push(req.url());
    });
    page.on("console", (msg) => {
      if (msg.type() === "error" || msg.type() === "warning") problems.push(`console ${msg.type()}: ${msg.text()}`);
    });
    page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
    page.on("dialog", (dialog) => {
      problems.push(`dialog opened: ${dialog.message()}`);
      void dialog.dismiss();
    });

    await page.goto(pathToFileURL(file).href, { waitUntil: "load" });
    await page.waitForFunction(() => document.body.hasAttribute("data-charts-drawn"), null, { timeout: 20_000 });

    const charts = await page.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLElement>(".chart-area")).map((area) => {
        const canvas = area.querySelector("canvas");
        let coloured = 0;
        if (canvas) {
          const ctx = canvas.getContext("2d")!;
          const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
          for (let i = 0; i < data.length; i += 4) {
            const [r, g, b, a] = [data[i], data[i + 1], data[i + 2], data[i + 3]];
            if (a > 128 && Math.max(r, g, b) - Math.min(r, g, b) > 60) coloured++;
          }
        }
        return {
          id: area.id,
          drawn: area.getAttribute("data-drawn"),
          canvas: canvas ? [canvas.width, canvas.height] : null,
          coloured,
          legend: Array.from(area.querySelectorAll(".u-legend .u-label")).map((l) => l.textContent),
        };
      }),
    );
    const drawnCount = await page.evaluate(() => document.body.getAttribute("data-charts-drawn"));
    const scriptCount = await page.evaluate(() => document.scripts.length);

    await page.screenshot({ path: join(OUT_DIR, `${name}.png`), fullPage: true });
    await page.screenshot({ path: join(OUT_DIR, `${name}-top.png`) });
    // The top of each sheet (at most 1200 px of it), for looking at tables and notes.
    const sheets = page.locator("section.sheet");
    for (let i = 0; i < (await sheets.count()); i++) {
      const box = (await sheets.nth(i).boundingBox())!;
      const clip = { x: 0, y: box.y, width: 1200, height: Math.min(box.height, 1200) };
      await page.screenshot({ path: join(OUT_DIR, `${name}-sheet-${i + 1}.png`), clip, fullPage: true });
    }
    const figures = page.locator("figure.chart");
    for (let i = 0; i < (await figures.count()); i++) {
      await figures.nth(i).screenshot({ path: join(OUT_DIR, `${name}-chart-${i + 1}.png`) });
    }
    await page.emulateMedia({ media: "print" });
    await page.screenshot({ path: join(OUT_DIR, `${name}-print.png`), fullPage: true });
    await context.close();
    return { attempted, problems, charts, drawnCount, scriptCount };
  }

  function expectAllDrawn(result: Awaited<ReturnType<typeof openInBrowser>>, chartCount: number): void {
    expect(result.attempted).toEqual([]);
    expect(result.problems).toEqual([]);
    expect(result.drawnCount).toBe(String(chartCount));
    expect(result.charts).toHaveLength(chartCount);
    for (const c of result.charts) {
      expect(c.drawn).toBe("true");
      expect(c.canvas![0]).toBeGreaterThan(200);
      // Series colours are saturated; axes, grid and text are grey. A few hundred pixels at least.
      expect(c.coloured).toBeGreaterThan(100);
    }
    expect(result.scriptCount).toBe(3);
  }

  test("draws every chart offline without errors, requests or script injection", async () => {
    const plan = fixturePlan();
    const result = await openInBrowser("report", renderHtml(plan));
    expectAllDrawn(result, plan.sheets.flatMap((s) => s.charts).length);
    // Legends show the plan's series names as text, the hostile one included.
    expect(result.charts[0].legend).toEqual(["measured", `M/M/c model ${HOSTILE_SCRIPT}`]);
  }, 90_000);

  test("draws the analysis plan of the synthetic 2×2 iogen run", async () => {
    const dir = join(__dirname, "../lab/fixtures/doe2x2");
    const inputs = ["subintervals.csv", "summary.csv"].map((f) => readLabText(readFileSync(join(dir, f), "utf8"), f));
    const plan = buildLabPlan(inputs, { title: "2×2 fixture" });
    const charts = plan.sheets.flatMap((s) => s.charts);
    expect(charts.map((c) => c.id)).toEqual(
      expect.arrayContaining(["response-vs-throughput", "cpu-vs-iops", "iops-time-series"]),
    );
    const result = await openInBrowser("report-lab", renderHtml(plan));
    expectAllDrawn(result, charts.length);
  }, 90_000);
});
