/**
 * customFunctionSpec: how both callers (caplab calc, "Prepare for sharing") call a custom function.
 * Expected behaviour from Microsoft Learn, "Handle and return errors from your custom function":
 * no call with an error argument, even inside a range; an unhandled exception shows #VALUE!.
 */
import { customFunctionSpec, evaluate, FormulaHost, Value } from "../../src/formula";

function hostWith(f: (values: Value[]) => unknown, calls: Value[][]): FormulaHost {
  return {
    name: "test",
    reference: () => {
      throw new Error("no references");
    },
    rangeOperator: () => new Error("no ranges"),
    errorLiteral: (code) => ({ error: code, message: code }),
    function: () =>
      customFunctionSpec((values) => {
        calls.push(values);
        return f(values);
      }, 2),
  };
}

it("passes the arguments, omitted ones as null up to the arity, and returns the result", () => {
  const calls: Value[][] = [];
  expect(
    evaluate(
      "F(21)",
      hostWith(([x]) => Number(x) * 2, calls),
    ),
  ).toBe(42);
  expect(calls).toEqual([[21, null]]);
});

it("is not called with an error argument, even inside an array: the error is the result", () => {
  const calls: Value[][] = [];
  expect(
    evaluate(
      "F({1,#N/A})",
      hostWith(() => 1, calls),
    ),
  ).toEqual({ error: "#N/A", message: "#N/A" });
  expect(calls).toEqual([]);
});

it("shows a thrown exception as #VALUE! with its message, and a non-finite number as #NUM!", () => {
  const boom = () => {
    throw new RangeError("rate must be positive");
  };
  expect(evaluate("F(1)", hostWith(boom, []))).toEqual({ error: "#VALUE!", message: "rate must be positive" });
  expect(
    evaluate(
      "F(1)",
      hostWith(() => [[1, -Infinity]], []),
    ),
  ).toEqual([[1, { error: "#NUM!", message: "the result is too large for a number" }]]);
});
