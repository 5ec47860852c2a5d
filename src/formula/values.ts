/**
 * Cell values of a worksheet formula and Excel's rules for them: number and text coercion, the
 * ordering used by comparisons, broadcasting of operators over arrays, and the conversion of what
 * a worksheet function returns. Shared by `caplab calc` and "Prepare for sharing"; no Office types,
 * no I/O.
 */

/** An Excel error value in a cell; `message` says why, where known (e.g. a wrapper's message). */
export interface ErrorValue {
  error: string;
  message?: string;
}

/** One cell: Excel's scalar types, an error value, or empty (`null`). */
export type Scalar = number | string | boolean | null | ErrorValue;
/** What a formula evaluates to: a single cell or a 2-D array of cells (rows). */
export type Value = Scalar | Scalar[][];

/** A formula the evaluator cannot compute (syntax, or something outside what it implements). */
export class UnsupportedFormula extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UnsupportedFormula";
  }
}

export function errorValue(code: string, message?: string): ErrorValue {
  return { error: code, message: message ?? code };
}

export function isErrorValue(v: unknown): v is ErrorValue {
  return typeof v === "object" && v !== null && !Array.isArray(v) && typeof (v as ErrorValue).error === "string";
}

export function isMatrix(v: Value): v is Scalar[][] {
  return Array.isArray(v);
}

/** The first error value of `v`: itself, or (`deep`) the first in row order of an array. */
export function errorIn(v: Value, deep: boolean): ErrorValue | undefined {
  if (isErrorValue(v)) return v;
  if (deep && isMatrix(v)) for (const row of v) for (const c of row) if (isErrorValue(c)) return c;
  return undefined;
}

/**
 * Decimal numbers as Excel reads them from text where a number is expected, optionally with a
 * trailing % ("5%" is 0.05); no hexadecimal, binary or octal and no "Infinity", which JavaScript's
 * Number() would accept. Microsoft, "Calculation operators and precedence in Excel": `="1"+"2"` is
 * 3 because Excel converts text to a number when an operator expects one, and `=SQRT("8+1")` is
 * #VALUE! because "8+1" is not a number. (Excel also reads currency, dates and thousands
 * separators in the user's locale; those are not read here.)
 */
const NUMERIC_TEXT = /^([+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)\s*(%?)$/i;

/** Excel's number coercion: booleans are 0/1, numeric text converts, empty is 0. */
export function toNumber(c: Scalar): number | ErrorValue {
  if (isErrorValue(c)) return c;
  if (c === null) return 0;
  if (typeof c === "number") return c;
  if (typeof c === "boolean") return c ? 1 : 0;
  const m = NUMERIC_TEXT.exec(c.trim());
  const n = m ? Number(m[1]) / (m[2] ? 100 : 1) : Number.NaN;
  return Number.isFinite(n) ? n : errorValue("#VALUE!", `cannot use the text "${c}" as a number`);
}

/** Excel's text coercion for `&`: booleans as TRUE/FALSE, empty as "". */
export function toText(c: Exclude<Scalar, ErrorValue>): string {
  if (c === null) return "";
  if (typeof c === "boolean") return c ? "TRUE" : "FALSE";
  return String(c);
}

/** A finite number, or the #NUM! error that a non-finite result stands for. */
export function finite(n: number): number | ErrorValue {
  if (Number.isNaN(n)) return errorValue("#NUM!", "the result is not a number");
  if (!Number.isFinite(n)) return errorValue("#NUM!", "the result is too large for a number");
  return n;
}

type Plain = Exclude<Scalar, ErrorValue>;
const typeRank = (v: Plain): number => (typeof v === "boolean" ? 2 : typeof v === "string" ? 1 : 0);
/** An empty cell compares as the other side's empty value: "", FALSE or 0. */
const emptyLike = (other: Plain): Plain => (typeof other === "string" ? "" : typeof other === "boolean" ? false : 0);

/**
 * Excel's comparison: values of different types are never equal and order numbers < text <
 * logical values (text is not converted to a number: `="1"=1` is FALSE); text compares
 * case-insensitively; an empty cell equals "", 0 and FALSE. The type order is the one Microsoft
 * documents for sorting ("Sort data in a range or table": numbers, then text, then logical values),
 * which Excel's comparison operators follow.
 */
export function compare(a: Plain, b: Plain): number {
  const x = a === null ? emptyLike(b) : a;
  const y = b === null ? emptyLike(a) : b;
  if (typeRank(x) !== typeRank(y)) return typeRank(x) - typeRank(y);
  if (typeof x === "string" && typeof y === "string") {
    const p = x.toLowerCase();
    const q = y.toLowerCase();
    return p < q ? -1 : p > q ? 1 : 0;
  }
  const p = Number(x);
  const q = Number(y);
  return p < q ? -1 : p > q ? 1 : 0;
}

/**
 * Applies a cell function element by element with Excel's broadcasting: a single value or a single
 * row/column stretches over the other operand; cells outside the smaller array are #N/A.
 */
export function lift(args: Value[], f: (cells: Scalar[]) => Scalar): Value {
  if (!args.some(isMatrix)) return f(args as Scalar[]);
  const shapes = args.map((a) => (isMatrix(a) ? [a.length, a[0]?.length ?? 0] : [1, 1]));
  const rows = shapes.reduce((m, s) => Math.max(m, s[0]), 0);
  const cols = shapes.reduce((m, s) => Math.max(m, s[1]), 0);
  const cellAt = (a: Value, [r, c]: number[], i: number, j: number): Scalar => {
    if (!isMatrix(a)) return a;
    const ii = r === 1 ? 0 : i;
    const jj = c === 1 ? 0 : j;
    if (ii >= r || jj >= c) return errorValue("#N/A", "the arrays have different sizes");
    return a[ii][jj];
  };
  const out: Scalar[][] = [];
  for (let i = 0; i < rows; i++) {
    const row: Scalar[] = [];
    for (let j = 0; j < cols; j++) row.push(f(args.map((a, k) => cellAt(a, shapes[k], i, j))));
    out.push(row);
  }
  return out;
}

/** The Excel error code an error object carries (`ExcelError`, `CustomFunctions.Error`), if any. */
function excelCode(v: unknown): string | undefined {
  const code = typeof v === "object" && v !== null ? (v as { code?: unknown }).code : undefined;
  return typeof code === "string" && code.startsWith("#") ? code : undefined;
}

function resultCell(v: unknown): Scalar {
  if (v === null || v === undefined) return null;
  if (typeof v === "number") return finite(v);
  if (typeof v === "string" || typeof v === "boolean") return v;
  if (isErrorValue(v)) return v;
  const code = excelCode(v);
  if (code !== undefined) return errorValue(code, (v as { message?: string }).message || code);
  return errorValue("#VALUE!", `unexpected result ${String(v)}`);
}

/**
 * A worksheet function's result as a value: an error object it returns or places in a spilled cell
 * becomes an {@link ErrorValue} (so it is never taken as data), and a non-finite number #NUM!, as
 * Excel shows it.
 */
export function fromResult(result: unknown): Value {
  if (Array.isArray(result)) return result.map((row) => (Array.isArray(row) ? row : [row]).map(resultCell));
  return resultCell(result);
}

/**
 * What a worksheet function threw, as the cell shows it: its Excel error code and message, or
 * #VALUE! for any other exception (Microsoft Learn, "Handle and return errors from your custom
 * function": "By default, Excel returns #VALUE! for an unhandled exception").
 */
export function fromThrown(e: unknown): ErrorValue {
  const code = excelCode(e);
  const message = e instanceof Error ? e.message : String(e);
  return errorValue(code ?? "#VALUE!", message || code);
}
