/**
 * A case whose load grows, opened by another program: LibreOffice Calc (headless) loads each
 * workbook with every cached formula result removed, recalculates and saves it; every cell it
 * computes (numbers to 1e-9 relative, texts word for word, the conclusion line) must equal the
 * case's own figures. Then the growth cell of the Growth table is edited (+10 points) in the
 * stripped file and recalculated: every cell must equal what the case gives for the JSON with the
 * same growth typed in (`casePlanFromJson`, built again, not read from the file) — the purchases,
 * the costs, the tornado, the conclusion and the decision layer (the Probes table's grid, the
 * break-even moves, their ranks, the confidence and the closest break-even) follow the edit.
 *
 * Cases: examples/growing-datastore.json, and variants covering one rate per year, the headroom
 * policy, response and service-level targets, a fixed-server workload beside a growing one, a
 * shrinking year and a residual value; and 24 seeded two-option cases (every sizing target, compound
 * or per-year growth from −20 % to +100 %, both policies, purchase units 1–8). Needs LibreOffice
 * (`soffice`).
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { casePlanFromJson, CasePlan } from "../../src/case/case-plan";
import { cellResult, CellValue, WorkbookPlan } from "../../src/workbook/plan";
import { renderXlsx } from "../../src/report/xlsx";
import { convert, findSoffice, recalculatingProfile, withoutCachedValues, xlsxValues } from "./libreoffice";
import { describeUnless } from "../helpers/skip";
import { relaid } from "./growth-compare";

const ROOT = path.join(__dirname, "..", "..");
const SOFFICE = findSoffice();

type Case = { options: { workloads: Record<string, unknown>[]; [k: string]: unknown }[]; [k: string]: unknown };
const EXAMPLE = JSON.parse(fs.readFileSync(path.join(ROOT, "examples", "growing-datastore.json"), "utf8")) as Case;

/** The example changed by `edit` (a deep copy). */
function variant(edit: (c: Case) => void): Case {
  const c = structuredClone(EXAMPLE);
  edit(c);
  return c;
}

/** A seeded generator (Park–Miller), so the generated cases are the same on every run. */
function generator(seed: number): (lo: number, hi: number) => number {
  let x = seed;
  return (lo, hi) => {
    x = (x * 48271) % 2147483647;
    return lo + ((x - 1) / 2147483646) * (hi - lo);
  };
}

/** A two-option growth case drawn at random: every sizing target, compound or per-year growth, both policies. */
function generated(k: number): Case {
  const r = generator(1000 + k);
  const pick = <T>(xs: T[]): T => xs[Math.min(xs.length - 1, Math.floor(r(0, xs.length)))];
  const years = Math.round(r(2, 7));
  const workload = (name: string): Record<string, unknown> => {
    const s = 10 ** r(-4, 0);
    const load = 10 ** r(-0.5, 1.5);
    const kind = pick(["utilization", "response", "serviceLevel"]);
    const sizing =
      kind === "utilization"
        ? { utilization: r(0.4, 0.95) }
        : kind === "response"
          ? { response: s * r(1.05, 3) }
          : { serviceLevel: r(0.6, 0.95), answerWithin: s * r(0, 1) };
    return {
      name,
      arrivalRate: load / s,
      serviceTime: s,
      sizing,
      growth: r(0, 1) < 0.5 ? r(-0.2, 1) : Array.from({ length: years }, () => r(-0.2, 1)),
      installed: Math.round(r(0, 2 * load + 4)),
      purchaseUnit: Math.round(r(1, 8)),
      purchasePolicy: pick(["asNeeded", "headroom"]),
    };
  };
  return {
    title: `Generated growth case ${k}`,
    years,
    discountRate: r(0, 0.15),
    options: [
      { name: "A", costPerServer: r(0, 5000), costPerServerPerYear: r(0, 900), workloads: [workload("IO")] },
      {
        name: "B",
        capex: r(0, 20000),
        costPerServer: r(0, 5000),
        costPerServerPerYear: r(0, 900),
        workloads: [workload("IO"), workload("Batch")],
      },
    ],
  };
}

const CASES: Record<string, Case> = {
  example: EXAMPLE,
  // One rate per year, headroom policy, a residual value, a shrinking year.
  perYear: variant((c) => {
    c.options[0].workloads[0].growth = [0.4, -0.2, 0.9, 0.1, 0.3];
    c.options[0].workloads[0].purchasePolicy = "headroom";
    c.options[1].workloads[0].purchaseUnit = 1;
    c.options[1].workloads[0].installed = 0;
    c.options[1].residualValue = 2500;
  }),
  // Response and service-level targets, a second (fixed-server) workload beside a growing one.
  targets: variant((c) => {
    c.years = 6;
    c.options[0].workloads[0].sizing = { response: 0.0001 };
    c.options[0].workloads[0].growth = 0.5;
    c.options[1].workloads[0].sizing = { serviceLevel: 0.9, answerWithin: 0.00001 };
    c.options[1].workloads[0].purchasePolicy = "headroom";
    c.options[1].workloads.push({ name: "Backup IO", arrivalRate: 2000, serviceTime: 0.0002, sizing: { servers: 2 } });
  }),
  ...Object.fromEntries(Array.from({ length: 24 }, (_, k) => [`generated${k}`, generated(k)])),
};

/** Every cell the plan shows (numbers and texts, formulas by their cached result), keyed "row,col". */
function plannedCells(plan: WorkbookPlan): Map<string, number | string> {
  const out = new Map<string, number | string>();
  const sheet = plan.sheets[0];
  sheet.notes.forEach((n, r) => out.set(`${r},0`, n));
  for (const t of sheet.tables) {
    const at = t.at as { row: number; col: number };
    t.rows.forEach((row, i) =>
      row.forEach((cell: CellValue, j) => {
        const v = cellResult(cell);
        if (typeof v === "number" || (typeof v === "string" && v !== "")) out.set(`${at.row + 1 + i},${at.col + j}`, v);
      }),
    );
  }
  return out;
}

/** The stripped plan with option 0's first workload's growth cell raised by `points`. */
function withGrowthEdited(plan: WorkbookPlan, points: number): WorkbookPlan {
  const copy = withoutCachedValues(plan);
  const growth = copy.sheets[0].tables.find((t) => t.name === "Growth");
  if (!growth) throw new Error("no Growth table");
  const col = growth.columns.findIndex((c) => c.key === "growth");
  growth.rows[0][col] = (growth.rows[0][col] as number) + points;
  return copy;
}

/** Equal: numbers within 1e-9 relative (or 1e-13 of `scale`: Calc rounds cancellations to 0), texts exactly. */
function same(actual: number | string | undefined, expected: number | string, scale: number): boolean {
  if (typeof expected === "string") return actual === expected;
  return typeof actual === "number" && Math.abs(actual - expected) <= 1e-9 * Math.abs(expected) + 1e-13 * scale;
}

/** The cells where LibreOffice differs from the plan, as "row,col: got, want" lines. */
function differences(got: Map<string, number | string>, plan: CasePlan): string[] {
  const scale = Math.max(...plan.result.options.map((o) => Math.abs(o.npv)));
  const out: string[] = [];
  for (const [key, want] of plannedCells(plan.plan))
    if (!same(got.get(key), want, scale)) out.push(`${key}: LibreOffice ${String(got.get(key))}, the case ${want}`);
  return out;
}

const describeLo = (name: string, fn: () => void): void =>
  describeUnless(SOFFICE ? null : "soffice (LibreOffice) not installed; CI installs libreoffice-calc-nogui", name, fn);

describeLo("growth cases recalculated by LibreOffice", () => {
  let dir: string;
  const built = new Map<string, CasePlan>();
  const edited = new Map<string, CasePlan>();
  const recalculated = new Map<string, Map<string, number | string>>();
  const compound = Object.keys(CASES).filter((n) => typeof CASES[n].options[0].workloads[0].growth === "number");

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "caplab-growth-lo-"));
    const files: string[] = [];
    for (const [name, json] of Object.entries(CASES)) {
      const plan = casePlanFromJson(json);
      built.set(name, plan);
      fs.writeFileSync(path.join(dir, `${name}.xlsx`), await renderXlsx(withoutCachedValues(plan.plan)));
      files.push(path.join(dir, `${name}.xlsx`));
      if (!compound.includes(name)) continue;
      const raised = structuredClone(json);
      raised.options[0].workloads[0].growth = (json.options[0].workloads[0].growth as number) + 0.1;
      edited.set(name, casePlanFromJson(raised));
      fs.writeFileSync(path.join(dir, `${name}.plus10.xlsx`), await renderXlsx(withGrowthEdited(plan.plan, 0.1)));
      files.push(path.join(dir, `${name}.plus10.xlsx`));
    }
    convert(SOFFICE as string, recalculatingProfile(dir), "xlsx", path.join(dir, "out"), files);
    for (const f of files) {
      const out = path.join(dir, "out", path.basename(f));
      recalculated.set(path.basename(f, ".xlsx"), (await xlsxValues(fs.readFileSync(out)))[0]);
    }
  }, 300_000);

  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it.each(Object.keys(CASES))("%s: every cell recalculates to the case's value", (name) => {
    const plan = built.get(name) as CasePlan;
    expect(plan.plan.sheets[0].tables.some((t) => t.name === "PurchasePlan")).toBe(true);
    expect(plannedCells(plan.plan).size).toBeGreaterThan(300);
    expect(differences(recalculated.get(name) as Map<string, number | string>, plan)).toEqual([]);
  });

  it.each(compound)(
    "%s: growth +10 points on the sheet gives what caplab case gives for the edited file, cell for cell",
    (name) => {
      const want = edited.get(name) as CasePlan;
      const before = built.get(name) as CasePlan;
      // The edit moves the loads (and in the example, the purchases: else the comparison would prove little).
      const years = (c: CasePlan) => c.result.options[0].workloads[0].plans?.base.years ?? [];
      expect(years(want).map((y) => y.loadEnd)).not.toEqual(years(before).map((y) => y.loadEnd));
      if (name === "example") expect(years(want).map((y) => y.bought)).not.toEqual(years(before).map((y) => y.bought));
      const got = recalculated.get(`${name}.plus10`) as Map<string, number | string>;
      expect(differences(got, relaid(want, before))).toEqual([]);
      expect(got.get("1,0")).toBe(want.plan.sheets[0].notes[1]);
    },
  );
});
