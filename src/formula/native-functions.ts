/**
 * The Excel built-in functions the shared evaluator computes itself, for "Prepare for sharing":
 * those a planner's sheet typically wraps Capacity Lab's functions in. Each follows Microsoft's
 * function reference for the cases a planning sheet meets; anything else (INDEX of a whole row,
 * implicit intersection) is {@link UnsupportedFormula}, so the caller can take Excel's own value.
 */
import { FunctionSpec } from "./evaluate";
import {
  errorValue,
  ErrorValue,
  finite,
  isErrorValue,
  isMatrix,
  Scalar,
  toNumber,
  UnsupportedFormula,
  Value,
} from "./values";

function single(v: Value | undefined): Scalar {
  if (v === undefined) return null;
  if (!isMatrix(v)) return v;
  if (v.length === 1 && v[0].length === 1) return v[0][0];
  throw new UnsupportedFormula("a range where one value is needed (implicit intersection)");
}

/** A one-value argument as a number (Excel's coercion), or its error. */
function num(v: Value | undefined): number | ErrorValue {
  return toNumber(single(v));
}

/**
 * The numbers of a list of arguments as SUM, MIN, MAX, AVERAGE and NPV see them, or the #VALUE! of
 * the first that is not one. Microsoft's SUM, AVERAGE, MIN and MAX function pages: a value typed
 * directly as an argument is converted (numeric text, TRUE/FALSE) and text that cannot be translated
 * into a number is an error; in a referenced range or an array only numbers count (text, logical
 * values and empty cells are ignored). A reference here is always a 2-D array, even to one cell.
 */
function numbers(values: Value[]): number[] | ErrorValue {
  const out: number[] = [];
  for (const v of values) {
    if (isMatrix(v)) {
      for (const row of v) for (const c of row) if (typeof c === "number") out.push(c);
    } else {
      const n = num(v);
      if (isErrorValue(n)) return n;
      out.push(n);
    }
  }
  return out;
}

/** `f` of the numbers of `values`, or the error `numbers` found. */
const ofNumbers =
  (f: (xs: number[]) => Scalar) =>
  (values: Value[]): Value => {
    const xs = numbers(values);
    return isErrorValue(xs) ? xs : f(xs);
  };

function roundTo(x: number, digits: number, mode: "round" | "up" | "down"): number {
  const f = Math.pow(10, digits);
  const a = Math.abs(x) * f;
  // Excel rounds the decimal it shows (15 significant digits): 2.675 → 2.68, not 2.67.
  const shown = Number(a.toPrecision(15));
  const r = mode === "round" ? Math.round(shown) : mode === "up" ? Math.ceil(shown) : Math.floor(shown);
  return (Math.sign(x) * r) / f;
}

/** A function of one-number arguments: text that is not a number gives its #VALUE!. */
function numeric(f: (...xs: number[]) => Scalar): (values: Value[]) => Value {
  return (values) => {
    const xs: number[] = [];
    for (const v of values) {
      const x = num(v);
      if (isErrorValue(x)) return x;
      xs.push(x);
    }
    return f(...xs);
  };
}

/** Smallest / largest of a list without spreading it into arguments (ranges can hold a million cells). */
function extreme(xs: number[], pick: (a: number, b: number) => number): number {
  return xs.length === 0 ? 0 : xs.reduce((a, b) => pick(a, b));
}

/**
 * INDEX(array, row_num, [column_num]) on the values (Microsoft, "INDEX function"); `argCount` tells a
 * missing column from a blank one. With one number on a one-row array it picks the column ("If array
 * contains only one row or column, the corresponding row_num or column_num argument is optional").
 * A whole row or column (a 0, or one number on a table) is an array Excel spills: not computed here.
 */
function indexOf(values: Value[], argCount: number): Value {
  const [arr, rv, cv] = values;
  const table = isMatrix(arr) ? arr : [[arr]];
  const first = argCount > 1 ? num(rv) : 1;
  const second = argCount > 2 ? num(cv) : 1;
  if (isErrorValue(first)) return first;
  if (isErrorValue(second)) return second;
  const oneRow = table.length === 1;
  if (argCount <= 2 && !oneRow && (table[0]?.length ?? 0) > 1) {
    throw new UnsupportedFormula("INDEX of a table with a row number only (a whole row)");
  }
  const [r, c] = argCount <= 2 && oneRow ? [1, first] : [first, second];
  if (r < 1 || c < 1) throw new UnsupportedFormula("INDEX with a row or column of 0 (a whole row or column)");
  const row = table[Math.trunc(r) - 1];
  return row === undefined || row[Math.trunc(c) - 1] === undefined
    ? errorValue("#REF!", "INDEX: the row or column is outside the range")
    : row[Math.trunc(c) - 1];
}

const round = (mode: "round" | "up" | "down") => numeric((x, d = 0) => roundTo(x, Math.trunc(d), mode));

const NATIVE: Record<string, (values: Value[], argCount: number) => Value> = {
  SUM: ofNumbers((xs) => finite(xs.reduce((s, x) => s + x, 0))),
  MIN: ofNumbers((xs) => extreme(xs, Math.min)),
  MAX: ofNumbers((xs) => extreme(xs, Math.max)),
  AVERAGE: ofNumbers((xs) =>
    xs.length === 0 ? errorValue("#DIV/0!", "AVERAGE of no numbers") : xs.reduce((s, x) => s + x, 0) / xs.length,
  ),
  ABS: numeric((x) => Math.abs(x)),
  SQRT: numeric((x) => (x < 0 ? errorValue("#NUM!", "SQRT of a negative number") : Math.sqrt(x))),
  // The case sheet's sizing rounds to 12 significant digits with ROUND(x,11-INT(LOG10(ABS(x)+1E-300))).
  LOG10: numeric((x) => (x <= 0 ? errorValue("#NUM!", "LOG10 of a number ≤ 0") : Math.log10(x))),
  INT: numeric((x) => Math.floor(x)),
  ROUND: round("round"),
  ROUNDUP: round("up"),
  ROUNDDOWN: round("down"),
  NPV: (values) => {
    const [rate, ...flows] = values;
    const r = num(rate);
    if (isErrorValue(r)) return r;
    // Microsoft's NPV page says text typed as a cash flow is ignored, but Excel returns #VALUE! for
    // it as SUM does (=NPV(-0.9,1,2,"X",3,4) is an error, =NPV(-0.9,1,{2,"X",3},4) is not: MrExcel
    // forum, "Extracting multiple numbers from string", page 6).
    return ofNumbers((xs) => finite(xs.reduce((s, cf, i) => s + cf / Math.pow(1 + r, i + 1), 0)))(flows);
  },
};

/** IF's test as a number (non-zero is true), or its error. */
const ifTest = (v: Value): number | ErrorValue => num(v);

/**
 * IF(test, [then], [else]): evaluates the test, then only the branch it takes; without an else
 * branch a false test gives FALSE. An error test is the result.
 */
const IF: FunctionSpec = {
  errors: "none",
  next: (values, argCount) => {
    if (values.length === 0) return 0;
    if (values.length > 1) return -1;
    const t = ifTest(values[0]);
    if (isErrorValue(t)) return -1;
    if (t !== 0) return 1;
    return argCount > 2 ? 2 : -1;
  },
  call: (values) => {
    const t = ifTest(values[0]);
    if (isErrorValue(t)) return t;
    return values.length > 1 ? values[1] : false;
  },
};

/**
 * INDEX returns one element of its array: an error elsewhere in the array is not its value
 * (Microsoft, "INDEX function"), so only an error given as an argument itself is the result.
 */
const INDEX: FunctionSpec = { errors: "scalar", call: indexOf };

/** The names of the native functions evaluated here. */
export const NATIVE_FUNCTION_NAMES: readonly string[] = ["IF", "INDEX", ...Object.keys(NATIVE)];

/**
 * A native function by upper-case name, or undefined. Excel computes none of them with an error
 * argument, even one inside a range (SUM over a range holding #N/A is #N/A), IF and INDEX apart.
 */
export function nativeFunction(name: string): FunctionSpec | undefined {
  if (name === "IF") return IF;
  if (name === "INDEX") return INDEX;
  const f = Object.prototype.hasOwnProperty.call(NATIVE, name) ? NATIVE[name] : undefined;
  return f && { errors: "deep", call: f };
}
