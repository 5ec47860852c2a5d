/**
 * How many formula cells a business-case sheet holds, per table: every example, and a 3-workload,
 * 4-option, 10-year growth case (the size the decision layer's live grid must stay bounded at).
 * With --recalc, LibreOffice recalculates each stripped sheet and the time is printed (wall clock,
 * one run: a figure for docs, not a test).
 *
 *     npx tsx bench/case-formulas.ts [--recalc]
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { casePlanFromJson } from "../src/case/case-plan";
import { renderXlsx } from "../src/report/xlsx";
import { WorkbookPlan } from "../src/workbook/plan";
import { convert, findSoffice, recalculatingProfile, withoutCachedValues } from "../tests/case/libreoffice";

const ROOT = path.join(__dirname, "..");

/** A 3-workload, 4-option, 10-year case whose load grows (service-level, response and utilization targets). */
function largeGrowthCase(): unknown {
  const workloads = (k: number): Record<string, unknown>[] => [
    {
      name: "Calls",
      arrivalRate: 3 + k,
      serviceTime: 4,
      sizing: { serviceLevel: 0.8, answerWithin: 1 },
      growth: 0.1,
      installed: 10,
      purchaseUnit: 2,
    },
    { name: "Chats", arrivalRate: 2 + k / 2, serviceTime: 3, sizing: { response: 4.5 }, growth: 0.15, installed: 6 },
    {
      name: "Mail",
      arrivalRate: 1 + k,
      serviceTime: 5,
      sizing: { utilization: 0.8 },
      growth: 0.05,
      installed: 4,
      purchasePolicy: "headroom",
    },
  ];
  return {
    title: "Large growth case",
    years: 10,
    discountRate: 0.07,
    timeUnit: "min",
    rateUnit: "per min",
    options: ["Today", "Hire", "Outsource", "Hybrid"].map((name, k) => ({
      name,
      capex: 20000 * k,
      costPerServer: 3000 + 500 * k,
      costPerServerPerYear: 40000 - 2000 * k,
      opex: [{ label: "Support", perYear: 10000 + 1000 * k, escalation: 0.03 }],
      workloads: workloads(k),
    })),
  };
}

function formulas(plan: WorkbookPlan): { total: number; byTable: Record<string, number> } {
  const byTable: Record<string, number> = {};
  let total = 0;
  for (const t of plan.sheets[0].tables) {
    const n = t.rows.reduce(
      (s, row) =>
        s + row.filter((c) => c !== null && typeof c === "object" && ("formula" in c || "addinFormula" in c)).length,
      0,
    );
    byTable[t.name] = n;
    total += n;
  }
  return { total, byTable };
}

async function main(): Promise<void> {
  const recalc = process.argv.includes("--recalc");
  const cases: [string, unknown][] = fs
    .readdirSync(path.join(ROOT, "examples"))
    .filter((f) => f.endsWith(".json"))
    .map((f) => [f, JSON.parse(fs.readFileSync(path.join(ROOT, "examples", f), "utf8"))]);
  cases.push(["large growth case (3 workloads, 4 options, 10 years)", largeGrowthCase()]);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "caplab-case-formulas-"));
  const soffice = findSoffice();
  if (recalc && !soffice) throw new Error("--recalc needs LibreOffice (soffice)");
  const profile = recalculatingProfile(dir);
  try {
    for (const [name, json] of cases) {
      const t0 = Date.now();
      const plan = casePlanFromJson(json);
      const built = Date.now() - t0;
      const { total, byTable } = formulas(plan.plan);
      const decision = (byTable.Probes ?? 0) + (byTable.ProbePlan ?? 0) + (byTable.BreakEven ?? 0);
      let line = `${name}: ${total} formulas (decision layer ${decision}: BreakEven ${byTable.BreakEven ?? 0}, Probes ${byTable.Probes ?? 0}, ProbePlan ${byTable.ProbePlan ?? 0}); built in ${built} ms`;
      if (recalc) {
        const file = path.join(dir, "case.xlsx");
        fs.writeFileSync(file, await renderXlsx(withoutCachedValues(plan.plan)));
        const t1 = Date.now();
        convert(soffice as string, profile, "xlsx", path.join(dir, "out"), [file]);
        line += `; LibreOffice load + recalculate + save ${Date.now() - t1} ms`;
      }
      console.log(line);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main();
