/**
 * The What-if sheet: its formulas, recalculated by LibreOffice Calc from an .xlsx whose cached
 * results were removed, give the values the analysis computed (so the sheet is live without the
 * add-in and the plan's numbers are the formulas' own); and the figures follow the model's truth
 * (fixtures/lab-model.ts) within the fits' intervals: SLA IOPS = X_max(1 − S/SLA).
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { readLabText } from "../../src/import/detect";
import { buildLabPlan } from "../../src/lab/lab-plan";
import { cellResult, CellValue, SheetPlan, WorkbookPlan } from "../../src/workbook/plan";
import { renderXlsx } from "../../src/report/xlsx";
import { convert, csvNumber, csvRows, findSoffice, recalculatingProfile } from "../case/libreoffice";
import { syntheticLab, TWO_PROTOCOLS } from "./fixtures/lab-model";
import { describeUnless } from "../helpers/skip";

const SOFFICE = findSoffice();
const describeLo = (name: string, fn: () => void): void =>
  describeUnless(SOFFICE ? null : "soffice (LibreOffice) not installed; CI installs libreoffice-calc-nogui", name, fn);

const TODAY = new Date(Date.UTC(2026, 10, 25));

function samplePlan(): WorkbookPlan {
  const lab = syntheticLab(TWO_PROTOCOLS, 20261125);
  return buildLabPlan([readLabText(lab.subintervals, "sub.csv"), readLabText(lab.summary, "sum.csv")], {
    today: TODAY,
  });
}

describe("What-if sheet", () => {
  const plan = samplePlan();
  const sheet = plan.sheets.find((s) => s.name === "What-if") as SheetPlan;

  it("comes after Model, with the inputs, the answers per line and a forecast per year", () => {
    expect(plan.sheets.map((s) => s.name).slice(0, 4)).toEqual(["Summary", "Steps", "Model", "What-if"]);
    expect(sheet.tables.map((t) => t.name)).toEqual(["WhatIfInputs", "WhatIf", "WhatIfYears"]);
    expect(sheet.tables[1].rows.map((r) => r[0])).toEqual(["protocol nfs", "protocol fc"]);
    expect(sheet.tables[2].rows).toHaveLength(2 * 6);
  });

  it("answers with the model's truth: SLA IOPS = X_max (1 − S/SLA), CPU IOPS at target = (U* − a)/b", () => {
    const key = (t: number, k: string): number => sheet.tables[t].columns.findIndex((c) => c.key === k);
    for (const [i, p] of TWO_PROTOCOLS.protocols.entries()) {
      const inputs = sheet.tables[0].rows[i];
      const out = sheet.tables[1].rows[i];
      const sla = inputs[key(0, "sla")] as number;
      const truthSla = p.xMax * (1 - p.serviceMs / sla);
      const slaIops = cellResult(out[key(1, "sla_iops")]) as number;
      expect(Math.abs(slaIops / truthSla - 1)).toBeLessThan(0.05);
      const target = inputs[key(0, "target")] as number;
      const truthCpu = ((target - TWO_PROTOCOLS.backgroundPct) * TWO_PROTOCOLS.cores * 10) / p.cpuMsPerIo;
      expect(Math.abs((cellResult(out[key(1, "cpu_iops")]) as number) / truthCpu - 1)).toBeLessThan(0.05);
      const capacity = cellResult(out[key(1, "capacity")]) as number;
      const current = inputs[key(0, "current")] as number;
      const years = cellResult(out[key(1, "years")]) as number;
      expect(years).toBeCloseTo(Math.log(capacity / current) / Math.log(1.2), 10);
    }
  });

  describeLo("in LibreOffice (formulas recalculated, cached results removed)", () => {
    it("every formula gives the value the analysis computed", async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "caplab-whatif-lo-"));
      try {
        const copy = structuredClone(plan);
        const ws = copy.sheets.find((s) => s.name === "What-if")!;
        for (const t of ws.tables)
          for (const row of t.rows)
            row.forEach((c, j) => {
              if (c !== null && typeof c === "object" && "formula" in c) row[j] = { formula: c.formula, result: null };
            });
        const file = path.join(dir, "lab.xlsx");
        fs.writeFileSync(file, await renderXlsx(copy));
        convert(SOFFICE as string, recalculatingProfile(dir), "csv", path.join(dir, "csv"), [file]);
        const rows = csvRows(fs.readFileSync(path.join(dir, "csv", "lab-What-if.csv"), "utf8"));
        let compared = 0;
        for (const t of sheet.tables) {
          t.rows.forEach((row: CellValue[], i) =>
            row.forEach((cell, j) => {
              if (cell === null || typeof cell !== "object" || !("formula" in cell)) return;
              const want = cellResult(cell);
              const got = rows[t.at!.row + 1 + i]?.[t.at!.col + j] ?? "";
              if (typeof want === "number") {
                // Calc writes a date cell as MM/DD/YYYY: back to Excel's serial (1899-12-30 is 0).
                const date = /^(\d\d)\/(\d\d)\/(\d{4})$/.exec(got);
                const v = date
                  ? Date.UTC(Number(date[3]), Number(date[1]) - 1, Number(date[2])) / 86400000 + 25569
                  : csvNumber(got);
                if (!(Math.abs(v - want) <= 1e-9 * Math.max(1, Math.abs(want))))
                  throw new Error(`${t.name} row ${i + 1} ${t.columns[j].key}: LibreOffice ${got}, plan ${want}`);
              } else expect(got).toBe(want);
              compared++;
            }),
          );
        }
        expect(compared).toBeGreaterThan(50);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }, 180_000);
  });
});
