/**
 * The Excel functions the business-case sheet uses beyond arithmetic (SUMPRODUCT, COUNT, COUNTIF,
 * MATCH, AND, OR, ISNUMBER, IFERROR, NA, POISSON, IRR, TRIM, TEXT, EXP), each checked against values
 * nobody here computed: the examples on Microsoft's function pages, and LibreOffice Calc 7.4.7.2
 * (formulas written into an .xlsx with ExcelJS, recalculated on load and exported with
 * `soffice --headless --convert-to csv`; numbers as Calc printed them, 15 significant digits).
 * Where Excel and LibreOffice differ (LibreOffice has no logical type: TRUE is the number 1 there),
 * the expected value is Microsoft's and the comment says so.
 */
import { FormulaEvaluator, isErrorValue, Scalar, Unsupported, Value } from "../../src/sharing/evaluate";
import { Reference } from "../../src/workbook/plan";

/**
 * The sheet of the LibreOffice run: A1:A6 the cash flows of Microsoft's IRR example, B1:B4 the
 * values of Microsoft's MATCH example, D1:D5 1, "x", TRUE, empty, the text "3"; E1 #N/A.
 * Column H holds Microsoft's COUNT example (H2:H8: "Sales", 8 Dec 2008, empty, 19, 22.24, TRUE,
 * #DIV/0!) and column J its COUNTIF example (J2:J5 apples, oranges, peaches, apples).
 */
const CELLS: Record<string, Scalar> = {
  A1: -70000,
  A2: 12000,
  A3: 15000,
  A4: 18000,
  A5: 21000,
  A6: 26000,
  B1: 25,
  B2: 38,
  B3: 40,
  B4: 41,
  D1: 1,
  D2: "x",
  D3: true,
  D5: "3",
  E1: { error: "#N/A" },
  H2: "Sales",
  H3: 39790,
  H5: 19,
  H6: 22.24,
  H7: true,
  H8: { error: "#DIV/0!" },
  J2: "apples",
  J3: "oranges",
  J4: "peaches",
  J5: "apples",
};

const letters = "ABCDEFGHIJ";
const sheet = () =>
  new FormulaEvaluator((_sheet, _range, ref: Reference) => {
    const out: Scalar[][] = [];
    for (let r = ref.start.row; r <= ref.end.row; r++) {
      const row: Scalar[] = [];
      for (let c = ref.start.col; c <= ref.end.col; c++) row.push(CELLS[`${letters[c]}${r + 1}`] ?? null);
      out.push(row);
    }
    return out;
  }, {});

/** An error as its code, a 1×1 array as its value. */
function plain(v: Value): unknown {
  const cell = (c: Scalar) => (isErrorValue(c) ? c.error : c);
  if (Array.isArray(v)) return v.length === 1 && v[0].length === 1 ? cell(v[0][0]) : v.map((row) => row.map(cell));
  return cell(v);
}

describe("LibreOffice Calc's values (same in Excel)", () => {
  it.each([
    ["MATCH(39,B1:B4,1)", 2],
    ["MATCH(41,B1:B4,0)", 4],
    ["MATCH(40,B1:B4)", 3],
    ["MATCH(24,B1:B4,1)", "#N/A"],
    ['MATCH("X",D1:D5,0)', 2],
    ["MATCH(3,D1:D5,0)", "#N/A"],
    ["MATCH(39,{41,40,38,25},-1)", 2],
    ['COUNT(1,"2",TRUE,"x")', 3],
    ["COUNT(E1,5)", 1],
    ['COUNTIF(D1:D5,"X")', 1],
    ["COUNTIF(B1:B4,40)", 1],
    ["SUMPRODUCT({1,2;3,4},{5,6;7,8})", 70],
    ["SUMPRODUCT({1,2},{1;2})", "#VALUE!"],
    ["SUMPRODUCT(--(B1:B4>30))", 3],
    ["SUMPRODUCT(B1:B4,{1;1;1;2})", 185],
    ["SUMPRODUCT((B1:B4>30)*B1:B4)", 119],
    ["OR(D2)", "#VALUE!"],
    ["OR(0,FALSE)", false],
    ["AND(E1,TRUE)", "#N/A"],
    ["AND(D1:D5,0)", false],
    ["ISNUMBER(D1)", true],
    ["ISNUMBER(D5)", false],
    ["ISNUMBER(E1)", false],
    ['IFERROR(E1,"err")', "err"],
    ["IFERROR(1/0,5)", 5],
    ["IFERROR(7,5)", 7],
    ["SUMPRODUCT(IFERROR(1/{1,0,2},0))", 1.5],
    ["POISSON(-1,5,TRUE)", "#NUM!"], // Calc: Err:502 (invalid argument), Excel's page: #NUM!
    ["POISSON(2,-1,FALSE)", "#NUM!"],
    ['TRIM("  First   Quarter Earnings  ")', "First Quarter Earnings"],
    ["TRIM(12)", "12"],
    ['TEXT(1234.5,"#,##0")', "1,235"],
    ['TEXT(0.125,"0%")', "13%"],
    ['TEXT(2.675,"0.00")', "2.68"],
    ['TEXT(1234567.891,"#,##0.00")', "1,234,567.89"],
    ['TEXT(-1234.5,"#,##0")', "-1,235"],
    ['TEXT(12.25,"0.0")', "12.3"],
    ['TEXT(0.5,"0")', "1"],
    ['TEXT(0.8,"0%")', "80%"],
    ["SUMPRODUCT(ROUND({1.25,2.45},1))", 3.8],
  ])("%s → %j", (formula, expected) => {
    expect(plain(sheet().evaluate(formula))).toEqual(expected);
  });

  it.each([
    ["IRR(A1:A5)", -0.021244848273411],
    ["IRR(A1:A6)", 0.0866309480365316],
    ["IRR(A1:A3,-0.1)", -0.443506941334741],
    ["IRR(A1:A6,0.5)", 0.0866309480365315],
    ["POISSON(2,5,TRUE)", 0.124652019483081],
    ["POISSON(2,5,FALSE)", 0.0842243374885683],
    ["POISSON(2.9,5,FALSE)", 0.0842243374885683],
    ["POISSON(20,20,FALSE)", 0.0888353173920853],
    ["POISSON(30,20,TRUE)", 0.986525318720078],
    ["POISSON(120,100,FALSE)", 0.00556106488651301],
    ["POISSON(120,100,TRUE)", 0.977330670921648],
    ["SUMPRODUCT(POISSON({0,1,2},5,FALSE))", 0.124652019483081],
    ["EXP(1)", 2.71828182845905],
    ["SUMPRODUCT(EXP({0,1}))", 3.71828182845905],
  ])("%s ≈ %d (15 digits)", (formula, expected) => {
    const got = plain(sheet().evaluate(formula));
    expect(typeof got).toBe("number");
    expect(Math.abs((got as number) - expected)).toBeLessThanOrEqual(1e-13 * Math.abs(expected));
  });
});

describe("Microsoft's examples and rules where LibreOffice differs", () => {
  it.each([
    // Microsoft, "IRR function": IRR(A2:A4,-10%) is -44.4 %, IRR(A2:A6) -2.1 %, IRR(A2:A7) 8.7 %.
    ["ROUND(IRR(A1:A3,-0.1),3)", -0.444],
    ["ROUND(IRR(A1:A5),3)", -0.021],
    ["ROUND(IRR(A1:A6),3)", 0.087],
    // "Values must contain at least one positive value and one negative value" (Calc: Err:523).
    ["IRR({1,2})", "#NUM!"],
    // Microsoft, "POISSON function": POISSON(2,5,TRUE) 0.124652, POISSON(2,5,FALSE) 0.084224.
    ["ROUND(POISSON(2,5,TRUE),6)", 0.124652],
    ["ROUND(POISSON(2,5,FALSE),6)", 0.084224],
    // Only mean < 0 is #NUM! on Microsoft's page (Calc refuses a mean of 0): a mean of 0 puts all
    // the mass at 0 (e^0 · 0^0 / 0! = 1).
    ["POISSON(0,0,FALSE)", 1],
    ["POISSON(3,0,TRUE)", 1],
    // Microsoft, "COUNT function": COUNT(A2:A7) is 3, COUNT(A5:A7) 2, COUNT(A2:A7,2) 4 (TRUE in the
    // range is not counted; Calc counts it, 2 for COUNT(D1:D5)).
    ["COUNT(H2:H7)", 3],
    ["COUNT(H5:H7)", 2],
    ["COUNT(H2:H7,2)", 4],
    ["COUNT(D1:D5,E1)", 1],
    // Microsoft, "COUNTIF function": COUNTIF(A2:A5,"apples") is 2, COUNTIF(A2:A5,A4) 1; criteria
    // are case-insensitive.
    ['COUNTIF(J2:J5,"apples")', 2],
    ["COUNTIF(J2:J5,J4)", 1],
    ['COUNTIF(J2:J5,"APPLES")', 2],
    // "SUMPRODUCT treats non-numeric array entries as if they were zeros": TRUE in D3 counts 0
    // (Calc, where TRUE is 1: 2).
    ["SUMPRODUCT(D1:D5,D1:D5)", 1],
    // "IS functions": ISNUMBER of the logical value TRUE is FALSE (Calc: 2).
    ["SUMPRODUCT(ISNUMBER(D1:D5)*1)", 1],
    // "AND function": text and empty cells in a reference are ignored (D1 is 1, D3 TRUE).
    ["AND(D1:D5)", true],
    // Excel 365 computes a comparison over a range inside OR as an array (Calc: implicit
    // intersection, #VALUE!).
    ["OR(B1:B4>40)", true],
    // "MATCH function": with match_type 1 the values must be ascending; 0 finds the first equal.
    ["MATCH(40,{25,38,40,41},0)", 3],
    ["NA()", "#N/A"],
    ["ISNUMBER(NA())", false],
  ])("%s → %j", (formula, expected) => {
    expect(plain(sheet().evaluate(formula))).toEqual(expected);
  });
});

describe("unsupported rather than guessed", () => {
  it.each([
    ["TEXT with another format", 'TEXT(1,"0.0E+0")'],
    ["TEXT of a negative number shown as zero", 'TEXT(-0.001,"0.00")'],
    ["TEXT of text", 'TEXT("x","0")'],
    [
      "MATCH 1 over unsorted values (Microsoft's MATCH(40,B2:B5,-1) example is #N/A by its search)",
      "MATCH(40,B1:B4,-1)",
    ],
    ["MATCH with wildcards", 'MATCH("x*",D1:D5,0)'],
    ["COUNTIF with an operator", 'COUNTIF(B1:B4,">30")'],
    ["COUNTIF of a number over numeric text", "COUNTIF(D1:D5,3)"],
    ["AND of typed text", 'AND("TRUE",1)'],
  ])("%s", (_label, formula) => {
    expect(() => sheet().evaluate(formula)).toThrow(Unsupported);
  });
});
