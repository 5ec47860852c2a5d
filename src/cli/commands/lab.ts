/**
 * `caplab lab` (also `npm run lab`): the demo for a machine without Excel.
 *
 * Pipeline: find iogen (building it with `cargo build --release` when cargo is there, so a fresh
 * clone works) → write a plan CSV in a temp directory: a 2×2 design (read_pct 100/70 × block size
 * 4/16 KiB, for the Fit sheet) at each of three IOPS levels (for the response curve, which needs
 * three, and so the What-if sheet) → `iogen plan` on a scratch file in that directory (seeded, 1 s
 * warm-up, a few seconds per step) → read its subinterval and summary CSV → `buildLabAnalysis` →
 * `lab-report.xlsx` and `lab-report.html` in the output directory → the Steps table and the sheets
 * written on stdout, with the CPU line's verdict (and, on a busy machine, why it is not usable). The
 * temp directory is removed at the end (also on failure and on Ctrl-C), unless `--keep-temp`.
 *
 * Progress goes to stderr, the Steps table to stdout. Exit codes: 0 ok, 1 a step failed
 * (cargo missing, build failed, iogen failed, unreadable output), 2 bad usage.
 */
import { spawn } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { buildLabAnalysis, type LabAnswers } from "../../lab/lab-plan";
import type { WorkbookPlan } from "../../workbook/plan";
import { readLabStream, type LabFileResult } from "../../import/detect";
import { formatProblem } from "../../import/types";
import { renderHtml } from "../../report/html";
import { formatTextTable } from "../../report/text";
import { renderXlsxContent } from "../../report/xlsx";
import { checkOutputs, Output, OutputError, writeOutputs } from "../outputs";
import { planXmlIllegal, xmlIllegalWarning } from "../../report/xml-text";
import { CliIo } from "../io";
import { parseOptions, UsageError } from "../options";

export const summary =
  "Demo without Excel: run a small iogen experiment, write lab-report.xlsx/.html, print the Steps and the sheets";

/** The IOPS levels of the demo: three at least, so the response curve (and What-if) can be fitted. */
const DEFAULT_IOPS = [500, 2000, 8000];

const HELP = `Usage: caplab lab [--out DIR] [--duration SECONDS] [--iops A,B,C] [--size SIZE] [--keep-temp] [--force]
       npm run lab [-- options]

Runs a small designed experiment with iogen (the bundled IO load generator) and analyses it,
as 'caplab report' would:
  - builds iogen with 'cargo build --release' when cargo is available (first time: a few
    minutes), or uses iogen/target/release/iogen as it is;
  - writes a plan to a temp directory: a 2x2 design (read_pct 100/70 x block size 4/16 KiB)
    at each IOPS level (3 levels: 12 steps, seeded), and runs 'iogen plan' on a scratch file
    there (1 s warm-up per step);
  - writes lab-report.xlsx (opens in Excel or LibreOffice without the add-in) and
    lab-report.html (offline charts) in DIR, as a pair (an earlier pair is replaced only
    with --force): Summary, Steps, Model, Fit, What-if and Subintervals;
  - prints the Steps table, the sheets written and the CPU line's verdict (on a busy machine,
    other programs' CPU use is in the host CPU figures: it says so), and removes the temp
    directory.

Options:
  --out DIR           where to write the two reports (default: the current directory)
  --duration SECONDS  measured seconds per step (default 3; 1-600)
  --iops A,B,C        three or more IOPS levels (default ${DEFAULT_IOPS.join(",")})
  --size SIZE         scratch file size for iogen (default 64MiB)
  --iogen PATH        use this iogen binary instead of building one
  --keep-temp         keep the temp directory (plan, CSVs, scratch file) and print its path
  --force             replace lab-report.xlsx / lab-report.html when they exist in DIR
  -h, --help          this help

Exit codes: 0 ok, 1 a step failed (its error is printed), 2 bad usage.
`;

interface Args {
  out: string;
  duration: number;
  iops: number[];
  size: string;
  iogen?: string;
  keepTemp: boolean;
  force: boolean;
  help: boolean;
}

/** A step of the pipeline failed; the message says which and why. */
class LabError extends Error {}

const OPTIONS = {
  help: { type: "boolean", short: "h" },
  out: { type: "string", short: "o" },
  duration: { type: "string" },
  iops: { type: "string" },
  size: { type: "string" },
  iogen: { type: "string" },
  "keep-temp": { type: "boolean" },
  force: { type: "boolean" },
} as const;

function readArgs(args: string[]): Args {
  const { values: v } = parseOptions("lab", args, OPTIONS);
  const a: Args = {
    out: v.out ?? ".",
    duration: 3,
    iops: DEFAULT_IOPS,
    size: v.size ?? "64MiB",
    iogen: v.iogen,
    keepTemp: v["keep-temp"] ?? false,
    force: v.force ?? false,
    help: v.help ?? false,
  };
  if (v.duration !== undefined) {
    const d = Number(v.duration.replace(/s$/, ""));
    if (!Number.isFinite(d) || d < 1 || d > 600)
      throw new UsageError(`--duration ${v.duration}: give seconds, 1 to 600`);
    a.duration = d;
  }
  if (v.iops !== undefined) {
    const parts = v.iops.split(",").map((p) => Number(p.trim()));
    if (parts.length < 3 || parts.some((p) => !Number.isInteger(p) || p < 1) || new Set(parts).size !== parts.length) {
      throw new UsageError(
        `--iops ${v.iops}: give three or more different whole numbers, e.g. ${DEFAULT_IOPS.join(",")} (the response curve needs three load levels)`,
      );
    }
    a.iops = [...parts].sort((x, y) => x - y);
  }
  if (!/^\d+(\.\d+)?\s*([KMGT](iB)?|[kKMGT]B|B)?$/i.test(a.size)) {
    throw new UsageError(`--size ${a.size}: give a size such as 64MiB`);
  }
  return a;
}

/** The repository root: the nearest directory above this module with the project's package.json. */
function projectRoot(): string {
  let dir = __dirname;
  for (;;) {
    const pkg = path.join(dir, "package.json");
    if (fs.existsSync(pkg)) {
      try {
        if ((JSON.parse(fs.readFileSync(pkg, "utf8")) as { name?: string }).name === "capacity-lab") return dir;
      } catch {
        // not ours; keep looking
      }
    }
    const up = path.dirname(dir);
    if (up === dir) throw new LabError("cannot find the Capacity Lab checkout (package.json) above " + __dirname);
    dir = up;
  }
}

/** `cargo` on PATH, else rustup's default place; null when neither exists. */
function findCargo(): string | null {
  const exe = process.platform === "win32" ? "cargo.exe" : "cargo";
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (dir && fs.existsSync(path.join(dir, exe))) return path.join(dir, exe);
  }
  const home = path.join(os.homedir(), ".cargo", "bin", exe);
  return fs.existsSync(home) ? home : null;
}

/**
 * Runs a program, passing its stderr lines to `onLine` as they come; resolves with the exit code,
 * stdout and the last 16 KiB of stderr. Rejects only when the program cannot be started.
 */
function runProgram(
  cmd: string,
  args: string[],
  options: { cwd?: string; onLine?: (line: string) => void; signal?: AbortSignal },
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderrTail: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: options.cwd, stdio: ["ignore", "pipe", "pipe"], signal: options.signal });
    let stdout = "";
    let tail = "";
    let partial = "";
    child.stdout.setEncoding("utf8").on("data", (s: string) => (stdout += s));
    child.stderr.setEncoding("utf8").on("data", (s: string) => {
      tail = (tail + s).slice(-16384);
      const lines = (partial + s).split(/\r?\n|\r/);
      partial = lines.pop() ?? "";
      for (const l of lines) if (l.trim() !== "") options.onLine?.(l);
    });
    child.on("error", reject);
    child.on("close", (code, signal) => {
      if (partial.trim() !== "") options.onLine?.(partial);
      resolve({ code, signal, stdout, stderrTail: tail });
    });
  });
}

/** The iogen binary to use (`--iogen`), else {@link buildIogen} in this checkout with cargo from PATH. */
async function ensureIogen(a: Args, io: CliIo): Promise<string> {
  if (a.iogen) {
    if (!fs.existsSync(a.iogen)) throw new LabError(`--iogen ${a.iogen}: no such file`);
    return path.resolve(a.iogen);
  }
  return buildIogen(projectRoot(), findCargo(), io);
}

/**
 * Builds iogen in `root` with `cargo build --release` (a no-op when it is up to date; cargo's
 * "Compiling" lines are shown as progress) and returns the binary's path. Without cargo, an
 * existing binary is used as it is.
 *
 * @param root - the checkout (holds iogen/Cargo.toml)
 * @param cargo - the cargo program, or null when there is none
 * @param io - where progress goes (stderr)
 * @returns the path of iogen/target/release/iogen
 * @throws Error when there is neither cargo nor a binary, or the build fails (its message says which)
 */
export async function buildIogen(root: string, cargo: string | null, io: CliIo): Promise<string> {
  const binary = path.join(root, "iogen", "target", "release", process.platform === "win32" ? "iogen.exe" : "iogen");
  if (!cargo) {
    if (fs.existsSync(binary)) {
      io.err(`caplab lab: cargo not found; using the iogen already built at ${binary}\n`);
      return binary;
    }
    throw new LabError(
      "iogen is not built yet and cargo (the Rust toolchain) was not found on PATH or in ~/.cargo/bin.\n" +
        "Install Rust (Debian: apt-get install cargo; or rustup) and rerun, or pass --iogen PATH to a built iogen.",
    );
  }
  const fresh = !fs.existsSync(binary);
  io.err(
    fresh
      ? "caplab lab: building iogen (cargo build --release; the first build takes a few minutes) ...\n"
      : "caplab lab: checking the iogen build (cargo build --release) ...\n",
  );
  const started = Date.now();
  const r = await runProgram(cargo, ["build", "--release", "--manifest-path", path.join(root, "iogen", "Cargo.toml")], {
    cwd: root,
    onLine: (l) => {
      if (fresh || /^\s*(Compiling|error|warning: unused)/.test(l)) io.err(`  ${l}\n`);
    },
  });
  if (r.code !== 0 || !fs.existsSync(binary)) {
    throw new LabError(`building iogen failed (cargo exit ${r.code ?? r.signal}):\n${r.stderrTail.trimEnd()}`);
  }
  io.err(`caplab lab: iogen ready (${((Date.now() - started) / 1000).toFixed(1)} s): ${binary}\n`);
  return binary;
}

/**
 * The plan: at each IOPS level (lowest first), a 2×2 design of read_pct 100/70 × block size
 * 4/16 KiB in standard order. Two factors at two levels give the Fit sheet; three load levels give
 * the response curve (and so the What-if sheet).
 */
export function labPlanCsv(iops: readonly number[]): string {
  const rows: string[] = [];
  for (const x of iops)
    for (const [r, kib] of [
      [100, 4],
      [70, 4],
      [100, 16],
      [70, 16],
    ])
      rows.push(`${rows.length + 1},r${r}-${kib}k-iops${x},${r},${kib}KiB,${x}`);
  return ["StdOrder,step_name,read_pct,block_size,iops", ...rows].join("\n") + "\n";
}

async function readResult(file: string): Promise<LabFileResult> {
  // Named by base name: the temp directory is gone once the reports are written.
  const result = await readLabStream(fs.createReadStream(file), path.basename(file));
  if (result.errors.length > 0) {
    throw new LabError(`cannot read iogen's output ${file}:\n${result.errors.map(formatProblem).join("\n")}`);
  }
  return result;
}

/** The two reports, written as a pair (both or neither) by `writeOutputs`. */
function labOutputs(out: string, plan?: WorkbookPlan): Output[] {
  return [
    {
      option: "--out",
      path: path.join(out, "lab-report.xlsx"),
      ext: /\.xlsx$/i,
      content: () => renderXlsxContent(plan as WorkbookPlan),
    },
    {
      option: "--out",
      path: path.join(out, "lab-report.html"),
      ext: /\.html$/i,
      content: () => renderHtml(plan as WorkbookPlan),
    },
  ];
}

/** The arguments, checked before anything runs; a UsageError names the option. */
function checkedArgs(args: string[]): Args {
  const a = readArgs(args);
  if (a.help) return a;
  if (!fs.existsSync(a.out) || !fs.statSync(a.out).isDirectory()) {
    throw new UsageError(`--out ${a.out}: not an existing directory`);
  }
  // Before the experiment (minutes): the reports' places must be free, or --force given.
  checkOutputs(labOutputs(a.out), { force: a.force });
  return a;
}

/** Runs iogen on the plan in `tmp`; returns the subinterval and summary CSV paths. */
async function runExperiment(
  a: Args,
  iogen: string,
  tmp: string,
  io: CliIo,
  signal: AbortSignal,
): Promise<[string, string]> {
  const planCsv = path.join(tmp, "plan.csv");
  const sub = path.join(tmp, "subintervals.csv");
  const sum = path.join(tmp, "summary.csv");
  fs.writeFileSync(planCsv, labPlanCsv(a.iops));
  const iogenArgs = [
    "plan",
    planCsv,
    "--target",
    path.join(tmp, "scratch.dat"),
    "--size",
    a.size,
    "--warmup",
    "1s",
    "--duration",
    `${a.duration}s`,
    "--subinterval",
    "1s",
    "--seed",
    "20261122",
    "--csv",
    sub,
    "--summary",
    sum,
  ];
  const steps = 4 * a.iops.length;
  io.err(
    `caplab lab: running ${steps} steps (read_pct 100/70 × block size 4/16 KiB at ${a.iops.join("/")} IOPS, ` +
      `${a.duration} s + 1 s warm-up per step, about ${steps * (1 + a.duration)} s) on a ${a.size} scratch file in ${tmp}\n`,
  );
  const r = await runProgram(iogen, iogenArgs, { cwd: tmp, onLine: (l) => io.err(`  ${l}\n`), signal });
  if (r.code !== 0) {
    throw new LabError(
      `iogen failed (exit ${r.code ?? r.signal}): ${iogen} ${iogenArgs.join(" ")}\n${r.stderrTail.trimEnd()}`,
    );
  }
  for (const f of [sub, sum]) if (!fs.existsSync(f)) throw new LabError(`iogen exited 0 but did not write ${f}`);
  return [sub, sum];
}

/** The machine's load per core now (1-minute load average / cores); 0 where the OS gives none. */
function loadPerCore(): number {
  return os.loadavg()[0] / Math.max(1, os.cpus().length);
}

/**
 * The CPU line's verdict per level, in words, and why a line is not usable when the machine was
 * busy: other programs' CPU use is in the host CPU figures iogen records (cpu_busy_pct), so the
 * CPU per IO cannot be told from it.
 */
export function cpuLines(answers: LabAnswers, busiestLoadPerCore: number, cores: number): string[] {
  return answers.cpu.groups.map((g) => {
    const name = g.group === "" || g.group === "all steps" ? "" : ` (${g.group})`;
    const busy =
      g.usable !== "usable" && busiestLoadPerCore > 0.5
        ? ` The machine was busy while it ran (load average up to ${(busiestLoadPerCore * cores).toFixed(1)} on ${cores} ` +
          `core${cores === 1 ? "" : "s"}): other programs' CPU use is in the host CPU figures. Rerun on an idle machine for a usable line.`
        : "";
    return `CPU line${name}: ${g.verdict}${busy}`;
  });
}

/** Analyses iogen's output and writes the two reports; prints the Steps, the sheets and the CPU line. */
async function analyseAndWrite(a: Args, files: [string, string], busiest: number, io: CliIo): Promise<void> {
  io.err("caplab lab: analysing ...\n");
  const inputs = [await readResult(files[0]), await readResult(files[1])];
  let plan: WorkbookPlan;
  let answers: LabAnswers;
  try {
    ({ plan, answers } = buildLabAnalysis(inputs, { title: "Capacity Lab demo: iogen experiment" }));
  } catch (e) {
    throw new LabError(`analysis failed: ${e instanceof Error ? e.message : String(e)}`);
  }
  const replaced = xmlIllegalWarning(planXmlIllegal(plan));
  if (replaced) io.err(`caplab lab: warning: ${replaced}\n`);
  let written: string[];
  try {
    written = await writeOutputs(labOutputs(a.out, plan), { force: a.force });
  } catch (e) {
    if (e instanceof OutputError || e instanceof UsageError) throw new LabError(`${e.message}; nothing was written`);
    throw e;
  }
  const steps = plan.sheets.find((s) => s.name === "Steps")?.tables[0];
  if (steps) io.out(`\nSteps\n${formatTextTable(steps, Math.max(80, process.stdout.columns ?? 120))}\n`);
  const busy = Math.max(busiest, loadPerCore());
  io.out(`\n${cpuLines(answers, busy, os.cpus().length).join("\n")}\n`);
  io.out(`\nSheets written: ${plan.sheets.map((s) => s.name).join(", ")}\n`);
  if (!plan.sheets.some((s) => s.name === "What-if")) {
    // The Summary's own words for the response curve ("Knee: …"): why there is no What-if.
    const knee = plan.sheets[0]?.notes.find((n) => n.startsWith("Knee"));
    io.out(
      "No What-if sheet: it needs a usable CPU line and a response curve over three load levels" +
        `${knee ? `; ${knee}` : ""}\n`,
    );
  }
  io.err(`caplab lab: wrote ${written[0]} and ${written[1]} (open it in a browser; no network needed)\n`);
}

/** Runs `caplab lab`; returns the exit code. */
export async function run(args: string[], io: CliIo): Promise<number> {
  let a: Args;
  try {
    a = checkedArgs(args);
    if (a.help) {
      io.out(HELP);
      return 0;
    }
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`caplab lab: ${e.message}\n`);
      return 2;
    }
    throw e;
  }

  let tmp: string | null = null;
  const cleanup = (): void => {
    if (tmp && !a.keepTemp) fs.rmSync(tmp, { recursive: true, force: true });
  };
  const abort = new AbortController();
  const onSignal = (): void => {
    abort.abort();
    cleanup();
    io.err("\ncaplab lab: interrupted; temp directory removed\n");
    process.exit(130);
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    const iogen = await ensureIogen(a, io);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "caplab-lab-"));
    const before = loadPerCore();
    const files = await runExperiment(a, iogen, tmp, io, abort.signal);
    await analyseAndWrite(a, files, Math.max(before, loadPerCore()), io);
    if (a.keepTemp) io.err(`caplab lab: kept ${tmp}\n`);
    return 0;
  } catch (e) {
    if (e instanceof LabError) {
      io.err(`caplab lab: ${e.message}\n`);
      return 1;
    }
    throw e;
  } finally {
    process.removeListener("SIGINT", onSignal);
    process.removeListener("SIGTERM", onSignal);
    cleanup();
  }
}
