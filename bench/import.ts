/**
 * Import benchmark, run by `npm run bench:import`.
 *
 * 1. iogen: writes a deterministic 1,000,000-row subinterval CSV (50 steps × overall/read ×
 *    10,000 one-second subintervals, 5 of them warm-up, every iogen column plus one label; values
 *    from a seeded generator) into a temp directory, then reads it with the streaming reader
 *    (`readLabStream`) and builds the workbook plan (`buildLabPlan`: steps, windows, model, fit)
 * 2. fio: writes 100 fio JSON files made from a real fio 3.33 output (`bench/fixtures/
 *    fio-3.33-template.json`, two jobs: randread and a 70/30 randrw), each with its own job names
 *    and scaled IOPS, and reads them all the same way.
 *
 * Each measurement runs in its own child process so peak memory is that import's alone: peak RSS
 * from `process.resourceUsage().maxRSS`, and, where `/usr/bin/time -v` exists, its "Maximum
 * resident set size" as a cross-check. The baseline is the child's RSS after loading the modules,
 * before reading. Targets: ≥ 1,000,000 rows/s (CPU), at least polars' rate, and peak memory ≤ 2× the file size.
 *
 * 3. `caplab report` on the iogen CSV, end to end (read, plan, .xlsx), with its peak memory.
 *
 * Options: --rows N (default 1,000,000), --runs N (default 3; the best time and the largest
 * peak are reported), --reader-runs N (rounds of the side-by-side readers, default 5),
 * --report-runs N (default 3), --write (replace the import section of docs/benchmarks.md), --keep
 * (keep the temp directory).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { writeIogenCsv } from "./iogen-csv-file";

const ROOT = join(__dirname, "..");
/**
 * The reader and the plan are measured as `caplab` runs them: compiled by tsc into lib/ (`npm run
 * build:cli`), in a plain node process per measurement (bench/import-child.js), not through tsx.
 */
const LIB = join(ROOT, "lib");
const CHILD = join(__dirname, "import-child.js");

/** Refuses to measure a lib/ older than the sources it was compiled from. */
function checkCompiled(): void {
  const newest = Math.max(
    ...["import", "analysis"].flatMap((d) =>
      readdirSync(join(ROOT, "src", d)).map((f) => statSync(join(ROOT, "src", d, f)).mtimeMs),
    ),
  );
  const built = existsSync(join(LIB, "import", "detect.js")) ? statSync(join(LIB, "import", "detect.js")).mtimeMs : 0;
  if (built < newest) throw new Error("lib/ is missing or older than src/: run `npm run build:cli` first");
}
const TEMPLATE = join(__dirname, "fixtures", "fio-3.33-template.json");
const TIME = "/usr/bin/time";

/** Writes `count` fio JSON files derived from the real template; returns their paths and total size. */
function writeFioFiles(dir: string, count: number): { files: string[]; bytes: number } {
  const template = readFileSync(TEMPLATE, "utf8");
  const files: string[] = [];
  let bytes = 0;
  for (let i = 1; i <= count; i++) {
    const doc = JSON.parse(template) as { jobs: Record<string, unknown>[] };
    const scale = 0.5 + (i % 10) / 10;
    for (const job of doc.jobs) {
      job.jobname = `${String(job.jobname)}-${i}`;
      const opts = job["job options"] as Record<string, string>;
      opts.name = job.jobname as string;
      for (const dir of ["read", "write"]) {
        const d = job[dir] as Record<string, number>;
        d.iops *= scale;
        d.bw_bytes = Math.round(d.bw_bytes * scale);
        d.bw = Math.round(d.bw * scale);
        d.total_ios = Math.round(d.total_ios * scale);
        d.io_bytes = Math.round(d.io_bytes * scale);
      }
    }
    const path = join(dir, `fio-${String(i).padStart(3, "0")}.json`);
    const text = JSON.stringify(doc, null, 2) + "\n";
    writeFileSync(path, text);
    files.push(path);
    bytes += Buffer.byteLength(text);
  }
  return { files, bytes };
}

interface ChildResult {
  rows: number;
  steps: number;
  readSeconds: number;
  planSeconds: number;
  totalSeconds: number;
  /** CPU time (user + system) of the child for read + plan: steadier than wall time on a shared machine. */
  cpuSeconds: number;
  baselineRss: number;
  peakRss: number;
  peakHeap: number;
}

/** What one reader child reports: rows read, wall and CPU seconds of the read alone, memory. */
interface ReaderResult {
  rows: number;
  wall: number;
  cpu: number;
  peakRss: number;
  baselineRss: number;
}

/** The readers compared, in the order of the table; Python ones run only when importable. */
type Reader = "caplab" | "papaparse" | "polars" | "pandas";
const READER_LABEL: Record<Reader, string> = {
  caplab: "Capacity Lab `readLabStream` (column store)",
  papaparse: "PapaParse 5 (`dynamicTyping`, row by row)",
  polars: "polars `read_csv`",
  pandas: "pandas `read_csv` (C engine)",
};

/** The Python side: the library is imported before the baseline; CPU = process_time (all threads). */
const PYTHON_READER = `
import json, resource, sys, time
which, path = sys.argv[1], sys.argv[2]
if which == "polars":
    import polars as lib
else:
    import pandas as lib
def rss():
    return int(open("/proc/self/statm").read().split()[1]) * resource.getpagesize()
base = rss()
c0 = time.process_time(); t0 = time.perf_counter()
rows = lib.read_csv(path).height if which == "polars" else len(lib.read_csv(path))
wall = time.perf_counter() - t0; cpu = time.process_time() - c0
print(json.dumps({"rows": rows, "wall": wall, "cpu": cpu,
                  "peakRss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, "baselineRss": base}))
`;

/** The Python readers importable here (with their versions), and why others are skipped. */
function pythonReaders(): { available: Reader[]; notes: string[] } {
  const available: Reader[] = [];
  const notes: string[] = [];
  for (const lib of ["polars", "pandas"] as const) {
    const r = spawnSync("python3", ["-c", `import ${lib}; print(${lib}.__version__)`], { encoding: "utf8" });
    if (r.status === 0) {
      available.push(lib);
      notes.push(`${lib} ${r.stdout.trim()}`);
    } else notes.push(`${lib} skipped: not importable by python3 (\`pip install ${lib}\` to include it)`);
  }
  return { available, notes };
}

/** One reader run in a fresh process. */
function runReader(reader: Reader, file: string): ReaderResult {
  const r =
    reader === "polars" || reader === "pandas"
      ? spawnSync("python3", ["-c", PYTHON_READER, reader, file], { encoding: "utf8", maxBuffer: 1 << 26 })
      : spawnSync(process.execPath, [CHILD, "reader", reader, file], { encoding: "utf8", maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`${reader} child failed (exit ${r.status}):\n${r.stderr}`);
  return JSON.parse(r.stdout.trim().split("\n").pop()!) as ReaderResult;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * The readers side by side on the same file: `runs` rounds, each round every reader once in a
 * fresh process, the order rotated per round (interleaved, so a load change hits all alike).
 */
function compareReaders(file: string, bytes: number, runs: number): string {
  const { available, notes } = pythonReaders();
  const readers: Reader[] = ["caplab", "papaparse", ...available];
  const results = new Map<Reader, ReaderResult[]>(readers.map((r) => [r, []]));
  for (let round = 0; round < runs; round++) {
    for (let k = 0; k < readers.length; k++) {
      const reader = readers[(round + k) % readers.length];
      process.stderr.write(`readers: round ${round + 1}/${runs}: ${reader} ...\n`);
      results.get(reader)!.push(runReader(reader, file));
    }
  }
  const ours = median(results.get("caplab")!.map((r) => r.rows / r.cpu));
  const lines = [
    `Same file for every reader: the ${fmt(results.get("caplab")![0].rows)}-row iogen subinterval CSV above (${MB(bytes)} MiB).`,
    `${runs} rounds, each reader once per round in a fresh process, order rotated per round; medians.`,
    "CPU = user + system time of the read alone, all threads (polars reads with several); peak = the",
    "process's maximum RSS minus its RSS before reading (after the library was loaded).",
    `Python: ${notes.join("; ")}.`,
    "",
    "| reader | rows/s (wall) | rows/s (CPU) | CPU rows/s ÷ Capacity Lab | peak over baseline MiB | ÷ file size |",
    "|---|---:|---:|---:|---:|---:|",
  ];
  for (const reader of readers) {
    const rs = results.get(reader)!;
    const cpuRate = median(rs.map((r) => r.rows / r.cpu));
    const over = Math.max(...rs.map((r) => r.peakRss - r.baselineRss));
    lines.push(
      `| ${READER_LABEL[reader]} | ${fmt(median(rs.map((r) => r.rows / r.wall)))} | ${fmt(cpuRate)} | ` +
        `${(cpuRate / ours).toFixed(2)} | ${MB(over)} | ${(over / bytes).toFixed(2)} |`,
    );
  }
  return lines.join("\n");
}

/** Runs the child once; returns its figures and `/usr/bin/time -v`'s max RSS when available. */
function measure(files: string[]): ChildResult & { timeMaxRss: number | null } {
  const listFile = join(tmpdir(), `caplab-bench-files-${process.pid}.json`);
  writeFileSync(listFile, JSON.stringify(files));
  const nodeArgs = [CHILD, "plan", listFile];
  const useTime = existsSync(TIME);
  const r = useTime
    ? spawnSync(TIME, ["-v", process.execPath, ...nodeArgs], { encoding: "utf8", maxBuffer: 1 << 26 })
    : spawnSync(process.execPath, nodeArgs, { encoding: "utf8", maxBuffer: 1 << 26 });
  rmSync(listFile, { force: true });
  if (r.status !== 0) throw new Error(`benchmark child failed (exit ${r.status}):\n${r.stderr}`);
  const result = JSON.parse(r.stdout.trim().split("\n").pop()!) as ChildResult;
  const m = useTime ? /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr) : null;
  return { ...result, timeMaxRss: m ? Number(m[1]) * 1024 : null };
}

/**
 * `caplab report` on the 1M-row file, end to end as a user runs it (`node bin/caplab.js report
 * FILE -o OUT.xlsx`): `runs` runs, median wall and CPU time, largest peak RSS (`/usr/bin/time -v`
 * when present, else the wall time alone), and the cells written (from its stderr line).
 */
function reportRuns(csv: string, rows: number, dir: string, runs: number): string {
  const walls: number[] = [];
  const cpus_: number[] = [];
  const peaks: number[] = [];
  let cells = "";
  const useTime = existsSync(TIME);
  for (let i = 0; i < runs; i++) {
    process.stderr.write(`caplab report: run ${i + 1}/${runs} ...\n`);
    const out = join(dir, `report-${i}.xlsx`);
    const args = [join(ROOT, "bin", "caplab.js"), "report", csv, "-o", out];
    const t0 = process.hrtime.bigint();
    const r = useTime
      ? spawnSync(TIME, ["-v", process.execPath, ...args], { encoding: "utf8", maxBuffer: 1 << 26 })
      : spawnSync(process.execPath, args, { encoding: "utf8", maxBuffer: 1 << 26 });
    walls.push(Number(process.hrtime.bigint() - t0) / 1e9);
    if (r.status !== 0) throw new Error(`caplab report failed (exit ${r.status}):\n${r.stderr}`);
    cells = /\(([\d,]+) cells\)/.exec(r.stderr)?.[1] ?? cells;
    const user = /User time \(seconds\): ([\d.]+)/.exec(r.stderr);
    const sys = /System time \(seconds\): ([\d.]+)/.exec(r.stderr);
    if (user && sys) cpus_.push(Number(user[1]) + Number(sys[1]));
    const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr);
    if (rss) peaks.push(Number(rss[1]) * 1024);
    rmSync(out, { force: true });
  }
  const what = cells === "" ? "write the workbook" : `write ${cells} cells through the streaming xlsx writer`;
  return [
    `\`caplab report\` on the same file, end to end (\`node bin/caplab.js report FILE -o OUT.xlsx\`: read, plan,`,
    `${what}), ${runs} run${runs > 1 ? "s" : ""}, medians; peak = largest maximum RSS.`,
    "",
    "| what | wall s | CPU s | peak RSS MiB |",
    "|---|---:|---:|---:|",
    `| \`caplab report\`, ${fmt(rows)}-row subinterval CSV | ${median(walls).toFixed(1)} | ` +
      `${cpus_.length > 0 ? median(cpus_).toFixed(1) : "—"} | ${peaks.length > 0 ? MB(Math.max(...peaks)) : "—"} |`,
  ].join("\n");
}

const MB = (n: number): string => (n / 1048576).toFixed(0);
const fmt = (n: number): string => Math.round(n).toLocaleString("en-US");

async function main(argv: string[]): Promise<void> {
  const arg = (name: string, dflt: number): number => {
    const i = argv.indexOf(name);
    return i >= 0 ? Number(argv[i + 1]) : dflt;
  };
  checkCompiled();
  const rows = arg("--rows", 1_000_000);
  const runs = arg("--runs", 3);
  const dir = mkdtempSync(join(tmpdir(), "caplab-bench-import-"));
  try {
    const csv = join(dir, "subintervals.csv");
    process.stderr.write(`writing ${fmt(rows)}-row iogen subinterval CSV in ${dir} ...\n`);
    const csvBytes = await writeIogenCsv(csv, rows);
    process.stderr.write(`writing 100 fio JSON files ...\n`);
    const fio = writeFioFiles(dir, 100);

    const best = (label: string, files: string[]) => {
      const all = [];
      for (let i = 0; i < runs; i++) {
        process.stderr.write(`${label}: run ${i + 1}/${runs} ...\n`);
        all.push(measure(files));
      }
      const fastest = all.reduce((a, b) => (b.totalSeconds < a.totalSeconds ? b : a));
      return {
        ...fastest,
        peakRss: Math.max(...all.map((x) => x.peakRss)),
        baselineRss: Math.min(...all.map((x) => x.baselineRss)),
        timeMaxRss: all.some((x) => x.timeMaxRss !== null) ? Math.max(...all.map((x) => x.timeMaxRss ?? 0)) : null,
        peakHeap: Math.max(...all.map((x) => x.peakHeap)),
      };
    };
    const readers = compareReaders(csv, csvBytes, arg("--reader-runs", 5));
    process.stdout.write(readers + "\n\n");
    const iogen = best("iogen CSV", [csv]);
    const fioRes = best("fio JSON", fio.files);
    const report = reportRuns(csv, rows, dir, arg("--report-runs", 3));

    const cpu = cpus()[0]?.model ?? "unknown CPU";
    const load = loadavg()
      .map((l) => l.toFixed(1))
      .join(" ");
    const lines = [
      `Machine: ${cpus().length} CPUs (${cpu}), Node ${process.version}, ${new Date().toISOString().slice(0, 10)}; ` +
        `load average at the end ${load} (the machine is shared: times are upper bounds).`,
      `Rerun: \`npm run bench:import\` (add \`-- --write\` to replace this section). Best of ${runs} runs for time,`,
      'largest of the runs for memory; each run in a fresh child process. "Peak RSS" is the child\'s maximum',
      'resident set (`process.resourceUsage().maxRSS`, same as `/usr/bin/time -v`), "over baseline" subtracts',
      "the RSS the child had after loading its modules, before reading: the memory the import itself took.",
      "Read = streaming reader (`readLabStream`); plan = `buildLabPlan` (steps, measure windows, SEEN_ENOUGH, model,",
      "fit, subinterval table and charts). rows/s = rows ÷ (read + plan) wall time; CPU rows/s = rows ÷ the",
      "child's CPU time (user + system, all threads incl. GC), which other users of the machine disturb less.",
      "",
      "| input | size | rows | read s | plan s | rows/s | CPU s | CPU rows/s | peak RSS MiB | over baseline MiB | peak ÷ size | over baseline ÷ size |",
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ];
    const row = (name: string, bytes: number, r: typeof iogen): string => {
      const peak = Math.max(r.peakRss, r.timeMaxRss ?? 0);
      return (
        `| ${name} | ${MB(bytes)} MiB | ${fmt(r.rows)} | ${r.readSeconds.toFixed(2)} | ${r.planSeconds.toFixed(2)} | ` +
        `${fmt(r.rows / r.totalSeconds)} | ${r.cpuSeconds.toFixed(2)} | ${fmt(r.rows / r.cpuSeconds)} | ${MB(peak)} | ${MB(peak - r.baselineRss)} | ${(peak / bytes).toFixed(2)} | ` +
        `${((peak - r.baselineRss) / bytes).toFixed(2)} |`
      );
    };
    lines.push(row("iogen subinterval CSV", csvBytes, iogen));
    lines.push(row("100 fio JSON files (rows = job × direction)", fio.bytes, fioRes));
    lines.push("");
    lines.push(
      `fio JSON: ${fmt(100 / fioRes.totalSeconds)} files/s; iogen CSV: ${(csvBytes / 1048576 / iogen.totalSeconds).toFixed(1)} MiB/s.`,
    );
    lines.push("", report);
    const table = lines.join("\n");
    process.stdout.write(table + "\n");
    if (argv.includes("--write")) {
      const docs = join(ROOT, "docs", "benchmarks.md");
      const text = readFileSync(docs, "utf8");
      const re = /<!-- BEGIN import -->[^]*?<!-- END import -->/;
      if (!re.test(text)) throw new Error("docs/benchmarks.md has no import section");
      writeFileSync(
        docs,
        text.replace(
          re,
          `<!-- BEGIN import -->\n## Import (lab results)\n\n### Readers side by side\n\n${readers}\n\n` +
            `### Read and plan, and \`caplab report\` end to end\n\n${table}\n<!-- END import -->`,
        ),
      );
      process.stderr.write("docs/benchmarks.md updated\n");
    }
  } finally {
    if (argv.includes("--keep")) process.stderr.write(`kept ${dir}\n`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

main(process.argv.slice(2)).catch((e: unknown) => {
  process.stderr.write(`bench:import: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
