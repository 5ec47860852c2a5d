/**
 * The rules `caplab calc` and "Prepare for sharing" share through src/formula: each formula is
 * evaluated by both callers' evaluators and must give Excel's value. Before the two were merged they
 * disagreed on the rows marked "was": the expected values come from Microsoft's documentation, not
 * from the code (sources in the comments).
 */
import { evaluateFormula } from "../../src/cli/formula";
import * as wrappers from "../../src/functions/functions";
import { FormulaEvaluator, isErrorValue, Scalar, Unsupported, Value } from "../../src/sharing/evaluate";

/** A sheet whose A1 is empty (a reference is a 1×1 range: [[value]]), B1 holds 2, C1 holds the text "x" and D1 #N/A. */
const CELLS: Record<string, Scalar> = { A1: null, B1: 2, C1: "x", D1: { error: "#N/A" } };
const sharing = (functions: Record<string, unknown> = {}) =>
  new FormulaEvaluator((_sheet, range) => [[CELLS[range] ?? null]], functions);

/** An error as its code, so both callers' values compare with `toEqual`. */
function plain(v: Value): unknown {
  const cell = (c: Scalar) => (isErrorValue(c) ? c.error : c);
  return Array.isArray(v) ? v.map((row) => row.map(cell)) : cell(v);
}

describe("both evaluators follow Excel", () => {
  it.each([
    // Microsoft, "Calculation operators and precedence in Excel": ="1"+"2" is 3, text converted
    // to a number where an operator expects one.
    ['"1"+"2"', 3],
    ['" 2 "*1', 2],
    ['"1e3"*1', 1000],
    ['"5%"+0', 0.05], // was #VALUE! in sharing
    ['"0x10"+1', "#VALUE!"], // was 17 in sharing (JavaScript's Number reads hexadecimal; Excel does not)
    ['"Infinity"*1', "#VALUE!"],
    ['""+1', "#VALUE!"],
    ["50%", 0.5],
    ["{1,2}%", [[0.01, 0.02]]],
    // Comparisons: types never equal, numbers < text < logical values (Microsoft, "Sort data in a
    // range or table"), text case-insensitive.
    ['"1"=1', false], // was TRUE in sharing
    ['"a">1', true], // was FALSE in sharing
    ['TRUE>"z"', true], // was FALSE in sharing
    ["FALSE<0", false],
    ['"A"="a"', true],
    ['"abc"<"ABD"', true],
    [
      "{1,2}>={2;1}",
      [
        [false, true],
        [true, true],
      ],
    ],
    // An error operand is the result, the left one first.
    ["#N/A+1/0", "#N/A"],
    ["1/0+#N/A", "#DIV/0!"],
    ['#N/A="x"', "#N/A"],
    ['#N/A&"x"', "#N/A"],
    ["0^0", "#NUM!"],
    ["0^-1", "#DIV/0!"],
    ["(-8)^(1/3)", "#NUM!"],
    ["1e300*1e300", "#NUM!"],
    ["{1,2,3}+{10,20}", [[11, 22, "#N/A"]]],
  ])("%s → %j", async (formula, expected) => {
    expect(plain(await evaluateFormula(formula))).toEqual(expected);
    expect(plain(sharing().evaluate(formula))).toEqual(expected);
  });

  it.each([
    ["a ragged array constant", "{1,2;3}", /array constant.*same number of values/], // was accepted by sharing
    ["a number beyond Excel's range", "1e400", /the number 1e400 is too large/], // was Infinity in sharing
    [
      "100,000 nested parentheses",
      "(".repeat(100_000) + "1" + ")".repeat(100_000),
      /nests parentheses or signs too deeply/,
    ],
  ])("refused alike: %s", async (_label, formula, message) => {
    await expect(evaluateFormula(formula)).rejects.toThrow(message);
    expect(() => sharing().evaluate(formula)).toThrow(Unsupported);
    expect(() => sharing().evaluate(formula)).toThrow(message);
  });
});

it("neither calls a worksheet function with an error inside a range argument (was called by caplab calc)", async () => {
  // Microsoft Learn, "Handle and return errors from your custom function": a custom function is
  // evaluated over a range holding an error only if its metadata sets allowErrorForDataTypeAny,
  // which generated metadata (ours) cannot. NPV_IT would otherwise say which cash flow is wrong.
  expect(await evaluateFormula("NPV_IT(0.1,{1,#N/A,3})")).toEqual({ error: "#N/A", message: "#N/A" });
  expect(sharing(wrappers).evaluate("CAPLAB.NPV_IT(0.1,{1,#N/A,3})")).toEqual({ error: "#N/A", message: "#N/A" });
});

describe("rules only the sharing evaluator meets (references, native and injected functions)", () => {
  it.each([
    // An empty cell compares as "", 0 or FALSE, whichever the other side is.
    ['A1=""', [[true]]], // was FALSE
    ["A1=0", [[true]]],
    ["A1=FALSE", [[true]]],
    ["C1>B1", [[true]]],
    ["A1+1", [[1]]],
    ["ABS(C1)", "#VALUE!"], // was NaN (a number that is not one)
    ['SQRT("8+1")', "#VALUE!"], // was NaN; Microsoft, "Calculation operators and precedence in Excel"
    ['SQRT("9")', 3],
    ["SUM(B1,D1)", "#N/A"],
    ["IF(B1>1,B1,C1)", [[2]]],
    ["IF(D1,1/0,2)", "#N/A"],
    ["IF(0,1/0)", false],
  ])("%s → %j", (formula, expected) => {
    expect(plain(sharing().evaluate(formula))).toEqual(expected);
  });

  it("does not call a function with an error argument, and stops at the first error in argument order", () => {
    const calls: unknown[][] = [];
    const f = (...args: unknown[]) => {
      calls.push(args);
      return 1;
    };
    // The second argument is a function the evaluator does not have: it is never reached (was Unsupported).
    expect(plain(sharing({ F: f }).evaluate("CAPLAB.F(1/0, NOPE())"))).toBe("#DIV/0!");
    expect(plain(sharing({ F: f }).evaluate("CAPLAB.F(B1, D1)"))).toBe("#N/A");
    expect(calls).toEqual([]);
  });

  it("shows a non-finite result as #NUM! and a thrown exception as #VALUE!, as Excel does for a custom function", () => {
    const ev = sharing({
      INF: () => Infinity,
      NAN: () => [[1, NaN]],
      BAD: () => {
        throw new TypeError("oops");
      },
    });
    expect(plain(ev.evaluate("CAPLAB.INF()"))).toBe("#NUM!"); // was Infinity
    expect(plain(ev.evaluate("CAPLAB.NAN()"))).toEqual([[1, "#NUM!"]]); // was NaN
    expect(ev.evaluate("CAPLAB.BAD()")).toEqual({ error: "#VALUE!", message: "oops" });
  });
});

describe("native functions over ranges (sharing evaluator)", () => {
  /** Rows 1–3, columns A–C: A2 holds #N/A, C1 text, B2 TRUE, C3 the text "4", B3 empty. */
  const SHEET: Scalar[][] = [
    [10, 20, "x"],
    [{ error: "#N/A" }, true, 5],
    [30, null, "4"],
  ];
  const cell = (ref: string) => ({ col: ref.charCodeAt(0) - 65, row: Number(ref.slice(1)) - 1 });
  const grid = new FormulaEvaluator((_sheet, range) => {
    const [from, to = from] = range.split(":").map(cell);
    return SHEET.slice(from.row, to.row + 1).map((r) => r.slice(from.col, to.col + 1));
  }, {});

  it.each([
    // Microsoft, "INDEX function": INDEX returns the value of one element of the array; an error
    // elsewhere in the array is not its value.
    ["INDEX(A1:A3,1)", 10], // was #N/A (an error anywhere in the range was the result)
    ["INDEX(A1:A3,3)", 30], // was #N/A
    ["INDEX(A1:A3,2)", "#N/A"], // the element returned is the error
    ["INDEX(A1:A3,1/0)", "#DIV/0!"],
    ["INDEX(A1:A3,4)", "#REF!"], // "Row_num and column_num must point to a cell within array"
    // Microsoft, "INDEX function": "If array contains only one row or column, the corresponding
    // row_num or column_num argument is optional": on one row, the one number given picks the column.
    ["INDEX(A1:C1,2)", 20], // was #REF!
    ["INDEX(A1:C1,1,2)", 20],
    ["INDEX(A1:C1,4)", "#REF!"],
    ["INDEX(A1:A3,3,1)", 30],
    // Microsoft, SUM, AVERAGE, MIN and MAX function pages: a number, logical value or numeric text
    // typed directly as an argument is counted, and text that cannot be translated into a number is
    // an error; in a referenced range or an array only numbers count (text, logical values and
    // empty cells are ignored).
    ['SUM("abc")', "#VALUE!"], // was 0
    ['SUM(1,"abc",2)', "#VALUE!"], // was 3
    ['SUM("3")', 3],
    ["SUM(TRUE,1)", 2],
    ["SUM(C1:C3)", 5], // "x" and "4" in the range ignored
    ["SUM(B1:B3)", 20], // TRUE and the empty cell in the range ignored
    ['SUM({1,"abc",2})', 3], // text in an array ignored
    ["SUM(C1)", 0], // a reference to one text cell: ignored
    ['SUM(A1:C1,"3")', 33],
    ['MIN("abc",1)', "#VALUE!"], // was 1
    ['MAX(1,"abc")', "#VALUE!"], // was 1
    ['MAX(C1:C3,"6")', 6],
    ['AVERAGE("abc",1)', "#VALUE!"], // was 1
    ["AVERAGE(B1:C1)", 20],
    ['AVERAGE(C1:C3,"1")', 3],
    // NPV: Excel returns #VALUE! for text typed as a cash flow (Microsoft's NPV page says such text
    // is ignored; the MrExcel thread "Extracting multiple numbers from string" p. 6 reports that
    // =NPV(-0.9,1,2,"X",3,4) is an error while =NPV(-0.9,1,{2,"X",3},4) is not).
    ['NPV(0.1,"abc")', "#VALUE!"], // was 0
    ['NPV(0.1,"110")', 100],
    ['NPV(0.1,{110,"x"})', 100],
  ])("%s → %j", (formula, expected) => {
    const v = grid.evaluate(formula);
    expect(plain(v)).toEqual(typeof expected === "number" ? expect.closeTo(expected, 12) : expected);
  });

  it("refuses INDEX of a whole row of a table (Excel returns the row as an array; was its first cell)", () => {
    // Microsoft, "INDEX function": "If array has more than one row and more than one column, and
    // only row_num or column_num is used, INDEX returns an array of the entire row or column".
    expect(() => grid.evaluate("INDEX(A1:C3,3)")).toThrow(/INDEX.*whole row/);
    expect(() => grid.evaluate("INDEX({1,2;3,4},2)")).toThrow(Unsupported);
  });
});
