/**
 * What an iogen CSV says about the run (schema 4, src/import/iogen-run-checks.ts): an interrupted
 * run and steps not preconditioned become warnings on the Summary sheet and in `--json`; values
 * iogen never writes are errors. On real iogen output cut by SIGINT and SIGTERM in the warm-up and
 * in the measurement (tests/import/fixtures/iogen-interrupted, see its README).
 */
import * as fs from "fs";
import * as path from "path";
import { parseIogenCsv } from "../../src/import/iogen-csv";
import { readWorkbook, runCli, useTempDir } from "../helpers/cli";
import { run } from "../../src/cli/commands/report";

const DIR = path.join(__dirname, "fixtures", "iogen-interrupted");
const read = (name: string): string => fs.readFileSync(path.join(DIR, name), "utf8");
const tempDir = useTempDir("caplab-interrupted-");

/** The file's own record of the cut: signal and time, from its last marked row. */
function recorded(text: string): { by: string; at: string } {
  const lines = text.trimEnd().split("\n");
  const h = lines[0].split(",");
  const marked = lines
    .slice(1)
    .map((l) => l.split(","))
    .filter((c) => c[h.indexOf("interrupted_by")] !== "");
  const last = marked[marked.length - 1];
  return { by: last[h.indexOf("interrupted_by")], at: last[h.indexOf("interrupted_at_s")] };
}

const RUNS = [
  ["int-warmup", "SIGINT", "warmup"],
  ["term-warmup", "SIGTERM", "warmup"],
  ["int-measure", "SIGINT", "measure"],
  ["term-measure", "SIGTERM", "measure"],
] as const;

describe.each(RUNS)("%s: iogen cut by %s during the %s", (name, signal, phase) => {
  const sub = read(`${name}-sub.csv`);
  const sum = read(`${name}-sum.csv`);

  it("both files record the signal and the time, and the reader warns saying so", () => {
    for (const [file, text, kind] of [
      [`${name}-sub.csv`, sub, "subinterval"],
      [`${name}-sum.csv`, sum, "summary"],
    ] as const) {
      const { by, at } = recorded(text);
      expect(by).toBe(signal);
      const r = parseIogenCsv(text, file);
      expect(r.errors).toEqual([]);
      const cut = r.warnings.filter((w) => w.message.startsWith("The run was cut"));
      expect(cut).toHaveLength(1);
      expect(cut[0].message).toContain(`The run was cut by ${signal} ${Number(at)} s into step 1 (`);
      if (kind === "subinterval") expect(cut[0].message).toContain(`the rows end with ${phase} subinterval`);
      else if (phase === "warmup") expect(cut[0].message).toContain("during its warm-up: nothing of it was measured");
      else expect(cut[0].message).toMatch(/its summary covers only the [\d.]+ s measured before the signal/);
      expect(r.warnings.map((w) => w.message)).toContainEqual(
        expect.stringMatching(/^A step wrote to space this run did not precondition \(step 1 /),
      );
    }
  });

  it("caplab report warns on stderr, on the Summary sheet and in --json", async () => {
    const dir = tempDir();
    const out = path.join(dir, "r.xlsx");
    const json = path.join(dir, "r.json");
    const r = await runCli(run, [
      path.join(DIR, `${name}-sub.csv`),
      path.join(DIR, `${name}-sum.csv`),
      "-o",
      out,
      "--json",
      json,
    ]);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(new RegExp(`^warning: .*${name}-sum\\.csv:\\d+: The run was cut by ${signal} `, "m"));
    const warnings = (JSON.parse(fs.readFileSync(json, "utf8")) as { warnings: string[] }).warnings;
    expect(warnings.filter((w) => w.includes(`The run was cut by ${signal}`))).toHaveLength(2);
    const summary = (await readWorkbook(out)).getWorksheet("Summary");
    const texts: string[] = [];
    summary?.eachRow((row) => row.eachCell((c) => texts.push(String(c.value))));
    expect(texts.filter((t) => t.includes(`The run was cut by ${signal}`)).length).toBeGreaterThanOrEqual(2);
  });
});

describe("values iogen never writes in the run columns", () => {
  const sum = read("int-measure-sum.csv").trimEnd().split("\n");
  const h = sum[0].split(",");
  const withRow = (changes: Record<string, string>): string => {
    const row = sum[1].split(",");
    for (const [k, v] of Object.entries(changes)) row[h.indexOf(k)] = v;
    return `${[sum[0], row.join(","), ...sum.slice(2)].join("\n")}\n`;
  };

  it.each([
    [
      { interrupted_by: "SIGKILL" },
      "column interrupted_by: 'SIGKILL' is not one of iogen's words SIGINT, SIGTERM, signal (or empty)",
    ],
    [{ preconditioned: "maybe" }, "column preconditioned: 'maybe' is not one of iogen's words yes, no (or empty)"],
    [
      { interrupted_at_s: "" },
      "column interrupted_at_s: empty, but interrupted_by says SIGINT (iogen writes when it arrived)",
    ],
    [
      { interrupted_by: "", interrupted_at_s: "2" },
      "column interrupted_at_s: 2 without SIGINT or SIGTERM in interrupted_by (iogen writes a time only with them)",
    ],
  ])("%p is an error naming the line and column", (changes, message) => {
    const r = parseIogenCsv(withRow(changes), "s.csv");
    expect(r.errors).toEqual([{ file: "s.csv", line: 2, message }]);
  });

  it("a file from before schema 4 (no run columns) says nothing about the run", () => {
    const text = fs.readFileSync(path.join(__dirname, "..", "lab", "fixtures", "iogen-real", "summary.csv"), "utf8");
    const r = parseIogenCsv(text, "old.csv");
    expect(r.warnings.filter((w) => /cut|precondition/.test(w.message))).toEqual([]);
  });
});
