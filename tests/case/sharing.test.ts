/**
 * "Prepare for sharing" and "export a values-only workbook" as pure functions over sheets as
 * Office.js reads them (`Range.formulas` / `Range.values`): the case sheets of the three examples
 * as Excel holds them with the add-in (`CAPLAB.*` formulas in place), and hand-made sheets for
 * the edge cases (a stale chained value, spilled results, text that would read as a formula,
 * errors, functions the evaluator does not know, files saved without the add-in).
 */
import "./publish-functions";
import ExcelJS from "exceljs";
import * as fs from "fs";
import * as path from "path";
import JSZip from "jszip";
import { casePlanFromJson } from "../../src/case/case-plan";
import {
  applyFreeze,
  hasCaplabFormula,
  nativeNpvEquivalent,
  planFreeze,
  SheetSnapshot,
} from "../../src/sharing/freeze";
import { FormulaEvaluator } from "../../src/sharing/evaluate";
import { GLOBAL_NAME } from "../../src/sharing/functions";
import { toBase64, valuesOnlyWorkbook } from "../../src/sharing/export";
import { excelSnapshot, parseA1 } from "./sheet-eval";

const EXAMPLES = path.join(__dirname, "..", "..", "examples");
const FILES = fs.readdirSync(EXAMPLES).filter((f) => f.endsWith(".json"));

function deepFreeze<T>(x: T): T {
  if (x && typeof x === "object") {
    Object.values(x).forEach(deepFreeze);
    Object.freeze(x);
  }
  return x;
}

function caplabCount(s: SheetSnapshot): number {
  return s.formulas.flat().filter(hasCaplabFormula).length;
}

function sheet(formulas: unknown[][], values?: unknown[][], name = "S"): SheetSnapshot {
  return { name, row: 0, col: 0, formulas, values: values ?? formulas.map((r) => r.map(() => "")) };
}

describe.each(FILES)("the case sheet of %s", (file) => {
  const built = casePlanFromJson(JSON.parse(fs.readFileSync(path.join(EXAMPLES, file), "utf8")));
  const original = deepFreeze(excelSnapshot(built.plan.sheets[0], built.layout.addinFormulas));
  const before = JSON.stringify(original);

  it("freezes every CAPLAB formula to the value Excel shows, computed by our functions", () => {
    expect(caplabCount(original)).toBe(built.layout.addinFormulas.length);
    expect(caplabCount(original)).toBeGreaterThanOrEqual(2);
    const frozen = planFreeze([original]);
    expect(frozen.map((c) => c.address).sort()).toEqual(built.layout.addinFormulas.map((a) => a.address).sort());
    for (const c of frozen) {
      const { row, col } = parseA1(c.address);
      expect(c.replacement.kind).toBe("values");
      expect(c.value).toBe(original.values[row][col]);
    }
    const copy = applyFreeze(original, frozen);
    expect(caplabCount(copy)).toBe(0);
    expect(copy.values).toEqual(original.values);
    expect(JSON.stringify(original)).toBe(before);
  });

  it("keeps NPV_IT live as a native formula when asked, with the same value", () => {
    const frozen = planFreeze([original], undefined, { nativeEquivalents: true });
    const npvCells = frozen.filter((c) => /NPV_IT/.test(c.formula));
    expect(npvCells.length).toBe(built.input.options.length);
    const copy = applyFreeze(original, frozen);
    const evaluator = new FormulaEvaluator((_s, range) => {
      const [a, b] = range.split(":").map(parseA1);
      const end = b ?? a;
      const out = [];
      for (let r = a.row; r <= end.row; r++) {
        const line = [];
        for (let c = a.col; c <= end.col; c++) line.push(copy.values[r][c] as number);
        out.push(line);
      }
      return out;
    });
    for (const c of npvCells) {
      expect(c.replacement.kind).toBe("formula");
      const formula = (c.replacement as { formula: string }).formula;
      expect(formula).toMatch(/^=[A-Z]+\d+\+NPV\(\$A\$\d+,[A-Z]+\d+:[A-Z]+\d+\)$/);
      const { row, col } = parseA1(c.address);
      expect(
        Math.abs((evaluator.evaluate(formula) as number) - (original.values[row][col] as number)),
      ).toBeLessThanOrEqual(1e-9);
    }
    expect(caplabCount(copy)).toBe(0);
  });

  it("exports a values-only workbook: no _xldudf_, no web-extension part, no CAPLAB formula, same values", async () => {
    const copy = applyFreeze(original, planFreeze([original], undefined, { nativeEquivalents: true }));
    const bytes = await valuesOnlyWorkbook([{ ...copy, name: "Business case (shared)" }], built.plan.title);
    const zip = await JSZip.loadAsync(bytes);
    const names = Object.keys(zip.files);
    expect(names.filter((n) => /webextension|taskpane/i.test(n))).toEqual([]);
    for (const name of names.filter((n) => /\.(xml|rels)$/.test(n))) {
      const xml = await (zip.file(name) as JSZip.JSZipObject).async("string");
      expect(xml).not.toMatch(/_xldudf_|CAPLAB\.|webextension/i);
    }
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
    const ws = wb.getWorksheet("Business case (shared)") as ExcelJS.Worksheet;
    copy.values.forEach((line, r) =>
      line.forEach((v, c) => {
        const cell = ws.getCell(r + 1, c + 1);
        const got = cell.type === ExcelJS.ValueType.Formula ? cell.result : cell.value;
        if (typeof v === "number")
          expect(Math.abs((got as number) - v)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(v)));
        else if (v !== "") expect(got).toBe(v);
      }),
    );
    expect(toBase64(bytes)).toBe(Buffer.from(bytes).toString("base64"));
  });
});

describe("planFreeze", () => {
  it("evaluates chained CAPLAB cells itself instead of trusting a stale value", () => {
    // A1: staff from MMC_STAFF, B1: response at that staff. Excel still shows #BUSY!/0 for A1.
    const s = deepFreeze(
      sheet([["=CAPLAB.MMC_STAFF(30,0.26,5.4)", "=CAPLAB.MMC_RESPONSE(A1,30,0.26)", "=A1*2"]], [["#BUSY!", 0, 0]]),
    );
    const frozen = planFreeze([s]);
    expect(frozen.map((c) => c.value)).toEqual([10, 34.99083250432512]);
    expect(applyFreeze(s, frozen).formulas[0][2]).toBe("=A1*2"); // native formulas stay
  });

  it("takes an error a function places in a spilled cell (an aliased DOE_FIT term) from Excel, never as data", () => {
    // A 2×2 design with a third factor equal to the first: c is aliased with a, so DOE_FIT gives
    // #N/A for its estimate (as R's lm gives NA).
    const factors = '{"a","b","c";-1,-1,-1;1,-1,1;-1,1,-1;1,1,1}';
    const s = sheet([[`=CAPLAB.DOE_FIT(${factors},{"y";1;2;4;7},1)`]]);
    const [cell] = planFreeze([s]);
    const r = cell.replacement;
    expect(r).toMatchObject({ kind: "copy", reason: "the result holds the error #N/A" });
    expect(cell.value).toBe("Term"); // the spill's top-left cell
  });

  it("writes a spilled result as a block of values", () => {
    const frozen = planFreeze([sheet([["=CAPLAB.MMC_METRICS(4,30,0.08)"]])]);
    const r = frozen[0].replacement;
    expect(r.kind).toBe("values");
    const block = (r as { values: unknown[][] }).values;
    expect(block.length).toBe(6);
    expect(block[3]).toEqual(["Mean response", 35.38205980066445]);
  });

  it("reads formulas saved without the add-in (_xldudf_) and references to other sheets", () => {
    const model = sheet([[0.1], [100000]], undefined, "My inputs");
    model.values = [[0.1], [100000]];
    const s = sheet([["=_xldudf_CAPLAB_NPV_IT('My inputs'!A1,{1,1,1}*'My inputs'!A2)"]]);
    const [c] = planFreeze([s, model], ["S"]);
    expect(c.sheet).toBe("S");
    expect(Math.round((c.value as number) * 100) / 100).toBe(273553.72);
  });

  it("copies Excel's value when the result is an error, text that reads as a formula, or not computable here", () => {
    const s = sheet(
      [
        ["=CAPLAB.MMC_RESPONSE(4,30,5)", "=VLOOKUP(1,A1:A2,1)+CAPLAB.MMC_RESPONSE(4,30,0.08)"],
        ["x", "=CAPLAB.MMC_RESPONSE(4,30,0.08)"],
      ],
      [
        ["#NUM!", 36],
        ["x", 35.38205980066445],
      ],
    );
    s.valueTypes = [
      ["Error", "Double"],
      ["String", "Double"],
    ];
    const frozen = planFreeze([s]);
    expect(frozen.map((c) => c.replacement.kind)).toEqual(["copy", "copy", "values"]);
    expect((frozen[0].replacement as { reason: string }).reason).toBe("the value is the error #NUM!");
    expect((frozen[1].replacement as { reason: string }).reason).toMatch(/VLOOKUP/);
    const copy = applyFreeze(s, frozen);
    expect(copy.formulas).toEqual([
      ["#NUM!", 36],
      ["x", 35.38205980066445],
    ]);
  });

  it("never turns a text result into a formula: a DOE_FIT term named '=cmd' is copied, not written", () => {
    const s = sheet([
      ["=cmd", "y", "=CAPLAB.DOE_FIT(A1:A5,B1:B5,1)"],
      [-1, 1, ""],
      [1, 3, ""],
      [-1, 1.5, ""],
      [1, 3.5, ""],
    ]);
    s.values = s.formulas.map((r) => [...r]);
    s.values[0][2] = "Term"; // what Excel shows in the formula's cell (the spilled table's corner)
    const [c] = planFreeze([s]);
    expect(c.replacement.kind).toBe("copy");
    expect((c.replacement as { reason: string }).reason).toBe("a text value that would read as a formula");
  });

  it("only freezes the sheets asked for, and finds CAPLAB only in formulas", () => {
    expect(hasCaplabFormula("=CAPLAB.NPV_IT(0.1,A1:A3)")).toBe(true);
    expect(hasCaplabFormula("=caplab.npv_it(0.1,A1:A3)")).toBe(true);
    expect(hasCaplabFormula("=_xldudf_CAPLAB_NPV_IT(0.1,A1:A3)")).toBe(true);
    expect(hasCaplabFormula("CAPLAB.NPV_IT is a function")).toBe(false);
    expect(hasCaplabFormula('="see CAPLAB.NPV_IT"')).toBe(true); // conservative: freezing text is harmless
    expect(hasCaplabFormula("=MYCAPLAB.X(1)")).toBe(false);
    const a = sheet([["=CAPLAB.MMC_RESPONSE(4,30,0.08)"]], undefined, "A");
    const b = sheet([["=CAPLAB.MMC_RESPONSE(4,30,0.08)"]], undefined, "B");
    expect(planFreeze([a, b], ["b"]).map((c) => c.sheet)).toEqual(["B"]);
  });
});

describe("the worksheet functions of the runtime", () => {
  it("are required: without the functions bundle the evaluator says what is missing", () => {
    const g = globalThis as Record<string, unknown>;
    const saved = g[GLOBAL_NAME];
    delete g[GLOBAL_NAME];
    try {
      expect(() => planFreeze([sheet([["=CAPLAB.MMC_RESPONSE(4,30,0.08)"]])])).toThrow(
        "the Capacity Lab worksheet functions are not loaded in this runtime (functions.js)",
      );
    } finally {
      g[GLOBAL_NAME] = saved;
    }
  });
});

describe("nativeNpvEquivalent", () => {
  it.each([
    ["=CAPLAB.NPV_IT($A$7,B30:B32)", "=B30+NPV($A$7,B31:B32)"],
    ["=CAPLAB.NPV_IT(0.1, C2:F2)", "=C2+NPV(0.1,D2:F2)"],
    ["=CAPLAB.NPV_IT(Z1/100,'My sheet'!$B$3:$B$9)", "='My sheet'!$B$3+NPV(Z1/100,'My sheet'!$B$4:$B$9)"],
    ["=CAPLAB.NPV_IT(0.1,B3:B3)", undefined],
    ["=CAPLAB.NPV_IT(0.1,B3:C4)", undefined],
    ["=CAPLAB.NPV_IT(0.1,100000,2)", undefined],
    ["=CAPLAB.NPV_IT(0.1,B3:B5)*2", undefined],
    ["=CAPLAB.MMC_STAFF(1,2,3)", undefined],
  ])("%s → %s", (formula, native) => {
    expect(nativeNpvEquivalent(formula)).toBe(native);
  });
});

describe("valuesOnlyWorkbook", () => {
  it("refuses a sheet that still has a CAPLAB formula", async () => {
    await expect(
      valuesOnlyWorkbook([{ ...sheet([["=CAPLAB.MMC_RESPONSE(4,30,0.08)"]]), name: "X" }], "t"),
    ).rejects.toThrow("X!A1: still has a Capacity Lab formula (=CAPLAB.MMC_RESPONSE(4,30,0.08)); freeze it first");
  });

  it("writes text as text (even text that begins with '='), errors as errors, number formats and widths", async () => {
    const bytes = await valuesOnlyWorkbook(
      [
        {
          name: "S",
          row: 1,
          col: 1,
          // Office.js reports a text cell's text as its "formula": B2 is text, E2 a real formula.
          formulas: [['=HYPERLINK("http://x","y")', "#N/A", 0.25, "=D2*2"]],
          values: [['=HYPERLINK("http://x","y")', "#N/A", 0.25, 0.5]],
          valueTypes: [["String", "Error", "Double", "Double"]],
          numberFormat: [["@", "General", "0.0%", "0.0%"]],
          columnWidths: [5, 30],
        },
      ],
      "t",
    );
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
    const ws = wb.getWorksheet("S") as ExcelJS.Worksheet;
    expect(ws.getCell("B2").value).toBe('=HYPERLINK("http://x","y")');
    expect(ws.getCell("B2").type).toBe(ExcelJS.ValueType.String);
    expect(ws.getCell("C2").value).toEqual({ error: "#N/A" });
    expect(ws.getCell("D2").numFmt).toBe("0.0%");
    expect(ws.getCell("E2").formula).toBe("D2*2");
    expect(ws.getCell("E2").result).toBe(0.5);
    expect(ws.getColumn(2).width).toBe(30);
  });

  it("carries a chart over the exported cells as a native chart, and leaves out one that draws a sheet not exported", async () => {
    const series = (xRef: string, yRef: string) => ({
      name: "Keep",
      xRef,
      yRef,
      x: [0, 1],
      y: [100, 190.9],
      lines: true,
    });
    const bytes = await valuesOnlyWorkbook(
      [
        {
          name: "Case (shared)",
          row: 0,
          col: 0,
          formulas: [
            [0, 100],
            [1, 190.9],
          ],
          values: [
            [0, 100],
            [1, 190.9],
          ],
          numberFormat: [
            ["0", '"£"#,##0'],
            ["0", '"£"#,##0'],
          ],
          charts: [
            {
              title: "Cumulative discounted cost",
              xTitle: "Year",
              yTitle: "£",
              series: [series("='Case (shared)'!$A$1:$A$2", "='Case (shared)'!$B$1:$B$2")],
            },
            { title: "Elsewhere", xTitle: "", yTitle: "", series: [series("=Model!$A$1:$A$2", "=Model!$B$1:$B$2")] },
          ],
        },
      ],
      "t",
    );
    const zip = await JSZip.loadAsync(bytes);
    const charts = Object.keys(zip.files).filter((n) => /^xl\/charts\/chart\d+\.xml$/.test(n));
    expect(charts).toEqual(["xl/charts/chart1.xml"]);
    const chart = (await zip.file(charts[0])!.async("string")).replace(/&apos;/g, "'").replace(/&quot;/g, '"');
    expect([...chart.matchAll(/<c:f>([^<]*)<\/c:f>/g)].map((m) => m[1])).toEqual([
      "'Case (shared)'!$A$1:$A$2",
      "'Case (shared)'!$B$1:$B$2",
    ]);
    expect(chart).toContain('<c:formatCode>"£"#,##0</c:formatCode>');
    expect(chart).toContain("<c:v>190.9</c:v>");
    const sheetXml = await zip.file("xl/worksheets/sheet1.xml")!.async("string");
    expect(sheetXml).toMatch(/<drawing r:id="rId\d+"\/>/);
  });

  it("leaves a blank chart value out of the chart's cache (no point at 0), and takes the y format from the y range's sheet", async () => {
    const bytes = await valuesOnlyWorkbook(
      [
        {
          name: "Case (shared)",
          row: 0,
          col: 0,
          formulas: [[1], [2], [3], [4]],
          values: [[1], [2], [3], [4]],
          numberFormat: [['"£"#,##0'], ['"£"#,##0'], ['"£"#,##0'], ['"£"#,##0']],
          charts: [
            {
              title: "Utilization",
              xTitle: "Step",
              yTitle: "",
              series: [
                {
                  name: "Busy",
                  xRef: "='Case (shared)'!$A$1:$A$4",
                  yRef: "='Model (shared)'!$B$2:$B$5",
                  x: [1, 2, 3, 4],
                  y: [0.5, "", null, "0.25"],
                  lines: false,
                },
              ],
            },
          ],
        },
        {
          name: "Model (shared)",
          row: 1,
          col: 1,
          formulas: [[0.5], [""], [""], [0.25]],
          values: [[0.5], [""], [""], [0.25]],
          numberFormat: [["0.0%"], ["General"], ["General"], ["0.0%"]],
        },
      ],
      "t",
    );
    const zip = await JSZip.loadAsync(bytes);
    const chart = (await zip.file("xl/charts/chart1.xml")!.async("string")).replace(/&quot;/g, '"');
    const yVal = /<c:yVal>(.*)<\/c:yVal>/s.exec(chart)![1];
    expect(yVal).toContain("<c:formatCode>0.0%</c:formatCode>");
    expect(yVal).toContain('<c:ptCount val="4"/>');
    expect([...yVal.matchAll(/<c:pt idx="(\d+)"><c:v>([^<]*)<\/c:v><\/c:pt>/g)].map((m) => [m[1], m[2]])).toEqual([
      ["0", "0.5"],
      ["3", "0.25"],
    ]);
  });

  it("writes the value of a formula that refers to a sheet left out of the new workbook (it would be #REF! there)", async () => {
    const bytes = await valuesOnlyWorkbook(
      [
        {
          name: "Case (shared)",
          row: 0,
          col: 0,
          formulas: [["='Model'!$H$6/1000", "=Steps!B5", "='Other (shared)'!A1*2", "=A1*2"]],
          values: [[0.0039, 7, 4, 0.0078]],
        },
        { name: "Other (shared)", row: 0, col: 0, formulas: [[2]], values: [[2]] },
      ],
      "t",
    );
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
    const ws = wb.getWorksheet("Case (shared)") as ExcelJS.Worksheet;
    expect(ws.getCell("A1").value).toBe(0.0039);
    expect(ws.getCell("B1").value).toBe(7);
    expect(ws.getCell("C1").formula).toBe("'Other (shared)'!A1*2");
    expect(ws.getCell("D1").formula).toBe("A1*2");
  });

  it("writes the value of a formula over whole columns, trimmed ranges, tables or names the new workbook lacks", async () => {
    const bytes = await valuesOnlyWorkbook(
      [
        {
          name: "Case (shared)",
          row: 0,
          col: 0,
          formulas: [
            ["=SUM(Model!A:A)", "=SUM(Model!2:2)", "=SUM(Model!A1:A)", "=Steps[Y]*2", "=MyName+1"],
            ["=SUM('Other (shared)'!A:A)", "=SUM('Other (shared)'!A1:A)", "=SUM(Other!B:B)", "=A1+1", "=Model!B2"],
          ],
          values: [
            [10, 11, 12, 13, 14],
            [2, 2, 15, 11, 16],
          ],
        },
        { name: "Other (shared)", row: 0, col: 0, formulas: [[2]], values: [[2]] },
      ],
      "t",
    );
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
    const ws = wb.getWorksheet("Case (shared)") as ExcelJS.Worksheet;
    const cells = ["A1", "B1", "C1", "D1", "E1", "A2", "B2", "C2", "D2", "E2"].map((a) => {
      const c = ws.getCell(a);
      return c.type === ExcelJS.ValueType.Formula ? `=${c.formula}` : c.value;
    });
    expect(cells).toEqual([
      10,
      11,
      12,
      13,
      14,
      "=SUM('Other (shared)'!A:A)",
      "=SUM('Other (shared)'!A1:A)",
      15,
      "=A1+1",
      16,
    ]);
  });
});
