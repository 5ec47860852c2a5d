/**
 * The case prints: every example written by `caplab case`, converted to PDF by LibreOffice
 * (`soffice --convert-to pdf`, the .xlsx's own page setup), read back with poppler's
 * `pdftotext -bbox` (every word with its box, in points):
 * - page 1 holds the recommendation, the costs and the tornado (its title and its legend);
 * - no word anywhere is under 8 points high (a sheet fitted to one page's width printed at 3 pt);
 * - no chart is split across pages: each chart's title is on the page of its axis title.
 *
 * Needs LibreOffice (`soffice`) and poppler-utils (`pdftotext`); without them the test fails under
 * CI=true and is skipped, saying so, elsewhere.
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { run } from "../../src/cli/commands/case";
import { findSoffice, recalculatingProfile } from "./libreoffice";
import { describeUnless } from "../helpers/skip";
import { casePlanFromJson } from "../../src/case/case-plan";
import { cellNumFmt, cellResult, TablePlan } from "../../src/workbook/plan";
import { formatNumber } from "../../src/report/html";

const SOFFICE = findSoffice();
const PDFTOTEXT = ["/usr/bin/pdftotext", "/usr/local/bin/pdftotext"].find((p) => fs.existsSync(p));
const describePdf = (name: string, fn: () => void): void =>
  describeUnless(
    SOFFICE && PDFTOTEXT
      ? null
      : "soffice or pdftotext not installed (CI installs libreoffice-calc-nogui, poppler-utils)",
    name,
    fn,
  );
const EXAMPLES = path.join(__dirname, "..", "..", "examples");
const FILES = fs.readdirSync(EXAMPLES).filter((f) => f.endsWith(".json"));

interface Word {
  page: number;
  text: string;
  height: number;
}

/** Every word of a PDF with its page (1-based) and box height in points, from `pdftotext -bbox`. */
function words(pdf: string): Word[] {
  const html = execFileSync(PDFTOTEXT as string, ["-bbox", pdf, "-"], { encoding: "utf8", maxBuffer: 64 << 20 });
  const out: Word[] = [];
  html
    .split("<page ")
    .slice(1)
    .forEach((page, i) => {
      for (const m of page.matchAll(
        /<word xMin="[\d.]+" yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">([^<]*)<\/word>/g,
      ))
        out.push({ page: i + 1, text: m[3].replace(/&amp;/g, "&"), height: Number(m[2]) - Number(m[1]) });
    });
  return out;
}

/** The pages on which a phrase appears (its words in a row). */
function pagesOf(all: Word[], phrase: string): number[] {
  const parts = phrase.split(" ");
  const pages = new Set<number>();
  all.forEach((w, k) => {
    if (parts.every((p, j) => all[k + j]?.text === p && all[k + j].page === w.page)) pages.add(w.page);
  });
  return [...pages];
}

describePdf("the case prints: page 1 holds the verdict, costs and tornado; text ≥ 8 pt; no chart split", () => {
  let dir: string;
  const pdfWords = new Map<string, Word[]>();

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "caplab-case-pdf-"));
    const xlsx: string[] = [];
    for (const f of FILES) {
      const out = path.join(dir, f.replace(/\.json$/, ".xlsx"));
      const r = await run([path.join(EXAMPLES, f), "-o", out], { out: () => undefined, err: () => undefined });
      if (r !== 0) throw new Error(`caplab case ${f} exited ${r}`);
      xlsx.push(out);
    }
    execFileSync(
      SOFFICE as string,
      [
        `-env:UserInstallation=file://${recalculatingProfile(dir)}`,
        "--headless",
        "--convert-to",
        "pdf",
        "--outdir",
        dir,
        ...xlsx,
      ],
      { stdio: "pipe", timeout: 240_000 },
    );
    for (const f of FILES) pdfWords.set(f, words(path.join(dir, f.replace(/\.json$/, ".pdf"))));
  }, 300_000);

  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it.each(FILES)("%s: page 1 holds the recommendation, the costs and the tornado", (f) => {
    const all = pdfWords.get(f) as Word[];
    for (const phrase of ["Recommendation", "Costs per option", "Sensitivity: NPV saving", "Driver at its high value"])
      expect([phrase, pagesOf(all, phrase)[0]]).toEqual([phrase, 1]);
  });

  it.each(FILES)("%s: page 1 shows every option's net present cost (no Costs column pushed off the page)", (f) => {
    const all = pdfWords.get(f) as Word[];
    const plan = casePlanFromJson(JSON.parse(fs.readFileSync(path.join(EXAMPLES, f), "utf8"))).plan;
    const costs = plan.sheets[0].tables.find((t) => t.name === "Costs") as TablePlan;
    const r = costs.rows.findIndex((row) => /^Net present cost/.test(String(cellResult(row[0]))));
    expect(r).toBeGreaterThanOrEqual(0);
    for (let j = 1; j < costs.columns.length; j++) {
      const shown = formatNumber(cellResult(costs.rows[r][j]) as number, cellNumFmt(costs, r, j));
      expect([costs.columns[j].header, shown, pagesOf(all, shown)[0]]).toEqual([costs.columns[j].header, shown, 1]);
    }
  });

  it.each(FILES)("%s: every word is at least 8 points high", (f) => {
    const all = pdfWords.get(f) as Word[];
    expect(all.length).toBeGreaterThan(200);
    const smallest = all.reduce((m, w) => (w.height < m.height ? w : m));
    expect([smallest.text, smallest.height >= 8]).toEqual([smallest.text, true]);
  });

  it.each(FILES)("%s: no chart is split across pages (each starts a page and fits on it)", async (f) => {
    // Read from the .xlsx LibreOffice printed: the page breaks, the scale, the rows' heights and each
    // chart's anchor row. A chart is whole when no page ends between its first and last row: its
    // page begins at the last break above it and the rows from there to its end fit the page.
    // (Text in the PDF cannot tell: Calc writes a chart's texts, clipped, on every page it touches.)
    const { default: JSZip } = await import("jszip");
    const zip = await JSZip.loadAsync(fs.readFileSync(path.join(dir, f.replace(/\.json$/, ".xlsx"))));
    const sheet = (await zip.file("xl/worksheets/sheet1.xml")?.async("string")) as string;
    const drawing = (await zip.file("xl/drawings/drawing1.xml")?.async("string")) as string;
    const scale = Number(/<pageSetup [^>]*scale="(\d+)"/.exec(sheet)?.[1] ?? 100) / 100;
    const breaks = [0, ...[...sheet.matchAll(/<brk id="(\d+)"/g)].map((m) => Number(m[1]))];
    const heights = new Map(
      [...sheet.matchAll(/<row r="(\d+)"[^>]* ht="([\d.]+)"/g)].map((m) => [Number(m[1]) - 1, Number(m[2])]),
    );
    const rowPt = (r: number): number => heights.get(r) ?? 15;
    // A4 (842 pt) less the half-inch margins, at the print scale; a chart is 9 cm (255 pt) high.
    const pageRows = (842 - 72) / scale;
    const anchors = [
      ...drawing.matchAll(/<xdr:from><xdr:col>\d+<\/xdr:col><xdr:colOff>\d+<\/xdr:colOff><xdr:row>(\d+)<\/xdr:row>/g),
    ];
    expect(anchors.length).toBeGreaterThanOrEqual(2);
    for (const m of anchors) {
      const row = Number(m[1]);
      const start = Math.max(...breaks.filter((b) => b <= row));
      let top = 0;
      for (let r = start; r < row; r++) top += rowPt(r);
      expect([f, row, top + 255 <= pageRows]).toEqual([f, row, true]);
    }
  });
});
