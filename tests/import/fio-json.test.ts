/**
 * fio JSON reader on real fio 3.33 output (tests/import/golden/fio-*, produced by the job.fio beside
 * each input). IOPS must be fio's own numbers, unchanged.
 */
import * as fs from "fs";
import * as path from "path";
import { fioSize, parseFioJson } from "../../src/import/fio-json";

const golden = (c: string): string => fs.readFileSync(path.join(__dirname, "golden", c, "input.json"), "utf8");
type FioDoc = { jobs: { jobname: string; usr_cpu: number; sys_cpu: number; [k: string]: unknown }[] };
type Dir = {
  iops: number;
  total_ios: number;
  clat_ns: { mean: number; percentile?: Record<string, number> };
  lat_ns: { mean: number };
};

describe("parseFioJson", () => {
  it("gives one step per job and direction with IO, IOPS equal to jobs[].<dir>.iops", () => {
    for (const c of ["fio-randread-json", "fio-randrw-jsonplus", "fio-write-rated-psync", "fio-doe-2x2"]) {
      const text = golden(c);
      const doc = JSON.parse(text) as FioDoc;
      const r = parseFioJson(text, `${c}.json`);
      expect(r.errors).toEqual([]);
      const expected: { job: string; direction: string; iops: number }[] = [];
      doc.jobs.forEach((j) => {
        for (const d of ["read", "write", "trim"]) {
          const x = j[d] as Dir;
          if (x.total_ios > 0) expected.push({ job: j.jobname, direction: d, iops: x.iops });
        }
      });
      expect(r.rows.map((s) => ({ job: s.job, direction: s.direction, iops: s.iops }))).toEqual(expected);
      for (const s of r.rows) expect(s.file).toBe(`${c}.json`);
    }
  });

  it("converts ns to ms and takes percentiles", () => {
    const text = golden("fio-randread-json");
    const read = (JSON.parse(text) as FioDoc).jobs[0].read as Dir;
    const s = parseFioJson(text, "r.json").rows[0];
    expect(s.clat_ms_avg).toBeCloseTo(read.clat_ns.mean / 1e6, 12);
    expect(s.clat_ms_p99).toBeCloseTo((read.clat_ns.percentile as Record<string, number>)["99.000000"] / 1e6, 12);
    expect(s.lat_ms_avg).toBeCloseTo(read.lat_ns.mean / 1e6, 12);
    expect(s.lat_ms_p99).toBeNull(); // lat percentiles only with lat_percentiles=1
    expect(s.rw).toBe("randread");
    expect(s.iodepth).toBe(4);
    expect(s.bs).toBe(4096); // from the global options
    expect(s.rate_iops).toBeNull();
  });

  it("splits per-direction options and tells numjobs clones apart", () => {
    const r = parseFioJson(golden("fio-randrw-jsonplus"), "rw.json");
    const [rd, wr, c1, c2] = r.rows;
    expect([rd.direction, rd.rate_iops, wr.direction, wr.rate_iops]).toEqual(["read", 700, "write", 300]);
    expect(rd.lat_ms_p99).not.toBeNull(); // lat_percentiles=1 in this job file
    expect(rd.job_iops).toBeCloseTo(rd.iops + wr.iops, 9);
    expect([c1.job, c1.jobIndex, c1.numjobs, c1.bs]).toEqual(["seqwrite-8k", 1, 2, 8192]);
    expect([c2.job, c2.jobIndex]).toEqual(["seqwrite-8k", 2]);
  });

  it("skips text before the JSON with a warning, and rejects truncated or foreign JSON", () => {
    const warned = parseFioJson("fio: something\n" + golden("fio-write-rated-psync"), "w.json");
    expect(warned.errors).toEqual([]);
    expect(warned.warnings[0].message).toMatch(/skipped/);
    expect(warned.rows[0].rate_iops).toBe(500);
    expect(parseFioJson(golden("fio-randread-json").slice(0, 500), "t.json").errors[0].message).toMatch(
      /not valid JSON/,
    );
    expect(parseFioJson('{"a": 1}', "a.json").errors[0].message).toMatch(/missing 'jobs'/);
  });

  it("reads fio sizes", () => {
    expect(fioSize("4k")).toBe(4096);
    expect(fioSize("8KiB")).toBe(8192);
    expect(fioSize("1m")).toBe(1048576);
    expect(fioSize("512")).toBe(512);
    expect(fioSize("x")).toBeNull();
  });
});

describe("figures fio cannot have written", () => {
  /** The randread golden document with one figure of its first job's read block changed. */
  const withRead = (change: (read: Record<string, unknown>) => void): string => {
    const doc = JSON.parse(golden("fio-randread-json")) as FioDoc;
    change(doc.jobs[0].read as Record<string, unknown>);
    return JSON.stringify(doc);
  };

  it.each([
    [
      "iops",
      (r: Record<string, unknown>) => (r.iops = -5),
      "jobs[0].read.iops: -5 is negative (fio writes no negative value)",
    ],
    [
      "clat mean",
      (r: Record<string, unknown>) => ((r.clat_ns as Dir["clat_ns"]).mean = -81000),
      "jobs[0].read.clat_ns.mean: -81000 is negative (fio writes no negative value)",
    ],
    [
      "a percentile",
      (r: Record<string, unknown>) => ((r.clat_ns as Dir["clat_ns"]).percentile!["99.000000"] = -1),
      'jobs[0].read.clat_ns.percentile["99.000000"]: -1 is negative (fio writes no negative value)',
    ],
    [
      "iops 1e308",
      (r: Record<string, unknown>) => (r.iops = 1e308),
      "jobs[0].read.iops: 1e+308 is larger than any measurement (at most 1000000000000000)",
    ],
  ])("%s: an error naming the file and field, and no step from it", (_what, change, message) => {
    const r = parseFioJson(withRead(change), "run.json");
    expect(r.errors).toEqual([{ file: "run.json", message }]);
    expect(r.rows).toEqual([]);
  });
});
