/**
 * The Excel built-in functions the shared evaluator computes itself, for "Prepare for sharing":
 * those a planner's sheet typically wraps Capacity Lab's functions in. Each follows Microsoft's
 * function reference for the cases a planning sheet meets; anything else (INDEX of a whole row,
 * implicit intersection) is {@link UnsupportedFormula}, so the caller can take Excel's own value.
 */
import gammainc from "@stdlib/math-base-special-gammainc";
import { poissonPmf, STIRLING_SERIES_MIN } from "../core/poisson";
import { FunctionSpec } from "./evaluate";
import {
  compare,
  errorValue,
  ErrorValue,
  finite,
  isErrorValue,
  isMatrix,
  lift,
  Scalar,
  toNumber,
  toText,
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

/**
 * A function of single values applied element by element, as Excel applies a function that expects
 * one value to an array (Microsoft, "Dynamic array formulas": `=ROUND({1.25,2.5},0)` gives an array);
 * a one-cell reference is its value. Errors are per element (an error in one cell of the array is
 * that element's result), so these are called with errors "scalar".
 */
function elementwise(f: (cells: Scalar[]) => Scalar): (values: Value[]) => Value {
  return (values) =>
    lift(
      values.map((v) => (isMatrix(v) && v.length === 1 && v[0].length === 1 ? v[0][0] : v)),
      f,
    );
}

/** A function of one-number arguments, element by element: text that is not a number gives its #VALUE!. */
function numeric(f: (...xs: number[]) => Scalar): (values: Value[]) => Value {
  return elementwise((cells) => {
    const xs: number[] = [];
    for (const c of cells) {
      const x = toNumber(c);
      if (isErrorValue(x)) return x;
      xs.push(x);
    }
    return f(...xs);
  });
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

/** The cells of an argument in row order (a single value is one cell). */
const cellsOf = (v: Value): Scalar[] => (isMatrix(v) ? v.flat() : [v]);

/**
 * COUNT(value1, …) (Microsoft, "COUNT function"): numbers in a reference or array count (text,
 * logical values, empty cells and errors there do not); an argument typed directly counts if it is a
 * number, a logical value or text that is a number; an error argument is not counted (no error).
 */
function count(values: Value[]): number {
  let n = 0;
  for (const v of values) {
    if (isMatrix(v)) {
      for (const row of v) for (const c of row) if (typeof c === "number") n++;
    } else if (v !== null && !isErrorValue(v) && !isErrorValue(toNumber(v))) n++;
  }
  return n;
}

/**
 * SUMPRODUCT(array1, [array2], …) (Microsoft, "SUMPRODUCT function"): the arrays must have the same
 * dimensions, else #VALUE!; "SUMPRODUCT treats non-numeric array entries as if they were zeros"
 * (so TRUE counts 0: the sheets write `--(…)`). A single value is a 1×1 array.
 */
function sumProduct(values: Value[]): Value {
  const arrays = values.map((v) => (isMatrix(v) ? v : [[v]]));
  const rows = arrays[0]?.length ?? 0;
  const cols = arrays[0]?.[0]?.length ?? 0;
  if (arrays.some((a) => a.length !== rows || a.some((row) => row.length !== cols))) {
    return errorValue("#VALUE!", "SUMPRODUCT: the arrays have different sizes");
  }
  let sum = 0;
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) {
      let p = 1;
      for (const a of arrays) {
        const c = a[i][j];
        p *= typeof c === "number" ? c : 0;
      }
      sum += p;
    }
  }
  return finite(sum);
}

/** A logical value AND/OR reads from a cell of a reference or array: numbers and TRUE/FALSE, nothing else. */
const logicalCell = (c: Scalar): boolean | undefined =>
  typeof c === "boolean" ? c : typeof c === "number" ? c !== 0 : undefined;

/**
 * AND / OR (Microsoft, "AND function", "OR function"): the arguments must evaluate to logical values
 * (numbers: non-zero is TRUE); "If an array or reference argument contains text or empty cells, those
 * values are ignored"; no logical value at all is #VALUE!; an error anywhere is the result (errors
 * "deep"). Text typed as an argument is unsupported (not a case the sheets meet).
 */
function logical(all: boolean): (values: Value[]) => Value {
  return (values) => {
    let seen = false;
    let result = all;
    for (const v of values) {
      const cells = isMatrix(v) ? v.flat() : [v];
      for (const c of cells) {
        const b = logicalCell(c);
        if (b === undefined && !isMatrix(v) && typeof c === "string") {
          // Whether Excel reads "TRUE" typed as an argument is not on its page (LibreOffice: #VALUE!).
          throw new UnsupportedFormula(`${all ? "AND" : "OR"} of text typed as an argument`);
        }
        if (b === undefined) continue;
        seen = true;
        result = all ? result && b : result || b;
      }
    }
    return seen ? result : errorValue("#VALUE!", `${all ? "AND" : "OR"} of no logical values`);
  };
}

/** A COUNTIF criterion without operators or wildcards: what a cell must equal. */
function criterion(c: Scalar): (cell: Scalar) => boolean {
  const asNumber = (x: Scalar): number | undefined => {
    if (typeof x === "number") return x;
    if (typeof x !== "string" || x.trim() === "") return undefined;
    const n = toNumber(x);
    return isErrorValue(n) ? undefined : n;
  };
  if (typeof c === "string" && /^[<>=]|[*?~]/.test(c)) {
    throw new UnsupportedFormula(`COUNTIF with the criterion "${c}" (operators and wildcards are not computed here)`);
  }
  if (typeof c === "boolean") return (cell) => cell === c;
  const n = asNumber(c);
  // A number (or numeric text) criterion matches the cells holding that number; whether a cell of
  // numeric text matches it differs between Excel and LibreOffice, so such a cell is unsupported.
  // Text otherwise matches case-insensitively (Microsoft, "COUNTIF function": "the string
  // "apples" and the string "APPLES" will match the same cells").
  if (n !== undefined)
    return (cell) => {
      if (typeof cell === "string" && asNumber(cell) !== undefined)
        throw new UnsupportedFormula("COUNTIF of a number over a cell holding numeric text");
      return cell === n;
    };
  const text = typeof c === "string" ? c.toLowerCase() : "";
  return (cell) => typeof cell === "string" && cell.toLowerCase() === text;
}

/** COUNTIF(range, criteria) for an equality criterion (a number, a word, TRUE/FALSE). */
function countIf(values: Value[]): Value {
  const [range, crit] = values;
  const test = criterion(single(crit));
  return cellsOf(range).filter((cell) => !isErrorValue(cell) && cell !== null && test(cell)).length;
}

type Plain = Exclude<Scalar, ErrorValue>;

/** MATCH 1 (sign 1) or −1 (sign −1) over the cells of the lookup value's type, with their positions. */
function matchSorted(positions: (readonly [Scalar, number])[], key: Plain, sign: 1 | -1): Value {
  for (let k = 1; k < positions.length; k++) {
    if (sign * compare(positions[k - 1][0] as Plain, positions[k][0] as Plain) > 0) {
      throw new UnsupportedFormula(
        `MATCH with match_type ${sign} over values not in ${sign > 0 ? "ascending" : "descending"} order`,
      );
    }
  }
  let found = -1;
  for (const [c, i] of positions) {
    if (sign * compare(c as Plain, key) > 0) break;
    found = i;
  }
  return found < 0 ? errorValue("#N/A", "MATCH: no value on the right side of the lookup value") : found + 1;
}

/**
 * MATCH(lookup_value, lookup_array, [match_type]) (Microsoft, "MATCH function"): the position in a
 * one-row or one-column array; 0 the first value equal (text case-insensitively), 1 (default) the
 * largest value ≤ lookup_value in an ascending array, −1 the smallest ≥ in a descending one; #N/A
 * when none. Excel searches sorted data by halving, so on unsorted data (1/−1) or text with
 * wildcards (0) its answer is not specified here: those are unsupported rather than guessed.
 */
function match(values: Value[], argCount: number): Value {
  const [lookupArg, arrayArg, typeArg] = values;
  const lookup = single(lookupArg);
  const type = argCount > 2 ? num(typeArg) : 1;
  if (isErrorValue(type)) return type;
  if (isErrorValue(lookup)) return lookup;
  const table = isMatrix(arrayArg) ? arrayArg : [[arrayArg]];
  if (table.length > 1 && (table[0]?.length ?? 0) > 1)
    return errorValue("#N/A", "MATCH: the array is not one row or column");
  const list = table.flat();
  const key = lookup === null ? 0 : lookup;
  const same = (c: Scalar): c is Exclude<Scalar, ErrorValue | null> =>
    c !== null && !isErrorValue(c) && typeof c === typeof key;
  if (type === 0) {
    if (typeof key === "string" && /[*?~]/.test(key)) throw new UnsupportedFormula("MATCH of text with wildcards");
    const i = list.findIndex((c) => same(c) && compare(c, key) === 0);
    return i < 0 ? errorValue("#N/A", "MATCH: the value is not in the array") : i + 1;
  }
  return matchSorted(
    list.map((c, i) => [c, i] as const).filter(([c]) => same(c)),
    key,
    type > 0 ? 1 : -1,
  );
}

/**
 * TRIM(text) (Microsoft, "TRIM function"): "Removes all spaces from text except for single spaces
 * between words" — the ASCII space (32) only, not the non-breaking space.
 */
const trim = (c: Scalar): Scalar => {
  if (isErrorValue(c)) return c;
  return toText(c).replace(/ +/g, " ").replace(/^ | $/g, "");
};

/**
 * TEXT(value, format_text) for the number formats the case sheets use: `0`, `0.0…`, `#,##0`,
 * `#,##0.0…`, each optionally followed by `%` (the value ×100). Excel rounds half away from zero on
 * the decimal it holds (15 significant digits), like ROUND. Any other format, text that is not a
 * number, a negative value that shows as zero (Excel's "-0" quirks) or a number too large for fixed
 * notation here is unsupported, never guessed.
 */
function text(values: Value[]): Value {
  const format = single(values[1]);
  const v = single(values[0]);
  if (isErrorValue(v)) return v;
  if (isErrorValue(format)) return format;
  const m = typeof format === "string" ? /^(#,##)?0(?:\.(0+))?(%?)$/.exec(format) : null;
  if (m === null) throw new UnsupportedFormula(`TEXT with the format ${JSON.stringify(format)}`);
  const x = toNumber(v);
  if (isErrorValue(x)) throw new UnsupportedFormula("TEXT of text that is not a number");
  const digits = m[2]?.length ?? 0;
  const scaled = m[3] ? x * 100 : x;
  const r = roundTo(scaled, digits, "round");
  if (Math.abs(r) >= 1e15) throw new UnsupportedFormula("TEXT of a number of 15 digits or more");
  if (x < 0 && r === 0) throw new UnsupportedFormula("TEXT of a negative number that rounds to zero");
  const [whole, frac] = Math.abs(r).toFixed(digits).split(".");
  const grouped = m[1] ? whole.replace(/\B(?=(\d{3})+$)/g, ",") : whole;
  return (r < 0 ? "-" : "") + grouped + (frac === undefined ? "" : "." + frac) + m[3];
}

/** The Poisson probability mass λ^k e^−λ / k!: Loader's form from src/core for k ≥ 16, the direct product below. */
function poissonMass(k: number, mean: number): number {
  if (mean === 0) return k === 0 ? 1 : 0;
  if (k >= STIRLING_SERIES_MIN) return poissonPmf(k, mean);
  let p = Math.exp(-mean);
  for (let i = 1; i <= k; i++) p *= mean / i;
  return p;
}

/**
 * POISSON(x, mean, cumulative) (Microsoft, "POISSON function"): x is truncated to an integer; #NUM!
 * if x < 0 or mean < 0. The cumulative probability P(X ≤ x) is the upper regularized incomplete
 * gamma function Q(x + 1, mean) (@stdlib/math-base-special-gammainc).
 */
function poisson(x: number, mean: number, cumulative: number): Scalar {
  const k = Math.trunc(x);
  if (k < 0 || mean < 0) return errorValue("#NUM!", "POISSON: x and mean must be ≥ 0");
  if (cumulative === 0) return finite(poissonMass(k, mean));
  return mean === 0 ? 1 : finite(gammainc(mean, k + 1, true, true));
}

/**
 * IRR(values, [guess]) (Microsoft, "IRR function"): the numbers of the array or reference (text,
 * logical values and empty cells ignored), at least one positive and one negative, else #NUM!;
 * Newton's method from the guess (default 10 %) "until the result is accurate within 0.00001
 * percent", #NUM! "if IRR can't find a result that works after 20 tries" (LibreOffice's ScIRR: the
 * same 20 steps and 1e-7).
 */
function irrOf(values: Value[], argCount: number): Value {
  const flows = cellsOf(values[0]).filter((c): c is number => typeof c === "number");
  const guess = argCount > 1 && values[1] !== null ? num(values[1]) : 0.1;
  if (isErrorValue(guess)) return guess;
  if (!flows.some((f) => f > 0) || !flows.some((f) => f < 0)) {
    return errorValue("#NUM!", "IRR needs at least one positive and one negative value");
  }
  let r = guess;
  for (let k = 0; k < 20; k++) {
    if (r <= -1) break;
    let f = 0;
    let df = 0;
    for (let t = 0; t < flows.length; t++) {
      f += flows[t] / Math.pow(1 + r, t);
      df -= (t * flows[t]) / Math.pow(1 + r, t + 1);
    }
    if (df === 0 || !Number.isFinite(f / df)) break;
    const next = r - f / df;
    if (Math.abs(next - r) <= 1e-7) return finite(next);
    r = next;
  }
  return errorValue("#NUM!", "IRR did not converge in 20 steps");
}

const round = (mode: "round" | "up" | "down") => numeric((x, d = 0) => roundTo(x, Math.trunc(d), mode));

/** The functions of single values (see {@link elementwise}). */
const ELEMENTWISE: Record<string, (values: Value[]) => Value> = {
  ABS: numeric((x) => Math.abs(x)),
  SQRT: numeric((x) => (x < 0 ? errorValue("#NUM!", "SQRT of a negative number") : Math.sqrt(x))),
  // The case sheet's sizing rounds to 12 significant digits with ROUND(x,11-INT(LOG10(ABS(x)+1E-300))).
  LOG10: numeric((x) => (x <= 0 ? errorValue("#NUM!", "LOG10 of a number ≤ 0") : Math.log10(x))),
  INT: numeric((x) => Math.floor(x)),
  ROUND: round("round"),
  ROUNDUP: round("up"),
  ROUNDDOWN: round("down"),
  EXP: numeric((x) => finite(Math.exp(x))),
  POISSON: numeric(poisson),
  TRIM: elementwise(([c]) => trim(c)),
};

const NATIVE: Record<string, (values: Value[], argCount: number) => Value> = {
  SUM: ofNumbers((xs) => finite(xs.reduce((s, x) => s + x, 0))),
  MIN: ofNumbers((xs) => extreme(xs, Math.min)),
  MAX: ofNumbers((xs) => extreme(xs, Math.max)),
  AVERAGE: ofNumbers((xs) =>
    xs.length === 0 ? errorValue("#DIV/0!", "AVERAGE of no numbers") : xs.reduce((s, x) => s + x, 0) / xs.length,
  ),
  // Microsoft, "NA function": returns #N/A.
  NA: () => errorValue("#N/A", "NA()"),
  SUMPRODUCT: sumProduct,
  AND: logical(true),
  OR: logical(false),
  TEXT: text,
  IRR: irrOf,
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

/**
 * The functions that see their arguments' errors or look at one cell of a range (errors "none" or
 * "scalar"): ISNUMBER (Microsoft, "IS functions": TRUE for a number, never an error itself, element
 * by element over an array), IFERROR ("IFERROR function": value_if_error for any error, element by
 * element over an array; an empty result is 0), COUNT (errors are not counted), COUNTIF and MATCH
 * (an error elsewhere in the range is not their value).
 */
const SPECIAL: Record<string, FunctionSpec> = {
  ISNUMBER: { errors: "none", call: elementwise(([c]) => typeof c === "number") },
  IFERROR: {
    errors: "none",
    call: (values) => {
      const [v, alt] = values;
      const fallback = (a: Scalar): Scalar => (a === null ? 0 : a);
      if (!isMatrix(v)) return isErrorValue(v) ? (isMatrix(alt) ? alt : fallback(alt)) : fallback(v);
      return lift([v, alt], ([c, a]) => fallback(isErrorValue(c) ? a : c));
    },
  },
  COUNT: { errors: "none", call: count },
  COUNTIF: { errors: "scalar", call: countIf },
  MATCH: { errors: "scalar", call: match },
};

/** The names of the native functions evaluated here. */
export const NATIVE_FUNCTION_NAMES: readonly string[] = [
  "IF",
  "INDEX",
  ...Object.keys(SPECIAL),
  ...Object.keys(ELEMENTWISE),
  ...Object.keys(NATIVE),
];

/**
 * A native function by upper-case name, or undefined. Excel computes none of them with an error
 * argument, even one inside a range (SUM over a range holding #N/A is #N/A), IF and INDEX apart.
 */
export function nativeFunction(name: string): FunctionSpec | undefined {
  if (name === "IF") return IF;
  if (name === "INDEX") return INDEX;
  if (Object.prototype.hasOwnProperty.call(SPECIAL, name)) return SPECIAL[name];
  if (Object.prototype.hasOwnProperty.call(ELEMENTWISE, name)) return { errors: "scalar", call: ELEMENTWISE[name] };
  const f = Object.prototype.hasOwnProperty.call(NATIVE, name) ? NATIVE[name] : undefined;
  return f && { errors: "deep", call: f };
}
