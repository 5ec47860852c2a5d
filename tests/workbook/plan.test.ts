/**
 * The plan's geometry: the placement rule, the A1 reader and writer, the layout by table name and
 * column key. Expected values are written out by hand from Excel's A1 notation.
 */
import {
  cellA1,
  columnLetter,
  columnOfLetters,
  parseCell,
  parseReference,
  quoteSheet,
  rangeA1,
  rowBelow,
  splitSheet,
  tableCellA1,
  tableColumnA1,
  TablePlan,
  workbookLayout,
} from "../../src/workbook/plan";

describe("placement", () => {
  test("one blank row below a block; nothing below an empty one", () => {
    expect(rowBelow(0, 3)).toBe(4);
    expect(rowBelow(4, 1)).toBe(6);
    expect(rowBelow(0, 0)).toBe(0);
  });
});

describe("A1", () => {
  test("column letters both ways, at the 26/27 and 702/703 boundaries and Excel's last column", () => {
    const cases: [number, string][] = [
      [0, "A"],
      [25, "Z"],
      [26, "AA"],
      [701, "ZZ"],
      [702, "AAA"],
      [16383, "XFD"],
    ];
    for (const [col, letters] of cases) {
      expect(columnLetter(col)).toBe(letters);
      expect(columnOfLetters(letters)).toBe(col);
      expect(columnOfLetters(letters.toLowerCase())).toBe(col);
    }
  });

  test("references: anchors, ranges, quoted and bare sheet names", () => {
    expect(parseReference("B2")).toEqual({
      sheet: undefined,
      start: { row: 1, col: 1, rowAbsolute: false, colAbsolute: false },
      end: { row: 1, col: 1, rowAbsolute: false, colAbsolute: false },
      single: true,
    });
    const r = parseReference("'It''s (2)'!$A3:B$10");
    expect(r?.sheet).toBe("It's (2)");
    expect(r?.start).toEqual({ row: 2, col: 0, rowAbsolute: false, colAbsolute: true });
    expect(r?.end).toEqual({ row: 9, col: 1, rowAbsolute: true, colAbsolute: false });
    expect(r?.single).toBe(false);
    expect(parseReference("Model!H6")?.sheet).toBe("Model");
    expect(parseReference("Modèle!H6")?.sheet).toBe("Modèle");
  });

  test("not A1 cell references: whole columns and rows, names, tables, bad sheet names, past Excel's edge", () => {
    for (const text of [
      "A:A",
      "1:1",
      "Steps[x]",
      "rate",
      "A1:B2:C3",
      "'a[b'!A1",
      "My sheet!A1",
      "XFE1",
      "A1048577",
      "A0",
      "",
    ])
      expect(parseReference(text)).toBeNull();
    expect(parseReference("XFD1048576")?.start).toMatchObject({ row: 1048575, col: 16383 });
  });

  test("a cell: its position, or an error naming the text", () => {
    expect(parseCell("$C$4")).toEqual({ row: 3, col: 2 });
    expect(() => parseCell("A1:B2")).toThrow("A1:B2: not a cell address");
    expect(() => parseCell("Model!A1")).toThrow("Model!A1");
  });

  test("writing: quoted sheet names, anchors, ranges; what is written reads back", () => {
    expect(quoteSheet("It's")).toBe("'It''s'");
    expect(splitSheet("'It''s'!$B$2")).toEqual({ sheet: "It's", range: "$B$2" });
    expect(cellA1({ row: 5, col: 7 }, { absolute: true, sheet: "Model (2)" })).toBe("'Model (2)'!$H$6");
    expect(rangeA1({ row: 1, col: 0 }, { row: 9, col: 27 }, { absolute: true })).toBe("$A$2:$AB$10");
    const back = parseReference(cellA1({ row: 41, col: 730 }, { sheet: "a'b" }));
    expect([back?.sheet, back?.start.row, back?.start.col]).toEqual(["a'b", 41, 730]);
  });
});

describe("layout", () => {
  const table: TablePlan = {
    name: "Model",
    at: { row: 4, col: 2 },
    columns: [
      { key: "step", header: "step" },
      { key: "d_ms", header: "D CPU-ms per IO" },
    ],
    rows: [
      ["s1", 0.1],
      ["s2", 0.2],
    ],
  };

  test("a cell and a column by key, from the table's position", () => {
    expect(tableCellA1(table, "d_ms", 0)).toBe("D6");
    expect(tableCellA1(table, "d_ms", 1, { absolute: true, sheet: "Model" })).toBe("'Model'!$D$7");
    expect(tableColumnA1(table, "step")).toBe("C6:C7");
    expect(tableColumnA1(table, "step", { header: true })).toBe("C5:C7");
    expect(() => tableCellA1(table, "header text", 0)).toThrow("table Model has no column header text");
  });

  test("workbookLayout: every table by name, its sheet, position and columns by key", () => {
    const layout = workbookLayout({
      title: "t",
      sources: [],
      warnings: [],
      sheets: [{ name: "Model", notes: [], tables: [table], charts: [], freezeHeader: true }],
    });
    expect(layout).toEqual({
      Model: {
        sheet: "Model",
        table: "Model",
        at: { row: 4, col: 2 },
        rows: 2,
        columns: { step: { header: "step", col: 2 }, d_ms: { header: "D CPU-ms per IO", col: 3 } },
      },
    });
  });
});
