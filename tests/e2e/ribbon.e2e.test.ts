/**
 * The pane as Office drives it, in headless Chromium with the in-memory Excel: the ribbon's four
 * commands (pressed through the functions the commands bundle associates, as Excel calls them),
 * Insert on the Functions tab writing into the selected cell, and where the focus goes after
 * each action (a keyboard or screen-reader user continues from there).
 */
import * as path from "path";
import type { Page } from "playwright-core";
import { openPane, pressImport, ROOT, distServer, waitForText } from "./harness";
import type { FakeWorkbook } from "../excel/fake-excel";

jest.setTimeout(240_000);

const server = distServer();

type Host = { workbook: FakeWorkbook; actions: Map<string, unknown>; shown: { count: number } };

/** Presses a ribbon button: calls the function associated under its FunctionName, as Excel does. */
async function press(page: Page, name: string): Promise<void> {
  await page.evaluate(
    (n) =>
      new Promise<void>((resolve, reject) => {
        const host = (window as unknown as { __fakeExcel: Host }).__fakeExcel;
        const fn = host.actions.get(n) as ((e: { completed: () => void }) => void) | undefined;
        if (!fn) return reject(new Error(`no ribbon function ${n} is associated`));
        fn({ completed: resolve });
      }),
    name,
  );
}

const active = (page: Page): Promise<string | undefined> => page.evaluate(() => document.activeElement?.id);
const visiblePanels = (page: Page): Promise<string[]> =>
  page.$$eval('[role="tabpanel"]', (ps) => ps.filter((p) => !(p as HTMLElement).hidden).map((p) => p.id));

describe("ribbon, Insert and focus in headless Chromium with an in-memory Excel", () => {
  test("each ribbon command shows the pane on its tab and puts the focus there", async () => {
    const s = await openPane(server.url, { width: 320 });
    try {
      const { page } = s;
      await waitForText(page, "status", /Connected to Excel/);
      await page.click("#sample-skip");
      const cases: [string, string, string, string][] = [
        ["showShare", "tab-share", "panel-share", "panel-share"],
        ["showFunctions", "tab-functions", "panel-functions", "function-filter"],
        ["showCase", "tab-case", "panel-case", "case-example"],
        ["showImport", "tab-import", "panel-import", "choose-files"],
      ];
      for (const [command, tab, panel, focus] of cases) {
        await press(page, command);
        expect([command, await visiblePanels(page)]).toEqual([command, [panel]]);
        expect([command, await page.getAttribute(`#${tab}`, "aria-selected")]).toEqual([command, "true"]);
        expect([command, await active(page)]).toEqual([command, focus]);
      }
      const shown = await page.evaluate(() => (window as unknown as { __fakeExcel: Host }).__fakeExcel.shown.count);
      expect(shown).toBe(cases.length);
      expect(s.consoleErrors).toEqual([]);
    } finally {
      await s.close();
    }
  });

  test("Insert: search by idea, fill the documented arguments, the formula lands in the selected cell", async () => {
    const s = await openPane(server.url, { width: 320 });
    try {
      const { page } = s;
      await waitForText(page, "status", /Connected to Excel/);
      // A workbook with one sheet, B3 selected.
      await page.evaluate(async () => {
        await Excel.run(async (context) => {
          context.workbook.worksheets.add("Sheet1");
          await context.sync();
        });
        const wb = (window as unknown as { __fakeExcel: Host }).__fakeExcel.workbook;
        wb.selection = { sheet: "Sheet1", row: 2, col: 1 };
      });
      await page.click("#tab-functions");
      await page.fill("#function-filter", "mm1");
      const found = await page.$$eval("#function-list li", (lis) => lis.map((li) => li.id));
      expect(found).toContain("function-MMC_RESPONSE");
      await page.click("#insert-MMC_RESPONSE");
      // The form has the documented parameters, and the focus is in its first field.
      const labels = await page.$$eval("#insert-form-MMC_RESPONSE label", (ls) => ls.map((l) => l.textContent));
      expect(labels).toEqual(["servers", "service_time", "arrival_rate"]);
      expect(await active(page)).toBe("arg-MMC_RESPONSE-0");

      // An empty required argument: an alert beside its field, linked to it, and the focus there.
      await page.fill("#arg-MMC_RESPONSE-1", "0.5");
      await page.fill("#arg-MMC_RESPONSE-2", "3");
      await page.click("#insert-go-MMC_RESPONSE");
      expect(await page.textContent("#arg-MMC_RESPONSE-0-error")).toBe("servers: required; enter a value or a cell");
      expect(await page.getAttribute("#arg-MMC_RESPONSE-0-error", "role")).toBe("alert");
      expect(await page.getAttribute("#arg-MMC_RESPONSE-0", "aria-invalid")).toBe("true");
      expect((await page.getAttribute("#arg-MMC_RESPONSE-0", "aria-describedby"))!.split(" ")).toContain(
        "arg-MMC_RESPONSE-0-error",
      );
      expect(await active(page)).toBe("arg-MMC_RESPONSE-0");

      await page.fill("#arg-MMC_RESPONSE-0", "2");
      expect(await page.textContent("#insert-preview-MMC_RESPONSE")).toBe("=CAPLAB.MMC_RESPONSE(2,0.5,3)");
      await page.keyboard.press("Enter");
      await waitForText(page, "insert-status-MMC_RESPONSE", /^Inserted/);
      // M/M/2, S = 0.5, λ = 3: a = 1.5, Erlang C = (a²/2·c/(c−a)) / (1 + a + a²/2·c/(c−a)) = 4.5/7,
      // R = S + C·S/(c − a) = 0.5 + (4.5/7)·0.5/0.5 = 8/7 (worked by hand).
      const cell = await page.evaluate(() => {
        const wb = (window as unknown as { __fakeExcel: Host }).__fakeExcel.workbook;
        return wb.sheet("Sheet1")!.get(2, 1);
      });
      expect(cell?.formula).toBe("=CAPLAB.MMC_RESPONSE(2,0.5,3)");
      expect(cell?.value as number).toBeCloseTo(8 / 7, 12);
      expect(await page.textContent("#insert-status-MMC_RESPONSE")).toBe(
        "Inserted =CAPLAB.MMC_RESPONSE(2,0.5,3) into Sheet1!B3; it shows 1.14286.",
      );
      expect(await active(page)).toBe("insert-status-MMC_RESPONSE");
      expect(await page.$("#insert-form-MMC_RESPONSE")).toBeNull();
      expect(s.consoleErrors).toEqual([]);
    } finally {
      await s.close();
    }
  });

  test("after importing the sample the focus is on Go to Summary, which opens it; a missing Fit sheet is explained", async () => {
    const s = await openPane(server.url, { width: 320 });
    try {
      const { page } = s;
      await waitForText(page, "status", /Connected to Excel/);
      await page.click("#sample-import");
      await waitForText(page, "import-status", /^Imported:/, 120_000);
      await page.waitForFunction(() => document.activeElement?.id === "goto-summary");
      // The model sample varies the protocol (two levels) and the load (six): no two-level design, no Fit sheet.
      expect(await page.textContent("#import-fit-note")).toMatch(
        /^No Fit sheet: the steps do not vary two or more factors/,
      );
      await page.keyboard.press("Enter");
      await waitForText(page, "import-status", /^Summary is the active sheet\./);
      expect(
        await page.evaluate(() => (window as unknown as { __fakeExcel: Host }).__fakeExcel.workbook.activeSheet),
      ).toBe("Summary");

      // One fio run varies no factor: no Fit sheet, and the pane says why.
      await page.click("#clear");
      await page.setInputFiles("#file-input", path.join(ROOT, "tests/import/golden/fio-randread-json/input.json"));
      await waitForText(page, "import-status", /1 file ready/);
      await pressImport(page);
      expect(await page.textContent("#import-fit-note")).toBe(
        "No Fit sheet: the steps do not vary two or more factors at two levels. A fit needs a designed experiment " +
          "(e.g. an iogen plan over two factors at two levels each).",
      );
      expect(await active(page)).toBe("goto-summary");
      expect(s.consoleErrors).toEqual([]);
    } finally {
      await s.close();
    }
  });
});
