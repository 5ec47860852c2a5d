/**
 * The fast path's number field (see `IogenCsvReader.plainRecords`): a plain decimal read straight
 * from the bytes into its column.
 */
import * as bytes from "./csv-bytes";

// Copied once into this module's own bindings: a bundler or loader may turn every use of an
// imported binding into a getter call, which in the per-byte loops cost a third of the time.
const { CR, LF, POW10, decimalAt } = bytes;

/**
 * A number field of a plain record (see `plainRecords`): digits with at most one decimal point
 * `dot`, or nothing (an empty cell, stored as NaN), then the byte `end`. Stores the value in
 * `column[row]` and returns the index after `end`, or -1 for anything else (readRecord decides).
 *
 * Digits accumulate in an int32 (a short dependency chain: integer multiply-add, not floating
 * point); more than 9 digits wrap it, so those are read again as a double. The value is m / 10^k,
 * exact as in {@link bytes.decimalAt} (Clinger's fast path). The integer and fraction loops are
 * written out twice on purpose: one shared digit-scanning helper (its sum passed back through a
 * module variable) cost 12 % of the reader's CPU on the 1M-row benchmark file.
 */
export function plainNumberField(
  b: Uint8Array,
  p: number,
  end: number,
  dot: number,
  column: Float64Array,
  row: number,
): number {
  const n = b.length;
  const s = p;
  let m = 0;
  let c = 0;
  while (p < n) {
    c = b[p];
    const d = (c - 48) >>> 0;
    if (d > 9) break;
    m = (m * 10 + d) | 0;
    p++;
  }
  let fraction = -1;
  if (c === dot && p < n) {
    const first = ++p;
    while (p < n) {
      c = b[p];
      const d = (c - 48) >>> 0;
      if (d > 9) break;
      m = (m * 10 + d) | 0;
      p++;
    }
    fraction = p - first;
  }
  if (p >= n) return -1;
  // The last field of a CRLF line: the CR belongs to the line break (end is then LF).
  const crlf = c === CR && end === LF && p + 1 < n && b[p + 1] === LF ? 1 : 0;
  if (c !== end && crlf === 0) return -1;
  const digits = p - s - (fraction >= 0 ? 1 : 0);
  if (digits > 9) {
    if (digits > 15) return -1;
    m = decimalAt(b, s, p, dot === 44);
  } else if (digits === 0) {
    if (fraction >= 0) return -1; // "." alone: not a number
    m = NaN; // an empty cell
  } else if (fraction > 0) m /= POW10[fraction];
  column[row] = m;
  return p + 1 + crlf;
}
