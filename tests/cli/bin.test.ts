/**
 * The installed command: runs `node bin/caplab.js` as a user would, against the compiled CLI in
 * lib/. `npm test` builds it first (`npm run build:cli`); when run alone this test rebuilds lib/
 * if it is missing or older than the sources.
 */
import { execFileSync, spawn, spawnSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { expectRelClose } from "../core/close";

const root = path.join(__dirname, "..", "..");

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

beforeAll(() => {
  const built = path.join(root, "lib", "functions.json");
  const stale = !fs.existsSync(built) || fs.statSync(built).mtimeMs < newestMtime(path.join(root, "src"));
  if (stale) execFileSync("npm", ["run", "--silent", "build:cli"], { cwd: root, stdio: "pipe", timeout: 300_000 });
}, 320_000);

function caplab(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [path.join(root, "bin", "caplab.js"), ...args], {
    cwd: root,
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("node bin/caplab.js", () => {
  it.each([
    ["MMC_RESPONSE(4,30,0.08)", 35.38205980066445],
    ["MMC_RESPONSE(6,30,0.18)", 67.00628501411548],
    ["MMC_RESPONSE(10,30,0.26)", 34.99083250432512],
    ["NPV_IT(0.1,{100000,100000,100000})", 273553.7190082645],
    ["NPV_IT(0.1,100000,2)", 273553.7190082645],
    ["MMC_STAFF(180,100/3600,0.85,15)", 8],
    ["LB_MAXUTIL(2,2,0,1)", 0.5641895835477563],
    ["LB_MAXUTIL(4,4,0,1)", 1.029375373003964],
    ["LB_MAXUTIL(10,10,0,1)", 1.538752730835173],
    ["LB_MAXUTIL(100,100,0,1)", 2.507593636441684],
  ])("calc %s", (formula, expected) => {
    // References: Gunther's PDQ examples (M/M/c) and Harter (1961) (LB_MAXUTIL); full precision from tests/core/fixtures/gen-reference.py.
    const r = caplab("calc", formula);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expectRelClose(JSON.parse(r.stdout), expected, 1e-9);
  });

  it("calc writes all of an output larger than the 64 KiB pipe buffer before exiting", () => {
    // A column of 100 times a row of 1,000 broadcasts to 100,000 cells (~600 KB of JSON) from a
    // 5 KB formula; process.exit right after write used to cut such output at 65,536 bytes.
    const rows = Array.from({ length: 100 }, (_, i) => i + 1);
    const cols = Array.from({ length: 1000 }, (_, j) => j + 1);
    const r = caplab("calc", `{${rows.join(";")}}*{${cols.join(",")}}`);
    expect(r.status).toBe(0);
    expect(r.stdout.length).toBeGreaterThan(400_000);
    expect(JSON.parse(r.stdout)).toEqual(rows.map((i) => cols.map((j) => i * j)));
  });

  it("calc MERGE_QUEUES prints the spilled table", () => {
    const r = caplab("calc", "MERGE_QUEUES(4,30,0.08,6,30,0.18)");
    const t = JSON.parse(r.stdout) as (string | number)[][];
    expect(t.map((row) => row[0])).toEqual(["Site", "A", "B", "Combined"]);
    expect((t[1][1] as number).toFixed(5)).toBe("35.38206");
    expect((t[2][1] as number).toFixed(5)).toBe("67.00629");
    expect((t[3][1] as number).toFixed(5)).toBe("34.99083");
  });

  it.each([
    ["MMC_RESPONSE(4,30,0.2)", "#NUM!", "arrival_rate"],
    ["MMC_RESPONSE(-1,30,0.08)", "#NUM!", "servers"],
    ["LB_MAXUTIL(10,0,0.3,0.1)", "#NUM!", "centres"],
  ])("calc %s prints %s naming %s and exits 0", (formula, code, argument) => {
    const r = caplab("calc", formula);
    expect(r.status).toBe(0);
    const json = JSON.parse(r.stdout) as { error: string; message: string };
    expect(json.error).toBe(code);
    expect(json.message.startsWith(`${argument}: `)).toBe(true);
  });

  it("exits 2 for an unknown function and for a formula that does not parse", () => {
    expect(caplab("calc", "NOPE(1)").status).toBe(2);
    expect(caplab("calc", "MMC_RESPONSE(4,30").status).toBe(2);
  });

  it("functions lists the seven queueing/finance functions", () => {
    const r = caplab("functions");
    expect(r.status).toBe(0);
    for (const id of [
      "MMC_RESPONSE",
      "MMC_METRICS",
      "MMC_SERVICE_LEVEL",
      "MMC_STAFF",
      "MERGE_QUEUES",
      "NPV_IT",
      "LB_MAXUTIL",
    ]) {
      expect(r.stdout).toContain(id);
    }
  });

  it.each([["calc", "MMC_RESPONSE(4,30,0.08)"], ["functions"], ["functions", "--json"]])(
    "%s %s: a failed write to stdout (a full disk: /dev/full) exits 1 and says so",
    (...args: string[]) => {
      const full = fs.openSync("/dev/full", "w");
      try {
        const r = spawnSync(process.execPath, [path.join(root, "bin", "caplab.js"), ...args.filter(Boolean)], {
          cwd: root,
          encoding: "utf8",
          timeout: 60_000,
          stdio: ["ignore", full, "pipe"],
        });
        expect(r.status).toBe(1);
        expect(r.stderr).toBe("caplab: writing to standard output failed (ENOSPC); the output is incomplete\n");
      } finally {
        fs.closeSync(full);
      }
    },
  );

  it("a reader that has gone away (EPIPE) exits 1 and says so", async () => {
    const child = spawn(process.execPath, [path.join(root, "bin", "caplab.js"), "functions", "--json"], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout.destroy(); // closes the read end before the command has started
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code).toBe(1);
    expect(stderr).toContain("writing to standard output failed (EPIPE)");
  });
});
