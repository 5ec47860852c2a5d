/**
 * The text cells of an iogen CSV as codes into their column's list of distinct texts. A few recent
 * cells of each column are kept as bytes, so the usual repeat (the same host, phase, category row
 * after row) is found by a byte compare without making a string.
 */
import * as bytes from "./csv-bytes";
import { TextColumn } from "./iogen-table";

// Copied once into this module's own bindings (see iogen-reader.ts): read per byte.
const { SPACE, TAB, textAt, unquote } = bytes;

/** A text column of the table and how its cells are turned into codes. */
export interface TextSlot {
  column: TextColumn;
  /** iogen's own text columns are trimmed; labels are kept as written. */
  trim: boolean;
  /** The code of the text an empty cell stands for (`overall` for category, …). */
  emptyCode: number;
  /** The last few distinct cells as bytes, and their codes: a hit costs a byte compare, no string. */
  cacheBytes: Uint8Array[];
  cacheCodes: number[];
  cacheNext: number;
}

const TEXT_CACHE = 8;

/** The code of a quoted text cell (bytes `s`…`e`, quotes included). */
export function quotedCode(slot: TextSlot, b: Uint8Array, s: number, e: number): number {
  let text = unquote(b, s, e);
  if (slot.trim) text = text.trim();
  return text === "" ? slot.emptyCode : slot.column.intern(text);
}

/** The code of an unquoted text cell, found by its bytes among the slot's recent cells when it can be. */
export function textCode(slot: TextSlot, b: Uint8Array, s: number, e: number): number {
  if (slot.trim) {
    while (s < e && (b[s] === SPACE || b[s] === TAB)) s++;
    while (e > s && (b[e - 1] === SPACE || b[e - 1] === TAB)) e--;
  }
  if (s === e) return slot.emptyCode;
  const len = e - s;
  const cache = slot.cacheBytes;
  for (let c = 0; c < cache.length; c++) {
    const cb = cache[c];
    if (cb.length !== len) continue;
    let i = 0;
    while (i < len && cb[i] === b[s + i]) i++;
    if (i === len) return slot.cacheCodes[c];
  }
  const code = slot.column.intern(textAt(b, s, e));
  const at = cache.length < TEXT_CACHE ? cache.length : slot.cacheNext;
  cache[at] = b.slice(s, e);
  slot.cacheCodes[at] = code;
  slot.cacheNext = (at + 1) % TEXT_CACHE;
  return code;
}
