/**
 * `caplab lab` with a stand-in iogen (`--iogen`): a small node script that checks the plan it is
 * given and writes the synthetic 2×2 fixture CSVs (tests/lab/fixtures/doe2x2) where iogen
 * would, or fails the way iogen does. The real iogen run is `npm run lab` itself (see the report).
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import ExcelJS from "exceljs";
import { buildIogen, cpuLines, labPlanCsv, run } from "../../src/cli/commands/lab";
import type { LabAnswers } from "../../src/lab/lab-plan";
import { syntheticLab, TWO_PROTOCOLS, type LabModel } from "../lab/fixtures/lab-model";
import type { CliIo } from "../../src/cli/io";

const FIXTURES = join(__dirname, "../lab/fixtures/doe2x2");

function capture(): CliIo & { stdout: string; stderr: string } {
  const io = {
    stdout: "",
    stderr: "",
    out: (t: string) => void (io.stdout += t),
    err: (t: string) => void (io.stderr += t),
  };
  return io;
}

/** Writes an executable stand-in for iogen; `body` is JavaScript run with `args` (argv after the program). */
function fakeIogen(dir: string, body: string): string {
  const file = join(dir, "fake-iogen");
  writeFileSync(
    file,
    `#!/usr/bin/env node\n"use strict";\nconst fs = require("fs");\nconst args = process.argv.slice(2);\n` +
      `const opt = (n) => args[args.indexOf(n) + 1];\n${body}\n`,
  );
  chmodSync(file, 0o755);
  return file;
}

let work: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), "caplab-lab-test-"));
});
afterEach(() => {
  rmSync(work, { recursive: true, force: true });
});

describe("caplab lab", () => {
  test("--help documents the options and exits 0", async () => {
    const io = capture();
    expect(await run(["--help"], io)).toBe(0);
    for (const o of ["--out", "--duration", "--iops", "--size", "--iogen", "--keep-temp"])
      expect(io.stdout).toContain(o);
  });

  test.each([
    [["--bogus"], "unknown option '--bogus'"],
    [["--duration", "0"], "--duration 0: give seconds, 1 to 600"],
    [["--iops", "500,2000"], "--iops 500,2000: give three or more different whole numbers"],
    [["--iops", "500,500,2000"], "--iops 500,500,2000: give three or more different whole numbers"],
    [["--out", "/nonexistent/dir"], "--out /nonexistent/dir: not an existing directory"],
  ])("bad usage %p exits 2 with a message", async (args, message) => {
    const io = capture();
    expect(await run(args, io)).toBe(2);
    expect(io.stderr).toContain(message);
  });

  test("the plan is a 2×2 design (read_pct × block size) in standard order at each IOPS level", () => {
    const rows = (x: number, first: number): string[] => [
      `${first},r100-4k-iops${x},100,4KiB,${x}`,
      `${first + 1},r70-4k-iops${x},70,4KiB,${x}`,
      `${first + 2},r100-16k-iops${x},100,16KiB,${x}`,
      `${first + 3},r70-16k-iops${x},70,16KiB,${x}`,
    ];
    expect(labPlanCsv([500, 2000, 8000])).toBe(
      ["StdOrder,step_name,read_pct,block_size,iops", ...rows(500, 1), ...rows(2000, 5), ...rows(8000, 9)].join("\n") +
        "\n",
    );
  });

  test("a run with three load levels writes every analysis sheet, What-if included, and prints them and the CPU line", async () => {
    // iogen's output stood in for by a run of a known model at three load levels (tests/lab/fixtures/lab-model.ts).
    const model: LabModel = {
      ...TWO_PROTOCOLS,
      protocols: [{ name: "nfs", cpuMsPerIo: 0.081, serviceMs: 0.5, xMax: 30000, targets: [2000, 8000, 14000, 20000] }],
    };
    const lab = syntheticLab(model, 7);
    writeFileSync(join(work, "model-sub.csv"), lab.subintervals);
    writeFileSync(join(work, "model-sum.csv"), lab.summary);
    const iogen = fakeIogen(
      work,
      `fs.copyFileSync(${JSON.stringify(join(work, "model-sub.csv"))}, opt("--csv"));
       fs.copyFileSync(${JSON.stringify(join(work, "model-sum.csv"))}, opt("--summary"));`,
    );
    const io = capture();
    expect(await run(["--iogen", iogen, "--out", work, "--duration", "1"], io)).toBe(0);
    expect(io.stdout).toContain("\nSheets written: Summary, Steps, Model, What-if, Subintervals\n");
    expect(io.stdout).toMatch(/\nCPU line: Usable: /); // one level: the line has no level name
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(join(work, "lab-report.xlsx"));
    expect(wb.worksheets.map((w) => w.name)).toContain("What-if");
  });

  test("the CPU line on a busy machine says plainly why it is not usable", () => {
    const answers = {
      cpu: {
        groups: [
          {
            group: "",
            usable: "not usable",
            verdict: "Not usable: the CPU does not rise measurably with IOPS over these 12 steps.",
          },
        ],
      },
    } as unknown as LabAnswers;
    expect(cpuLines(answers, 3.1, 2)).toEqual([
      "CPU line: Not usable: the CPU does not rise measurably with IOPS over these 12 steps. The machine was busy " +
        "while it ran (load average up to 6.2 on 2 cores): other programs' CPU use is in the host CPU figures. " +
        "Rerun on an idle machine for a usable line.",
    ]);
    expect(cpuLines(answers, 0.1, 2)).toEqual([
      "CPU line: Not usable: the CPU does not rise measurably with IOPS over these 12 steps.",
    ]);
  });

  test("runs iogen on a scratch file in a temp dir, writes both reports, prints Steps, removes the temp dir", async () => {
    const iogen = fakeIogen(
      work,
      `fs.writeFileSync(${JSON.stringify(join(work, "args.json"))}, JSON.stringify({ args, plan: fs.readFileSync(args[1], "utf8") }));
       fs.copyFileSync(${JSON.stringify(join(FIXTURES, "subintervals.csv"))}, opt("--csv"));
       fs.copyFileSync(${JSON.stringify(join(FIXTURES, "summary.csv"))}, opt("--summary"));
       process.stderr.write("step 1/4 ... done\\n");`,
    );
    const io = capture();
    const code = await run(["--iogen", iogen, "--out", work, "--duration", "2"], io);
    expect(io.stderr).not.toMatch(/failed/);
    expect(code).toBe(0);

    const { args, plan } = JSON.parse(readFileSync(join(work, "args.json"), "utf8")) as {
      args: string[];
      plan: string;
    };
    expect(args[0]).toBe("plan");
    expect(plan).toBe(labPlanCsv([500, 2000, 8000]));
    const opt = (n: string) => args[args.indexOf(n) + 1];
    expect(opt("--duration")).toBe("2s");
    expect(opt("--warmup")).toBe("1s");
    expect(opt("--seed")).toMatch(/^\d+$/);
    const tmp = join(opt("--target"), "..");
    expect(tmp.startsWith(tmpdir())).toBe(true);
    expect(existsSync(tmp)).toBe(false); // cleaned up

    expect(io.stderr).toContain("  step 1/4 ... done"); // iogen's progress is shown
    expect(io.stdout).toMatch(/^\nSteps\n/);
    expect(io.stdout).toContain("r70-i4000");
    // The 2×2 fixture has two load levels: no response curve, so no What-if, and the output says why.
    expect(io.stdout).toMatch(
      /\nNo What-if sheet: it needs a usable CPU line and a response curve over three load levels; Knee.*needs at least 3 levels/,
    );

    const html = readFileSync(join(work, "lab-report.html"), "utf8");
    expect(html).toContain("Response time vs throughput");
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.readFile(join(work, "lab-report.xlsx"));
    expect(wb.worksheets.map((w) => w.name)).toEqual(expect.arrayContaining(["Steps", "Model", "Fit"]));
  });

  test("an iogen failure is reported with its stderr, exits 1 and writes nothing", async () => {
    const iogen = fakeIogen(work, `process.stderr.write("Error: --target: refusing to write\\n"); process.exit(2);`);
    const io = capture();
    expect(await run(["--iogen", iogen, "--out", work], io)).toBe(1);
    expect(io.stderr).toContain("iogen failed (exit 2)");
    expect(io.stderr).toContain("Error: --target: refusing to write");
    expect(existsSync(join(work, "lab-report.xlsx"))).toBe(false);
    expect(existsSync(join(work, "lab-report.html"))).toBe(false);
  });

  test("a missing --iogen binary is a clear error", async () => {
    const io = capture();
    expect(await run(["--iogen", join(work, "nope"), "--out", work], io)).toBe(1);
    expect(io.stderr).toContain("no such file");
  });
});

describe("buildIogen", () => {
  test("without cargo and without a built iogen: says to install Rust", async () => {
    const io = capture();
    await expect(buildIogen(work, null, io)).rejects.toThrow(
      /cargo \(the Rust toolchain\) was not found.*\n.*Install Rust/,
    );
  });

  test("without cargo, an iogen already built is used", async () => {
    const binary = join(work, "iogen", "target", "release", "iogen");
    mkdirSync(join(binary, ".."), { recursive: true });
    writeFileSync(binary, "");
    const io = capture();
    expect(await buildIogen(work, null, io)).toBe(binary);
    expect(io.stderr).toContain("cargo not found; using the iogen already built");
  });

  test("a failing build shows cargo's stderr; a build's Compiling lines are progress", async () => {
    const failing = fakeIogen(
      work,
      `process.stderr.write("   Compiling iogen v0.1.0\\nerror[E0425]: cannot find value\\n"); process.exit(101);`,
    );
    const io = capture();
    await expect(buildIogen(work, failing, io)).rejects.toThrow(
      /building iogen failed \(cargo exit 101\):\n.*Compiling iogen.*\nerror\[E0425\]/s,
    );
    expect(io.stderr).toContain("building iogen (cargo build --release");
    expect(io.stderr).toContain("  error[E0425]: cannot find value");
  });
});
