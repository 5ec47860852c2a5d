/**
 * The workbook `caplab case` writes, opened by another program: LibreOffice Calc (headless)
 * loads it, recalculates every formula and exports the sheet as CSV, which is compared with the
 * figures of the case. Three files per example:
 * - the file `caplab case` wrote (recalculated on load: the numbers must not move);
 * - the same plan with every cached formula result removed, so the numbers LibreOffice shows
 *   can only be its own calculation of our formulas;
 * - that file with the discount rate edited to 5 %, so the net present costs must follow the
 *   input (the sheet is live without the add-in).
 * The file is also unzipped: no `CAPLAB.` formula, no `_xldudf_` name, no add-in (web-extension)
 * part — what a manager without Capacity Lab would otherwise see as #NAME? and a prompt.
 *
 * Needs LibreOffice (`soffice`); .ci/run installs it. Without it the test fails under CI=true
 * and is skipped, saying so, elsewhere.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import JSZip from "jszip";
import { run } from "../../src/cli/commands/case";
import { casePlanFromJson, CasePlan } from "../../src/case/case-plan";
import { CellValue, cellResult, WorkbookPlan } from "../../src/workbook/plan";
import { renderXlsx } from "../../src/report/xlsx";
import { npv } from "../../src/core/npv";
import { parseA1 } from "./sheet-eval";
import { convert, csvNumber, csvRows, findSoffice, recalculatingProfile } from "./libreoffice";
import { describeUnless } from "../helpers/skip";

const EXAMPLES = path.join(__dirname, "..", "..", "examples");
const FILES = fs.readdirSync(EXAMPLES).filter((f) => f.endsWith(".json"));
const SOFFICE = findSoffice();
const FLIP_CASE = "nfs-vs-fc-70k-iops";
const describeLo = (name: string, fn: () => void): void =>
  describeUnless(SOFFICE ? null : "soffice (LibreOffice) not installed; CI installs libreoffice-calc-nogui", name, fn);

/** Every number the sheet plan shows, by 0-based sheet position. */
function plannedNumbers(plan: WorkbookPlan): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of plan.sheets[0].tables) {
    const at = t.at as { row: number; col: number };
    t.rows.forEach((row, i) =>
      row.forEach((cell: CellValue, j) => {
        const v = cellResult(cell);
        if (typeof v === "number") out.set(`${at.row + 1 + i},${at.col + j}`, v);
      }),
    );
  }
  return out;
}

/** The plan with every formula's cached result removed (and optionally the discount rate changed). */
function stripped(plan: WorkbookPlan, rate?: number): WorkbookPlan {
  const copy = structuredClone(plan);
  for (const t of copy.sheets[0].tables) {
    for (const row of t.rows)
      row.forEach((cell, j) => {
        if (cell !== null && typeof cell === "object" && "formula" in cell)
          row[j] = { formula: cell.formula, result: null };
      });
  }
  // The conclusion line's cached text too: Calc must build it from the cells.
  for (const f of copy.sheets[0].noteFormulas ?? []) copy.sheets[0].notes[f.note] = "";
  const assumptions = copy.sheets[0].tables.find((t) => t.name.endsWith("Assumptions"));
  if (rate !== undefined && assumptions) assumptions.rows[0][0] = rate;
  return copy;
}

/**
 * Equal to the 15 significant digits CSV carries. `scale` is the size of the numbers a cell was
 * subtracted from: a difference of two equal NPVs is ~1e-10 here and exactly 0 in Calc, which
 * (like Excel) rounds a cancellation to zero.
 */
function expectSame(actual: number, expected: number, where: string, scale = 0): void {
  const ok = Math.abs(actual - expected) <= 1e-13 * scale + 1e-9 * Math.abs(expected);
  if (!ok) throw new Error(`${where}: LibreOffice shows ${actual}, the case has ${expected}`);
}

describeLo("caplab case output in LibreOffice", () => {
  let dir: string;
  const built = new Map<string, CasePlan>();
  const csv = new Map<string, string[][]>();

  beforeAll(async () => {
    if (!SOFFICE) throw new Error("soffice (LibreOffice) is not installed: .ci/run installs libreoffice-calc-nogui");
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "caplab-case-lo-"));
    const xlsx: string[] = [];
    for (const file of FILES) {
      const base = file.replace(/\.json$/, "");
      const out = path.join(dir, `${base}.xlsx`);
      const r = await run([path.join(EXAMPLES, file), "-o", out], {
        out: () => undefined,
        err: (t) => console.error(t),
      });
      if (r !== 0) throw new Error(`caplab case ${file} exited ${r}`);
      const plan = casePlanFromJson(JSON.parse(fs.readFileSync(path.join(EXAMPLES, file), "utf8")));
      built.set(base, plan);
      fs.writeFileSync(path.join(dir, `${base}.stripped.xlsx`), await renderXlsx(stripped(plan.plan)));
      fs.writeFileSync(path.join(dir, `${base}.rate5.xlsx`), await renderXlsx(stripped(plan.plan, 0.05)));
      xlsx.push(out, path.join(dir, `${base}.stripped.xlsx`), path.join(dir, `${base}.rate5.xlsx`));
    }
    // The NFS vs FC case with FC's capex edited to 0 in the sheet: the choice turns to FC.
    const flip = stripped(built.get(FLIP_CASE)!.plan);
    const costs = flip.sheets[0].tables.find((t) => t.name === "Costs") as WorkbookPlan["sheets"][0]["tables"][0];
    expect(costs.rows[0][0]).toBe("Capex at year 0 (input)");
    costs.rows[0][2] = 0;
    fs.writeFileSync(path.join(dir, `${FLIP_CASE}.capex0.xlsx`), await renderXlsx(flip));
    xlsx.push(path.join(dir, `${FLIP_CASE}.capex0.xlsx`));
    const profile = recalculatingProfile(dir);
    const outDir = path.join(dir, "csv");
    convert(SOFFICE, profile, "csv", outDir, xlsx);
    for (const f of fs.readdirSync(outDir)) {
      csv.set(f.replace(/-Business case\.csv$/, ""), csvRows(fs.readFileSync(path.join(outDir, f), "utf8")));
    }
    // Calc reads the native chart and writes it back out when it saves the workbook again.
    convert(
      SOFFICE,
      profile,
      "xlsx",
      path.join(dir, "resaved"),
      FILES.map((f) => path.join(dir, f.replace(/\.json$/, ".xlsx"))),
    );
  }, 200_000);

  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  describe.each(FILES.map((f) => f.replace(/\.json$/, "")))("%s", (base) => {
    it("has no CAPLAB formula, no _xldudf_ name and no add-in part", async () => {
      const zip = await JSZip.loadAsync(fs.readFileSync(path.join(dir, `${base}.xlsx`)));
      const names = Object.keys(zip.files);
      expect(names.filter((n) => /webextension|taskpane/i.test(n))).toEqual([]);
      let formulas = 0;
      for (const name of names.filter((n) => n.endsWith(".xml") || n.endsWith(".rels"))) {
        const xml = await (zip.file(name) as JSZip.JSZipObject).async("string");
        expect(xml).not.toMatch(/_xldudf_|webextension/i);
        for (const m of xml.matchAll(/<f>([^<]*)<\/f>/g)) {
          formulas++;
          expect(m[1]).not.toMatch(/CAPLAB\./i);
        }
      }
      expect(formulas).toBeGreaterThan(10);
    });

    it.each(["", ".stripped"])("LibreOffice recalculates%s to the case's numbers", (variant) => {
      const grid = csv.get(base + variant) as string[][];
      expect(grid).toBeDefined();
      const c = built.get(base) as CasePlan;
      const want = plannedNumbers(c.plan);
      expect(want.size).toBeGreaterThan(20);
      const scale = Math.max(...c.result.options.map((o) => Math.abs(o.npv)));
      for (const [key, value] of want) {
        const [r, col] = key.split(",").map(Number);
        expectSame(csvNumber(grid[r]?.[col] ?? ""), value, `${base}${variant} row ${r + 1} column ${col + 1}`, scale);
      }
    });

    it("keeps the native charts, cumulative discounted cost and tornado (Calc reads them and saves them again)", async () => {
      const zip = await JSZip.loadAsync(fs.readFileSync(path.join(dir, "resaved", `${base}.xlsx`)));
      const charts = Object.keys(zip.files).filter((n) => /^xl\/charts\/chart\d+\.xml$/.test(n));
      // Cumulative discounted cost, the tornado (and with growth, the servers per year).
      expect(charts.length).toBe((built.get(base) as CasePlan).plan.sheets[0].charts.length);
      const texts = await Promise.all(charts.map((n) => (zip.file(n) as JSZip.JSZipObject).async("string")));
      const chart = texts.find((t) => t.includes("Cumulative discounted cost")) as string;
      expect(texts.some((t) => t.includes("Sensitivity: NPV saving"))).toBe(true);
      const c = built.get(base) as CasePlan;
      const refs = [...chart.matchAll(/<c:f>([^<]*)<\/c:f>/g)].map((m) => m[1]);
      expect(refs.length).toBe(3 * c.input.options.length);
      expect(
        refs.every((r) => /^'Business case'!\$[A-Z]+\$\d+(:\$[A-Z]+\$\d+)?$/.test(r.replace(/&apos;/g, "'"))),
      ).toBe(true);
    });

    it.each(["", ".stripped"])("LibreOffice builds the conclusion line%s from the cells, word for word", (variant) => {
      const grid = csv.get(base + variant) as string[][];
      const c = built.get(base) as CasePlan;
      expect(c.plan.sheets[0].noteFormulas?.map((f) => f.note)).toEqual([1]);
      expect(grid[1][0]).toBe(c.plan.sheets[0].notes[1]);
    });

    it("follows an edited discount rate: net present costs and the conclusion line at 5%", () => {
      const grid = csv.get(`${base}.rate5`) as string[][];
      const c = built.get(base) as CasePlan;
      // The line the case gives at 5 % (built from figures computed again, not read from the file).
      const at5 = casePlanFromJson({
        ...JSON.parse(fs.readFileSync(path.join(EXAMPLES, `${base}.json`), "utf8")),
        discountRate: 0.05,
      });
      expect(at5.plan.sheets[0].notes[1]).not.toBe(c.plan.sheets[0].notes[1]);
      expect(grid[1][0]).toBe(at5.plan.sheets[0].notes[1]);
      c.layout.npv.forEach((addr, i) => {
        const { row, col } = parseA1(addr);
        expectSame(
          csvNumber(grid[row][col]),
          npv(0.05, c.result.options[i].cashflows),
          `${base} NPV of option ${i + 1}`,
        );
      });
    });
  });

  it("the verdict follows an edit that changes the choice: the same words caplab case gives for the edited input", () => {
    const grid = csv.get(`${FLIP_CASE}.capex0`) as string[][];
    const json = JSON.parse(fs.readFileSync(path.join(EXAMPLES, `${FLIP_CASE}.json`), "utf8"));
    json.options[1].capex = 0;
    const edited = casePlanFromJson(json);
    const want = edited.plan.sheets[0].tables.find(
      (t) => t.name === "Recommendation",
    ) as WorkbookPlan["sheets"][0]["tables"][0];
    const at = want.at as { row: number; col: number };
    const rows = want.rows.map((r) => [r[0], cellResult(r[1])]);
    expect(rows.find((r) => r[0] === "Choose")?.[1]).toBe("FC"); // the edit does change the choice
    for (const [i, [item, value]] of rows.entries()) {
      const shown = grid[at.row + 1 + i][at.col + 1];
      if (typeof value === "number") expectSame(csvNumber(shown), value, String(item), 1e5);
      else expect([item, shown]).toEqual([item, value]);
    }
  });
});
