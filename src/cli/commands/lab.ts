/**
 * `caplab lab` (also `npm run lab`): the demo for a machine without Excel.
 *
 * Pipeline: find iogen (building it with `cargo build --release` when cargo is there, so a fresh
 * clone works) → write a 2×2 plan CSV (read_pct 100/70 × two IOPS levels) in a temp directory →
 * `iogen plan` on a scratch file in that directory (seeded, 1 s warm-up, a few seconds per step)
 * → read its subinterval and summary CSV → `buildLabPlan` → `lab-report.xlsx` and
 * `lab-report.html` in the output directory → the Steps table on stdout. The temp directory is
 * removed at the end (also on failure and on Ctrl-C), unless `--keep-temp`.
 *
 * Progress goes to stderr, the Steps table to stdout. Exit codes: 0 ok, 1 a step failed
 * (cargo missing, build failed, iogen failed, unreadable output), 2 bad usage.
 */
import { spawn } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { buildLabPlan } from "../../lab/lab-plan";
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

export const summary = "Demo without Excel: run a 2×2 iogen experiment, write lab-report.xlsx/.html, print the Steps";

const HELP = `Usage: caplab lab [--out DIR] [--duration SECONDS] [--iops LOW,HIGH] [--size SIZE] [--keep-temp] [--force]
       npm run lab [-- options]

Runs a small designed experiment with iogen (the bundled IO load generator) and analyses it,
as 'caplab report' would:
  - builds iogen with 'cargo build --release' when cargo is available (first time: a few
    minutes), or uses iogen/target/release/iogen as it is;
  - writes a 2x2 plan (read_pct 100 and 70 x two IOPS levels; 4 steps, seeded) to a temp
    directory and runs 'iogen plan' on a scratch file there (1 s warm-up per step);
  - writes lab-report.xlsx (opens in Excel or LibreOffice without the add-in) and
    lab-report.html (offline charts) in DIR, as a pair (an earlier pair is replaced only
    with --force);
  - prints the Steps table and removes the temp directory.

Options:
  --out DIR           where to write the two reports (default: the current directory)
  --duration SECONDS  measured seconds per step (default 4; 1-600)
  --iops LOW,HIGH     the two IOPS levels (default 500,2000)
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
  iops: [number, number];
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
    duration: 4,
    iops: [500, 2000],
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
    if (parts.length !== 2 || parts.some((p) => !Number.isInteger(p) || p < 1) || parts[0] === parts[1]) {
      throw new UsageError(`--iops ${v.iops}: give two different whole numbers, e.g. 500,2000`);
    }
    a.iops = [Math.min(...parts), Math.max(...parts)];
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

/** The 2×2 plan: read_pct 100/70 × the two IOPS levels, in standard order. */
export function labPlanCsv(iops: [number, number]): string {
  const rows = [
    [100, iops[0]],
    [70, iops[0]],
    [100, iops[1]],
    [70, iops[1]],
  ];
  return (
    ["StdOrder,step_name,read_pct,iops", ...rows.map(([r, x], i) => `${i + 1},r${r}-iops${x},${r},${x}`)].join("\n") +
    "\n"
  );
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
    const total = 4 * (1 + a.duration);
    io.err(
      `caplab lab: running a 2×2 plan (read_pct 100/70 × ${a.iops[0]}/${a.iops[1]} IOPS, ` +
        `${a.duration} s + 1 s warm-up per step, about ${total} s) on a ${a.size} scratch file in ${tmp}\n`,
    );
    const r = await runProgram(iogen, iogenArgs, { cwd: tmp, onLine: (l) => io.err(`  ${l}\n`), signal: abort.signal });
    if (r.code !== 0) {
      throw new LabError(
        `iogen failed (exit ${r.code ?? r.signal}): ${iogen} ${iogenArgs.join(" ")}\n${r.stderrTail.trimEnd()}`,
      );
    }
    for (const f of [sub, sum]) if (!fs.existsSync(f)) throw new LabError(`iogen exited 0 but did not write ${f}`);

    io.err("caplab lab: analysing ...\n");
    const inputs = [await readResult(sub), await readResult(sum)];
    let plan: WorkbookPlan;
    try {
      plan = buildLabPlan(inputs, { title: "Capacity Lab demo: 2×2 iogen experiment" });
    } catch (e) {
      throw new LabError(`analysis failed: ${e instanceof Error ? e.message : String(e)}`);
    }
    let xlsxPath: string;
    let htmlPath: string;
    const replaced = xmlIllegalWarning(planXmlIllegal(plan));
    if (replaced) io.err(`caplab lab: warning: ${replaced}\n`);
    try {
      [xlsxPath, htmlPath] = await writeOutputs(labOutputs(a.out, plan), { force: a.force });
    } catch (e) {
      if (e instanceof OutputError || e instanceof UsageError) throw new LabError(`${e.message}; nothing was written`);
      throw e;
    }

    const steps = plan.sheets.find((s) => s.name === "Steps")?.tables[0];
    if (steps) io.out(`\nSteps\n${formatTextTable(steps, Math.max(80, process.stdout.columns ?? 120))}\n`);
    io.err(
      `caplab lab: wrote ${xlsxPath} (${plan.sheets.map((s) => s.name).join(", ")}) and ${htmlPath} ` +
        `(open it in a browser; no network needed)\n`,
    );
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
