/**
 * "Installed servers run out" follows edits in another program: LibreOffice Calc (headless) opens
 * a growth case with every cached formula result removed and one input edited on the sheet, and
 * recalculates it; the recommendation box's runs-out words, the Growth table's "runs out in year"
 * column and the conclusion line must equal what `caplab case` (`casePlanFromJson`) gives for the
 * JSON with the same edit typed in, word for word. The edits change which options the words name:
 * - the example (examples/growing-datastore.json) with FC's growth raised 10 points (23 % → 33 %):
 *   FC, which did not run out, runs out (its 12 cores carry 70,000 IO/s × 41 µs × 1.33^4 = 8.98
 *   erlangs at 70 % only with 13);
 * - FC with nothing installed (not named: it buys what it needs), then 12 cores typed in;
 * - neither option with anything installed ("No option has servers installed"), then 12 NFS cores
 *   typed in.
 * Needs LibreOffice (`soffice`).
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { casePlanFromJson, CasePlan } from "../../src/case/case-plan";
import { cellResult, TablePlan, WorkbookPlan } from "../../src/workbook/plan";
import { renderXlsx } from "../../src/report/xlsx";
import { convert, findSoffice, recalculatingProfile, withoutCachedValues, xlsxValues } from "./libreoffice";
import { describeUnless } from "../helpers/skip";

const SOFFICE = findSoffice();
type Case = { options: { workloads: Record<string, unknown>[] }[] };
const EXAMPLE = JSON.parse(
  fs.readFileSync(path.join(__dirname, "..", "..", "examples", "growing-datastore.json"), "utf8"),
) as Case;

interface Edit {
  name: string;
  /** The case before the edit. */
  before: (c: Case) => void;
  /** The edit: option, Growth-table column, new value (the same field of the JSON). */
  option: number;
  column: "growth" | "installed";
  value: number;
}

const EDITS: Edit[] = [
  { name: "FC's growth +10 points: FC runs out too", before: () => {}, option: 1, column: "growth", value: 0.33 },
  {
    name: "FC with nothing installed, then 12 cores typed in",
    before: (c) => (c.options[1].workloads[0].installed = 0),
    option: 1,
    column: "installed",
    value: 12,
  },
  {
    name: "nothing installed anywhere, then 12 NFS cores typed in",
    before: (c) => c.options.forEach((o) => (o.workloads[0].installed = 0)),
    option: 0,
    column: "installed",
    value: 12,
  },
];

function table(plan: WorkbookPlan, name: string): TablePlan {
  return plan.sheets[0].tables.find((t) => t.name === name) as TablePlan;
}

/** The plan with every formula's cached result removed and the edit made in the Growth table's input cell. */
function editedSheet(plan: WorkbookPlan, e: Edit): WorkbookPlan {
  const copy = withoutCachedValues(plan);
  const growth = table(copy, "Growth");
  // One workload per option in the example: option i's row is row i.
  growth.rows[e.option][growth.columns.findIndex((c) => c.key === e.column)] = e.value;
  return copy;
}

/** The cells the test reads: the recommendation's runs-out words and the Growth table's runs-out column. */
function watched(plan: WorkbookPlan): { key: string; what: string; value: unknown }[] {
  const rec = table(plan, "Recommendation");
  const r = rec.rows.findIndex((row) => row[0] === "Installed servers run out");
  const growth = table(plan, "Growth");
  const col = growth.columns.findIndex((c) => c.key === "runs_out");
  return [
    { key: `${rec.at.row + 1 + r},${rec.at.col + 1}`, what: "runs-out words", value: cellResult(rec.rows[r][1]) },
    ...growth.rows.map((row, i) => ({
      key: `${growth.at.row + 1 + i},${growth.at.col + col}`,
      what: `Growth row ${i} runs out in year`,
      value: cellResult(row[col]),
    })),
  ];
}

const describeLo = (name: string, fn: () => void): void =>
  describeUnless(SOFFICE ? null : "soffice (LibreOffice) not installed; CI installs libreoffice-calc-nogui", name, fn);

describeLo("the runs-out words follow edits of growth and installed servers in LibreOffice", () => {
  let dir: string;
  const got = new Map<string, Map<string, number | string>>();
  const built = new Map<string, CasePlan>();

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "caplab-runs-out-lo-"));
    const files: string[] = [];
    for (const [k, e] of EDITS.entries()) {
      const json = structuredClone(EXAMPLE);
      e.before(json);
      const plan = casePlanFromJson(json);
      built.set(e.name, plan);
      const file = path.join(dir, `edit${k}.xlsx`);
      fs.writeFileSync(file, await renderXlsx(editedSheet(plan.plan, e)));
      files.push(file);
    }
    convert(SOFFICE as string, recalculatingProfile(dir), "xlsx", path.join(dir, "out"), files);
    for (const [k, e] of EDITS.entries())
      got.set(e.name, (await xlsxValues(fs.readFileSync(path.join(dir, "out", `edit${k}.xlsx`))))[0]);
  }, 200_000);

  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it.each(EDITS.map((e) => [e.name, e] as const))("%s", (name, e) => {
    const json = structuredClone(EXAMPLE);
    e.before(json);
    json.options[e.option].workloads[0][e.column] = e.value;
    const want = casePlanFromJson(json);
    const before = built.get(name) as CasePlan;
    const sheet = got.get(name) as Map<string, number | string>;
    // The edit changes the words (else following it would prove nothing).
    const words = (c: CasePlan): unknown => watched(c.plan)[0].value;
    expect(words(want)).not.toEqual(words(before));
    // Addresses as the edited sheet lays them out (the built case's), values as caplab case gives them.
    const at = watched(before.plan);
    watched(want.plan).forEach((w, n) => expect([w.what, sheet.get(at[n].key)]).toEqual([w.what, w.value]));
    expect(sheet.get("1,0")).toBe(want.plan.sheets[0].notes[1]);
  });
});
