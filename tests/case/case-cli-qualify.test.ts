/**
 * `caplab case` accepts a case whose options cannot carry their load or miss the service target
 * (it refused a fixed staff the load exceeds before), writes the sheet, and prints the conclusion
 * and the confidence in the sheet's words: the same text the plan caches, which LibreOffice
 * recalculates (case-edits-libreoffice.test.ts).
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { run } from "../../src/cli/commands/case";
import { casePlanFromJson } from "../../src/case/case-plan";
import { cellResult, TablePlan } from "../../src/workbook/plan";

const EXAMPLE = path.join(__dirname, "..", "..", "examples", "helpdesk-fixed-staff.json");

describe("caplab case with options that do not qualify", () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), "caplab-case-qualify-"))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("writes the sheet and prints the conclusion and confidence the sheet shows", async () => {
    const json = JSON.parse(fs.readFileSync(EXAMPLE, "utf8"));
    for (const o of json.options) for (const w of o.workloads) w.arrivalRate *= 1.1;
    const input = path.join(dir, "busier.json");
    fs.writeFileSync(input, JSON.stringify(json));
    const out: string[] = [];
    const err: string[] = [];
    const code = await run([input, "-o", path.join(dir, "case.xlsx")], {
      out: (t) => out.push(t),
      err: (t) => err.push(t),
    });
    expect([code, err.join("")]).toEqual([0, ""]);
    const plan = casePlanFromJson(json);
    const rec = plan.plan.sheets[0].tables.find((t) => t.name === "Recommendation") as TablePlan;
    const confidence = cellResult(rec.rows.find((r) => r[0] === "Confidence")?.[1] ?? null);
    const printed = out.join("");
    expect(printed).toContain(`${plan.plan.sheets[0].notes[1]}\nConfidence: ${String(confidence)}\n`);
    expect(printed).toContain("Today: 21 agents cannot carry its load;");
    expect(plan.result.options[plan.result.chosen].qualifies).toBe(true);
    expect(fs.existsSync(path.join(dir, "case.xlsx"))).toBe(true);
  });
});
