/**
 * The plan as a third renderer (Office.js) needs it: stable column keys, chart sources by key,
 * add-in formulas with their computed values, references that point at the cells they mean,
 * nothing renderer-specific, and the CPU line from the core's least squares (checked here against
 * the closed-form simple regression, computed independently in the test).
 */
import * as fs from "fs";
import * as path from "path";
import { buildLabPlan } from "../../src/lab/lab-plan";
import {
  CellValue,
  columnLetter,
  cellResult,
  columnIndex,
  isAddinFormulaCell,
  isFormulaCell,
  TablePlan,
  tableCell,
  WorkbookPlan,
} from "../../src/workbook/plan";
import { readLabText, LabFileResult } from "../../src/import/detect";
import { formatTextTable } from "../../src/report/text";
import { DOE_FIT } from "../../src/functions/functions";

const read = (p: string): LabFileResult => readLabText(fs.readFileSync(p, "utf8"), path.basename(p));
const REAL = path.join(__dirname, "..", "lab", "fixtures", "iogen-real");
const FIX = path.join(__dirname, "..", "lab", "fixtures", "doe2x2");
const GOLDEN = path.join(__dirname, "..", "import", "golden");
const plans: [string, WorkbookPlan][] = [
  ["iogen-real", buildLabPlan([read(path.join(REAL, "subintervals.csv")), read(path.join(REAL, "summary.csv"))])],
  ["doe2x2", buildLabPlan([read(path.join(FIX, "subintervals.csv")), read(path.join(FIX, "summary.csv"))])],
  ["fio-doe-2x2", buildLabPlan([read(path.join(GOLDEN, "fio-doe-2x2", "input.json"))])],
];

function table(plan: WorkbookPlan, name: string): TablePlan {
  for (const s of plan.sheets) for (const t of s.tables) if (t.name === name) return t;
  throw new Error(`no table ${name}`);
}

/** Resolves an A1 reference ('Sheet'!B3 or B3 on `sheetName`) to the plan cell placed there. */
function cellAt(plan: WorkbookPlan, sheetName: string, ref: string): CellValue | undefined {
  const m = /^(?:'([^']+)'!)?([A-Z]+)(\d+)$/.exec(ref);
  if (!m) throw new Error(`not a cell reference: ${ref}`);
  const sheet = plan.sheets.find((s) => s.name === (m[1] ?? sheetName));
  const row0 = Number(m[3]) - 1;
  for (const t of sheet?.tables ?? []) {
    if (!t.at) continue;
    for (let c = 0; c < t.columns.length; c++) {
      if (columnLetter(t.at.col + c) !== m[2]) continue;
      const i = row0 - t.at.row - 1;
      if (i >= 0 && i < t.rows.length) return tableCell(t, i, c);
    }
  }
  return undefined;
}

describe.each(plans)("plan of %s", (_name, plan) => {
  it("gives every column a key, unique within its table; chart sources name existing keys", () => {
    for (const s of plan.sheets) {
      for (const t of s.tables) {
        const keys = t.columns.map((c) => c.key);
        expect(keys.every((k) => typeof k === "string" && k !== "")).toBe(true);
        expect(new Set(keys).size).toBe(keys.length);
      }
      for (const c of s.charts) {
        if (!c.source) continue;
        const t = table(plan, c.source.table);
        for (const k of [c.source.xColumn, ...c.source.yColumns]) expect(columnIndex(t, k)).toBeGreaterThanOrEqual(0);
      }
    }
  });

  it("says nothing about a particular renderer", () => {
    const text = JSON.stringify(plan.sheets.map((s) => s.notes));
    expect(text).not.toMatch(/HTML report|--html|ExcelJS|Office\.js/);
  });

  it("Model: M/M/c prediction is CAPLAB.MMC_RESPONSE over the planner's c (ModelInputs) and the row's S and X, blank until c is typed", () => {
    const model = table(plan, "Model");
    const inputs = table(plan, "ModelInputs");
    const c = `$${columnLetter((inputs.at?.col ?? 0) + 1)}$${(inputs.at?.row ?? 0) + 2}`;
    const pred = columnIndex(model, "pred");
    const row0 = (model.at?.row ?? 0) + 2;
    const letter = (k: string): string => columnLetter((model.at?.col ?? 0) + columnIndex(model, k));
    let seen = 0;
    model.rows.forEach((r, i) => {
      const v = r[pred];
      if (!isAddinFormulaCell(v)) return;
      seen++;
      const n = row0 + i;
      expect(v.addinFormula).toBe(
        `IF(${c}="","",CAPLAB.MMC_RESPONSE(${c},${letter("s")}${n}/1000,${letter("x")}${n})*1000)`,
      );
      expect(v.result).toBe(""); // no servers named: no prediction
    });
    expect(seen).toBeGreaterThan(0);
  });

  it("Fit: DOE_FIT over the FitData table, whose cells refer to the Steps cells holding the same values", () => {
    const data = table(plan, "FitData_response");
    const fit = table(plan, "Fit_response");
    const at = data.at as { row: number; col: number };
    const k = data.columns.length - 1;
    const first = at.row + 1;
    const last = at.row + 1 + data.rows.length;
    const L = (c: number): string => columnLetter(at.col + c);
    expect(fit.arrayFormula).toMatch(
      new RegExp(`^CAPLAB\\.DOE_FIT\\(${L(0)}${first}:${L(k - 1)}${last},${L(k)}${first}:${L(k)}${last},[12]\\)$`),
    );
    for (const row of data.rows) {
      for (const v of row) {
        expect(isFormulaCell(v)).toBe(true);
        if (!isFormulaCell(v)) continue;
        const ref = /^(?:VALUE\()?('Steps'![A-Z]+\d+)\)?$/.exec(v.formula);
        expect(ref).not.toBeNull();
        const target = cellResult(cellAt(plan, "Fit", ref![1]) ?? null);
        expect(String(target)).toBe(String(v.result));
      }
    }
    // The table is exactly what the worksheet function returns on those values.
    const factors = [
      data.columns.slice(0, k).map((c) => c.header),
      ...data.rows.map((r) => r.slice(0, k).map(cellResult)),
    ];
    const response = [[data.columns[k].header], ...data.rows.map((r) => [cellResult(r[k])])];
    const order = Number(/,(\d)\)$/.exec(fit.arrayFormula ?? "")?.[1]);
    const out = DOE_FIT(factors as unknown[][], response as unknown[][], order);
    expect(fit.columns.map((c) => c.header)).toEqual(out[0]);
    expect(fit.rows.length).toBe(out.length - 1);
    fit.rows.forEach((r, i) =>
      r.forEach((v, j) => {
        const o = out[i + 1][j];
        if (o instanceof Error) expect(v).toHaveProperty("error");
        else expect(v).toBe(o === "" ? "" : o);
      }),
    );
  });
});

describe("CPU line of the CpuFit table", () => {
  it("matches the closed-form simple regression (slope → CPU-ms per IO, intercept, R²) on the 2×2 run", () => {
    const plan = plans[1][1];
    const model = table(plan, "Model");
    const xs = model.rows.map((r) => cellResult(r[columnIndex(model, "x")]) as number);
    const ys = model.rows.map((r) => cellResult(r[columnIndex(model, "busy")]) as number);
    const cores = cellResult(model.rows[0][columnIndex(model, "cores")]) as number;
    const n = xs.length;
    const mx = xs.reduce((a, b) => a + b, 0) / n;
    const my = ys.reduce((a, b) => a + b, 0) / n;
    const sxy = xs.reduce((a, x, i) => a + (x - mx) * (ys[i] - my), 0);
    const sxx = xs.reduce((a, x) => a + (x - mx) ** 2, 0);
    const syy = ys.reduce((a, y) => a + (y - my) ** 2, 0);
    const slope = sxy / sxx;
    const intercept = my - slope * mx;
    const r2 = (sxy * sxy) / (sxx * syy);
    const fit = table(plan, "CpuFit");
    const cell = (key: string): number => cellResult(fit.rows[0][columnIndex(fit, key)]) as number;
    expect(cell("d")).toBeCloseTo((slope / 100) * cores * 1000, 12);
    expect(cell("bg")).toBeCloseTo(intercept, 10);
    expect(cell("r2")).toBeCloseTo(r2, 12);
  });
});

describe("formatTextTable", () => {
  it("prints the rows of a columnar table (Subintervals), not only its headers", () => {
    const sub = table(plans[0][1], "Subintervals");
    expect(sub.columnar).toBeDefined();
    const text = formatTextTable(sub, 400, true);
    expect(text.trim().split("\n").length).toBe(1 + (sub.columnar?.length ?? 0));
  });
});
