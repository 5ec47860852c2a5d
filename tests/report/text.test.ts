/** The text renderer of a plan table (what `caplab lab` prints). */
import { formatTextTable } from "../../src/report/text";

describe("formatTextTable", () => {
  const table = {
    name: "T",
    at: { row: 0, col: 0 },
    columns: [
      { key: "name", header: "name" },
      { key: "step", header: "step", numFmt: "0" },
      { key: "iops", header: "iops", numFmt: "#,##0.0" },
      { key: "cpu", header: "cpu", numFmt: "0.0%" },
      { key: "host", header: "host" },
    ],
    rows: [
      ["a", 1, 1234.56, 0.125, "vm"],
      ["longer name", 2, 5, { formula: "A1", result: 0.5 }, "vm"],
    ],
  };

  test("aligns text left and numbers right with the number formats; constant columns listed once", () => {
    expect(formatTextTable(table, 200)).toBe(
      [
        "Same in every row: host: vm",
        "",
        "step  name            iops    cpu",
        "   1  a            1,234.6  12.5%",
        "   2  longer name      5.0  50.0%",
        "",
      ].join("\n"),
    );
  });

  test("a cell with a format of its own shows in it (a time in its row's unit)", () => {
    const own = { ...table, cellFormats: [{ row: 1, col: 2, numFmt: '0.00" ms"' }] };
    expect(formatTextTable(own, 200).split("\n")[4]).toBe("   2  longer name  5.00 ms  50.0%");
  });

  test("keeps constant columns when asked", () => {
    expect(formatTextTable(table, 200, true).split("\n")[0]).toBe("step  name            iops    cpu  host");
  });

  test("splits wide tables into blocks that repeat the step column", () => {
    expect(formatTextTable(table, 22)).toBe(
      [
        "Same in every row:",
        "  host: vm",
        "",
        "step  name",
        "   1  a",
        "   2  longer name",
        "",
        "step     iops    cpu",
        "   1  1,234.6  12.5%",
        "   2      5.0  50.0%",
        "",
      ].join("\n"),
    );
  });
});
