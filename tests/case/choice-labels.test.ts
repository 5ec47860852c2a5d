/**
 * The Choice table speaks of load only where a case has workloads (a case of prices alone has no
 * load to carry, so "carries its load" would be a claim about nothing).
 */
import * as fs from "fs";
import * as path from "path";
import { casePlanFromJson, CasePlan } from "../../src/case/case-plan";
import { cellResult, TablePlan } from "../../src/workbook/plan";

const EXAMPLES = path.join(__dirname, "..", "..", "examples");
const build = (f: string): CasePlan => casePlanFromJson(JSON.parse(fs.readFileSync(path.join(EXAMPLES, f), "utf8")));

function rowLabels(c: CasePlan): string[] {
  const t = c.plan.sheets[0].tables.find((x) => x.name === "Choice") as TablePlan;
  return t.rows.map((r) => String(cellResult(r[0])));
}

describe("Choice table labels", () => {
  test("a case without workloads says nothing about load", () => {
    const labels = rowLabels(build("storage-replacement.json"));
    expect(labels).toContain("Qualifies");
    expect(labels.join(" ")).not.toMatch(/load|service target|Left out/);
  });
  test("a case with workloads names what qualifying means", () => {
    const labels = rowLabels(build("helpdesk-fixed-staff.json"));
    expect(labels.some((l) => /^Qualifies \((carries its load|load and service target)\)$/.test(l))).toBe(true);
    expect(labels).toContain("Left out because it");
  });
});
