/**
 * Accessibility and look of every tab, light and dark, at 320 px (a narrow Office pane), in
 * headless Chromium with the in-memory Excel: axe-core (injected from node_modules) finds no
 * serious or critical violation of WCAG 2.x A/AA or best practice on any tab, with the sample
 * imported, an Insert form open, the share list read and the case form drawn. The theme follows
 * the system (prefers-color-scheme) and Office's own theme when Office gives one.
 * Leaves docs/screenshots/pane-<tab>-<light|dark>.png (the README shows them) and
 * pane-case-form-light.png, the Case form with two problems listed (docs/case.md).
 */
import * as fs from "fs";
import * as path from "path";
import type { Page } from "playwright-core";
import { openPane, ROOT, distServer, waitForText } from "./harness";

jest.setTimeout(300_000);
const SHOTS = path.join(ROOT, "docs/screenshots");
const AXE = fs.readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

const server = distServer();

interface Violation {
  id: string;
  impact: string;
  help: string;
  nodes: { target: unknown[]; failureSummary: string }[];
}

/** axe-core's serious and critical violations on the page as it is, one line each. */
async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ content: AXE });
  // What the user sees: after the components have drawn their last state change (FAST reflects
  // a property such as disabled to its attribute, and so to its style, in a later update).
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  // …and after their colour transitions (a button turning from disabled to enabled fades for ~100 ms):
  // axe would measure the contrast of a colour halfway.
  await page.waitForFunction(() => document.getAnimations().every((a) => a.playState !== "running"));
  const violations = (await page.evaluate(() =>
    (window as unknown as { axe: { run: (c: unknown, o: unknown) => Promise<{ violations: unknown[] }> } }).axe
      .run(document, { resultTypes: ["violations"] })
      .then((r) => r.violations),
  )) as Violation[];
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${JSON.stringify(n.target)} ${n.failureSummary}`));
}

describe("every tab, light and dark, at 320 px: axe-core finds no serious or critical violation", () => {
  test.each(["light", "dark"] as const)("%s", async (scheme) => {
    const s = await openPane(server.url, { width: 320, height: 700, colorScheme: scheme });
    try {
      const { page } = s;
      await waitForText(page, "status", /Connected to Excel/);
      expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe(scheme);
      fs.mkdirSync(SHOTS, { recursive: true });
      const found: Record<string, string[]> = {};

      // Import: the first run card, then the sample imported (file list, status, Go to Summary).
      found["import (first run)"] = await seriousViolations(page);
      await page.click("#sample-import");
      await waitForText(page, "import-status", /^Imported:/, 120_000);
      found.import = await seriousViolations(page);
      await page.screenshot({ path: path.join(SHOTS, `pane-import-${scheme}.png`) });

      await page.click("#tab-functions");
      await page.fill("#function-filter", "staffing");
      await page.click("#insert-MMC_STAFF");
      found.functions = await seriousViolations(page);
      await page.screenshot({ path: path.join(SHOTS, `pane-functions-${scheme}.png`) });

      await page.click("#tab-share");
      await page.waitForFunction(() => document.getElementById("case-sharing")?.getAttribute("aria-busy") === "false");
      found.share = await seriousViolations(page);
      await page.screenshot({ path: path.join(SHOTS, `pane-share-${scheme}.png`) });

      await page.click("#tab-case");
      await page.waitForSelector('[data-path="options[1].capex"]');
      found.case = await seriousViolations(page);
      await page.screenshot({ path: path.join(SHOTS, `pane-case-${scheme}.png`) });
      // With problems: the list of them (links), the alerts beside the fields, Build disabled.
      await page.fill('[data-path="discountRate"]', "ten");
      await page.fill('[data-path="options[1].capex"]', "-5");
      await page.waitForSelector("#case-errors li");
      found["case with problems"] = await seriousViolations(page);
      // As the planner sees it: the problems in view above the Build bar that stays at the bottom.
      await page.locator("#case-errors").scrollIntoViewIfNeeded();
      if (scheme === "light") await page.screenshot({ path: path.join(SHOTS, "pane-case-form-light.png") });
      await page.fill('[data-path="discountRate"]', "10%");
      await page.fill('[data-path="options[1].capex"]', "250k");

      expect(found).toEqual({
        "import (first run)": [],
        import: [],
        functions: [],
        share: [],
        case: [],
        "case with problems": [],
      });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
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
