/**
 * The business case: inputs, figures and the sheet plan.
 *
 * Reference figures come from tests/case/fixtures/expected.json, written by
 * generate-expected.py beside it (50-digit mpmath, Erlang C by its closed form, NPV as a plain
 * sum, sizing by exact rationals) — not from the code under test. The seed figures are quoted
 * from the sources: "a prospective replacement disk subsystem would need to cost less than
 * £273,554" (NPV of 100,000 a year, three payments from now, at 10 %; ascknd.com, "Net Present
 * Value", 2014) and "a 70K IOP requirement would require 6 cores for NFS, but only 3 for FC" at
 * 81 µs and 41 µs of CPU per IO (ascknd.com, "NFS vs Fibre Channel", 2014).
 */
import * as fs from "fs";
import * as path from "path";
import { buildCasePlan, casePlanFromJson } from "../../src/case/case-plan";
import { conclusion } from "../../src/case/conclusion";
import { money, percent } from "../../src/case/money-text";
import { parseCaseInput } from "../../src/case/input";
import { computeCase } from "../../src/case/model";
import { isDomainError } from "../../src/core/errors";
import { TablePlan } from "../../src/workbook/plan";
import { SheetGrid, parseA1 } from "./sheet-eval";

const ROOT = path.join(__dirname, "..", "..");
const EXPECTED = JSON.parse(fs.readFileSync(path.join(__dirname, "fixtures", "expected.json"), "utf8")) as {
  seedNpv: number;
  seedCores: Record<
    string,
    Record<"NFS" | "FC", { cores: number; utilization: number; meanResponse: number; meanWait: number; pWait: number }>
  >;
  examples: Record<string, { cheapest: number; options: Record<string, unknown>[] }>;
};

function example(name: string): unknown {
  return JSON.parse(fs.readFileSync(path.join(ROOT, "examples", name), "utf8"));
}

/** Relative closeness, absolute near zero (differences of equal costs are ~1e-10). */
function expectClose(actual: number, expected: number, rel = 1e-12): void {
  const scale = Math.max(Math.abs(expected), 1);
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(rel * scale);
}

function deepFreeze<T>(x: T): T {
  if (x && typeof x === "object") {
    Object.values(x).forEach(deepFreeze);
    Object.freeze(x);
  }
  return x;
}

const storage: {
  years: number;
  discountRate: number;
  options: { name: string; capex?: number; opex?: { label: string; perYear: number }[] }[];
} = {
  years: 3,
  discountRate: 0.1,
  options: [
    { name: "Keep", opex: [{ label: "Support", perYear: 100000 }] },
    { name: "Replace", capex: 250000 },
  ],
};

function iopsCase(utilization: number): unknown {
  const option = (name: string, s: number) => ({
    name,
    workloads: [{ name: "IO", arrivalRate: 70000, serviceTime: s, sizing: { utilization } }],
    costPerServer: 1000,
  });
  return {
    years: 3,
    discountRate: 0.1,
    timeUnit: "s",
    rateUnit: "IO/s",
    options: [option("NFS", 0.000081), option("FC", 0.000041)],
  };
}

describe("seed figures", () => {
  it("NPV of 100,000 a year, three payments from now, at 10% is 273,553.72: the break-even price of a replacement", () => {
    const c = buildCasePlan(parseCaseInput(deepFreeze(structuredClone(storage))));
    expectClose(c.result.options[0].npv, EXPECTED.seedNpv, 1e-15);
    expect(Math.round(c.result.options[0].npv * 100) / 100).toBe(273553.72);
    expectClose(c.result.options[1].breakEvenCapex, EXPECTED.seedNpv, 1e-15);
    expect(c.plan.sheets[0].notes[1]).toBe(
      "Replace saves £23,554 over 3 years at 10% compared with Keep (net present cost £250,000 vs £273,554). " +
        "Replace breaks even with Keep at a capex of £273,554.",
    );
  });

  it.each(Object.keys(EXPECTED.seedCores))(
    "70,000 IOPS at 81 µs (NFS) vs 41 µs (FC) of CPU per IO, sized to utilization ≤ %s: cores and M/M/c figures",
    (u) => {
      const r = computeCase(parseCaseInput(iopsCase(Number(u))));
      (["NFS", "FC"] as const).forEach((proto, i) => {
        const want = EXPECTED.seedCores[u][proto];
        const got = r.options[i].workloads[0];
        expect(got.servers).toBe(want.cores);
        expectClose(got.utilization, want.utilization, 1e-14);
        expectClose(got.meanResponse, want.meanResponse, 1e-11);
        expectClose(got.meanWait, want.meanWait, 1e-11);
        expectClose(got.pWait, want.pWait, 1e-11);
      });
    },
  );

  it("at 100% utilization gives the seed's 6 cores for NFS and 3 for FC", () => {
    const r = computeCase(parseCaseInput(iopsCase(1)));
    expect(r.options.map((o) => o.servers)).toEqual([6, 3]);
  });
});

describe.each(Object.keys(EXPECTED.examples))("example %s", (file) => {
  const want = EXPECTED.examples[file];
  const built = casePlanFromJson(example(file), { sources: [`examples/${file}`] });

  it("reproduces the reference figures (servers, M/M/c, cash flows, NPV, difference, break-even)", () => {
    expect(built.result.cheapest).toBe(want.cheapest);
    built.result.options.forEach((got, i) => {
      const w = want.options[i] as Record<string, unknown> & { workloads: Record<string, number>[] };
      expect(got.servers).toBe(w.servers);
      got.workloads.forEach((gw, j) => {
        expect(gw.servers).toBe(w.workloads[j].servers);
        for (const k of ["utilization", "meanResponse", "meanWait", "pWait"] as const)
          expectClose(gw[k], w.workloads[j][k], 1e-11);
      });
      for (const k of ["upfront", "running", "npv"] as const) expectClose(got[k], w[k] as number);
      // Differences of nearly equal NPVs: absolute error relative to the NPVs subtracted.
      for (const k of ["difference", "breakEvenCapex"] as const)
        expect(Math.abs(got[k] - (w[k] as number))).toBeLessThanOrEqual(1e-12 * Math.abs(w.npv as number));
      got.cashflows.forEach((cf, t) => expectClose(cf, (w.cashflows as number[])[t]));
      got.cumulativeDiscounted.forEach((cf, t) => expectClose(cf, (w.cumulativeDiscounted as number[])[t]));
    });
  });

  it("every formula, applied to the values the plan carries for its inputs, gives the value it carries", () => {
    // One step per formula (its inputs at their planned values); the chain from the inputs through
    // every formula, and edits of the inputs, are recalculated by LibreOffice in
    // case-libreoffice.test.ts and case-recalc.test.ts. This evaluator has no POISSON, SUMPRODUCT,
    // TEXT, TRIM, NA, MATCH, IRR, COUNTIF, COUNT, ISNUMBER, IFERROR, AND, OR or SMALL: formulas using
    // them, and formulas of text (the checks, the verdict), are left to LibreOffice.
    const sheet = built.plan.sheets[0];
    const grid = new SheetGrid(sheet);
    let formulas = 0;
    let left = 0;
    for (const t of sheet.tables) {
      t.rows.forEach((row) =>
        row.forEach((cell) => {
          if (cell !== null && typeof cell === "object" && "formula" in cell) {
            if (
              typeof cell.result !== "number" ||
              /\b(POISSON|SUMPRODUCT|TEXT|TRIM|NA|MATCH|IRR|COUNTIF|COUNT|ISNUMBER|IFERROR|AND|OR|SMALL)\(/.test(
                cell.formula,
              )
            ) {
              left++;
              return;
            }
            formulas++;
            const v = grid.evaluateOnCached(cell.formula);
            expectClose(v as number, cell.result as number, 1e-12);
          }
        }),
      );
    }
    expect(formulas).toBeGreaterThan(10);
    // At least the paybacks and IRRs of each option against the baseline.
    expect(left).toBeGreaterThanOrEqual(3 * (built.input.options.length - 1));
  });

  it("for Excel with the add-in: NPV_IT (and M/M/c beyond the native range) are CAPLAB formulas that compute the planned values", () => {
    const live = casePlanFromJson(example(file), { forExcelAddin: true });
    const sheet = live.plan.sheets[0];
    const grid = new SheetGrid(sheet);
    const addin = sheet.tables.flatMap((t) =>
      t.rows.flatMap((row, i) =>
        row.flatMap((cell, j) =>
          cell !== null && typeof cell === "object" && "addinFormula" in cell
            ? [{ cell, row: (t.at as { row: number }).row + 1 + i, col: (t.at as { col: number }).col + j }]
            : [],
        ),
      ),
    );
    expect(addin.map((a) => a.cell.addinFormula).filter((f) => f.startsWith("CAPLAB.NPV_IT(")).length).toBe(
      live.input.options.length,
    );
    expect(addin.length).toBe(live.layout.addinFormulas.length);
    for (const a of addin)
      expectClose(grid.evaluateOnCached(a.cell.addinFormula) as number, a.cell.result as number, 1e-12);
  });

  it("has a line chart of cumulative discounted cost per option, from the cash-flow table", () => {
    const [chart] = built.plan.sheets[0].charts;
    const cash = built.plan.sheets[0].tables.find((t) => t.name === chart.source?.table) as TablePlan;
    expect(cash).toBeDefined();
    expect(chart.series.map((s) => s.name)).toEqual(built.input.options.map((o) => o.name));
    chart.series.forEach((s, i) => {
      expect(s.x).toEqual(Array.from({ length: built.result.periods }, (_, t) => t));
      expect(s.y).toEqual(built.result.options[i].cumulativeDiscounted);
      expect(cash.columns.map((c) => c.key)).toContain(chart.source?.yColumns[i]);
    });
  });
});

describe("the sheet", () => {
  it("marks inputs, keeps labels from the input as text, and plans no CAPLAB formula for the headless renderers", () => {
    const hostile = structuredClone(storage) as typeof storage;
    hostile.options[0].name = '=HYPERLINK("http://x","y")';
    (hostile.options[0].opex as { label: string }[])[0].label = "+cmd|' /C calc'!A0";
    const sheet = buildCasePlan(parseCaseInput(hostile)).plan.sheets[0];
    const json = JSON.stringify(sheet);
    expect(json).not.toMatch(/CAPLAB\./);
    const costs = sheet.tables.find((t) => t.name === "Costs") as TablePlan;
    expect(costs.columns[1].header).toBe('=HYPERLINK("http://x","y")');
    expect(costs.rows.map((r) => r[0])).toContain("+cmd|' /C calc'!A0 per year (input)");
    for (const t of sheet.tables)
      for (const row of t.rows)
        for (const cell of row)
          if (cell !== null && typeof cell === "object" && "formula" in cell)
            expect(cell.formula).not.toMatch(/HYPERLINK|cmd/);
    expect(costs.rows.filter((r) => String(r[0]).endsWith("(input)")).length).toBe(2);
  });

  it("refers to an analysis cell for the service time instead of copying it", () => {
    const json = iopsCase(0.7) as { options: { workloads: Record<string, unknown>[] }[] };
    json.options[0].workloads[0].serviceTimeRef = "'Model'!$F$5";
    const built = casePlanFromJson(json);
    const grid = new SheetGrid(built.plan.sheets[0], (ref) => {
      expect(ref).toBe("'Model'!F5");
      return 0.000081;
    });
    const capacity = built.plan.sheets[0].tables.find((t) => t.name === "Capacity") as TablePlan;
    expect(capacity.rows[0][3]).toEqual({ formula: "'Model'!$F$5*1000000", result: 81 });
    const { row, col } = parseA1(built.layout.servers[0][0]);
    expect(grid.value(row, col)).toBe(9);
  });

  it("scales a referenced service time given in another unit (an analysis's CPU-ms per IO in a case in seconds)", () => {
    const json = iopsCase(0.7) as { options: { workloads: Record<string, unknown>[] }[] };
    Object.assign(json.options[0].workloads[0], {
      serviceTimeRef: "'Model'!$L$7",
      serviceTimeRefDivisor: 1000,
      serviceTime: 0.081 / 1000,
    });
    const built = casePlanFromJson(json);
    const grid = new SheetGrid(built.plan.sheets[0], (ref) => {
      expect(ref).toBe("'Model'!L7");
      return 0.081; // CPU-ms per IO, as the Model sheet has it
    });
    const capacity = built.plan.sheets[0].tables.find((t) => t.name === "Capacity") as TablePlan;
    expect(capacity.rows[0][3]).toEqual({ formula: "'Model'!$L$7/1000*1000000", result: 81 });
    const { row, col } = parseA1(built.layout.servers[0][0]);
    // 70,000 IO/s × 81 µs = 5.67 busy cores; at 70 % → ⌈8.1⌉ = 9 (worked by hand).
    expect(grid.value(row, col)).toBe(9);
  });

  it("averages several referenced cells (the steps of one protocol level)", () => {
    const json = iopsCase(0.7) as { options: { workloads: Record<string, unknown>[] }[] };
    Object.assign(json.options[0].workloads[0], {
      serviceTimeRef: ["'Model'!$J$6", "'Model'!$J$7"],
      serviceTimeRefDivisor: 1000,
      serviceTime: (0.07 + 0.092) / 2 / 1000,
    });
    const built = casePlanFromJson(json);
    const cells: Record<string, number> = { "'Model'!J6": 0.07, "'Model'!J7": 0.092 };
    const grid = new SheetGrid(built.plan.sheets[0], (ref) => cells[ref]);
    const capacity = built.plan.sheets[0].tables.find((t) => t.name === "Capacity") as TablePlan;
    expect(capacity.rows[0][3]).toEqual({
      // Shown in µs: the case is in seconds, its service times below a millisecond.
      formula: "AVERAGE('Model'!$J$6,'Model'!$J$7)/1000*1000000",
      result: ((0.07 + 0.092) / 2 / 1000) * 1e6,
    });
    const { row, col } = parseA1(built.layout.servers[0][0]);
    // 70,000 IO/s × 81 µs = 5.67 busy cores; at 70 % → ⌈8.1⌉ = 9 (worked by hand).
    expect(grid.value(row, col)).toBe(9);
    const bad = structuredClone(json);
    bad.options[0].workloads[0].serviceTimeRef = ["'Model'!$J$6", "SUM(A1)"];
    expect(() => casePlanFromJson(bad)).toThrow(
      "options[0].workloads[0].serviceTimeRef[1]: must be one cell on another sheet such as 'Model'!$F$5",
    );
  });

  it("names its tables with a prefix when asked (several cases in one workbook)", () => {
    const sheet = casePlanFromJson(example("nfs-vs-fc-70k-iops.json"), { tablePrefix: "Case 2", sheetName: "Case 2" })
      .plan.sheets[0];
    expect(sheet.name).toBe("Case 2");
    expect(sheet.tables.map((t) => t.name)).toEqual([
      "Case_2_Recommendation",
      "Case_2_Costs",
      "Case_2_Assumptions",
      "Case_2_Notes",
      "Case_2_Choice",
      "Case_2_BreakEven",
      "Case_2_Escalation",
      "Case_2_OneOff",
      "Case_2_OneOffYear",
      "Case_2_Return",
      "Case_2_Capacity",
      "Case_2_CostPerYear",
      "Case_2_CumulativeCost",
      "Case_2_Savings",
      "Case_2_Sensitivity",
      "Case_2_Scenarios",
      "Case_2_Probes",
    ]);
    expect(sheet.charts[0].source?.table).toBe("Case_2_CumulativeCost");
  });

  it("formats money and rates for a manager", () => {
    expect(money(273553.72, "£")).toBe("£273,554");
    expect(money(-1200.4, "CHF")).toBe("\u2212CHF 1,200");
    expect(money(-0.0000001, "$")).toBe("$0");
    expect(percent(0.1)).toBe("10%");
    expect(percent(0.075)).toBe("7.5%");
  });

  it("says when the baseline costs least, and names the runner-up", () => {
    const json = structuredClone(storage);
    json.options[1].capex = 300000;
    const input = parseCaseInput(json);
    expect(conclusion(input, computeCase(input))).toBe(
      "Keep costs least: Replace would cost £26,446 more over 3 years at 10% (net present cost £300,000 vs £273,554). " +
        "Replace breaks even with Keep at a capex of £273,554.",
    );
  });
});

describe("input validation names the input and the problem", () => {
  const cases: [string, (j: Record<string, unknown>) => void, string][] = [
    ["years", (j) => (j.years = 2.5), "years: must be a whole number of years from 1 to 50, got 2.5"],
    [
      "discount rate as a percentage",
      (j) => (j.discountRate = 10),
      "discountRate: must be a fraction per year below 1 (0.1 for 10%); 10 would be 1000%",
    ],
    ["missing discount rate", (j) => delete j.discountRate, "discountRate: is required"],
    ["one option", (j) => (j.options = [(j.options as unknown[])[0]]), "options: must have 2 to 10 entries, got 1"],
    [
      "duplicate names",
      (j) => ((j.options as { name: string }[])[1].name = "keep"),
      'options[1].name: repeats options[0].name "Keep"',
    ],
    ["misspelt field", (j) => ((j.options as Record<string, unknown>[])[1].capx = 5), "options[1].capx: unknown field"],
    [
      "negative capex",
      (j) => ((j.options as Record<string, unknown>[])[1].capex = -1),
      "options[1].capex: must be an amount ≥ 0, got -1",
    ],
    [
      "text amount",
      (j) => ((j.options as { opex: Record<string, unknown>[] }[])[0].opex[0].perYear = "100k"),
      'options[0].opex[0].perYear: must be an amount per year (negative for a saving), got "100k"',
    ],
    ["currency", (j) => (j.currency = '"; x'), "currency: must be £, $, €, ¥ or a three-letter code"],
  ];
  it.each(cases)("%s", (_what, edit, message) => {
    const json = structuredClone(storage) as unknown as Record<string, unknown>;
    edit(json);
    let caught: unknown;
    try {
      parseCaseInput(json);
    } catch (e) {
      caught = e;
    }
    expect(isDomainError(caught)).toBe(true);
    expect((caught as Error).message).toContain(message);
  });

  const workloadCases: [string, Record<string, unknown>, string][] = [
    [
      "no sizing rule",
      { name: "IO", arrivalRate: 1, serviceTime: 1, sizing: {} },
      "options[0].workloads[0].sizing: give exactly one of",
    ],
    [
      "two sizing rules",
      { name: "IO", arrivalRate: 1, serviceTime: 1, sizing: { servers: 2, utilization: 0.5 } },
      "got servers, utilization",
    ],
    [
      "utilization above 1",
      { name: "IO", arrivalRate: 1, serviceTime: 1, sizing: { utilization: 80 } },
      "options[0].workloads[0].sizing.utilization: must be a target utilization as a fraction in (0, 1]",
    ],
    [
      "response below service time",
      { name: "IO", arrivalRate: 1, serviceTime: 2, sizing: { response: 1 } },
      "sizing.response: must be a target mean response time above the service time 2 s",
    ],
    [
      "zero service time",
      { name: "IO", arrivalRate: 1, serviceTime: 0, sizing: { servers: 1 } },
      "options[0].workloads[0].serviceTime: must be a positive time in s, got 0",
    ],
    [
      "answerWithin without a level",
      { name: "IO", arrivalRate: 1, serviceTime: 1, sizing: { servers: 3, answerWithin: 2 } },
      "sizing.answerWithin: only goes with serviceLevel",
    ],
    [
      "a formula as a reference",
      { name: "IO", arrivalRate: 1, serviceTime: 1, serviceTimeRef: "Model!A1+HYPERLINK(1)", sizing: { servers: 3 } },
      "serviceTimeRef: must be one cell on another sheet",
    ],
    [
      "a divisor without a reference",
      { name: "IO", arrivalRate: 1, serviceTime: 1, serviceTimeRefDivisor: 1000, sizing: { servers: 3 } },
      "options[0].workloads[0].serviceTimeRefDivisor: only goes with serviceTimeRef",
    ],
    [
      "a zero divisor",
      {
        name: "IO",
        arrivalRate: 1,
        serviceTime: 1,
        serviceTimeRef: "Model!A1",
        serviceTimeRefDivisor: 0,
        sizing: { servers: 3 },
      },
      "options[0].workloads[0].serviceTimeRefDivisor: must be a positive number",
    ],
  ];
  it.each(workloadCases)("%s", (_what, workload, message) => {
    const json = { years: 1, discountRate: 0, options: [{ name: "A", workloads: [workload] }, { name: "B" }] };
    expect(() => parseCaseInput(json)).toThrow(message);
  });

  it("a fixed staff that cannot carry its load is marked and left out of the choice, not refused", () => {
    const json = {
      years: 1,
      discountRate: 0,
      timeUnit: "min",
      options: [
        { name: "A", workloads: [{ name: "Desk", arrivalRate: 0.2, serviceTime: 30, sizing: { servers: 5 } }] },
        { name: "B" },
      ],
    };
    const c = casePlanFromJson(json);
    expect(c.result.options[0].qualifies).toBe(false);
    expect(c.result.options[0].workloads[0].stable).toBe(false);
    expect(c.result.chosen).toBe(1);
    expect(c.plan.sheets[0].notes[1]).toMatch(/^A cannot carry its load; of the rest, B /);
  });

  it("does not modify its input", () => {
    const json = deepFreeze(example("merging-helpdesks.json"));
    expect(() => casePlanFromJson(json)).not.toThrow();
  });
});
