/**
 * Recognises a lab result file and reads it with the right reader.
 *
 * - fio JSON: the first `{` (after any non-JSON lines) opens a document with `"fio version"` or `"jobs"`.
 * - iogen CSV: the first line is a header holding at least four of iogen's column names; a header
 *   with `measure_seconds`/`seen_enough`/`achieved_pm` is a summary, one with `phase`/`subinterval`
 *   is a subinterval file.
 * - Anything else is an error naming the file and the columns an iogen CSV needs.
 */
import {
  IOGEN_SUBINTERVAL_REQUIRED,
  IogenCsvResult,
  headerDelimiter,
  iogenKindOf,
  looksLikeIogenHeader,
  parseIogenCsv,
  parseIogenCsvStream,
} from "./iogen-csv";
import { FioJsonResult, parseFioJson, parseFioJsonStream } from "./fio-json";
import { ImportProblem, LabFormat } from "./types";
import { MAX_LINE_BYTES } from "./csv-bytes";

/** The result of reading any supported file. */
export type LabFileResult =
  | {
      format: "iogen-subinterval" | "iogen-summary";
      iogen: IogenCsvResult;
      file: string;
      warnings: ImportProblem[];
      errors: ImportProblem[];
    }
  | { format: "fio-json"; fio: FioJsonResult; file: string; warnings: ImportProblem[]; errors: ImportProblem[] }
  | { format: "unknown"; file: string; warnings: ImportProblem[]; errors: ImportProblem[] };

/**
 * The format of a file from its first bytes (a few KB are enough).
 *
 * @param head - the start of the file as text
 * @returns the format, or "unknown"
 * @example
 * detectFormat("host,step,subinterval,phase,category,iops\n") // => "iogen-subinterval"
 */
export function detectFormat(head: string): LabFormat {
  const text = head.replace(/^\uFEFF/, "");
  const brace = text.search(/^\s*\{/m);
  // A JSON document, possibly after fio's warning lines, is read as fio JSON: the reader then says
  // precisely what is wrong when it is not (no "jobs" array, truncated).
  if (brace >= 0 && (/"fio version"|"jobs"\s*:/.test(text.slice(brace)) || !/[,;\t]/.test(text.slice(0, brace)))) {
    return "fio-json";
  }
  const header = splitHeader(text);
  if (looksLikeIogenHeader(header)) return iogenKindOf(header) === "summary" ? "iogen-summary" : "iogen-subinterval";
  return "unknown";
}

function splitHeader(text: string): string[] {
  const end = text.search(/\r|\n/);
  const first = end < 0 ? text : text.slice(0, end);
  return first.split(headerDelimiter(first)).map((h) => h.trim().replace(/^"(.*)"$/, "$1"));
}

function unknownFormat(file: string, head: string): LabFileResult {
  const header = splitHeader(head.replace(/^\uFEFF/, "")).filter((h) => h !== "");
  const missing = IOGEN_SUBINTERVAL_REQUIRED.filter((c) => !header.includes(c));
  const message =
    header.length > 1 && !/^\s*[[{]/.test(head)
      ? `format not recognised: not an iogen CSV (missing columns ${missing.join(", ")}; see docs/iogen-csv.md) and not fio JSON`
      : "format not recognised: expected an iogen subinterval or summary CSV (docs/iogen-csv.md) or fio JSON (--output-format=json or json+)";
  return { format: "unknown", file, warnings: [], errors: [{ file, message }] };
}

/** An iogen reader's result, tagged with the kind of file it found (subinterval or summary). */
function iogenResult(iogen: IogenCsvResult, file: string): LabFileResult {
  return {
    format: iogen.format as "iogen-subinterval" | "iogen-summary",
    iogen,
    file,
    warnings: iogen.warnings,
    errors: iogen.errors,
  };
}

/**
 * Detects the format of a file held in memory and reads it.
 *
 * @param text - the whole file
 * @param file - its name, for problems and for the steps' source column
 * @returns the reader's result, tagged with the format; errors when the format is unknown
 */
export function readLabText(text: string, file: string): LabFileResult {
  const format = detectFormat(text.slice(0, 65536));
  if (format === "fio-json") {
    const fio = parseFioJson(text, file);
    return { format, fio, file, warnings: fio.warnings, errors: fio.errors };
  }
  if (format === "unknown") return unknownFormat(file, text.slice(0, 65536));
  return iogenResult(parseIogenCsv(text, file), file);
}

/**
 * Detects the format of a stream from its first chunk(s) and reads it without holding a CSV in memory.
 *
 * @param stream - the file's bytes
 * @param file - its name
 * @param expectedBytes - the file's size when known (0 if not): lets the CSV reader size its columns once
 * @returns the reader's result, tagged with the format
 */
export async function readLabStream(
  stream: AsyncIterable<Uint8Array | string>,
  file: string,
  expectedBytes = 0,
): Promise<LabFileResult> {
  const iterator = stream[Symbol.asyncIterator]();
  const decoder = new TextDecoder("utf-8");
  const first: (Uint8Array | string)[] = [];
  let head = "";
  let done = false;
  // The head ends at the first line break after 4 KiB, or at MAX_LINE_BYTES: only each new
  // piece is searched (searching the whole head again per chunk was quadratic, and endless
  // on /dev/zero).
  let sawBreak = false;
  while (!sawBreak || head.length < 4096) {
    if (head.length > MAX_LINE_BYTES) break;
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    first.push(next.value);
    const piece = typeof next.value === "string" ? next.value : decoder.decode(next.value, { stream: true });
    if (!sawBreak && /\r|\n/.test(piece)) sawBreak = true;
    head += piece;
  }
  const replay: AsyncIterable<Uint8Array | string> = {
    async *[Symbol.asyncIterator]() {
      yield* first;
      if (done) return;
      for (;;) {
        const next = await iterator.next();
        if (next.done) return;
        yield next.value;
      }
    },
  };
  const format = detectFormat(head);
  if (format === "fio-json") {
    const fio = await parseFioJsonStream(replay, file);
    return { format, fio, file, warnings: fio.warnings, errors: fio.errors };
  }
  if (format === "unknown") {
    await iterator.return?.(); // stop reading (an endless input such as /dev/zero ends here)
    if (!sawBreak && !done) {
      const message = `format not recognised: no line break in the first ${MAX_LINE_BYTES} bytes (not an iogen CSV, not fio JSON)`;
      return { format: "unknown", file, warnings: [], errors: [{ file, message }] };
    }
    return unknownFormat(file, head.slice(0, 65536));
  }
  return iogenResult(await parseIogenCsvStream(replay, file, expectedBytes), file);
}
