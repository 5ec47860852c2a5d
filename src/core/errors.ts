/**
 * The one error the core throws.
 *
 * Every core function checks its inputs first and fails one way: by throwing a
 * `DomainError` that names the offending argument and says what is wrong with it.
 * The Excel wrappers (`src/functions/`) map `kind` to an Excel error code and keep
 * the message; the CLI prints the same message. The core never returns NaN or
 * Infinity to signal a problem.
 *
 * `kind` follows Excel's conventions:
 * - `"value"`: wrong type or shape (text where a number is needed, a 2-D range where a list is needed) → `#VALUE!`
 * - `"num"`: a number outside the domain (negative servers, utilization ≥ 100%, no convergence) → `#NUM!`
 * - `"na"`: a value that cannot be computed from the data (an aliased term) → `#N/A`
 * - `"div0"`: a division by zero in the data (all-zero samples for a relative measure) → `#DIV/0!`
 *
 * @example
 * throw new DomainError("servers", "must be a whole number ≥ 1, got 2.5", "num");
 */
export type DomainErrorKind = "value" | "num" | "na" | "div0";

export class DomainError extends Error {
  /** The argument (or option, or file) the problem is about, as the user named it. */
  readonly argument: string;
  /** Which Excel error this maps to. */
  readonly kind: DomainErrorKind;

  constructor(argument: string, problem: string, kind: DomainErrorKind = "num") {
    super(`${argument}: ${problem}`);
    this.name = "DomainError";
    this.argument = argument;
    this.kind = kind;
  }
}

/** True when `e` is a {@link DomainError} (works across bundles, unlike `instanceof` alone). */
export function isDomainError(e: unknown): e is DomainError {
  return (
    e instanceof DomainError ||
    (typeof e === "object" && e !== null && (e as { name?: unknown }).name === "DomainError")
  );
}
