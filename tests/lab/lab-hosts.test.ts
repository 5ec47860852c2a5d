/**
 * A multi-host iogen run (iogen under MPI; fixtures/iogen-mpi, three ranks, two steps): Steps use
 * the `all` rows, the Hosts sheet each host's rows and max/mean host IOPS. Reference values are
 * read from the CSV here with a plain split (no reader), and max/mean is computed by hand.
 */
import * as fs from "fs";
import * as path from "path";
import { buildLabPlan } from "../../src/lab/lab-plan";
import { hostBalance, imbalanceFindings, splitHosts } from "../../src/lab/hosts";
import { CellValue, TablePlan, WorkbookPlan } from "../../src/workbook/plan";
import { readLabText, LabFileResult } from "../../src/import/detect";
import { LabStep } from "../../src/lab/data";

const MPI = path.join(__dirname, "fixtures", "iogen-mpi");
const read = (file: string): LabFileResult => readLabText(fs.readFileSync(file, "utf8"), path.basename(file));

function table(plan: WorkbookPlan, name: string): TablePlan {
  for (const s of plan.sheets) for (const t of s.tables) if (t.name === name) return t;
  throw new Error(`no table ${name}`);
}
function column(t: TablePlan, header: string): CellValue[] {
  const i = t.columns.findIndex((c) => c.header === header);
  if (i < 0) throw new Error(`no column ${header} in ${t.name}: ${t.columns.map((c) => c.header).join(", ")}`);
  return t.rows.map((r) => r[i]);
}
const relClose = (a: number, b: number, tol = 1e-9): boolean =>
  Math.abs(a - b) <= tol * Math.max(Math.abs(a), Math.abs(b));

/** The overall rows of the summary CSV as {host, step, iops}, by plain splitting. */
function summaryOverall(): { host: string; step: string; iops: number }[] {
  const [header, ...lines] = fs.readFileSync(path.join(MPI, "summary.csv"), "utf8").trim().split("\n");
  const h = header.split(",");
  return lines
    .map((l) => l.split(","))
    .filter((r) => r[h.indexOf("category")] === "overall")
    .map((r) => ({ host: r[h.indexOf("host")], step: r[h.indexOf("step")], iops: Number(r[h.indexOf("iops")]) }));
}

describe("a multi-host iogen run (iogen under MPI)", () => {
  const plan = buildLabPlan([read(path.join(MPI, "subintervals.csv")), read(path.join(MPI, "summary.csv"))]);
  const rows = summaryOverall();

  it("the fixture's all rows are the sum of its hosts' rows (what iogen promises)", () => {
    for (const step of ["1", "2"]) {
      const hosts = rows.filter((r) => r.step === step && r.host !== "all");
      const all = rows.find((r) => r.step === step && r.host === "all")!;
      expect(hosts.map((r) => r.host)).toEqual(["lab1#1", "lab1#2", "lab1#3"]);
      // Each IOPS cell is rounded to 6 decimals: the sum may differ by 3 half-units.
      expect(Math.abs(hosts.reduce((a, r) => a + r.iops, 0) - all.iops)).toBeLessThanOrEqual(2e-6);
    }
  });

  it("Steps shows one row per step, from the all rows", () => {
    const steps = table(plan, "Steps");
    expect(column(steps, "host")).toEqual(["all", "all"]);
    const expected = rows.filter((r) => r.host === "all").map((r) => r.iops);
    (column(steps, "IOPS") as number[]).forEach((x, i) => expect(relClose(x, expected[i])).toBe(true));
    // The per-host read/write rows stay out of Categories too.
    expect(column(table(plan, "Categories"), "host")).toEqual(["all", "all", "all", "all"]);
  });

  it("the Summary's Sheets table lists the Hosts sheet, as every sheet the plan has", () => {
    const listed = column(table(plan, "Sheets"), "sheet");
    expect(listed).toContain("Hosts");
    expect(listed).toEqual(plan.sheets.map((s) => s.name).filter((n) => n !== "Summary"));
  });

  it("Hosts shows each host per step and max/mean host IOPS as a formula", () => {
    expect(plan.sheets.map((s) => s.name)).toContain("Hosts");
    const hosts = table(plan, "Hosts");
    expect(column(hosts, "host")).toEqual(["lab1#1", "lab1#2", "lab1#3", "lab1#1", "lab1#2", "lab1#3"]);
    const perHost = rows.filter((r) => r.host !== "all").sort((a, b) => a.step.localeCompare(b.step));
    (column(hosts, "IOPS") as number[]).forEach((x, i) => expect(relClose(x, perHost[i].iops)).toBe(true));
    const imbalance = table(plan, "Imbalance");
    const cells = column(imbalance, "imbalance max/mean");
    ["1", "2"].forEach((step, k) => {
      const x = rows.filter((r) => r.step === step && r.host !== "all").map((r) => r.iops);
      const byHand = Math.max(...x) / ((x[0] + x[1] + x[2]) / 3);
      const cell = cells[k] as { formula: string; result: number };
      expect(relClose(cell.result, byHand)).toBe(true);
      // max host IOPS / mean host IOPS, the cells of the same row (columns F and E).
      expect(cell.formula).toMatch(/^F\d+\/E\d+$/);
      expect(cell.formula.match(/\d+/g)).toEqual([
        String(imbalance.at!.row + 2 + k),
        String(imbalance.at!.row + 2 + k),
      ]);
    });
    expect(column(imbalance, "mean host IOPS")).toHaveLength(2);
  });
});

describe("splitHosts and the imbalance finding", () => {
  const step = (source: string, host: string, iops: number): LabStep =>
    ({ source, tool: "iogen", host, step: "1", order: 1, category: "overall", values: { iops } }) as unknown as LabStep;

  it("splits only sources that have all rows", () => {
    const steps = [step("a.csv", "h1", 10), step("a.csv", "all", 30), step("a.csv", "h2", 20), step("b.csv", "x", 5)];
    const { aggregate, perHost } = splitHosts(steps);
    expect(aggregate.map((s) => `${s.source}:${s.host}`)).toEqual(["a.csv:all", "b.csv:x"]);
    expect(perHost.map((s) => s.host)).toEqual(["h1", "h2"]);
  });

  it("names a step whose busiest host is over 10 % above the mean", () => {
    const hosts = [step("a.csv", "h1", 100), step("a.csv", "h2", 140), step("a.csv", "h3", 60)];
    const b = hostBalance(hosts, [step("a.csv", "all", 300)]);
    expect(b[0].imbalance).toBeCloseTo(1.4, 12);
    expect(b[0].allIops).toBe(300);
    const f = imbalanceFindings(b);
    expect(f).toHaveLength(1);
    expect(f[0]).toContain("h2 140 IOPS, h3 60 IOPS");
    expect(imbalanceFindings(hostBalance(hosts.slice(0, 1), []))).toEqual([]);
  });
});
