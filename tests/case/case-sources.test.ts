/**
 * The analysis cells a case can refer to for a CPU cost per IO: the fitted marginal cost (table
 * CpuFit on the Model sheet) of a lab import, laid out as the grid renderers lay it out and read
 * back as Excel tables; and the decision of the NFS-vs-FC example, which must not flip when the
 * planner takes the CPU cost from the analysis (per-step U/X includes the background CPU).
 */
import * as fs from "fs";
import * as path from "path";
import { readLabText } from "../../src/import/detect";
import { buildLabPlan } from "../../src/lab/lab-plan";
import { cellResult, columnIndex, columnLetter, TablePlan, tableRow, tableRowCount } from "../../src/workbook/plan";
import { CPU_FIT_TABLE } from "../../src/lab/model-fits";
import { cpuCostChoices, readCellValues, readCpuCostChoices, ReadTable } from "../../src/excel/case-sources";
import { parseCaseInput } from "../../src/case/input";
import { computeCase } from "../../src/case/model";
import { createFakeHost, FakeSheet, installFakeHost } from "../excel/fake-excel";
import { syntheticLab, TWO_PROTOCOLS } from "../lab/fixtures/lab-model";

const ROOT = path.join(__dirname, "..", "..");

/** The plan of a two-protocol run of the known model (NFS 0.081, FC 0.041 CPU-ms per IO, 30 % background). */
function labPlan(seed = 1): ReturnType<typeof buildLabPlan> {
  const lab = syntheticLab(TWO_PROTOCOLS, seed);
  return buildLabPlan([readLabText(lab.subintervals, "sub.csv"), readLabText(lab.summary, "sum.csv")]);
}

/** A plan table as Excel's table range would read it: header then values (formulas' computed results). */
function asTable(t: TablePlan, sheet: string, name = t.name): ReadTable {
  const values: unknown[][] = [t.columns.map((c) => c.header)];
  for (let i = 0; i < tableRowCount(t); i++)
    values.push(
      tableRow(t, i).map((v) => {
        const x = cellResult(v);
        return x === null || typeof x === "object" ? "" : x;
      }),
    );
  return { name, sheet, row: t.at!.row, col: t.at!.col, values };
}

function fitTable(plan: ReturnType<typeof buildLabPlan>): TablePlan {
  return plan.sheets.find((s) => s.name === "Model")!.tables.find((t) => t.name === CPU_FIT_TABLE)!;
}

describe("cpuCostChoices", () => {
  const plan = labPlan();
  const fit = fitTable(plan);
  const model = plan.sheets.find((s) => s.name === "Model")!.tables.find((t) => t.name === "Model")!;

  it("offers the fitted marginal cost of each protocol, by its cell, with the interval in the label", () => {
    const choices = cpuCostChoices([asTable(fit, "Model"), asTable(model, "Model")]);
    const d = columnIndex(fit, "d");
    expect(choices).toHaveLength(2);
    choices.forEach((c, i) => {
      const row = tableRow(fit, i);
      expect(c.refs).toEqual([`'Model'!$${columnLetter(fit.at!.col + d)}$${fit.at!.row + 2 + i}`]);
      expect(c.ms).toBe(cellResult(row[d]));
      const lo = Number((cellResult(row[columnIndex(fit, "d_lo")]) as number).toPrecision(2));
      const hi = Number((cellResult(row[columnIndex(fit, "d_hi")]) as number).toPrecision(2));
      expect(c.label).toContain(`Model: fitted marginal cost, protocol ${["nfs", "fc"][i]} (95 % CI ${lo}–${hi}`);
    });
    // The known truth: 0.081 and 0.041 CPU-ms per IO, within a few %.
    expect(Math.abs(choices[0].ms / 0.081 - 1)).toBeLessThan(0.05);
    expect(Math.abs(choices[1].ms / 0.041 - 1)).toBeLessThan(0.05);
  });

  it("never offers a per-step U/X (it includes the background CPU)", () => {
    const choices = cpuCostChoices([asTable(fit, "Model"), asTable(model, "Model")]);
    const ud = columnIndex(model, "d");
    const perStep = new Set(
      Array.from(
        { length: tableRowCount(model) },
        (_, i) => `'Model'!$${columnLetter(model.at!.col + ud)}$${model.at!.row + 2 + i}`,
      ),
    );
    expect(choices.some((c) => c.refs.some((r) => perStep.has(r)))).toBe(false);
  });

  it("follows a second import's table (CpuFit_2 on Model (2)), quoting the sheet name; ignores other tables", () => {
    const choices = cpuCostChoices([asTable(fit, "Model (2)", "CpuFit_2"), asTable(fit, "Other", "CpuFitx")]);
    expect(choices).toHaveLength(2);
    expect(choices[0].refs[0]).toMatch(/^'Model \(2\)'!\$[A-Z]+\$\d+$/);
    expect(choices[0].label.startsWith("Model (2): fitted marginal cost, protocol nfs")).toBe(true);
  });

  it("offers nothing when every step is saturated (the real 2×2 sample at ~100 % CPU)", () => {
    const files = ["subintervals.csv", "summary.csv"].map((f) => path.join(ROOT, "tests/lab/fixtures/iogen-real", f));
    const real = buildLabPlan(files.map((f) => readLabText(fs.readFileSync(f, "utf8"), path.basename(f))));
    expect(cpuCostChoices([asTable(fitTable(real), "Model")])).toEqual([]);
  });

  it("reads the tables from the workbook (Office.js tables API)", async () => {
    const host = createFakeHost();
    installFakeHost(globalThis as unknown as Record<string, unknown>, host);
    const read = asTable(fit, "Model");
    const sheet = new FakeSheet("Model");
    read.values.forEach((line, i) =>
      line.forEach((v, j) => {
        sheet.cell(read.row + i, read.col + j).value = v as number | string;
      }),
    );
    host.workbook.sheets.push(sheet);
    host.workbook.tables.push({
      name: CPU_FIT_TABLE,
      sheet: "Model",
      row: read.row,
      col: read.col,
      rows: read.values.length,
      cols: read.values[0].length,
    });
    expect(await readCpuCostChoices()).toEqual(cpuCostChoices([read]));
  });
});

describe("the NFS-vs-FC decision does not flip when the CPU cost comes from the analysis", () => {
  const example = JSON.parse(fs.readFileSync(path.join(ROOT, "examples", "nfs-vs-fc-70k-iops.json"), "utf8")) as {
    options: { name: string; workloads: { serviceTime: number }[] }[];
  };
  /** The option with the lowest net present cost: the decision. */
  function conclusion(nfsS: number, fcS: number): string {
    const c = structuredClone(example);
    c.options[0].workloads[0].serviceTime = nfsS;
    c.options[1].workloads[0].serviceTime = fcS;
    return c.options[computeCase(parseCaseInput(c)).cheapest].name;
  }

  it("gives the example's decision with the fitted costs, and would flip with the per-step U/X", () => {
    const plan = labPlan(3);
    const fit = fitTable(plan);
    const model = plan.sheets.find((s) => s.name === "Model")!.tables.find((t) => t.name === "Model")!;
    const [nfs, fc] = cpuCostChoices([asTable(fit, "Model")]);
    const typed = conclusion(0.000081, 0.000041);
    expect(conclusion(nfs.ms / 1000, fc.ms / 1000)).toBe(typed);
    // The trap the analysis no longer offers (the story): NFS's lightest step's U/X, which
    // carries the 30 % background CPU, against FC's cost per IO.
    const ud = columnIndex(model, "d");
    const uxNfs = cellResult(tableRow(model, 0)[ud]) as number;
    expect(uxNfs / nfs.ms).toBeGreaterThan(10);
    expect(conclusion(uxNfs / 1000, fc.ms / 1000)).not.toBe(typed);
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
