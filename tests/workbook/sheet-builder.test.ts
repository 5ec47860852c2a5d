/**
 * SheetBuilder: where tables land (below the notes, one blank row between blocks), what they are
 * named and keyed, which columns survive, and which cells a row's formulas name. Expected rows
 * are worked out by hand from the rule: a block of h rows at row r leaves r + h + 1 free.
 */
import { ColumnarSpec, ColumnSpec, F, fmt, formula, num, series, SheetBuilder } from "../../src/workbook/sheet-builder";
import { BLANK_ROWS_BETWEEN, FormulaCell, tableCell } from "../../src/workbook/plan";

interface Step {
  iops: number;
  ms: number | null;
  note: string;
}

const STEPS: Step[] = [
  { iops: 100, ms: 1.5, note: "" },
  { iops: 200, ms: null, note: "" },
  { iops: 400, ms: 3, note: "" },
];

/** iops, ms, an all-empty note column, and a live product naming the first two in the same row. */
const SPECS: ColumnSpec<Step>[] = [
  { key: "iops", header: "IOPS", numFmt: F.iops, get: (s) => s.iops },
  { key: "ms", header: "Response (ms)", get: (s) => num(s.ms) },
  { key: "note", header: "Note", get: (s) => s.note },
  {
    key: "busy",
    header: "Busy (s/s)",
    get: (s, ref) => formula(`${ref("iops")}*${ref("ms")}/1000`, s.ms === null ? null : (s.iops * s.ms) / 1000),
  },
];

describe("SheetBuilder placement", () => {
  it("puts the first table one blank row below the notes, and at A1 when there are none", () => {
    const withNotes = new SheetBuilder("Steps", ["first note", "second note"]);
    expect(withNotes.table("T", SPECS, STEPS).at).toEqual({ row: 3, col: 0 });
    const bare = new SheetBuilder("Bare", []);
    expect(bare.table("T", SPECS, STEPS).at).toEqual({ row: 0, col: 0 });
    expect(BLANK_ROWS_BETWEEN).toBe(1);
  });

  it("stacks each table below the previous one's header and rows, one blank row between", () => {
    const b = new SheetBuilder("Steps", ["note"]);
    const first = b.table("First", SPECS, STEPS); // header row 2, rows 3–5
    const second = b.table("Second", SPECS, STEPS.slice(0, 1)); // blank row 6, header 7, row 8
    const empty = b.table("Empty", SPECS, []); // blank row 9, header 10
    const columnar = b.columnarTable(
      "Columnar",
      [{ key: "x", header: "x", data: () => ({ kind: "number", values: [1, 2], empty: [] }) }],
      2,
    );
    expect([first.at.row, second.at.row, empty.at.row, columnar.at.row]).toEqual([2, 7, 10, 12]);
    // Nothing overlaps, and every gap is exactly the one blank row.
    expect(second.at.row - (first.at.row + 1 + STEPS.length)).toBe(1);
  });

  it("places a columnar table's next neighbour by its length, not by its (absent) row arrays", () => {
    const b = new SheetBuilder("Sub", []);
    const big = b.columnarTable(
      "Big",
      [{ key: "x", header: "x", data: () => ({ kind: "number", values: new Float64Array(1000), empty: [] }) }],
      1000,
    );
    expect(big.rows).toEqual([]);
    expect(b.table("After", SPECS, STEPS).at.row).toBe(0 + 1 + 1000 + 1);
  });
});

describe("SheetBuilder tables", () => {
  it("names the table and keys its columns as given, dropping all-empty columns", () => {
    const t = new SheetBuilder("Steps", []).table("Steps", SPECS, STEPS);
    expect(t.name).toBe("Steps");
    expect(t.columns.map((c) => c.key)).toEqual(["iops", "ms", "busy"]);
    expect(t.columns.map((c) => c.header)).toEqual(["IOPS", "Response (ms)", "Busy (s/s)"]);
    expect(t.columns[0].numFmt).toBe(F.iops);
    expect(t.rows.map((r) => r.length)).toEqual([3, 3, 3]);
  });

  it("keeps an all-empty column marked keep", () => {
    const specs = SPECS.map((s) => (s.key === "note" ? { ...s, keep: true } : s));
    const t = new SheetBuilder("Steps", []).table("Steps", specs, STEPS);
    expect(t.columns.map((c) => c.key)).toEqual(["iops", "ms", "note", "busy"]);
  });

  it("gives a formula the A1 address of the named columns in its own row, after dropped columns", () => {
    // Notes take rows 0–1, the header row 3, so data rows 4–6 are spreadsheet rows 5–7; with the
    // note column dropped, busy is the third column and names A and B.
    const t = new SheetBuilder("Steps", ["a", "b"]).table("Steps", SPECS, STEPS);
    const busy = t.rows.map((r) => r[2]);
    expect(busy[0]).toEqual({ formula: "A5*B5/1000", result: 0.15 });
    expect(busy[1]).toBeNull(); // no response time: no formula, an empty cell
    expect((busy[2] as FormulaCell).formula).toBe("A7*B7/1000");
    expect((busy[2] as FormulaCell).result).toBeCloseTo(1.2, 12);
  });

  it("shifts formula addresses with a table's position on the sheet", () => {
    const b = new SheetBuilder("Steps", []);
    b.table("Above", SPECS, STEPS); // rows 0–3, blank 4
    const t = b.table("Below", SPECS, STEPS.slice(0, 1)); // header 5, row 6 = spreadsheet row 7
    expect(t.rows[0][2]).toEqual({ formula: "A7*B7/1000", result: 0.15 });
  });

  it("refuses a formula naming a column the table does not have", () => {
    const specs: ColumnSpec<Step>[] = [
      { key: "iops", header: "IOPS", get: (s) => s.iops },
      { key: "bad", header: "Bad", get: (s, ref) => formula(`${ref("nowhere")}*2`, s.iops * 2) },
    ];
    expect(() => new SheetBuilder("S", []).table("Odd", specs, STEPS)).toThrow(
      "internal: column nowhere not in table Odd",
    );
  });

  it("carries an array formula only when one is given", () => {
    const b = new SheetBuilder("S", []);
    expect(b.table("Plain", SPECS, STEPS)).not.toHaveProperty("arrayFormula");
    expect(b.table("Spill", SPECS, STEPS, "CAPLAB.DOE_FIT(A1:A3,B1:B3)").arrayFormula).toBe(
      "CAPLAB.DOE_FIT(A1:A3,B1:B3)",
    );
  });

  it("builds a columnar table column by column, dropping empty columns unless kept", () => {
    let calls = 0;
    const specs: ColumnarSpec[] = [
      { key: "x", header: "x", data: () => (calls++, { kind: "number", values: [1, 2, 3], empty: [] }) },
      { key: "gap", header: "gap", data: () => ({ kind: "number", values: [0, 0, 0], empty: [0, 1, 2] }) },
      { key: "label", header: "label", data: () => ({ kind: "text", codes: [0, 1, 0], texts: ["", "b"] }) },
      { key: "blank", header: "blank", keep: true, data: () => ({ kind: "text", codes: [0, 0, 0], texts: [""] }) },
    ];
    const t = new SheetBuilder("Sub", []).columnarTable("Sub", specs, 3);
    expect(calls).toBe(1);
    expect(t.columns.map((c) => c.key)).toEqual(["x", "label", "blank"]);
    expect(t.columnar?.length).toBe(3);
    expect([0, 1, 2].map((i) => tableCell(t, i, 0))).toEqual([1, 2, 3]);
    expect(tableCell(t, 1, 1)).toBe("b");
  });

  it("hands back the sheet with its notes, tables in order, charts and header freezing", () => {
    const b = new SheetBuilder("Steps", ["n"]);
    b.table("A", SPECS, STEPS);
    b.table("B", SPECS, STEPS);
    const sheet = b.sheet();
    expect(sheet.name).toBe("Steps");
    expect(sheet.notes).toEqual(["n"]);
    expect(sheet.tables.map((t) => t.name)).toEqual(["A", "B"]);
    expect(sheet.charts).toEqual([]);
    expect(sheet.freezeHeader).toBe(true);
    expect(b.sheet(false).freezeHeader).toBe(false);
  });
});

describe("sheet-builder cell helpers", () => {
  it("num and formula leave a missing or non-finite value as an empty cell", () => {
    expect([num(2), num(null), num(undefined), num(NaN), num(Infinity)]).toEqual([2, null, null, null, null]);
    expect(formula("A1*2", 4)).toEqual({ formula: "A1*2", result: 4 });
    expect(formula("A1*2", null)).toBeNull();
    expect(formula("A1/0", Infinity)).toBeNull();
  });

  it("fmt rounds to significant digits and says n/a for missing values", () => {
    expect(fmt(1234.5678)).toBe("1230");
    expect(fmt(0.000123456, 2)).toBe("0.00012");
    expect(fmt(null)).toBe("n/a");
    expect(fmt(NaN)).toBe("n/a");
  });

  it("series sorts its points by x", () => {
    expect(
      series(
        "s",
        [
          [3, 30],
          [1, 10],
          [2, 20],
        ],
        "points",
      ),
    ).toEqual({ name: "s", x: [1, 2, 3], y: [10, 20, 30], style: "points" });
  });
});

describe("SheetBuilder placement by keys (tables whose formulas refer across tables)", () => {
  it("places titled tables below the notes with a title row above each header, and beside another table", () => {
    // Notes in rows 0–1, row 2 blank, title row 3, header 4, rows 5–6; blank 7, title 8, header 9.
    const b = new SheetBuilder("Case", ["title", "conclusion"]);
    const costs = b.place("Costs", ["capex", "npv"], ["item", "option_1", "option_2"], { titled: true });
    const perYear = b.place("PerYear", ["y:0", "y:1", "y:2"], ["year", "option_1"], { titled: true });
    const cumulative = b.place("Cumulative", ["y:0", "y:1", "y:2"], ["year", "option_1"], {
      titled: true,
      beside: perYear,
    });
    const after = b.place("After", ["r"], ["x"], { titled: true });
    expect(costs.at).toEqual({ row: 4, col: 0 });
    expect(perYear.at).toEqual({ row: 9, col: 0 });
    // Beside: the same header row, one blank column after PerYear's two columns.
    expect(cumulative.at).toEqual({ row: 9, col: 3 });
    // Below the taller of the two (rows 10–12), one blank row, then a title row: header 15.
    expect(after.at).toEqual({ row: 15, col: 0 });
    expect(b.cell(costs, "npv", "option_2")).toBe("C7");
    expect(b.cell(costs, "header", "option_1", true)).toBe("$B$5");
    expect(b.span(perYear, ["y:0", "option_1"], ["y:2", "option_1"])).toBe("B11:B13");
    expect(b.span(costs, ["npv", "option_1"], ["npv", "option_1"])).toBe("B7");
  });

  it("stacks a keyed table and a table made in one step by the same rule", () => {
    const b = new SheetBuilder("Mixed", ["note"]);
    const keyed = b.place("Keyed", ["a", "b"], ["x"]); // header 2, rows 3–4
    const made = b.table("Made", SPECS, STEPS); // blank 5, header 6
    expect([keyed.at.row, made.at.row]).toEqual([2, 6]);
  });

  it("fills a placed table only with its own keys, once, and refuses a sheet with a table left unmade", () => {
    const b = new SheetBuilder("Case", []);
    const t = b.place("T", ["r1", "r2"], ["a", "b"]);
    expect(() => b.place("T", ["r"], ["a"])).toThrow(/placed twice/);
    expect(() => b.place("U", ["r", "r"], ["a"])).toThrow(/repeated key/);
    expect(() => b.cell(t, "r3", "a")).toThrow(/row r3 not in table T/);
    expect(() => b.cell(t, "r1", "c")).toThrow(/column c not in table T/);
    expect(() => b.sheet()).toThrow(/T placed but not made/);
    const columns = [
      { key: "a", header: "A" },
      { key: "b", header: "B" },
    ];
    expect(() =>
      b.fill(
        t,
        [columns[1], columns[0]],
        [
          [1, 2],
          [3, 4],
        ],
      ),
    ).toThrow(/columns of T differ/);
    expect(() => b.fill(t, columns, [[1, 2]])).toThrow(/rows of T differ/);
    const filled = b.fill(
      t,
      columns,
      [
        [1, { formula: b.cell(t, "r1", "a"), result: 1 }],
        [3, 4],
      ],
      { title: "Tee" },
    );
    expect(filled).toMatchObject({ name: "T", at: { row: 0, col: 0 }, title: "Tee" });
    expect(filled.rows[0][1]).toEqual({ formula: "A2", result: 1 });
    expect(() =>
      b.fill(t, columns, [
        [1, 2],
        [3, 4],
      ]),
    ).toThrow(/made twice/);
    expect(b.sheet().tables.map((x) => x.name)).toEqual(["T"]);
  });
});
