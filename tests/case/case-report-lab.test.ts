/**
 * `caplab report INPUTS --case CASE.json`: the lab analysis and the business case in one workbook,
 * the case's current load, growth and service time taken from the What-if and Model sheets by
 * reference (`"fromLab"`). Opened by LibreOffice Calc with every cached formula result removed
 * from the file `caplab report` wrote: every sheet recalculates to the values the file carried.
 * Then the planner's edit on What-if — the NFS line's current IOPS typed as 20,000 and its growth
 * raised from 20 to 30 % — and the case sheet, recalculated, equals cell for cell (and the
 * conclusion word for word) what `caplab case` builds for the same numbers typed into the JSON,
 * the decision layer (break-even moves, ranks, confidence) included.
 * Needs LibreOffice (`soffice`).
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import JSZip from "jszip";
import { run } from "../../src/cli/commands/report";
import { linkCaseToLab } from "../../src/cli/case-lab-links";
import { readLabText } from "../../src/import/detect";
import { buildLabAnalysis } from "../../src/lab/lab-plan";
import { casePlanFromJson, CasePlan } from "../../src/case/case-plan";
import { cellResult, CellValue, TablePlan } from "../../src/workbook/plan";
import { convert, findSoffice, recalculatingProfile, xlsxValues } from "./libreoffice";
import { describeUnless } from "../helpers/skip";
import { BY_DRIVER } from "./growth-compare";

const SOFFICE = findSoffice();
const SAMPLE = path.join(__dirname, "..", "lab", "fixtures", "lab-sample");
const INPUTS = ["subintervals.csv", "summary.csv"].map((f) => path.join(SAMPLE, f));

/** The case: two options on the sample's two protocols, each workload linked to its What-if line. */
const CASE = {
  title: "NFS or FC for the tested datastore, as the lab measured it",
  years: 5,
  discountRate: 0.1,
  timeUnit: "s",
  rateUnit: "IO/s",
  options: [
    {
      name: "NFS",
      costPerServer: 2000,
      costPerServerPerYear: 500,
      workloads: [
        { name: "Datastore IO", fromLab: "protocol nfs", sizing: { utilization: 0.7 }, installed: 2, purchaseUnit: 2 },
      ],
    },
    {
      name: "FC",
      capex: 16000,
      costPerServer: 2000,
      costPerServerPerYear: 500,
      workloads: [
        { name: "Datastore IO", fromLab: "protocol fc", sizing: { utilization: 0.7 }, installed: 2, purchaseUnit: 2 },
      ],
    },
  ],
};

/** The planner's edit on What-if: the NFS line's current IOPS and growth % per year. */
const EDIT = { current: 20000, growthPct: 30 };

type Cells = Map<string, number | string>;

/** An .xlsx with every formula's cached value removed, and `values` typed into cells of sheet n (1-based). */
async function strippedXlsx(bytes: Buffer, sheet?: number, values: Record<string, number> = {}): Promise<Buffer> {
  const zip = await JSZip.loadAsync(bytes);
  for (const name of Object.keys(zip.files).filter((n) => /^xl\/worksheets\/sheet\d+\.xml$/.test(n))) {
    let xml = await (zip.file(name) as JSZip.JSZipObject).async("string");
    xml = xml.replace(
      /<c ([^>]*?)(?: t="(?:str|n|b|e)")?([^>]*)><f>([^<]*)<\/f><v>[^<]*<\/v><\/c>/g,
      "<c $1$2><f>$3</f></c>",
    );
    if (name === `xl/worksheets/sheet${sheet}.xml`)
      for (const [ref, v] of Object.entries(values)) {
        const re = new RegExp(`<c r="${ref}"([^>]*?)(?: t="[a-z]+")?([^>]*)>(?:<v>[^<]*</v>)?</c>`);
        if (!re.test(xml)) throw new Error(`no cell ${ref} to edit`);
        xml = xml.replace(re, `<c r="${ref}"$1$2><v>${v}</v></c>`);
      }
    zip.file(name, xml);
  }
  return zip.generateAsync({ type: "nodebuffer" });
}

/** Cells where `got` differs from `want` (numbers to 1e-9 relative or 1e-13 of `scale`; texts exactly). */
function differences(got: Cells, want: Cells, scale: number): string[] {
  const out: string[] = [];
  for (const [key, w] of want) {
    const g = got.get(key);
    const ok =
      typeof w === "number"
        ? typeof g === "number" && Math.abs(g - w) <= 1e-9 * Math.abs(w) + 1e-13 * scale
        : g === w || (w === "" && g === undefined);
    if (!ok) out.push(`${key}: LibreOffice ${String(g)}, expected ${String(w)}`);
  }
  return out;
}

/** Every cell of a case sheet plan, keyed "row,col" (0-based), the tables laid out as `layout`'s. */
function caseCells(want: CasePlan, layout: CasePlan): Cells {
  const out: Cells = new Map();
  const sheet = want.plan.sheets[0];
  sheet.notes.forEach((n, r) => out.set(`${r},0`, n));
  const placed = layout.plan.sheets[0].tables;
  sheet.tables.forEach((t: TablePlan, k) => {
    const at = placed[k].at as { row: number; col: number };
    // Rows ordered by their figures when the sheet is built (Sensitivity, BreakEven): matched by driver.
    const rows = placed[k].rows.map((r) =>
      BY_DRIVER.includes(t.name) ? (t.rows.find((x) => x[0] === r[0]) as CellValue[]) : null,
    );
    t.rows.forEach((row, i) =>
      (rows[i] ?? row).forEach((cell, j) => {
        const v = cellResult(cell);
        if (typeof v === "number" || (typeof v === "string" && v !== "")) out.set(`${at.row + 1 + i},${at.col + j}`, v);
      }),
    );
  });
  return out;
}

const describeLo = (name: string, fn: () => void): void =>
  describeUnless(SOFFICE ? null : "soffice (LibreOffice) not installed; CI installs libreoffice-calc-nogui", name, fn);

describeLo("caplab report --case: the lab and the case in one workbook, live", () => {
  let dir: string;
  let cached: Cells[];
  let recalculated: Cells[];
  let edited: Cells[];
  let linked: CasePlan;
  let typed: CasePlan;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "caplab-report-case-"));
    const caseFile = path.join(dir, "case.json");
    fs.writeFileSync(caseFile, JSON.stringify(CASE));
    const out = path.join(dir, "report.xlsx");
    const said: string[] = [];
    const code = await run([...INPUTS, "--case", caseFile, "-o", out], {
      out: (t) => said.push(t),
      err: () => undefined,
    });
    if (code !== 0) throw new Error(`caplab report --case exited ${code}`);
    const bytes = fs.readFileSync(out);
    cached = await xlsxValues(bytes);
    // The same lab plan in process, for the case's layout and the What-if line's cells.
    const lab = buildLabAnalysis(INPUTS.map((f) => readLabText(fs.readFileSync(f, "utf8"), f))).plan;
    linked = casePlanFromJson(linkCaseToLab(CASE, lab));
    expect(said.join("")).toContain(linked.plan.sheets[0].notes[1]);
    const whatIf = lab.sheets.findIndex((s) => s.name === "What-if") + 1;
    const nfs = linked.input.options[0].workloads[0];
    const ref = (r: string | undefined): string => (r as string).replace(/^'What-if'!/, "").replace(/\$/g, "");
    fs.writeFileSync(path.join(dir, "stripped.xlsx"), await strippedXlsx(bytes));
    fs.writeFileSync(
      path.join(dir, "edited.xlsx"),
      await strippedXlsx(bytes, whatIf, {
        [ref(nfs.arrivalRateRef)]: EDIT.current,
        [ref(nfs.growthRef)]: EDIT.growthPct,
      }),
    );
    // What caplab case gives for the same numbers typed in (no references).
    const json = structuredClone(linkCaseToLab(CASE, lab)) as typeof CASE & {
      options: { workloads: Record<string, unknown>[] }[];
    };
    for (const o of json.options)
      for (const w of o.workloads)
        for (const k of ["serviceTimeRef", "serviceTimeRefDivisor", "arrivalRateRef", "growthRef", "growthRefDivisor"])
          delete w[k];
    json.options[0].workloads[0].arrivalRate = EDIT.current;
    json.options[0].workloads[0].growth = EDIT.growthPct / 100;
    typed = casePlanFromJson(json);
    convert(SOFFICE as string, recalculatingProfile(dir), "xlsx", path.join(dir, "out"), [
      path.join(dir, "stripped.xlsx"),
      path.join(dir, "edited.xlsx"),
    ]);
    recalculated = await xlsxValues(fs.readFileSync(path.join(dir, "out", "stripped.xlsx")));
    edited = await xlsxValues(fs.readFileSync(path.join(dir, "out", "edited.xlsx")));
  }, 300_000);

  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("refers to the What-if and Model cells: current load, growth and service time are formulas, not copies", () => {
    const nfs = linked.input.options[0].workloads[0];
    expect(nfs.arrivalRateRef).toMatch(/^'What-if'!\$B\$\d+$/);
    expect(nfs.growthRef).toMatch(/^'What-if'!\$C\$\d+$/);
    expect(nfs.serviceTimeRef).toMatch(/^'Model'!\$[A-Z]+\$\d+$/);
    const growth = linked.plan.sheets[0].tables.find((t) => t.name === "Growth") as TablePlan;
    const col = growth.columns.findIndex((c) => c.key === "growth");
    expect(growth.rows[0][col]).toEqual({ formula: `${nfs.growthRef}/100`, result: nfs.growth });
  });

  it("LibreOffice recalculates every sheet to the values the file carries", () => {
    expect(recalculated.length).toBe(cached.length);
    const scale = Math.max(...linked.result.options.map((o) => Math.abs(o.npv)));
    cached.forEach((sheet, n) => {
      const want = new Map([...sheet].filter(([, v]) => v !== ""));
      expect({ sheet: n, differences: differences(recalculated[n], want, scale) }).toEqual({
        sheet: n,
        differences: [],
      });
    });
  });

  it("editing current load and growth on What-if moves the case's purchases to what caplab case gives for them typed in", () => {
    const bought = (c: CasePlan): number[] =>
      c.result.options[0].workloads[0].plans?.base.years.map((y) => y.bought) ?? [];
    expect(bought(typed)).not.toEqual(bought(linked));
    expect(bought(typed).some((b) => b > 0)).toBe(true);
    expect(typed.result.recommended).toBe(linked.result.recommended);
    const caseSheet = edited[edited.length - 1];
    const scale = Math.max(...typed.result.options.map((o) => Math.abs(o.npv)));
    const want = caseCells(typed, linked);
    expect(differences(caseSheet, want, scale)).toEqual([]);
    expect(caseSheet.get("1,0")).toBe(typed.plan.sheets[0].notes[1]);
  });
});
