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
