/**
 * The Model sheet (src/lab/model.ts) on the first-run sample (fixtures/lab-sample, drawn
 * from the documented model of fixtures/lab-model.ts): its charts' data, the hidden helper table
 * that holds the fitted curves and knees, and how the .xlsx draws them (native charts over those
 * cells, log x axis, hidden columns that the charts still plot).
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import JSZip from "jszip";
import { readLabText } from "../../src/import/detect";
import { buildLabPlan } from "../../src/lab/lab-plan";
import { modelSheet } from "../../src/lab/model";
import { chartDataTable, MODEL_CHART_DATA_TABLE } from "../../src/lab/model-charts";
import { MODEL_INPUTS_TABLE } from "../../src/lab/model-steps";
import { collectLabData } from "../../src/lab/data";
import { ChartPlan, rangeA1, SheetPlan, tableCell, WorkbookPlan } from "../../src/workbook/plan";
import { SheetBuilder } from "../../src/workbook/sheet-builder";
import { renderXlsx, renderXlsxContent } from "../../src/report/xlsx";
import { convert, csvNumber, csvRows, findSoffice, recalculatingProfile } from "../case/libreoffice";

const SOFFICE = findSoffice();
// On CI a missing LibreOffice fails the test rather than skipping it.
const describeLo = SOFFICE || process.env.CI === "true" ? describe : describe.skip;

const DIR = path.join(__dirname, "fixtures", "lab-sample");

function samplePlan(): WorkbookPlan {
  return buildLabPlan(
    ["subintervals.csv", "summary.csv"].map((f) => readLabText(fs.readFileSync(path.join(DIR, f), "utf8"), f)),
    { today: new Date(Date.UTC(2026, 10, 25)) },
  );
}

const plan = samplePlan();
const model = plan.sheets.find((s) => s.name === "Model") as SheetPlan;

describe("Model charts and their helper table", () => {
  test("the response charts use a log x axis (the sample spans 1,000 to 39,000 IOPS) and the CPU chart a linear one", () => {
    const byId = new Map(model.charts.map((c) => [c.id, c]));
    expect(byId.get("response-vs-throughput")?.xLog).toBe(true);
    expect(byId.get("p99-vs-throughput")?.xLog).toBe(true);
    expect(byId.get("cpu-vs-iops")?.xLog).toBeFalsy();
  });

  test("every series not in a result table sits in the hidden helper table, right of the visible tables", () => {
    const helper = model.tables.find((t) => t.name === MODEL_CHART_DATA_TABLE);
    expect(helper?.hidden).toBe(true);
    const visibleRight = Math.max(...model.tables.filter((t) => !t.hidden).map((t) => t.at.col + t.columns.length));
    expect(helper!.at.col).toBe(visibleRight + 1);
    for (const chart of model.charts)
      chart.series.forEach((s, i) => {
        const inSource = chart.source?.yColumns[i] !== undefined;
        expect(inSource || s.cells !== undefined).toBe(true);
        if (!s.cells) return;
        const xj = helper!.columns.findIndex((c) => c.key === s.cells!.x);
        const yj = helper!.columns.findIndex((c) => c.key === s.cells!.y);
        // The helper's cells are the series' numbers, row by row.
        s.x.forEach((x, r) => {
          expect(tableCell(helper!, r, xj)).toBe(x);
          expect(tableCell(helper!, r, yj)).toBe(s.y[r]);
        });
      });
    // Two fitted curves (nfs, fc) of 61 points, two knees, per response chart; the two CPU lines.
    const curves = model.charts.flatMap((c) => c.series).filter((s) => s.name.startsWith("fitted S/"));
    expect(curves).toHaveLength(4);
    for (const c of curves) expect(c.x).toHaveLength(61);
  });

  test("the fitted curve stops before it leaves the measured points behind (≤ 1.5 × the slowest fitted step)", () => {
    const response = model.charts.find((c) => c.id === "response-vs-throughput") as ChartPlan;
    const measuredMax = Math.max(...response.series[0].y);
    for (const s of response.series.filter((x) => x.name.startsWith("fitted S/")))
      expect(Math.max(...s.y)).toBeLessThanOrEqual(1.5 * measuredMax * (1 + 1e-9));
  });

  test("chartDataTable: nothing to hold when every series is a table's", () => {
    const chart: ChartPlan = {
      id: "c",
      title: "t",
      kind: "scatter",
      xTitle: "x",
      yTitle: "y",
      series: [{ name: "a", x: [1, 2], y: [3, 4], style: "points" }],
      source: { table: "T", xColumn: "x", yColumns: ["y"] },
    };
    expect(chartDataTable("H", new SheetBuilder("S", []), [chart])).toBeNull();
    chart.source = undefined;
    const h = chartDataTable("H", new SheetBuilder("S", ["title"]), [chart])!;
    // No table on the sheet: one blank row below the notes, right of column B.
    expect(h.at).toEqual({ row: 2, col: 2 });
    expect(h.hidden).toBe(true);
    expect(h.columns.map((c) => c.key)).toEqual(["c:0:x", "c:0:y"]);
    expect(h.rows).toEqual([
      [1, 3],
      [2, 4],
    ]);
    expect(chart.series[0].cells).toEqual({ table: "H", x: "c:0:x", y: "c:0:y" });
  });
});

describe("per-step M/M/c over the storage servers the planner names", () => {
  const inputs = ["subintervals.csv", "summary.csv"].map((f) =>
    readLabText(fs.readFileSync(path.join(DIR, f), "utf8"), f),
  );
  const main = collectLabData(inputs).steps.filter((s) => s.category === "overall");
  const column = (sheet: SheetPlan, key: string): unknown[] => {
    const t = sheet.tables.find((x) => x.name === "Model")!;
    const j = t.columns.findIndex((c) => c.key === key);
    return t.rows.map((r) => {
      const v = r[j];
      return v !== null && typeof v === "object" && "result" in v ? v.result : v;
    });
  };

  test("no servers named: the input cell is blank and so are ρ, the prediction and the ratio", () => {
    const { sheet } = modelSheet(main);
    const inputsTable = sheet.tables.find((t) => t.name === MODEL_INPUTS_TABLE)!;
    expect(inputsTable.rows).toEqual([["storage servers c", null]]);
    expect(inputsTable.columns[1].description).toContain("Not the generator's queue depth");
    for (const key of ["rho", "pred", "ratio"]) expect(new Set(column(sheet, key))).toEqual(new Set([""]));
  });

  test("c = 1 (a single-server model): R = S/(1 − X·S) where ρ < 1 (M/M/1 closed form), #NUM! where the queue has no steady state", () => {
    const { sheet } = modelSheet(main, undefined, [], 1);
    expect(sheet.tables.find((t) => t.name === MODEL_INPUTS_TABLE)!.rows[0][1]).toBe(1);
    const pred = column(sheet, "pred");
    let stable = 0;
    main.forEach((s, i) => {
      const sMs = s.values.service_ms_avg as number;
      const rho = ((s.values.iops as number) * sMs) / 1000;
      if (rho < 1) {
        stable++;
        expect(pred[i] as number).toBeCloseTo(sMs / (1 - rho), 9);
        expect(column(sheet, "rho")[i] as number).toBeCloseTo(rho, 12);
      } else
        expect(
          sheet.tables.find((t) => t.name === "Model")!.rows[i][
            sheet.tables.find((t) => t.name === "Model")!.columns.findIndex((c) => c.key === "pred")
          ],
        ).toEqual({ error: "#NUM!" });
    });
    expect(stable).toBeGreaterThan(0);
    expect(stable).toBeLessThan(main.length);
  });
});

describeLo("in LibreOffice: the planner types c = 1 into ModelInputs (cached results removed, recalculated)", () => {
  test("ρ = X·S/1000/c for every step, the other live formulas give the analysis' values", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "caplab-model-lo-"));
    try {
      const copy = structuredClone(plan);
      const ws = copy.sheets.find((s) => s.name === "Model")!;
      ws.tables.find((t) => t.name === MODEL_INPUTS_TABLE)!.rows[0][1] = 1;
      const table = ws.tables.find((t) => t.name === "Model")!;
      for (const row of table.rows)
        row.forEach((c, j) => {
          if (c !== null && typeof c === "object" && "formula" in c) row[j] = { formula: c.formula, result: null };
        });
      copy.sheets = [ws];
      const file = path.join(dir, "lab.xlsx");
      fs.writeFileSync(file, await renderXlsx(copy));
      convert(SOFFICE as string, recalculatingProfile(dir), "csv", path.join(dir, "csv"), [file]);
      const csv = fs.readdirSync(path.join(dir, "csv")).find((f) => f.endsWith(".csv"))!;
      const rows = csvRows(fs.readFileSync(path.join(dir, "csv", csv), "utf8"));
      const original = model.tables.find((t) => t.name === "Model")!;
      const col = (k: string): number => original.columns.findIndex((c) => c.key === k);
      const got = (i: number, k: string): string => rows[original.at.row + 1 + i]?.[original.at.col + col(k)] ?? "";
      let compared = 0;
      original.rows.forEach((row, i) => {
        const x = tableCell(original, i, col("x")) as number;
        const sMs = tableCell(original, i, col("s")) as number;
        expect(csvNumber(got(i, "rho"))).toBeCloseTo((x * sMs) / 1000, 9);
        // The prediction is the add-in's (a value in the .xlsx): blank, so the ratio stays blank.
        expect(got(i, "ratio")).toBe("");
        row.forEach((cell, j) => {
          if (cell === null || typeof cell !== "object" || !("formula" in cell) || cell.formula.startsWith("IF("))
            return;
          const want = cell.result as number;
          const v = csvNumber(rows[original.at.row + 1 + i][original.at.col + j]);
          expect(Math.abs(v - want)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(want)));
          compared++;
        });
      });
      expect(compared).toBeGreaterThan(50);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});

describe("the .xlsx caplab report writes", () => {
  let zip: JSZip;
  beforeAll(async () => {
    zip = await JSZip.loadAsync((await renderXlsxContent(plan)) as Buffer);
  });
  const text = async (name: string): Promise<string> => (await zip.file(name)?.async("string")) ?? "";

  test("the Model sheet has three native charts; the response charts on a base-10 log axis over the helper's cells", async () => {
    const charts = Object.keys(zip.files).filter((n) => /^xl\/charts\/chart\d+\.xml$/.test(n));
    expect(charts).toHaveLength(3);
    const xml = await Promise.all(charts.sort().map(text));
    const [mean, p99, cpu] = xml;
    expect(mean).toContain("Response time vs throughput");
    expect(mean).toContain('<c:scaling><c:logBase val="10"/><c:orientation val="minMax"/>');
    expect(p99).toContain('<c:logBase val="10"/>');
    expect(cpu).not.toContain("logBase");
    // Hidden cells are drawn.
    for (const x of xml) expect(x).toContain('<c:plotVisOnly val="0"/>');
    // The first fitted curve's x refers to the helper table's first column, 61 rows.
    const helper = model.tables.find((t) => t.name === MODEL_CHART_DATA_TABLE)!;
    const range = rangeA1(
      { row: helper.at.row + 1, col: helper.at.col },
      { row: helper.at.row + 61, col: helper.at.col },
      { absolute: true, sheet: "Model" },
    ).replace(/'/g, "&apos;");
    expect(mean).toContain(`<c:f>${range}</c:f>`);
  });

  test("the helper table's columns are hidden in the worksheet, the result tables' are not", async () => {
    const workbook = await text("xl/workbook.xml");
    const rid = /<sheet [^>]*name="Model"[^>]*r:id="([^"]+)"/.exec(workbook)![1];
    const rels = await text("xl/_rels/workbook.xml.rels");
    const target = new RegExp(`Id="${rid}"[^>]*Target="([^"]+)"`).exec(rels)![1].replace(/^\/?xl\//, "");
    const sheet = await text(`xl/${target}`);
    const helper = model.tables.find((t) => t.name === MODEL_CHART_DATA_TABLE)!;
    const hidden = new Set<number>();
    for (const m of sheet.matchAll(/<col min="(\d+)" max="(\d+)"[^>]*hidden="1"/g))
      for (let c = Number(m[1]); c <= Number(m[2]); c++) hidden.add(c - 1);
    for (let j = 0; j < helper.columns.length; j++) expect(hidden.has(helper.at.col + j)).toBe(true);
    for (const t of model.tables.filter((x) => !x.hidden))
      for (let j = 0; j < t.columns.length; j++) expect(hidden.has(t.at.col + j)).toBe(false);
  });
});
