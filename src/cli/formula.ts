/**
 * Evaluates one Excel formula over the Capacity Lab worksheet functions, for `caplab calc`.
 *
 * Parsing is done by `@borgar/fx` (MIT): its tokenizer and parser produce an AST of literals,
 * array constants, unary/binary operators and calls. This module only walks that AST, with
 * Excel's semantics where they matter here:
 * - numbers, strings, TRUE/FALSE, array constants `{1,2;3,4}`, error literals such as `#N/A`;
 * - `+ - * / ^ %`, `&` (text join), comparisons `= <> < > <= >=` (text compared case-insensitively);
 *   operators apply element by element to arrays, a single value or a single row/column is
 *   broadcast, and cells outside the smaller array become `#N/A`, as in Excel;
 * - an error value in an operand or argument becomes the result (Excel does not call a function
 *   with an error argument); division by zero is `#DIV/0!`, overflow `#NUM!`;
 * - functions are looked up case-insensitively, with or without the `CAPLAB.` prefix; omitted
 *   arguments (`f(1,,3)` or fewer arguments than parameters) arrive as `null`, as Excel sends them.
 *
 * Cell references, names, ranges, LAMBDA and LET are outside the scope of a one-line calculator and
 * are reported as {@link FormulaError}s, as are syntax errors and unknown functions.
 */
import { parse, tokenize } from "@borgar/fx";
import { ExcelError, ExcelErrorCode, isExcelError } from "../functions/excel-error";
import { loadRegistry, normalizeFunctionName, WorksheetFunction } from "./function-registry";

/** A problem with the formula itself (not an Excel error value): the CLI exits with status 2. */
export class FormulaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FormulaError";
  }
}

/** One cell of a value: Excel's scalar types, an error value, or empty (`null`). */
export type Cell = number | string | boolean | ExcelError | null;
/** What a formula evaluates to: a single cell or a 2-D array of cells (rows). */
export type Value = Cell | Cell[][];

const ERROR_CODES: readonly string[] = ["#VALUE!", "#NUM!", "#N/A", "#DIV/0!"];

function errorValue(code: ExcelErrorCode, message?: string): ExcelError {
  return new ExcelError(code, message ?? code);
}

// Minimal structural view of the fx AST (fx exports fuller types; these are what we read).
interface Node {
  type: string;
  value?: unknown;
  raw?: string;
  operator?: string;
  arguments?: (Node | null)[];
  callee?: { name: string };
  elements?: Node[][];
}

function isMatrix(v: Value): v is Cell[][] {
  return Array.isArray(v);
}

/** Decimal numbers as Excel reads them from text, optionally with a trailing % (no hex, no Infinity). */
const NUMERIC_TEXT = /^([+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)\s*(%?)$/i;

/** Excel's number coercion: booleans are 0/1, numeric text ("1e3", "5%") converts, empty is 0. */
function toNumber(c: Cell): number | ExcelError {
  if (c instanceof ExcelError) return c;
  if (c === null) return 0;
  if (typeof c === "number") return c;
  if (typeof c === "boolean") return c ? 1 : 0;
  const m = NUMERIC_TEXT.exec(c.trim());
  const n = m ? Number(m[1]) / (m[2] ? 100 : 1) : Number.NaN;
  return Number.isFinite(n) ? n : errorValue("#VALUE!", `cannot use the text "${c}" as a number`);
}

function toText(c: Exclude<Cell, ExcelError>): string {
  if (c === null) return "";
  if (typeof c === "boolean") return c ? "TRUE" : "FALSE";
  return String(c);
}

/** A finite number, or the Excel error that a non-finite result stands for. */
function finite(n: number): number | ExcelError {
  if (Number.isNaN(n)) return errorValue("#NUM!", "the result is not a number");
  if (!Number.isFinite(n)) return errorValue("#NUM!", "the result is too large for a number");
  return n;
}

/** Applies a cell function element by element with Excel's broadcasting. */
function lift(args: Value[], f: (cells: Cell[]) => Cell): Value {
  if (!args.some(isMatrix)) return f(args as Cell[]);
  const shapes = args.map((a) => (isMatrix(a) ? [a.length, a[0]?.length ?? 0] : [1, 1]));
  const rows = shapes.reduce((m, s) => Math.max(m, s[0]), 0);
  const cols = shapes.reduce((m, s) => Math.max(m, s[1]), 0);
  const cellAt = (a: Value, [r, c]: number[], i: number, j: number): Cell => {
    if (!isMatrix(a)) return a;
    const ii = r === 1 ? 0 : i;
    const jj = c === 1 ? 0 : j;
    if (ii >= r || jj >= c) return errorValue("#N/A", "the arrays have different sizes");
    return a[ii][jj];
  };
  const out: Cell[][] = [];
  for (let i = 0; i < rows; i++) {
    const row: Cell[] = [];
    for (let j = 0; j < cols; j++) row.push(f(args.map((a, k) => cellAt(a, shapes[k], i, j))));
    out.push(row);
  }
  return out;
}

function arithmetic(op: string, x: number, y: number): number | ExcelError {
  switch (op) {
    case "+":
      return finite(x + y);
    case "-":
      return finite(x - y);
    case "*":
      return finite(x * y);
    case "/":
      return y === 0 ? errorValue("#DIV/0!", "division by zero") : finite(x / y);
    case "^":
      if (x === 0 && y === 0) return errorValue("#NUM!", "0^0 is undefined");
      if (x === 0 && y < 0) return errorValue("#DIV/0!", "division by zero");
      return finite(Math.pow(x, y));
  }
  throw new FormulaError(`operator ${op} is not supported`);
}

/** Excel's ordering across types: numbers < text < booleans; text compares case-insensitively. */
function compare(a: Exclude<Cell, ExcelError>, b: Exclude<Cell, ExcelError>): number {
  const rank = (v: Exclude<Cell, ExcelError>) => (typeof v === "boolean" ? 2 : typeof v === "string" ? 1 : 0);
  const x = a === null ? (typeof b === "string" ? "" : typeof b === "boolean" ? false : 0) : a;
  const y = b === null ? (typeof a === "string" ? "" : typeof a === "boolean" ? false : 0) : b;
  if (rank(x) !== rank(y)) return rank(x) - rank(y);
  if (typeof x === "string" && typeof y === "string") {
    const p = x.toLowerCase();
    const q = y.toLowerCase();
    return p < q ? -1 : p > q ? 1 : 0;
  }
  const p = Number(x);
  const q = Number(y);
  return p < q ? -1 : p > q ? 1 : 0;
}

function binary(op: string, a: Cell, b: Cell): Cell {
  if (a instanceof ExcelError) return a;
  if (b instanceof ExcelError) return b;
  if (op === "&") return toText(a) + toText(b);
  if (["=", "<>", "<", ">", "<=", ">="].includes(op)) {
    const c = compare(a, b);
    return { "=": c === 0, "<>": c !== 0, "<": c < 0, ">": c > 0, "<=": c <= 0, ">=": c >= 0 }[op] as boolean;
  }
  const x = toNumber(a);
  if (x instanceof ExcelError) return x;
  const y = toNumber(b);
  if (y instanceof ExcelError) return y;
  return arithmetic(op, x, y);
}

function unary(op: string, a: Cell): Cell {
  const x = toNumber(a);
  if (x instanceof ExcelError) return x;
  if (op === "-") return -x;
  if (op === "+") return x;
  if (op === "%") return x / 100;
  throw new FormulaError(`the ${op} operator is not supported`);
}

/** An ExcelError instance for anything `isExcelError` accepts (it also matches by name, across bundles). */
function asExcelError(e: ExcelError): ExcelError {
  if (e instanceof ExcelError) return e;
  const { code, message } = e as { code: ExcelErrorCode; message: string };
  return errorValue(code, message);
}

/** Converts what a wrapper returned (or threw) into a Value. */
function fromWrapper(result: unknown): Value {
  const cell = (v: unknown): Cell => {
    if (v === null || v === undefined) return null;
    if (typeof v === "number") {
      const f = finite(v);
      return f;
    }
    if (typeof v === "string" || typeof v === "boolean") return v;
    if (isExcelError(v)) return asExcelError(v);
    return errorValue("#VALUE!", `unexpected result ${String(v)}`);
  };
  if (Array.isArray(result)) return result.map((row) => (Array.isArray(row) ? row.map(cell) : [cell(row)]));
  return cell(result);
}

function firstError(v: Value): ExcelError | undefined {
  if (v instanceof ExcelError) return v;
  return undefined;
}

/**
 * A node being evaluated: its operand nodes, the values of those done so far, and how to combine
 * them. The evaluator keeps these on an explicit stack, so a formula of any length (a sum of
 * 100,000 terms is a left-deep tree 100,000 levels deep) never grows the JavaScript call stack.
 */
interface Frame {
  operands: (Node | null)[];
  values: Value[];
  /** For calls: stop at the first error operand (Excel does not call a function with an error). */
  stopAtError: boolean;
  combine: (values: Value[]) => Value;
}

class Evaluator {
  constructor(private readonly functions: Map<string, WorksheetFunction>) {}

  /** Evaluates a formula's AST iteratively (post-order over an explicit stack of frames). */
  evaluate(root: Node | null): Value {
    const first = this.start(root);
    if (!("operands" in first)) return first.value;
    const stack: Frame[] = [first];
    for (;;) {
      const top = stack[stack.length - 1];
      const last = top.values[top.values.length - 1];
      const stop = top.stopAtError && top.values.length > 0 && firstError(last) !== undefined;
      if (!stop && top.values.length < top.operands.length) {
        const next = this.start(top.operands[top.values.length]);
        if ("operands" in next) stack.push(next);
        else top.values.push(next.value);
        continue;
      }
      const value = stop ? (last as Value) : top.combine(top.values);
      stack.pop();
      if (stack.length === 0) return value;
      stack[stack.length - 1].values.push(value);
    }
  }

  /** A leaf's value, or a frame for a node with operands. Throws FormulaError for what calc cannot do. */
  private start(node: Node | null): Frame | { value: Value } {
    if (node === null) return { value: null };
    switch (node.type) {
      case "Literal":
        return { value: literal(node) };
      case "ErrorLiteral": {
        const code = String(node.value).toUpperCase();
        if (!ERROR_CODES.includes(code)) throw new FormulaError(`the error literal ${node.raw} is not supported`);
        return { value: errorValue(code as ExcelErrorCode) };
      }
      case "ArrayExpression":
        return arrayFrame(node);
      case "UnaryExpression": {
        const op = node.operator as string;
        const [arg] = node.arguments ?? [];
        return frame([arg ?? null], ([a]) => lift([a], ([x]) => unary(op, x)));
      }
      case "BinaryExpression":
        return binaryFrame(node);
      case "CallExpression":
        return this.callFrame(node);
      case "ReferenceIdentifier":
        throw new FormulaError(
          `${String(node.value)}: cell references and names are not available in caplab calc; use values or array constants such as {1,2,3}`,
        );
      case "LambdaExpression":
      case "LetExpression":
        throw new FormulaError("LAMBDA and LET are not supported in caplab calc");
      default:
        throw new FormulaError(`unsupported expression (${node.type})`);
    }
  }

  private callFrame(node: Node): Frame {
    const rawName = node.callee?.name ?? "";
    const fn = this.functions.get(normalizeFunctionName(rawName));
    if (!fn) {
      const known = [...this.functions.keys()].sort().join(", ");
      throw new FormulaError(`unknown function ${rawName}. Known functions: ${known}`);
    }
    const params = fn.metadata.parameters;
    const argNodes = node.arguments ?? [];
    if (argNodes.length > params.length) {
      throw new FormulaError(
        `${fn.metadata.id} takes at most ${params.length} arguments (${params.map((p) => p.name).join(", ")}), got ${argNodes.length}`,
      );
    }
    const operands = params.map((_, i) => argNodes[i] ?? null);
    return {
      operands,
      values: [],
      stopAtError: true,
      combine: (values) => {
        // A matrix parameter gets a 2-D array even for a single value, as Excel passes it.
        const args = values.map((v, i) => (params[i].dimensionality === "matrix" && !isMatrix(v) ? [[v]] : v));
        try {
          return fromWrapper(fn.impl(...args));
        } catch (e) {
          if (isExcelError(e)) return asExcelError(e);
          throw e;
        }
      },
    };
  }
}

function frame(operands: (Node | null)[], combine: (values: Value[]) => Value): Frame {
  return { operands, values: [], stopAtError: false, combine };
}

function literal(node: Node): Value {
  if (typeof node.value === "number" && !Number.isFinite(node.value)) {
    // Excel refuses such a formula; JSON would print Infinity as null.
    throw new FormulaError(`the number ${node.raw ?? String(node.value)} is too large (the limit is about 1.8e308)`);
  }
  return node.value as number | string | boolean;
}

function arrayFrame(node: Node): Frame {
  const rows = node.elements ?? [];
  if (rows.some((row) => row.length !== rows[0].length)) {
    // Excel refuses a ragged constant; broadcasting over one would read past a short row.
    throw new FormulaError("every row of an array constant must have the same number of values");
  }
  const width = rows.length > 0 ? rows[0].length : 0;
  return frame(rows.flat(), (values) => {
    if (values.some(isMatrix)) throw new FormulaError("an array constant cannot contain another array");
    const out: Cell[][] = [];
    for (let i = 0; i < rows.length; i++) out.push(values.slice(i * width, (i + 1) * width) as Cell[]);
    return out;
  });
}

function binaryFrame(node: Node): Frame {
  const op = node.operator as string;
  if (op === ":" || op === "," || op === " ") {
    throw new FormulaError(
      `range operators (${op === " " ? "space" : op}) need cell references, which caplab calc does not have`,
    );
  }
  const [l, r] = node.arguments ?? [];
  return frame([l ?? null, r ?? null], ([a, b]) => lift([a, b], ([x, y]) => binary(op, x, y)));
}

/** Parses a formula (with or without a leading `=`) into the fx AST. */
function parseFormula(formula: string): Node {
  const text = formula.trim().replace(/^=/, "");
  if (text.trim() === "") throw new FormulaError("the formula is empty");
  const shown = text.length > 80 ? `${text.slice(0, 77)}...` : text;
  try {
    return parse(tokenize(text)) as unknown as Node;
  } catch (e) {
    if (e instanceof RangeError) {
      // @borgar/fx parses nested parentheses and prefix operators recursively (long flat sums are fine).
      throw new FormulaError(`cannot parse the formula "${shown}": it nests parentheses or signs too deeply`);
    }
    throw new FormulaError(`cannot parse the formula "${shown}": ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * Evaluates a formula in Excel syntax over the worksheet functions.
 *
 * @param formula - e.g. `=CAPLAB.MMC_RESPONSE(4, 30, 0.08)` or `NPV_IT(0.1, {1,2,3})*2`
 * @returns a number, string, boolean, ExcelError, empty (null), or a 2-D array of those
 * @throws FormulaError when the formula does not parse, uses references, or calls an unknown function
 * @example
 * await evaluateFormula("MMC_RESPONSE(4,30,0.08)"); // => 35.38205980066445
 */
export async function evaluateFormula(formula: string): Promise<Value> {
  const ast = parseFormula(formula);
  const registry = await loadRegistry();
  return new Evaluator(registry).evaluate(ast);
}

/** JSON for a value: errors as `{"error": code, "message": text}`, arrays as nested arrays. */
export function valueToJson(v: Value): string {
  const plain = (c: Cell): unknown => (c instanceof ExcelError ? { error: c.code, message: c.message } : c);
  if (v instanceof ExcelError) return `{"error": ${JSON.stringify(v.code)}, "message": ${JSON.stringify(v.message)}}`;
  if (isMatrix(v)) return JSON.stringify(v.map((row) => row.map(plain)));
  return JSON.stringify(plain(v));
}
