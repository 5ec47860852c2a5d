/**
 * `caplab case` through its module entry point (the code bin/caplab.js runs), output captured;
 * files go to a fresh temporary directory per test.
 */
import * as fs from "fs";
import * as path from "path";
import { readWorkbook, runCli, useTempDir } from "../helpers/cli";
import { run } from "../../src/cli/commands/case";
import { main } from "../../src/cli/main";

const EXAMPLES = path.join(__dirname, "..", "..", "examples");
const STORAGE = path.join(EXAMPLES, "storage-replacement.json");

const cli = (args: string[]) => runCli(run, args);
const tempDir = useTempDir("caplab-case-");
let dir: string;
beforeEach(() => {
  dir = tempDir();
});

describe("caplab case", () => {
  it("is a caplab command with help", async () => {
    const top = await runCli(main, ["--help"]);
    expect(top.code).toBe(0);
    expect(top.out).toMatch(/^ {2}case {7}Build a costed business case/m);
    const r = await cli(["--help"]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/Usage: caplab case INPUT\.json -o OUT\.xlsx \[--html OUT\.html\] \[--force\]/);
  });

  it("writes the workbook and the HTML page and prints the conclusion", async () => {
    const out = path.join(dir, "case.xlsx");
    const html = path.join(dir, "case.html");
    const r = await cli([STORAGE, "-o", out, "--html", html]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toContain("Replace saves £23,554 over 3 years at 10%");
    expect(r.out).toContain("breaks even with Keep current array at a capex of £273,554.");
    const wb = await readWorkbook(out);
    expect(wb.worksheets.map((w) => w.name)).toEqual(["Business case"]);
    const page = fs.readFileSync(html, "utf8");
    expect(page).toContain("Cumulative discounted cost");
    expect(page).toContain("£273,554");
    expect(fs.readdirSync(dir).sort()).toEqual(["case.html", "case.xlsx"]); // no temporary files left
  });

  it("refuses to overwrite without --force, and replaces with it", async () => {
    const out = path.join(dir, "case.xlsx");
    fs.writeFileSync(out, "precious");
    const r = await cli([STORAGE, "-o", out]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`-o ${out}: exists; pass --force to replace it`);
    expect(fs.readFileSync(out, "utf8")).toBe("precious");
    const forced = await cli([STORAGE, "-o", out, "--force"]);
    expect(forced.code).toBe(0);
    expect(fs.readFileSync(out).subarray(0, 2).toString()).toBe("PK");
  });

  it.each([
    [["-o", "x.xlsx"], "no input file"],
    [[STORAGE], "-o OUT.xlsx is required"],
    [[STORAGE, "-o", "out.csv"], "the file name must end in .xlsx"],
    [[STORAGE, STORAGE, "-o", "x.xlsx"], "one input file, got 2"],
    [[STORAGE, "-o", "x.xlsx", "--bogus"], "unknown option '--bogus'"],
  ])("bad usage %j: exit 2, %s", async (args, message) => {
    const r = await cli(args.map((a) => (a.endsWith(".xlsx") || a.endsWith(".csv") ? path.join(dir, a) : a)));
    expect(r.code).toBe(2);
    expect(r.err).toContain(message);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("refuses an output that is the input", async () => {
    const input = path.join(dir, "case.xlsx");
    fs.copyFileSync(STORAGE, input);
    const r = await cli([input, "-o", input, "--force"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("is one of the inputs");
    expect(fs.readFileSync(input, "utf8")).toBe(fs.readFileSync(STORAGE, "utf8"));
  });

  it("names the file and the input path of a bad case, and writes nothing", async () => {
    const bad = path.join(dir, "bad.json");
    const json = JSON.parse(fs.readFileSync(STORAGE, "utf8")) as { options: Record<string, unknown>[] };
    json.options[1].capex = "a lot";
    fs.writeFileSync(bad, JSON.stringify(json));
    const out = path.join(dir, "out.xlsx");
    const r = await cli([bad, "-o", out, "--html", path.join(dir, "out.html")]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      `caplab case: ${bad}: options[1].capex: must be an amount ≥ 0, got "a lot"\nNothing was written.\n`,
    );
    expect(fs.readdirSync(dir)).toEqual(["bad.json"]);
  });

  it("reports invalid JSON with the file name", async () => {
    const bad = path.join(dir, "bad.json");
    fs.writeFileSync(bad, '{"years": 3,');
    const r = await cli([bad, "-o", path.join(dir, "out.xlsx")]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(new RegExp(`^caplab case: ${bad.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: not valid JSON: `));
  });

  describe("hostile inputs get a clear error naming the input, and nothing is written", () => {
    const two = '"options": [{ "name": "A" }, { "name": "B" }]';
    it.each([
      [
        "a key given twice (JSON.parse would keep the last silently)",
        `{\n  "years": 3,\n  "years": 4,\n  "discountRate": 0.1,\n  ${two}\n}`,
        "years: appears twice in one object (line 3); JSON readers keep only one of them, so give it once",
      ],
      [
        "a discount rate near −100 % (NPVs of 1e302)",
        `{ "years": 3, "discountRate": -0.999999, ${two} }`,
        "discountRate: must be a rate per year above -0.5 as a fraction (0.1 for 10%), got -0.999999",
      ],
      [
        "a discount rate of 100 % or more (a percentage typed as a number)",
        `{ "years": 3, "discountRate": 1, ${two} }`,
        "discountRate: must be a fraction per year below 1 (0.1 for 10%); 1 would be 100%",
      ],
      [
        "a utilization sizing whose load needs too many servers names the utilization, not sizing.servers",
        `{ "years": 3, "discountRate": 0.1, "options": [{ "name": "A", "workloads": [{ "name": "IO", "arrivalRate": 1e15, ` +
          `"serviceTime": 0.0001, "sizing": { "utilization": 0.7 } }] }, { "name": "B" }] }`,
        "options[0].workloads[0].sizing.utilization: this load needs more servers than Capacity Lab sizes " +
          "(at most 10000000 servers are supported, got 142857142858); check the arrivalRate and serviceTime",
      ],
      [
        "a service time taken from a sheet the file does not have",
        `{ "years": 3, "discountRate": 0.1, "options": [{ "name": "A", "workloads": [{ "name": "IO", "arrivalRate": 10, ` +
          `"serviceTime": 0.01, "serviceTimeRef": "'Model'!$F$5", "sizing": { "servers": 2 } }] }, { "name": "B" }] }`,
        `options[0].workloads[0].serviceTimeRef: "'Model'!$F$5" is a cell of another sheet, which only Excel with the ` +
          "analysis workbook can resolve (the task pane's business case); caplab case writes the case sheet alone: " +
          "remove serviceTimeRef and keep serviceTime",
      ],
      [
        "terminal escapes and a NUL in a key are quoted, never echoed raw",
        `{ "years": 3, "discountRate": 0.1, "options": [{ "name": "A", "\\u001b]0;x\\u0007\\u001b[2J\\u0000": 1 }, { "name": "B" }] }`,
        'options[0]."\\u001b]0;x\\u0007\\u001b[2J\\u0000": unknown field (expected one of name, capex, opex, oneOff, ' +
          "residualValue, workloads, costPerServer, costPerServerPerYear, source, plausibleMove)",
      ],
    ])("%s", async (_what, text, message) => {
      const bad = path.join(dir, "bad.json");
      fs.writeFileSync(bad, text);
      const r = await cli([bad, "-o", path.join(dir, "out.xlsx")]);
      expect(r.err).toBe(`caplab case: ${bad}: ${message}\nNothing was written.\n`);
      expect(r.code).toBe(2);
      expect(fs.readdirSync(dir)).toEqual(["bad.json"]);
    });

    it("a 500 KB key is shortened in the message", async () => {
      const bad = path.join(dir, "bad.json");
      fs.writeFileSync(
        bad,
        JSON.stringify({
          years: 3,
          discountRate: 0.1,
          options: [{ name: "A" }, { name: "B" }],
          ["k".repeat(500_000)]: 1,
        }),
      );
      const r = await cli([bad, "-o", path.join(dir, "out.xlsx")]);
      expect(r.code).toBe(2);
      expect(r.err).toContain(`"${"k".repeat(40)}…": unknown field`);
      expect(r.err.length).toBeLessThan(400);
    });
  });

  it("carries assumptions, risks and sources into the sheet and the page as text, never as formulas", async () => {
    const file = path.join(dir, "notes.json");
    fs.writeFileSync(
      file,
      JSON.stringify({
        years: 3,
        discountRate: 0.1,
        assumptions: ['=HYPERLINK("http://x","y")'],
        risks: ["+1+1 is not a formula"],
        sources: ["Vendor quote, 2026"],
        options: [
          { name: "Keep", opex: [{ label: "Support", perYear: 100000, source: "=SUM(A1:A9)" }] },
          { name: "Replace", capex: 250000, source: "@price list" },
        ],
      }),
    );
    const out = path.join(dir, "notes.xlsx");
    const html = path.join(dir, "notes.html");
    const r = await cli([file, "-o", out, "--html", html]);
    expect(r.code).toBe(0);
    const ws = (await readWorkbook(out)).getWorksheet("Business case");
    const texts: { value: unknown; formula: unknown }[] = [];
    ws?.eachRow((row) =>
      row.eachCell((cell) => {
        if (typeof cell.value === "string" && /HYPERLINK|\+1\+1|SUM\(A1|@price|Vendor quote/.test(cell.value))
          texts.push({ value: cell.value, formula: cell.formula });
      }),
    );
    expect(texts.map((t) => t.value).sort()).toEqual(
      [
        "+1+1 is not a formula",
        '=HYPERLINK("http://x","y")',
        "=SUM(A1:A9)",
        "@price list",
        "Vendor quote, 2026",
      ].sort(),
    );
    expect(texts.every((t) => t.formula === undefined)).toBe(true);
    const page = fs.readFileSync(html, "utf8");
    expect(page).toContain("Assumptions, risks and sources");
    expect(page).toContain("=HYPERLINK(&quot;http://x&quot;,&quot;y&quot;)");
    expect(page).toContain("Keep: Support per year");
  });

  it.each(["storage-replacement", "nfs-vs-fc-70k-iops", "merging-helpdesks"])(
    "the example %s carries its provenance as sources, shown on the sheet",
    async (name) => {
      const out = path.join(dir, `${name}.xlsx`);
      const r = await cli([path.join(EXAMPLES, `${name}.json`), "-o", out]);
      expect(r.code).toBe(0);
      const ws = (await readWorkbook(out)).getWorksheet("Business case");
      const cells: string[] = [];
      ws?.eachRow((row) => row.eachCell((c) => void (typeof c.value === "string" && cells.push(c.value))));
      expect(cells).toContain("Assumptions, risks and sources");
      expect(cells.some((c) => /^Seed: '.*' \(ascknd\.com, \d+ \w+ 2014\)/.test(c))).toBe(true);
    },
  );
});
