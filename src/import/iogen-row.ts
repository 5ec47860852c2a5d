/**
 * The row and column types of iogen's CSVs, derived from the schema (`iogen/schema/columns.json`
 * through `iogen-schema.ts`). Their own module so that the reader (`iogen-csv.ts`) and the table
 * it fills (`iogen-table.ts`) both depend on it and not on each other.
 */
import { IOGEN_SCHEMA_COLUMNS } from "./iogen-schema";

type IogenSchemaColumn = (typeof IOGEN_SCHEMA_COLUMNS)[number];
export type NumericSchemaColumn = Exclude<IogenSchemaColumn, { type: "text" }>;
export type TextSchemaColumn = Extract<IogenSchemaColumn, { type: "text" }>;

/** A numeric column of iogen's CSVs (every schema column whose type is not `text`). */
export type IogenNumericColumn = NumericSchemaColumn["name"];
/** A text column iogen itself writes (every other column of a file is a label). */
export type IogenTextColumn = TextSchemaColumn["name"];

/** One CSV line. Numeric columns that are absent or empty are `null`. */
export interface IogenRow {
  /** 1-based line number in the file (header = line 1). */
  line: number;
  host: string;
  step_name: string;
  /** `warmup` or `measure` (subinterval files); `measure` for summary rows. */
  phase: string;
  /** `overall`, `read` or `write`. */
  category: string;
  /** Summary files: `yes`, `no` or `off`; empty in subinterval files. */
  seen_enough: string;
  /** Summary files: the engine that ran (`sync`, `io_uring`, `null`); empty in subinterval files and older summaries. */
  engine: string;
  /**
   * Schema 4: `yes` (iogen --precondition wrote the step's range), `no` (the step writes to space
   * this run did not precondition), or empty (read-only, or a file from before schema 4).
   */
  preconditioned: string;
  /** Schema 4: `SIGINT`, `SIGTERM` or `signal` on the rows of a run a signal cut; empty otherwise. */
  interrupted_by: string;
  values: Record<IogenNumericColumn, number | null>;
  /** Every column iogen does not define, by header name, as text. */
  labels: Record<string, string>;
}
