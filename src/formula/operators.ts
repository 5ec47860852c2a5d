/** Excel's operators on values, element by element over arrays (see values.ts for the rules). */
import {
  compare,
  errorValue,
  finite,
  isErrorValue,
  lift,
  Scalar,
  toNumber,
  toText,
  UnsupportedFormula,
  Value,
} from "./values";

function arithmetic(op: string, x: number, y: number): Scalar {
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
  throw new UnsupportedFormula(`operator ${op} is not supported`);
}

const COMPARISONS: Record<string, (c: number) => boolean> = {
  "=": (c) => c === 0,
  "<>": (c) => c !== 0,
  "<": (c) => c < 0,
  ">": (c) => c > 0,
  "<=": (c) => c <= 0,
  ">=": (c) => c >= 0,
};

/** One binary operator on two cells; an error operand is the result, the left one first. */
function binaryCell(op: string, a: Scalar, b: Scalar): Scalar {
  if (isErrorValue(a)) return a;
  if (isErrorValue(b)) return b;
  if (op === "&") return toText(a) + toText(b);
  const comparison = COMPARISONS[op];
  if (comparison) return comparison(compare(a, b));
  const x = toNumber(a);
  if (isErrorValue(x)) return x;
  const y = toNumber(b);
  if (isErrorValue(y)) return y;
  return arithmetic(op, x, y);
}

function unaryCell(op: string, a: Scalar): Scalar {
  const x = toNumber(a);
  if (isErrorValue(x)) return x;
  if (op === "-") return -x;
  if (op === "+") return x;
  if (op === "%") return x / 100;
  throw new UnsupportedFormula(`the ${op} operator is not supported`);
}

/** `a op b` with Excel's broadcasting over arrays. */
export function binary(op: string, a: Value, b: Value): Value {
  return lift([a, b], ([x, y]) => binaryCell(op, x, y));
}

/** `op a` (prefix - +, postfix %) with Excel's broadcasting over arrays. */
export function unary(op: string, a: Value): Value {
  return lift([a], ([x]) => unaryCell(op, x));
}
