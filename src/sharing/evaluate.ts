/**
 * Evaluates a worksheet formula in JavaScript with Capacity Lab's own worksheet functions, for
 * "Prepare for sharing": the value a `CAPLAB.*` cell is frozen to comes from the same code Excel
 * runs for it, not from reading the cell back (a custom-function cell can show a stale value or
 * `#BUSY!` with no signal that calculation has finished; OfficeDev/office-js #4152, #6930, #587).
 *
 * The formula engine is the shared one of `src/formula/` (also `caplab calc`'s); this module gives
 * it the sharing side's host: cell and range references, optionally on another sheet, resolved
 * through a callback; `CAPLAB.*` (the worksheet wrappers of `src/functions/functions.ts`, as loaded
 * in this runtime: see `functions.ts`); and the native functions a planner's sheet
 * typically wraps them in (SUM, MIN, MAX, AVERAGE, ABS, SQRT, INT, ROUND, ROUNDUP, ROUNDDOWN, IF,
 * INDEX, NPV). Anything else (names, other functions, whole-column references beyond the data) is
 * {@link Unsupported}: the caller then takes Excel's own value with `Range.copyFrom(…, "Values")`.
 * An Excel error in the result is returned as {@link ErrorValue}.
 *
 * No Office types, no `eval`: pure code, testable in Node.
 */
import {
  customFunctionSpec,
  errorValue,
  evaluate,
  FormulaHost,
  FunctionSpec,
  nativeFunction,
  Scalar,
  UnsupportedFormula,
  Value,
} from "../formula";
import { runtimeFunctions, WorksheetFunctions } from "./functions";
import { cellA1, parseReference, rangeA1, Reference } from "../workbook/plan";

export { isErrorValue } from "../formula";
export type { ErrorValue, Scalar, Value } from "../formula";

/** A formula this evaluator cannot compute (the message says what). */
export class Unsupported extends Error {
  constructor(message: string) {
    super(message);
    this.name = "Unsupported";
  }
}

/**
 * Resolves a reference: `sheet` undefined for the formula's own sheet; `range` like "B2" or "B2:C9"
 * (no `$`); `ref` the same reference as read (its corners' positions).
 */
export type ResolveRange = (sheet: string | undefined, range: string, ref: Reference) => Scalar[][];

const CAPLAB_PREFIX = /^(?:CAPLAB\.|_XLDUDF_CAPLAB_)/;

/** The sharing side's host: references through `resolve`, natives, and `CAPLAB.*` from `functions`. */
function sharingHost(resolve: ResolveRange, functions: WorksheetFunctions): FormulaHost {
  return {
    name: "the sharing evaluator",
    reference(text) {
      const ref = parseReference(text);
      if (!ref) throw new Unsupported(`the reference ${text} (names and whole rows or columns are not evaluated)`);
      const range = ref.single ? cellA1(ref.start) : rangeA1(ref.start, ref.end);
      return resolve(ref.sheet, range, ref);
    },
    rangeOperator: (op) => new Unsupported(`the operator ${op === " " ? "space" : op}`),
    errorLiteral: (code) => errorValue(code),
    function(rawName): FunctionSpec {
      const name = rawName.toUpperCase();
      const native = nativeFunction(name);
      if (native) return native;
      const id = name.replace(CAPLAB_PREFIX, "");
      const fn = (functions as Record<string, unknown>)[id];
      if (id === name || typeof fn !== "function" || !/^[A-Z][A-Z0-9_]*$/.test(id)) {
        throw new Unsupported(`the function ${name}`);
      }
      return customFunctionSpec((values) => (fn as (...a: unknown[]) => unknown)(...values));
    },
  };
}

/**
 * Evaluates formulas over a workbook given by `resolve`.
 *
 * @example
 * new FormulaEvaluator(() => [[0.08]]).evaluate("=CAPLAB.MMC_RESPONSE(4, 30, A1)"); // => 35.38205980066445
 */
export class FormulaEvaluator {
  private readonly host: FormulaHost;

  /**
   * @param resolve - gives the values of a referenced range
   * @param functions - the worksheet functions by id (default: those loaded in this runtime)
   */
  constructor(resolve: ResolveRange, functions: WorksheetFunctions = runtimeFunctions()) {
    this.host = sharingHost(resolve, functions);
  }

  /**
   * Evaluates one formula.
   *
   * @param formula - the formula, with or without the leading "="
   * @returns its value: a scalar, a 2-D array (a spilled result) or an {@link ErrorValue}
   * @throws Unsupported when the formula uses something this evaluator does not compute
   */
  evaluate(formula: string): Value {
    try {
      return evaluate(formula, this.host);
    } catch (e) {
      if (e instanceof UnsupportedFormula) throw new Unsupported(e.message);
      throw e;
    }
  }
}
