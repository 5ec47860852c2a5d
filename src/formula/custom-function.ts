/**
 * How the evaluator calls a custom (worksheet) function, for both callers: `caplab calc` over the
 * CLI's registry and "Prepare for sharing" over the functions loaded in the add-in.
 */
import { FunctionSpec } from "./evaluate";
import { fromResult, fromThrown, Value } from "./values";

/**
 * The spec of a custom function. Excel does not call one with an error argument, even one inside a
 * range (unless its metadata sets allowErrorForDataTypeAny, which generated metadata cannot): the
 * error is the result. What it returns or throws becomes the value Excel shows (a non-finite number
 * #NUM!, an exception #VALUE!). Microsoft Learn, "Handle and return errors from your custom
 * function".
 *
 * @param call - calls the function with the evaluated arguments (omitted ones are `null`)
 * @param arity - how many arguments to pass (default: the number written)
 * @example
 * customFunctionSpec(([x]) => Number(x) * 2).call([21], 1); // => 42
 */
export function customFunctionSpec(call: (values: Value[]) => unknown, arity?: number): FunctionSpec {
  return {
    arity,
    errors: "deep",
    call: (values) => {
      try {
        return fromResult(call(values));
      } catch (e) {
        return fromThrown(e);
      }
    },
  };
}
