/**
 * Accessibility in every state a planner can reach, light and dark, at 320 and 500 px, in headless
 * Chromium with the in-memory Excel: axe-core (injected from node_modules) finds no violation of any
 * impact (WCAG 2.x A/AA and best practice) on the first run, the sample imported (its warnings as
 * message bars), the planner's own files after the sample, a file error, the row-limit error, an
 * import running and cancelled (the sheets it wrote offered for removal), the Insert form with its
 * question and its refusal, the Share tab, and the Case form plain, with problems and with Undo
 * offered. The focus is never on <body> during or after an action, and every element the keyboard
 * reaches on the Case tab is fully in view (not under the sticky Build bar, WCAG 2.4.11).
 * At 320 px leaves docs/screenshots/pane-<tab>-<light|dark>.png and pane-warnings-<light|dark>.png
 * (the README shows them) and pane-case-form-light.png, the Case form with problems (docs/case.md).
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import type { Page } from "playwright-core";
import { openPane, ROOT, distServer, waitForText } from "./harness";
import { FOCUS_WATCH, focusOnBody } from "./focus-watch";
import type { FakeWorkbook } from "../excel/fake-excel";
import { writeIogenCsv } from "../../bench/iogen-csv-file";

jest.setTimeout(900_000);
const SHOTS = path.join(ROOT, "docs/screenshots");
const AXE = fs.readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
/** A real iogen run (tests/lab/fixtures/iogen-real): its import has warnings of its own. */
const REAL = ["subintervals.csv", "summary.csv"].map((f) => path.join(ROOT, "tests/lab/fixtures/iogen-real", f));

const server = distServer();
type Host = { __fakeExcel: { workbook: FakeWorkbook } };

interface Violation {
  id: string;
  impact: string;
  help: string;
  nodes: { target: unknown[]; failureSummary: string }[];
}

/** axe-core's violations (any impact) on the page as it is, one line each. */
async function violations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ content: AXE });
  // What the user sees: after the components have drawn their last state change (FAST reflects
  // a property such as disabled to its attribute, and so to its style, in a later update).
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  // …and after their colour transitions (a button turning from disabled to enabled fades for ~100 ms):
  // axe would measure the contrast of a colour halfway. (The progress bar's endless animation aside.)
  await page.waitForFunction(() =>
    document
      .getAnimations()
      .every(
        (a) => a.playState !== "running" || (a.effect as KeyframeEffect | null)?.getTiming().iterations === Infinity,
      ),
  );
  const found = (await page.evaluate(() =>
    (window as unknown as { axe: { run: (c: unknown, o: unknown) => Promise<{ violations: unknown[] }> } }).axe
      .run(document, { resultTypes: ["violations"] })
      .then((r) => r.violations),
  )) as Violation[];
  return found.flatMap((v) =>
    v.nodes.map((n) => `${v.id} (${v.impact}): ${JSON.stringify(n.target)} ${n.failureSummary}`),
  );
}

/**
 * Tabs through the Case panel and returns every focused element whose box is not fully inside the
 * viewport or lies under the sticky Build bar (elements of the bar itself aside).
 */
async function obscuredOnTab(page: Page): Promise<string[]> {
  await page.focus("#case-example");
  const out: string[] = [];
  for (let k = 0; k < 80; k++) {
    await page.keyboard.press("Tab");
    const r = await page.evaluate(() => {
      const a = document.activeElement as HTMLElement | null;
      if (!a || !a.closest("#panel-case"))
        return { done: true, problem: `left the Case panel at ${a?.id || a?.localName}` };
      const box = a.getBoundingClientRect();
      const bar = document.querySelector(".case-build-bar") as HTMLElement;
      const barBox = bar.getBoundingClientRect();
      const inBar = bar.contains(a);
      const name = a.id || a.dataset.path || a.localName;
      const outside = box.top < 0 || box.bottom > innerHeight || box.left < 0 || box.right > innerWidth;
      const under = !inBar && box.bottom > barBox.top && box.top < barBox.bottom;
      return { done: a.id === "case-build", problem: outside || under ? `${name}: ${JSON.stringify(box)}` : "" };
    });
    if (r.problem) out.push(r.problem);
    if (r.done) {
      // The walk must have reached Build through the form, not left the panel at once.
      if (k < 10) out.push(`the walk ended after ${k + 1} elements`);
      return out;
    }
  }
  out.push("Build was not reached by Tab");
  return out;
}

/** Every state of the pane in one session; returns the violations per state. */
async function everyState(
  page: Page,
  scheme: string,
  width: number,
  bigFile: string,
): Promise<Record<string, string[]>> {
  const found: Record<string, string[]> = {};
  const shot = async (name: string): Promise<void> => {
    if (width === 320) await page.screenshot({ path: path.join(SHOTS, `${name}-${scheme}.png`) });
  };
  await waitForText(page, "status", /Connected to Excel/);
  found["first run"] = await violations(page);
  await page.click("#sample-import");
  await waitForText(page, "import-status", /^Imported:/, 180_000);
  found["sample imported"] = await violations(page);
  await shot("pane-import");

  // The planner's own files after the sample: a new set; imported, with warnings of their own.
  await page.setInputFiles("#file-input", REAL);
  await waitForText(page, "import-status", /2 files ready\. A new set/);
  found["own files after the sample"] = await violations(page);
  await page.click("#import");
  await waitForText(page, "import-status", /^Imported:/, 180_000);
  found["warnings of a real import"] = await violations(page);
  if (width === 320) {
    await page.locator("#import-warnings").scrollIntoViewIfNeeded();
    await shot("pane-warnings");
    await page.evaluate(() => scrollTo(0, 0));
  }

  // A file that is not a lab result.
  const bad = path.join(os.tmpdir(), `caplab-a11y-${process.pid}-notes.csv`);
  fs.writeFileSync(bad, "some,notes\n1,2\n");
  await page.setInputFiles("#file-input", bad);
  await waitForText(page, "import-error", /cannot be imported/);
  found["file error"] = await violations(page);
  await page.click("#clear");

  // A big file: the row-limit error, then an import running (a slow Excel), then cancelled.
  await page.setInputFiles("#file-input", bigFile);
  await waitForText(page, "import-status", /1 file ready/, 120_000);
  await page.fill("#max-rows", "2000000");
  await page.click("#import");
  await waitForText(page, "max-rows-error", /^Subinterval rows to write/);
  found["row-limit error"] = await violations(page);
  await page.fill("#max-rows", "40000");
  await page.evaluate(() => ((window as unknown as Host).__fakeExcel.workbook.latencyMs = 400));
  await page.click("#import");
  await waitForText(page, "progress-label", /^Writing sheet [3-9]/, 120_000);
  found["import running"] = await violations(page);
  await page.click("#cancel");
  await waitForText(page, "import-status", /^Import cancelled/, 120_000);
  await page.evaluate(() => ((window as unknown as Host).__fakeExcel.workbook.latencyMs = 0));
  found.cancelled = await violations(page);
  await page.click("#import-remove-sheets");
  await waitForText(page, "import-status", /^Removed /);
  fs.rmSync(bad, { force: true });

  // Functions: the Insert form, its question (the cell holds something) and its refusal (Text).
  await page.click("#tab-functions");
  await page.evaluate(() => {
    const wb = (window as unknown as Host).__fakeExcel.workbook;
    wb.sheet("Steps")!.setValue(30, 2, "my note");
    wb.selection = { sheet: "Steps", row: 30, col: 2 };
  });
  await page.fill("#function-filter", "mm1");
  await page.click("#insert-MMC_RESPONSE");
  found.functions = await violations(page);
  await shot("pane-functions");
  for (const [k, v] of ["2", "0.5", "3"].entries()) await page.fill(`#arg-MMC_RESPONSE-${k}`, v);
  await page.click("#insert-go-MMC_RESPONSE");
  await page.waitForSelector("#insert-question-MMC_RESPONSE");
  found["insert asks"] = await violations(page);
  await page.evaluate(() => {
    const wb = (window as unknown as Host).__fakeExcel.workbook;
    wb.sheet("Steps")!.setFormat(32, 2, "@");
    wb.selection = { sheet: "Steps", row: 32, col: 2 };
  });
  await page.click("#insert-replace-MMC_RESPONSE");
  await waitForText(page, "insert-status-MMC_RESPONSE", /^Nothing inserted/);
  found["insert refused"] = await violations(page);

  await page.click("#tab-share");
  await page.waitForFunction(() => document.getElementById("case-sharing")?.getAttribute("aria-busy") === "false");
  found.share = await violations(page);
  await shot("pane-share");

  await page.click("#tab-case");
  await page.waitForSelector('[data-path="options[1].capex"]');
  found.case = await violations(page);
  await shot("pane-case");
  found["case: focus under the Build bar"] = await obscuredOnTab(page);
  await page.fill('[data-path="discountRate"]', "ten");
  await page.fill('[data-path="options[1].capex"]', "-5");
  await page.waitForSelector("#case-errors li");
  found["case with problems"] = await violations(page);
  await page.locator("#case-errors").scrollIntoViewIfNeeded();
  if (width === 320 && scheme === "light")
    await page.screenshot({ path: path.join(SHOTS, "pane-case-form-light.png") });
  await page.selectOption("#case-example", "merging-helpdesks");
  await page.waitForSelector("#case-example-undo-button");
  found["case: Undo offered"] = await violations(page);
  await page.click("#case-example-undo-button");
  found["focus on <body>"] = await focusOnBody(page);
  return found;
}

describe("every state, light and dark, at 320 and 500 px: no axe-core violation, focus never lost or hidden", () => {
  let bigFile = "";
  let dir = "";
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "caplab-a11y-"));
    bigFile = path.join(dir, "subintervals-40k.csv");
    await writeIogenCsv(bigFile, 40_000, 2_500);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test.each([
    ["light", 320],
    ["dark", 320],
    ["light", 500],
    ["dark", 500],
  ] as const)("%s, %i px", async (scheme, width) => {
    const s = await openPane(server.url, { width, height: 700, colorScheme: scheme, initScript: FOCUS_WATCH });
    try {
      const { page } = s;
      fs.mkdirSync(SHOTS, { recursive: true });
      const found = await everyState(page, scheme, width, bigFile);
      expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe(scheme);
      const failing = Object.fromEntries(Object.entries(found).filter(([, v]) => v.length > 0));
      expect(failing).toEqual({});
      expect(Object.keys(found).length).toBe(17);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      expect(s.consoleErrors).toEqual([]);
      expect(s.externalRequests).toEqual([]);
    } finally {
      await s.close();
    }
  });

  test("Office's theme wins over the system's: a dark Office in a light system is dark, and the reverse", async () => {
    for (const [office, system, want] of [
      [{ isDarkTheme: true, bodyBackgroundColor: "#262626" }, "light", "dark"],
      [{ isDarkTheme: false, bodyBackgroundColor: "#FFFFFF" }, "dark", "light"],
      [{ bodyBackgroundColor: "#1F1F1F" }, "light", "dark"], // a host without isDarkTheme
    ] as const) {
      const s = await openPane(server.url, { width: 320, colorScheme: system, hostOptions: { officeTheme: office } });
      try {
        await waitForText(s.page, "status", /Connected to Excel/);
        expect(await s.page.evaluate(() => document.documentElement.dataset.theme)).toBe(want);
        const background = await s.page.evaluate(() => getComputedStyle(document.body).backgroundColor);
        expect(background).toBe(want === "dark" ? "rgb(41, 41, 41)" : "rgb(255, 255, 255)");
      } finally {
        await s.close();
      }
    }
  });
});
