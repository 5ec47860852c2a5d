/**
 * The case sheet recalculated by another program: every formula, with its cached value removed,
 * must give back the number the project computed. LibreOffice Calc (headless) loads every file
 * below in ONE batched conversion (recalculating on load, saving as .xlsx again, about 30 s for the
 * lot), and the values Calc saved are read back at full precision:
 *
 * - the label collision that made "Running cost" point at the per-server row (an opex line named
 *   "Cost per server" becomes the row title "Cost per server per year (input)", which the
 *   per-server-per-year row also has);
 * - 200 generated cases (fast-check, seeded) whose option names, cost lines and workloads are
 *   drawn from one pool of words that collide with each other and with the sheet's own row titles
 *   and headers, with every sizing rule;
 * - a grid of Erlang C written natively (POISSON), compared with `src/core/erlang.ts`: the
 *   accuracy of the formula the sheet uses for M/M/c without the add-in;
 * - what-if: files written by `caplab case` with arrival rates edited +30 % in the XML, so the
 *   servers, response, wait and P(wait) must follow and equal `caplab case` on the edited input.
 *
 * Needs LibreOffice (`soffice`); without it the test fails under CI=true and is skipped, saying
 * so, elsewhere.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import fc from "fast-check";
import JSZip from "jszip";
import { run } from "../../src/cli/commands/case";
import { buildCasePlan, casePlanFromJson, CasePlan } from "../../src/case/case-plan";
import { parseCaseInput } from "../../src/case/input";
import { NATIVE_MAX_LOAD } from "../../src/case/mmc-cells";
import { cellResult, TablePlan, WorkbookPlan } from "../../src/workbook/plan";
import { renderXlsx } from "../../src/report/xlsx";
import { erlangC } from "../../src/core/erlang";
import { parseA1 } from "./sheet-eval";
import { convert, findSoffice, recalculatingProfile, withoutCachedValues, xlsxValues } from "./libreoffice";
import { describeUnless } from "../helpers/skip";

const SOFFICE = findSoffice();
const describeLo = (name: string, fn: () => void): void =>
  describeUnless(SOFFICE ? null : "soffice (LibreOffice) not installed; CI installs libreoffice-calc-nogui", name, fn);
const EXAMPLES = path.join(__dirname, "..", "..", "examples");

/** Words for names and labels: the sheet's row titles and headers, their stems, and each other. */
const WORDS = [
  "Cost per server",
  "Cost per server, one-off",
  "Capex at year 0",
  "Year-0 one-off cost",
  "Running cost",
  "Running cost per year",
  "Net present cost over 3 years",
  "Break-even capex",
  "Difference from A",
  "Servers",
  "Utilization",
  "Check",
  "Option",
  "Workload",
  "A",
  "B",
  "a",
  "Support",
  "Support per year (input)",
  "Licences",
  "=SUM(B1:B9)",
];
const NAME_WORDS = WORDS.filter((w) => w.length <= 40);

type Json = Record<string, unknown>;

const sizing = (a: number, s: number): fc.Arbitrary<Json> =>
  fc.oneof(
    fc.integer({ min: 1, max: 6 }).map((k) => ({ servers: Math.floor(a) + k })),
    fc.double({ min: 0.3, max: 1, noNaN: true }).map((u) => ({ utilization: u })),
    fc.double({ min: 0.02, max: 3, noNaN: true }).map((x) => ({ response: s * (1 + x) })),
    fc
      .tuple(fc.double({ min: 0, max: 0.99, noNaN: true }), fc.double({ min: 0, max: 2, noNaN: true }))
      .map(([level, y]) => ({ serviceLevel: level, answerWithin: s * y })),
  );

/** Within 1e-9 (relative) of a whole number. */
const nearWhole = (x: number): boolean => Math.abs(x - Math.round(x)) <= 1e-9 * Math.max(1, Math.abs(x));

/**
 * A workload away from the edges where a spreadsheet and exact arithmetic part ways: Calc (like
 * Excel) treats numbers within ~1e-15 of a whole number as that number in INT, ROUNDUP and
 * comparisons (LibreOffice's rtl::math::approxFloor), so a load of 59.99999999999998 erlangs
 * gets 61 servers there and 60 here. Loads (and load/target) within 1e-9 of a whole number, and
 * fixed staffs busier than 1 − 1e-9, are not generated; docs/case.md says so.
 */
const workload = (name: string): fc.Arbitrary<Json> =>
  fc
    .tuple(fc.double({ min: 0.05, max: 60, noNaN: true }), fc.double({ min: 1e-6, max: 100, noNaN: true }))
    .chain(([a, s]) => sizing(a, s).map((z) => ({ name, arrivalRate: a / s, serviceTime: s, sizing: z })))
    .filter((w) => {
      const a = (w.arrivalRate as number) * (w.serviceTime as number);
      const z = w.sizing as Json;
      if (nearWhole(a)) return false;
      if (typeof z.utilization === "number" && nearWhole(a / z.utilization)) return false;
      return typeof z.servers !== "number" || a / z.servers <= 1 - 1e-9;
    });

const unique = (max: number, min = 0): fc.Arbitrary<string[]> =>
  fc.uniqueArray(fc.constantFrom(...NAME_WORDS), { minLength: min, maxLength: max, selector: (w) => w.toLowerCase() });

/** An amount in whole cents, as money is typed. */
const money = (min: number, max: number): fc.Arbitrary<number> =>
  fc.integer({ min: min * 100, max: max * 100 }).map((c) => c / 100);

const option = (name: string): fc.Arbitrary<Json> =>
  fc
    .record({
      capex: fc.oneof(fc.constant(0), money(0, 2e6)),
      labels: unique(4),
      amounts: fc.array(money(-5e4, 1e6), { minLength: 4, maxLength: 4 }),
      escalations: fc.array(fc.oneof(fc.constant(0), fc.double({ min: -0.2, max: 0.3, noNaN: true })), {
        minLength: 4,
        maxLength: 4,
      }),
      oneOffLabels: unique(2),
      oneOffs: fc.array(fc.tuple(money(-1e5, 1e6), fc.nat({ max: 7 })), {
        minLength: 2,
        maxLength: 2,
      }),
      residualValue: fc.oneof(fc.constant(0), money(0, 1e6)),
      workloads: unique(3).chain((names) => fc.tuple(...names.map(workload))),
      costPerServer: money(0, 5000),
      costPerServerPerYear: money(0, 5000),
    })
    .map((o) => ({
      name,
      capex: o.capex,
      opex: o.labels.map((label, k) => ({ label, perYear: o.amounts[k], escalation: o.escalations[k] })),
      oneOff: o.oneOffLabels.map((label, k) => ({ label, amount: o.oneOffs[k][0], year: o.oneOffs[k][1] })),
      residualValue: o.residualValue,
      workloads: o.workloads,
      ...(o.workloads.length > 0
        ? { costPerServer: o.costPerServer, costPerServerPerYear: o.costPerServerPerYear }
        : {}),
    }));

const generatedCase: fc.Arbitrary<Json> = fc
  .record({
    names: unique(4, 2),
    years: fc.integer({ min: 1, max: 8 }),
    discountRate: fc.double({ min: -0.05, max: 0.3, noNaN: true }),
    currency: fc.constantFrom("£", "$", "CHF"),
    utilizationLimit: fc.double({ min: 0.5, max: 1, noNaN: true }),
    load: fc.tuple(fc.double({ min: 0.3, max: 1, noNaN: true }), fc.double({ min: 1, max: 1.6, noNaN: true })),
    rates: fc.tuple(fc.double({ min: -0.05, max: 0.1, noNaN: true }), fc.double({ min: 0.1, max: 0.4, noNaN: true })),
  })
  .chain((c) =>
    fc.tuple(...c.names.map(option)).map((options) => ({
      title: "Generated",
      years: c.years,
      discountRate: c.discountRate,
      currency: c.currency,
      utilizationLimit: c.utilizationLimit,
      sensitivity: {
        load: { low: c.load[0], high: c.load[1] },
        discountRate: { low: c.rates[0], high: c.rates[1] },
        capex: { low: 0.5, high: 1.5 },
      },
      // One-off years within the case's years.
      options: options.map((o) => ({
        ...o,
        oneOff: (o.oneOff as { year: number }[]).map((x) => ({ ...x, year: x.year % c.years })),
      })),
    })),
  );

/** The case of the issue: an opex line named like the per-server row, in a case with workloads. */
const COLLISION = {
  title: "Label collision",
  years: 3,
  discountRate: 0.1,
  options: [
    {
      name: "A",
      workloads: [{ name: "IO", arrivalRate: 70000, serviceTime: 0.000081, sizing: { utilization: 0.7 } }],
      costPerServer: 2000,
      costPerServerPerYear: 500,
      opex: [{ label: "Cost per server", perYear: 1500 }],
    },
    { name: "B", capex: 16000, opex: [{ label: "Cost per server", perYear: 3000 }] },
  ],
};

/** Every number and formula text the sheet shows, keyed "row,col" (0-based), from the plan. */
function plannedCells(plan: WorkbookPlan): Map<string, number | string> {
  const out = new Map<string, number | string>();
  const sheet = plan.sheets[0];
  for (const f of sheet.noteFormulas ?? []) out.set(`${f.note},0`, sheet.notes[f.note]);
  for (const t of sheet.tables) {
    const at = t.at as { row: number; col: number };
    t.rows.forEach((row, i) =>
      row.forEach((cell, j) => {
        const v = cellResult(cell);
        const isFormula = cell !== null && typeof cell === "object" && "formula" in cell;
        if (typeof v === "number" || (isFormula && typeof v === "string"))
          out.set(`${at.row + 1 + i},${at.col + j}`, v);
      }),
    );
  }
  return out;
}

/** Problems found comparing Calc's grid with the planned cells (empty when every cell matches). */
function compare(grid: Map<string, number | string>, plan: CasePlan, where: string): string[] {
  const problems: string[] = [];
  // Money cells: a difference of two equal NPVs is ~1e-10 here and exactly 0 in Calc (which, like
  // Excel, rounds a cancellation to zero), so money is also judged on the scale of the NPVs.
  const scale = Math.max(...plan.result.options.map((o) => Math.abs(o.npv)));
  const capacity = plan.plan.sheets[0].tables.find((t) => t.name.endsWith("Capacity"));
  const inCapacity = (r: number): boolean =>
    capacity !== undefined &&
    r > (capacity.at as { row: number }).row &&
    r <= (capacity.at as { row: number }).row + capacity.rows.length;
  for (const [key, want] of plannedCells(plan.plan)) {
    const [r, c] = key.split(",").map(Number);
    const got = grid.get(key);
    if (typeof want === "string") {
      if (got !== want) problems.push(`${where} R${r + 1}C${c + 1}: Calc ${JSON.stringify(got)}, case "${want}"`);
      continue;
    }
    const tolerance = 1e-9 * Math.abs(want) + (inCapacity(r) ? 0 : 1e-13 * scale);
    if (!(typeof got === "number" && Math.abs(got - want) <= tolerance))
      problems.push(`${where} R${r + 1}C${c + 1}: Calc ${JSON.stringify(got)}, case ${want}`);
  }
  return problems;
}

/** Sets a number cell of the first worksheet in an .xlsx (the edit a user makes in Calc). */
async function setNumber(bytes: Buffer, address: string, value: number): Promise<Buffer> {
  const zip = await JSZip.loadAsync(bytes);
  const name = "xl/worksheets/sheet1.xml";
  const xml = await (zip.file(name) as JSZip.JSZipObject).async("string");
  const re = new RegExp(`(<c r="${address}"[^>]*>)<v>[^<]*</v>(</c>)`);
  if (!re.test(xml)) throw new Error(`no number cell ${address}`);
  zip.file(name, xml.replace(re, `$1<v>${value}</v>$2`));
  return zip.generateAsync({ type: "nodebuffer" });
}

/** Erlang C grid: (c, a) pairs over the range the sheet uses natively, and beyond it. */
function erlangGrid(): { c: number; a: number }[] {
  const out: { c: number; a: number }[] = [];
  for (let a = 0.05; a <= 2000; a *= 1.35) {
    const c0 = Math.floor(a) + 1;
    const span = Math.ceil(3 * Math.sqrt(a)) + 10;
    for (const k of [0, 1, 2, Math.floor(span / 3), Math.floor(span / 2), span]) out.push({ c: c0 + k, a });
  }
  return out;
}

describeLo("the case sheet recalculated in LibreOffice", () => {
  let dir: string;
  const grids = new Map<string, Map<string, number | string>>();
  const generated: CasePlan[] = fc
    .sample(generatedCase, { seed: 20261125, numRuns: 200 })
    .map((json) => casePlanFromJson(json));
  const collision = casePlanFromJson(COLLISION);
  if (process.env.H21_DUMP) {
    const c = generated[Number(process.env.H21_DUMP)];
    console.log(JSON.stringify(c.input, null, 1));
    for (const t of c.plan.sheets[0].tables) console.log(t.name, JSON.stringify(t.at), JSON.stringify(t.rows));
  }
  const grid = erlangGrid();
  const whatIf: { name: string; json: Json; rows: [number, number][] }[] = [];

  beforeAll(async () => {
    if (!SOFFICE) throw new Error("soffice (LibreOffice) is not installed: .ci/run installs libreoffice-calc-nogui");
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "caplab-case-recalc-"));
    const files: string[] = [];
    const write = async (name: string, bytes: Buffer): Promise<void> => {
      const f = path.join(dir, `${name}.xlsx`);
      fs.writeFileSync(f, bytes);
      files.push(f);
    };
    await write("collision", await renderXlsx(withoutCachedValues(collision.plan)));
    for (const [k, c] of generated.entries()) await write(`gen${k}`, await renderXlsx(withoutCachedValues(c.plan)));
    // Erlang C through POISSON, as the sheet writes it (case-mmc.ts), one row per (c, a).
    const erlang: TablePlan = {
      name: "Erlang",
      columns: [
        { key: "c", header: "c" },
        { key: "a", header: "a" },
        { key: "C", header: "C" },
      ],
      rows: grid.map(({ c, a }, i) => [
        c,
        a,
        {
          formula: `POISSON(A${i + 2},B${i + 2},FALSE)/(POISSON(A${i + 2},B${i + 2},FALSE)+(1-B${i + 2}/A${i + 2})*POISSON(A${i + 2}-1,B${i + 2},TRUE))`,
          result: null,
        },
      ]),
      at: { row: 0, col: 0 },
    };
    await write(
      "erlang",
      await renderXlsx({
        title: "Erlang",
        sources: [],
        warnings: [],
        sheets: [{ name: "Business case", notes: [], tables: [erlang], charts: [], freezeHeader: false }],
      }),
    );
    // What-if: the files caplab case writes, with arrival rates raised 30 % in the file itself.
    const edits: { example: string; name: string; skip?: string }[] = [
      { example: "nfs-vs-fc-70k-iops", name: "whatif-nfs" },
      { example: "merging-helpdesks", name: "whatif-helpdesks", skip: "Site B" },
      { example: "merging-helpdesks", name: "whatif-siteb" },
    ];
    for (const e of edits) {
      const out = path.join(dir, `${e.example}.${e.name}.src.xlsx`);
      if (!fs.existsSync(out)) {
        const code = await run([path.join(EXAMPLES, `${e.example}.json`), "-o", out], {
          out: () => undefined,
          err: (t) => console.error(t),
        });
        if (code !== 0) throw new Error(`caplab case ${e.example} exited ${code}`);
      }
      const json = JSON.parse(fs.readFileSync(path.join(EXAMPLES, `${e.example}.json`), "utf8")) as Json;
      const built = casePlanFromJson(json);
      let bytes: Buffer = fs.readFileSync(out);
      const rows: [number, number][] = [];
      (json.options as { workloads?: Json[] }[]).forEach((o, i) =>
        (o.workloads ?? []).forEach((w, j) => {
          if (e.skip !== undefined && w.name === e.skip) return;
          w.arrivalRate = (w.arrivalRate as number) * 1.3;
          rows.push([i, j]);
        }),
      );
      for (const [i, j] of rows) {
        const wl = (json.options as { workloads: Json[] }[])[i].workloads[j];
        bytes = await setNumber(bytes, built.layout.workloads[i][j].rate, wl.arrivalRate as number);
      }
      whatIf.push({ name: e.name, json, rows });
      await write(e.name, bytes);
    }
    const outDir = path.join(dir, "recalculated");
    const t0 = Date.now();
    convert(SOFFICE, recalculatingProfile(dir), "xlsx", outDir, files);
    console.info(`LibreOffice recalculated ${files.length} files in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    for (const f of fs.readdirSync(outDir)) {
      const bytes = fs.readFileSync(path.join(outDir, f));
      grids.set(f.replace(/\.xlsx$/, ""), (await xlsxValues(bytes))[0]);
    }
  }, 300_000);

  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("an opex line named like a row title: Running cost adds the line's own row (not the per-server row)", () => {
    const costs = collision.plan.sheets[0].tables.find((t) => t.name === "Costs") as TablePlan;
    const labels = costs.rows.map((r) => r[0]);
    const title = "Cost per server per year (input)";
    // Both rows carry the same title: the per-server-per-year input, then the opex line.
    const perServerYear = labels.indexOf(title);
    const line = labels.lastIndexOf(title);
    expect(line).toBeGreaterThan(perServerYear);
    const excelRow = (i: number): number => (costs.at as { row: number }).row + 2 + i;
    const running = costs.rows[labels.indexOf("Running cost per year")];
    const servers = collision.layout.servers[0][0];
    expect(running[1]).toEqual({
      formula: `B${excelRow(line)}+${servers}*B${excelRow(perServerYear)}`,
      result: 1500 + 9 * 500,
    });
    expect(running[2]).toEqual({ formula: `C${excelRow(line)}`, result: 3000 });
    expect(compare(grids.get("collision") as Map<string, number | string>, collision, "collision")).toEqual([]);
  });

  it("200 generated cases with colliding labels: every cell Calc recalculates equals the case's value", () => {
    const kinds = new Set(
      generated.flatMap((c) => c.input.options.flatMap((o) => o.workloads.map((w) => w.sizing.kind))),
    );
    expect([...kinds].sort()).toEqual(["response", "servers", "serviceLevel", "utilization"]);
    // The pool does collide: some case has a line titled like a row of the sheet.
    expect(generated.some((c) => c.input.options.some((o) => o.opex.some((l) => l.label === "Cost per server")))).toBe(
      true,
    );
    const problems = generated.flatMap((c, k) =>
      compare(grids.get(`gen${k}`) as Map<string, number | string>, c, `case ${k}`),
    );
    expect(problems.slice(0, 20)).toEqual([]);
    expect(problems.length).toBe(0);
    const cells = generated.reduce((n, c) => n + plannedCells(c.plan).size, 0);
    expect(cells).toBeGreaterThan(200 * 20);
  });

  it(`native Erlang C (POISSON) agrees with the core to 1e-12 relative up to ${NATIVE_MAX_LOAD} erlangs`, () => {
    const rows = grids.get("erlang") as Map<string, number | string>;
    let worst = 0;
    let beyond = 0;
    grid.forEach(({ c, a }, i) => {
      const got = rows.get(`${i + 1},2`) as number;
      const want = erlangC(c, a);
      const rel = Math.abs(got - want) / want;
      if (a <= NATIVE_MAX_LOAD) worst = Math.max(worst, rel);
      else beyond = Math.max(beyond, Number.isFinite(rel) ? rel : Infinity);
    });
    expect(worst).toBeLessThan(1e-12);
    // Beyond the limit LibreOffice stays accurate (log-gamma path); Excel is not measured here,
    // which is why the sheet keeps CAPLAB.MMC_* there.
    console.info(
      `native Erlang C: worst relative error ${worst.toExponential(2)} to ${NATIVE_MAX_LOAD} erlangs, ${beyond.toExponential(2)} beyond`,
    );
  });

  it.each(["whatif-nfs", "whatif-helpdesks"])(
    "%s: +30 %% arrival rate in the caplab case file moves servers, response, wait and P(wait) to caplab case's figures",
    (name) => {
      const w = whatIf.find((x) => x.name === name) as (typeof whatIf)[number];
      const rows = grids.get(name) as Map<string, number | string>;
      const edited = casePlanFromJson(w.json);
      const before = buildCasePlan(
        parseCaseInput(
          JSON.parse(
            fs.readFileSync(
              path.join(EXAMPLES, name === "whatif-nfs" ? "nfs-vs-fc-70k-iops.json" : "merging-helpdesks.json"),
              "utf8",
            ),
          ),
        ),
      );
      let moved = 0;
      for (const [i, j] of w.rows) {
        const cells = edited.layout.workloads[i][j];
        const want = edited.result.options[i].workloads[j];
        const old = before.result.options[i].workloads[j];
        const read = (a1: string): number => {
          const { row, col } = parseA1(a1);
          return rows.get(`${row},${col}`) as number;
        };
        expect(read(cells.servers)).toBe(want.servers);
        for (const [a1, v] of [
          // Times are shown in the table's unit (µs for the NFS case): the case's value × timeScale.
          [cells.meanResponse, want.meanResponse * cells.timeScale],
          [cells.meanWait, want.meanWait * cells.timeScale],
          [cells.pWait, want.pWait],
          [cells.utilization, want.utilization],
        ] as const)
          expect(Math.abs(read(a1) - v)).toBeLessThanOrEqual(1e-6 * Math.abs(v));
        if (want.meanResponse !== old.meanResponse && want.pWait !== old.pWait) moved++;
        if (want.servers !== old.servers) moved++;
      }
      expect(moved).toBeGreaterThan(w.rows.length);
      // The net present costs follow the new servers too.
      edited.layout.npv.forEach((a1, i) => {
        const { row, col } = parseA1(a1);
        const want = edited.result.options[i].npv;
        expect(Math.abs((rows.get(`${row},${col}`) as number) - want)).toBeLessThanOrEqual(1e-9 * Math.abs(want));
      });
    },
  );

  it("an edit the fixed staff cannot carry says so beside the figures instead of showing a stale number", () => {
    const w = whatIf.find((x) => x.name === "whatif-siteb") as (typeof whatIf)[number];
    const rows = grids.get("whatif-siteb") as Map<string, number | string>;
    const built = casePlanFromJson(JSON.parse(fs.readFileSync(path.join(EXAMPLES, "merging-helpdesks.json"), "utf8")));
    const siteB = built.layout.workloads[0][1];
    expect(w.rows).toContainEqual([0, 1]);
    const at = (a1: string): number | string | undefined => {
      const { row, col } = parseA1(a1);
      return rows.get(`${row},${col}`);
    };
    expect(at(siteB.check)).toBe("Cannot carry its load.");
    expect(at(siteB.meanWait)).toBe("#N/A");
    expect(at(siteB.pWait)).toBe(1);
  });
});
