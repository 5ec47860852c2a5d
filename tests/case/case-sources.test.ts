/**
 * The analysis cells a case can refer to for a CPU cost per IO: the Model sheet of a real iogen
 * import, laid out as the grid renderers lay it out, read back as values.
 */
import * as fs from "fs";
import * as path from "path";
import { readLabText } from "../../src/import/detect";
import { buildLabPlan } from "../../src/analysis/lab-plan";
import { cellResult, columnLetter, SheetPlan, tableRow, tableRowCount } from "../../src/analysis/plan";
import { CPU_COST_HEADER } from "../../src/analysis/lab-model";
import { cpuCostChoices, readCellValues, ReadSheet } from "../../src/excel/case-sources";
import { createFakeHost, FakeSheet, installFakeHost } from "../excel/fake-excel";
import { extentOf, planCells } from "./sheet-eval";

const ROOT = path.join(__dirname, "..", "..");
const FILES = ["subintervals.csv", "summary.csv"].map((f) => path.join(ROOT, "tests/analysis/fixtures/iogen-real", f));

/** A plan sheet as Excel's used range would read it: values only (formulas' computed results). */
function asRead(sheet: SheetPlan, name = sheet.name): ReadSheet {
  const cells = planCells(sheet);
  const { rows, cols } = extentOf(cells);
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

  it("offers the mean over each protocol level's steps, then the Model table's D cell of each step", () => {
    expect(table.columns[d].header).toBe(CPU_COST_HEADER); // the header the pane looks for
    const choices = cpuCostChoices(plan.sheets.map((s) => asRead(s)));
    const n = tableRowCount(table);
    const cells = Array.from(
      { length: n },
      (_, i) => `'Model'!$${columnLetter(table.at!.col + d)}$${table.at!.row + 2 + i}`,
    );
    const values = Array.from({ length: n }, (_, i) => cellResult(tableRow(table, i)[d]) as number);
    // Every step of the fixture is labelled protocol=local: one level, all its steps.
    expect(choices[0]).toEqual({
      refs: cells,
      ms: values.reduce((a, b) => a + b, 0) / n,
      label: `Model: protocol local, mean of ${n} steps`,
    });
    expect(choices.slice(1).map((c) => c.refs)).toEqual(cells.map((c) => [c]));
    expect(choices.slice(1).map((c) => c.ms)).toEqual(values);
    // The first step of the fixture: iogen step 1, named r100-500, labelled protocol=local.
    expect(choices[1].label).toBe("Model: step 1 (r100-500, protocol local)");
    expect(steps.tables[0].columns.some((c) => c.header === "protocol")).toBe(true);
  });

  it("gives one mean per protocol level with two or more steps (NFS and FC; a lone iSCSI step only by itself)", () => {
    const model: ReadSheet = {
      name: "Model",
      row: 4,
      col: 0,
      values: [
        ["source", "step", CPU_COST_HEADER],
        ["a.csv", "1", 0.08],
        ["a.csv", "2", 0.09],
        ["a.csv", "3", 0.04],
        ["a.csv", "4", 0.05],
        ["a.csv", "5", 0.06],
      ],
    };
    const stepsRead: ReadSheet = {
      name: "Steps",
      row: 0,
      col: 0,
      values: [
        ["source", "step", "step name", "category", "protocol"],
        ["a.csv", "1", "nfs-lo", "overall", "NFS"],
        ["a.csv", "1", "nfs-lo", "read", "NFS"],
        ["a.csv", "2", "nfs-hi", "overall", "NFS"],
        ["a.csv", "3", "fc-lo", "overall", "FC"],
        ["a.csv", "4", "fc-hi", "overall", "FC"],
        ["a.csv", "5", "iscsi", "overall", "iSCSI"],
      ],
    };
    const choices = cpuCostChoices([stepsRead, model]);
    expect(choices.slice(0, 2)).toEqual([
      { refs: ["'Model'!$C$6", "'Model'!$C$7"], ms: (0.08 + 0.09) / 2, label: "Model: protocol NFS, mean of 2 steps" },
      { refs: ["'Model'!$C$8", "'Model'!$C$9"], ms: (0.04 + 0.05) / 2, label: "Model: protocol FC, mean of 2 steps" },
    ]);
    expect(choices.slice(2).map((c) => c.label)).toEqual([
      "Model: step 1 (nfs-lo, protocol NFS)",
      "Model: step 2 (nfs-hi, protocol NFS)",
      "Model: step 3 (fc-lo, protocol FC)",
      "Model: step 4 (fc-hi, protocol FC)",
      "Model: step 5 (iscsi, protocol iSCSI)",
    ]);
  });

  it("follows a second import's sheets (Model (2) with Steps (2)), quoting the name", () => {
    const choices = cpuCostChoices([asRead(model, "Model (2)"), asRead(steps, "Steps (2)")]);
    expect(choices[1].refs[0]).toMatch(/^'Model \(2\)'!\$[A-Z]+\$\d+$/);
    expect(choices[1].label).toBe("Model (2): step 1 (r100-500, protocol local)");
  });

  it("offers nothing without a Model sheet, and skips steps without a positive D", () => {
    expect(cpuCostChoices([asRead(steps)])).toEqual([]);
    const read = asRead(model);
    const header = read.values.findIndex((line) => line.includes(CPU_COST_HEADER));
    const col = read.values[header].indexOf(CPU_COST_HEADER);
    read.values[header + 1][col] = "";
    // n − 1 steps (no Steps sheet read: no protocol levels).
    expect(cpuCostChoices([read]).length).toBe(tableRowCount(table) - 1);
  });
});

describe("readCellValues", () => {
  function workbook(): void {
    const host = createFakeHost();
    installFakeHost(globalThis as unknown as Record<string, unknown>, host);
    const model = new FakeSheet("Bob's Model");
    model.cell(5, 7).value = 0.0039;
    model.cell(1, 27).value = 2;
    host.workbook.sheets.push(model);
  }

  it("reads the cells in order, from a quoted sheet name", async () => {
    workbook();
    expect(await readCellValues(["'Bob''s Model'!$H$6", "'Bob''s Model'!AB2", "'Bob''s Model'!$A$1"])).toEqual([
      0.0039,
      2,
      "",
    ]);
  });

  it("names the reference whose sheet is not in the workbook (deleted or renamed)", async () => {
    workbook();
    await expect(readCellValues(["'Bob''s Model'!$H$6", "'Model (2)'!$H$6"])).rejects.toThrow(
      `'Model (2)'!$H$6: the sheet "Model (2)" is not in the workbook (deleted or renamed?)`,
    );
    await expect(readCellValues(["'Bob''s Model'!$H$6:$H$7"])).rejects.toThrow(
      "'Bob''s Model'!$H$6:$H$7: not a single-cell reference",
    );
  });
});
