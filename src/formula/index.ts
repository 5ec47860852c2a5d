/** The shared worksheet-formula evaluator: values and Excel's rules, operators, evaluation, natives, custom functions. */
export { customFunctionSpec } from "./custom-function";
export { evaluate, parseFormula, FormulaHost, FunctionSpec } from "./evaluate";
export { nativeFunction, NATIVE_FUNCTION_NAMES } from "./native-functions";
export {
  ErrorValue,
  errorValue,
  fromResult,
  fromThrown,
  isErrorValue,
  isMatrix,
  Scalar,
  UnsupportedFormula,
  Value,
} from "./values";
