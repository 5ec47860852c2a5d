/**
 * Evaluates one Excel formula over the Capacity Lab worksheet functions, for `caplab calc`.
 *
 * The formula engine is the shared one of `src/formula/` (also "Prepare for sharing"'s: same
 * parsing, coercion, operators and error rules, evaluated on an explicit stack); this module gives
 * it the CLI's host:
 * - functions are looked up case-insensitively, with or without the `CAPLAB.` prefix; omitted
 *   arguments (`f(1,,3)` or fewer arguments than parameters) arrive as `null`, as Excel sends them,
 *   and a matrix parameter gets a 2-D array even for a single value;
 * - error literals are the four the worksheet functions use (#VALUE!, #NUM!, #N/A, #DIV/0!).
 *
 * Cell references, names, ranges, LAMBDA and LET are outside the scope of a one-line calculator and
 * are reported as {@link FormulaError}s, as are syntax errors and unknown functions.
 */
import {
  customFunctionSpec,
  errorValue,
  evaluate,
  FormulaHost,
  isErrorValue,
  isMatrix,
  Scalar,
  UnsupportedFormula,
  Value,
} from "../formula";
import { loadRegistry, normalizeFunctionName, WorksheetFunction } from "./function-registry";

export type { Scalar as Cell, Value } from "../formula";

/** A problem with the formula itself (not an Excel error value): the CLI exits with status 2. */
export class FormulaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FormulaError";
  }
}

const ERROR_CODES: readonly string[] = ["#VALUE!", "#NUM!", "#N/A", "#DIV/0!"];

function calcHost(functions: Map<string, WorksheetFunction>): FormulaHost {
  return {
    name: "caplab calc",
    reference(text) {
      throw new FormulaError(
        `${text}: cell references and names are not available in caplab calc; use values or array constants such as {1,2,3}`,
      );
    },
    rangeOperator: (op) =>
      new FormulaError(
        `range operators (${op === " " ? "space" : op}) need cell references, which caplab calc does not have`,
      ),
    errorLiteral(code) {
      if (!ERROR_CODES.includes(code)) throw new FormulaError(`the error literal ${code} is not supported`);
      return errorValue(code);
    },
    function(rawName, argCount) {
      const fn = functions.get(normalizeFunctionName(rawName));
      if (!fn) {
        const known = [...functions.keys()].sort().join(", ");
        throw new FormulaError(`unknown function ${rawName}. Known functions: ${known}`);
      }
      const params = fn.metadata.parameters;
      if (argCount > params.length) {
        throw new FormulaError(
          `${fn.metadata.id} takes at most ${params.length} arguments (${params.map((p) => p.name).join(", ")}), got ${argCount}`,
        );
      }
      // A matrix parameter gets a 2-D array even for a single value, as Excel passes it.
      return customFunctionSpec(
        (values) =>
          fn.impl(...values.map((v, i) => (params[i].dimensionality === "matrix" && !isMatrix(v) ? [[v]] : v))),
        params.length,
      );
    },
  };
}

/**
 * Evaluates a formula in Excel syntax over the worksheet functions.
 *
 * @param formula - e.g. `=CAPLAB.MMC_RESPONSE(4, 30, 0.08)` or `NPV_IT(0.1, {1,2,3})*2`
 * @returns a number, string, boolean, error value, empty (null), or a 2-D array of those
 * @throws FormulaError when the formula does not parse, uses references, or calls an unknown function
 * @example
 * await evaluateFormula("MMC_RESPONSE(4,30,0.08)"); // => 35.38205980066445
 */
export async function evaluateFormula(formula: string): Promise<Value> {
  const host = calcHost(await loadRegistry());
  try {
    return evaluate(formula, host);
  } catch (e) {
    if (e instanceof UnsupportedFormula) throw new FormulaError(e.message);
    throw e;
  }
}

/** JSON for a value: errors as `{"error": code, "message": text}`, arrays as nested arrays. */
export function valueToJson(v: Value): string {
  const plain = (c: Scalar): unknown => (isErrorValue(c) ? { error: c.error, message: c.message ?? c.error } : c);
  if (isErrorValue(v))
    return `{"error": ${JSON.stringify(v.error)}, "message": ${JSON.stringify(v.message ?? v.error)}}`;
  if (isMatrix(v)) return JSON.stringify(v.map((row) => row.map(plain)));
  return JSON.stringify(plain(v));
}
