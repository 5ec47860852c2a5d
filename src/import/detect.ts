/**
 * Recognises a lab result file and reads it with the right reader.
 *
 * - fio JSON: the first `{` (after any non-JSON lines) opens a document with `"fio version"` or `"jobs"`.
 * - iogen CSV: the first line is a header holding at least four of iogen's column names; a header
 *   with `measure_seconds`/`seen_enough`/`achieved_pm` is a summary, one with `phase`/`subinterval`
 *   is a subinterval file.
 * - Anything else is an error naming the file and the columns an iogen CSV needs.
 *
 * Encoding: UTF-8 (with or without a byte-order mark). UTF-16 — what Excel's "Unicode Text" and
 * PowerShell 5's `Out-File` write — is recognised from its byte-order mark (FF FE little-endian,
 * FE FF big-endian) or, without one, from the NUL bytes every ASCII character carries in it, and
 * transcoded to UTF-8 as it streams (a TextDecoder per file: one pass, no copy of the file).
 * UTF-32 is refused naming the encoding.
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
import { MAX_CSV_BYTES, MAX_LINE_BYTES } from "./csv-bytes";

/**
 * The most bytes of one file any reader takes: an iogen CSV's limit, twice over for UTF-16 (two
 * bytes a character before it is transcoded). A caller streaming a file from disk, a device or a
 * pipe can stop there whatever the file says its size is; the readers refuse sooner by their own
 * limits (the iogen CSV reader at {@link MAX_CSV_BYTES} of UTF-8, fio JSON at 64 MiB).
 */
export const MAX_LAB_FILE_BYTES = 2 * MAX_CSV_BYTES;

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

/** The encoding of a file from its first bytes. */
export type LabEncoding = "utf-8" | "utf-16le" | "utf-16be" | "utf-32le" | "utf-32be";

/**
 * The encoding of a file from its first bytes (512 are plenty): a byte-order mark, else UTF-16 when
 * NUL bytes sit at every other position (ASCII text in UTF-16: "s\0t\0e\0p\0" little-endian),
 * else UTF-8. A UTF-8 lab file has no NUL at all.
 *
 * @example sniffEncoding(new Uint8Array([0xff, 0xfe, 0x73, 0])) // => "utf-16le"
 */
export function sniffEncoding(head: Uint8Array): LabEncoding {
  return byteOrderMark(head) ?? nulPattern(head);
}

function byteOrderMark(head: Uint8Array): LabEncoding | undefined {
  const [a, b, c, d] = head;
  if (a === 0xff && b === 0xfe && c === 0 && d === 0) return "utf-32le";
  if (a === 0 && b === 0 && c === 0xfe && d === 0xff) return "utf-32be";
  if (a === 0xff && b === 0xfe) return "utf-16le";
  if (a === 0xfe && b === 0xff) return "utf-16be";
  return undefined;
}

function nulPattern(head: Uint8Array): LabEncoding {
  const n = Math.min(head.length, 512) & ~1;
  if (n < 4) return "utf-8";
  let evenNul = 0;
  let oddNul = 0;
  for (let i = 0; i < n; i += 2) {
    if (head[i] === 0) evenNul++;
    if (head[i + 1] === 0) oddNul++;
  }
  const pairs = n / 2;
  // Mostly-ASCII UTF-16: NUL in (nearly) every high byte, (nearly) none in the low bytes.
  if (oddNul >= 0.6 * pairs && evenNul <= 0.05 * pairs) return "utf-16le";
  if (evenNul >= 0.6 * pairs && oddNul <= 0.05 * pairs) return "utf-16be";
  return "utf-8";
}

/** How the message names an encoding. */
const ENCODING_NAMES: Record<LabEncoding, string> = {
  "utf-8": "UTF-8",
  "utf-16le": "UTF-16 (little-endian)",
  "utf-16be": "UTF-16 (big-endian)",
  "utf-32le": "UTF-32 (little-endian)",
  "utf-32be": "UTF-32 (big-endian)",
};

/** The refusal of an encoding the readers cannot take, with how to convert the file. */
function encodingRefused(file: string, encoding: LabEncoding, how: string): LabFileResult {
  const message =
    `the file is ${ENCODING_NAMES[encoding]} text${how}; save it as UTF-8 (Excel: "CSV UTF-8"; ` +
    `iconv -f ${encoding.toUpperCase()} -t UTF-8) and import it again`;
  return { format: "unknown", file, warnings: [], errors: [{ file, message }] };
}

/** UTF-16 bytes read as if UTF-8: NULs between the characters (and a BOM decoded to U+FFFD U+FFFD). */
function looksLikeMisreadUtf16(head: string): LabEncoding | undefined {
  const sample = head.slice(0, 512);
  if (!sample.includes("\u0000")) return undefined;
  const bytes = Uint8Array.from(sample.replace(/^\uFFFD\uFFFD/, ""), (ch) => Math.min(ch.charCodeAt(0), 255));
  const e = sniffEncoding(bytes);
  return e === "utf-8" ? undefined : e;
}

/**
 * Detects the format of a file held in memory and reads it.
 *
 * @param text - the whole file
 * @param file - its name, for problems and for the steps' source column
 * @returns the reader's result, tagged with the format; errors when the format is unknown
 */
export function readLabText(text: string, file: string): LabFileResult {
  // Text decoded from UTF-16 bytes as UTF-8 has lost what it was: refused naming the encoding.
  const misread = looksLikeMisreadUtf16(text);
  if (misread) return encodingRefused(file, misread, " read as UTF-8");
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
  const decoded = await decodedStream(stream);
  if (decoded.encoding.startsWith("utf-32")) return encodingRefused(file, decoded.encoding, "");
  // UTF-16 is about twice the bytes of the UTF-8 the reader sees: its column sizing hint follows.
  const expected = decoded.encoding === "utf-8" ? expectedBytes : Math.ceil(expectedBytes / 2);
  return readUtf8Stream(decoded.stream, file, expected);
}

/**
 * The stream as UTF-8: its first bytes are sniffed ({@link sniffEncoding}); UTF-16 is transcoded
 * chunk by chunk (a streaming TextDecoder, so a character split between chunks is kept, and the
 * byte-order mark dropped), UTF-8 passes through untouched.
 */
async function decodedStream(
  stream: AsyncIterable<Uint8Array | string>,
): Promise<{ encoding: LabEncoding; stream: AsyncIterable<Uint8Array | string> }> {
  const iterator = stream[Symbol.asyncIterator]();
  const first: (Uint8Array | string)[] = [];
  let bytes = 0;
  let done = false;
  while (bytes < 512) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    first.push(next.value);
    if (typeof next.value === "string") break; // already text
    bytes += next.value.length;
  }
  const headBytes = first.every((c) => typeof c !== "string") ? concatAll(first as Uint8Array[]) : new Uint8Array(0);
  const encoding = sniffEncoding(headBytes);
  if (encoding === "utf-8" || encoding.startsWith("utf-32")) {
    if (encoding !== "utf-8") await iterator.return?.();
    return { encoding, stream: replayed(first, iterator, done) };
  }
  const transcoded = async function* (): AsyncGenerator<Uint8Array> {
    const decoder = new TextDecoder(encoding);
    const encoder = new TextEncoder();
    for await (const chunk of replayed(first, iterator, done)) {
      const text = typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
      if (text) yield encoder.encode(text);
    }
    const tail = decoder.decode();
    if (tail) yield encoder.encode(tail);
  };
  return { encoding, stream: { [Symbol.asyncIterator]: transcoded } };
}

/**
 * The chunks already read (`first`) and then the rest of `iterator` (unless it was `done`): a
 * stream whose head was read to sniff it, read again from its start.
 */
function replayed<T>(first: readonly T[], iterator: AsyncIterator<T>, done: boolean): AsyncIterable<T> {
  return {
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
}

function concatAll(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((a, c) => a + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** {@link readLabStream} of a UTF-8 stream. */
async function readUtf8Stream(
  stream: AsyncIterable<Uint8Array | string>,
  file: string,
  expectedBytes: number,
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
  const replay = replayed(first, iterator, done);
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
