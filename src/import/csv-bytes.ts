/**
 * Byte-level pieces of the CSV readers: exact decimal parsing straight from UTF-8 bytes, RFC 4180
 * quoted fields, text decoding. No Node API (only `Uint8Array` and `TextDecoder`), so the same code
 * runs in Node and in a browser Web Worker.
 *
 * Cost: every function is O(bytes it is given).
 */

export const LF = 10;
export const CR = 13;
export const QUOTE = 34;
export const SPACE = 32;
export const TAB = 9;

/** Longest header line, field or record a reader accepts (bytes): longer is not a lab result. */
export const MAX_LINE_BYTES = 1 << 20;
/** Most columns a reader accepts (iogen writes ~40 plus one per label). */
export const MAX_COLUMNS = 4096;
/**
 * Largest iogen CSV a reader accepts (bytes): 2 GiB, about ten million subinterval rows (a 1,000,000-row
 * file is ~220 MB and its table ~0.4 GB). Counted as the bytes arrive, so a device, a pipe or a
 * file still growing cannot make the reading go on without end.
 */
export const MAX_CSV_BYTES = 2 ** 31;

/**
 * Largest figure a reader takes (1e15, the most a 15-digit plain decimal can hold): no IO rate,
 * latency, size or CPU figure comes near it, and below it every figure's products and quotients on
 * the sheets stay far from overflow and underflow, so cached values and a recalculation agree.
 */
export const MAX_FIGURE = 1e15;

/**
 * Why a figure of a lab result cannot be taken (negative, or larger than {@link MAX_FIGURE}), in
 * words after the figure's text; null when it can.
 *
 * @example figureProblem(-5) // => "is negative (iogen writes no negative value)"
 */
export function figureProblem(v: number, tool = "iogen"): string | null {
  if (v < 0) return `is negative (${tool} writes no negative value)`;
  if (v >= MAX_FIGURE) return `is larger than any measurement (at most ${MAX_FIGURE})`;
  return null;
}

/** Exact powers of ten 10^0 … 10^22 (every one is a double without rounding). */
export const POW10 = Array.from({ length: 23 }, (_, k) => Number(`1e${k}`));

/** Returned by {@link decimalAt} when the bytes are not a plain decimal (the slow path decides). */
export const NOT_PLAIN = -Infinity;

/**
 * A plain decimal (`123`, `-0.125`, and `1,5` when `comma` is set) read from its bytes, without
 * making a string. At most 15 digits and no exponent; anything else (and an empty field) returns
 * {@link NOT_PLAIN}.
 *
 * Exact: with m < 10^15 < 2^53 and k ≤ 15 both m and 10^k are doubles without rounding, and IEEE
 * division rounds m / 10^k correctly, so the result is the double `Number()` gives for the text
 * (Clinger 1990, "How to read floating point numbers accurately", the fast path).
 */
export function decimalAt(b: Uint8Array, start: number, end: number, comma: boolean): number {
  let i = start;
  let neg = false;
  if (i < end && b[i] === 45) {
    neg = true;
    i++;
  }
  let m = 0;
  let digits = 0;
  let frac = -1;
  for (; i < end; i++) {
    const c = b[i];
    const d = c - 48;
    if (d >= 0 && d <= 9) {
      m = m * 10 + d;
      digits++;
      if (frac >= 0) frac++;
    } else if (frac < 0 && (c === 46 || (comma && c === 44))) frac = 0;
    else return NOT_PLAIN;
  }
  if (digits === 0 || digits > 15) return NOT_PLAIN;
  const v = frac > 0 ? m / POW10[frac] : m;
  return neg ? -v : v;
}

const DOT_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const COMMA_NUMBER = /^[+-]?(\d+,?\d*|,\d+)([eE][+-]?\d+)?$/;

/**
 * A numeric cell the fast path did not take: `null` for an empty cell, the number, or a string
 * saying why it is not one (not a number; not finite, e.g. `1e999`, `inf`, `NaN`).
 */
export function parseNumberText(text: string, decimalComma: boolean): number | null | string {
  const t = text.trim();
  if (t === "") return null;
  let v: number;
  if (DOT_NUMBER.test(t)) v = Number(t);
  else if (decimalComma && COMMA_NUMBER.test(t)) v = Number(t.replace(",", "."));
  else {
    const lower = t.toLowerCase().replace(/^[+-]/, "");
    return lower === "inf" || lower === "infinity" || lower === "nan" ? "is not a finite number" : "is not a number";
  }
  return Number.isFinite(v) ? v : "is not a finite number (out of range)";
}

const utf8 = new TextDecoder("utf-8");

/** The text of bytes `start`…`end` (UTF-8; ASCII without a decoder call). */
export function textAt(b: Uint8Array, start: number, end: number): string {
  if (end - start <= 64) {
    let ascii = true;
    for (let i = start; i < end; i++) {
      if (b[i] >= 128) {
        ascii = false;
        break;
      }
    }
    if (ascii) return String.fromCharCode.apply(null, b.subarray(start, end) as unknown as number[]);
  }
  return utf8.decode(b.subarray(start, end));
}

/**
 * Where the quoted field opening at `start` (a `"`) ends: the index just after its closing quote,
 * or -1 when `end` comes first (the field goes on in later bytes, or, at the end of the input
 * (`eof`), is unterminated). `""` inside
 * is an escaped quote; CR and LF are part of the field. `breaks` counts the line breaks (`lineEnd`
 * bytes) inside, for line numbers.
 */
export function quotedEnd(
  b: Uint8Array,
  start: number,
  end: number,
  eof: boolean,
  lineEnd: number,
  breaks: { n: number },
): number {
  let n = 0;
  for (let i = start + 1; i < end; i++) {
    const c = b[i];
    if (c === QUOTE) {
      if (i + 1 < end && b[i + 1] === QUOTE) {
        i++;
        continue;
      }
      if (i + 1 === end && !eof) return -1; // cannot tell `"` from `""` yet
      breaks.n = n;
      return i + 1;
    }
    if (c === lineEnd) n++;
  }
  return -1;
}

/** The text of a quoted field `start`…`stop` (both quotes included), with `""` made `"`. */
export function unquote(b: Uint8Array, start: number, stop: number): string {
  return textAt(b, start + 1, stop - 1).replace(/""/g, '"');
}

/** Bytes `a` followed by bytes `b` in a new array. */
export function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
