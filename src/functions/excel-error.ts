/**
 * Mapping core errors to Excel errors, in Excel and outside it.
 *
 * Inside Excel the wrappers must throw `CustomFunctions.Error` so the cell shows
 * `#NUM!` etc. with the message in the cell's error tooltip. Outside Excel (the
 * `caplab` CLI, Jest) the global `CustomFunctions` does not exist, so we throw an
 * {@link ExcelError} carrying the same code and message. Callers outside Excel
 * catch it with {@link isExcelError}.
 */
import { isDomainError, DomainErrorKind } from "../core/errors";

/** Excel error codes as they appear in a cell. */
export type ExcelErrorCode = "#VALUE!" | "#NUM!" | "#N/A" | "#DIV/0!";

const CODE_BY_KIND: Record<DomainErrorKind, ExcelErrorCode> = {
  value: "#VALUE!",
  num: "#NUM!",
  na: "#N/A",
  div0: "#DIV/0!",
};

/** The error thrown by wrappers when no Excel runtime is present. */
export class ExcelError extends Error {
  readonly code: ExcelErrorCode;
  constructor(code: ExcelErrorCode, message: string) {
    super(message);
    this.name = "ExcelError";
    this.code = code;
  }
  toJSON(): { error: ExcelErrorCode; message: string } {
    return { error: this.code, message: this.message };
  }
}

export function isExcelError(e: unknown): e is ExcelError {
  return (
    e instanceof ExcelError || (typeof e === "object" && e !== null && (e as { name?: unknown }).name === "ExcelError")
  );
}

/**
 * A value a wrapper can place in a spilled cell to show an Excel error there
 * (e.g. `#N/A` for an aliased DOE_FIT term) while the rest of the array answers.
 * In Excel this is a `CustomFunctions.Error` object; outside Excel an {@link ExcelError}.
 */
export function excelErrorValue(code: ExcelErrorCode, message?: string): Error {
  const cf = (globalThis as { CustomFunctions?: typeof CustomFunctions }).CustomFunctions;
  if (cf && typeof cf.Error === "function") {
    // CustomFunctions.Error is an Error at run time; its typings omit `name`.
    return new cf.Error(toOfficeCode(cf, code), message) as unknown as Error;
  }
  return new ExcelError(code, message ?? code);
}

function toOfficeCode(cf: typeof CustomFunctions, code: ExcelErrorCode): CustomFunctions.ErrorCode {
  switch (code) {
    case "#VALUE!":
      return cf.ErrorCode.invalidValue;
    case "#NUM!":
      return cf.ErrorCode.invalidNumber;
    case "#N/A":
      return cf.ErrorCode.notAvailable;
    case "#DIV/0!":
      return cf.ErrorCode.divisionByZero;
  }
}

/**
 * Converts anything a wrapper caught into the error to throw: a DomainError keeps
 * its message and maps its kind; anything else is an internal fault shown as
 * `#VALUE!` with its message (never a raw crash).
 */
export function toExcelError(e: unknown): Error {
  if (isDomainError(e)) return excelErrorValue(CODE_BY_KIND[e.kind], e.message);
  if (isExcelError(e)) return excelErrorValue(e.code, e.message);
  const cf = (globalThis as { CustomFunctions?: typeof CustomFunctions }).CustomFunctions;
  if (cf && e instanceof cf.Error) return e as unknown as Error;
  const message = e instanceof Error ? e.message : String(e);
  return excelErrorValue("#VALUE!", `internal error: ${message}`);
}

/** Runs `body`, rethrowing any failure as the Excel error that fits. */
export function guard<T>(body: () => T): T {
  try {
    return body();
  } catch (e) {
    throw toExcelError(e);
  }
}
