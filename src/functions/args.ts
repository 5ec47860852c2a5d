/**
 * Argument converters for the worksheet functions: turn what Excel (or the `caplab calc`
 * evaluator) passes into the plain numbers, vectors and strings the core expects, or throw a
 * {@link DomainError} that names the argument and says what is wrong. Wrappers call these inside
 * `guard()`, which maps the error to `#VALUE!` / `#NUM!` with the message.
 *
 * What arrives from Excel, for parameters typed `unknown` (metadata type "any"):
 * - a number, a string, a boolean, or an error object for a single cell or literal;
 * - `null` or `undefined` for an omitted optional argument, `null` or `""` for an empty cell;
 * - a 2-D array (rows of cells) for parameters typed `unknown[][]`; a scalar argument to such a
 *   parameter arrives as `[[x]]`. The CLI evaluator passes the same shapes.
 *
 * Error kinds follow Excel: wrong type or shape (text, missing, a 2-D block where a list is
 * needed) → `"value"` (#VALUE!); a number outside the domain (negative, non-integer count,
 * not finite) → `"num"` (#NUM!).
 *
 * Messages read "<argument>: <problem>, got <value>", e.g.
 * `servers: must be a whole number ≥ 1, got -1`.
 */
import { DomainError } from "../core/errors";

/** True for an omitted argument or an empty cell: `undefined`, `null` or `""`. */
export function isMissing(value: unknown): boolean {
  return value === undefined || value === null || value === "";
}

/** A short, readable rendering of a cell value for messages: text quoted, TRUE/FALSE as in Excel, "" as an empty cell. */
export function describeValue(value: unknown): string {
  if (value === "") return "an empty cell"; // how Excel passes a blank cell inside a range
  if (typeof value === "string") return `text "${value.length > 40 ? value.slice(0, 37) + "..." : value}"`;
  if (typeof value === "boolean") return value ? "TRUE" : "FALSE";
  if (Array.isArray(value)) return `a ${value.length}×${Array.isArray(value[0]) ? value[0].length : 1} range`;
  if (value instanceof Error) {
    // Excel errors (ours and CustomFunctions.Error) carry the code ("#N/A") and maybe a message.
    const code = (value as { code?: unknown }).code;
    if (typeof code !== "string") return `the error ${value.message || value.name}`;
    return value.message && value.message !== code ? `the error ${code} (${value.message})` : `the error ${code}`;
  }
  if (value === null || value === undefined) return "nothing";
  return String(value);
}

/**
 * Unwraps a 1×1 array to its cell, so `{5}` or a one-cell range works where a single value is expected.
 *
 * @param value - the cell value or a 1×1 array
 * @param name - the argument's name
 * @returns the cell
 * @throws DomainError `#VALUE!` for a larger array
 * @example
 * single([[5]], "servers"); // => 5
 */
export function single(value: unknown, name: string): unknown {
  if (!Array.isArray(value)) return value;
  if (value.length === 1 && Array.isArray(value[0]) && value[0].length === 1) return value[0][0];
  throw new DomainError(name, `must be a single value, got ${describeValue(value)}`, "value");
}

/**
 * A required number (any finite real).
 *
 * @param value - the cell value
 * @param name - the argument's name as the worksheet shows it
 * @returns the number
 * @throws DomainError `#VALUE!` when missing, text, boolean or an array; `#NUM!` when NaN or infinite
 * @example
 * requiredNumber(30, "service_time"); // => 30
 */
export function requiredNumber(value: unknown, name: string): number {
  const v = single(value, name);
  if (isMissing(v)) throw new DomainError(name, "is missing: a number is required", "value");
  if (typeof v !== "number") throw new DomainError(name, `must be a number, got ${describeValue(v)}`, "value");
  if (!Number.isFinite(v)) throw new DomainError(name, `must be a finite number, got ${v}`, "num");
  return v;
}

/**
 * An optional number: `undefined` when omitted or blank, else as {@link requiredNumber}.
 *
 * @param value - the cell value, possibly null/undefined
 * @param name - the argument's name
 * @returns the number or undefined
 * @throws DomainError as {@link requiredNumber} for a present but bad value
 * @example
 * optionalNumber(null, "answer_within"); // => undefined
 */
export function optionalNumber(value: unknown, name: string): number | undefined {
  return isMissing(single(value, name)) ? undefined : requiredNumber(value, name);
}

/**
 * A required whole number ≥ `min` (a count: servers, centres, periods).
 *
 * @param value - the cell value
 * @param name - the argument's name
 * @param min - the smallest allowed value (default 1)
 * @returns the whole number
 * @throws DomainError `#VALUE!` when missing or not a number; `#NUM!` when not whole or below `min`
 * @example
 * wholeNumber(4, "servers"); // => 4
 */
export function wholeNumber(value: unknown, name: string, min = 1): number {
  const v = single(value, name);
  if (isMissing(v)) throw new DomainError(name, `is missing: a whole number ≥ ${min} is required`, "value");
  if (typeof v !== "number")
    throw new DomainError(name, `must be a whole number ≥ ${min}, got ${describeValue(v)}`, "value");
  if (!Number.isInteger(v) || v < min) throw new DomainError(name, `must be a whole number ≥ ${min}, got ${v}`, "num");
  return v;
}

/**
 * An optional whole number ≥ `min`: `undefined` when omitted or blank.
 *
 * @param value - the cell value
 * @param name - the argument's name
 * @param min - the smallest allowed value (default 1)
 * @returns the whole number or undefined
 * @throws DomainError as {@link wholeNumber} for a present but bad value
 * @example
 * optionalWholeNumber(undefined, "periods", 0); // => undefined
 */
export function optionalWholeNumber(value: unknown, name: string, min = 1): number | undefined {
  return isMissing(single(value, name)) ? undefined : wholeNumber(value, name, min);
}

/** What a vector or matrix converter does with empty cells. */
export type BlankPolicy =
  /** An empty cell counts as 0 and keeps its position (cash flows). */
  | "zero"
  /** Empty cells are dropped (samples: like Excel's AVERAGE over a range). */
  | "skip"
  /** An empty cell is an error naming its position. */
  | "error";

/** Normalizes a scalar, a 1-D array or a 2-D array to rows of cells. */
function toRows(value: unknown): unknown[][] {
  if (!Array.isArray(value)) return [[value]];
  if (value.length === 0) return [];
  if (value.every(Array.isArray)) return value as unknown[][];
  return [value];
}

function cellNumber(cell: unknown, name: string, where: string, blanks: BlankPolicy): number | undefined {
  if (isMissing(cell)) {
    if (blanks === "zero") return 0;
    if (blanks === "skip") return undefined;
    throw new DomainError(name, `the cell at ${where} is empty`, "value");
  }
  if (typeof cell !== "number")
    throw new DomainError(name, `the cell at ${where} must be a number, got ${describeValue(cell)}`, "value");
  if (!Number.isFinite(cell))
    throw new DomainError(name, `the cell at ${where} must be a finite number, got ${cell}`, "num");
  return cell;
}

/**
 * A list of numbers from a single value, a row or a column (range or array constant). Cells are
 * read in order (left to right, or top to bottom).
 *
 * @param value - a scalar, a 1-D array, or a 2-D array with one row or one column
 * @param name - the argument's name
 * @param blanks - what to do with empty cells (see {@link BlankPolicy})
 * @returns the numbers; at least one
 * @throws DomainError `#VALUE!` for a 2-D block, text, an empty cell under "error", or no numbers at all;
 *   `#NUM!` for a non-finite number
 * @example
 * numberVector([[100000, "", 100000]], "cashflows", "zero"); // => [100000, 0, 100000]
 */
export function numberVector(value: unknown, name: string, blanks: BlankPolicy): number[] {
  const rows = toRows(value);
  const nRows = rows.length;
  // Loops, not Math.max(...)/flat(): a full Excel column is 1,048,576 rows, beyond what argument
  // spreading can pass on the call stack.
  let nCols = 0;
  for (const row of rows) nCols = Math.max(nCols, row.length);
  if (nRows > 1 && nCols > 1) {
    throw new DomainError(name, `must be a single row or column, got a ${nRows}×${nCols} range`, "value");
  }
  const out: number[] = [];
  let anyPresent = false;
  for (let i = 0; i < nRows; i++) {
    const row = rows[i];
    for (let j = 0; j < row.length; j++) {
      const cell = row[j];
      if (!isMissing(cell)) anyPresent = true;
      const x = cellNumber(cell, name, `position ${nRows > 1 ? i + 1 : j + 1}`, blanks);
      if (x !== undefined) out.push(x);
    }
  }
  if (out.length === 0 || !anyPresent) {
    throw new DomainError(name, "is empty: at least one number is required", "value");
  }
  return out;
}

/**
 * A rectangular block of numbers (rows of equal length) from a range or array constant; a scalar
 * is a 1×1 block.
 *
 * @param value - a scalar or a 2-D array
 * @param name - the argument's name
 * @param blanks - "zero" or "error" ("skip" would break the rectangle and is treated as "error")
 * @returns the rows of numbers
 * @throws DomainError `#VALUE!` for ragged rows, text or an empty cell; `#NUM!` for a non-finite number
 * @example
 * numberMatrix([[1, 2], [3, 4]], "data", "error"); // => [[1, 2], [3, 4]]
 */
export function numberMatrix(value: unknown, name: string, blanks: BlankPolicy): number[][] {
  const rows = toRows(value);
  if (rows.length === 0) throw new DomainError(name, "is empty: at least one number is required", "value");
  const width = rows[0].length;
  const policy: BlankPolicy = blanks === "skip" ? "error" : blanks;
  return rows.map((row, i) => {
    if (row.length !== width)
      throw new DomainError(name, `row ${i + 1} has ${row.length} cells, expected ${width}`, "value");
    return row.map((cell, j) => cellNumber(cell, name, `row ${i + 1}, column ${j + 1}`, policy) as number);
  });
}

/**
 * Optional text, matched case-insensitively against a list of choices.
 *
 * @param value - the cell value
 * @param name - the argument's name
 * @param choices - allowed values, lower case; the first is the default when omitted
 * @returns one of `choices`
 * @throws DomainError `#VALUE!` when not text or not one of the choices
 * @example
 * choice("Bound", "method", ["exact", "bound"] as const); // => "bound"
 */
export function choice<T extends string>(value: unknown, name: string, choices: readonly T[]): T {
  const v = single(value, name);
  if (isMissing(v)) return choices[0];
  const list = choices.map((c) => `"${c}"`).join(" or ");
  if (typeof v !== "string") throw new DomainError(name, `must be ${list}, got ${describeValue(v)}`, "value");
  const found = choices.find((c) => c === v.trim().toLowerCase());
  if (!found) throw new DomainError(name, `must be ${list}, got ${describeValue(v)}`, "value");
  return found;
}

/**
 * Required text (any string, trimmed).
 *
 * @param value - the cell value
 * @param name - the argument's name
 * @returns the trimmed text
 * @throws DomainError `#VALUE!` when missing or not text
 * @example
 * requiredText(" 2^3 ", "design"); // => "2^3"
 */
export function requiredText(value: unknown, name: string): string {
  const v = single(value, name);
  if (isMissing(v)) throw new DomainError(name, "is missing: text is required", "value");
  if (typeof v !== "string") throw new DomainError(name, `must be text, got ${describeValue(v)}`, "value");
  return v.trim();
}

/**
 * An optional boolean (TRUE/FALSE; the numbers 1 and 0 are accepted as Excel does).
 *
 * @param value - the cell value
 * @param name - the argument's name
 * @param fallback - the value when omitted
 * @returns the boolean
 * @throws DomainError `#VALUE!` for anything else
 * @example
 * optionalBoolean(undefined, "two_sided", true); // => true
 */
export function optionalBoolean(value: unknown, name: string, fallback: boolean): boolean {
  const v = single(value, name);
  if (isMissing(v)) return fallback;
  if (typeof v === "boolean") return v;
  if (v === 1 || v === 0) return v === 1;
  throw new DomainError(name, `must be TRUE or FALSE, got ${describeValue(v)}`, "value");
}
