/**
 * The analysis cells a case can refer to for a CPU cost per IO: the Model sheet of a real iogen
 * import, laid out as the grid renderers lay it out, read back as values.
 */
import * as fs from "fs";
import * as path from "path";
import { readLabText } from "../../src/import/detect";
import { buildLabPlan } from "../../src/analysis/lab-plan";
import { cellResult, columnLetter, SheetPlan, tableRow, tableRowCount } from "../../src/analysis/plan";
import { CPU_COST_HEADER, cpuCostChoices, ReadSheet } from "../../src/excel/case-sources";
import { planCells } from "./sheet-eval";

const ROOT = path.join(__dirname, "..", "..");
const FILES = ["subintervals.csv", "summary.csv"].map((f) => path.join(ROOT, "tests/analysis/fixtures/iogen-real", f));

/** A plan sheet as Excel's used range would read it: values only (formulas' computed results). */
function asRead(sheet: SheetPlan, name = sheet.name): ReadSheet {
  const cells = planCells(sheet);
  let rows = 0;
  let cols = 0;
  for (const key of cells.keys()) {
    const [r, c] = key.split(",").map(Number);
    rows = Math.max(rows, r + 1);
    cols = Math.max(cols, c + 1);
  }
  const values = Array.from({ length: rows }, () => new Array<unknown>(cols).fill(""));
  for (const [key, v] of cells) {
    const [r, c] = key.split(",").map(Number);
    const x = cellResult(v);
    values[r][c] = x === null || typeof x === "object" ? "" : x;
  }
  return { name, row: 0, col: 0, values };
}

describe("cpuCostChoices", () => {
  const plan = buildLabPlan(FILES.map((f) => readLabText(fs.readFileSync(f, "utf8"), path.basename(f))));
  const model = plan.sheets.find((s) => s.name === "Model") as SheetPlan;
  const steps = plan.sheets.find((s) => s.name === "Steps") as SheetPlan;
  const table = model.tables.find((t) => t.name === "Model")!;
  const d = table.columns.findIndex((c) => c.key === "d");

  it("offers the Model table's D cell of each step, with its value, step name and protocol level", () => {
    expect(table.columns[d].header).toBe(CPU_COST_HEADER); // the header the pane looks for
    const choices = cpuCostChoices(plan.sheets.map((s) => asRead(s)));
    const n = tableRowCount(table);
    expect(choices.length).toBe(n);
    for (let i = 0; i < n; i++) {
      const row = tableRow(table, i);
      expect(choices[i].ref).toBe(`'Model'!$${columnLetter(table.at!.col + d)}$${table.at!.row + 2 + i}`);
      expect(choices[i].ms).toBe(cellResult(row[d]));
    }
    // The first step of the fixture: iogen step 1, named r100-500, labelled protocol=local.
    expect(choices[0].label).toBe("Model: step 1 (r100-500, protocol local)");
    expect(steps.tables[0].columns.some((c) => c.header === "protocol")).toBe(true);
  });

  it("follows a second import's sheets (Model (2) with Steps (2)), quoting the name", () => {
    const choices = cpuCostChoices([asRead(model, "Model (2)"), asRead(steps, "Steps (2)")]);
    expect(choices[0].ref).toMatch(/^'Model \(2\)'!\$[A-Z]+\$\d+$/);
    expect(choices[0].label).toBe("Model (2): step 1 (r100-500, protocol local)");
  });

  it("offers nothing without a Model sheet, and skips steps without a positive D", () => {
    expect(cpuCostChoices([asRead(steps)])).toEqual([]);
    const read = asRead(model);
    const header = read.values.findIndex((line) => line.includes(CPU_COST_HEADER));
    const col = read.values[header].indexOf(CPU_COST_HEADER);
    read.values[header + 1][col] = "";
    expect(cpuCostChoices([read]).length).toBe(tableRowCount(table) - 1);
  });
});
