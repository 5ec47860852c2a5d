/**
 * The Costs table's words follow edits in another program, as the cells show them: LibreOffice
 * Calc (headless) opens examples/storage-replacement.json's sheet with every cached formula result
 * removed, the baseline renamed in the Costs header and Replace's support line raised from £0 to
 * £150,000 a year, recalculates it and exports the sheet as the cells show (formatted text). Then:
 * - "Difference from …" names the renamed baseline (a formula over the header, not the built text);
 * - Replace's break-even capex, 100,000·(1 + 1/1.1 + 1/1.21) − 150,000·(1 + 1/1.1 + 1/1.21) =
 *   −£136,777 (below zero: no price reaches it; arithmetic on the inputs), shows the words, not a
 *   price; Keep's shows £0.
 * Needs LibreOffice (`soffice`).
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { casePlanFromJson } from "../../src/case/case-plan";
import { TablePlan, WorkbookPlan } from "../../src/workbook/plan";
import { renderXlsx } from "../../src/report/xlsx";
import { csvRows, findSoffice, recalculatingProfile, withoutCachedValues } from "./libreoffice";
import { describeUnless } from "../helpers/skip";

const SOFFICE = findSoffice();
const EXAMPLE = path.join(__dirname, "..", "..", "examples", "storage-replacement.json");

function table(plan: WorkbookPlan, name: string): TablePlan {
  return plan.sheets[0].tables.find((t) => t.name === name) as TablePlan;
}

const describeLo = (name: string, fn: () => void): void =>
  describeUnless(SOFFICE ? null : "soffice (LibreOffice) not installed; CI installs libreoffice-calc-nogui", name, fn);

describeLo("the Costs table's words after edits in LibreOffice, as the cells show them", () => {
  let dir: string;
  let grid: string[][];
  let costs: TablePlan;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "caplab-costs-lo-"));
    const plan = withoutCachedValues(casePlanFromJson(JSON.parse(fs.readFileSync(EXAMPLE, "utf8"))).plan);
    costs = table(plan, "Costs");
    costs.columns[1].header = "Old array";
    const support = costs.rows.findIndex((r) => r[0] === "Support contract per year (input)");
    costs.rows[support][2] = 150000;
    const file = path.join(dir, "edited.xlsx");
    fs.writeFileSync(file, await renderXlsx(plan));
    // CSV of the cells as shown (token 9 true), so a number format's words come out as words.
    execFileSync(
      SOFFICE as string,
      [
        `-env:UserInstallation=file://${recalculatingProfile(dir)}`,
        "--headless",
        "--convert-to",
        "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true,false,false,-1",
        "--outdir",
        path.join(dir, "csv"),
        file,
      ],
      { stdio: "pipe", timeout: 180_000 },
    );
    const out = fs.readdirSync(path.join(dir, "csv"))[0];
    grid = csvRows(fs.readFileSync(path.join(dir, "csv", out), "utf8"));
  }, 200_000);

  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const cell = (label: string, col: number): string => {
    const r = costs.rows.findIndex((row) => String((row[0] as { result?: unknown })?.result ?? row[0]) === label);
    return grid[costs.at.row + 1 + r][costs.at.col + col];
  };

  it("'Difference from' names the baseline as renamed on the sheet", () => {
    const r = costs.rows.findIndex((row) => /Difference from/.test(JSON.stringify(row[0])));
    expect(grid[costs.at.row + 1 + r][costs.at.col]).toBe("Difference from Old array");
  });

  it("a break-even capex below zero shows the words, one at or above zero a price", () => {
    const annuity = 1 + 1 / 1.1 + 1 / 1.21;
    expect(Math.round(100000 * annuity - 150000 * annuity)).toBe(-136777);
    expect(cell("Break-even capex", 2)).toBe("not reachable (< 0)");
    expect(cell("Break-even capex", 1)).toBe("£0");
    expect(cell("Net present cost over 3 years", 2)).toBe("£660,331");
  });
});
