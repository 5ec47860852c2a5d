/**
 * The load row of the Sensitivity table and the Scenarios follow an edit of the arrival rates in
 * another program: a fixed staff that cannot carry its load at a load factor is said to, never
 * costed as if it coped. LibreOffice Calc (headless) opens the fixed-staff helpdesk case
 * (examples/helpdesk-fixed-staff.json: today's 21 agents, 3 calls/min of 6.5 min) with every cached
 * formula result removed and every arrival rate edited in the Capacity table, and recalculates it.
 * Which sides cannot carry is known from the input alone (21 agents carry λ·factor·S erlangs only
 * below 21); every Sensitivity and Scenarios cell must equal what `caplab case` gives for the JSON
 * with the same rates typed in (`casePlanFromJson`, built again), numbers to 1e-9 relative, words
 * exactly. The row compares the option the case recommends with the baseline; each edit keeps that
 * option (so the rebuilt case's row means the same) and moves an option across the line, both ways:
 * - high factor 1.05 (21 agents carry 3 × 1.05 × 6.5 = 20.475 erlangs), every rate +5 % on the sheet
 *   (3.15 × 1.05 × 6.5 = 21.5 ≥ 21: today's staff cannot; the overflow contract's 22 can);
 * - high factor 1.1 at 3.15 calls/min (22.52 erlangs: neither 21 nor 22 agents carry it), every rate
 *   back to 3 (21.45: the 22 can again);
 * - the first two options only, high factor 1.05, every rate +10 % (22.52 at high, 21.45 at base:
 *   today's staff carries neither).
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
interface CaseJson {
  sensitivity?: { load?: { low?: number; high?: number } };
  options: { name: string; workloads?: { arrivalRate: number; serviceTime: number; sizing: { servers?: number } }[] }[];
}
const EXAMPLE = JSON.parse(
  fs.readFileSync(path.join(__dirname, "..", "..", "examples", "helpdesk-fixed-staff.json"), "utf8"),
) as CaseJson;

interface Edit {
  name: string;
  before: (c: CaseJson) => void;
  /** Every arrival rate × this, on the sheet and in the JSON. */
  factor: number;
}

const scaled = (c: CaseJson, factor: number): void =>
  c.options.forEach((o) => o.workloads?.forEach((w) => (w.arrivalRate *= factor)));

const EDITS: Edit[] = [
  {
    name: "high load 1.05, every rate +5 %: today's 21 agents cannot carry the high load",
    before: (c) => (c.sensitivity = { load: { low: 0.7, high: 1.05 } }),
    factor: 1.05,
  },
  {
    name: "high load 1.1 at 3.15 calls/min, every rate back to 3: the overflow contract's 22 agents carry it again",
    before: (c) => {
      c.sensitivity = { load: { low: 0.7, high: 1.1 } };
      scaled(c, 1.05);
    },
    factor: 1 / 1.05,
  },
  {
    name: "today against staffing to 80 % only, every rate +10 %: today's staff cannot carry the high load, nor its base",
    before: (c) => {
      c.sensitivity = { load: { low: 0.7, high: 1.05 } };
      c.options.splice(2, 1);
    },
    factor: 1.1,
  },
];

function table(plan: WorkbookPlan, name: string): TablePlan {
  return plan.sheets[0].tables.find((t) => t.name === name) as TablePlan;
}

/** The plan without cached results, every arrival rate × `factor` in the Capacity table's input cells. */
function editedSheet(plan: WorkbookPlan, factor: number): WorkbookPlan {
  const copy = withoutCachedValues(plan);
  const capacity = table(copy, "Capacity");
  const col = capacity.columns.findIndex((c) => c.key === "rate");
  for (const row of capacity.rows) row[col] = (row[col] as number) * factor;
  return copy;
}

/** The JSON's fixed staffs that cannot carry their load at the high factor: c ≤ λ·factor·S (from the input alone). */
function overloadedAtHigh(json: CaseJson): string[] {
  const high = json.sensitivity?.load?.high ?? 1.3;
  return json.options
    .filter((o) =>
      (o.workloads ?? []).some(
        (w) => w.sizing.servers !== undefined && w.sizing.servers <= w.arrivalRate * high * w.serviceTime,
      ),
    )
    .map((o) => o.name);
}

/** Every cell of the Sensitivity (by driver) and Scenarios tables: address in `layout`, value in `values`. */
function cells(layout: CasePlan, values: CasePlan): { what: string; key: string; value: unknown }[] {
  const out: { what: string; key: string; value: unknown }[] = [];
  for (const name of ["Sensitivity", "Scenarios"]) {
    const at = table(layout.plan, name);
    const from = table(values.plan, name);
    at.rows.forEach((row, i) => {
      const same = from.rows.find((r) => r[0] === row[0]);
      if (!same) throw new Error(`${name}: no row ${String(row[0])} in the edited case`);
      at.columns.forEach((c, j) =>
        out.push({
          what: `${name} ${String(row[0])} ${c.key}`,
          key: `${at.at.row + 1 + i},${at.at.col + j}`,
          value: cellResult(same[j]),
        }),
      );
    });
  }
  return out;
}

function same(got: unknown, want: unknown): boolean {
  if (typeof want === "number")
    return typeof got === "number" && Math.abs(got - want) <= 1e-9 * Math.max(1, Math.abs(want));
  if (want === null || want === "") return got === undefined || got === "";
  return got === want;
}

const describeLo = (name: string, fn: () => void): void =>
  describeUnless(SOFFICE ? null : "soffice (LibreOffice) not installed; CI installs libreoffice-calc-nogui", name, fn);

describeLo("load sensitivity and scenarios say 'cannot carry' after a rate edit in LibreOffice", () => {
  let dir: string;
  const got = new Map<string, Map<string, number | string>>();
  const built = new Map<string, CasePlan>();

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "caplab-sensitivity-lo-"));
    const files: string[] = [];
    for (const [k, e] of EDITS.entries()) {
      const json = structuredClone(EXAMPLE);
      e.before(json);
      const plan = casePlanFromJson(json);
      built.set(e.name, plan);
      const file = path.join(dir, `edit${k}.xlsx`);
      fs.writeFileSync(file, await renderXlsx(editedSheet(plan.plan, e.factor)));
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
    const before = built.get(name) as CasePlan;
    const overBefore = overloadedAtHigh(json);
    scaled(json, e.factor);
    const want = casePlanFromJson(json);
    const overAfter = overloadedAtHigh(json);
    // The edit moves an option across the line, one way or the other.
    expect(overAfter).not.toEqual(overBefore);
    // The rebuilt case compares the same option with the baseline (else its row means something else).
    expect(want.result.recommended).toBe(before.result.recommended);
    const sheet = got.get(name) as Map<string, number | string>;
    const loadHigh = cells(before, want).find((c) => c.what === "Sensitivity Load (× every arrival rate) saving_high");
    // The words where the baseline or the compared option cannot carry the high load (known from the
    // input), a number where both can.
    const compared = [0, before.result.recommended]
      .map((i) => json.options[i].name)
      .filter((n) => overAfter.includes(n));
    expect(sheet.get(loadHigh!.key)).toEqual(
      compared.length === 0
        ? expect.any(Number)
        : `${compared.join(" and ")} ${compared.length === 1 ? "cannot carry its load" : "cannot carry their load"}`,
    );
    const wrong = cells(before, want)
      .filter((c) => !same(sheet.get(c.key), c.value))
      .map((c) => `${c.what}: LibreOffice ${String(sheet.get(c.key))}, caplab case ${String(c.value)}`);
    expect(wrong).toEqual([]);
    // Scenarios: each fixed staff over its load at the high factor says so.
    const scenarios = table(want.plan, "Scenarios");
    const high = scenarios.columns.findIndex((c) => c.key === "npv_high");
    for (const row of scenarios.rows)
      expect([row[0], cellResult(row[high])]).toEqual([
        row[0],
        overAfter.includes(String(row[0])) ? "cannot carry its load" : expect.any(Number),
      ]);
  });
});
