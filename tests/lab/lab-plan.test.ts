/**
 * The lab analysis plan on the synthetic 2×2 iogen run (fixtures/generate-doe2x2.ts) and on real
 * fio output (tests/import/golden/fio-*). Reference values are computed here independently: the
 * step IOPS straight from the inputs, the 2×2 effects as half-differences of level means (exact for
 * a balanced two-level design with ±1 coding), D = U/X by hand.
 */
import * as fs from "fs";
import * as path from "path";
import { buildLabPlan } from "../../src/lab/lab-plan";
import {
  CellValue,
  columnLetter,
  SheetPlan,
  TablePlan,
  tableCell,
  tableRow,
  tableRowCount,
  WorkbookPlan,
} from "../../src/workbook/plan";
import { readLabText, LabFileResult } from "../../src/import/detect";
import { isDomainError } from "../../src/core/errors";

const FIX = path.join(__dirname, "fixtures", "doe2x2");
const GOLDEN = path.join(__dirname, "..", "import", "golden");
const read = (file: string): LabFileResult => readLabText(fs.readFileSync(file, "utf8"), path.basename(file));
const iogen = (): LabFileResult[] => [read(path.join(FIX, "subintervals.csv")), read(path.join(FIX, "summary.csv"))];
const fio = (c: string): LabFileResult =>
  readLabText(fs.readFileSync(path.join(GOLDEN, c, "input.json"), "utf8"), `${c}.json`);

function sheet(plan: WorkbookPlan, name: string): SheetPlan {
  const s = plan.sheets.find((x) => x.name === name);
  if (!s) throw new Error(`no sheet ${name}`);
  return s;
}
function table(plan: WorkbookPlan, name: string): TablePlan {
  for (const s of plan.sheets) for (const t of s.tables) if (t.name === name) return t;
  throw new Error(`no table ${name}`);
}
function column(t: TablePlan, header: string): CellValue[] {
  const i = t.columns.findIndex((c) => c.header === header);
  if (i < 0) throw new Error(`no column ${header} in ${t.name}: ${t.columns.map((c) => c.header).join(", ")}`);
  return t.rows.map((r) => r[i]);
}
const value = (v: CellValue): number | string | null => {
  if (v !== null && typeof v === "object") return "formula" in v || "addinFormula" in v ? v.result : null;
  return v as number | string | null;
};
const relClose = (a: number, b: number, tol = 1e-9): boolean =>
  Math.abs(a - b) <= tol * Math.max(Math.abs(a), Math.abs(b));

/** Parses iogen summary CSV numbers directly (no reader) for reference. */
function summaryColumn(name: string): number[] {
  const [header, ...lines] = fs.readFileSync(path.join(FIX, "summary.csv"), "utf8").trim().split("\n");
  const i = header.split(",").indexOf(name);
  return lines.map((l) => Number(l.split(",")[i]));
}

describe("buildLabPlan on a 2×2 iogen run", () => {
  // The fit's response: the CPU (the default is the mean response time).
  const plan = buildLabPlan(iogen(), { response: "cpu_busy_pct" });

  it("has the documented sheets, in order", () => {
    expect(plan.sheets.map((s) => s.name)).toEqual(["Summary", "Steps", "Model", "Fit", "Subintervals"]);
    expect(plan.sources).toEqual(["subintervals.csv", "summary.csv"]);
  });

  it("Steps IOPS equal the summary's to 1e-9 relative, with the measure window from the subintervals", () => {
    const steps = table(plan, "Steps");
    const iops = column(steps, "IOPS") as number[];
    const expected = summaryColumn("iops");
    expect(iops).toHaveLength(8);
    iops.forEach((x, i) => expect(relClose(x, expected[i])).toBe(true));
    expect(column(steps, "measure window")).toEqual(Array(8).fill("3–10"));
    expect(column(steps, "warm-up excluded")).toEqual(Array(8).fill(2));
    expect(column(steps, "protocol")).toEqual(Array(8).fill("nfs"));
  });

  it("fits the 2×2 design: effects are half-differences of level means", () => {
    const fit = table(plan, "Fit_response");
    const terms = column(fit, "Term").slice(0, 4);
    expect(terms).toEqual(["(Intercept)", "read_pct", "target_iops", "read_pct:target_iops"]);
    const y = summaryColumn("cpu_busy_pct");
    const a = summaryColumn("read_pct").map((v) => (v === 100 ? 1 : -1));
    const b = summaryColumn("target_iops").map((v) => (v === 4000 ? 1 : -1));
    const mean = (xs: number[]): number => xs.reduce((s, v) => s + v, 0) / xs.length;
    const effect = (code: number[]): number =>
      (mean(y.filter((_, i) => code[i] > 0)) - mean(y.filter((_, i) => code[i] < 0))) / 2;
    const est = column(fit, "Estimate") as number[];
    expect(est[0]).toBeCloseTo(mean(y), 10);
    expect(est[1]).toBeCloseTo(effect(a), 10);
    expect(est[2]).toBeCloseTo(effect(b), 10);
    expect(est[3]).toBeCloseTo(effect(a.map((v, i) => v * b[i])), 10);
    // DOE_FIT's array: 4 terms, then its 9 summary rows (R², F, observations, …)
    expect(table(plan, "Fit_response_time").rows.length).toBe(4 + 9);
    expect(column(fit, "Term")[4 + 2]).toBe("Multiple R-squared");
    expect(sheet(plan, "Fit").notes.join(" ")).toContain("read_pct: 70 → −1, 100 → +1");
  });

  it("Model: D = U/X by hand, and every formula's address points at the cells it means", () => {
    const model = table(plan, "Model");
    const cpu = summaryColumn("cpu_busy_pct");
    const x = summaryColumn("iops");
    const d = column(model, "U/X CPU-ms per IO (includes background work)").map(value) as number[];
    d.forEach((v, i) => expect(v).toBeCloseTo(((cpu[i] / 100) * 8 * 1000) / x[i], 10));
    const xmax = column(model, "cores ÷ (U/X) IOPS").map(value) as number[];
    xmax.forEach((v, i) => expect(v).toBeCloseTo((x[i] * 100) / cpu[i], 6));
    // Evaluate each formula from the cached values of the cells it names.
    const at = model.at as { row: number; col: number };
    const cellAt = (ref: string): number => {
      const m = /^([A-Z]+)(\d+)$/.exec(ref) as RegExpExecArray;
      const col = model.columns.findIndex((_, j) => columnLetter(at.col + j) === m[1]);
      const row = Number(m[2]) - (at.row + 2);
      return value(model.rows[row][col]) as number;
    };
    let checked = 0;
    for (const row of model.rows) {
      for (const cell of row) {
        if (cell !== null && typeof cell === "object" && "formula" in cell) {
          // The M/M/c cells wait for the planner's c (IF(c="","",…)): checked in the next test.
          if (cell.formula.startsWith("IF(")) continue;
          const expr = cell.formula.replace(/[A-Z]+\d+/g, (ref) => `(${cellAt(ref)})`);
          expect(/^[\d.()+\-*/e ]+$/.test(expr)).toBe(true);
          const evaluated = Function(`"use strict"; return (${expr});`)() as number;
          expect(relClose(evaluated, cell.result as number, 1e-12)).toBe(true);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(40);
  });

  it("M/M/c waits for the storage servers the planner names (ModelInputs, blank by default), not the queue depth", () => {
    const model = table(plan, "Model");
    const inputs = table(plan, "ModelInputs");
    expect(inputs.rows[0][0]).toBe("storage servers c");
    expect(inputs.rows[0][1]).toBeNull();
    const c = `$${columnLetter(inputs.at!.col + 1)}$${inputs.at!.row + 2}`;
    expect(model.columns.map((x) => x.header)).not.toContain("slot M/M/c c (queue depth)");
    for (const header of ["ρ = X·S/c", "M/M/c R ms", "measured ÷ M/M/c"])
      expect(column(model, header).map(value)).toEqual(Array(8).fill(""));
    const rho = column(model, "ρ = X·S/c")[0] as { formula: string };
    expect(rho.formula.startsWith(`IF(${c}="","",`)).toBe(true);
    // R − S (time before launch) is live; iogen's own lag sits beside it.
    const before = column(model, "R − S before launch ms").map(value) as number[];
    const r = summaryColumn("response_ms_avg");
    const s = summaryColumn("service_ms_avg");
    before.forEach((b, i) => expect(b).toBeCloseTo(r[i] - s[i], 12));
  });

  it("has the three chart kinds", () => {
    const ids = plan.sheets.flatMap((s) => s.charts.map((c) => c.id));
    expect(ids).toEqual([
      "response-vs-throughput",
      "p99-vs-throughput",
      "cpu-vs-iops",
      "iops-time-series",
      "latency-time-series",
    ]);
    const cpu = sheet(plan, "Model").charts[2];
    expect(cpu.series.map((s) => s.name)).toEqual(["steps", "fitted line"]);
    const ts = sheet(plan, "Subintervals").charts[0];
    expect(ts.series).toHaveLength(8);
    expect(ts.series[0].x).toHaveLength(10);
  });

  it("is plain data, and does not modify its inputs", () => {
    const inputs = iogen();
    const before = JSON.stringify(inputs);
    const deepFreeze = (o: unknown): void => {
      if (o && typeof o === "object") {
        Object.freeze(o);
        for (const v of Object.values(o)) deepFreeze(v);
      }
    };
    deepFreeze(inputs);
    const p = buildLabPlan(inputs);
    expect(JSON.stringify(inputs)).toBe(before);
    expect(JSON.parse(JSON.stringify(p))).toEqual(p);
  });
});

describe("buildLabPlan on real fio output", () => {
  it("Steps IOPS equal jobs[].<dir>.iops to 1e-9 relative, several files at once", () => {
    const cases = ["fio-randread-json", "fio-randrw-jsonplus", "fio-write-rated-psync"];
    const plan = buildLabPlan(cases.map(fio));
    const steps = table(plan, "Steps");
    const expected: number[] = [];
    const sources: string[] = [];
    for (const c of cases) {
      const doc = JSON.parse(fs.readFileSync(path.join(GOLDEN, c, "input.json"), "utf8")) as {
        jobs: Record<string, { iops: number; total_ios: number }>[];
      };
      for (const j of doc.jobs)
        for (const d of ["read", "write", "trim"])
          if (j[d].total_ios > 0) {
            expected.push(j[d].iops);
            sources.push(`${c}.json`);
          }
    }
    const iops = column(steps, "IOPS") as number[];
    expect(iops).toHaveLength(expected.length);
    iops.forEach((x, i) => expect(relClose(x, expected[i])).toBe(true));
    expect(column(steps, "source")).toEqual(sources);
    expect(column(steps, "step")).toContain("seqwrite-8k#2");
    expect(column(steps, "category").slice(1, 3)).toEqual(["read", "write"]);
  });

  it("fits a real 2×2 fio run (bs × iodepth) on the tool CPU, saying so", () => {
    const plan = buildLabPlan([fio("fio-doe-2x2")], { response: "cpu_busy_pct" });
    const fit = table(plan, "Fit_response");
    expect(table(plan, "FitData_response").columns.map((c) => c.header)).toContain("tool_cpu_pct");
    expect(column(fit, "Term").slice(0, 4)).toEqual([
      "(Intercept)",
      "block_size",
      "queue_depth",
      "block_size:queue_depth",
    ]);
    expect(sheet(plan, "Fit").notes.join(" ")).toMatch(/fio does not record host CPU/);
    expect(sheet(plan, "Fit").notes.join(" ")).toMatch(/Lenth/);
  });
});

describe("buildLabPlan edge cases", () => {
  it("aggregates subintervals when no summary is given, and accepts a seen-enough window on a long steady run", () => {
    const lines = [
      "host,step,subinterval,phase,seconds,category,iops,service_ms_avg,response_ms_avg,response_ms_p99,queue_depth",
    ];
    // 145 measured subintervals: SEEN_ENOUGH's steady-state window is at least 90 samples, and MSER-5
    // cuts this noiseless period-11 pattern at arbitrary points, so the look back (n − ⌈n/10⌉) needs
    // more than 139 samples here.
    for (let i = 1; i <= 150; i++) {
      const iops = 1000 + ((i * 37) % 11) - 5; // steady ±0.5 %
      lines.push(`h,1,${i},${i <= 5 ? "warmup" : "measure"},1,overall,${iops},0.1,0.12,0.3,4`);
    }
    const plan = buildLabPlan([readLabText(lines.join("\n") + "\n", "long.csv")]);
    const steps = table(plan, "Steps");
    const measured = lines.slice(6).map((l) => Number(l.split(",")[6]));
    const mean = measured.reduce((s, v) => s + v, 0) / measured.length;
    expect(relClose(column(steps, "IOPS")[0] as number, mean)).toBe(true);
    expect(column(steps, "measure window")).toEqual(["6–150"]);
    // No summary CSV: the steady state is SEEN_ENOUGH's, re-computed here, and the sheet says so.
    expect(column(steps, "steady state")).toEqual(["yes"]);
    expect(column(steps, "steady from")[0]).toBeGreaterThanOrEqual(6);
    expect(column(steps, "re-computed achieved ±")[0]).toBeLessThanOrEqual(0.05);
    expect(column(steps, "steady-state basis")[0]).toMatch(/^re-computed here \(no summary CSV row/);
    expect(sheet(plan, "Steps").notes.join(" ")).toMatch(/SEEN_ENOUGH re-computed here .* for 1 step whose CSV/);
    expect(steps.columns.map((c) => c.header)).not.toContain("response p99 ms"); // not mergeable from subintervals
    expect(plan.warnings.join(" ")).toMatch(/percentiles cannot be averaged/);
    expect(plan.sheets.map((s) => s.name)).not.toContain("Fit");
  });

  it("refuses an input with errors, naming the file and the missing column", () => {
    const bad = readLabText("host,step,subinterval,phase,seconds,category\nh,1,1,measure,1,overall\n", "no-iops.csv");
    expect(() => buildLabPlan([bad])).toThrow(/no-iops\.csv: .*missing required column iops/);
  });

  it("refuses an unknown response column, naming the option", () => {
    try {
      buildLabPlan(iogen(), { response: "nope" });
      throw new Error("did not throw");
    } catch (e) {
      expect(isDomainError(e) && e.argument).toBe("response");
    }
    const plan = buildLabPlan(iogen(), { response: "iops" });
    expect(table(plan, "FitData_response").columns.map((c) => c.header)).toEqual(["read_pct", "target_iops", "iops"]);
  });
});

describe("buildLabPlan on real iogen output (fixtures/iogen-real, a 2×2 plan)", () => {
  const REAL = path.join(__dirname, "fixtures", "iogen-real");
  const plan = buildLabPlan([read(path.join(REAL, "subintervals.csv")), read(path.join(REAL, "summary.csv"))]);

  it("Steps IOPS equal the summary's overall rows to 1e-9 relative; read/write rows go to Categories", () => {
    const [header, ...lines] = fs.readFileSync(path.join(REAL, "summary.csv"), "utf8").trim().split("\n");
    const h = header.split(",");
    const rows = lines.map((l) => l.split(","));
    const overall = rows.filter((r) => r[h.indexOf("category")] === "overall").map((r) => Number(r[h.indexOf("iops")]));
    const iops = column(table(plan, "Steps"), "IOPS") as number[];
    expect(iops).toHaveLength(4);
    iops.forEach((x, i) => expect(relClose(x, overall[i])).toBe(true));
    expect(table(plan, "Categories").rows).toHaveLength(8);
    expect(column(table(plan, "Steps"), "iogen seen_enough")).toEqual(Array(4).fill("off"));
    // iogen numbers the subintervals of each phase from 1: warm-up 1, then measure 1–4
    expect(column(table(plan, "Steps"), "measure window")).toEqual(Array(4).fill("1–4"));
    expect(column(table(plan, "Steps"), "warm-up excluded")).toEqual(Array(4).fill(1));
  });

  it("fits read_pct × target_iops", () => {
    expect(plan.sheets.map((s) => s.name)).toEqual(["Summary", "Steps", "Model", "Fit", "Subintervals", "Categories"]);
    expect(column(table(plan, "Fit_response"), "Term").slice(0, 4)).toEqual([
      "(Intercept)",
      "read_pct",
      "target_iops",
      "read_pct:target_iops",
    ]);
  });
});

describe("iogen's own launch lag in the Steps sheet", () => {
  const LAG = path.join(GOLDEN, "iogen-lag-engine-summary", "input.csv");
  const LAG_SUB = path.join(GOLDEN, "iogen-lag-subinterval", "input.csv");

  it("shows iogen_lag_ms_avg and _p99 from the summary, as written", () => {
    const [header, ...lines] = fs.readFileSync(LAG, "utf8").trim().split("\n");
    const h = header.split(",");
    const overall = lines.map((l) => l.split(",")).find((r) => r[h.indexOf("category")] === "overall")!;
    const steps = table(buildLabPlan([read(LAG_SUB), read(LAG)]), "Steps");
    expect(column(steps, "iogen lag avg ms")).toEqual([Number(overall[h.indexOf("iogen_lag_ms_avg")])]);
    expect(column(steps, "iogen lag p99 ms")).toEqual([Number(overall[h.indexOf("iogen_lag_ms_p99")])]);
  });

  it("leaves the columns out for files written before iogen measured its lag", () => {
    const headers = table(plan(), "Steps").columns.map((c) => c.header);
    expect(headers).not.toContain("iogen lag avg ms");
  });

  const plan = (): WorkbookPlan => buildLabPlan(iogen());
});

describe("buildLabPlan with several hosts", () => {
  it("gives one Steps row per step and host, and names hosts in the time series", () => {
    const lines = ["host,step,subinterval,phase,seconds,category,iops,start_s"];
    for (const host of ["alpha", "beta"])
      for (let i = 1; i <= 3; i++) lines.push(`${host},1,${i},measure,1,overall,${host === "alpha" ? 100 : 200},${i}`);
    const plan = buildLabPlan([readLabText(lines.join("\n") + "\n", "hosts.csv")]);
    const steps = table(plan, "Steps");
    expect(column(steps, "host")).toEqual(["alpha", "beta"]);
    expect(column(steps, "IOPS")).toEqual([100, 200]);
    expect(sheet(plan, "Subintervals").charts[0].series.map((s) => s.name)).toEqual(["alpha step 1", "beta step 1"]);
  });
});

describe("the Subintervals table (columnar)", () => {
  // Two files: b.csv repeats a's step 2 (a wins: b's step-2 rows are left out) and adds step 3.
  // Some cells are empty; `note` is a label column.
  const header = "host,step,step_name,subinterval,phase,start_s,seconds,category,iops,service_ms_avg,note";
  const a = [
    header,
    "h,1,one,1,warmup,0,1,overall,100,0.5,x",
    "h,1,one,1,warmup,0,1,read,70,,x",
    "h,1,one,2,measure,1,1,overall,110,0.25,x",
    "h,2,two,1,measure,0,1,overall,200,,y",
    "h,2,two,2,measure,1,1,overall,210,0.125,y",
  ];
  const b = [
    header,
    "h,2,dup,1,measure,0,1,overall,999,9,z",
    "h,3,three,1,measure,0,1,overall,300,0.75,z",
    "h,3,three,2,measure,1,1,overall,310,,z",
  ];
  const inputs = (): LabFileResult[] => [
    readLabText(a.join("\n") + "\n", "a.csv"),
    readLabText(b.join("\n") + "\n", "b.csv"),
  ];

  /** The rows the sheet shows, computed from the readers' row objects (first file wins per host × step × category). */
  function reference(limit: number): Record<string, CellValue>[] {
    const owner = new Map<string, string>();
    const out: Record<string, CellValue>[] = [];
    for (const input of inputs()) {
      if (input.format !== "iogen-subinterval") throw new Error("fixture");
      for (const r of input.iogen.rows) {
        const k = `${r.host}|${r.values.step}|${r.category}`;
        if (!owner.has(k)) owner.set(k, input.file);
        if (owner.get(k) !== input.file) continue;
        out.push({
          source: input.file,
          step: String(r.values.step),
          "step name": r.step_name,
          subinterval: r.values.subinterval,
          phase: r.phase,
          category: r.category,
          IOPS: r.values.iops,
          "service avg ms": r.values.service_ms_avg,
        });
      }
    }
    return out.slice(0, limit);
  }

  function shown(plan: WorkbookPlan): Record<string, CellValue>[] {
    const t = table(plan, "Subintervals");
    expect(t.columnar).toBeDefined();
    expect(t.rows).toEqual([]);
    const names = ["source", "step", "step name", "subinterval", "phase", "category", "IOPS", "service avg ms"];
    const at = names.map((n) => t.columns.findIndex((c) => c.header === n));
    expect(at.every((i) => i >= 0)).toBe(true);
    return Array.from({ length: tableRowCount(t) }, (_, i) => {
      const row = tableRow(t, i);
      expect(row.map((_, j) => tableCell(t, i, j))).toEqual(row);
      return Object.fromEntries(names.map((n, j) => [n, row[at[j]]]));
    });
  }

  it("shows, cell for cell, the rows the files give (empty cells null, superseded rows left out)", () => {
    const plan = buildLabPlan(inputs());
    expect(shown(plan)).toEqual(reference(Infinity));
    expect(table(plan, "Subintervals").columns.map((c) => c.header)).not.toContain("target IOPS"); // all empty
    expect(sheet(plan, "Subintervals").charts[0].series.map((s) => [s.name, s.y])).toEqual([
      ["a.csv step 1 one", [100, 110]],
      ["a.csv step 2 two", [200, 210]],
      ["b.csv step 3 three", [300, 310]],
    ]);
  });

  it("cuts at maxSubintervalRows, in the time series too", () => {
    const plan = buildLabPlan(inputs(), { maxSubintervalRows: 6 });
    expect(shown(plan)).toEqual(reference(6));
    expect(sheet(plan, "Subintervals").charts[0].series.map((s) => s.y)).toEqual([[100, 110], [200, 210], [300]]);
    const cut = plan.warnings.find((w) => w.startsWith("Subintervals: 7 rows, only the first 6 are written"));
    // The 7th row is step 3's second subinterval (its series above has one point): named as left out.
    expect(cut).toMatch(/left out: step 3 overall \(1 of 2 rows\)\. Steps, Model, Fit and Categories use every row\.$/);
  });
});
