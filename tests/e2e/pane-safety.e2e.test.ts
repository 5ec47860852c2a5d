/**
 * The pane never changes the planner's work without asking (headless Chromium, in-memory Excel):
 * - the sample, then the planner's own files: the import holds only the planner's files;
 * - Insert into a cell that holds something asks first (Keep leaves it as it was); into a cell
 *   formatted as Text (the Summary's title after "Go to Summary") it refuses: never a false "Inserted";
 * - "Start from" after edits replaces them only with an Undo that brings them back;
 * - Cancel while Subintervals is being written names every sheet the import wrote (the one cut
 *   short included) and removes them when asked.
 * Throughout, the focus is never on <body> while the pane works or after it is done.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import type { Page } from "playwright-core";
import { chooseFiles, openPane, pressImport, ROOT, distServer, waitForText } from "./harness";
import type { FakeWorkbook } from "../excel/fake-excel";
import { writeIogenCsv } from "../../bench/iogen-csv-file";
import { FOCUS_WATCH, focusOnBody } from "./focus-watch";

jest.setTimeout(300_000);
const server = distServer();

/** The planner's own files: a real iogen run (4 steps) as a subinterval and summary CSV pair. */
const OWN = ["subintervals.csv", "summary.csv"].map((f) => path.join(ROOT, "tests/lab/fixtures/iogen-real", f));

type Host = { __fakeExcel: { workbook: FakeWorkbook } };

/** The workbook's sheet names, in order. */
async function sheetNames(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as Host).__fakeExcel.workbook.sheets.map((s) => s.name));
}

/** Opens MMC_RESPONSE's Insert form (the list filtered on "mm1"), fills 2, 0.5, 3 and presses Insert. */
async function insertMm1(page: Page): Promise<void> {
  await page.click("#insert-MMC_RESPONSE");
  for (const [k, v] of ["2", "0.5", "3"].entries()) await page.fill(`#arg-MMC_RESPONSE-${k}`, v);
  await page.click("#insert-go-MMC_RESPONSE");
}

/** A cell of the in-memory workbook, as the page holds it. */
async function cell(
  page: Page,
  sheet: string,
  row: number,
  col: number,
): Promise<{ value: unknown; formula: string | null } | undefined> {
  return page.evaluate(
    ([name, r, c]) =>
      (window as unknown as Host).__fakeExcel.workbook.sheet(name as string)!.get(r as number, c as number),
    [sheet, row, col] as const,
  );
}

describe("the planner's work is safe", () => {
  test("sample then own files: a new set, only the planner's files imported; Insert asks or refuses, never a false Inserted", async () => {
    const s = await openPane(server.url, { width: 340, initScript: FOCUS_WATCH });
    try {
      const { page } = s;
      await waitForText(page, "status", /Connected to Excel/);
      await page.click("#sample-import");
      await waitForText(page, "import-status", /^Imported:/, 120_000);
      const sampleSheets = await sheetNames(page);
      expect(sampleSheets).toEqual(["Summary", "Steps", "Model", "What-if", "Subintervals"]);

      // The planner's files after the sample: a new set, the sample's files set aside and named.
      await page.setInputFiles("#file-input", OWN);
      await waitForText(page, "import-status", /2 files ready/);
      expect(await page.textContent("#import-status")).toBe(
        "2 files ready. A new set: lab-sample-subintervals.csv, lab-sample-summary.csv are not part of it.",
      );
      const listed = await page.$$eval("#file-list .name", (ns) => ns.map((n) => n.textContent));
      expect(listed).toEqual(["subintervals.csv", "summary.csv"]);
      await pressImport(page);
      const own = await page.evaluate(() => {
        const wb = (window as unknown as Host).__fakeExcel.workbook;
        const steps = wb.tables.find((t) => t.sheet === "Steps (2)")!;
        const summary = wb.sheet("Summary (2)")!;
        const texts: string[] = [];
        for (let r = 0; r < 60; r++) texts.push(String(summary.valueAt(r, 0)));
        return { stepRows: steps.rows - 1, texts };
      });
      // tests/lab/fixtures/iogen-real holds 4 steps (its plan.csv); the sample's 14 are not among them.
      expect(own.stepRows).toBe(4);
      expect(own.texts.join("\n")).not.toMatch(/lab-sample/);
      expect(own.texts.join("\n")).toMatch(/4 steps from 2 files/);

      // Go to Summary (2): its A1, the title, is where Excel's selection now is.
      await page.click("#goto-summary");
      await waitForText(page, "import-status", /Summary \(2\) is the active sheet/);
      const format = await page.evaluate(() =>
        (window as unknown as Host).__fakeExcel.workbook.sheet("Summary (2)")!.formatAt(0, 0),
      );
      await page.click("#tab-functions");
      await page.fill("#function-filter", "mm1");
      await insertMm1(page);
      const title = await cell(page, "Summary (2)", 0, 0);
      if (format === "@") {
        await waitForText(page, "insert-status-MMC_RESPONSE", /^Nothing inserted/);
        // (Excel quotes the sheet's name in an address, 'Summary (2)'!A1; the in-memory Excel does not.)
        expect(await page.textContent("#insert-status-MMC_RESPONSE")).toMatch(
          /^Nothing inserted: '?Summary \(2\)'?!A1 is formatted as Text, where Excel keeps a formula as text\. Select another cell, or set this one's format to General, and press Insert again\.$/,
        );
      } else {
        await page.waitForSelector("#insert-question-MMC_RESPONSE");
        await page.click("text=Keep it");
        await waitForText(page, "insert-status-MMC_RESPONSE", /^Nothing inserted/);
      }
      expect(title?.formula ?? null).toBeNull();
      expect(String(title?.value)).toMatch(/^Capacity Lab/);

      // A non-empty cell that is not Text: asked first; Keep it leaves it; Replace it writes.
      await page.evaluate(() => {
        const wb = (window as unknown as Host).__fakeExcel.workbook;
        wb.sheet("Steps (2)")!.setValue(20, 1, "my note");
        wb.selection = { sheet: "Steps (2)", row: 20, col: 1 };
      });
      await page.click("#insert-go-MMC_RESPONSE");
      await page.waitForSelector("#insert-question-MMC_RESPONSE");
      expect(await page.textContent("#insert-question-MMC_RESPONSE")).toMatch(
        /^'?Steps \(2\)'?!B21 holds “my note”\. Replace it with =CAPLAB\.MMC_RESPONSE\(2,0\.5,3\)\?$/,
      );
      expect(await page.evaluate(() => document.activeElement?.id)).toBe("insert-question-MMC_RESPONSE");
      await page.click("text=Keep it");
      await waitForText(page, "insert-status-MMC_RESPONSE", /^Nothing inserted/);
      const kept = await cell(page, "Steps (2)", 20, 1);
      expect([kept?.value, kept?.formula ?? null]).toEqual(["my note", null]);
      await page.click("#insert-go-MMC_RESPONSE");
      await page.click("#insert-replace-MMC_RESPONSE");
      await waitForText(page, "insert-status-MMC_RESPONSE", /^Inserted/);
      const replaced = await cell(page, "Steps (2)", 20, 1);
      expect(replaced?.formula).toBe("=CAPLAB.MMC_RESPONSE(2,0.5,3)");

      // A Text-formatted empty cell: refused, nothing written.
      await page.evaluate(() => {
        const wb = (window as unknown as Host).__fakeExcel.workbook;
        wb.sheet("Steps (2)")!.setFormat(22, 1, "@");
        wb.selection = { sheet: "Steps (2)", row: 22, col: 1 };
      });
      await insertMm1(page);
      await waitForText(
        page,
        "insert-status-MMC_RESPONSE",
        /^Nothing inserted: '?Steps \(2\)'?!B23 is formatted as Text/,
      );
      const text = await cell(page, "Steps (2)", 22, 1);
      expect(text?.value ?? "").toBe("");
      expect(await focusOnBody(page)).toEqual([]);
      expect(s.consoleErrors).toEqual([]);
    } finally {
      await s.close();
    }
  });

  test("Start from after edits: replaced with an Undo that brings the edits back", async () => {
    const s = await openPane(server.url, { width: 340, initScript: FOCUS_WATCH });
    try {
      const { page } = s;
      await waitForText(page, "status", /Connected to Excel/);
      await page.click("#tab-case");
      await page.waitForSelector('[data-path="title"]');
      // No edits: another start replaces the case without a word.
      await page.selectOption("#case-example", "merging-helpdesks");
      expect(await page.textContent("#case-example-undo")).toBe("");
      await page.fill('[data-path="title"]', "My own case");
      // Another start chosen (as a stray ArrowDown on the focused list does in Excel on Windows).
      await page.selectOption("#case-example", "blank");
      await page.waitForSelector("#case-example-undo-button");
      expect(await page.inputValue('[data-path="title"]')).not.toBe("My own case");
      expect(await page.textContent("#case-example-undo")).toMatch(
        /^Started from “.*”: your edits to the previous case were replaced\. Undo$/,
      );
      await page.click("#case-example-undo-button");
      expect(await page.inputValue('[data-path="title"]')).toBe("My own case");
      expect(await page.inputValue("#case-example")).toBe("merging-helpdesks");
      expect(await page.textContent("#case-example-undo")).toBe("Your edited case is back.");
      expect(await page.evaluate(() => document.activeElement?.id)).toBe("case-example");
      // Build: the focus waits on the status line while Excel writes, and stays on the result.
      await page.click("#case-build");
      await waitForText(page, "case-status", /^Wrote "/, 120_000);
      expect(await page.evaluate(() => document.activeElement?.id)).toBe("case-status");
      expect(await focusOnBody(page)).toEqual([]);
      expect(s.consoleErrors).toEqual([]);
    } finally {
      await s.close();
    }
  });

  test("Cancel during Subintervals: every sheet the import wrote is named, the cut one included, and removed when asked", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "caplab-e2e-safety-"));
    const file = path.join(dir, "subintervals-40k.csv");
    await writeIogenCsv(file, 40_000, 2_500);
    const s = await openPane(server.url, { width: 340, initScript: FOCUS_WATCH });
    try {
      const { page } = s;
      await chooseFiles(page, file, /1 file ready/);
      // The planner's own sheet, there before the import: it must stay whatever happens.
      await page.evaluate(async () => {
        await Excel.run(async (context) => {
          context.workbook.worksheets.add("My work");
          await context.sync();
        });
      });
      await page.evaluate(() => {
        const label = document.getElementById("progress-label") as HTMLElement;
        const observer = new MutationObserver(() => {
          if (/Subintervals \([1-9][\d,]* of 40,000 rows\)/.test(label.textContent ?? "")) {
            observer.disconnect();
            // During the import the focus is on Cancel (visible, and what the planner may want).
            (window as unknown as { focusDuring: string }).focusDuring = document.activeElement?.id ?? "";
            (document.getElementById("cancel") as HTMLButtonElement).click();
          }
        });
        observer.observe(label, { childList: true, characterData: true, subtree: true });
      });
      await page.fill("#max-rows", "40000");
      await pressImport(page, /^Import cancelled/);
      expect(await page.evaluate(() => (window as unknown as { focusDuring: string }).focusDuring)).toBe("cancel");
      const written = (await sheetNames(page)).filter((n) => n !== "My work");
      expect(written).toContain("Subintervals");
      expect(await page.textContent("#import-status")).toBe(
        `Import cancelled; this import wrote ${written.length} sheets ${written.map((n) => `“${n}”`).join(", ")}` +
          " (the last one cut short). Remove them, or keep them to look at.",
      );
      expect(await page.evaluate(() => document.activeElement?.id)).toBe("import-status");
      expect(await page.isVisible("#import-remove-sheets")).toBe(true);
      await page.click("#import-remove-sheets");
      await waitForText(page, "import-status", /^Removed /);
      expect(await sheetNames(page)).toEqual(["My work"]);
      expect(await page.evaluate(() => document.activeElement?.id)).toBe("import-status");
      expect(await focusOnBody(page)).toEqual([]);
      expect(s.consoleErrors).toEqual([]);
    } finally {
      await s.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
