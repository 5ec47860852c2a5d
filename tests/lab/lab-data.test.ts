/**
 * collectLabData (src/lab/data.ts): readers' results → one list of steps and the
 * subinterval rows behind them. Expected figures are worked by hand from the small CSVs written
 * here (time-weighted IOPS, IO-weighted latency means), not taken from the code under test.
 */
import * as fs from "fs";
import * as path from "path";
import { readLabText } from "../../src/import/detect";
import { collectLabData } from "../../src/lab/data";
import { measureRowsOf, steadyRowsOf } from "../../src/lab/data-subintervals";

const HEADER =
  "host,step,subinterval,phase,seconds,category,iops,service_ms_avg,response_ms_avg,response_ms_p99,protocol";

/** A subinterval CSV from rows [host, step, subinterval, phase, seconds, category, iops, S, R, p99, protocol]. */
function subCsv(rows: (string | number)[][]): string {
  return [HEADER, ...rows.map((r) => r.join(","))].join("\n") + "\n";
}

describe("steps from subintervals only", () => {
  // Step 1: one warm-up second (left out), then 1 s at 1000 IOPS (R 1 ms) and 2 s at 4000 IOPS (R 2 ms).
  const csv = subCsv([
    ["h", 1, 1, "warmup", 1, "overall", 9999, 9, 9, 9, "nfs"],
    ["h", 1, 1, "measure", 1, "overall", 1000, 0.5, 1, 3, "nfs"],
    ["h", 1, 2, "measure", 2, "overall", 4000, 1, 2, 5, "nfs"],
  ]);
  const data = collectLabData([readLabText(csv, "sub.csv")]);

  test("IOPS is the time-weighted mean, latency means IO-weighted, percentiles empty, and a warning says why", () => {
    expect(data.steps).toHaveLength(1);
    const s = data.steps[0];
    expect(s.basis).toBe("subintervals");
    // IOs: 1000·1 + 4000·2 = 9000 over 3 s.
    expect(s.values.iops).toBeCloseTo(3000, 12);
    // IO-weighted: (1000·1 + 8000·2) / 9000 and (1000·0.5 + 8000·1) / 9000.
    expect(s.values.response_ms_avg).toBeCloseTo(17000 / 9000, 12);
    expect(s.values.service_ms_avg).toBeCloseTo(8500 / 9000, 12);
    expect(s.values.response_ms_p99).toBeNull();
    expect(s.values.measure_seconds).toBe(3);
    expect(s.labels).toEqual({ protocol: "nfs" });
    expect(data.labelColumns).toEqual(["protocol"]);
    expect(data.warnings.join(" ")).toMatch(/percentiles cannot be averaged/);
  });

  test("the measure window leaves the warm-up out", () => {
    const w = data.steps[0].window!;
    expect([w.first, w.last, w.subintervals, w.seconds, w.warmupSubintervals]).toEqual([1, 2, 2, 3, 1]);
    expect(Array.from(measureRowsOf(data.subintervalGroups[0]))).toEqual([1, 2]);
    // Too few subintervals for SEEN_ENOUGH (5 needed): no steady state judged.
    expect(data.steps[0].steady).toBeNull();
  });
});

describe("several files", () => {
  const a = subCsv([
    ["h", 2, 1, "measure", 1, "overall", 200, 1, 1, 1, "fc"],
    ["h", 1, 1, "measure", 1, "overall", 100, 1, 1, 1, "fc"],
    ["h", 1, 1, "measure", 1, "read", 70, 1, 1, 1, "fc"],
  ]);
  // The same host × step × category again in a second file: the first file's rows win.
  const b = subCsv([
    ["h", 1, 1, "measure", 1, "overall", 555, 1, 1, 1, "fc"],
    ["h", 3, 1, "measure", 1, "overall", 300, 1, 1, 1, "fc"],
  ]);
  const data = collectLabData([readLabText(a, "a.csv"), readLabText(b, "b.csv")]);

  test("the first file wins a repeated host × step × category; the later file's other steps are kept", () => {
    const overall = data.steps.filter((s) => s.category === "overall");
    expect(overall.map((s) => [s.source, s.step, s.values.iops])).toEqual([
      ["a.csv", "1", 100],
      ["a.csv", "2", 200],
      ["b.csv", "3", 300],
    ]);
    // b.csv's first row is left out of the rows the workbook shows.
    expect(data.subintervals.map((seg) => [seg.source, seg.length])).toEqual([
      ["a.csv", 3],
      ["b.csv", 1],
    ]);
  });

  test("steps sort by file, host, step number, then overall before read", () => {
    expect(data.steps.map((s) => `${s.source}:${s.step}:${s.category}`)).toEqual([
      "a.csv:1:overall",
      "a.csv:1:read",
      "a.csv:2:overall",
      "b.csv:3:overall",
    ]);
  });
});

describe("summary and subinterval CSVs of one run", () => {
  const dir = path.join(__dirname, "fixtures", "steady-state");
  const read = (f: string): ReturnType<typeof readLabText> =>
    readLabText(fs.readFileSync(path.join(dir, f), "utf8"), f);
  const data = collectLabData([read("subintervals.csv"), read("summary.csv")]);

  test("steps come from the summary rows, windows from the matching subintervals", () => {
    expect(data.steps.map((s) => [s.basis, s.step, s.seenEnoughFlag])).toEqual([
      ["summary", "1", "yes"],
      ["summary", "2", "no"],
      ["summary", "3", "off"],
    ]);
    for (const s of data.steps) expect(s.window?.subintervals).toBe(20);
    // iogen judged the steady state (schema 3): SEEN_ENOUGH is not run again.
    for (const s of data.steps) expect(s.window?.seenEnough).toBeNull();
  });

  test("steadyRowsOf: from iogen's steady_from on for step 1, every measured row otherwise", () => {
    const [s1, s2] = data.steps;
    const g1 = data.subintervalGroups.find((g) => g.step === "1")!;
    const g2 = data.subintervalGroups.find((g) => g.step === "2")!;
    const sub = (g: typeof g1, rows: Uint32Array): number[] =>
      Array.from(rows, (i) => g.table.value("subinterval", i) as number);
    expect(sub(g1, steadyRowsOf(g1, s1))).toEqual(Array.from({ length: 15 }, (_, k) => k + 6));
    expect(sub(g2, steadyRowsOf(g2, s2))).toEqual(Array.from({ length: 20 }, (_, k) => k + 1));
  });
});

describe("fio", () => {
  test("jobs that share a name (numjobs clones) are told apart as name#index; labels job, rw, numjobs", () => {
    const file = path.join(__dirname, "..", "import", "golden", "fio-randrw-jsonplus", "input.json");
    const data = collectLabData([readLabText(fs.readFileSync(file, "utf8"), "input.json")]);
    // randrw-70-rated is one job (read and write rows); seqwrite-8k ran as two clones (numjobs=2).
    expect(data.steps.map((s) => [s.step, s.category])).toEqual([
      ["randrw-70-rated", "read"],
      ["randrw-70-rated", "write"],
      ["seqwrite-8k#1", "write"],
      ["seqwrite-8k#2", "write"],
    ]);
    expect(data.labelColumns).toEqual(expect.arrayContaining(["job", "rw", "numjobs"]));
    expect(data.steps.every((s) => s.tool === "fio" && s.window === null && s.steady === null)).toBe(true);
  });
});
