/**
 * iogen against fio on the same laid-out file, run by `npm run bench:iogen`.
 *
 * Workload: 4 KiB random reads of one file (1 GiB by default) in a temp directory, O_DIRECT for
 * both tools when the filesystem accepts it (otherwise buffered for both, and the table says so:
 * a page-cached file measures RAM and system-call cost, not the device). Each run measures
 * SECONDS after a 1 s warm-up (iogen `--warmup 1s`, fio `ramp_time=1`); iogen and fio runs
 * alternate, and which tool goes first alternates from one repetition to the next, so a drift of
 * the machine (other jobs, the host's cache) hits both alike. The table shows medians. iogen gets
 * `--seed <repetition>` (fio's `randrepeat=0` draws a new seed per run), so the repetitions are
 * independent samples of the offsets and of the Poisson arrivals.
 *
 * Scenarios:
 *  1. `--iops max --queue-depth 1 --engine sync`      vs fio `ioengine=psync iodepth=1`;
 *  2. `--iops max --queue-depth 16 --engine io_uring` vs fio `ioengine=io_uring iodepth=16`
 *     (fio with `fixedbufs=1 registerfiles=1`, as iogen registers its file and buffers);
 *  3. `--iops N` (io_uring, queue depth 16) for N = 1000, 10000 and half of scenario 2's median,
 *     with `--arrivals poisson`, `poisson-fixed` and `uniform`, vs fio `rate_iops=N` with
 *     `rate_process=poisson` (for both Poisson variants) or `linear`, same engine and depth.
 *     fio's latencies count from the IO's launch, iogen's response from its scheduled time.
 *  CPU per IO = the tool's own process CPU time (user + system) / IOs done, in µs: iogen's
 *  `iogen_cpu_pct` (getrusage over the measured time), fio's `usr_cpu + sys_cpu` (same source).
 *
 * Lag table (no fio needed): iogen's own launch lag with the null engine (no IO, so the
 * lag is all there is between schedule and completion) at 500 / 5,000 / 50,000 IOPS, uniform
 * arrivals, queue depth 16, per `--spin-us` setting under the normal policy (`--rt-priority off`), at
 * the defaults, with `--rt-priority 10` (as root), and, with `--before PATH`, for an older iogen
 * binary (which has no lag columns: its mean lag is `response_ms_avg − service_ms_avg`, exact
 * when no IO was late, and its p99/max are the response's, which exceed the lag's by the null
 * engine's service time, below 1 µs). Runs interleave settings and rates, the first setting
 * rotating from one repetition to the next; medians over the repetitions. CPU µs/IO next to it.
 *
 * fio is not installed by this script: without it the fio comparison prints a note and is skipped.
 * Targets: iogen ≥ 95 % of fio's IOPS in 1 and 2; achieved IOPS within ±1 % of N in 3.
 *
 * Options: --reps N (open-loop repetitions, default 5), --closed-reps N (closed-loop repetitions,
 * default 9: the device's throughput drifts from second to second, and the ≥ 95 % target needs a
 * steadier median), --seconds S (default 5), --size SIZE (default 1GiB, fio/iogen
 * units), --dir DIR (default the OS temp dir), --no-write (print the table, leave docs alone),
 * --lag-only (only the lag table), --lag-reps N (default 5), --lag-seconds S (default 3),
 * --before PATH (an older iogen binary to put in the lag table).
 *
 * Before/after at default settings (written to its own section, `iogen-lag-compare`):
 * --compare LABEL=PATH (repeatable) runs another iogen binary, e.g. one built from main, with no
 * tuning options (its own defaults); --variant 'LABEL=ARGS' (repeatable) runs this build with
 * ARGS added (split at spaces; a `{iogen}` token puts a command in front, e.g.
 * 'pinned=taskset -c 1 {iogen}'). With either, the table holds those rows and this build at its
 * defaults (--all-settings adds the --spin-us / --rt-priority rows). --lag-rates 500,5000 picks
 * the rates (default 500,5000,50000). An older binary without the lag columns is detected by
 * its summary header and its lag derived as described above. --busy N runs N CPU-bound loops
 * (normal priority) beside every lag run, a busy host made on purpose, so A/B differences in how
 * iogen competes for a CPU show up whatever the machine's own load is; the table says so.
 * --lag-engine io_uring|sync runs the lag table on that engine instead of null (4 KiB random
 * reads of a 64 MiB file iogen lays out in the temp directory, page-cached), adding service-time
 * columns: whether a setting that lowers the lag raises the service time.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, release, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import Papa from "papaparse";

const ROOT = resolve(__dirname, "..", "..");
const IOGEN = join(ROOT, "iogen", "target", "release", "iogen");
const DOC = join(ROOT, "docs", "benchmarks.md");
const BEGIN = "<!-- BEGIN iogen -->";
const END = "<!-- END iogen -->";
const LAG_BEGIN = "<!-- BEGIN iogen-lag -->";
const LAG_END = "<!-- END iogen-lag -->";

interface Options {
  reps: number;
  closedReps: number;
  seconds: number;
  size: string;
  dir: string;
  write: boolean;
  lagOnly: boolean;
  lagReps: number;
  lagSeconds: number;
  before?: string;
  /** Other iogen binaries, run at their defaults. */
  compare: { label: string; path: string }[];
  /** This build with extra arguments (and an optional command in front). */
  variants: { label: string; prefix: string[]; args: string[] }[];
  allSettings: boolean;
  lagRates: number[];
  /** CPU-bound loops run beside the lag runs (0: none). */
  busy: number;
  /** Engine of the lag runs. */
  lagEngine: "null" | "io_uring" | "sync";
}

/** One measured run of either tool, reduced to what the table needs. */
interface Run {
  iops: number;
  /** Mean latency in ms: iogen service (launch → completion), fio clat+slat (launch → completion). */
  serviceMs: number;
  /** iogen: mean response (scheduled → completion) in ms; fio has none (undefined). */
  responseMs?: number;
  /** p99 response (iogen) and service (both; fio: its `lat` p99) in ms. */
  responseP99Ms?: number;
  serviceP99Ms?: number;
  lateIos?: number;
  /** µs of the tool's process CPU per IO. */
  cpuUsPerIo: number;
}

/** iogen's arrival processes; fio's nearest `rate_process` is poisson, poisson and linear. */
type Arrivals = "poisson" | "poisson-fixed" | "uniform";

interface Scenario {
  key: string;
  label: string;
  iogen: string[];
  fio: string[];
  /** Target rate for open-loop runs. */
  rate?: number;
  /** Arrival process of open-loop runs. */
  arrivals?: Arrivals;
}

function parseOptions(argv: readonly string[]): Options {
  const o: Options = {
    reps: 5,
    closedReps: 9,
    seconds: 5,
    size: "1GiB",
    dir: tmpdir(),
    write: true,
    lagOnly: false,
    lagReps: 5,
    lagSeconds: 3,
    compare: [],
    variants: [],
    allSettings: false,
    lagRates: [500, 5000, 50000],
    busy: 0,
    lagEngine: "null",
  };
  /** `LABEL=REST` → [label, rest]; the label must not be empty. */
  const labelled = (opt: string, v: string): [string, string] => {
    const eq = v.indexOf("=");
    if (eq <= 0) throw new Error(`${opt}: expected LABEL=..., got '${v}'`);
    return [v.slice(0, eq), v.slice(eq + 1)];
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a}: missing value`);
      return v;
    };
    if (a === "--reps") o.reps = Number(value());
    else if (a === "--closed-reps") o.closedReps = Number(value());
    else if (a === "--seconds") o.seconds = Number(value());
    else if (a === "--size") o.size = value();
    else if (a === "--dir") o.dir = value();
    else if (a === "--no-write") o.write = false;
    else if (a === "--lag-only") o.lagOnly = true;
    else if (a === "--lag-reps") o.lagReps = Number(value());
    else if (a === "--lag-seconds") o.lagSeconds = Number(value());
    else if (a === "--before") o.before = resolve(value());
    else if (a === "--compare") {
      const [label, path] = labelled(a, value());
      o.compare.push({ label, path: resolve(path) });
    } else if (a === "--variant") {
      const [label, rest] = labelled(a, value());
      const tokens = rest.split(" ").filter((t) => t !== "");
      const at = tokens.indexOf("{iogen}");
      o.variants.push(
        at < 0
          ? { label, prefix: [], args: tokens }
          : { label, prefix: tokens.slice(0, at), args: tokens.slice(at + 1) },
      );
    } else if (a === "--all-settings") o.allSettings = true;
    else if (a === "--lag-rates") o.lagRates = value().split(",").map(Number);
    else if (a === "--busy") o.busy = Number(value());
    else if (a === "--lag-engine") {
      const e = value();
      if (e !== "null" && e !== "io_uring" && e !== "sync")
        throw new Error(`--lag-engine: null, io_uring or sync, not ${e}`);
      o.lagEngine = e;
    } else throw new Error(`unknown option ${a}`);
  }
  if (!Number.isInteger(o.reps) || o.reps < 1) throw new Error("--reps: a positive integer");
  if (!Number.isInteger(o.closedReps) || o.closedReps < 1) throw new Error("--closed-reps: a positive integer");
  if (!Number.isInteger(o.seconds) || o.seconds < 1) throw new Error("--seconds: a positive integer");
  if (!Number.isInteger(o.lagReps) || o.lagReps < 1) throw new Error("--lag-reps: a positive integer");
  if (!Number.isInteger(o.lagSeconds) || o.lagSeconds < 1) throw new Error("--lag-seconds: a positive integer");
  if (o.before !== undefined && !existsSync(o.before)) throw new Error(`--before: ${o.before} does not exist`);
  if (!Number.isInteger(o.busy) || o.busy < 0) throw new Error("--busy: a whole number of loops");
  for (const c of o.compare) if (!existsSync(c.path)) throw new Error(`--compare: ${c.path} does not exist`);
  if (o.lagRates.length === 0 || !o.lagRates.every((r) => Number.isFinite(r) && r > 0)) {
    throw new Error("--lag-rates: a comma-separated list of positive rates");
  }
  return o;
}

/** Runs a command, returns stdout; throws with stderr when it fails. */
function run(cmd: string, args: readonly string[], timeoutS = 600): string {
  const r = spawnSync(cmd, args, { encoding: "utf8", timeout: timeoutS * 1000, maxBuffer: 64 << 20 });
  if (r.error) throw r.error;
  if (r.status !== 0) {
    throw new Error(`${cmd} ${args.join(" ")} exited ${r.status}:\n${r.stderr}`);
  }
  return r.stdout;
}

function tryRun(cmd: string, args: readonly string[]): string | undefined {
  const r = spawnSync(cmd, args, { encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** iogen's summary CSV (one row per category) → the overall row of the measured phase. */
function iogenRun(args: readonly string[], workDir: string, seconds: number): Run {
  const summary = join(workDir, "summary.csv");
  run(
    IOGEN,
    ["run", ...args, "--warmup", "1s", "--duration", `${seconds}s`, "--summary", summary, "--force"],
    seconds + 120,
  );
  const parsed = Papa.parse<Record<string, string>>(readFileSync(summary, "utf8"), {
    header: true,
    skipEmptyLines: true,
  });
  const row = parsed.data.find((r) => r.category === "overall");
  if (!row) throw new Error(`no overall row in ${summary}`);
  const num = (k: string): number => {
    const v = Number(row[k]);
    if (!Number.isFinite(v)) throw new Error(`iogen summary: ${k} = ${row[k]}`);
    return v;
  };
  const iops = num("iops");
  // iogen_cpu_pct: iogen's CPU time over the measured time, in % of one core.
  return {
    iops,
    serviceMs: num("service_ms_avg"),
    responseMs: num("response_ms_avg"),
    serviceP99Ms: num("service_ms_p99"),
    responseP99Ms: num("response_ms_p99"),
    lateIos: num("late_ios"),
    cpuUsPerIo: ((num("iogen_cpu_pct") / 100) * 1e6) / iops,
  };
}

interface FioJob {
  read: { iops: number; lat_ns: { mean: number; percentile?: Record<string, number> } };
  usr_cpu: number;
  sys_cpu: number;
  job_runtime: number;
}

function fioRun(args: readonly string[], file: string, direct: boolean, seconds: number): Run {
  const out = run(
    "fio",
    [
      "--name=bench",
      `--filename=${file}`,
      "--rw=randread",
      "--bs=4k",
      "--norandommap",
      "--randrepeat=0",
      `--direct=${direct ? 1 : 0}`,
      "--time_based",
      "--ramp_time=1",
      `--runtime=${seconds}`,
      "--lat_percentiles=1",
      "--output-format=json",
      ...args,
    ],
    seconds + 120,
  );
  const job = (JSON.parse(out) as { jobs: FioJob[] }).jobs[0];
  const iops = job.read.iops;
  return {
    iops,
    serviceMs: job.read.lat_ns.mean / 1e6,
    serviceP99Ms: (job.read.lat_ns.percentile?.["99.000000"] ?? NaN) / 1e6,
    // usr_cpu / sys_cpu: the job's getrusage times in % of its run time.
    cpuUsPerIo: (((job.usr_cpu + job.sys_cpu) / 100) * 1e6) / iops,
  };
}

function scenarios(maxRate: number | undefined): Scenario[] {
  if (maxRate === undefined) {
    return [
      {
        key: "qd1",
        label: "QD 1, sync (pread) vs fio psync",
        iogen: ["--iops", "max", "--queue-depth", "1", "--engine", "sync"],
        fio: ["--ioengine=psync", "--iodepth=1"],
      },
      {
        key: "qd16",
        label: "QD 16, io_uring vs fio io_uring",
        iogen: ["--iops", "max", "--queue-depth", "16", "--engine", "io_uring"],
        fio: ["--ioengine=io_uring", "--iodepth=16", "--fixedbufs=1", "--registerfiles=1"],
      },
    ];
  }
  const half = Math.round(maxRate / 2 / 100) * 100;
  const list: Scenario[] = [];
  for (const n of [1000, 10000, half]) {
    for (const arrivals of ["poisson", "poisson-fixed", "uniform"] as const) {
      const fioProcess = arrivals === "uniform" ? "linear" : "poisson";
      list.push({
        key: `rate${n}-${arrivals}`,
        label: `--iops ${n}, ${arrivals} (fio: rate_process=${fioProcess})`,
        rate: n,
        arrivals,
        iogen: ["--iops", String(n), "--arrivals", arrivals, "--queue-depth", "16", "--engine", "io_uring"],
        fio: [
          "--ioengine=io_uring",
          "--iodepth=16",
          "--fixedbufs=1",
          "--registerfiles=1",
          `--rate_iops=${n}`,
          `--rate_process=${fioProcess}`,
        ],
      });
    }
  }
  return list;
}

/** Whether the directory's filesystem accepts O_DIRECT reads of the file. */
function supportsDirect(file: string): boolean {
  return (
    tryRun("dd", [`if=${file}`, "of=/dev/null", "bs=4096", "count=1", "iflag=direct", "status=none"]) !== undefined
  );
}

function machine(dir: string, fioVersion: string, loadStart: number): string {
  const fs = tryRun("df", ["--output=fstype", dir])?.split("\n").pop()?.trim() ?? "?";
  const dev = tryRun("df", ["--output=source", dir])?.split("\n").pop()?.trim() ?? "?";
  const rustc = tryRun("rustc", ["--version"]) ?? "?";
  return [
    `${cpus().length} × ${cpus()[0]?.model ?? "?"}`,
    `Linux ${release()}`,
    `${fs} on ${dev}`,
    fioVersion,
    rustc,
    `1-minute load average ${fmt(loadStart, 1)} before the runs, ${fmt(loadavg()[0], 1)} after (other jobs share the machine)`,
  ].join("; ");
}

function fmt(x: number | undefined, digits = 0): string {
  if (x === undefined || !Number.isFinite(x)) return "–";
  return x.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function main(): number {
  const o = parseOptions(process.argv.slice(2));
  console.error("building iogen (release) …");
  run("cargo", ["build", "--release", "--quiet", "--manifest-path", join(ROOT, "iogen", "Cargo.toml")], 1800);
  if (!existsSync(IOGEN)) throw new Error(`${IOGEN} not built`);
  lagBenchmark(o);
  if (o.lagOnly) return 0;
  const fioVersion = tryRun("fio", ["--version"]);
  if (fioVersion === undefined) {
    console.log("bench:iogen: fio is not installed (Debian: apt-get install fio); the comparison with fio is skipped.");
    return 0;
  }
  return compareWithFio(o, fioVersion);
}

/** Replaces the text between `begin` and `end` in docs/benchmarks.md. */
function writeSection(begin: string, end: string, text: string): void {
  const doc = readFileSync(DOC, "utf8");
  const from = doc.indexOf(begin);
  const to = doc.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${DOC}: markers ${begin} … ${end} not found`);
  writeFileSync(DOC, `${doc.slice(0, from + begin.length)}\n${text}\n${doc.slice(to)}`);
  console.error(`wrote ${begin} … ${end} of ${DOC}`);
}

/** One null-engine run, reduced to iogen's own lag. */
interface LagRun {
  lagMeanUs: number;
  lagP99Us: number;
  lagMaxUs: number;
  lateIos: number;
  iops: number;
  cpuUsPerIo: number;
  /** 1-minute load average just before the run. */
  load: number;
  /** The binary had no lag columns: the lag was derived from response − service. */
  derived: boolean;
  serviceMeanUs: number;
  serviceP99Us: number;
}

/** A binary and the options that make one row of the lag table. */
interface LagSetting {
  label: string;
  binary: string;
  args: string[];
  /** A command the binary runs under (e.g. `taskset -c 1`); empty: none. */
  prefix?: string[];
}

function lagRun(s: LagSetting, rate: number, workDir: string, o: Options, seed: number): LagRun {
  const seconds = o.lagSeconds;
  const summary = join(workDir, "lag-summary.csv");
  rmSync(summary, { force: true });
  const load = loadavg()[0];
  const prefix = s.prefix ?? [];
  run(
    prefix.length > 0 ? prefix[0] : s.binary,
    [
      ...(prefix.length > 0 ? [...prefix.slice(1), s.binary] : []),
      "run",
      "--engine",
      o.lagEngine,
      "--target",
      join(workDir, "lag.dat"),
      "--size",
      o.lagEngine === "null" ? "1MiB" : "64MiB",
      "--iops",
      String(rate),
      "--arrivals",
      "uniform",
      "--queue-depth",
      "16",
      "--warmup",
      "1s",
      "--duration",
      `${seconds}s`,
      "--seed",
      String(seed),
      "--summary",
      summary,
      ...s.args,
    ],
    seconds + 60,
  );
  const parsed = Papa.parse<Record<string, string>>(readFileSync(summary, "utf8"), {
    header: true,
    skipEmptyLines: true,
  });
  const row = parsed.data.find((r) => r.category === "overall");
  if (!row) throw new Error(`no overall row in ${summary}`);
  const num = (k: string): number => {
    const v = Number(row[k]);
    if (row[k] === undefined || row[k] === "" || !Number.isFinite(v)) throw new Error(`${s.label}: ${k} = ${row[k]}`);
    return v;
  };
  // An iogen from before the lag columns: derive the lag (see the header comment).
  const derived = !(parsed.meta.fields ?? []).includes("iogen_lag_ms_avg");
  // Only with the null engine is response − service all lag.
  if (derived && o.lagEngine !== "null") throw new Error(`${s.label}: no lag columns, and --lag-engine is not null`);
  const iops = num("iops");
  const us = (ms: number): number => ms * 1000;
  return {
    lagMeanUs: us(derived ? num("response_ms_avg") - num("service_ms_avg") : num("iogen_lag_ms_avg")),
    lagP99Us: us(derived ? num("response_ms_p99") : num("iogen_lag_ms_p99")),
    lagMaxUs: us(derived ? num("response_ms_max") : num("iogen_lag_ms_max")),
    lateIos: num("late_ios"),
    iops,
    cpuUsPerIo: ((num("iogen_cpu_pct") / 100) * 1e6) / iops,
    load,
    derived,
    serviceMeanUs: us(num("service_ms_avg")),
    serviceP99Us: us(num("service_ms_p99")),
  };
}

/** Whether this run compares binaries or variants at default settings (its own doc section). */
function comparing(o: Options): boolean {
  return o.compare.length > 0 || o.variants.length > 0;
}

function lagSettings(o: Options): LagSetting[] {
  const list: LagSetting[] = [];
  if (o.before !== undefined) {
    list.push({ label: "before, --spin-us 50", binary: o.before, args: ["--spin-us", "50"] });
  }
  if (comparing(o)) {
    for (const c of o.compare) list.push({ label: `${c.label} (defaults)`, binary: c.path, args: [] });
    list.push({ label: "this build (defaults)", binary: IOGEN, args: [] });
    for (const v of o.variants) list.push({ label: v.label, binary: IOGEN, args: v.args, prefix: v.prefix });
    if (!o.allSettings) return list;
  }
  // The wait strategy alone, under the normal policy (the default --rt-priority auto would run
  // some of these rows under SCHED_FIFO when root).
  for (const spin of [0, 50, 200]) {
    list.push({
      label: `--spin-us ${spin} --rt-priority off`,
      binary: IOGEN,
      args: ["--spin-us", String(spin), "--rt-priority", "off"],
    });
  }
  if (!comparing(o)) list.push({ label: "defaults", binary: IOGEN, args: [] });
  // SCHED_FIFO needs root or CAP_SYS_NICE; without them iogen refuses the option (exit 2).
  if (process.getuid?.() === 0) {
    list.push({
      label: "--spin-us 50 --rt-priority 10",
      binary: IOGEN,
      args: ["--spin-us", "50", "--rt-priority", "10"],
    });
  } else {
    console.error("bench:iogen: not root, so the --rt-priority rows are left out");
  }
  return list;
}

/** The null-engine lag table: every setting at every rate, interleaved, medians over repetitions. */
function lagBenchmark(o: Options): void {
  const loadStart = loadavg()[0];
  const settings = lagSettings(o);
  const results = new Map<string, LagRun[]>();
  const workDir = mkdtempSync(join(o.dir, "iogen-lag-"));
  // A busy host on purpose: loops that never sleep, at the same (normal) priority as iogen, in a
  // session of their own (`detached`: setsid), as another user's jobs would be. In iogen's own
  // session they would share its scheduler group (autogroup, sched(7)), which then never goes
  // idle, and compete with it only inside that group.
  const loops: ChildProcess[] = [];
  for (let i = 0; i < o.busy; i++) {
    loops.push(spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore", detached: true }));
  }
  try {
    for (let rep = 0; rep < o.lagReps; rep++) {
      for (const rate of o.lagRates) {
        for (let k = 0; k < settings.length; k++) {
          const s = settings[(k + rep) % settings.length];
          const r = lagRun(s, rate, workDir, o, rep + 1);
          const key = `${rate}\u0000${s.label}`;
          results.set(key, [...(results.get(key) ?? []), r]);
          console.error(`lag rep ${rep + 1}/${o.lagReps} ${rate} IOPS ${s.label}: mean ${fmt(r.lagMeanUs, 1)} µs`);
        }
      }
    }
  } finally {
    for (const l of loops) l.kill("SIGKILL");
    rmSync(workDir, { recursive: true, force: true });
  }
  const table = renderLag(settings, results, o, loadStart);
  console.log(table);
  if (!o.write) return;
  // A busy-host comparison has a section of its own, so it does not replace the plain one.
  const busy = `${o.lagEngine === "null" ? "" : `-${o.lagEngine}`}${o.busy > 0 ? "-busy" : ""}`;
  if (comparing(o))
    writeSection(`<!-- BEGIN iogen-lag-compare${busy} -->`, `<!-- END iogen-lag-compare${busy} -->`, table);
  else writeSection(LAG_BEGIN, LAG_END, table);
}

/** The service-time cells of a row (medians), none with the null engine (it has no service time). */
function serviceCells(o: Options, rs: readonly LagRun[]): string {
  if (o.lagEngine === "null") return "";
  const med = (f: (r: LagRun) => number): number => median(rs.map(f));
  return ` ${fmt(
    med((r) => r.serviceMeanUs),
    1,
  )} | ${fmt(
    med((r) => r.serviceP99Us),
    1,
  )} |`;
}

/** What a row runs, for the table: the command in front and the options added. */
function describe(s: LagSetting): string {
  const parts = [...(s.prefix ?? []), s.args.length > 0 || s.prefix ? "iogen" : "", ...s.args].filter((t) => t);
  return parts.length > 1 ? ` (\`${parts.join(" ")}\`)` : "";
}

function renderLag(settings: LagSetting[], results: Map<string, LagRun[]>, o: Options, loadStart: number): string {
  const all = [...results.values()].flat();
  const loads = all.map((r) => r.load);
  const rerun = comparing(o)
    ? "Rerun: `npm run bench:iogen -- --lag-only " +
      [
        ...o.compare.map((c) => `--compare ${c.label}=PATH`),
        ...o.variants.map(
          (v) =>
            `--variant '${v.label}=${[...v.prefix, ...(v.prefix.length ? ["{iogen}"] : []), ...v.args].join(" ")}'`,
        ),
      ].join(" ") +
      `${o.lagRates.join(",") === "500,5000,50000" ? "" : ` --lag-rates ${o.lagRates.join(",")}`}` +
      `${o.busy > 0 ? ` --busy ${o.busy}` : ""}${o.lagEngine === "null" ? "" : ` --lag-engine ${o.lagEngine}`}` +
      `${o.lagReps === 5 ? "" : ` --lag-reps ${o.lagReps}`}${o.lagSeconds === 3 ? "" : ` --lag-seconds ${o.lagSeconds}`}\``
    : "Rerun: `npm run bench:iogen -- --lag-only` (`--before PATH` adds an older iogen binary; `--compare " +
      "LABEL=PATH` compares binaries at their defaults)";
  const lines = [
    // Compare tables sit under their own heading in docs/benchmarks.md.
    comparing(o)
      ? o.busy > 0
        ? `#### Busy host: ${o.busy} CPU-bound loops added (${o.lagEngine} engine)`
        : `#### At the machine's own load (${o.lagEngine} engine)`
      : "## iogen's own launch lag, null engine",
    "",
    `Machine: ${cpus().length} × ${cpus()[0]?.model ?? "?"}; Linux ${release()}; 1-minute load average ` +
      `${fmt(loadStart, 1)} before the runs, ${fmt(loadavg()[0], 1)} after, median ${fmt(median(loads), 1)} ` +
      `(${fmt(Math.min(...loads), 1)}–${fmt(Math.max(...loads), 1)}) at the starts of the runs (the machine is shared).`,
    "",
    `\`iogen run --engine ${o.lagEngine} --iops N --arrivals uniform --queue-depth 16 --warmup 1s --duration ${o.lagSeconds}s\`` +
      (o.lagEngine === "null" ? ", " : " (4 KiB random reads of a 64 MiB file laid out by iogen, page-cached), ") +
      `${o.lagReps} repetitions per cell, settings and rates interleaved (the first setting rotates), medians ` +
      "over the repetitions (the range of the per-run mean in brackets). Lag = launch − scheduled of the IOs " +
      "that found a free slot (`iogen_lag_ms_*`)" +
      (o.lagEngine === "null"
        ? "; with the null engine nothing else is in the response time. "
        : "; service = completion − launch (`service_ms_*`). ") +
      `CPU µs/IO = \`iogen_cpu_pct\` × 10⁴ / IOPS.` +
      (o.busy > 0
        ? ` **Busy host made on purpose**: ${o.busy} CPU-bound loop(s) at normal priority, in a session of their own, ran beside every run (\`--busy ${o.busy}\`).`
        : "") +
      " *Below row 1*: in how many repetitions this row's run had a lower mean / p99 lag than the first " +
      "row's run of the same repetition and rate (the two ran minutes apart at most). " +
      `${rerun}.`,
    "",
    `| N IOPS | iogen, setting | lag mean µs | lag p99 µs | lag max µs | late IOs | achieved IOPS | iogen CPU µs/IO | below row 1 (mean, p99) |${o.lagEngine === "null" ? "" : " service mean µs | service p99 µs |"}`,
    `|--:|---|--:|--:|--:|--:|--:|--:|--:|${o.lagEngine === "null" ? "" : "--:|--:|"}`,
  ];
  for (const rate of o.lagRates) {
    for (const s of settings) {
      const rs = results.get(`${rate}\u0000${s.label}`) ?? [];
      if (rs.length === 0) continue;
      const med = (f: (r: LagRun) => number): number => median(rs.map(f));
      const means = rs.map((r) => r.lagMeanUs);
      const approx = rs.some((r) => r.derived) ? "≈ " : "";
      const cpu = fmt(
        med((r) => r.cpuUsPerIo),
        1,
      );
      // Paired with the first setting's run of the same repetition and rate (minutes apart at most,
      // so both saw much the same machine): in how many pairs this setting's lag was lower.
      const base = results.get(`${rate}\u0000${settings[0].label}`) ?? [];
      const pairs = Math.min(base.length, rs.length);
      const lower = (f: (r: LagRun) => number): number => rs.slice(0, pairs).filter((r, i) => f(r) < f(base[i])).length;
      const paired =
        s === settings[0] ? "–" : `${lower((r) => r.lagMeanUs)}/${pairs}, ${lower((r) => r.lagP99Us)}/${pairs}`;
      lines.push(
        `| ${fmt(rate)} | ${s.label}${describe(s)} | ${fmt(
          med((r) => r.lagMeanUs),
          1,
        )} ` +
          `(${fmt(Math.min(...means), 1)}–${fmt(Math.max(...means), 1)}) | ${approx}${fmt(med((r) => r.lagP99Us))} | ` +
          `${approx}${fmt(med((r) => r.lagMaxUs))} | ${fmt(med((r) => r.lateIos))} | ${fmt(med((r) => r.iops))} | ` +
          `${cpu} | ${paired} |${serviceCells(o, rs)}`,
      );
    }
  }
  if (all.some((r) => r.derived)) {
    lines.push(
      "",
      "≈: an iogen built from an older commit, without the lag columns: mean = `response_ms_avg − " +
        "service_ms_avg` (exact when no IO was late), p99 and max are the response time's (they exceed " +
        "the lag's by the null engine's service time, under 1 µs).",
    );
  }
  return lines.join("\n");
}

/** iogen against fio on a laid-out file (the closed- and open-loop tables). */
function compareWithFio(o: Options, fioVersion: string): number {
  const loadStart = loadavg()[0];
  const workDir = mkdtempSync(join(o.dir, "iogen-bench-"));
  try {
    const file = join(workDir, "target.dat");
    console.error(`laying out ${o.size} at ${file} …`);
    // A new target is laid out in full by iogen itself (non-zero data), then read by both tools.
    run(
      IOGEN,
      [
        "run",
        "--target",
        file,
        "--size",
        o.size,
        "--iops",
        "max",
        "--engine",
        "sync",
        "--queue-depth",
        "1",
        "--warmup",
        "0s",
        "--duration",
        "1s",
      ],
      1800,
    );
    const direct = supportsDirect(file);
    const iogenIo = ["--target", file, "--block-size", "4KiB", "--read-pct", "100", "--random-pct", "100"];
    if (direct) iogenIo.push("--direct");
    // Drop the laid-out pages from the cache, so buffered runs (if any) start alike for both.
    tryRun("sh", ["-c", "sync; echo 1 > /proc/sys/vm/drop_caches"]);

    const results = new Map<string, { s: Scenario; iogen: Run[]; fio: Run[] }>();
    const measure = (list: Scenario[], reps: number): void => {
      for (let rep = 0; rep < reps; rep++) {
        for (const s of list) {
          const entry = results.get(s.key) ?? { s, iogen: [], fio: [] };
          results.set(s.key, entry);
          const doIogen = (): void => {
            entry.iogen.push(iogenRun([...iogenIo, ...s.iogen, "--seed", String(rep + 1)], workDir, o.seconds));
          };
          const doFio = (): void => {
            entry.fio.push(fioRun(s.fio, file, direct, o.seconds));
          };
          if (rep % 2 === 0) {
            doIogen();
            doFio();
          } else {
            doFio();
            doIogen();
          }
          const last = (rs: Run[]): string => fmt(rs[rs.length - 1].iops);
          console.error(
            `rep ${rep + 1}/${reps} ${s.key}: iogen ${last(entry.iogen)} IOPS, fio ${last(entry.fio)} IOPS`,
          );
        }
      }
    };
    measure(scenarios(undefined), o.closedReps);
    const maxRate = median(results.get("qd16")!.iogen.map((r) => r.iops));
    measure(scenarios(maxRate), o.reps);

    const table = render([...results.values()], o, direct, machine(workDir, fioVersion, loadStart));
    console.log(table);
    if (o.write) writeSection(BEGIN, END, table);
    return 0;
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

function render(
  rows: readonly { s: Scenario; iogen: Run[]; fio: Run[] }[],
  o: Options,
  direct: boolean,
  machineLine: string,
): string {
  const med = (rs: readonly Run[], f: (r: Run) => number | undefined): number | undefined => {
    const xs = rs.map(f).filter((x): x is number => x !== undefined);
    return xs.length ? median(xs) : undefined;
  };
  const iops = (rs: readonly Run[]): number => med(rs, (r) => r.iops) ?? NaN;
  const lines: string[] = [
    "## iogen vs fio",
    "",
    `Machine: ${machineLine}.`,
    "",
    `Workload: 4 KiB random reads of one ${o.size} file laid out by iogen, ` +
      (direct
        ? "O_DIRECT for both tools (`--direct` / `direct=1`), so both read the device, not the page cache"
        : "**buffered** for both tools (the filesystem refused O_DIRECT): both read the page cache") +
      `; ${o.seconds} s measured after 1 s of warm-up per run; iogen and fio runs alternate (the first tool ` +
      `alternates too); ${o.closedReps} repetitions of the closed-loop runs, ${o.reps} of the open-loop ones; ` +
      "every figure is the median over the repetitions. " +
      "Rerun: `npm run bench:iogen` (needs `fio`; `npm run bench:iogen -- --reps 7 --seconds 10` for a longer run).",
    "",
    "Closed loop (`--iops max`): throughput and CPU cost.",
    "",
    "| scenario | iogen IOPS | fio IOPS | iogen / fio | iogen service ms (avg) | fio latency ms (avg) | in flight iogen / fio | iogen CPU µs/IO | fio CPU µs/IO |",
    "|---|--:|--:|--:|--:|--:|--:|--:|--:|",
  ];
  const closed = rows.filter((r) => r.s.rate === undefined);
  const open = rows.filter((r) => r.s.rate !== undefined);
  for (const { s, iogen, fio } of closed) {
    const iSvc = med(iogen, (r) => r.serviceMs) ?? NaN;
    const fSvc = med(fio, (r) => r.serviceMs) ?? NaN;
    // Little's law: IOs in flight = IOPS × mean latency (should be the queue depth for both).
    const inFlight = `${fmt((iops(iogen) * iSvc) / 1000, 1)} / ${fmt((iops(fio) * fSvc) / 1000, 1)}`;
    const cpu = (rs: readonly Run[]): string =>
      fmt(
        med(rs, (r) => r.cpuUsPerIo),
        2,
      );
    lines.push(
      `| ${s.label} | ${fmt(iops(iogen))} | ${fmt(iops(fio))} | ${fmt(iops(iogen) / iops(fio), 3)} | ` +
        `${fmt(iSvc, 3)} | ${fmt(fSvc, 3)} | ${inFlight} | ${cpu(iogen)} | ${cpu(fio)} |`,
    );
  }
  lines.push(
    "",
    "Open loop (`--iops N`, queue depth 16, io_uring): rate accuracy and what each tool reports.",
    "",
    "| N, arrivals | iogen IOPS | off N | fio IOPS | off N | iogen service ms | iogen response ms | iogen response p99 ms | iogen late IOs | fio latency ms | fio latency p99 ms | iogen CPU µs/IO | fio CPU µs/IO |",
    "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
  );
  const pct = (x: number, n: number): string => `${x >= n ? "+" : ""}${fmt(((x - n) / n) * 100, 2)} %`;
  for (const { s, iogen, fio } of open) {
    const n = s.rate!;
    lines.push(
      `| ${s.label} | ${fmt(iops(iogen))} | ${pct(iops(iogen), n)} | ${fmt(iops(fio))} | ${pct(iops(fio), n)} | ` +
        `${fmt(
          med(iogen, (r) => r.serviceMs),
          3,
        )} | ${fmt(
          med(iogen, (r) => r.responseMs),
          3,
        )} | ` +
        `${fmt(
          med(iogen, (r) => r.responseP99Ms),
          3,
        )} | ${fmt(med(iogen, (r) => r.lateIos))} | ` +
        `${fmt(
          med(fio, (r) => r.serviceMs),
          3,
        )} | ${fmt(
          med(fio, (r) => r.serviceP99Ms),
          3,
        )} | ` +
        `${fmt(
          med(iogen, (r) => r.cpuUsPerIo),
          2,
        )} | ${fmt(
          med(fio, (r) => r.cpuUsPerIo),
          2,
        )} |`,
    );
  }
  lines.push("", "Targets (iogen's design: within 5 % of fio's IOPS, open-loop rates within ±1 %):", "");
  for (const { s, iogen, fio } of closed) {
    const ratio = iops(iogen) / iops(fio);
    // Each iogen run and the fio run next to it saw nearly the same machine: their ratios show
    // how much of the spread is the device's drift rather than the tools.
    const paired = iogen.map((r, i) => r.iops / fio[i].iops);
    lines.push(
      `- ${s.label}: iogen / fio = ${fmt(ratio, 3)} (ratio of the medians); target ≥ 0.95: ` +
        `**${ratio >= 0.95 ? "met" : "missed"}**. Ratios of adjacent runs: median ${fmt(median(paired), 3)}, ` +
        `range ${fmt(Math.min(...paired), 2)}–${fmt(Math.max(...paired), 2)}.`,
    );
  }
  for (const { s, iogen } of open) {
    const n = s.rate!;
    const off = Math.abs(iops(iogen) - n) / n;
    const ordered = iogen.every(
      (r) => (r.responseMs ?? NaN) >= r.serviceMs && (r.responseP99Ms ?? NaN) >= (r.serviceP99Ms ?? NaN),
    );
    // A Poisson count over T seconds has standard deviation sqrt(N·T): the rate it shows is
    // only as exact as that, whatever the generator does.
    const noise =
      s.arrivals === "poisson"
        ? ` (a Poisson count over ${o.seconds} s alone varies by ±${fmt(100 / Math.sqrt(n * o.seconds), 2)} % (1 sd))`
        : "";
    lines.push(
      `- ${s.label}: iogen achieved ${pct(iops(iogen), n)} of N; target ±1 %: **${off <= 0.01 ? "met" : "missed"}**${noise}; ` +
        `response ≥ service (mean and p99) in every run: **${ordered ? "yes" : "no"}**.`,
    );
  }
  lines.push(
    "",
    "Columns: *service* = launch → completion; *response* = scheduled arrival → completion (iogen only; with " +
      "`--iops max` the two are equal by definition). *Late IOs*: arrivals that found all 16 slots busy and waited; " +
      "their wait is in their response time. fio's *latency* is its `lat` (submission → completion): " +
      "rate-limited fio times each IO from its launch, not from when it was due, so queueing behind a slow " +
      "IO is invisible in it (coordinated omission), and it reports no late IOs. *CPU µs/IO* = the tool's own " +
      "user + system CPU time over the measured time / IOs done (iogen: `iogen_cpu_pct`, fio: " +
      "`usr_cpu + sys_cpu`, both from getrusage). fio's io_uring runs use `fixedbufs=1 registerfiles=1`, the " +
      "registered buffers and file iogen's io_uring engine uses, so the comparison is like for like. " +
      "*In flight* = IOPS × mean latency (Little's law): both tools hold the queue depth, so at equal depth a " +
      "throughput gap is a latency gap, i.e. the time from submission until the tool reaps the completion, " +
      "which includes waiting for a CPU on a busy machine. Arrivals: `poisson` = independent exponential gaps " +
      "(the count in a run is itself random: ±1/√(N·T)); `poisson-fixed` = Poisson points conditioned on " +
      "exactly N per second in each subinterval (same burstiness, no drift of the offered rate); `uniform` = " +
      "equal gaps. fio has no counterpart of `poisson-fixed`; its row runs fio's `poisson`.",
  );
  return lines.join("\n");
}

process.exitCode = main();
