/**
 * Characters XML 1.0 cannot hold (C0 controls but tab/LF/CR, U+FFFE, U+FFFF, unpaired surrogates)
 * in any text from input — a case's title and option names, a sheet name, a header, a label, a
 * chart's series name, an exported sheet — never make a part of the .xlsx not well-formed: every
 * part of every file we write is checked with libxml2's parser (xmllint-wasm), and the commands
 * say the characters were replaced.
 */
import * as fs from "fs";
import * as path from "path";
import JSZip from "jszip";
import { validateXML } from "xmllint-wasm";
import type { WorkbookPlan } from "../../src/workbook/plan";
import { renderXlsx, renderXlsxContent } from "../../src/report/xlsx";
import { addNativeCharts } from "../../src/report/xlsx-charts";
import { valuesOnlyExport } from "../../src/sharing/export";
import { hasXmlIllegal, planXmlIllegal, xmlEscape, xmlText } from "../../src/report/xml-text";
import { run as runCase } from "../../src/cli/commands/case";
import { run as runReport } from "../../src/cli/commands/report";
import { useTempDir } from "../helpers/cli";

/** Every character class XML 1.0 refuses, with ordinary text around. */
const HOSTILE = "a\uFFFEb\uFFFFc\u0000d\u0001e\u001bf\u0007g\uD800h\uDC00i";
const tempDir = useTempDir("caplab-xml-text-");

/** The parts of a zip that are not well-formed XML, with libxml2's first error for each. */
async function malformedParts(bytes: Uint8Array | Buffer): Promise<string[]> {
  const zip = await JSZip.loadAsync(bytes);
  const bad: string[] = [];
  for (const name of Object.keys(zip.files)) {
    if (zip.files[name].dir || !/\.(xml|rels)$/.test(name)) continue;
    const contents = Buffer.from(await zip.files[name].async("uint8array"));
    // normalization "format": a parse only (no schema); libxml2 reports any well-formedness error.
    const r = await validateXML({ xml: [{ fileName: name.replace(/\//g, "_"), contents }], normalization: "format" });
    if (!r.valid) bad.push(`${name}: ${r.errors[0]?.rawMessage ?? "?"}`);
  }
  return bad;
}

async function toBuffer(content: Buffer | NodeJS.ReadableStream): Promise<Buffer> {
  if (Buffer.isBuffer(content)) return content;
  const chunks: Buffer[] = [];
  for await (const c of content) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks);
}

function hostilePlan(): WorkbookPlan {
  return {
    title: `Title ${HOSTILE}`,
    sources: [`src ${HOSTILE}`],
    warnings: [],
    sheets: [
      {
        name: `S${HOSTILE}`.slice(0, 20),
        notes: [`note ${HOSTILE}`],
        tables: [
          {
            name: "T",
            columns: [
              { key: "l", header: `label ${HOSTILE}`, description: `about ${HOSTILE}` },
              { key: "v", header: `value ${HOSTILE}`, numFmt: `0.0" ${HOSTILE}"` },
            ],
            rows: [
              [`row ${HOSTILE}`, 1],
              ["plain", { formula: `IF(B4>0,"${HOSTILE}","")`, result: HOSTILE }],
            ],
            at: { row: 2, col: 0 },
          },
        ],
        charts: [
          {
            id: "c1",
            title: `chart ${HOSTILE}`,
            kind: "scatter",
            xTitle: `x ${HOSTILE}`,
            yTitle: `y ${HOSTILE}`,
            series: [{ name: `series ${HOSTILE}`, x: [1, 2], y: [3, 4], style: "points+line" }],
            source: { table: "T", xColumn: "v", yColumns: ["v"] },
          },
        ],
        freezeHeader: false,
      },
    ],
  };
}

describe("xmlText", () => {
  test("replaces each character XML 1.0 refuses by U+FFFD and keeps the rest, pairs included", () => {
    expect(xmlText(HOSTILE)).toBe("a\uFFFDb\uFFFDc\uFFFDd\uFFFDe\uFFFDf\uFFFDg\uFFFDh\uFFFDi");
    const legal = "tab\tLF\nCR\r é € 😀 \uD7FF\uE000\uFFFD \u0085";
    expect(xmlText(legal)).toBe(legal);
    expect(hasXmlIllegal(legal)).toBe(false);
    expect(hasXmlIllegal("\uDBFF")).toBe(true);
    expect(xmlEscape(`<a & "b" 'c'\uFFFE>`)).toBe("&lt;a &amp; &quot;b&quot; &apos;c&apos;\uFFFD&gt;");
  });

  test("planXmlIllegal names where the characters are", () => {
    expect(planXmlIllegal(hostilePlan())).toEqual([
      "the title",
      expect.stringMatching(/^the sheet name /),
      expect.stringMatching(/^the notes of sheet /),
      expect.stringMatching(/^chart titles or series names on sheet /),
      "a column header of table T",
      "cells of table T",
    ]);
  });
});

describe("every part we write is well-formed XML", () => {
  test("ExcelJS writer with native charts (caplab case's path)", async () => {
    const plan = hostilePlan();
    const bytes = await addNativeCharts(await renderXlsx(plan), plan);
    expect(await malformedParts(bytes)).toEqual([]);
    const zip = await JSZip.loadAsync(bytes);
    expect(await zip.file("docProps/core.xml")?.async("string")).toContain("Title a\uFFFDb\uFFFDc");
    expect(await zip.file("xl/charts/chart1.xml")?.async("string")).toContain("chart a\uFFFDb");
  });

  test("streaming writer (caplab report above 250,000 cells)", async () => {
    const plan = hostilePlan();
    const content = await renderXlsxContent(plan, { streamAboveCells: 0 });
    expect(await malformedParts(await toBuffer(content))).toEqual([]);
  });

  test("values-only export of sheets read from Excel (the pane's share), with a chart", async () => {
    const name = `Case ${HOSTILE}`.slice(0, 25);
    const { bytes } = await valuesOnlyExport(
      [
        {
          name,
          row: 0,
          col: 0,
          formulas: [
            [`x ${HOSTILE}`, 1],
            ["y", `="${HOSTILE}"`],
          ],
          values: [
            [`x ${HOSTILE}`, 1],
            ["y", HOSTILE],
          ],
          numberFormat: [
            ["General", `0" ${HOSTILE}"`],
            ["General", "General"],
          ],
          charts: [
            {
              title: `chart ${HOSTILE}`,
              xTitle: HOSTILE,
              yTitle: HOSTILE,
              series: [
                {
                  name: `s ${HOSTILE}`,
                  xRef: `='${name}'!$B$1:$B$1`,
                  yRef: `='${name}'!$B$1:$B$1`,
                  x: [1],
                  y: [1],
                  lines: true,
                },
              ],
            },
          ],
        },
      ],
      `Shared ${HOSTILE}`,
    );
    expect(await malformedParts(bytes)).toEqual([]);
    expect(Object.keys((await JSZip.loadAsync(bytes)).files)).toContain("xl/charts/chart1.xml");
  });

  test("caplab case: option names and title with such characters → a well-formed file and a warning", async () => {
    const dir = tempDir();
    const input = path.join(dir, "case.json");
    const json = JSON.parse(fs.readFileSync(path.join(__dirname, "../../examples/storage-replacement.json"), "utf8"));
    // Control characters in names are refused by the case reader; these pass it.
    json.title = "Keep \uFFFE or \uD800";
    json.options[0].name = "Keep \uFFFE";
    json.options[1].name = "Replace \uFFFF";
    fs.writeFileSync(input, JSON.stringify(json));
    const out: string[] = [];
    const err: string[] = [];
    const output = path.join(dir, "case.xlsx");
    const code = await runCase([input, "-o", output], { out: (t) => out.push(t), err: (t) => err.push(t) });
    expect(err.join("")).toMatch(/warning: characters an \.xlsx cannot hold .* in the title, .* are written as \uFFFD/);
    expect(code).toBe(0);
    expect(await malformedParts(fs.readFileSync(output))).toEqual([]);
  });

  test("caplab report: a label column with such characters → a well-formed file and a warning", async () => {
    const dir = tempDir();
    const input = path.join(dir, "run.csv");
    const csv = fs.readFileSync(path.join(__dirname, "../lab/fixtures/doe2x2/subintervals.csv"), "utf8");
    // A NUL makes the file binary to the reader; the other characters are text to it.
    fs.writeFileSync(input, csv.replace(/r100-i1000/g, `r100 ${HOSTILE.replace("\u0000", "")}`));
    const output = path.join(dir, "r.xlsx");
    const err: string[] = [];
    const code = await runReport([input, "-o", output], { out: () => undefined, err: (t) => err.push(t) });
    expect(err.join("")).toMatch(/warning: characters an \.xlsx cannot hold .* are written as/);
    expect(code).toBe(0);
    expect(await malformedParts(fs.readFileSync(output))).toEqual([]);
  });
});
