/**
 * `caplab report` through its module entry point (the same code bin/caplab.js runs), with output
 * captured; files go to a fresh temp directory per test.
 */
import ExcelJS from "exceljs";
import * as fs from "fs";
import * as path from "path";
import { readWorkbook, runCli, useTempDir } from "../helpers/cli";
import { run } from "../../src/cli/commands/report";
import { renderHtml } from "../../src/report/html";

// The HTML renderer, as itself, but replaceable for one call (to act while the report is made).
jest.mock("../../src/report/html", () => {
  const actual = jest.requireActual<typeof import("../../src/report/html")>("../../src/report/html");
  return { ...actual, renderHtml: jest.fn(actual.renderHtml) };
});

const FIX = path.join(__dirname, "..", "lab", "fixtures", "doe2x2");
const GOLDEN = path.join(__dirname, "..", "import", "golden");
const SUB = path.join(FIX, "subintervals.csv");
const SUM = path.join(FIX, "summary.csv");

const cli = (args: string[]) => runCli(run, args);
const tempDir = useTempDir("caplab-report-");
let dir: string;
beforeEach(() => {
  dir = tempDir();
});

describe("caplab report", () => {
  it("prints help", async () => {
    const r = await cli(["--help"]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/Usage: caplab report INPUT\.\.\. -o OUT\.xlsx/);
  });

  it("writes the workbook and the HTML report from iogen CSVs", async () => {
    const out = path.join(dir, "r.xlsx");
    const html = path.join(dir, "r.html");
    const r = await cli([SUB, SUM, "-o", out, "--html", html]);
    // No warning or error; the timing lines a slow (loaded) machine adds after a second are not warnings.
    expect(r.err.replace(/^caplab report: (read|wrote) .* in [\d.]+ s\n/gm, "")).toBe("");
    expect(r.code).toBe(0);
    const wb = await readWorkbook(out);
    expect(wb.worksheets.map((w) => w.name)).toEqual(["Summary", "Steps", "Model", "Fit", "Subintervals"]);
    const page = fs.readFileSync(html, "utf8");
    expect(page).toMatch(/<html/i);
    expect(page).toContain("Response time vs throughput");
    expect(fs.readdirSync(dir).sort()).toEqual(["r.html", "r.xlsx"]); // no temporary files left
  });

  it("reads real fio JSON, several files at once", async () => {
    const out = path.join(dir, "fio.xlsx");
    const inputs = ["fio-randread-json", "fio-randrw-jsonplus"].map((c) => path.join(GOLDEN, c, "input.json"));
    const r = await cli([...inputs, "-o", out]);
    expect(r.code).toBe(0);
    const wb = await readWorkbook(out);
    const doc = JSON.parse(fs.readFileSync(inputs[0], "utf8")) as { jobs: { read: { iops: number } }[] };
    const ws = wb.getWorksheet("Steps") as ExcelJS.Worksheet;
    let iopsCol = 0;
    let headerRow = 0;
    ws.eachRow((row, n) =>
      row.eachCell((c, col) => {
        if (c.value === "IOPS" && headerRow === 0) {
          headerRow = n;
          iopsCol = col;
        }
      }),
    );
    const got = ws.getCell(headerRow + 1, iopsCol).value as number;
    expect(Math.abs(got - doc.jobs[0].read.iops) / doc.jobs[0].read.iops).toBeLessThanOrEqual(1e-9);
  });

  it("fails on a CSV missing iops, naming it, and writes nothing", async () => {
    const bad = path.join(dir, "bad.csv");
    fs.writeFileSync(bad, "host,step,subinterval,phase,seconds,category,mb_s\nh,1,1,measure,1,overall,4\n");
    const out = path.join(dir, "out.xlsx");
    const html = path.join(dir, "out.html");
    const r = await cli([SUB, bad, "-o", out, "--html", html]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(bad);
    expect(r.err).toMatch(/missing required column iops/);
    expect(r.err).toMatch(/nothing was written/);
    expect(fs.readdirSync(dir)).toEqual(["bad.csv"]);
  });

  it("fails on an unrecognised file, naming it", async () => {
    const other = path.join(dir, "notes.csv");
    fs.writeFileSync(other, "date,value\n2026-01-01,3\n");
    const r = await cli([other, "-o", path.join(dir, "o.xlsx")]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(
      /notes\.csv: format not recognised.*missing columns step, subinterval, phase, seconds, category, iops/,
    );
    expect(fs.readdirSync(dir)).toEqual(["notes.csv"]);
  });

  it("exits 2 on usage errors, naming the option or file", async () => {
    const out = path.join(dir, "o.xlsx");
    expect((await cli([SUB])).err).toMatch(/-o OUT\.xlsx is required/);
    expect((await cli(["-o", out])).err).toMatch(/no input files/);
    const unknown = await cli([SUB, "-o", out, "--bogus"]);
    expect([unknown.code, unknown.err]).toEqual([2, expect.stringMatching(/unknown option '--bogus'/)]);
    const missing = await cli([path.join(dir, "nope.csv"), "-o", out]);
    expect([missing.code, missing.err]).toEqual([2, expect.stringMatching(/nope\.csv: no such file/)]);
    const ext = await cli([SUB, "-o", path.join(dir, "o.csv")]);
    expect([ext.code, ext.err]).toEqual([2, expect.stringMatching(/-o .*o\.csv: the file name must end in \.xlsx/)]);
    const resp = await cli([SUB, SUM, "-o", out, "--response", "nope"]);
    expect([resp.code, resp.err]).toEqual([2, expect.stringMatching(/response: unknown column 'nope'/)]);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("never overwrites an input, and replaces an existing output only with --force", async () => {
    const copy = path.join(dir, "in.xlsx");
    fs.writeFileSync(copy, "not really a workbook");
    const self = await cli([copy, "-o", copy, "--force"]);
    expect([self.code, self.err]).toEqual([2, expect.stringMatching(/is one of the inputs/)]);
    expect(fs.readFileSync(copy, "utf8")).toBe("not really a workbook");

    const out = path.join(dir, "o.xlsx");
    fs.writeFileSync(out, "old");
    const exists = await cli([SUM, "-o", out]);
    expect([exists.code, exists.err]).toEqual([2, expect.stringMatching(/exists; pass --force/)]);
    expect(fs.readFileSync(out, "utf8")).toBe("old");
    expect((await cli([SUM, "-o", out, "--force"])).code).toBe(0);
    expect(fs.readFileSync(out).subarray(0, 2).toString()).toBe("PK");
  });

  it("does not replace a file that appears at -o while the report is made; exits 1 naming it, writes neither output", async () => {
    const out = path.join(dir, "o.xlsx");
    const html = path.join(dir, "o.html");
    // Another program creates -o after the checks passed, while the report is being rendered.
    const actual = jest.requireActual<typeof import("../../src/report/html")>("../../src/report/html");
    jest.mocked(renderHtml).mockImplementationOnce((...args) => {
      fs.writeFileSync(out, "another program's");
      return actual.renderHtml(...args);
    });
    const r = await cli([SUB, SUM, "-o", out, "--html", html]);
    expect(fs.readFileSync(out, "utf8")).toBe("another program's");
    expect(r.code).toBe(1);
    expect(r.err).toContain(`${out}: a file appeared there while writing; not replaced`);
    expect(fs.readFileSync(out, "utf8")).toBe("another program's");
    expect(fs.readdirSync(dir)).toEqual(["o.xlsx"]); // no HTML half of the pair, no temporary file
  });

  it("uses --response for the fit", async () => {
    const out = path.join(dir, "o.xlsx");
    expect((await cli([SUM, "-o", out, "--response=iops"])).code).toBe(0);
    const wb = await readWorkbook(out);
    const fit = wb.getWorksheet("Fit") as ExcelJS.Worksheet;
    const texts: string[] = [];
    fit.eachRow((row) => row.eachCell((c) => void (typeof c.value === "string" && texts.push(c.value))));
    expect(texts).toContain("iops"); // the response column of the DOE_FIT input table
  });
});
