import * as fs from "fs";
import * as path from "path";
import { createFakeHost, FakeHost, FakeSheet, installFakeHost } from "./fake-excel";
import * as wrappers from "../../src/functions/functions";
import { renderWorkbookPlan, RenderCancelled, SLICE_ROWS } from "../../src/excel/render-plan";
import { formatRuns, freeSheetName, MAX_REQUEST_BYTES, needsTextFormat, rowBlocks } from "../../src/report/blocks";
import { samplePoints } from "../../src/workbook/plan";
import { WorkbookPlan, TablePlan, columnIndex, columnLetter } from "../../src/workbook/plan";
import { readLabText } from "../../src/import/detect";
import { buildLabPlan } from "../../src/lab/lab-plan";

function install(options = {}): FakeHost {
  // functionsRegistered: true in these tests means what it means in Excel: the functions are there.
  const host = createFakeHost({ functions: wrappers, ...options });
  installFakeHost(globalThis as unknown as Record<string, unknown>, host);
  return host;
}

/** A Subintervals-like table stored column by column: 20 number columns and 3 text columns. */
function bigTable(rows: number): TablePlan {
  const data: TablePlan["columnar"] = { length: rows, data: [] };
  const columns: TablePlan["columns"] = [];
  for (let j = 0; j < 3; j++) {
    columns.push({ key: `label_${j}`, header: `label ${j}`, numFmt: "@" });
    data.data.push({
      kind: "text",
      codes: Array.from({ length: rows }, (_, i) => i % 4),
      texts: ["a", "host-b", "r100-500", "-x"],
    });
  }
  for (let j = 0; j < 12; j++) {
    columns.push({ key: `metric_${j}`, header: `metric ${j}`, numFmt: "0.000" });
    data.data.push({ kind: "number", values: Array.from({ length: rows }, (_, i) => i * 1.000123 + j / 7), empty: [] });
  }
  return { name: "Subintervals", columns, rows: [], columnar: data, at: { row: 0, col: 0 } };
}

const HOSTILE = ['=HYPERLINK("http://x","y")', "+cmd", "@SUM(1)", "-2+3", "\tTAB", "\rCR"];

function hostilePlan(): WorkbookPlan {
  return {
    title: "t",
    sources: [],
    warnings: [],
    sheets: [
      {
        name: "Steps",
        notes: ["=1+1 note"],
        freezeHeader: true,
        tables: [
          {
            name: "Steps",
            columns: [
              { key: "label", header: "label" },
              { key: "x", header: "x", numFmt: "0.0" },
              { key: "y", header: "y" },
              { key: "2x", header: "2x" },
            ],
            rows: HOSTILE.map((h, i) => [h, i + 1, i * 2, { formula: `B${i + 4}*2`, result: (i + 1) * 2 }]),
            at: { row: 2, col: 0 },
          },
          {
            name: "Fit",
            columns: [{ key: "fit", header: "fit" }],
            rows: [[{ formula: "CAPLAB.DOE_FIT(B4:B9,C4:C9)", result: 1.5 }]],
            at: { row: 12, col: 0 },
          },
        ],
        charts: [
          {
            id: "c",
            title: "y vs x",
            kind: "scatter",
            xTitle: "x",
            yTitle: "y",
            series: [
              { name: "measured", x: [1, 2, 3], y: [0, 2, 4], style: "points" },
              {
                name: "model",
                x: Array.from({ length: 5000 }, (_, i) => i),
                y: Array.from({ length: 5000 }, (_, i) => 2 * i),
                style: "line",
              },
            ],
          },
        ],
      },
    ],
  };
}

describe("renderWorkbookPlan against the in-memory Excel", () => {
  test("a 200,000-row table: every request under 4.5 MB, written in blocks, calculation suspended", async () => {
    const host = install();
    const plan: WorkbookPlan = {
      title: "big",
      sources: [],
      warnings: [],
      sheets: [{ name: "Subintervals", notes: [], freezeHeader: true, tables: [bigTable(200_000)], charts: [] }],
    };
    const result = await renderWorkbookPlan(plan, { functionsRegistered: false });
    const requests = host.workbook.requests;
    const max = Math.max(...requests.map((r) => r.bytes));
    expect(max).toBeLessThan(MAX_REQUEST_BYTES);
    // The measured size of each block is what went over the wire (the fake serializes the request).
    for (const [i, r] of result.requests.entries())
      if (r.rows > 1000) expect(Math.abs(r.bytes - requests[i].bytes) / requests[i].bytes).toBeLessThan(0.05);
    // 200,000 rows × 15 columns in blocks of at most SLICE_ROWS (5,000) rows: 40 data requests.
    const dataRequests = requests.filter((r) => r.calculationSuspended);
    expect(dataRequests.length).toBe(200_000 / SLICE_ROWS);
    const rowsSent = result.requests.filter((r) => /rows \d+-\d+$/.test(r.what)).map((r) => r.rows);
    expect(Math.max(...rowsSent)).toBe(SLICE_ROWS);
    expect(rowsSent.reduce((a, b) => a + b, 0)).toBe(200_000);
    expect(requests.every((r) => !r.refused)).toBe(true);
    expect(result.requests.length).toBe(requests.length);
    const s = host.workbook.sheet("Subintervals")!;
    expect(s.get(200_000, 3)!.value).toBeCloseTo(199_999 * 1.000123, 6);
    expect(s.get(4, 0)!.value).toBe("-x"); // text column: "-x" is not a formula
    expect(s.get(4, 0)!.formula).toBeNull();
    expect(host.workbook.tables).toEqual([
      { name: "Subintervals", sheet: "Subintervals", row: 0, col: 0, rows: 200_001, cols: 15 },
    ]);
    expect(s.frozenRows).toBe(1);
    console.log(`200,000 rows: ${requests.length} requests, largest ${max} bytes`);
  });

  test("a request refused as too large is sent again in smaller blocks", async () => {
    const host = install({ maxRequestBytes: 1_000_000 });
    const plan: WorkbookPlan = {
      title: "big",
      sources: [],
      warnings: [],
      sheets: [{ name: "Subintervals", notes: [], freezeHeader: false, tables: [bigTable(20_000)], charts: [] }],
    };
    // 20,000-row blocks (~3.4 MB): over this Excel's 1 MB, under the renderer's own budget.
    const result = await renderWorkbookPlan(plan, { functionsRegistered: false, maxRowsPerRequest: 20_000 });
    expect(result.retries).toBeGreaterThan(0);
    expect(host.workbook.requests.some((r) => r.refused)).toBe(true);
    const s = host.workbook.sheet("Subintervals")!;
    expect(s.get(20_000, 5)!.value).toBeCloseTo(19_999 * 1.000123 + 2 / 7, 6);
    // The refused request held the header too: it is sent again with the first block.
    expect(s.values(0, 0, 1, 15)[0]).toEqual([
      ...[0, 1, 2].map((j) => `label ${j}`),
      ...Array.from({ length: 12 }, (_, j) => `metric ${j}`),
    ]);
    expect(s.formatAt(0, 0)).toBe("@");
    expect(s.get(1, 0)!.value).toBe("a");
  });

  test("text Excel would turn into a number, date or boolean is written as text and reads back unchanged", async () => {
    // What a user types into a label (a step name, a protocol, a CSV label column): the in-memory
    // Excel converts such text as Excel does unless the cell is formatted as text.
    const labels = [
      "£100",
      "$5",
      "€7",
      "(12)",
      "1/2",
      "00123",
      "1e5",
      "TRUE",
      "false",
      "50%",
      "12:30",
      "Jan 5",
      "June 2024",
      "5-Mar",
      " 42",
    ];
    const host = install();
    const plan: WorkbookPlan = {
      title: "labels",
      sources: [],
      warnings: [],
      sheets: [
        {
          name: "Steps",
          notes: [],
          freezeHeader: false,
          tables: [
            {
              name: "Labels",
              columns: [
                { key: "label", header: "label" },
                { key: "n", header: "n", numFmt: "0" },
              ],
              rows: labels.map((l, i) => [l, i]),
              at: { row: 0, col: 0 },
            },
          ],
          charts: [],
        },
      ],
    };
    await renderWorkbookPlan(plan, { functionsRegistered: false });
    const s = host.workbook.sheet("Steps")!;
    expect(s.values(1, 0, labels.length, 1).map((r) => r[0])).toEqual(labels);
    expect(s.values(1, 1, labels.length, 1).map((r) => r[0])).toEqual(labels.map((_, i) => i));
  });

  test("blocks of non-ASCII text are cut by their UTF-8 size: no request is refused", async () => {
    const host = install();
    const rows = 40_000;
    const table: TablePlan = {
      name: "Labels",
      columns: [
        { key: "site", header: "site", numFmt: "@" },
        { key: "n", header: "n", numFmt: "0" },
      ],
      rows: [],
      columnar: {
        length: rows,
        data: [
          {
            kind: "text",
            codes: Array.from({ length: rows }, (_, i) => i % 2),
            texts: ["é€".repeat(100), "€".repeat(200)],
          },
          { kind: "number", values: Array.from({ length: rows }, (_, i) => i), empty: [] },
        ],
      },
      at: { row: 0, col: 0 },
    };
    const plan: WorkbookPlan = {
      title: "utf8",
      sources: [],
      warnings: [],
      sheets: [{ name: "Labels", notes: [], freezeHeader: false, tables: [table], charts: [] }],
    };
    // Blocks of up to 20,000 rows, so the byte budget (not the row cap) cuts them: counted in UTF-16
    // units rather than UTF-8 bytes, a block of these labels would be about twice 5 MB.
    const result = await renderWorkbookPlan(plan, { functionsRegistered: false, maxRowsPerRequest: 20_000 });
    expect(result.retries).toBe(0);
    expect(host.workbook.requests.every((r) => !r.refused && r.bytes < 5_000_000)).toBe(true);
    expect(host.workbook.sheet("Labels")!.valueAt(rows, 0)).toBe("€".repeat(200));
  });

  test("number formats: one 1×1 write per run of columns sharing a format, a column of formats where they differ", () => {
    const table: TablePlan = {
      name: "T",
      columns: [
        { key: "a", header: "a", numFmt: "0.0" },
        { key: "b", header: "b", numFmt: "0.0" },
        { key: "c", header: "c" },
        { key: "d", header: "d", numFmt: "@" },
      ],
      rows: [
        [1, 2, "plain", "x"],
        [3, 4, "£100", "y"],
        [5, 6, "also plain", "=z"],
      ],
      at: { row: 0, col: 0 },
    };
    const [block] = [...rowBlocks(table, false)];
    expect(formatRuns(block)).toEqual([
      { col: 0, cols: 2, formats: [["0.0"]] },
      { col: 2, cols: 1, formats: [["General"], ["@"], ["General"]] },
      { col: 3, cols: 1, formats: [["@"]] },
    ]);
  });

  test("error cells are written as formulas that Excel calculates to that very error", async () => {
    const host = install();
    const errors = ["#DIV/0!", "#NUM!", "#VALUE!", "#N/A"] as const;
    const plan: WorkbookPlan = {
      title: "errors",
      sources: [],
      warnings: [],
      sheets: [
        {
          name: "E",
          notes: [],
          freezeHeader: false,
          tables: [
            {
              name: "Errors",
              columns: [{ key: "e", header: "e" }],
              rows: errors.map((error) => [{ error }]),
              at: { row: 0, col: 0 },
            },
          ],
          charts: [],
        },
      ],
    };
    await renderWorkbookPlan(plan, { functionsRegistered: false });
    const s = host.workbook.sheet("E")!;
    expect(s.formulaAt(4, 0)).toBe("=NA()");
    expect(errors.map((_, i) => [s.valueAt(i + 1, 0), s.errors.has(`${i + 1},0`)])).toEqual(
      errors.map((e) => [e, true]),
    );
    expect(host.workbook.uncalculated).toEqual([]);
  });

  test("a block's bytes follow its formats: a column that turns mixed costs its whole column", () => {
    const rows = (n: number, text: (i: number) => string): TablePlan => ({
      name: "T",
      columns: [{ key: "t", header: "t" }],
      rows: Array.from({ length: n }, (_, i) => [text(i)]),
      at: { row: 0, col: 0 },
    });
    const uniform = [
      ...rowBlocks(
        rows(1000, () => "ab"),
        false,
      ),
    ][0].bytes;
    const mixed = [
      ...rowBlocks(
        rows(1000, (i) => (i === 999 ? "£1" : "ab")),
        false,
      ),
    ][0].bytes;
    // 1,000 formats "General"/"@" (~10 bytes each) more once the last row mixes the column.
    expect(mixed - uniform).toBeGreaterThan(9000);
    expect(mixed - uniform).toBeLessThan(12000);
  });

  test("existing sheets and tables are never overwritten; names get a suffix", async () => {
    const host = install();
    await renderWorkbookPlan(hostilePlan(), { functionsRegistered: true });
    const before = JSON.stringify([...host.workbook.sheet("Steps")!.cells]);
    const result = await renderWorkbookPlan(hostilePlan(), { functionsRegistered: true });
    expect(result.sheets).toEqual([{ planned: "Steps", written: "Steps (2)" }]);
    expect(result.tables).toEqual(["Steps_2", "Fit_2"]);
    expect(JSON.stringify([...host.workbook.sheet("Steps")!.cells])).toBe(before);
    expect(freeSheetName("A".repeat(31), new Set(["a".repeat(31)]))).toBe(`${"A".repeat(27)} (2)`);
  });

  test("hostile labels are stored as text, plan formulas as formulas", async () => {
    const host = install();
    await renderWorkbookPlan(hostilePlan(), { functionsRegistered: true });
    const s = host.workbook.sheet("Steps")!;
    HOSTILE.forEach((h, i) => {
      const cell = s.get(3 + i, 0)!;
      expect(cell.value).toBe(h);
      expect(cell.formula).toBeNull();
      expect(cell.format).toBe("@");
      expect(s.get(3 + i, 3)!.formula).toBe(`=B${i + 4}*2`);
    });
    expect(s.get(0, 0)).toEqual({ value: "=1+1 note", format: "@", formula: null });
    expect(s.get(13, 0)!.formula).toBe("=CAPLAB.DOE_FIT(B4:B9,C4:C9)");
    // The same fake without the text format would have made it a formula: the check can fail.
    expect(needsTextFormat("+cmd") && needsTextFormat("\rCR") && !needsTextFormat("abc")).toBe(true);
  });

  test("CAPLAB formulas only when the functions are registered, else their values", async () => {
    const host = install({ customFunctions: false });
    const result = await renderWorkbookPlan(hostilePlan(), { functionsRegistered: false });
    expect(result.addinFormulas).toBe(false);
    const s = host.workbook.sheet("Steps")!;
    expect(s.get(13, 0)).toEqual({ value: 1.5, format: "General", formula: null });
    expect(s.get(3, 3)!.formula).toBe("=B4*2"); // native formulas stay live
  });

  test("charts: native XYScatter, seriesBy Columns, every series, sampled to 1,000 points", async () => {
    const host = install();
    await renderWorkbookPlan(hostilePlan(), { functionsRegistered: true });
    const [chart] = host.workbook.sheet("Steps")!.charts;
    expect(chart.type).toBe("XYScatter");
    expect(chart.seriesBy).toBe("Columns");
    expect(chart.title).toBe("y vs x");
    expect(chart.series.map((s) => [s.name, s.chartType, s.x.length])).toEqual([
      ["measured", "XYScatter", 3],
      ["model", "XYScatterLinesNoMarkers", 1000],
    ]);
    expect(chart.series[0].y).toEqual([0, 2, 4]);
    expect(chart.series[1].x[999]).toBe(4999);
    expect(samplePoints([1, 2, 3, 4, 5], [1, 2, 3, 4, 5], 3)).toEqual({ x: [1, 3, 5], y: [1, 3, 5] });
  });

  test("Model charts: series of the Model table's rows refer to its cells (editing re-draws); curves to the hidden helper table", async () => {
    const host = install();
    const plan = buildLabPlan(
      ["subintervals.csv", "summary.csv"].map((f) => {
        // The two-protocol sample of a known model: fitted response curves and CPU lines to draw.
        const p = path.join(__dirname, "../lab/fixtures/lab-sample", f);
        return readLabText(fs.readFileSync(p, "utf8"), p);
      }),
    );
    await renderWorkbookPlan(plan, { functionsRegistered: true });
    const model = plan.sheets.find((x) => x.name === "Model")!;
    const table = model.tables.find((t) => t.name === "Model")!;
    const at = table.at!;
    const n = table.rows.length;
    const column = (key: string): string => {
      const c = columnLetter(at.col + columnIndex(table, key));
      return `Model!${c}${at.row + 2}:${c}${at.row + 1 + n}`;
    };
    const charts = host.workbook.sheet("Model")!.charts;
    const rt = charts.find((c) => c.title === "Response time vs throughput")!;
    const planned = model.charts.find((c) => c.id === "response-vs-throughput")!;
    expect(rt.series.map((x) => x.name)).toEqual(planned.series.map((x) => x.name));
    expect([rt.series[0].xRef, rt.series[0].yRef]).toEqual([column("x"), column("r")]);
    // The drawn points are the plan's (the cells hold what the plan computed; the plan lists them by x).
    const pairs = (xs: unknown[], ys: unknown[]): string[] => xs.map((x, k) => `${x},${ys[k]}`).sort();
    expect(pairs(rt.series[0].x, rt.series[0].y)).toEqual(pairs(planned.series[0].x, planned.series[0].y));
    // The fitted curve is not a result table's: its columns of the plan's hidden helper table,
    // right of the visible tables.
    const curve = rt.series[1];
    expect(curve.name).toMatch(/^fitted S\/\(1 − X\/X_max\)/);
    const helper = model.tables.find((t) => t.hidden)!;
    const cells = planned.series[1].cells!;
    expect(cells.table).toBe(helper.name);
    const hx = columnLetter(helper.at.col + columnIndex(helper, cells.x));
    expect(curve.xRef).toBe(`Model!${hx}${helper.at.row + 2}:${hx}${helper.at.row + 1 + planned.series[1].x.length}`);
    expect(helper.at.col).toBeGreaterThan(at.col + table.columns.length);
    expect(curve.x).toEqual(planned.series[1].x);
    // Steps from 1,000 to ~40,000 IOPS span decades: a log x axis, in the plan and in Excel.
    expect(planned.xLog).toBe(true);
    expect(rt.xLogBase).toBe(10);
    const cpu = charts.find((c) => c.title === "CPU vs IOPS")!;
    expect([cpu.series[0].xRef, cpu.series[0].yRef]).toEqual([column("x"), column("busy")]);
  });

  test("a chart series of only some of its source rows is drawn from a copy (a live range would show others)", async () => {
    const host = install();
    const plan = hostilePlan();
    const sheet = plan.sheets[0];
    // Table Steps, x = column "x" (1..6), y = column "y" (0, 2, …, 10); the series has 3 of the 6 rows.
    sheet.charts[0].source = { table: "Steps", xColumn: "x", yColumns: ["y"] };
    await renderWorkbookPlan(plan, { functionsRegistered: true });
    const [chart] = host.workbook.sheet("Steps")!.charts;
    expect(chart.series[0].xRef).not.toBe("Steps!B4:B9");
    expect(chart.series[0].x).toEqual([1, 2, 3]);
    // With every row in the series, the same chart refers to the table.
    const host2 = install();
    sheet.charts[0].series[0] = { name: "measured", x: [1, 2, 3, 4, 5, 6], y: [0, 2, 4, 6, 8, 10], style: "points" };
    await renderWorkbookPlan(plan, { functionsRegistered: true });
    const [live] = host2.workbook.sheet("Steps")!.charts;
    expect([live.series[0].xRef, live.series[0].yRef]).toEqual(["Steps!B4:B9", "Steps!C4:C9"]);
    expect(live.series[1].xRef).not.toMatch(/^Steps!B4/);
  });

  test("the fake's compact cell store: Map-like view, live cells, the last row of a sheet", () => {
    const { workbook } = createFakeHost();
    workbook.sheets.push(new FakeSheet("S"));
    const s = workbook.sheet("S")!;
    s.cell(1_048_575, 16_383).value = 7;
    s.cells.set("0,1", { value: "=x", format: "@", formula: null });
    const c = s.cell(0, 0);
    c.value = true;
    c.formula = "=1=1";
    expect(s.get(1_048_575, 16_383)).toEqual({ value: 7, format: "General", formula: null });
    expect([...s.cells.keys()]).toEqual(["0,0", "0,1", "1048575,16383"]);
    expect(s.cells.size).toBe(3);
    expect(s.cells.get("0,0")).toEqual({ value: true, format: "General", formula: "=1=1" });
    expect(s.get(0, 1)).toEqual({ value: "=x", format: "@", formula: null });
    expect(s.cells.delete("0,1")).toBe(true);
    expect(s.get(0, 1)).toBeUndefined();
    expect(s.values(0, 0, 1, 3)).toEqual([[true, "", ""]]);
    s.cell(5, 5).value = 1.5;
    s.cell(5, 5).value = "text";
    expect(s.get(5, 5)!.value).toBe("text");
    s.cell(5, 5).value = 2;
    expect(s.get(5, 5)!.value).toBe(2);
  });

  test("an Excel without ExcelApi 1.7 gets a message naming what is missing", async () => {
    install({ excelApiMinor: 4 });
    await expect(renderWorkbookPlan(hostilePlan(), { functionsRegistered: false })).rejects.toThrow(
      /needs ExcelApi 1\.7.*supports ExcelApi 1\.4/,
    );
  });

  test("cancel stops between requests and names what was written", async () => {
    install();
    const controller = new AbortController();
    const plan = buildLabPlan(
      ["subintervals.csv", "summary.csv"].map((f) => {
        const p = path.join(__dirname, "../lab/fixtures/iogen-real", f);
        return readLabText(fs.readFileSync(p, "utf8"), p);
      }),
    );
    const promise = renderWorkbookPlan(plan, {
      functionsRegistered: true,
      onProgress: (p) => {
        if (p.sheet === 3) controller.abort();
      },
      signal: controller.signal,
    });
    await expect(promise).rejects.toThrow(RenderCancelled);
    await expect(promise).rejects.toThrow(/sheets already written: Summary, Steps$/);
  });

  test("the real 2x2 iogen result: every sheet, table and chart of the plan", async () => {
    const host = install();
    const plan = buildLabPlan(
      ["subintervals.csv", "summary.csv"].map((f) => {
        const p = path.join(__dirname, "../lab/fixtures/iogen-real", f);
        return readLabText(fs.readFileSync(p, "utf8"), p);
      }),
    );
    const result = await renderWorkbookPlan(plan, { functionsRegistered: true });
    expect(host.workbook.sheets.map((s) => s.name)).toEqual(plan.sheets.map((s) => s.name));
    // Tables whose rows are one CAPLAB array formula (DOE_FIT) are that formula, spilling, not Excel tables.
    expect(result.tables).toEqual(
      plan.sheets.flatMap((s) => s.tables.filter((t) => !t.arrayFormula).map((t) => t.name)),
    );
    const fit = plan.sheets.find((s) => s.name === "Fit")!;
    const spilled = fit.tables.filter((t) => t.arrayFormula);
    expect(spilled.length).toBeGreaterThan(0);
    for (const t of spilled)
      expect(host.workbook.sheet("Fit")!.get(t.at!.row, t.at!.col)!.formula).toBe(`=${t.arrayFormula}`);
    // Without the functions, the same tables are written as values in Excel tables.
    const plain = await renderWorkbookPlan(plan, { functionsRegistered: false });
    expect(plain.tables.length).toBe(plan.sheets.reduce((a, s) => a + s.tables.length, 0));
    expect(result.charts).toBe(plan.sheets.reduce((a, s) => a + s.charts.length, 0));
    const steps = plan.sheets.find((s) => s.name === "Steps")!.tables[0];
    const ws = host.workbook.sheet("Steps")!;
    const iops = steps.columns.findIndex((c) => c.header === "IOPS");
    expect(ws.get(steps.at!.row + 1, iops)!.value).toBe(steps.rows[0][iops]);
  });
});
