/**
 * A summary row's steady_from against the subinterval file of the same run
 * (src/import/iogen-cross-check.ts), on the steady-state fixture (tests/lab/fixtures/steady-state).
 */
import * as fs from "fs";
import * as path from "path";
import { readLabText } from "../../src/import/detect";
import { checkSteadyFromAcrossFiles } from "../../src/import/iogen-cross-check";
import { buildLabAnalysis } from "../../src/lab/lab-plan";

const DIR = path.join(__dirname, "..", "lab", "fixtures", "steady-state");
const sub = fs.readFileSync(path.join(DIR, "subintervals.csv"), "utf8");
const sum = fs.readFileSync(path.join(DIR, "summary.csv"), "utf8");

/** The summary with the first data row's steady_from set to `value`. */
function summaryWith(value: string): string {
  const lines = sum.trimEnd().split("\n");
  const header = lines[0].split(",");
  const row = lines[1].split(",");
  row[header.indexOf("steady_from")] = value;
  lines[1] = row.join(",");
  return `${lines.join("\n")}\n`;
}

/** The last measured subinterval of the summary's first step in the subinterval file. */
function lastOfFirstStep(): number {
  const lines = sub.trimEnd().split("\n");
  const h = lines[0].split(",");
  const first = sum.split("\n")[1].split(",");
  const sh = sum.split("\n")[0].split(",");
  const [host, step, category] = ["host", "step", "category"].map((c) => first[sh.indexOf(c)]);
  let last = 0;
  for (const l of lines.slice(1)) {
    const c = l.split(",");
    if (
      c[h.indexOf("host")] === host &&
      c[h.indexOf("step")] === step &&
      c[h.indexOf("category")] === category &&
      c[h.indexOf("phase")] === "measure"
    )
      last = Math.max(last, Number(c[h.indexOf("subinterval")]));
  }
  return last;
}

describe("steady_from across the summary and subinterval files", () => {
  it("the fixture's own pair passes", () => {
    const results = [readLabText(sub, "sub.csv"), readLabText(sum, "sum.csv")];
    checkSteadyFromAcrossFiles(results);
    expect(results.flatMap((r) => r.errors)).toEqual([]);
  });

  it("a steady_from past the step's last measured subinterval is an error naming the line and both figures", () => {
    const last = lastOfFirstStep();
    expect(last).toBeGreaterThan(6);
    // Within what the summary row's own seconds allow (so the reader alone cannot tell), past the file's last.
    const results = [readLabText(sub, "sub.csv"), readLabText(summaryWith(String(last + 1)), "sum.csv")];
    expect(results.flatMap((r) => r.errors)).toEqual([]);
    checkSteadyFromAcrossFiles(results);
    expect(results[1].errors).toEqual([
      {
        file: "sum.csv",
        line: 2,
        message: `column steady_from: ${last + 1} is past the step's last measured subinterval (${last} in sub.csv); the summary and subinterval files are not of the same run, or one was edited`,
      },
    ]);
  });
});

describe("the analysis runs the same check (the task pane's path)", () => {
  it("buildLabAnalysis refuses a summary whose steady_from is past its subinterval file's last, once", () => {
    const last = lastOfFirstStep();
    const results = [readLabText(sub, "sub.csv"), readLabText(summaryWith(String(last + 1)), "sum.csv")];
    expect(() => buildLabAnalysis(results)).toThrow(
      /sum\.csv:2: column steady_from: \d+ is past the step's last measured subinterval/,
    );
    checkSteadyFromAcrossFiles(results);
    expect(results[1].errors).toHaveLength(1);
  });
});
