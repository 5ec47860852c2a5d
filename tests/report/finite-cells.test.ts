/**
 * No workbook holds Infinity or NaN: every example case (examples/*.json), every lab fixture
 * (tests/lab/fixtures) and every golden lab input that imports (tests/import/golden) is written
 * the way the CLI writes it and every value of every part is scanned; and the renderers themselves
 * turn a non-finite number into Excel's #NUM! (or nothing, for NaN), in both xlsx writers and in
 * the HTML report.
 */
import * as fs from "fs";
import * as path from "path";
import { runCli, useTempDir } from "../helpers/cli";
import { nonFiniteValues } from "./finite-cells";
import { run as runCase } from "../../src/cli/commands/case";
import { run as runReport } from "../../src/cli/commands/report";
import { renderXlsx, renderXlsxContent } from "../../src/report/xlsx";
import { renderHtml } from "../../src/report/html";
import type { WorkbookPlan } from "../../src/workbook/plan";
import { Readable } from "stream";

const ROOT = path.join(__dirname, "..", "..");
const tempDir = useTempDir("caplab-finite-");

const examples = fs
  .readdirSync(path.join(ROOT, "examples"))
  .filter((f) => f.endsWith(".json"))
  .map((f) => path.join(ROOT, "examples", f));

const labFixtures = fs
  .readdirSync(path.join(ROOT, "tests", "lab", "fixtures"), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => path.join(ROOT, "tests", "lab", "fixtures", d.name))
  .map((dir) =>
    fs
      .readdirSync(dir)
      .filter((f) => /\.(csv|json)$/.test(f) && f !== "plan.csv" && !/^(expected|truth)\.json$/.test(f))
      .map((f) => path.join(dir, f)),
  )
  .filter((files) => files.length > 0);

const golden = fs
  .readdirSync(path.join(ROOT, "tests", "import", "golden"))
  .map((c) => path.join(ROOT, "tests", "import", "golden", c))
  .flatMap((dir) =>
    fs
      .readdirSync(dir)
      .filter((f) => f.startsWith("input."))
      .map((f) => path.join(dir, f)),
  );

describe("every workbook the examples and fixtures make holds only finite values", () => {
  it.each(examples.map((f) => [path.basename(f), f]))("caplab case %s", async (_name, file) => {
    const out = path.join(tempDir(), "case.xlsx");
    const r = await runCli(runCase, [file, "-o", out]);
    expect(r.err).toBe("");
    expect(await nonFiniteValues(fs.readFileSync(out))).toEqual([]);
  });

  it.each(labFixtures.map((files) => [path.basename(path.dirname(files[0])), files]))(
    "caplab report on tests/lab/fixtures/%s",
    async (_name, files) => {
      const out = path.join(tempDir(), "lab.xlsx");
      const r = await runCli(runReport, [...files, "-o", out]);
      expect(r.code).toBe(0);
      expect(await nonFiniteValues(fs.readFileSync(out))).toEqual([]);
    },
  );

  it("caplab report on each golden input that imports", async () => {
    let written = 0;
    for (const file of golden) {
      const out = path.join(tempDir(), `g${written}.xlsx`);
      const r = await runCli(runReport, [file, "-o", out]);
      if (r.code !== 0) continue; // inputs that are refused on purpose (bad number, truncated JSON, …)
      written++;
      expect({ file, found: await nonFiniteValues(fs.readFileSync(out)) }).toEqual({ file, found: [] });
    }
    expect(written).toBeGreaterThanOrEqual(10);
  });
});

/** A plan with every kind of non-finite number in a value and in a formula's cached result. */
const hostile: WorkbookPlan = {
  title: "non-finite",
  sources: [],
  warnings: [],
  sheets: [
    {
      name: "S",
      notes: ["numbers a double cannot hold"],
      tables: [
        {
          name: "T",
          columns: [
            { key: "v", header: "value", numFmt: "0.00" },
            { key: "f", header: "formula", numFmt: "0.00" },
          ],
          at: { row: 2, col: 0 },
          rows: [
            [Infinity, { formula: "=1E308*10", result: Infinity }],
            [-Infinity, { formula: "=-1E308*10", result: -Infinity }],
            [NaN, { formula: "=0*1", result: NaN }],
            [1.5, { formula: "=1.5", result: 1.5 }],
          ],
        },
      ],
      charts: [],
      freezeHeader: false,
    },
  ],
};

async function bytesOf(content: Buffer | Readable): Promise<Buffer> {
  if (Buffer.isBuffer(content)) return content;
  const chunks: Buffer[] = [];
  for await (const c of content) chunks.push(Buffer.from(c as Uint8Array));
  return Buffer.concat(chunks);
}

describe("the renderers write no non-finite number", () => {
  it("in memory: ±Infinity becomes #NUM!, NaN an empty cell or a formula without a cached value", async () => {
    const bytes = await renderXlsx(hostile);
    expect(await nonFiniteValues(bytes)).toEqual([]);
    const JSZip = (await import("jszip")).default;
    const sheet = await (await JSZip.loadAsync(bytes)).file("xl/worksheets/sheet1.xml")!.async("string");
    expect(sheet.match(/t="e"[^>]*>(<f>[^<]*<\/f>)?<v>#NUM!<\/v>/g)).toHaveLength(4);
  });

  it("streamed: the same", async () => {
    const bytes = await bytesOf(await renderXlsxContent(hostile, { streamAboveCells: 0 }));
    expect(await nonFiniteValues(bytes)).toEqual([]);
    const JSZip = (await import("jszip")).default;
    const sheet = await (await JSZip.loadAsync(bytes)).file("xl/worksheets/sheet1.xml")!.async("string");
    expect(sheet.match(/t="e"[^>]*>(<f>[^<]*<\/f>)?<v>#NUM!<\/v>/g)).toHaveLength(4);
  });

  it("in the HTML report: #NUM! where the workbook has it, never ∞ or NaN", () => {
    const html = renderHtml(hostile);
    expect(html).not.toMatch(/∞|>NaN</);
    expect(html.match(/#NUM!/g)?.length).toBeGreaterThanOrEqual(4);
  });
});
