/**
 * What the iogen CSV reader returns: the table, and `rows` made from it on request.
 */
import type { IogenCsvKind } from "./iogen-columns";
import type { IogenRow } from "./iogen-row";
import type { IogenTable } from "./iogen-table";
import type { ImportProblem, ImportResult } from "./types";

export interface IogenCsvResult extends ImportResult<IogenRow> {
  /**
   * The rows as objects, made from {@link table} on every access (O(rows) objects): for small
   * files, tests and JSON snapshots. Code that may see large files reads `table` instead.
   */
  readonly rows: IogenRow[];
  /** The rows column by column (not enumerable: JSON and deep equality see `rows`). */
  readonly table: IogenTable;
  kind: IogenCsvKind;
  /** Header names in file order (BOM removed, trimmed). */
  header: string[];
  /** Label columns in file order. */
  labelColumns: string[];
  delimiter: string;
}

/** What the header told: kind of file, names, labels, delimiter. */
type IogenCsvMeta = Pick<IogenCsvResult, "kind" | "header" | "labelColumns" | "delimiter">;

/**
 * The result object: `rows` is made on request from the columns; `table` is not enumerable, so
 * JSON snapshots (the golden cases) and deep equality see exactly the rows.
 */
export function iogenCsvResult(
  file: string,
  table: IogenTable,
  meta: IogenCsvMeta,
  warnings: ImportProblem[],
  errors: ImportProblem[],
): IogenCsvResult {
  const r = {
    file,
    format: meta.kind === "subinterval" ? "iogen-subinterval" : "iogen-summary",
    ...meta,
  } as Omit<IogenCsvResult, "rows" | "table" | "warnings" | "errors">;
  Object.defineProperty(r, "rows", { enumerable: true, get: () => table.rows() });
  Object.defineProperty(r, "table", { enumerable: false, value: table });
  return Object.assign(r, { warnings, errors }) as IogenCsvResult;
}
