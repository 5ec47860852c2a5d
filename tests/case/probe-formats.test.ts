/**
 * The Probes table shows each driver's values in that driver's unit: the discount rate and
 * escalations as percentages (never 0.05), money in the case's currency format, loads grouped.
 */
import * as fs from "fs";
import * as path from "path";
import { casePlanFromJson } from "../../src/case/case-plan";
import { cellNumFmt, cellResult, TablePlan } from "../../src/workbook/plan";

const EXAMPLES = path.join(__dirname, "..", "..", "examples");

describe("Probes table formats", () => {
  test.each(["helpdesk-fixed-staff.json", "nfs-vs-fc-70k-iops.json", "growing-datastore.json"])("%s", (f) => {
    const c = casePlanFromJson(JSON.parse(fs.readFileSync(path.join(EXAMPLES, f), "utf8")));
    const t = c.plan.sheets[0].tables.find((x) => x.name === "Probes") as TablePlan;
    expect(t).toBeDefined();
    const col = (k: string): number => t.columns.findIndex((x) => x.key === k);
    let rates = 0;
    t.rows.forEach((r, i) => {
      const driver = String(cellResult(r[col("driver")]));
      const fmt = cellNumFmt(t, i, col("value"));
      if (/discount rate|escalation|growth per year/i.test(driver)) {
        rates++;
        expect(fmt).toMatch(/%$/);
      } else if (/: arrival rate$/.test(driver)) expect(fmt).toMatch(/^#,##0/);
      expect(fmt).toBeDefined();
    });
    expect(rates).toBeGreaterThan(0);
  });
});
