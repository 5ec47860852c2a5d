/**
 * Reader for iogen's subinterval and summary CSV (`docs/iogen-csv.md`).
 *
 * The columns come from `iogen/schema/columns.json` (through the generated `iogen-schema.ts`).
 * Columns are matched by header name, in any order; columns the reader does not know are kept
 * as string labels (iogen writes one column per `--label` key and carries plan columns such as
 * `protocol`, `Run`, `StdOrder`). Accepted dialects:
 * - `,` delimiter with `.` decimals (what iogen writes), CRLF or LF line ends, optional UTF-8 BOM;
 * - `;` delimiter with `,` decimals, as a European-locale Excel saves "CSV" (a value like `1,5`
 *   in a numeric column is read as 1.5; `1.5` is accepted too).
 *
 * Strict, and says what it did (never a silent drop):
 * - RFC 4180 quoting: a quoted field may hold the delimiter, `""` and line breaks (CR or LF);
 *   the line ending is the header line's (LF, CRLF or CR), never guessed from a CR elsewhere.
 * - A last line without a line break at its end (a run killed mid-write, a copy taken while iogen
 *   was writing) is dropped with a warning naming the line: its last value may be cut off.
 * - Errors (the file must not be used), each naming the line: an unterminated quote, a row with
 *   the wrong number of fields, a cell that is not a number, not finite (`1e999`, `inf`, `NaN`) or
 *   negative (iogen writes no negative value). Missing required columns are one error naming each.
 * - Bounded work on hostile input: a header line, field or record longer than
 *   {@link MAX_LINE_BYTES} or a header of more than {@link MAX_COLUMNS} columns stops the reader
 *   with an error at once (a caller streaming a file stops reading it).
 *
 * Bytes in, columns out: lines without quotes take a byte-level path (numbers parsed from the
 * bytes, {@link decimalAt}; texts interned by their bytes), quoted fields the general path. Rows
 * are stored column by column ({@link IogenTable}: numbers in `Float64Array`s, texts as codes);
 * `rows` makes objects on request. Only `Uint8Array` and `TextDecoder`: the same code runs in Node
 * and in a browser Web Worker ({@link IogenCsvReader}).
 *
 * Cost: one pass, O(bytes); memory O(rows × columns) in the table plus one partial record.
 */
import { IogenCsvReader, IogenCsvReaderOptions, IogenCsvResult } from "./iogen-reader";

export type { IogenNumericColumn, IogenRow, IogenTextColumn } from "./iogen-row";
export {
  IOGEN_NUMERIC_COLUMNS,
  IOGEN_SUBINTERVAL_REQUIRED,
  IOGEN_SUMMARY_REQUIRED,
  IOGEN_TEXT_COLUMNS,
  headerDelimiter,
  iogenColumnsOf,
  iogenKindOf,
  looksLikeIogenHeader,
} from "./iogen-columns";
export type { IogenCsvKind } from "./iogen-columns";
export { MAX_COLUMNS, MAX_LINE_BYTES } from "./csv-bytes";
export { IogenCsvReader } from "./iogen-reader";
export type { IogenCsvReaderOptions, IogenCsvResult } from "./iogen-reader";

const encoder = new TextEncoder();

/**
 * Reads an iogen CSV held in memory.
 *
 * @param text - the whole file as text (a leading BOM is allowed)
 * @param file - the file name used in warnings and errors
 * @returns rows, the detected kind, warnings and errors (errors mean: do not use this file)
 * @example
 * parseIogenCsv("step,category,phase,subinterval,seconds,iops\n1,overall,measure,1,1,5000\n", "s.csv").rows[0].values.iops
 * // => 5000
 */
export function parseIogenCsv(text: string, file: string): IogenCsvResult {
  const reader = new IogenCsvReader(file);
  reader.push(encoder.encode(text));
  return reader.finish();
}

/**
 * Reads an iogen CSV from a stream of bytes (a Node readable stream, a browser
 * `ReadableStream<Uint8Array>` made async-iterable, …) holding only the table and one partial
 * record. Stops reading (and so closes a Node stream) at the first fatal error.
 *
 * @param stream - the file's bytes (strings are accepted and encoded as UTF-8)
 * @param file - the file name used in warnings and errors
 * @param expectedBytes - the file's size when known: the columns are then allocated once
 * @param options - reader options (e.g. a smaller `maxBytes` than the default 2 GiB)
 * @returns a promise of the same result as {@link parseIogenCsv}
 */
export async function parseIogenCsvStream(
  stream: AsyncIterable<Uint8Array | string>,
  file: string,
  expectedBytes = 0,
  options: IogenCsvReaderOptions = {},
): Promise<IogenCsvResult> {
  const reader = new IogenCsvReader(file, expectedBytes, options);
  for await (const chunk of stream) {
    if (!reader.push(typeof chunk === "string" ? encoder.encode(chunk) : chunk)) break;
  }
  return reader.finish();
}
