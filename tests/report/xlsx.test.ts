/**
 * The .xlsx renderer, checked by reading the file back with ExcelJS (as another program would).
 */
import ExcelJS from "exceljs";
import * as fs from "fs";
import * as path from "path";
import { buildLabPlan } from "../../src/lab/lab-plan";
import { WorkbookPlan } from "../../src/workbook/plan";
import { readLabText } from "../../src/import/detect";
import { cellText, planCells, renderXlsx, renderXlsxContent, uniqueHeaders, XlsxOptions } from "../../src/report/xlsx";

const FIX = path.join(__dirname, "..", "lab", "fixtures", "doe2x2");
const HOSTILE = '=HYPERLINK("http://x","y")';

/** The renderer's output as bytes, whether it gave bytes or a stream. */
async function xlsxBytes(plan: WorkbookPlan, options: XlsxOptions): Promise<Buffer> {
  const content = await renderXlsxContent(plan, options);
  if (Buffer.isBuffer(content)) return content;
  const chunks: Buffer[] = [];
  for await (const chunk of content) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function load(bytes: Buffer): Promise<ExcelJS.Workbook> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(bytes as unknown as ArrayBuffer);
  return wb;
}

function labPlan(): WorkbookPlan {
  const sub = fs.readFileSync(path.join(FIX, "subintervals.csv"), "utf8");
  const sum = fs.readFileSync(path.join(FIX, "summary.csv"), "utf8");
  return buildLabPlan([readLabText(sub, "subintervals.csv"), readLabText(sum, "summary.csv")]);
}

describe("renderXlsx", () => {
  it("writes the documented sheets with Excel tables, frozen headers, number formats and fitted widths", async () => {
    const plan = labPlan();
    const wb = await load(await renderXlsx(plan));
    expect(wb.worksheets.map((w) => w.name)).toEqual(["Summary", "Steps", "Model", "Fit", "Subintervals"]);
    const steps = wb.getWorksheet("Steps") as ExcelJS.Worksheet;
    const t = plan.sheets[1].tables[0];
    const at = t.at as { row: number; col: number };
    expect(Object.keys((steps as unknown as { tables: Record<string, unknown> }).tables)).toEqual(["Steps"]);
    expect(steps.views[0]).toMatchObject({ state: "frozen", ySplit: at.row + 1 });
    const iopsCol = t.columns.findIndex((c) => c.header === "IOPS") + 1;
    expect(steps.getCell(at.row + 1, iopsCol).value).toBe("IOPS");
    const first = steps.getCell(at.row + 2, iopsCol);
    expect(first.value).toBe(t.rows[0][iopsCol - 1]);
    expect(first.numFmt).toBe("#,##0.0");
    const width = steps.getColumn(1).width as number;
    expect(width).toBeGreaterThanOrEqual("summary.csv".length); // the source column
    expect(width).toBeLessThanOrEqual(60);
  });

  it("writes live formulas with their results, and error values as errors", async () => {
    const plan = labPlan();
    const wb = await load(await renderXlsx(plan));
    const model = wb.getWorksheet("Model") as ExcelJS.Worksheet;
    const t = plan.sheets[2].tables.find((x) => x.name === "Model")!;
    const at = t.at as { row: number; col: number };
    const dCol = t.columns.findIndex((c) => c.key === "d") + 1;
    const cell = model.getCell(at.row + 2, dCol);
    expect(cell.type).toBe(ExcelJS.ValueType.Formula);
    const planned = t.rows[0][dCol - 1] as { formula: string; result: number };
    expect(cell.formula).toBe(planned.formula);
    expect(cell.result).toBeCloseTo(planned.result, 12);
    expect(cell.formula).not.toMatch(/CAPLAB/i);
  });

  it("keeps a hostile label as text, never a formula", async () => {
    const csv = `host,step,subinterval,phase,seconds,category,iops,service_ms_avg,response_ms_avg,note\nh,1,1,measure,1,overall,100,0.1,0.2,"${HOSTILE.replace(/"/g, '""')}"\n`;
    const plan = buildLabPlan([readLabText(csv, "=cmd|' /C calc'!A0.csv")]);
    const wb = await load(await renderXlsx(plan));
    let found = 0;
    let formulas = 0;
    wb.eachSheet((ws) =>
      ws.eachRow((row) =>
        row.eachCell((c) => {
          if (c.value === HOSTILE || c.value === "=cmd|' /C calc'!A0.csv") {
            expect(c.type).toBe(ExcelJS.ValueType.String);
            found++;
          }
          if (c.type === ExcelJS.ValueType.Formula) {
            formulas++;
            expect(c.formula).not.toContain("HYPERLINK");
            expect(c.formula).not.toContain("cmd");
          }
        }),
      ),
    );
    expect(found).toBeGreaterThanOrEqual(3); // Steps label, Summary source, Subintervals source
    expect(formulas).toBeGreaterThan(0);
  });

  it("renders an empty table as a header without an Excel table", async () => {
    const plan: WorkbookPlan = {
      title: "t",
      sources: [],
      warnings: [],
      sheets: [
        {
          name: "S",
          notes: ["n"],
          tables: [{ name: "Empty", at: { row: 2, col: 0 }, columns: [{ key: "a", header: "a" }], rows: [] }],
          charts: [],
          freezeHeader: true,
        },
      ],
    };
    const wb = await load(await renderXlsx(plan));
    const ws = wb.getWorksheet("S") as ExcelJS.Worksheet;
    expect(ws.getCell(3, 1).value).toBe("a");
    expect(ws.getCell(4, 1).value).toBe("(no rows)");
  });
});

describe("the streaming writer (large plans)", () => {
  it("writes the same sheets, values, formulas and text cells, with frozen headers and an autofilter", async () => {
    const csv =
      "host,step,subinterval,phase,seconds,category,iops,service_ms_avg,response_ms_avg,cpu_busy_pct,cpu_cores,note\n" +
      `h,1,1,measure,1,overall,100,0.1,0.2,5,4,"${HOSTILE.replace(/"/g, '""')}"\n` +
      `h,2,1,measure,1,overall,300,0.1,0.3,9,4,"${HOSTILE.replace(/"/g, '""')}"\n`;
    const plan = buildLabPlan([readLabText(csv, "h.csv")]);
    expect(planCells(plan)).toBeGreaterThan(0);
    const content = await renderXlsxContent(plan, { streamAboveCells: 0 });
    expect(Buffer.isBuffer(content)).toBe(false); // a stream, not bytes in memory
    const wb = await load(await xlsxBytes(plan, { streamAboveCells: 0 }));
    expect(wb.worksheets.map((w) => w.name)).toEqual(plan.sheets.map((s) => s.name));
    const steps = wb.getWorksheet("Steps") as ExcelJS.Worksheet;
    const t = plan.sheets[1].tables[0];
    const at = t.at as { row: number; col: number };
    expect(steps.views[0]).toMatchObject({ state: "frozen", ySplit: at.row + 1 });
    const noteCol = t.columns.findIndex((c) => c.header === "note") + 1;
    const hostile = steps.getCell(at.row + 2, noteCol);
    expect([hostile.type, hostile.value]).toEqual([ExcelJS.ValueType.String, HOSTILE]);
    const model = wb.getWorksheet("Model") as ExcelJS.Worksheet;
    const m = plan.sheets[2].tables.find((x) => x.name === "Model")!;
    const mat = m.at as { row: number; col: number };
    const dCol = m.columns.findIndex((c) => c.key === "d") + 1;
    const d = model.getCell(mat.row + 2, dCol);
    const planned = m.rows[0][dCol - 1] as { formula: string; result: number };
    expect([d.type, d.formula]).toEqual([ExcelJS.ValueType.Formula, planned.formula]);
    expect(d.result).toBeCloseTo(planned.result, 12);
    expect(d.numFmt).toBe(m.columns[dCol - 1].numFmt);
    expect(model.autoFilter).toBeTruthy();
  });

  it("reports progress in cells, rising to every cell of the plan", async () => {
    const rows = Array.from(
      { length: 3000 },
      (_, i) => `h,${1 + (i % 3)},${i},measure,1,overall,${100 + i},0.1,0.2,5,4`,
    );
    const csv =
      "host,step,subinterval,phase,seconds,category,iops,service_ms_avg,response_ms_avg,cpu_busy_pct,cpu_cores\n" +
      rows.join("\n") +
      "\n";
    const plan = buildLabPlan([readLabText(csv, "p.csv")]);
    const seen: [number, string][] = [];
    await xlsxBytes(plan, {
      streamAboveCells: 0,
      progress: (cells, sheet) => seen.push([cells, sheet]),
    });
    const counts = seen.map(([c]) => c);
    expect(counts.length).toBeGreaterThan(plan.sheets.length); // within the large sheet too, not only per sheet
    expect(counts.every((c, i) => i === 0 || c >= counts[i - 1])).toBe(true);
    expect(counts[counts.length - 1]).toBe(planCells(plan));
    expect(new Set(seen.map(([, s]) => s))).toEqual(new Set(plan.sheets.map((s) => s.name)));
  });
});

describe("awkward labels", () => {
  it("keep the file valid: a label named like a column, control characters, a huge text", async () => {
    const huge = "x".repeat(40000);
    const csv = `host,step,subinterval,phase,seconds,category,iops,IOPS,bell,big\nh,1,1,measure,1,overall,100,lab,"a\u0007b","${huge}"\n`;
    const plan = buildLabPlan([readLabText(csv, "odd.csv")]);
    const wb = await load(await renderXlsx(plan));
    const steps = wb.getWorksheet("Steps") as ExcelJS.Worksheet;
    const texts: string[] = [];
    steps.eachRow((row) => row.eachCell((c) => void (typeof c.value === "string" && texts.push(c.value))));
    expect(texts).toContain("IOPS (2)");
    expect(texts).toContain("a\uFFFDb");
    expect(texts.find((t) => t.startsWith("xxx"))?.length).toBe(32767);
  });

  it("cellText and uniqueHeaders", () => {
    expect(cellText("=1+1")).toBe("=1+1");
    expect(cellText("\tx\r")).toBe("\tx\r");
    expect(uniqueHeaders(["a", "A", "", "a"])).toEqual(["a", "A (2)", "column 3", "a (3)"]);
  });
});

describe("columnar tables", () => {
  // A table stored column by column (as the Subintervals sheet is): an empty number cell, a hostile text.
  const plan: WorkbookPlan = {
    title: "Columnar",
    sources: [],
    warnings: [],
    sheets: [
      {
        name: "Subintervals",
        notes: [],
        charts: [],
        freezeHeader: true,
        tables: [
          {
            name: "Subintervals",
            columns: [
              { key: "label", header: "label", numFmt: "@" },
              { key: "iops", header: "IOPS", numFmt: "#,##0.0" },
            ],
            rows: [],
            columnar: {
              length: 3,
              data: [
                { kind: "text", codes: [0, 1, 0], texts: ["a", HOSTILE] },
                { kind: "number", values: [1.5, 0, 3.25], empty: [1] },
              ],
            },
            at: { row: 0, col: 0 },
          },
        ],
      },
    ],
  };

  it.each([
    ["the table writer", undefined],
    ["the streaming writer", 0],
  ])("are written cell for cell by %s", async (_name, streamAboveCells) => {
    expect(planCells(plan)).toBe(8);
    const wb = await load(await xlsxBytes(plan, { streamAboveCells }));
    const ws = wb.getWorksheet("Subintervals") as ExcelJS.Worksheet;
    const cells = [2, 3, 4].map((r) => [ws.getCell(r, 1).value, ws.getCell(r, 2).value]);
    expect(cells).toEqual([
      ["a", 1.5],
      [HOSTILE, null],
      ["a", 3.25],
    ]);
    expect(ws.getCell(3, 1).type).toBe(ExcelJS.ValueType.String);
    expect(ws.getCell(4, 2).numFmt).toBe("#,##0.0");
  });
});
