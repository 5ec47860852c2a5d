/**
 * Workloads whose times are shown in units of their own (a 9.1 ms disk beside an 81 µs CPU) keep
 * every formula right: LibreOffice Calc (headless) opens each case with every cached formula result
 * removed, recalculates it, and every cell must equal the case's own value (numbers to 1e-9
 * relative, texts exactly). The cases mix ms and µs rows with every sizing rule, a service target
 * (its time in the table-wide unit, met by rows in other units), fixed staff, and growth (the
 * purchase plan's responses in each row's unit). The M/M/c figures themselves are checked against
 * mpmath elsewhere (case-recalc.test.ts, sizing-libreoffice.test.ts); this is about the units.
 * Needs LibreOffice (`soffice`).
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { casePlanFromJson, CasePlan } from "../../src/case/case-plan";
import { cellResult, CellValue, TablePlan, WorkbookPlan } from "../../src/workbook/plan";
import { renderXlsx } from "../../src/report/xlsx";
import { convert, findSoffice, recalculatingProfile, withoutCachedValues, xlsxValues } from "./libreoffice";
import { describeUnless } from "../helpers/skip";

const SOFFICE = findSoffice();

const disk = (sizing: Record<string, number>, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  name: "Disk",
  arrivalRate: 1500,
  serviceTime: 0.0091,
  sizing,
  ...extra,
});
const cpu = (sizing: Record<string, number>, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  name: "CPU",
  arrivalRate: 70000,
  serviceTime: 0.000081,
  sizing,
  ...extra,
});

const CASES: Record<string, unknown> = {
  mixed: {
    title: "Disk and CPU",
    years: 3,
    discountRate: 0.05,
    timeUnit: "s",
    rateUnit: "IO/s",
    serviceTarget: { serviceLevel: 0.8, answerWithin: 0.002 },
    options: [
      {
        name: "Array",
        costPerServer: 1000,
        workloads: [disk({ response: 0.02 }), cpu({ serviceLevel: 0.9, answerWithin: 0.00005 })],
      },
      {
        name: "Fixed",
        capex: 5000,
        costPerServer: 900,
        workloads: [disk({ servers: 16 }), cpu({ utilization: 0.7 })],
      },
    ],
  },
  growing: {
    title: "Disk and CPU, growing",
    years: 4,
    discountRate: 0.08,
    timeUnit: "s",
    options: [
      {
        name: "Array",
        costPerServer: 1000,
        costPerServerPerYear: 100,
        workloads: [
          disk({ response: 0.015 }, { growth: 0.2, installed: 16, purchaseUnit: 2 }),
          cpu({ utilization: 0.7 }, { growth: 0.2, installed: 8, purchaseUnit: 4 }),
        ],
      },
      {
        name: "Bigger",
        capex: 8000,
        costPerServer: 800,
        workloads: [disk({ serviceLevel: 0.9, answerWithin: 0.005 }, { growth: [0.1, 0.3, 0.2, 0.1] })],
      },
    ],
  },
};

/** Every cell the plan shows (formulas by their cached result), keyed "row,col". */
function plannedCells(plan: WorkbookPlan): Map<string, number | string> {
  const out = new Map<string, number | string>();
  const sheet = plan.sheets[0];
  sheet.notes.forEach((n, r) => out.set(`${r},0`, n));
  for (const t of sheet.tables)
    t.rows.forEach((row, i) =>
      row.forEach((cell: CellValue, j) => {
        const v = cellResult(cell);
        if (typeof v === "number" || (typeof v === "string" && v !== ""))
          out.set(`${t.at.row + 1 + i},${t.at.col + j}`, v);
      }),
    );
  return out;
}

const describeLo = (name: string, fn: () => void): void =>
  describeUnless(SOFFICE ? null : "soffice (LibreOffice) not installed; CI installs libreoffice-calc-nogui", name, fn);

describeLo("workloads in units of their own, recalculated by LibreOffice", () => {
  let dir: string;
  const built = new Map<string, CasePlan>();
  const got = new Map<string, Map<string, number | string>>();

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "caplab-units-lo-"));
    const files: string[] = [];
    for (const [name, json] of Object.entries(CASES)) {
      const plan = casePlanFromJson(json);
      built.set(name, plan);
      const file = path.join(dir, `${name}.xlsx`);
      fs.writeFileSync(file, await renderXlsx(withoutCachedValues(plan.plan)));
      files.push(file);
    }
    convert(SOFFICE as string, recalculatingProfile(dir), "xlsx", path.join(dir, "out"), files);
    for (const name of Object.keys(CASES))
      got.set(name, (await xlsxValues(fs.readFileSync(path.join(dir, "out", `${name}.xlsx`))))[0]);
  }, 200_000);

  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("the service target's time is in its own unit (2 ms reads 2.00 ms beside an 81 µs CPU)", () => {
    const withTarget = [...built.values()].filter((p) =>
      p.plan.sheets[0].tables.some((t) => t.name === "ServiceTarget"),
    );
    expect(withTarget.length).toBeGreaterThan(0);
    for (const p of withTarget) {
      const t = p.plan.sheets[0].tables.find((x) => x.name === "ServiceTarget") as TablePlan;
      const j = t.columns.findIndex((c) => c.key === "answer_within");
      expect(t.columns[j].header).toBe("Within (ms) (input)");
      expect(t.rows[0][j]).toBeCloseTo(2, 12); // 0.002 s in the input
    }
  });

  it.each(Object.keys(CASES))("%s: every cell recalculates to the case's value", (name) => {
    const plan = built.get(name) as CasePlan;
    // The rows do show different units (ms and µs).
    expect(plan.layout.workloads.flat().map((w) => w.timeScale)).toEqual(expect.arrayContaining([1000, 1e6]));
    const sheet = got.get(name) as Map<string, number | string>;
    const scale = Math.max(...plan.result.options.map((o) => Math.abs(o.npv)));
    const wrong: string[] = [];
    for (const [key, want] of plannedCells(plan.plan)) {
      const v = sheet.get(key);
      const ok =
        typeof want === "number"
          ? typeof v === "number" && Math.abs(v - want) <= 1e-9 * Math.abs(want) + 1e-13 * scale
          : v === want;
      if (!ok) wrong.push(`${key}: LibreOffice ${String(v)}, the case ${want}`);
    }
    expect(wrong).toEqual([]);
  });
});
