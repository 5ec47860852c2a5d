/** The shared worksheet-formula evaluator: values and Excel's rules, operators, evaluation, natives, custom functions. */
export { customFunctionSpec } from "./custom-function";
export { evaluate, parseFormula } from "./evaluate";
export type { FormulaHost, FunctionSpec } from "./evaluate";
export { nativeFunction, NATIVE_FUNCTION_NAMES } from "./native-functions";
export { errorValue, fromResult, fromThrown, isErrorValue, isMatrix, UnsupportedFormula } from "./values";
// Types apart, so that a transpile-only build (`npm run dev-server`) does not look for them at run time.
export type { ErrorValue, Scalar, Value } from "./values";
