/**
 * Edits in LibreOffice follow the choice, the conclusion and the confidence word for word as
 * `caplab case` gives them for the equally edited input: the sheet's verdict is never left stale.
 *
 * For each case below (two with fixed staff: today's helpdesk agents, and the two sites of the
 * merger), the plan is written with every cached formula result removed and the edit made in the
 * sheet — every arrival rate raised 10 % in the Capacity table's input cells — and LibreOffice
 * recalculates it. Then:
 * - no option that cannot carry its load or misses the service target is chosen (the choice
 *   `caplab case` makes for the edited JSON qualifies, and the sheet shows the same choice);
 * - the conclusion line, the Choose row, the Confidence row and the Closest break-even (the
 *   decision layer's grid, live) equal what `casePlanFromJson` gives for the edited JSON, word for word.
 * The same for an edit that makes an option infeasible by lowering a fixed staff in the sheet.
 *
 * Needs LibreOffice (`soffice`); without it the test fails under CI=true and is skipped, saying
 * so, elsewhere.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { casePlanFromJson, CasePlan } from "../../src/case/case-plan";
import { cellResult, TablePlan, WorkbookPlan } from "../../src/workbook/plan";
import { renderXlsx } from "../../src/report/xlsx";
import { convert, csvRows, findSoffice, recalculatingProfile, withoutCachedValues } from "./libreoffice";
import { describeUnless } from "../helpers/skip";

const SOFFICE = findSoffice();
const describeLo = (name: string, fn: () => void): void =>
  describeUnless(SOFFICE ? null : "soffice (LibreOffice) not installed; CI installs libreoffice-calc-nogui", name, fn);
const EXAMPLES = path.join(__dirname, "..", "..", "examples");

interface Edit {
  name: string;
  file: string;
  /** The edit made to the JSON, for caplab case. */
  json: (j: CaseJson) => void;
  /** The same edit made to the plan's input cells (cached results already removed). */
  sheet: (plan: WorkbookPlan) => void;
}

interface CaseJson {
  options: { workloads?: { arrivalRate: number; sizing: { servers?: number } }[] }[];
}

function table(plan: WorkbookPlan, name: string): TablePlan {
  return plan.sheets[0].tables.find((t) => t.name === name) as TablePlan;
}

/** Every arrival rate × factor, in the Capacity table's rate column (the inputs). */
function scaleRates(plan: WorkbookPlan, factor: number): void {
  const capacity = table(plan, "Capacity");
  const col = capacity.columns.findIndex((c) => c.key === "rate");
  for (const row of capacity.rows) row[col] = (row[col] as number) * factor;
}

const EDITS: Edit[] = [
  {
    name: "every arrival rate +10 %, today's 21 agents",
    file: "helpdesk-fixed-staff.json",
    json: (j) => j.options.forEach((o) => o.workloads?.forEach((w) => (w.arrivalRate *= 1.1))),
    sheet: (p) => scaleRates(p, 1.1),
  },
  {
    name: "every arrival rate +10 %, two sites merging",
    file: "merging-helpdesks.json",
    json: (j) => j.options.forEach((o) => o.workloads?.forEach((w) => (w.arrivalRate *= 1.1))),
    sheet: (p) => scaleRates(p, 1.1),
  },
  {
    name: "site B's staff lowered from 6 to 5 (it cannot carry its load)",
    file: "merging-helpdesks.json",
    json: (j) => {
      const w = j.options[0].workloads?.[1];
      if (w) w.sizing.servers = 5;
    },
    sheet: (p) => {
      const capacity = table(p, "Capacity");
      capacity.rows[1][capacity.columns.findIndex((c) => c.key === "target")] = 5;
    },
  },
];

/** The Recommendation row's value cell as the plan caches it, by its label. */
function verdict(c: CasePlan, label: string): unknown {
  const rec = table(c.plan, "Recommendation");
  return cellResult(rec.rows.find((r) => r[0] === label)?.[1] ?? null);
}

describeLo("edits in LibreOffice give the words caplab case gives for the edited input", () => {
  let dir: string;
  const grids = new Map<string, string[][]>();
  const built = new Map<string, CasePlan>();

  beforeAll(() => {
    if (!SOFFICE) throw new Error("soffice (LibreOffice) is not installed");
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "caplab-case-edits-"));
    return (async () => {
      const files: string[] = [];
      for (const [k, e] of EDITS.entries()) {
        const plan = casePlanFromJson(JSON.parse(fs.readFileSync(path.join(EXAMPLES, e.file), "utf8")));
        built.set(e.file, plan);
        const edited = withoutCachedValues(plan.plan);
        e.sheet(edited);
        const out = path.join(dir, `edit${k}.xlsx`);
        fs.writeFileSync(out, await renderXlsx(edited));
        files.push(out);
      }
      const outDir = path.join(dir, "csv");
      convert(SOFFICE, recalculatingProfile(dir), "csv", outDir, files);
      for (const f of fs.readdirSync(outDir))
        grids.set(f.replace(/-Business case\.csv$/, ""), csvRows(fs.readFileSync(path.join(outDir, f), "utf8")));
    })();
  }, 200_000);

  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it.each(EDITS.map((e, k) => [e.name, k] as const))("%s", (_name, k) => {
    const e = EDITS[k];
    const json = JSON.parse(fs.readFileSync(path.join(EXAMPLES, e.file), "utf8")) as CaseJson;
    e.json(json);
    const want = casePlanFromJson(json);
    const grid = grids.get(`edit${k}`) as string[][];
    expect(grid).toBeDefined();
    // The choice is one that qualifies (the helpdesk's 21 agents and site B's 5 stop qualifying).
    if (k !== 1) expect(want.result.options.some((o) => !o.qualifies)).toBe(true);
    expect(want.result.chosen).toBeGreaterThanOrEqual(0);
    expect(want.result.options[want.result.chosen].qualifies).toBe(true);
    const before = built.get(e.file) as CasePlan;
    expect(verdict(want, "Confidence")).not.toBe(undefined);
    // The conclusion line and the verdict, word for word.
    expect(grid[1][0]).toBe(want.plan.sheets[0].notes[1]);
    const rec = table(want.plan, "Recommendation");
    const at = rec.at;
    for (const label of ["Choose", "Confidence", "Closest break-even"]) {
      const i = rec.rows.findIndex((r) => r[0] === label);
      expect([label, grid[at.row + 1 + i][at.col + 1]]).toEqual([label, verdict(want, label)]);
    }
    // And it is an edit the sheet had to follow: the built sheet said something else.
    expect(
      [before.plan.sheets[0].notes[1], verdict(before, "Choose"), verdict(before, "Confidence")].join("\n"),
    ).not.toBe([want.plan.sheets[0].notes[1], verdict(want, "Choose"), verdict(want, "Confidence")].join("\n"));
  });
});
