/**
 * The last check of every core function: a result that overflowed double precision becomes a
 * `DomainError` (#NUM!) rather than an Infinity or NaN in the cell.
 */
import { DomainError } from "./errors";

/**
 * Returns `value` when finite; otherwise throws a DomainError naming the argument whose
 * magnitude caused the overflow.
 *
 * @param value - the computed result
 * @param argument - the argument to blame in the message
 * @returns `value`
 * @throws DomainError (`#NUM!`) when `value` is NaN or ±Infinity
 * @example
 * ensureFinite(3.5, "cashflows"); // => 3.5
 */
export function ensureFinite(value: number, argument: string): number {
  if (!Number.isFinite(value)) {
    throw new DomainError(argument, "the result is too large for a number (overflow); rescale the inputs", "num");
  }
  return value;
}

/**
 * What a cell shows for a computed number: the number when finite; `#NUM!` — Excel's error for a
 * result a double cannot hold — for ±Infinity; nothing (`null`) for NaN, a value that does not
 * exist (renderers leave the cell empty, or a formula without a cached value, which the
 * spreadsheet computes itself). No cell ever holds `Infinity` or `NaN`: Excel and openpyxl refuse
 * such a file and LibreOffice reads it as text.
 *
 * @param value - the computed number
 * @returns the number, "#NUM!", or null
 * @example cellNumber(1 / 0) // => "#NUM!"
 */
export function cellNumber(value: number): number | "#NUM!" | null {
  if (Number.isFinite(value)) return value;
  return Number.isNaN(value) ? null : "#NUM!";
}
