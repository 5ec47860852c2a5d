/**
 * The checks that need the whole file (src/import/iogen-checks.ts): multi-host rows against their
 * `all` row, duplicate rows, iogen's words and subinterval numbers in schema-3 summaries. The
 * multi-host cases start from a real `mpirun -n 3` CSV pair (tests/lab/fixtures/iogen-mpi, see its
 * README) and change one thing each.
 */
import * as fs from "fs";
import * as path from "path";
import { parseIogenCsv } from "../../src/import/iogen-csv";

const MPI = path.join(__dirname, "..", "lab", "fixtures", "iogen-mpi");
const mpiSub = fs.readFileSync(path.join(MPI, "subintervals.csv"), "utf8");
const mpiSum = fs.readFileSync(path.join(MPI, "summary.csv"), "utf8");

/** The file's lines (header first, no empty last line). */
const linesOf = (text: string): string[] => text.trimEnd().split("\n");
const joined = (lines: string[]): string => `${lines.join("\n")}\n`;
const cells = (line: string): string[] => line.split(",");

describe("a real mpirun -n 3 CSV pair", () => {
  it.each([
    ["subintervals.csv", mpiSub],
    ["summary.csv", mpiSum],
  ])("%s imports with no warning and no error", (name, text) => {
    const r = parseIogenCsv(text, name);
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([]);
    expect(r.rows.filter((x) => x.host === "all").length).toBeGreaterThan(0);
  });
});

describe("multi-host rows", () => {
  it("a step whose all rows are missing is an error naming the step and the hosts' lines", () => {
    const lines = linesOf(mpiSum);
    const kept = lines.filter((l) => !(l.startsWith("all,2,") && cells(l)[4] === "read"));
    expect(kept.length).toBe(lines.length - 1);
    const hostLines = kept
      .map((l, i) => [l, i + 1] as const)
      .filter(([l]) => !l.startsWith("all,") && cells(l)[1] === "2" && cells(l)[4] === "read")
      .map(([, n]) => n);
    const r = parseIogenCsv(joined(kept), "sum.csv");
    expect(r.errors).toEqual([
      {
        file: "sum.csv",
        line: hostLines[0],
        message:
          `step 2 (high), read: host rows (lines ${hostLines.join(", ")}) without the all row iogen writes after them ` +
          "(a multi-host run has one per step, subinterval and category): the step's total cannot be known; was the file edited?",
      },
    ]);
  });

  it("the last subinterval of a file cut mid-write may lack its all rows: a warning, not an error", () => {
    const lines = linesOf(mpiSub);
    // Cut in the middle of the first all row of the last subinterval.
    const firstLastAll = lines.length - 3;
    expect(lines[firstLastAll].startsWith("all,")).toBe(true);
    const text = `${lines.slice(0, firstLastAll).join("\n")}\n${lines[firstLastAll].slice(0, 40)}`;
    const r = parseIogenCsv(text, "sub.csv");
    expect(r.errors).toEqual([]);
    expect(r.warnings.map((w) => w.message)).toEqual([
      expect.stringMatching(/^1 truncated last line skipped/),
      expect.stringMatching(
        /^step 2 \(high\), measure subinterval 3, overall: no all row after its hosts' rows \(lines \d+, \d+, \d+\): the file ends there, cut mid-write/,
      ),
      expect.stringMatching(/^step 2 \(high\), measure subinterval 3, read: no all row/),
      expect.stringMatching(/^step 2 \(high\), measure subinterval 3, write: no all row/),
    ]);
  });

  it("an all row ten times its hosts' sum is a warning naming the step, the column and both figures", () => {
    const lines = linesOf(mpiSum);
    const header = cells(lines[0]);
    const iopsAt = header.indexOf("iops");
    const at = lines.findIndex((l) => l.startsWith("all,1,") && cells(l)[4] === "overall");
    const row = cells(lines[at]);
    const hostIops = lines
      .filter((l) => !l.startsWith("all,") && cells(l)[1] === "1" && cells(l)[4] === "overall")
      .map((l) => Number(cells(l)[iopsAt]));
    expect(hostIops).toHaveLength(3);
    const sum = hostIops.reduce((a, b) => a + b, 0);
    // The file's own all row is the hosts' sum within the printing (6 decimals).
    expect(Math.abs(Number(row[iopsAt]) - sum)).toBeLessThan(4 * 0.5e-6 + 1e-9);
    row[iopsAt] = String(Number(row[iopsAt]) * 10);
    lines[at] = row.join(",");
    const r = parseIogenCsv(joined(lines), "sum.csv");
    expect(r.errors).toEqual([]);
    expect(r.warnings).toHaveLength(1);
    const w = r.warnings[0].message;
    expect(w).toContain(
      `step 1 (low): the all row is not the sum of its hosts' rows (line ${at + 1}: step 1 (low), overall: iops ${row[iopsAt]} on the all row`,
    );
    expect(w).toContain(`${+sum.toPrecision(15)} summed over its 3 hosts`);
  });

  it("an all row off by one in its last printed decimal is within the printing: no warning", () => {
    const lines = linesOf(mpiSum);
    const iopsAt = cells(lines[0]).indexOf("iops");
    const at = lines.findIndex((l) => l.startsWith("all,1,") && cells(l)[4] === "overall");
    const row = cells(lines[at]);
    row[iopsAt] = (Number(row[iopsAt]) + 1e-6).toFixed(6);
    lines[at] = row.join(",");
    expect(parseIogenCsv(joined(lines), "sum.csv").warnings).toEqual([]);
  });

  it("a duplicated host row and a duplicated all row are errors naming both lines", () => {
    const lines = linesOf(mpiSum);
    const host = lines.findIndex((l) => l.startsWith("lab1#2,2,") && cells(l)[4] === "write");
    const all = lines.findIndex((l) => l.startsWith("all,1,") && cells(l)[4] === "overall");
    const text = joined([...lines, lines[host], lines[all]]);
    const r = parseIogenCsv(text, "sum.csv");
    expect(r.errors).toEqual([
      {
        file: "sum.csv",
        line: lines.length + 1,
        message: `duplicate row: host 'lab1#2', step 2 (high), write is already on line ${host + 1} (each host has one row per step and category; the step would count twice)`,
      },
      {
        file: "sum.csv",
        line: lines.length + 2,
        message: `duplicate row: host 'all', step 1 (low), overall is already on line ${all + 1} (each host has one row per step and category; the step would count twice)`,
      },
    ]);
  });

  it("a duplicated subinterval row is an error naming its phase and subinterval", () => {
    const lines = linesOf(mpiSub);
    const r = parseIogenCsv(joined([...lines, lines[5]]), "sub.csv");
    expect(r.errors).toEqual([
      {
        file: "sub.csv",
        line: lines.length + 1,
        message: expect.stringMatching(
          /^duplicate row: host 'lab1#2', step 1 \(low\), warmup subinterval 1, \w+ is already on line 6 /,
        ),
      },
    ]);
  });

  it("' all' is a host name, not the all row", () => {
    const text = joined(linesOf(mpiSum).map((l) => (l.startsWith("all,") ? ` ${l}` : l)));
    const r = parseIogenCsv(text, "sum.csv");
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([]);
    expect(r.rows.some((x) => x.host === "all")).toBe(false);
    expect(r.rows.filter((x) => x.host === " all")).toHaveLength(6);
  });
});

describe("schema-3 summary values", () => {
  const ss = linesOf(
    fs.readFileSync(path.join(__dirname, "..", "lab", "fixtures", "steady-state", "summary.csv"), "utf8"),
  );
  const header = cells(ss[0]);
  const col = (name: string): number => header.indexOf(name);
  /** The first data row with `changes` applied. */
  const withRow = (changes: Record<string, string>): string => {
    const row = cells(ss[1]);
    for (const [k, v] of Object.entries(changes)) row[col(k)] = v;
    return joined([ss[0], row.join(",")]);
  };

  it("the fixture's first row is a judged steady state (seen_enough yes, steady_from 6, 15 of 20 s)", () => {
    const r = parseIogenCsv(withRow({}), "s.csv");
    expect(r.errors).toEqual([]);
    expect(r.rows[0].values.steady_from).toBe(6);
    expect(r.rows[0].seen_enough).toBe("yes");
  });

  it.each([
    ["0", "0 is not a subinterval number (a whole number from 1)"],
    ["2.5", "2.5 is not a subinterval number (a whole number from 1)"],
    ["1e308", "1e308 is larger than any measurement (at most 1000000000000000)"],
    [
      "1e14",
      "100000000000000 is past the last measured subinterval: the row covers 15 of its 20 measured seconds, which leaves room for at most 501 (subintervals are at least 10 ms)",
    ],
    [
      "502",
      "502 is past the last measured subinterval: the row covers 15 of its 20 measured seconds, which leaves room for at most 501 (subintervals are at least 10 ms)",
    ],
  ])("steady_from %s is an error naming the line and column", (value, message) => {
    const r = parseIogenCsv(withRow({ steady_from: value }), "s.csv");
    expect(r.errors).toEqual([{ file: "s.csv", line: 2, message: `column steady_from: ${message}` }]);
  });

  it("steady_from 501 is the last that fits 5 s before the window in 10 ms subintervals", () => {
    expect(parseIogenCsv(withRow({ steady_from: "501" }), "s.csv").errors).toEqual([]);
  });

  it("steady_from other than 1 when the window is the whole measurement is past the last", () => {
    const r = parseIogenCsv(withRow({ steady_from: "2", seconds: "20" }), "s.csv");
    expect(r.errors[0].message).toMatch(
      /^column steady_from: 2 is past the last measured subinterval: the row covers 20 of its 20/,
    );
  });

  it.each(["maybe", "1", "true", "YES"])("seen_enough %s is an error naming the line and column", (word) => {
    const r = parseIogenCsv(withRow({ seen_enough: word }), "s.csv");
    expect(r.errors).toEqual([
      { file: "s.csv", line: 2, message: `column seen_enough: '${word}' is not one of iogen's words yes, no, off` },
    ]);
  });

  it("a steady_from with seen_enough off is ignored with a warning", () => {
    const r = parseIogenCsv(withRow({ seen_enough: "off" }), "s.csv");
    expect(r.errors).toEqual([]);
    expect(r.warnings).toEqual([
      {
        file: "s.csv",
        line: 2,
        message:
          "column steady_from: 6 with seen_enough off (iogen writes none without --seen-enough): ignored, the row covers the whole measurement",
      },
    ]);
  });
});

describe("figures iogen cannot have written", () => {
  const HEADER = "host,step,step_name,subinterval,phase,start_s,seconds,category,iops,service_ms_avg";
  it.each([
    ["1e308", "column iops: 1e308 is larger than any measurement (at most 1000000000000000)"],
    ["-5", "column iops: -5 is negative (iogen writes no negative value)"],
  ])("iops %s is an error naming the line and column", (value, message) => {
    const r = parseIogenCsv(`${HEADER}\nh,1,a,1,measure,0,1,overall,${value},0.1\n`, "s.csv");
    expect(r.errors).toEqual([{ file: "s.csv", line: 2, message }]);
  });
});
