/**
 * Evaluates one Excel worksheet formula: the shared engine of `caplab calc` (over literals and the
 * CLI's function registry) and of "Prepare for sharing" (over cell references and the functions
 * loaded in the add-in). The caller supplies a {@link FormulaHost}: how references resolve, which
 * functions exist and how they are called, which error literals are allowed.
 *
 * Parsing is done by `@borgar/fx` (MIT); this module walks its AST with Excel's semantics:
 * - numbers, strings, TRUE/FALSE, array constants `{1,2;3,4}`, error literals such as `#N/A`;
 * - `+ - * / ^ %`, `&`, comparisons (see values.ts for coercion and ordering), applied element by
 *   element to arrays with Excel's broadcasting;
 * - an error operand becomes the result (the left one first); division by zero is #DIV/0!,
 *   overflow #NUM!; Excel does not call a function with an error argument.
 *
 * The AST is walked on an explicit stack, not by recursion: a sum of 100,000 terms is a left-deep
 * tree 100,000 levels deep, and must not grow the JavaScript call stack.
 */
import { parse, tokenize } from "@borgar/fx";
import { binary, unary } from "./operators";
import { errorIn, ErrorValue, isMatrix, Scalar, UnsupportedFormula, Value } from "./values";

/** How a function is called. */
export interface FunctionSpec {
  /** How many operands to evaluate: default the number written; more are passed as `null` (omitted). */
  arity?: number;
  /**
   * Which errors stop the call (the error is then the result): "scalar" an argument that is an
   * error, "deep" also an error inside an array argument, "none" the function sees them (IF).
   */
  errors: "scalar" | "deep" | "none";
  /** For functions that evaluate some arguments only (IF): the index of the next one, or -1 to call. */
  next?: (values: Value[], argCount: number) => number;
  call: (values: Value[], argCount: number) => Value;
}

/** What the evaluator needs from its caller; each method throws the caller's own error when it cannot. */
export interface FormulaHost {
  /** The evaluator's name in messages, e.g. "caplab calc". */
  name: string;
  /** The value of a reference as written (`A1`, `'My sheet'!B2:C9`, a name). */
  reference(text: string): Value;
  /** A range operator (`:`, `,`, space) between expressions: the caller's error to throw. */
  rangeOperator(op: string): Error;
  /** The value of an error literal such as `#N/A` (upper case). */
  errorLiteral(code: string): ErrorValue;
  /** The function called `name` (as written) with `argCount` arguments. */
  function(name: string, argCount: number): FunctionSpec;
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

/** Parses a formula (with or without a leading `=`) into the fx AST. */
export function parseFormula(formula: string): Node {
  const text = formula.trim().replace(/^=/, "");
  if (text.trim() === "") throw new UnsupportedFormula("the formula is empty");
  const shown = text.length > 80 ? `${text.slice(0, 77)}...` : text;
  try {
    return parse(tokenize(text)) as unknown as Node;
  } catch (e) {
    if (e instanceof RangeError) {
      // @borgar/fx parses nested parentheses and prefix operators recursively (long flat sums are fine).
      throw new UnsupportedFormula(`cannot parse the formula "${shown}": it nests parentheses or signs too deeply`);
    }
    throw new UnsupportedFormula(`cannot parse the formula "${shown}": ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * A node being evaluated: the values of its operands done so far, which operand comes next, when an
 * operand's error is the result, and how to combine the values.
 */
interface Frame {
  values: Value[];
  /** The next operand to evaluate, or `undefined` when all are done. */
  next: (values: Value[]) => Node | null | undefined;
  stopAt: (v: Value) => ErrorValue | undefined;
  combine: (values: Value[]) => Value;
}

const NEVER = (): undefined => undefined;

function frame(
  operands: (Node | null)[],
  combine: (values: Value[]) => Value,
  stopAt = NEVER as Frame["stopAt"],
): Frame {
  return {
    values: [],
    next: (values) => (values.length < operands.length ? operands[values.length] : undefined),
    stopAt,
    combine,
  };
}

function literal(node: Node): Value {
  if (typeof node.value === "number" && !Number.isFinite(node.value)) {
    // Excel refuses such a formula; JSON would print Infinity as null.
    throw new UnsupportedFormula(
      `the number ${node.raw ?? String(node.value)} is too large (the limit is about 1.8e308)`,
    );
  }
  return node.value as number | string | boolean;
}

function arrayFrame(node: Node): Frame {
  const rows = node.elements ?? [];
  if (rows.some((row) => row.length !== rows[0].length)) {
    // Excel refuses a ragged constant; broadcasting over one would read past a short row.
    throw new UnsupportedFormula("every row of an array constant must have the same number of values");
  }
  const width = rows.length > 0 ? rows[0].length : 0;
  return frame(rows.flat(), (values) => {
    if (values.some(isMatrix)) throw new UnsupportedFormula("an array constant cannot contain another array");
    const out: Scalar[][] = [];
    for (let i = 0; i < rows.length; i++) out.push(values.slice(i * width, (i + 1) * width) as Scalar[]);
    return out;
  });
}

class Evaluator {
  constructor(private readonly host: FormulaHost) {}

  /** Evaluates a formula's AST iteratively (post-order over an explicit stack of frames). */
  evaluate(root: Node | null): Value {
    const first = this.start(root);
    if (!("values" in first)) return first.value;
    const stack: Frame[] = [first];
    for (;;) {
      const top = stack[stack.length - 1];
      const last = top.values.length > 0 ? top.values[top.values.length - 1] : undefined;
      const stop = last === undefined ? undefined : top.stopAt(last);
      const operand = stop ? undefined : top.next(top.values);
      if (operand !== undefined) {
        const next = this.start(operand);
        if ("values" in next) stack.push(next);
        else top.values.push(next.value);
        continue;
      }
      const value = stop ?? top.combine(top.values);
      stack.pop();
      if (stack.length === 0) return value;
      stack[stack.length - 1].values.push(value);
    }
  }

  /** A leaf's value, or a frame for a node with operands. */
  private start(node: Node | null): Frame | { value: Value } {
    if (node === null) return { value: null };
    switch (node.type) {
      case "Literal":
        return { value: literal(node) };
      case "ErrorLiteral":
        return { value: this.host.errorLiteral(String(node.value).toUpperCase()) };
      case "ReferenceIdentifier":
        return { value: this.host.reference(String(node.value)) };
      case "ArrayExpression":
        return arrayFrame(node);
      case "UnaryExpression": {
        const op = node.operator as string;
        return frame([(node.arguments ?? [])[0] ?? null], ([a]) => unary(op, a));
      }
      case "BinaryExpression":
        return this.binaryFrame(node);
      case "CallExpression":
        return this.callFrame(node);
      case "LambdaExpression":
      case "LetExpression":
        throw new UnsupportedFormula(`LAMBDA and LET are not supported in ${this.host.name}`);
      default:
        throw new UnsupportedFormula(`unsupported expression (${node.type})`);
    }
  }

  private binaryFrame(node: Node): Frame {
    const op = node.operator as string;
    if (op === ":" || op === "," || op === " ") throw this.host.rangeOperator(op);
    const [l, r] = node.arguments ?? [];
    return frame([l ?? null, r ?? null], ([a, b]) => binary(op, a, b));
  }

  private callFrame(node: Node): Frame {
    const argNodes = node.arguments ?? [];
    const argCount = argNodes.length;
    const fn = this.host.function(node.callee?.name ?? "", argCount);
    const arity = fn.arity ?? argCount;
    const operands = Array.from({ length: arity }, (_, i) => argNodes[i] ?? null);
    const stopAt = fn.errors === "none" ? NEVER : (v: Value) => errorIn(v, fn.errors === "deep");
    const combine = (values: Value[]) => fn.call(values, argCount);
    const { next } = fn;
    if (next === undefined) return frame(operands, combine, stopAt);
    return {
      values: [],
      next: (values) => {
        const i = next(values, argCount);
        return i < 0 ? undefined : (operands[i] ?? null);
      },
      stopAt,
      combine,
    };
  }
}

/**
 * Evaluates a formula in Excel syntax.
 *
 * @param formula - with or without the leading "="
 * @param host - references, functions and error literals as the caller has them
 * @returns a scalar, an {@link ErrorValue}, or a 2-D array of those
 * @throws UnsupportedFormula when the formula does not parse or uses what no evaluator here does;
 *   whatever the host's methods throw (an unknown function, a reference it cannot resolve)
 * @example
 * evaluate("1+{1,2}*2", host); // => [[3, 5]]
 */
export function evaluate(formula: string, host: FormulaHost): Value {
  return new Evaluator(host).evaluate(parseFormula(formula));
}
