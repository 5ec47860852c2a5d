/**
 * The steady state on the Steps sheet comes from iogen's summary CSV (schema 3: `steady_from`,
 * `seen_enough`), not from SEEN_ENOUGH re-run here, and a step that never reached it is a warning
 * on the Summary and in the JSON answer. Older CSVs (no `steady_from`) keep working, with the
 * sheet saying the rule was re-computed here.
 *
 * fixtures/steady-state (written by its generate.py, expected.json from numpy): step 1 has a
 * 5-subinterval transient before iogen's steady_from = 6, step 2 never reached steady state,
 * step 3 ran without --seen-enough. fixtures/issue-4step is an older CSV without the column.
 */
import * as fs from "fs";
import * as path from "path";
import { readLabText } from "../../src/import/detect";
import { buildLabAnalysis } from "../../src/lab/lab-plan";
import { RESULT_METRICS } from "../../src/lab/data-metrics";
import { labJson } from "../../src/lab/json";
import { SheetPlan, tableCell, TablePlan, WorkbookPlan } from "../../src/workbook/plan";

const FIX = path.join(__dirname, "fixtures");

function analyse(dir: string): ReturnType<typeof buildLabAnalysis> {
  return buildLabAnalysis(
    ["subintervals.csv", "summary.csv"].map((f) => readLabText(fs.readFileSync(path.join(FIX, dir, f), "utf8"), f)),
  );
}

const sheet = (plan: WorkbookPlan, name: string): SheetPlan => plan.sheets.find((s) => s.name === name)!;
function column(t: TablePlan, header: string): unknown[] {
  const j = t.columns.findIndex((c) => c.header === header);
  if (j < 0) throw new Error(`no column ${header} in ${t.columns.map((c) => c.header).join(", ")}`);
  return t.rows.map((_, i) => tableCell(t, i, j));
}

interface Expected {
  seen_enough: string;
  steady_from: number | null;
  window_subintervals: number;
  mean_iops: number;
  mean_response_ms: number;
  mean_response_ms_all: number;
}
const expected = JSON.parse(fs.readFileSync(path.join(FIX, "steady-state", "expected.json"), "utf8")) as Record<
  string,
  Expected
>;

describe("schema-3 CSV: iogen's steady_from and seen_enough", () => {
  const { plan, answers } = analyse("steady-state");
  const steps = sheet(plan, "Steps").tables[0];

  test("the Steps sheet shows iogen's window: from, subintervals, mean, and who judged it", () => {
    expect(column(steps, "steady from")).toEqual([6, null, null]);
    expect(column(steps, "steady n")).toEqual([expected["1"].window_subintervals, 20, 20]);
    const means = column(steps, "steady mean IOPS") as number[];
    ["1", "2", "3"].forEach((k, i) => expect(means[i]).toBeCloseTo(expected[k].mean_iops, 9));
    expect(column(steps, "steady state")).toEqual(["yes", "never reached", "not judged"]);
    const basis = column(steps, "steady-state basis") as string[];
    expect(basis[0]).toBe("iogen's steady_from: the summary row covers subintervals 6 to the last");
    expect(basis[1]).toMatch(/^iogen: --seen-enough never held before --max-duration/);
    expect(basis[2]).toMatch(/^not judged: iogen ran without --seen-enough/);
    // SEEN_ENOUGH was not re-run: no re-computed column.
    expect(steps.columns.map((c) => c.header)).not.toContain("re-computed achieved ±");
    expect(sheet(plan, "Steps").notes.join(" ")).toContain(
      "Steady state: iogen's own judgement (summary CSV steady_from and seen_enough) for 3 steps, 1 of which never reached steady state.",
    );
  });

  test("step 1's response interval comes from its steady window, not the transient before it", () => {
    const s1 = answers.steps[0];
    const [lo, hi] = s1.responseMsMeanCi95!;
    expect(lo).toBeLessThanOrEqual(expected["1"].mean_response_ms);
    expect(hi).toBeGreaterThanOrEqual(expected["1"].mean_response_ms);
    // With the 5 transient subintervals (2.0 → 0.6 ms) in, the batches would spread far wider.
    expect(hi - lo).toBeLessThan(0.02);
    expect(expected["1"].mean_response_ms_all - expected["1"].mean_response_ms).toBeGreaterThan(0.15);
  });

  test("the step that never reached steady state is a warning in plain words: Summary, Steps count, JSON", () => {
    const never = /never reached steady state: iogen's --seen-enough rule did not hold before --max-duration/;
    expect(answers.steps.map((s) => s.warnings.some((w) => never.test(w)))).toEqual([false, true, false]);
    const summaryText = sheet(plan, "Summary")
      .tables.flatMap((t) => t.rows.flat())
      .filter((c): c is string => typeof c === "string");
    expect(summaryText.some((c) => never.test(c) && c.startsWith("step 2 r70-2"))).toBe(true);
    expect(column(steps, "warnings")[1]).toBeGreaterThanOrEqual(1);
    const json = labJson(answers, plan.sources, plan.warnings);
    expect(json.steps[1].warnings.some((w) => never.test(w))).toBe(true);
    expect(json.warnings.some((w) => never.test(w))).toBe(true);
  });

  test("the step that never reached steady state says why: SEEN_ENOUGH on its 20 measured subintervals, under the 90-sample floor", () => {
    const why = "SEEN_ENOUGH ±5 % at 95 % on the measured IOPS: too few samples: 20 so far, the shortest window is 90";
    expect(answers.steps[1].warnings.filter((w) => w.includes(why))).toHaveLength(1);
    expect((column(steps, "steady-state basis") as string[])[1]).toContain(why);
    const json = labJson(answers, plan.sources, plan.warnings);
    expect(json.steps[1].warnings.some((w) => w.includes(why))).toBe(true);
    // The steps that reached steady state, or were not judged, carry no reason.
    for (const i of [0, 2]) expect(answers.steps[i].warnings.join(" ")).not.toContain("SEEN_ENOUGH ±5 %");
  });

  test("steady_from is bookkeeping, not a result the pane offers to fit", () => {
    expect(RESULT_METRICS).not.toContain("steady_from");
  });
});

describe("an older CSV (no steady_from column)", () => {
  const { plan, answers } = analyse("issue-4step");
  const steps = sheet(plan, "Steps").tables[0];

  test("SEEN_ENOUGH is re-computed here and the sheet says so; no steady-state warning is claimed for iogen", () => {
    const basis = column(steps, "steady-state basis") as string[];
    for (const b of basis.filter((x) => x !== ""))
      expect(b).toMatch(/^re-computed here \(the summary CSV has no steady_from: iogen before CSV schema 3\)/);
    expect(basis.some((b) => b !== "")).toBe(true);
    expect(sheet(plan, "Steps").notes.join(" ")).toMatch(/SEEN_ENOUGH re-computed here .* whose CSV does not say/);
    for (const s of answers.steps) expect(s.warnings.join(" ")).not.toMatch(/never reached steady state/);
  });

  test("where SEEN_ENOUGH re-computed here is FALSE, the Steps sheet says why (5 measured subintervals a step)", () => {
    const basis = (column(steps, "steady-state basis") as string[]).filter((x) => x !== "");
    expect(basis.length).toBeGreaterThan(0);
    for (const b of basis)
      expect(b).toMatch(/; not seen enough: too few samples: 5 so far, the shortest window is 90$/);
  });
});
