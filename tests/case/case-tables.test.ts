/**
 * What the Sensitivity, Scenarios, Costs, Capacity and PurchasePlan tables show, against truths
 * from the input alone (never from the code under test):
 * - a fixed staff that cannot carry its load at a load factor (c ≤ λ·factor·S) is said to in the
 *   Sensitivity's load row and the Scenarios, a gap in the tornado's bar, never costed;
 * - a break-even capex below zero shows in words, not as a price;
 * - rates grouped in thousands; every workload's times in a unit of its own (9.1 ms, not 9100 µs).
 * LibreOffice's recalculation of the same cells after edits: sensitivity-libreoffice.test.ts,
 * capacity-units-libreoffice.test.ts.
 */
import * as fs from "fs";
import * as path from "path";
import JSZip from "jszip";
import { casePlanFromJson, CasePlan } from "../../src/case/case-plan";
import { loadFormat, rateFormat, workloadTimeUnit } from "../../src/case/capacity-units";
import { cellNumFmt, cellResult, TablePlan } from "../../src/workbook/plan";
import { formatNumber, renderHtml } from "../../src/report/html";
import { renderXlsx } from "../../src/report/xlsx";
import { addNativeCharts } from "../../src/report/xlsx-charts";

const EXAMPLES = path.join(__dirname, "..", "..", "examples");
const read = (f: string): Record<string, unknown> => JSON.parse(fs.readFileSync(path.join(EXAMPLES, f), "utf8"));

function table(c: CasePlan, name: string): TablePlan {
  return c.plan.sheets[0].tables.find((t) => t.name === name) as TablePlan;
}

/** A cell as the sheet shows it: its value in its own number format. */
function shown(t: TablePlan, row: number, key: string): string {
  const col = t.columns.findIndex((c) => c.key === key);
  const v = cellResult(t.rows[row][col]);
  return typeof v === "number" ? formatNumber(v, cellNumFmt(t, row, col)) : String(v);
}

describe("a fixed staff over its load at a load factor is said to, not costed", () => {
  // Today's 21 agents and the overflow contract's 22 at 3 calls/min × 6.5 min: 19.5 erlangs today,
  // 25.35 at the high factor 1.3 (both over), 13.65 at the low factor 0.7 (both under).
  const json = read("helpdesk-fixed-staff.json") as {
    options: {
      name: string;
      workloads: { arrivalRate: number; serviceTime: number; sizing: { servers?: number } }[];
    }[];
  };
  const c = casePlanFromJson(json);
  const over = (factor: number): string[] =>
    json.options
      .filter((o) =>
        o.workloads.some(
          (w) => w.sizing.servers !== undefined && w.sizing.servers <= w.arrivalRate * factor * w.serviceTime,
        ),
      )
      .map((o) => o.name);

  it("the inputs put today's staff and the overflow contract over the high load, none over the low", () => {
    expect(over(1.3)).toEqual(["Today: 21 agents", "Overflow contract"]);
    expect(over(0.7)).toEqual([]);
  });

  it("Sensitivity: the load row says who cannot carry the high load, has no swing, and comes first", () => {
    const s = table(c, "Sensitivity");
    expect(s.rows[0][0]).toBe("Load (× every arrival rate)");
    const k = c.result.recommended;
    const who = [0, k].map((i) => json.options[i].name).filter((n) => over(1.3).includes(n));
    expect(shown(s, 0, "saving_high")).toBe(
      who.length === 1 ? `${who[0]} cannot carry its load` : `${who.join(" and ")} cannot carry their load`,
    );
    expect(typeof cellResult(s.rows[0][3])).toBe("number");
    expect(shown(s, 0, "swing")).toBe("n/a");
    // Every other driver is costed at both sides.
    for (const row of s.rows.slice(1)) expect(typeof cellResult(row[4])).toBe("number");
  });

  it("Sensitivity: the rank is 1 + the rows with a larger swing (whole units; 'n/a' above any number)", () => {
    for (const file of ["helpdesk-fixed-staff.json", "merging-helpdesks.json", "growing-datastore.json"]) {
      const t = table(casePlanFromJson(read(file)), "Sensitivity");
      const col = (key: string): number => t.columns.findIndex((x) => x.key === key);
      const swing = t.rows.map((r) => {
        const v = cellResult(r[col("swing")]);
        return typeof v === "number" ? Math.round(v) : Infinity;
      });
      const ranks = t.rows.map((r) => cellResult(r[col("rank")]));
      expect([file, ranks]).toEqual([file, swing.map((x) => 1 + swing.filter((y) => y > x).length)]);
      // Built in order of swing: the ranks never fall down the table.
      ranks.forEach((x, i) => i > 0 && expect(x as number).toBeGreaterThanOrEqual(ranks[i - 1] as number));
    }
  });

  it("the tornado: a gap where the high load cannot be carried, in the chart plan, the .xlsx chart and the HTML", async () => {
    const tornado = c.plan.sheets[0].charts.find((ch) => ch.kind === "bar")!;
    const load = tornado.categories!.indexOf("Load (× every arrival rate)");
    expect(Number.isNaN(tornado.series[1].y[load])).toBe(true);
    expect(Number.isFinite(tornado.series[0].y[load])).toBe(true);
    const zip = await JSZip.loadAsync(await addNativeCharts(await renderXlsx(c.plan), c.plan));
    const charts = await Promise.all(
      Object.keys(zip.files)
        .filter((f) => /^xl\/charts\/chart\d+\.xml$/.test(f))
        .map((f) => zip.file(f)!.async("string")),
    );
    const bar = charts.find((x) => x.includes("<c:barDir"))!;
    const high = [...bar.matchAll(/<c:numCache>(.*?)<\/c:numCache>/g)][1][1];
    expect(high).not.toContain(`<c:pt idx="${load}">`);
    expect(high).toContain(`<c:pt idx="${load + 1}">`);
    const html = renderHtml(c.plan);
    expect(html).toContain("cannot carry its load");
  });

  it("Scenarios: the options over the high load say so; every low scenario is costed", () => {
    const s = table(c, "Scenarios");
    s.rows.forEach((row, i) => {
      expect([row[0], shown(s, i, "npv_high")]).toEqual([
        row[0],
        over(1.3).includes(String(row[0])) ? "cannot carry its load" : expect.stringMatching(/^€[\d,]+$/),
      ]);
      expect(typeof cellResult(row[s.columns.findIndex((x) => x.key === "npv_low")])).toBe("number");
    });
  });
});

describe("a break-even capex below zero is said in words", () => {
  // Replace costs 120 a year more than Keep's 100 and its capex is 50: no capex makes it break even.
  const c = casePlanFromJson({
    years: 3,
    discountRate: 0.1,
    options: [
      { name: "Keep", opex: [{ label: "Support", perYear: 100 }] },
      { name: "Replace", capex: 50, opex: [{ label: "Support", perYear: 220 }] },
    ],
  });
  it("the Costs table's break-even row shows words for Replace, a price for Keep", () => {
    const t = table(c, "Costs");
    const r = t.rows.findIndex((row) => row[0] === "Break-even capex");
    // Replace: 50 − (50 + 220·(1 + 1/1.1 + 1/1.21) − 100·(1 + 1/1.1 + 1/1.21)) < 0.
    const dearer = 120 * (1 + 1 / 1.1 + 1 / 1.21);
    // Rounded to a millionth on the sheet (ROUND(x, 6)).
    expect(cellResult(t.rows[r][2])).toBeCloseTo(-dearer, 5);
    expect(shown(t, r, "option_2")).toBe("not reachable (< 0)");
    expect(shown(t, r, "option_1")).toBe("£0");
  });
});

describe("rates and times as people read them", () => {
  it("rate and load formats: grouped, with the decimals given or needed", () => {
    expect(formatNumber(70000, rateFormat(70000))).toBe("70,000");
    expect(formatNumber(3.3, rateFormat(3.3))).toBe("3.3");
    expect(formatNumber(0.05, rateFormat(0.05))).toBe("0.05");
    expect(formatNumber(1234.5, rateFormat(1234.5))).toBe("1,234.5");
    expect(formatNumber(86100, loadFormat([70000, 86100]))).toBe("86,100");
    expect(formatNumber(3.63, loadFormat([3, 3.3, 3.63]))).toBe("3.63");
  });

  // A 9.1 ms disk beside an 81 µs CPU (a VDI array's two queues), in seconds.
  const mixed = {
    title: "Disk and CPU",
    years: 3,
    discountRate: 0.05,
    timeUnit: "s",
    rateUnit: "IO/s",
    options: [
      {
        name: "Array",
        costPerServer: 1000,
        workloads: [
          { name: "Disk", arrivalRate: 1500, serviceTime: 0.0091, sizing: { response: 0.02 } },
          { name: "CPU", arrivalRate: 70000, serviceTime: 0.000081, sizing: { utilization: 0.7 } },
        ],
      },
      {
        name: "Bigger array",
        capex: 5000,
        costPerServer: 900,
        workloads: [{ name: "Disk", arrivalRate: 1500, serviceTime: 0.0091, sizing: { utilization: 0.6 } }],
      },
    ],
  };

  it("every workload in its own unit: 9.10 ms for the disk, 81.00 µs for the CPU; rates grouped", () => {
    const c = casePlanFromJson(mixed);
    expect(workloadTimeUnit(c.input, 0, 0)).toEqual({ unit: "ms", scale: 1000 });
    expect(workloadTimeUnit(c.input, 0, 1)).toEqual({ unit: "µs", scale: 1e6 });
    const t = table(c, "Capacity");
    expect(shown(t, 0, "service_time")).toBe("9.10 ms");
    expect(shown(t, 0, "target")).toBe("20.00 ms");
    expect(shown(t, 1, "service_time")).toBe("81.00 µs");
    expect(shown(t, 2, "service_time")).toBe("9.10 ms");
    expect(shown(t, 1, "rate")).toBe("70,000");
    expect(shown(t, 0, "rate")).toBe("1,500");
    // The mean response of the disk in ms: S + Wq ≥ S, under its 20 ms target.
    expect(shown(t, 0, "mean_response")).toMatch(/^\d{1,2}\.\d\d ms$/);
    expect(t.columns.find((x) => x.key === "service_time")!.header).toBe("Service time (input)");
    expect(c.layout.workloads[0].map((w) => w.timeScale)).toEqual([1000, 1e6]);
  });

  it("one unit for every workload: the header names it, as before", () => {
    const c = casePlanFromJson(read("nfs-vs-fc-70k-iops.json"));
    const t = table(c, "Capacity");
    expect(t.columns.find((x) => x.key === "service_time")!.header).toBe("Service time (µs) (input)");
    expect(shown(t, 0, "rate")).toBe("70,000");
  });
});
