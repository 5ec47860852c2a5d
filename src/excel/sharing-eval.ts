/**
 * Evaluates a worksheet formula in JavaScript with Capacity Lab's own worksheet functions, for
 * "Prepare for sharing": the value a `CAPLAB.*` cell is frozen to comes from the same code Excel
 * runs for it, not from reading the cell back (a custom-function cell can show a stale value or
 * `#BUSY!` with no signal that calculation has finished; OfficeDev/office-js #4152, #6930, #587).
 *
 * Formulas are parsed by `@borgar/fx` (MIT). Supported: numbers, text, TRUE/FALSE, array
 * constants; cell and range references, optionally on another sheet; + − * / ^ & %, comparisons;
 * `CAPLAB.*` (the worksheet wrappers of `src/functions/functions.ts`, as loaded in this runtime: see
 * `sharing-functions.ts`), and the native functions a planner's sheet
 * typically wraps them in: SUM, MIN, MAX, AVERAGE, ABS, SQRT, INT, ROUND, ROUNDUP, ROUNDDOWN, IF,
 * INDEX, NPV. Anything else (names, other functions, whole-column references beyond the data) is
 * {@link Unsupported}: the caller then takes Excel's own value with `Range.copyFrom(…, "Values")`.
 * An Excel error in the result is returned as {@link ErrorValue}.
 *
 * No Office types, no `eval`: pure code, testable in Node.
 */
import { parse, tokenize } from "@borgar/fx";
import { runtimeFunctions, WorksheetFunctions } from "./sharing-functions";

/** An Excel error value in a cell. */
export interface ErrorValue {
  error: string;
}

export type Scalar = number | string | boolean | null | ErrorValue;
export type Value = Scalar | Scalar[][];

/** A formula this evaluator cannot compute (the message says what). */
export class Unsupported extends Error {
  constructor(message: string) {
    super(message);
    this.name = "Unsupported";
  }
}

/** Resolves a reference: `sheet` undefined for the formula's own sheet; `range` like "B2" or "B2:C9". */
export type ResolveRange = (sheet: string | undefined, range: string) => Scalar[][];

interface Node {
  type: string;
  value?: unknown;
  operator?: string;
  arguments?: (Node | null)[];
  callee?: { name: string };
  elements?: Node[][];
}

export function isErrorValue(v: unknown): v is ErrorValue {
  return typeof v === "object" && v !== null && !Array.isArray(v) && typeof (v as ErrorValue).error === "string";
}

/** Splits `'My sheet'!A1:B2` / `Model!A1` / `A1` into sheet (unquoted) and range. */
export function splitReference(ref: string): { sheet: string | undefined; range: string } {
  const bang = ref.lastIndexOf("!");
  if (bang < 0) return { sheet: undefined, range: ref };
  let sheet = ref.slice(0, bang);
  if (sheet.startsWith("'") && sheet.endsWith("'")) sheet = sheet.slice(1, -1).replace(/''/g, "'");
  return { sheet, range: ref.slice(bang + 1) };
}

const err = (code: string): ErrorValue => ({ error: code });

/**
 * A worksheet function's result element as a cell value: an error object it places in a spilled
 * cell (`ExcelError`, or `CustomFunctions.Error` in Excel, both with an Excel `code` such as
 * "#N/A"; an aliased DOE_FIT term) becomes an {@link ErrorValue}, so it is never written as data.
 */
function resultScalar(v: unknown): Scalar {
  if (v === null || v === undefined) return null;
  if (typeof v === "number" || typeof v === "string" || typeof v === "boolean") return v;
  if (isErrorValue(v)) return v;
  const code = (v as { code?: unknown }).code;
  return err(typeof code === "string" && code.startsWith("#") ? code : "#VALUE!");
}

/**
 * Applies an operator element by element with Excel's broadcasting: a single value or a single
 * row/column stretches over the other operand; cells outside the smaller array are #N/A.
 */
function lift(args: Value[], f: (cells: Scalar[]) => Scalar): Value {
  if (!args.some(Array.isArray)) return f(args as Scalar[]);
  const shape = (v: Value): [number, number] => (Array.isArray(v) ? [v.length, v[0]?.length ?? 0] : [1, 1]);
  const rows = Math.max(...args.map((a) => shape(a)[0]));
  const cols = Math.max(...args.map((a) => shape(a)[1]));
  const at = (v: Value, i: number, j: number): Scalar => {
    if (!Array.isArray(v)) return v;
    const [r, c] = shape(v);
    const ii = r === 1 ? 0 : i;
    const jj = c === 1 ? 0 : j;
    return ii < r && jj < c ? v[ii][jj] : err("#N/A");
  };
  return Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => f(args.map((a) => at(a, i, j)))),
  );
}

function firstError(values: Value[]): ErrorValue | undefined {
  for (const v of values) {
    if (isErrorValue(v)) return v;
    if (Array.isArray(v)) for (const row of v) for (const c of row) if (isErrorValue(c)) return c;
  }
  return undefined;
}

function single(v: Value): Scalar {
  if (!Array.isArray(v)) return v;
  if (v.length === 1 && v[0].length === 1) return v[0][0];
  throw new Unsupported("a range where one value is needed (implicit intersection)");
}

function num(v: Value): number | ErrorValue {
  const s = single(v);
  if (isErrorValue(s)) return s;
  if (s === null) return 0;
  if (typeof s === "number") return s;
  if (typeof s === "boolean") return s ? 1 : 0;
  const n = Number(s.trim());
  return s.trim() !== "" && Number.isFinite(n) ? n : err("#VALUE!");
}

function finite(n: number): number | ErrorValue {
  return Number.isFinite(n) ? n : err("#NUM!");
}

/** The numbers of a range or list of arguments, as SUM sees them (text and blanks in ranges skipped). */
function numbers(values: Value[]): number[] {
  const out: number[] = [];
  for (const v of values) {
    if (Array.isArray(v)) {
      for (const row of v) for (const c of row) if (typeof c === "number") out.push(c);
    } else {
      const n = num(v);
      if (typeof n === "number") out.push(n);
    }
  }
  return out;
}

function text(v: Scalar): string {
  if (v === null) return "";
  if (typeof v === "boolean") return v ? "TRUE" : "FALSE";
  return String(v);
}

function roundTo(x: number, digits: number, mode: "round" | "up" | "down"): number {
  const f = Math.pow(10, digits);
  const a = Math.abs(x) * f;
  // Excel rounds the decimal it shows (15 significant digits): 2.675 → 2.68, not 2.67.
  const shown = Number(a.toPrecision(15));
  const r = mode === "round" ? Math.round(shown) : mode === "up" ? Math.ceil(shown) : Math.floor(shown);
  return (Math.sign(x) * r) / f;
}

/** The numeric value of each argument, NaN for an error (for the one-number functions). */
function scalars(values: Value[]): number[] {
  return values.map((v) => num(v)).map((v) => (isErrorValue(v) ? NaN : v));
}

/** Smallest / largest of a list without spreading it into arguments (ranges can hold a million cells). */
function extreme(xs: number[], pick: (a: number, b: number) => number): number {
  return xs.length === 0 ? 0 : xs.reduce((a, b) => pick(a, b));
}

/** INDEX(array, [row], [column]) on the values; `argCount` tells a missing row/column from a blank. */
function indexOf(values: Value[], argCount: number): Value {
  const [arr, rv, cv] = values;
  const table = Array.isArray(arr) ? arr : [[arr]];
  const r = argCount > 1 ? num(rv) : 1;
  const c = argCount > 2 ? num(cv) : 1;
  if (isErrorValue(r)) return r;
  if (isErrorValue(c)) return c;
  if (r < 1 || c < 1) throw new Unsupported("INDEX with a row or column of 0 (a whole row or column)");
  const row = table[Math.trunc(r) - 1];
  return row === undefined || row[Math.trunc(c) - 1] === undefined ? err("#REF!") : row[Math.trunc(c) - 1];
}

function roundFunction(mode: "round" | "up" | "down"): (values: Value[]) => Value {
  return (values) => {
    const [x, d] = scalars(values);
    return roundTo(x, Math.trunc(d), mode);
  };
}

/**
 * The native functions evaluated here (IF apart: it evaluates only the branch it takes), called
 * with their evaluated arguments once none is an error.
 */
const NATIVE_FUNCTIONS: Record<string, (values: Value[], argCount: number) => Value> = {
  SUM: (values) => finite(numbers(values).reduce((s, x) => s + x, 0)),
  MIN: (values) => extreme(numbers(values), Math.min),
  MAX: (values) => extreme(numbers(values), Math.max),
  AVERAGE: (values) => {
    const xs = numbers(values);
    return xs.length === 0 ? err("#DIV/0!") : xs.reduce((s, x) => s + x, 0) / xs.length;
  },
  ABS: (values) => Math.abs(scalars(values)[0]),
  SQRT: (values) => {
    const [x] = scalars(values);
    return x < 0 ? err("#NUM!") : Math.sqrt(x);
  },
  INT: (values) => Math.floor(scalars(values)[0]),
  ROUND: roundFunction("round"),
  ROUNDUP: roundFunction("up"),
  ROUNDDOWN: roundFunction("down"),
  NPV: (values) => {
    const [rate, ...flows] = values;
    const r = num(rate);
    if (isErrorValue(r)) return r;
    return finite(numbers(flows).reduce((s, cf, i) => s + cf / Math.pow(1 + r, i + 1), 0));
  },
  INDEX: indexOf,
};
const NATIVE = new Set(["IF", ...Object.keys(NATIVE_FUNCTIONS)]);

/**
 * Evaluates formulas over a workbook given by `resolve`.
 *
 * @example
 * new FormulaEvaluator(() => [[0.08]]).evaluate("=CAPLAB.MMC_RESPONSE(4, 30, A1)"); // => 35.38205980066445
 */
export class FormulaEvaluator {
  /**
   * @param resolve - gives the values of a referenced range
   * @param functions - the worksheet functions by id (default: those loaded in this runtime)
   */
  constructor(
    private readonly resolve: ResolveRange,
    private readonly functions: WorksheetFunctions = runtimeFunctions(),
  ) {}

  /**
   * Evaluates one formula.
   *
   * @param formula - the formula, with or without the leading "="
   * @returns its value: a scalar, a 2-D array (a spilled result) or an {@link ErrorValue}
   * @throws Unsupported when the formula uses something this evaluator does not compute
   */
  evaluate(formula: string): Value {
    const source = formula.startsWith("=") ? formula : "=" + formula;
    let ast: Node;
    try {
      ast = parse(tokenize(source)) as unknown as Node;
    } catch (e) {
      throw new Unsupported(`cannot parse ${source}: ${(e as Error).message}`);
    }
    return this.node(ast);
  }

  private node(n: Node | null): Value {
    if (n === null) return null;
    switch (n.type) {
      case "Literal":
        return n.value as Scalar;
      case "ErrorLiteral":
        return err(String(n.value).toUpperCase());
      case "ArrayExpression":
        return (n.elements ?? []).map((row) => row.map((e) => single(this.node(e))));
      case "ReferenceIdentifier": {
        const { sheet, range } = splitReference(String(n.value));
        if (!/^\$?[A-Z]{1,3}\$?\d+(:\$?[A-Z]{1,3}\$?\d+)?$/i.test(range)) {
          throw new Unsupported(`the reference ${String(n.value)} (names and whole rows or columns are not evaluated)`);
        }
        return this.resolve(sheet, range.replace(/\$/g, "").toUpperCase());
      }
      case "UnaryExpression": {
        const op = n.operator;
        if (op !== "-" && op !== "+" && op !== "%") throw new Unsupported(`the operator ${op}`);
        return lift([this.node((n.arguments ?? [])[0] ?? null)], ([v]) => {
          const x = num(v);
          if (isErrorValue(x)) return x;
          return op === "-" ? -x : op === "+" ? x : x / 100;
        });
      }
      case "BinaryExpression": {
        const op = n.operator as string;
        return lift(
          (n.arguments ?? []).map((a) => this.node(a)),
          ([a, b]) => this.binary(op, a, b),
        );
      }
      case "CallExpression":
        return this.call((n.callee as { name: string }).name.toUpperCase(), n.arguments ?? []);
      default:
        throw new Unsupported(`${n.type} in a formula`);
    }
  }

  private binary(op: string, a: Scalar, b: Scalar): Scalar {
    const e = firstError([a, b]);
    if (e) return e;
    if (op === "&") return text(a) + text(b);
    if (["=", "<>", "<", ">", "<=", ">="].includes(op)) {
      const c =
        typeof a === "string" && typeof b === "string"
          ? a.toLowerCase().localeCompare(b.toLowerCase())
          : Number(num(a)) - Number(num(b));
      return { "=": c === 0, "<>": c !== 0, "<": c < 0, ">": c > 0, "<=": c <= 0, ">=": c >= 0 }[op] as boolean;
    }
    const x = num(a);
    const y = num(b);
    if (isErrorValue(x)) return x;
    if (isErrorValue(y)) return y;
    switch (op) {
      case "+":
        return finite(x + y);
      case "-":
        return finite(x - y);
      case "*":
        return finite(x * y);
      case "/":
        return y === 0 ? err("#DIV/0!") : finite(x / y);
      case "^":
        return x === 0 && y <= 0 ? err(y === 0 ? "#NUM!" : "#DIV/0!") : finite(Math.pow(x, y));
      default:
        throw new Unsupported(`the operator ${op}`);
    }
  }

  private call(name: string, args: (Node | null)[]): Value {
    if (!NATIVE.has(name) && !/^(?:CAPLAB\.|_XLDUDF_CAPLAB_)/.test(name)) throw new Unsupported(`the function ${name}`);
    if (name === "IF") {
      const test = num(this.node(args[0] ?? null));
      if (isErrorValue(test)) return test;
      return test !== 0 ? this.node(args[1] ?? null) : args.length > 2 ? this.node(args[2] ?? null) : false;
    }
    const values = args.map((a) => this.node(a));
    if (name.startsWith("CAPLAB.") || name.startsWith("_XLDUDF_CAPLAB_")) {
      return this.caplab(name.replace(/^_XLDUDF_CAPLAB_/, "").replace(/^CAPLAB\./, ""), values);
    }
    const e = firstError(values);
    if (e) return e;
    return NATIVE_FUNCTIONS[name](values, args.length);
  }

  /** A Capacity Lab function through its worksheet wrapper; a thrown Excel error becomes an error value. */
  private caplab(id: string, values: Value[]): Value {
    const fn = (this.functions as Record<string, unknown>)[id];
    if (typeof fn !== "function" || !/^[A-Z][A-Z0-9_]*$/.test(id)) throw new Unsupported(`the function CAPLAB.${id}`);
    // Excel does not call a function with an error argument: the error is the result.
    const e = firstError(values);
    if (e) return e;
    try {
      const out = (fn as (...a: unknown[]) => unknown)(...values);
      if (Array.isArray(out)) return out.map((row) => (Array.isArray(row) ? row : [row]).map(resultScalar));
      return resultScalar(out);
    } catch (x) {
      const code = (x as { code?: unknown }).code;
      return err(typeof code === "string" && code.startsWith("#") ? code : "#VALUE!");
    }
  }
}
