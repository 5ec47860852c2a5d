/**
 * Inputs whose reported size says nothing (devices, pipes, FIFOs, files still growing): the CLI
 * counts the bytes it reads and stops at the limit + 1. How fast and how little memory the
 * refusals take is measured by hand (docs/benchmarks.md), not here.
 */
import { execFileSync, spawn } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { runCli, useTempDir } from "../helpers/cli";
import { boundedChunks, readBounded } from "../../src/cli/bounded-read";
import { run as runCase } from "../../src/cli/commands/case";
import { run as runReport } from "../../src/cli/commands/report";

const tempDir = useTempDir("caplab-bounded-");
let dir: string;
beforeEach(() => {
  dir = tempDir();
});

/** A FIFO in the test's directory fed by `cat source > fifo` in a child process (which may get EPIPE). */
function fifoFedFrom(source: string): string {
  const fifo = path.join(dir, "in.fifo");
  execFileSync("mkfifo", [fifo]);
  const writer = spawn("sh", ["-c", `cat "${source}" > "${fifo}" 2>/dev/null`], { stdio: "ignore" });
  writer.unref();
  return fifo;
}

describe("readBounded", () => {
  it("reads limit + 1 bytes of /dev/zero and says it is over the limit", async () => {
    const r = await readBounded("/dev/zero", 1000);
    expect(r.bytes.length).toBe(1001);
    expect(r.overLimit).toBe(true);
  });

  it("a file of exactly the limit is whole and not over it; one byte more is over", async () => {
    const f = path.join(dir, "x");
    fs.writeFileSync(f, Buffer.alloc(70_000, 0x41));
    expect(await readBounded(f, 70_000)).toEqual({ bytes: Buffer.alloc(70_000, 0x41), overLimit: false });
    const r = await readBounded(f, 69_999);
    expect(r.overLimit).toBe(true);
    expect(r.bytes.length).toBe(70_000);
  });

  it("reads a FIFO to its end", async () => {
    const src = path.join(dir, "src.txt");
    fs.writeFileSync(src, "hello fifo\n");
    const r = await readBounded(fifoFedFrom(src), 100);
    expect(r).toEqual({ bytes: Buffer.from("hello fifo\n"), overLimit: false });
  });
});

describe("boundedChunks", () => {
  it("ends /dev/zero after limit + 1 bytes", async () => {
    let total = 0;
    for await (const c of boundedChunks("/dev/zero", 5_000_000)) total += c.length;
    expect(total).toBe(5_000_001);
  });
});

describe("caplab case on inputs without a useful size", () => {
  it("refuses /dev/zero, naming the limit, and writes nothing", async () => {
    const out = path.join(dir, "c.xlsx");
    const r = await runCli(runCase, ["/dev/zero", "-o", out]);
    expect(r.code).toBe(2);
    expect(r.err).toBe("caplab case: /dev/zero: more than 1000000 bytes; a business case is at most 1000000 bytes\n");
    expect(fs.existsSync(out)).toBe(false);
  });

  it("refuses a 3 MB case through a FIFO as it refuses the same file named directly", async () => {
    const big = path.join(dir, "big.json");
    const example = JSON.parse(
      fs.readFileSync(path.join(__dirname, "..", "..", "examples", "storage-replacement.json"), "utf8"),
    );
    fs.writeFileSync(big, JSON.stringify({ ...example, note: "x".repeat(3_000_000) }));
    const direct = await runCli(runCase, [big, "-o", path.join(dir, "a.xlsx")]);
    expect(direct.code).toBe(2);
    expect(direct.err).toMatch(/more than 1000000 bytes/);
    const fifo = fifoFedFrom(big);
    const piped = await runCli(runCase, [fifo, "-o", path.join(dir, "b.xlsx")]);
    expect(piped.code).toBe(2);
    expect(piped.err).toBe(`caplab case: ${fifo}: more than 1000000 bytes; a business case is at most 1000000 bytes\n`);
    expect(fs.readdirSync(dir).sort()).toEqual(["big.json", "in.fifo"]);
  });

  it("still reads a case through a FIFO when it is within the limit", async () => {
    const example = path.join(__dirname, "..", "..", "examples", "storage-replacement.json");
    const out = path.join(dir, "ok.xlsx");
    const r = await runCli(runCase, [fifoFedFrom(example), "-o", out]);
    expect(r.code).toBe(0);
    expect(fs.existsSync(out)).toBe(true);
  });
});

describe("caplab report on devices and pipes", () => {
  it("refuses /dev/zero (no line break within the line limit)", async () => {
    const r = await runCli(runReport, ["/dev/zero", "-o", path.join(dir, "r.xlsx")]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^error: \/dev\/zero: format not recognised: no line break in the first 1048576 bytes/m);
  });

  it("refuses /dev/urandom", async () => {
    const r = await runCli(runReport, ["/dev/urandom", "-o", path.join(dir, "r.xlsx")]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^error: \/dev\/urandom: /m);
  });

  it("refuses a FIFO carrying a fio document larger than fio's limit (64 MiB)", async () => {
    const src = path.join(dir, "big.json");
    const fd = fs.openSync(src, "w");
    fs.writeSync(fd, '{"fio version": "fio-3.35", "jobs": [');
    const spaces = Buffer.alloc(1 << 20, 0x20);
    for (let i = 0; i < 65; i++) fs.writeSync(fd, spaces);
    fs.writeSync(fd, "]}");
    fs.closeSync(fd);
    const r = await runCli(runReport, [fifoFedFrom(src), "-o", path.join(dir, "r.xlsx")]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/larger than 64 MiB: not a fio result/);
  });
});
