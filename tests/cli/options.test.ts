/**
 * The shared option parser (`src/cli/options.ts`, util.parseArgs behind it) and how the commands
 * report its errors: exit 2, a message naming the option and pointing to the command's --help.
 */
import { parseOptions, UsageError } from "../../src/cli/options";
import { run as runLab } from "../../src/cli/commands/lab";
import { run as runReport } from "../../src/cli/commands/report";
import { run as runFunctions } from "../../src/cli/commands/functions";
import type { CliIo } from "../../src/cli/io";

const SPEC = {
  help: { type: "boolean", short: "h" },
  out: { type: "string", short: "o" },
  force: { type: "boolean" },
} as const;

function usageMessage(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    return (e as Error).message;
  }
  throw new Error("expected a UsageError");
}

describe("parseOptions", () => {
  test("reads --name value, --name=value, short aliases and positionals in order", () => {
    const args = Object.freeze(["a.csv", "--out", "x.xlsx", "b.csv", "-h", "--force"]);
    const r = parseOptions("report", args, SPEC, true);
    expect(r).toEqual({ values: { out: "x.xlsx", help: true, force: true }, positionals: ["a.csv", "b.csv"] });
    expect(parseOptions("report", ["--out=-x.xlsx"], SPEC).values).toEqual({ out: "-x.xlsx" });
    expect(parseOptions("report", ["-o", "y.xlsx", "--out=z.xlsx"], SPEC).values.out).toBe("z.xlsx"); // last wins
    expect(parseOptions("report", ["-", "--", "--force"], SPEC, true).positionals).toEqual(["-", "--force"]);
    expect(args).toEqual(["a.csv", "--out", "x.xlsx", "b.csv", "-h", "--force"]);
  });

  test("values are typed by the spec: strings for string options, booleans for flags", () => {
    const { values } = parseOptions("lab", [], SPEC);
    const out: string | undefined = values.out;
    const force: boolean | undefined = values.force;
    // @ts-expect-error a flag is not a string
    const wrong: string | undefined = values.help;
    expect([out, force, wrong]).toEqual([undefined, undefined, undefined]);
  });

  test.each([
    [["--bogus"], "unknown option '--bogus' (see caplab lab --help)"],
    [["--bogus=1"], "unknown option '--bogus' (see caplab lab --help)"],
    [["-x"], "unknown option '-x' (see caplab lab --help)"],
    [["--out"], "--out needs a value (see caplab lab --help)"],
    [["-o"], "-o needs a value (see caplab lab --help)"],
    [["-o", "--force"], "-o needs a value (for a value starting with '-', write --out=VALUE) (see caplab lab --help)"],
    [["--force=yes"], "--force takes no value (see caplab lab --help)"],
    [["stray"], "unexpected argument 'stray' (see caplab lab --help)"],
  ])("%p is a UsageError: %s", (args, message) => {
    expect(usageMessage(() => parseOptions("lab", args, SPEC))).toBe(message);
  });

  test("errors that are not parseArgs' own pass through", () => {
    const bad = { out: { type: "number" } } as unknown as typeof SPEC;
    let thrown: unknown;
    try {
      parseOptions("lab", [], bad);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).not.toBeInstanceOf(UsageError);
    expect((thrown as { code?: string }).code).toBe("ERR_INVALID_ARG_TYPE");
  });
});

describe("commands report option errors with exit 2", () => {
  function capture(): CliIo & { stdout: string; stderr: string } {
    const io = {
      stdout: "",
      stderr: "",
      out: (t: string) => void (io.stdout += t),
      err: (t: string) => void (io.stderr += t),
    };
    return io;
  }

  test.each([
    ["lab", ["--out"], runLab, "caplab lab: --out needs a value (see caplab lab --help)\n"],
    ["lab", ["--keep-temp=1"], runLab, "caplab lab: --keep-temp takes no value (see caplab lab --help)\n"],
    ["report", ["a.csv", "-o", "--force"], runReport, "caplab report: -o needs a value"],
    ["report", ["a.csv", "--html"], runReport, "caplab report: --html needs a value (see caplab report --help)\n"],
    [
      "functions",
      ["--bogus"],
      runFunctions,
      "caplab functions: unknown option '--bogus' (see caplab functions --help)\n",
    ],
    ["functions", ["json"], runFunctions, "caplab functions: unexpected argument 'json'"],
  ])("caplab %s %p", async (_name, args, run, message) => {
    const io = capture();
    expect(await run(args, io)).toBe(2);
    expect(io.stdout).toBe("");
    expect(io.stderr).toContain(message);
  });

  test("caplab functions -h prints its usage", async () => {
    const io = capture();
    expect(await runFunctions(["-h"], io)).toBe(0);
    expect(io.stdout).toMatch(/^Usage: caplab functions \[--json\]/);
  });
});
