/**
 * End to end in a real browser: the built pane (dist/) with the in-memory Excel of
 * tests/excel/fake-excel.ts. Imports a real iogen CSV pair, builds a business case in the Case tab,
 * then runs "Export for managers" in the Share tab (one step), and checks:
 * - Summary, Steps and Business case are offered ticked once the list is read;
 * - the user's workbook gains no sheet and every sheet is unchanged (cells, formats, charts);
 * - the file given to Excel.createWorkbook (unzipped here) has no `_xldudf_` name, no CAPLAB.
 *   formula, no web-extension (add-in) or task-pane part; each cell shows what the workbook shows,
 *   and each cell that held a Capacity Lab formula holds, as a number, the value the analysis
 *   computed for it (the plans `caplab report` and `caplab case` build from the same inputs,
 *   computed apart from the sharing code); its charts' cached points are the workbook's cells;
 *   LibreOffice Calc (when installed; required under CI=true) recalculates it to the same values
 *   and conclusion line and reads its charts;
 * - the focus moves to the result.
 * A growth case (examples/growing-datastore.json) exported the same way carries its purchase plan
 * (each year's cells as the case computes them) and the chart "Servers required and in service per
 * year" (its cached points the workbook's cells), and LibreOffice saves the shared copy again with
 * the chart in it.
 * And the case form's use of an analysis: a workload's service time taken by reference from the
 * Model sheet's CPU cost per IO.
 * Leaves docs/screenshots/pane-share.png and docs/screenshots/pane-case.png.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import ExcelJS from "exceljs";
import JSZip from "jszip";
import { chooseFiles, openPane, PaneSession, pressImport, ROOT, distServer, waitForText } from "./harness";
import { readLabText } from "../../src/import/detect";
import { buildLabPlan } from "../../src/lab/lab-plan";
import { casePlanFromJson } from "../../src/case/case-plan";
import { cellResult, CellValue, SheetPlan, tableRow } from "../../src/workbook/plan";
import { planCells } from "../case/sheet-eval";
import { convert, csvNumber, csvRows, findSoffice, recalculatingProfile } from "../case/libreoffice";
import type { FakeCell, FakeWorkbook } from "../excel/fake-excel";
import { noteSkipped, skipsHere } from "../helpers/skip";

const FILES = ["tests/lab/fixtures/iogen-real/subintervals.csv", "tests/lab/fixtures/iogen-real/summary.csv"].map((f) =>
  path.join(ROOT, f),
);
const CASE = path.join(ROOT, "examples/merging-helpdesks.json");
const SHOTS = path.join(ROOT, "docs/screenshots");
/** The two-protocol sample of a known model (tests/lab/fixtures/generate-lab-sample.ts). */
const SAMPLE = ["subintervals.csv", "summary.csv"].map((f) => path.join(ROOT, "tests/lab/fixtures/lab-sample", f));
const SOFFICE = findSoffice();
const NO_SOFFICE = SOFFICE ? null : "soffice (LibreOffice) not installed; CI installs libreoffice-calc-nogui";
if (skipsHere(NO_SOFFICE)) noteSkipped("sharing e2e: LibreOffice's recalculation of the exported file", NO_SOFFICE);
jest.setTimeout(240_000);

interface SheetData {
  name: string;
  cells: [string, FakeCell][];
  charts: { title: string; series: { name: string; xRef?: string; yRef?: string }[] }[];
  frozenRows: number;
  columnWidths: [number, number][];
  errors: string[];
}

const server = distServer();

/** The fake workbook's sheets as plain data. */
async function sheets(s: PaneSession): Promise<SheetData[]> {
  return s.page.evaluate(() => {
    const wb = (window as unknown as { __fakeExcel: { workbook: FakeWorkbook } }).__fakeExcel.workbook;
    return wb.sheets.map((sh) => ({
      name: sh.name,
      cells: Array.from(sh.cells.entries()),
      charts: sh.charts,
      frozenRows: sh.frozenRows,
      columnWidths: Array.from(sh.columnWidths.entries()),
      errors: Array.from(sh.errors),
    }));
  });
}

const isCaplab = (f: string | null): boolean => f !== null && /CAPLAB\.|_xldudf_/i.test(f);

/** An error value as a cell shows it ("#N/A"); anything else as is. */
function shown(v: unknown): unknown {
  return v !== null && typeof v === "object" && "error" in v ? (v as { error: string }).error : v;
}

function near(got: unknown, want: unknown): boolean {
  got = shown(got);
  want = shown(want);
  if (typeof want === "number" && typeof got === "number")
    return Math.abs(got - want) <= 1e-9 * Math.max(1, Math.abs(want));
  return got === want;
}

/** "row,col" → A1. */
function a1(key: string): string {
  const [r, c] = key.split(",").map(Number);
  let s = "";
  for (let n = c + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return `${s}${r + 1}`;
}

/** Waits for a status line to leave its "working" state and returns its text and class. */
async function settled(s: PaneSession, id: string): Promise<{ text: string; kind: string }> {
  await s.page.waitForFunction(
    (el) => {
      const p = document.getElementById(el);
      return !!p && /\b(ok|error)\b/.test(p.className);
    },
    id,
    { timeout: 120_000 },
  );
  return s.page.evaluate((el) => {
    const p = document.getElementById(el) as HTMLElement;
    return { text: p.textContent ?? "", kind: p.className };
  }, id);
}

describe("sharing in headless Chromium with an in-memory Excel", () => {
  test("import, new case, Export for managers in one step: the workbook gains no sheet, the file has no CAPLAB formula and the same values", async () => {
    const s = await openPane(server.url);
    try {
      const { page } = s;
      await chooseFiles(page, FILES, /2 files ready/);
      await pressImport(page);

      // A new case through the Case tab's form, started from an example.
      const caseJson = JSON.parse(fs.readFileSync(CASE, "utf8")) as Record<string, unknown>;
      await page.click("#tab-case");
      await page.selectOption("#case-example", "merging-helpdesks");
      expect(await page.inputValue('[data-path="options[2].name"]')).toBe("Merged, 80% in 5 min");
      await page.click("#case-build");
      const built = await settled(s, "case-status");
      expect(built).toMatchObject({ kind: expect.stringMatching(/ok/) });

      // What the analysis computed for every sheet, placed as the grid renderers place it.
      const labPlan = buildLabPlan(FILES.map((f) => readLabText(fs.readFileSync(f, "utf8"), path.basename(f))));
      const casePlan = casePlanFromJson(caseJson, { forExcelAddin: true });
      const plans = new Map<string, SheetPlan>(
        [...labPlan.sheets, ...casePlan.plan.sheets].map((p) => [p.name, p] as const),
      );
      const before = await sheets(s);
      expect(before.map((x) => x.name)).toEqual([...plans.keys()]);
      const withCaplab = before.filter((x) => x.cells.some(([, c]) => isCaplab(c.formula))).map((x) => x.name);
      // The Model (MMC_RESPONSE), Fit (DOE_FIT) and the case (MMC_STAFF, MMC_METRICS, NPV_IT).
      expect(withCaplab).toEqual(["Model", "Fit", "Business case"]);
      // The fake calculated the spilling DOE_FIT as Excel would: the whole Fit table is there.
      const planned = (name: string): Map<string, CellValue> => planCells(plans.get(name) as SheetPlan);
      const fit = new Map(before.find((x) => x.name === "Fit")!.cells);
      for (const [key, v] of planned("Fit")) {
        const want = cellResult(v) ?? "";
        if (!near(fit.get(key)?.value ?? "", want))
          throw new Error(`Fit!${a1(key)}: ${JSON.stringify(fit.get(key))}, the analysis has ${JSON.stringify(want)}`);
      }

      // Share through the Share tab, in one step.
      await page.click("#tab-share");
      // The list is read before it can be used: Summary, Steps and Business case are ticked.
      await page.waitForFunction(
        (n) =>
          document.getElementById("case-sharing")?.getAttribute("aria-busy") === "false" &&
          document.querySelectorAll("#share-sheet-list fluent-checkbox").length === n,
        before.length,
      );
      const offered = await page.$$eval("#share-sheet-list fluent-checkbox", (els) =>
        els.map((e) => [(e as HTMLElement).dataset.sheet, (e as unknown as { checked: boolean }).checked]),
      );
      const shared = ["Summary", "Steps", "Business case"];
      expect(offered).toEqual(before.map((x) => [x.name, shared.includes(x.name)]));
      expect(await page.textContent("#panel-share")).not.toMatch(/sheet\(s\)|NPV_IT|Frozen formulas|Prepare/);
      // Steps holds no Capacity Lab formula, Model does: tick Model too, untick Steps.
      await page.click('#share-sheet-list fluent-checkbox[data-sheet="Model"]');
      await page.click('#share-sheet-list fluent-checkbox[data-sheet="Steps"]');
      const chosenNames = ["Summary", "Model", "Business case"];
      await page.click("#share-export");
      const exported = await settled(s, "share-status");
      expect(exported.kind).toMatch(/ok/);
      // The focus moves to the result.
      expect(await page.evaluate(() => document.activeElement?.id)).toBe("share-status");
      expect(await page.isVisible("#share-download-link")).toBe(true);
      fs.mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SHOTS, "pane-share.png"), fullPage: true });

      // The user's workbook gains no sheet, and every sheet is exactly as before.
      const after = await sheets(s);
      expect(after).toEqual(before);
      const byName = new Map(before.map((x) => [x.name, x] as const));

      // The file given to Excel.createWorkbook: unzip it.
      const created = await page.evaluate(
        () => (window as unknown as { __fakeExcel: { workbook: FakeWorkbook } }).__fakeExcel.workbook.created,
      );
      expect(created.length).toBe(1);
      const file = Buffer.from(created[0], "base64");
      const zip = await JSZip.loadAsync(file);
      const parts = Object.keys(zip.files);
      expect(parts).toContain("xl/workbook.xml");
      for (const part of parts) {
        expect(part).not.toMatch(/webextension|taskpane/i);
        const text = await zip.file(part)?.async("string");
        if (text === undefined) continue;
        expect([part, /_xldudf_/i.test(text)]).toEqual([part, false]);
        expect([part, /CAPLAB\./i.test(text)]).toEqual([part, false]);
        expect([part, /webextension|taskpane/i.test(text)]).toEqual([part, false]);
      }
      // Charts come along when every series draws an included sheet.
      const chartFiles = parts.filter((p) => /^xl\/charts\/chart\d+\.xml$/.test(p));
      const inFile = (ref: string | undefined): boolean =>
        ref !== undefined && chosenNames.some((n) => ref.replace(/^=/, "").replace(/^'|'?!.*$/g, "") === n);
      const carried = chosenNames
        .flatMap((n) => byName.get(n)!.charts)
        .filter((c) => c.series.every((x) => inFile(x.xRef) && inFile(x.yRef)));
      expect(chartFiles.length).toBe(carried.length);
      expect(chartFiles.length).toBeGreaterThan(0);
      expect(exported.text).toMatch(
        new RegExp(
          `^Opened a new workbook with the sheets Summary, Model and Business case, ${chartFiles.length} charts ` +
            "\\(\\d+ KB\\): save it and send it\\. \\d+ Capacity Lab results are written as numbers\\. " +
            "Your workbook is unchanged\\.",
        ),
      );
      const titles: string[] = [];
      for (const f of chartFiles) {
        const chartXml = (await zip.file(f)!.async("string")).replace(/&apos;/g, "'");
        titles.push(/<a:t>([^<]*)<\/a:t>/.exec(chartXml)![1]);
        for (const m of chartXml.matchAll(/<c:f>([^<]*)<\/c:f>(<c:numCache>.*?<\/c:numCache>)/g)) {
          const ref = /^'(.+)'!\$([A-Z]+)\$(\d+):\$([A-Z]+)\$(\d+)$/.exec(m[1]);
          expect(ref).not.toBeNull();
          expect(chosenNames).toContain(ref![1]);
          // The cached points are the workbook's cells in that range.
          const cells = new Map(byName.get(ref![1])!.cells);
          const col = [...ref![2]].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0) - 1;
          const pts = [...m[2].matchAll(/<c:pt idx="(\d+)"><c:v>([^<]*)<\/c:v>/g)];
          expect(pts.length).toBeGreaterThan(0);
          for (const [, idx, v] of pts) {
            const cell = cells.get(`${Number(ref![3]) - 1 + Number(idx)},${col}`);
            if (!near(Number(v), cell?.value))
              throw new Error(`${f} ${m[1]} point ${idx}: ${v}, the workbook has ${JSON.stringify(cell)}`);
          }
        }
      }
      expect(titles).toContain("Cumulative discounted cost");

      // Read back: each included sheet shows what the workbook shows; each cell that held a
      // Capacity Lab formula holds the value the analysis computed for it, never that formula.
      const book = new ExcelJS.Workbook();
      await book.xlsx.load(file as unknown as ArrayBuffer);
      expect(book.worksheets.map((w) => w.name)).toEqual(chosenNames);
      let frozenCount = 0;
      for (const [k, ws] of book.worksheets.entries()) {
        const xml = (await zip.file(`xl/worksheets/sheet${k + 1}.xml`)?.async("string")) ?? "";
        const plan = planned(ws.name);
        for (const [key, c] of byName.get(ws.name)!.cells) {
          if (c.value === "") continue;
          const [r, col] = key.split(",").map(Number);
          const v = ws.getCell(r + 1, col + 1).value;
          const isFormula = v !== null && typeof v === "object" && "formula" in v;
          let got = isFormula ? v.result : v;
          // ExcelJS's reader drops a cached result of 0; the file has it: <c r="B15"><f>…</f><v>0</v></c>.
          if (got === undefined && new RegExp(`<c r="${a1(key)}"[^>]*><f>[^<]*</f><v>0</v>`).test(xml)) got = 0;
          if (!near(got, c.value))
            throw new Error(`${ws.name}!${a1(key)} exported ${JSON.stringify(v)}, the workbook ${c.value}`);
          if (!isCaplab(c.formula)) continue;
          frozenCount++;
          expect([a1(key), isFormula]).toEqual([a1(key), false]);
          const want = cellResult(plan.get(key) ?? null);
          if (!near(got, want))
            throw new Error(`${ws.name}!${a1(key)}: exported ${String(got)}, the analysis has ${String(want)}`);
        }
      }
      // The case's NPV_IT per option (its M/M/c figures are native). The Model's MMC_RESPONSE cells
      // are blank until the planner names the storage servers (ModelInputs), so none is counted.
      expect(frozenCount).toBeGreaterThan(2);

      // Another program opens it: LibreOffice Calc recalculates it (values as in the workbook, the
      // conclusion line built again by its live formula) and reads its charts (it saves them again).
      if (!skipsHere(NO_SOFFICE)) {
        if (!SOFFICE)
          throw new Error("soffice (LibreOffice) is not installed: .ci/run installs libreoffice-calc-nogui");
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "caplab-shared-lo-"));
        try {
          const xlsx = path.join(dir, "shared.xlsx");
          fs.writeFileSync(xlsx, file);
          const profile = recalculatingProfile(dir);
          convert(SOFFICE, profile, "csv", path.join(dir, "csv"), [xlsx]);
          convert(SOFFICE, profile, "xlsx", path.join(dir, "resaved"), [xlsx]);
          for (const name of chosenNames) {
            const grid = csvRows(fs.readFileSync(path.join(dir, "csv", `shared-${name}.csv`), "utf8"));
            for (const [key, c] of byName.get(name)!.cells) {
              const [r, col] = key.split(",").map(Number);
              const got = grid[r]?.[col] ?? "";
              const same = typeof c.value === "number" ? near(csvNumber(got), c.value) : got === String(c.value);
              if (!same)
                throw new Error(`LibreOffice: ${name}!${a1(key)} shows ${got}, the workbook ${String(c.value)}`);
            }
          }
          const caseCsv = csvRows(fs.readFileSync(path.join(dir, "csv", "shared-Business case.csv"), "utf8"));
          expect(caseCsv[1][0]).toBe(casePlan.plan.sheets[0].notes[1]);
          const resaved = await JSZip.loadAsync(fs.readFileSync(path.join(dir, "resaved", "shared.xlsx")));
          expect(Object.keys(resaved.files).filter((n) => /^xl\/charts\/chart\d+\.xml$/.test(n)).length).toBe(
            chartFiles.length,
          );
        } finally {
          fs.rmSync(dir, { recursive: true, force: true });
        }
      }
      expect(s.consoleErrors).toEqual([]);
      expect(s.externalRequests).toEqual([]);
    } finally {
      await s.close();
    }
  });

  test("the managers' export of a growth case carries the purchase plan and its chart, which survive another program", async () => {
    const s = await openPane(server.url);
    try {
      const { page } = s;
      await page.click("#tab-case");
      await page.selectOption("#case-example", "growing-datastore");
      await page.click("#case-build");
      expect((await settled(s, "case-status")).kind).toMatch(/ok/);
      const before = await sheets(s);
      expect(before.map((x) => x.name)).toEqual(["Business case"]);
      const workbook = new Map(before[0].cells);
      const chart = before[0].charts.find((c) => c.title === "Servers required and in service per year");
      expect(chart).toBeDefined();

      await page.click("#tab-share");
      await page.waitForFunction(
        () =>
          document.getElementById("case-sharing")?.getAttribute("aria-busy") === "false" &&
          document.querySelectorAll("#share-sheet-list fluent-checkbox").length === 1,
      );
      await page.click("#share-export");
      expect((await settled(s, "share-status")).kind).toMatch(/ok/);
      const created = await page.evaluate(
        () => (window as unknown as { __fakeExcel: { workbook: FakeWorkbook } }).__fakeExcel.workbook.created,
      );
      const file = Buffer.from(created[created.length - 1], "base64");
      const zip = await JSZip.loadAsync(file);

      // The purchase plan's cells, exported as the workbook shows them: the case's own plan, year by year.
      const example = JSON.parse(fs.readFileSync(path.join(ROOT, "examples/growing-datastore.json"), "utf8"));
      const plan = casePlanFromJson(example, { forExcelAddin: true }).plan.sheets[0];
      const purchases = plan.tables.find((t) => t.name === "PurchasePlan")!;
      const book = new ExcelJS.Workbook();
      await book.xlsx.load(file as unknown as ArrayBuffer);
      const ws = book.getWorksheet("Business case")!;
      const sheetXml = (await zip.file("xl/worksheets/sheet1.xml")?.async("string")) ?? "";
      let compared = 0;
      purchases.rows.forEach((row, i) =>
        purchases.columns.forEach((c, j) => {
          const want = cellResult(row[j]);
          if (typeof want !== "number") return;
          const [r, col] = [purchases.at!.row + 1 + i, purchases.at!.col + j];
          const v = ws.getCell(r + 1, col + 1).value;
          let got = v !== null && typeof v === "object" && "formula" in v ? v.result : v;
          // ExcelJS's reader drops a cached result of 0; the file has it: <c r="B15"><f>…</f><v>0</v></c>.
          if (got === undefined && new RegExp(`<c r="${a1(`${r},${col}`)}"[^>]*><f>[^<]*</f><v>0</v>`).test(sheetXml))
            got = 0;
          if (!near(got, want))
            throw new Error(`PurchasePlan ${c.key} row ${i}: exported ${JSON.stringify(v)}, the case ${want}`);
          compared++;
        }),
      );
      expect(compared).toBeGreaterThan(50);

      // The chart: in the file, titled, its series over the exported cells with the workbook's values.
      const parts = Object.keys(zip.files).filter((p) => /^xl\/charts\/chart\d+\.xml$/.test(p));
      const xmls = await Promise.all(
        parts.map(async (p) => (await zip.file(p)!.async("string")).replace(/&apos;/g, "'")),
      );
      const servers = xmls.filter((x) => x.includes("<a:t>Servers required and in service per year</a:t>"));
      expect(servers.length).toBe(1);
      let points = 0;
      for (const m of servers[0].matchAll(/<c:f>([^<]*)<\/c:f>(<c:numCache>.*?<\/c:numCache>)/g)) {
        const ref = /^'Business case'!\$([A-Z]+)\$(\d+):\$([A-Z]+)\$(\d+)$/.exec(m[1]);
        expect(ref).not.toBeNull();
        const col = [...ref![1]].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0) - 1;
        for (const [, idx, v] of m[2].matchAll(/<c:pt idx="(\d+)"><c:v>([^<]*)<\/c:v>/g)) {
          const cell = workbook.get(`${Number(ref![2]) - 1 + Number(idx)},${col}`);
          if (!near(Number(v), cell?.value))
            throw new Error(`servers chart ${m[1]} point ${idx}: ${v}, the workbook ${JSON.stringify(cell)}`);
          points++;
        }
      }
      // Two lines (required, in service) per option over five years, x and y each.
      expect(points).toBe(2 * 2 * 5 * 2);

      // Another program opens the shared copy and saves it again: the chart is still there, titled.
      if (!skipsHere(NO_SOFFICE)) {
        if (!SOFFICE)
          throw new Error("soffice (LibreOffice) is not installed: .ci/run installs libreoffice-calc-nogui");
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "caplab-shared-growth-"));
        try {
          fs.writeFileSync(path.join(dir, "shared.xlsx"), file);
          convert(SOFFICE, recalculatingProfile(dir), "xlsx", path.join(dir, "resaved"), [
            path.join(dir, "shared.xlsx"),
          ]);
          const resaved = await JSZip.loadAsync(fs.readFileSync(path.join(dir, "resaved", "shared.xlsx")));
          const again = await Promise.all(
            Object.keys(resaved.files)
              .filter((p) => /^xl\/charts\/chart\d+\.xml$/.test(p))
              .map((p) => resaved.file(p)!.async("string")),
          );
          expect(again.length).toBe(parts.length);
          expect(again.filter((x) => x.includes("Servers required and in service per year")).length).toBe(1);
        } finally {
          fs.rmSync(dir, { recursive: true, force: true });
        }
      }
      expect(s.consoleErrors).toEqual([]);
    } finally {
      await s.close();
    }
  });

  test("a new case takes the fitted CPU cost per IO from the analysis by reference, with its interval, never a per-step U/X", async () => {
    const s = await openPane(server.url);
    try {
      const { page } = s;
      // The two-protocol sample of a known model (tests/lab/fixtures/lab-model.ts): NFS 0.081,
      // FC 0.041 CPU-ms per IO, 30 % background CPU on 4 cores.
      await chooseFiles(page, SAMPLE, /2 files ready/);
      await pressImport(page);
      await page.click("#tab-case");
      await page.waitForFunction(() =>
        /An analysis is in this workbook/.test(document.getElementById("case-analysis")?.textContent ?? ""),
      );
      await page.selectOption("#case-example", "nfs-vs-fc-70k-iops");
      const select = '[data-path="options[0].workloads[0].serviceTimeRef"]';
      const offered = await page.$$eval(`${select} option`, (os) =>
        os.map((o) => ({ value: (o as HTMLOptionElement).value, text: o.textContent ?? "" })),
      );
      // The CpuFit table's marginal-cost cells, one per protocol.
      const labPlan = buildLabPlan(SAMPLE.map((f) => readLabText(fs.readFileSync(f, "utf8"), path.basename(f))));
      const model = labPlan.sheets.find((x) => x.name === "Model") as SheetPlan;
      const fit = model.tables.find((t) => t.name === "CpuFit")!;
      const dCol = fit.columns.findIndex((c) => c.key === "d");
      const dLetter = a1(`0,${fit.at!.col + dCol}`).slice(0, -1);
      const dCells = [0, 1].map((i) => `'Model'!$${dLetter}$${fit.at!.row + 2 + i}`);
      // Offered: the fitted marginal cost of each protocol with its 95 % interval; no per-step U/X.
      expect(offered.map((o) => o.text)).toEqual([
        "a number typed here",
        expect.stringMatching(
          /^Model: fitted marginal cost, protocol nfs \(95 % CI [\d.]+–[\d.]+, \w[\w ]*, \d+ steps\): 0\.08\d* CPU-ms per IO$/,
        ),
        expect.stringMatching(
          /^Model: fitted marginal cost, protocol fc \(95 % CI [\d.]+–[\d.]+, \w[\w ]*, \d+ steps\): 0\.04\d* CPU-ms per IO$/,
        ),
      ]);
      await page.selectOption(select, offered[1].value);
      const fcSelect = '[data-path="options[1].workloads[0].serviceTimeRef"]';
      await page.selectOption(fcSelect, offered[2].value);
      // The references shown under the fields wrap: nothing wider than the pane.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(340);
      await page.screenshot({ path: path.join(SHOTS, "pane-case.png"), fullPage: true });
      await page.click("#case-build");
      const built = await settled(s, "case-status");
      expect(built.kind).toMatch(/ok/);

      // Where the service times are on the case sheet: the plan of the case the form holds.
      const draft = JSON.parse(await page.inputValue("#case-json")) as Record<string, unknown>;
      const casePlan = casePlanFromJson(draft, { forExcelAddin: true });
      const capacity = casePlan.plan.sheets[0].tables.find((t) => t.name === "Capacity")!;
      const col = (key: string): number => capacity.at!.col + capacity.columns.findIndex((c) => c.key === key);
      const wb = new Map((await sheets(s)).map((x) => [x.name, new Map(x.cells)] as const));
      const caseSheet = wb.get("Business case")!;
      const nfs = caseSheet.get(`${capacity.at!.row + 1},${col("service_time")}`)!;
      const fc = caseSheet.get(`${capacity.at!.row + 2},${col("service_time")}`)!;
      // The case is in seconds with service times below a millisecond: the sheet shows µs.
      expect(nfs.formula).toBe(`=${dCells[0]}/1000*1000000`);
      expect(fc.formula).toBe(`=${dCells[1]}/1000*1000000`);
      // Their values are the Model cells' (which are the analysis's).
      const ds = [0, 1].map((i) => wb.get("Model")!.get(`${fit.at!.row + 1 + i},${fit.at!.col + dCol}`)!.value);
      expect(ds).toEqual([0, 1].map((i) => cellResult(tableRow(fit, i)[dCol])));
      expect(nfs.value).toBeCloseTo(((ds[0] as number) / 1000) * 1e6, 9);
      expect(fc.value).toBeCloseTo(((ds[1] as number) / 1000) * 1e6, 9);
      // The conclusion line is a live native formula over the Costs table, showing the case's line:
      // with the fitted costs the example's decision stands (NFS 6 cores, FC 3 — as typed).
      const conclusion = caseSheet.get("1,0")!;
      expect(conclusion.formula).toBe(`=${casePlan.plan.sheets[0].noteFormulas![0].formula}`);
      expect(conclusion.value).toBe(casePlan.plan.sheets[0].notes[1]);
      const cores = (x: number): number => Math.max(Math.ceil(70000 * x), Math.floor(70000 * x) + 1);
      expect(caseSheet.get(`${capacity.at!.row + 1},${col("servers")}`)!.value).toBe(cores((ds[0] as number) / 1000));
      expect(caseSheet.get(`${capacity.at!.row + 2},${col("servers")}`)!.value).toBe(cores((ds[1] as number) / 1000));
      expect(cores((ds[0] as number) / 1000)).toBe(cores(0.000081));
      expect(cores((ds[1] as number) / 1000)).toBe(cores(0.000041));
      expect(s.consoleErrors).toEqual([]);
    } finally {
      await s.close();
    }
  });

  test("the case form at 320 px: one column, labelled fields, errors beside the field they name", async () => {
    const s = await openPane(server.url, { width: 320 });
    try {
      const { page } = s;
      await waitForText(page, "status", /Connected to Excel/);
      await page.click("#tab-case");
      await page.waitForSelector('[data-path="options[1].capex"]');
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
      const boxes = await page.$$eval(".case-option", (fs) => fs.map((f) => f.getBoundingClientRect().toJSON()));
      expect(boxes.length).toBe(2);
      // One column in a narrow pane: each option the full width, the second under the first.
      expect(boxes[1].left).toBe(boxes[0].left);
      expect(boxes[1].top).toBeGreaterThanOrEqual(boxes[0].bottom);
      // Every field has a label a screen reader reads.
      const unlabelled = await page.$$eval("#case-form input, #case-form select", (els) =>
        els.filter((e) => (e as HTMLInputElement).labels?.length !== 1).map((e) => (e as HTMLElement).dataset.path),
      );
      expect(unlabelled).toEqual([]);
      // Keyboard: from the example chooser, Tab goes to the first field of the form.
      await page.focus("#case-example");
      await page.keyboard.press("Tab");
      expect(await page.evaluate(() => (document.activeElement as HTMLElement).dataset.path)).toBe("title");

      // The problems, listed all at once in the form's words, each a link to its field.
      const listed = (...lines: string[]): string =>
        `${lines.length} problem${lines.length === 1 ? "" : "s"} to fix before building:${lines.join("")}`;
      const capex = '[data-path="options[1].capex"]';
      const rate = '[data-path="discountRate"]';
      await page.fill(capex, "-5");
      await page.fill(rate, "ten");
      const message = "must be an amount ≥ 0, got -5";
      expect(await page.textContent("#case-errors")).toBe(
        listed(
          'Discount rate: must be a rate per year above -0.5 as a fraction (0.1 for 10%), got "ten"',
          `Replace › Capex: ${message}`,
        ),
      );
      expect(await page.getAttribute(capex, "aria-invalid")).toBe("true");
      expect(await page.getAttribute(rate, "aria-invalid")).toBe("true");
      const describedBy = (await page.getAttribute(capex, "aria-describedby"))!.split(" ");
      const described = await Promise.all(describedBy.map((id) => page.textContent(`#${id}`)));
      expect(described).toContain(message);
      const alerts = await Promise.all(describedBy.map((id) => page.getAttribute(`#${id}`, "role")));
      expect(alerts).toContain("alert");
      // Build waits until the case is valid; a problem's link takes the focus to its field.
      expect(await page.isDisabled("#case-build")).toBe(true);
      await page.click("#case-errors li:nth-child(2) a");
      expect(await page.evaluate(() => (document.activeElement as HTMLElement).dataset.path)).toBe("options[1].capex");
      // Numbers as people type them: "10%" is 0.1, "200k" is 200000.
      await page.fill(rate, "10%");
      await page.fill(capex, "200k");
      expect(await page.textContent("#case-errors")).toBe("");
      expect(await page.isDisabled("#case-build")).toBe(false);
      expect(await page.getAttribute(capex, "aria-invalid")).toBeNull();

      // Adding a cost line puts the focus in it; an empty label is named.
      await page.click('[data-path="options[0].opex.add"]');
      expect(await page.evaluate(() => (document.activeElement as HTMLElement).dataset.path)).toBe(
        "options[0].opex[1].label",
      );
      expect(await page.textContent("#case-errors")).toBe(
        listed("Keep current array › Cost line 2 › Label: must not be empty"),
      );
      await page.keyboard.type("Power");
      expect(await page.textContent("#case-errors")).toBe("");

      // The JSON view follows the form, and a JSON pasted in fills the form.
      await page.click(".case-advanced summary");
      const json = JSON.parse(await page.inputValue("#case-json")) as {
        discountRate: number;
        options: { capex: number; opex: unknown[] }[];
      };
      expect(json.options[1].capex).toBe(200000);
      expect(json.discountRate).toBe(0.1);
      expect(json.options[0].opex).toEqual([
        {
          label: "Support contract",
          perYear: 100000,
          source: "ascknd.com, 'Net Present Value' (13 June 2014): GBP 100,000 a year.",
        },
        { label: "Power", perYear: 0 },
      ]);
      const pasted = JSON.parse(fs.readFileSync(CASE, "utf8")) as { options: unknown[] };
      await page.fill("#case-json", JSON.stringify(pasted));
      await page.click("#case-json-apply");
      expect(await page.locator(".case-option").count()).toBe(3);
      expect(await page.inputValue('[data-path="options[1].workloads[0].sizing.response"]')).toBe("35.4");

      // "Size by" → "Target mean response" keeps that rule; its empty target is the field named.
      const sizeBy = '[data-path="options[0].workloads[0].sizing"]';
      const target = '[data-path="options[0].workloads[0].sizing.response"]';
      await page.selectOption(sizeBy, "response");
      expect(await page.inputValue(sizeBy)).toBe("response");
      expect(await page.inputValue(target)).toBe("");
      expect(await page.textContent("#case-errors")).toBe(
        listed(
          "Two sites (today) › Workload 1 (Site A) › Size by › Target mean response: must be a target mean response " +
            "time above the service time 30 min (queueing only adds to it), got null",
        ),
      );
      expect(await page.getAttribute(target, "aria-invalid")).toBe("true");
      await page.fill(target, "40");
      expect(await page.textContent("#case-errors")).toBe("");
      const sized = JSON.parse(await page.inputValue("#case-json")) as {
        options: { workloads: { sizing: unknown }[] }[];
      };
      expect(sized.options[0].workloads[0].sizing).toEqual({ response: 40 });
      // A cleared target keeps its rule through a redraw (adding a workload redraws the form).
      await page.fill(target, "");
      await page.click('[data-path="options[0].workloads.add"]');
      expect(await page.inputValue(sizeBy)).toBe("response");
      expect(await page.inputValue(target)).toBe("");
      expect(s.consoleErrors).toEqual([]);
    } finally {
      await s.close();
    }
  });
});
