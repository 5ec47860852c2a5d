/**
 * One sizing arithmetic for the core and the sheet: the case sheet's server-count formulas, as
 * LibreOffice recalculates them from a file with no cached value, give exactly the core's counts
 * (src/core/sheet-sizing.ts) on round-number inputs — λ 1–100, common service times and targets,
 * the sensitivity's load factors (rate × factor, as the sheet multiplies) — 25,000+ utilization
 * targets and ~3,000 response and service-level targets. All rows of a kind sit in one workbook:
 * one soffice conversion for the lot.
 *
 * Needs LibreOffice (`soffice`); skipped, saying so, without it (CI installs it).
 */
import ExcelJS from "exceljs";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { convert, findSoffice, recalculatingProfile, withoutCachedValues, xlsxValues } from "./libreoffice";
import { casePlanFromJson } from "../../src/case/case-plan";
import { renderXlsx } from "../../src/report/xlsx";
import type { WorkbookPlan } from "../../src/workbook/plan";
import { describeUnless } from "../helpers/skip";
import { serversForUtilization, staffForTarget } from "../../src/core/sheet-sizing";
import {
  MmcCells,
  searchWidth,
  serversForUtilizationFormula,
  staffForResponseFormula,
  staffForServiceLevelFormula,
} from "../../src/case/mmc-cells";

const SOFFICE = findSoffice();
const SERVICE = [0.001, 0.002, 0.003, 0.005, 0.01, 0.02, 0.025, 0.03, 0.05, 0.1, 0.2, 0.25, 0.3, 0.5, 1];
const UTILIZATION = [0.5, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1];
const LOAD_FACTORS = [0.5, 0.8, 0.9, 1.1, 1.2, 1.25, 1.5];

/** One row: its inputs (columns A–E) and the core's count; the formula goes in column F. */
interface Case {
  inputs: number[];
  formula: string;
  core: number;
}

/** Cells of row `r` (1-based Excel row): rate = A×D (the load factor), service B. */
function cells(r: number): MmcCells {
  return { rate: `(A${r}*D${r})`, service: `B${r}`, servers: "Z1", pWait: "Z2", wait: "Z3" };
}

function utilizationCases(): Case[] {
  const out: Case[] = [];
  for (let l = 1; l <= 100; l++)
    for (const s of SERVICE)
      for (const u of UTILIZATION)
        for (const f of [1, ...(l % 4 === 1 ? LOAD_FACTORS : [])]) {
          const r = out.length + 2;
          const rate = f === 1 ? l : l * f;
          out.push({
            inputs: [l, s, u, f, 0],
            formula: serversForUtilizationFormula(cells(r), `C${r}`),
            core: serversForUtilization(rate * s, u),
          });
        }
  return out;
}

function searchCases(): Case[] {
  const out: Case[] = [];
  for (let l = 1; l <= 40; l++)
    for (const s of [0.01, 0.02, 0.05, 0.1, 0.2]) {
      const a = l * s;
      for (const k of [1.1, 1.25, 1.5, 2, 3]) {
        const r = out.length + 2;
        const response = s * k;
        const core = staffForTarget(s, l, { kind: "wait", wait: response - s }, "response");
        const formula = staffForResponseFormula(cells(r), `C${r}`, searchWidth(core, a));
        out.push({ inputs: [l, s, response, 1, 0], formula, core });
      }
      for (const level of [0.8, 0.9, 0.95])
        for (const w of [0.5, 1, 2]) {
          const r = out.length + 2;
          const within = s * w;
          const core = staffForTarget(s, l, { kind: "serviceLevel", level, answerWithin: within }, "serviceLevel");
          const formula = staffForServiceLevelFormula(cells(r), `C${r}`, `E${r}`, searchWidth(core, a));
          out.push({ inputs: [l, s, level, 1, within], formula, core });
        }
    }
  return out;
}

/** A workbook of the cases' inputs and formulas, with no cached result. */
async function workbookOf(cases: Case[]): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet("S");
  ws.addRow(["rate", "service", "target", "load factor", "within", "servers"]);
  for (const c of cases) ws.addRow([...c.inputs, { formula: c.formula, date1904: false }]);
  return Buffer.from(await wb.xlsx.writeBuffer());
}

/** LibreOffice's recalculated column F, row by row. */
async function recalculated(name: string, cases: Case[], dir: string): Promise<(number | string | undefined)[]> {
  const file = path.join(dir, `${name}.xlsx`);
  fs.writeFileSync(file, await workbookOf(cases));
  const out = path.join(dir, "out");
  fs.mkdirSync(out, { recursive: true });
  convert(SOFFICE as string, recalculatingProfile(dir), "xlsx", out, [file]);
  const values = (await xlsxValues(fs.readFileSync(path.join(out, `${name}.xlsx`))))[0];
  return cases.map((_, i) => values.get(`${i + 1},5`));
}

describeUnless(
  SOFFICE ? null : "soffice (LibreOffice) not installed; CI installs libreoffice-calc-nogui",
  "sizing: core = sheet as LibreOffice recalculates it",
  () => {
    let dir: string;
    beforeAll(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), "caplab-sizing-"));
    });
    afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

    it("utilization targets: every count equal (25,000+ round inputs, load factors included)", async () => {
      const cases = utilizationCases();
      expect(cases.length).toBeGreaterThanOrEqual(25_000);
      const lo = await recalculated("utilization", cases, dir);
      const differ = cases
        .map((c, i) => ({ inputs: c.inputs, core: c.core, libreoffice: lo[i] }))
        .filter((d) => d.libreoffice !== d.core);
      expect(differ.slice(0, 5)).toEqual([]);
      expect(differ.length).toBe(0);
    }, 600_000);

    it("response and service-level targets: every count equal", async () => {
      const cases = searchCases();
      expect(cases.length).toBeGreaterThanOrEqual(2_500);
      const lo = await recalculated("search", cases, dir);
      const differ = cases
        .map((c, i) => ({ inputs: c.inputs, core: c.core, libreoffice: lo[i] }))
        .filter((d) => d.libreoffice !== d.core);
      expect(differ.slice(0, 5)).toEqual([]);
    }, 600_000);

    it("the printed conclusion equals LibreOffice's on the round inputs where Math.ceil sized one server too many", async () => {
      // Keep: the exact count as a fixed number of servers; New: sized by utilization (same cost per
      // server), so the two cost the same exactly when the sizing is exact.
      const cases: { name: string; printed: string; plan: WorkbookPlan }[] = [];
      for (let l = 1; l <= 100; l++)
        for (const s of SERVICE)
          for (const u of UTILIZATION) {
            const load = l * s;
            const exact = serversForUtilization(load, u);
            if (Math.max(Math.ceil(load / u), Math.floor(load) + 1) === exact) continue;
            const workload = (sizing: object) => [{ name: "w", arrivalRate: l, serviceTime: s, sizing }];
            const json = {
              years: 3,
              discountRate: 0.05,
              options: [
                { name: "Keep", workloads: workload({ servers: exact }), costPerServerPerYear: 1000 },
                { name: "New", workloads: workload({ utilization: u }), costPerServerPerYear: 1000 },
              ],
            };
            const built = casePlanFromJson(json, { sources: ["grid"] });
            cases.push({ name: `c${cases.length}`, printed: built.plan.sheets[0].notes[1], plan: built.plan });
          }
      expect(cases.length).toBe(136);
      const files = await Promise.all(
        cases.map(async (c) => {
          const f = path.join(dir, `${c.name}.xlsx`);
          fs.writeFileSync(f, await renderXlsx(withoutCachedValues(c.plan)));
          return f;
        }),
      );
      const out = path.join(dir, "conclusions");
      fs.mkdirSync(out);
      convert(SOFFICE as string, recalculatingProfile(dir), "xlsx", out, files);
      const differ: { name: string; printed: string; libreoffice: unknown }[] = [];
      for (const c of cases) {
        const grid = (await xlsxValues(fs.readFileSync(path.join(out, `${c.name}.xlsx`))))[0];
        const lo = grid.get("1,0");
        if (lo !== c.printed) differ.push({ name: c.name, printed: c.printed, libreoffice: lo });
      }
      expect(differ.slice(0, 3)).toEqual([]);
      expect(differ.length).toBe(0);
    }, 600_000);

    it("a conclusion with amounts beyond 15 significant digits equals LibreOffice's", async () => {
      const inputs = [
        { perYear: 1.2345678901234568e18, capex: 250000 },
        { perYear: 1e303, capex: 2e302 },
      ].map(({ perYear, capex }) => ({
        years: 3,
        discountRate: 0.1,
        options: [
          { name: "Keep", opex: [{ label: "Support", perYear }] },
          { name: "Replace", capex },
        ],
      }));
      const built = inputs.map((json) => casePlanFromJson(json, { sources: ["big"] }).plan);
      const files = await Promise.all(
        built.map(async (plan, k) => {
          const f = path.join(dir, `big${k}.xlsx`);
          fs.writeFileSync(f, await renderXlsx(withoutCachedValues(plan)));
          return f;
        }),
      );
      const out = path.join(dir, "big");
      fs.mkdirSync(out);
      convert(SOFFICE as string, recalculatingProfile(dir), "xlsx", out, files);
      for (const [k, plan] of built.entries()) {
        const grid = (await xlsxValues(fs.readFileSync(path.join(out, `big${k}.xlsx`))))[0];
        expect(grid.get("1,0")).toBe(plan.sheets[0].notes[1]);
      }
      expect(built[0].sheets[0].notes[1]).toContain("£3,377,206,377,114,580,000");
    }, 600_000);
  },
);
