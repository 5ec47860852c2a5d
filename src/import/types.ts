/**
 * Types shared by the lab-result readers (`iogen-csv.ts`, `fio-json.ts`, `detect.ts`).
 *
 * Readers are pure: text (or a stream of text) in, plain rows plus warnings and errors out.
 * A reader never throws for bad data; it reports it in `errors`, and a caller that sees any
 * error must not write output (see `caplab report`).
 */

/** A problem found while reading; `file` is the name the caller gave, `line` is 1-based when known. */
export interface ImportProblem {
  file: string;
  line?: number;
  message: string;
}

/** What every reader returns. */
export interface ImportResult<T> {
  file: string;
  format: LabFormat;
  rows: T[];
  /** Recoverable: the rows are usable (e.g. a truncated last line was skipped). */
  warnings: ImportProblem[];
  /** Fatal for this file: nothing must be written from it. */
  errors: ImportProblem[];
}

/** Formats `detect.ts` recognises. */
export type LabFormat = "iogen-subinterval" | "iogen-summary" | "fio-json" | "unknown";

/** Formats a problem as one line: `file:line: message`. */
export function formatProblem(p: ImportProblem): string {
  return p.line !== undefined ? `${p.file}:${p.line}: ${p.message}` : `${p.file}: ${p.message}`;
}
