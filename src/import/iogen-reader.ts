/**
 * The iogen CSV reader itself (`IogenCsvReader`): bytes in, columns out. See `iogen-csv.ts` for
 * what it accepts and refuses; this module is the byte-level machinery (the fast path for plain
 * records, the general RFC 4180 path, column storage).
 */
import { shown } from "../text/quote";
import * as bytes from "./csv-bytes";
import type { IogenNumericColumn, IogenRow, IogenTextColumn } from "./iogen-row";
import { IogenTable, TextColumn } from "./iogen-table";
import { IOGEN_SCHEMA_COLUMNS } from "./iogen-schema";
import { ImportProblem } from "./types";
import {
  IOGEN_NUMERIC_COLUMNS,
  IOGEN_SUBINTERVAL_REQUIRED,
  IOGEN_SUMMARY_REQUIRED,
  IOGEN_TEXT_COLUMNS,
  IogenCsvKind,
  NUMERIC_SET,
  TEXT_SET,
  firstUnquotedLineBreak,
  headerDelimiter,
  iogenKindOf,
  splitHeaderLine,
} from "./iogen-columns";
import { plainNumberField } from "./iogen-plain";
import { TextSlot, quotedCode, textCode } from "./iogen-text-slot";
import { checkIogenTable } from "./iogen-checks";
import { IogenCsvResult, iogenCsvResult } from "./iogen-result";

export type { IogenCsvResult } from "./iogen-result";

// Copied once into this module's own bindings: a bundler or loader may turn every use of an
// imported binding into a getter call, which in the per-byte loops cost a third of the time.
const { CR, LF, QUOTE, SPACE, TAB, NOT_PLAIN, MAX_COLUMNS, MAX_CSV_BYTES, MAX_LINE_BYTES, POW10 } = bytes;
const { concatBytes, decimalAt, figureProblem, parseNumberText, quotedEnd, textAt, unquote } = bytes;

/** How one header position is read. */
const enum FieldKind {
  Skip = 0,
  Number = 1,
  Text = 2,
}

const SKIPPED_NO_IOPS = "row without iops skipped (a step interrupted during warm-up?)";
/** quotedField's answers besides a position: the record goes on in later bytes; a fatal error. */
const NEED_MORE = -1;
const FATAL = -2;
const EMPTY = new Uint8Array(0);

export interface IogenCsvReaderOptions {
  /**
   * false: every record goes through the general path (`readRecord`), none through the fast path
   * for plain records. The result is the same either way; tests compare the two.
   */
  plainPath?: boolean;
  /** The most bytes accepted ({@link MAX_CSV_BYTES} unless a test asks for fewer). */
  maxBytes?: number;
}

/**
 * Incremental iogen CSV reader over bytes: `push` chunks as they arrive (any split, even inside a
 * UTF-8 character or a CRLF pair), then `finish`. `push` returns false once the input is known to
 * be unusable (a fatal error), so a caller can stop reading a hostile or endless stream.
 */
export class IogenCsvReader {
  readonly warnings: ImportProblem[] = [];
  readonly errors: ImportProblem[] = [];
  private header: string[] = [];
  private labelColumns: string[] = [];
  private kind: IogenCsvKind = "subinterval";
  private delimiterText = ",";
  private table = new IogenTable(IOGEN_NUMERIC_COLUMNS, new Set(), []);

  private carry: Uint8Array = EMPTY;
  private headerDone = false;
  private dead = false;
  /** Line number of the next record's first line (the header is line 1). */
  private line = 1;
  private delimiter = 44;
  /** LF (LF and CRLF files) or CR (CR-only files), from the header line. */
  private lineEnd = LF;
  private decimalComma = false;

  private fieldKind = new Uint8Array(0);
  private fieldSlot = new Int32Array(0);
  private numericNames: IogenNumericColumn[] = [];
  private allowMax: boolean[] = [];
  private iopsAt = -1;
  private textSlots: TextSlot[] = [];
  /** Text slots no field fills (iogen text columns the file lacks): their default code, every row. */
  private absentSlots: number[] = [];
  private rowProblem: string | null = null;
  private breaks = { n: 0 };
  /** Line breaks inside the quoted fields of the current record. */
  private extraLines = 0;
  private suppressedErrors = 0;
  private emptyIops = 0;
  private readonly maxErrors = 20;
  /** Rows stored, and the room every column has. */
  private rows = 0;
  private capacity = 0;
  private lineData: Uint32Array = new Uint32Array(0);
  private numberData: Float64Array[] = [];
  private codeData: Uint32Array[] = [];
  /** Per header position: the column a number field fills (an empty array for other fields). */
  private fieldNumbers: Float64Array[] = [];
  /** Per header position: the slot a text field fills (null for fields not stored). */
  private fieldTexts: (TextSlot | null)[] = [];
  /** Bytes of the file before the current buffer (for the row estimate of {@link grow}). */
  private consumedBefore = 0;

  /**
   * @param file - the file name used in warnings and errors
   * @param expectedBytes - the file's size when known (0 if not): the columns are then sized once
   */
  constructor(
    readonly file: string,
    private readonly expectedBytes = 0,
    options: IogenCsvReaderOptions = {},
  ) {
    this.plainPath = options.plainPath ?? true;
    this.maxBytes = options.maxBytes ?? MAX_CSV_BYTES;
  }

  private readonly plainPath: boolean;
  private readonly maxBytes: number;
  /** Bytes pushed so far. */
  private bytesIn = 0;
  /** The last line had no line break (a run killed mid-write): dropped, with a warning. */
  private cutAtEnd = false;
  /** Rows not stored (no iops) that record an interruption. */
  private readonly cutRows: IogenRow[] = [];

  /** Takes the next bytes of the file; false when reading should stop (a fatal error was found). */
  push(chunk: Uint8Array): boolean {
    if (this.dead) return false;
    this.bytesIn += chunk.length;
    if (this.bytesIn > this.maxBytes) {
      this.fatal(
        undefined,
        `more than ${this.maxBytes} bytes: larger than any iogen CSV this reader takes (see docs/analysis.md)`,
      );
      return false;
    }
    // One array type for every buffer (a Node Buffer is a Uint8Array subclass with another map:
    // mixing the two made the per-byte code polymorphic).
    const bytesIn =
      chunk.constructor === Uint8Array ? chunk : new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length);
    if (this.headerDone && this.carry.length > 0) {
      const rest = this.stitch(bytesIn);
      if (rest !== null) return this.pushRecords(rest);
    }
    return this.pushRecords(this.carry.length > 0 ? concatBytes(this.carry, bytesIn) : bytesIn);
  }

  /**
   * Finishes the record left over from the last chunk with the bytes of this one up to their first
   * line break, so the rest of the chunk is read where it lies (joining the whole chunk to the
   * left-over bytes copied every byte of the file once more). Returns the bytes still to read, or
   * null when that record goes on past the line break (a quoted line break): then the caller joins
   * the whole chunk.
   */
  private stitch(bytesIn: Uint8Array): Uint8Array | null {
    const k = bytesIn.indexOf(this.lineEnd);
    if (k < 0) return null;
    const joined = concatBytes(this.carry, bytesIn.subarray(0, k + 1));
    const pos = this.readRecords(joined, 0, false);
    if (pos === joined.length) {
      this.consumedBefore += this.carry.length;
      this.carry = EMPTY;
      return bytesIn.subarray(k + 1);
    }
    // Not a whole record yet: nothing was stored or counted (only a whole record moves the row
    // and line counts, or adds an error), so the whole chunk is joined instead.
    return null;
  }

  /** Reads the records of `buf` (the left-over bytes already in front) and keeps what is left. */
  private pushRecords(buf: Uint8Array): boolean {
    if (this.dead) return false; // the stitched record was fatal: nothing more is read
    let pos = 0;
    if (!this.headerDone) {
      pos = this.readHeader(buf, false);
      if (pos < 0) {
        this.carry = buf.slice(); // the caller may reuse its chunk
        return !this.dead;
      }
    }
    pos = this.readRecords(buf, pos, false);
    if (buf.length - pos > MAX_LINE_BYTES) {
      this.fatal(this.line, `line longer than ${MAX_LINE_BYTES} bytes (no line break, or a quote never closed)`);
      return false;
    }
    this.consumedBefore += pos;
    this.carry = buf.slice(pos);
    return !this.dead;
  }

  /** Ends the input and returns the result. */
  finish(): IogenCsvResult {
    if (!this.dead) {
      if (!this.headerDone) {
        const pos = this.readHeader(this.carry, true);
        if (pos >= 0 && !this.dead) this.readRecords(this.carry, pos, true);
      } else this.readRecords(this.carry, 0, true);
    }
    this.carry = EMPTY;
    if (!this.headerDone && this.errors.length === 0) {
      this.errors.push({ file: this.file, message: "empty file (no header line)" });
    }
    if (this.emptyIops > 1) {
      this.warnings.push({ file: this.file, message: `${this.emptyIops} rows without iops skipped in all` });
    }
    if (this.suppressedErrors > 0) {
      this.errors.push({ file: this.file, message: `${this.suppressedErrors} more errors not shown` });
    }
    this.closeColumns();
    this.table.trim();
    if (this.headerDone && this.errors.length === 0) {
      const checked = checkIogenTable(this.table, this.kind, this.file, this.cutAtEnd, this.cutRows);
      this.warnings.push(...checked.warnings);
      this.errors.push(...checked.errors);
    }
    return this.result();
  }

  private fatal(line: number | undefined, message: string): void {
    this.errors.push(line === undefined ? { file: this.file, message } : { file: this.file, line, message });
    this.dead = true;
  }

  private error(line: number, message: string): void {
    if (this.errors.length < this.maxErrors) this.errors.push({ file: this.file, line, message });
    else this.suppressedErrors++;
  }

  /** Finds, checks and takes the header line; returns where the records start, -1 for "need more bytes". */
  private readHeader(b: Uint8Array, eof: boolean): number {
    const start = b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0;
    const limit = Math.min(b.length, start + MAX_LINE_BYTES + 1);
    let end = firstUnquotedLineBreak(b, start, limit);
    if (end < 0) {
      if (limit - start > MAX_LINE_BYTES) {
        this.fatal(1, `the first line is longer than ${MAX_LINE_BYTES} bytes: not an iogen CSV header`);
        return -1;
      }
      if (!eof) return -1;
      end = b.length;
    }
    if (b[end] === CR && end + 1 === b.length && !eof) return -1; // CR or CRLF: the next byte decides
    const next = this.takeLineEnd(b, end);
    const text = textAt(b, start, end);
    if (start === 0 && end === b.length && text.trim() === "" && eof) return -1; // empty file
    this.headerDone = true;
    this.line = 2;
    this.setHeader(text);
    return next;
  }

  /**
   * Learns the file's line ending (LF, CR or CRLF) from the one at `end` and returns where the next
   * line starts; `end` itself when the header is the last line, without an ending.
   */
  private takeLineEnd(b: Uint8Array, end: number): number {
    if (end >= b.length) return end;
    if (b[end] === CR && b[end + 1] === LF) {
      this.lineEnd = LF;
      return end + 2;
    }
    this.lineEnd = b[end];
    return end + 1;
  }

  private setHeader(text: string): void {
    this.delimiterText = headerDelimiter(text);
    this.delimiter = this.delimiterText.charCodeAt(0);
    this.decimalComma = this.delimiterText !== ",";
    const fields = splitHeaderLine(text, this.delimiterText);
    if (fields.length > MAX_COLUMNS) {
      this.fatal(1, `the header has ${fields.length} columns; more than ${MAX_COLUMNS} is not an iogen CSV`);
      return;
    }
    this.header = fields.map((f) => f.trim());
    this.kind = iogenKindOf(this.header);
    const required = this.kind === "subinterval" ? IOGEN_SUBINTERVAL_REQUIRED : IOGEN_SUMMARY_REQUIRED;
    const missing = required.filter((c) => !this.header.includes(c));
    if (missing.length > 0) {
      this.fatal(
        1,
        `missing required column${missing.length > 1 ? "s" : ""} ${missing.join(", ")} (iogen ${this.kind} CSV, see docs/iogen-csv.md)`,
      );
      return;
    }
    this.planColumns();
  }

  /** Decides, for every header position, which table column it fills. */
  private planColumns(): void {
    const n = this.header.length;
    this.fieldKind = new Uint8Array(n);
    this.fieldSlot = new Int32Array(n).fill(-1);
    const seen = new Set<string>();
    const numericAt = new Map<IogenNumericColumn, number>();
    const textAt_ = new Map<IogenTextColumn, number>();
    const labelAt: number[] = [];
    this.header.forEach((name, i) => {
      if (seen.has(name)) {
        this.warnings.push({
          file: this.file,
          line: 1,
          message: `duplicate column '${shown(name)}': the first one is used`,
        });
        return;
      }
      seen.add(name);
      if (NUMERIC_SET.has(name)) numericAt.set(name as IogenNumericColumn, i);
      else if (TEXT_SET.has(name)) textAt_.set(name as IogenTextColumn, i);
      else if (name !== "") {
        labelAt.push(i);
        this.labelColumns.push(name);
      }
    });
    this.table = new IogenTable(IOGEN_NUMERIC_COLUMNS, new Set(numericAt.keys()), this.labelColumns);
    // Stored numeric columns follow IOGEN_NUMERIC_COLUMNS order (the table's), whatever the file's.
    const numberTypes = new Map<string, string>(IOGEN_SCHEMA_COLUMNS.map((c) => [c.name, c.type]));
    for (const name of IOGEN_NUMERIC_COLUMNS) {
      const i = numericAt.get(name);
      if (i === undefined) continue;
      const k = this.numericNames.length;
      if (name === "iops") this.iopsAt = k;
      this.fieldKind[i] = FieldKind.Number;
      this.fieldSlot[i] = k;
      this.numericNames.push(name);
      this.allowMax.push(numberTypes.get(name) === "number_or_max");
    }
    const slot = (column: TextColumn, trim: boolean, empty: string): TextSlot => ({
      column,
      trim,
      emptyCode: column.intern(empty),
      cacheBytes: [],
      cacheCodes: [],
      cacheNext: 0,
    });
    const defaults: Partial<Record<IogenTextColumn, string>> = {
      category: "overall",
      phase: this.kind === "summary" ? "measure" : "",
    };
    for (const name of IOGEN_TEXT_COLUMNS) {
      const s = this.textSlots.length;
      // The host is kept as written: iogen writes names without spaces, and " all" must stay a
      // host name, not become the all row of a multi-host run.
      this.textSlots.push(slot(this.table.text[name], name !== "host", defaults[name] ?? ""));
      const i = textAt_.get(name);
      if (i !== undefined) {
        this.fieldKind[i] = FieldKind.Text;
        this.fieldSlot[i] = s;
      }
    }
    this.table.labels.forEach((l, j) => {
      const s = this.textSlots.length;
      this.textSlots.push(slot(l.column, false, ""));
      this.fieldKind[labelAt[j]] = FieldKind.Text;
      this.fieldSlot[labelAt[j]] = s;
    });
    const filled = new Set(Array.from(this.fieldSlot.filter((j, i) => this.fieldKind[i] === FieldKind.Text)));
    this.absentSlots = this.textSlots.map((_, j) => j).filter((j) => !filled.has(j));
  }

  /** Reads whole records from `pos`; returns where the first incomplete one starts. */
  private readRecords(b: Uint8Array, pos: number, eof: boolean): number {
    const n = b.length;
    while (pos < n && !this.dead) {
      const plain = this.plainPath ? this.plainRecords(b, pos) : pos;
      if (plain !== pos) {
        pos = plain;
        continue;
      }
      const next = this.readRecord(b, pos, eof);
      if (next < 0) break;
      pos = next;
    }
    return pos;
  }

  /**
   * The fast path: reads consecutive plain records from `start` — no quote, every number a plain
   * decimal of at most 15 digits or empty, the header's number of fields, a line break at the end,
   * iops present — straight into the columns, and returns where the first other record starts
   * (`start` itself when that is the first one). Every other record, and a record cut by the end
   * of the buffer, is left to {@link readRecord}, which stores or rejects it with its line number;
   * this path never rejects anything, so the two always agree on what is stored.
   *
   * Numbers: digits accumulate in an int32 while there are at most 9 of them (a short dependency
   * chain: integer multiply-add instead of floating point), then in a double; the value is
   * m / 10^k, exact as in {@link decimalAt}.
   */
  private plainRecords(b: Uint8Array, start: number): number {
    const n = b.length;
    const D = this.delimiter;
    const T = this.lineEnd;
    const DOT = this.decimalComma ? 44 : 46;
    const kinds = this.fieldKind;
    const last = kinds.length - 1;
    const numbers = this.fieldNumbers;
    const iopsColumn = this.iopsAt < 0 ? null : this.numberData[this.iopsAt];
    const absent = this.absentSlots;
    let pos = start;
    let row = this.rows;
    while (pos < n && row < this.capacity) {
      let p = pos;
      for (let f = 0; f <= last && p >= 0; f++) {
        const end = f === last ? T : D;
        p =
          kinds[f] === FieldKind.Number
            ? plainNumberField(b, p, end, DOT, numbers[f], row)
            : this.plainTextField(b, p, end, f, row);
      }
      if (p < 0 || (iopsColumn !== null && iopsColumn[row] !== iopsColumn[row]) || p - pos > MAX_LINE_BYTES) break;
      this.lineData[row] = this.line++;
      for (let a = 0; a < absent.length; a++) this.codeData[absent[a]][row] = this.textSlots[absent[a]].emptyCode;
      row++;
      this.rows = row;
      pos = p;
    }
    return pos;
  }

  /**
   * An unquoted text field of a plain record, stored at `row`: returns the index after the `end`
   * byte that closes it, or -1 when it does not end there or starts with a quote.
   */
  private plainTextField(b: Uint8Array, p: number, end: number, f: number, row: number): number {
    const n = b.length;
    const D = this.delimiter;
    const T = this.lineEnd;
    const s = p;
    if (p < n && b[p] === QUOTE) return -1;
    while (p < n) {
      const c = b[p];
      if (c === D || c === T) break;
      p++;
    }
    if (p >= n || b[p] !== end) return -1;
    const slot = this.fieldTexts[f];
    if (slot !== null) {
      // The CR of a CRLF line break is not part of the last field.
      const e = end === LF && T === LF && p > s && b[p - 1] === CR ? p - 1 : p;
      this.codeData[this.fieldSlot[f]][row] = textCode(slot, b, s, e);
    }
    return p + 1;
  }

  /**
   * Reads the record starting at `start`: stores it, or reports why not. Returns the index after
   * its line break, `b.length` at the end of the input, or -1 when the record is not complete yet.
   * Fields are written straight into the columns at index `rows`; the row counts only when
   * {@link storeRow} accepts it (a rejected row is overwritten by the next one).
   */
  private readRecord(b: Uint8Array, start: number, eof: boolean): number {
    const n = b.length;
    const D = this.delimiter;
    const columns = this.fieldKind.length;
    const kinds = this.fieldKind;
    if (this.rows === this.capacity) this.grow(this.consumedBefore + start);
    this.rowProblem = null;
    this.extraLines = 0;
    let p = start;
    let f = 0;
    for (;;) {
      const fieldStart = p;
      if (p < n && b[p] === QUOTE) {
        p = this.quotedField(b, p, eof, f);
        if (p === NEED_MORE) return -1;
        if (p === FATAL) return n;
      } else if (f < columns && kinds[f] === FieldKind.Number) p = this.numberField(b, p, f);
      else p = this.textField(b, p, f);
      if (p >= n) {
        if (!eof) return -1;
        this.partialLastLine(b, start, f + 1, fieldStart);
        return n;
      }
      f++;
      p++;
      if (b[p - 1] !== D) break;
    }
    return this.endRecord(b, start, p, f);
  }

  /** Judges a whole record (`start`…`end`, line break included) of `fields` fields. */
  private endRecord(b: Uint8Array, start: number, end: number, fields: number): number {
    const line = this.line;
    const columns = this.fieldKind.length;
    this.line += 1 + this.extraLines;
    if (end - start > MAX_LINE_BYTES) {
      this.fatal(line, `line longer than ${MAX_LINE_BYTES} bytes`);
    } else if (fields !== columns) {
      if (fields === 1 && this.blank(b, start, end - 1)) return end;
      this.error(line, `${fields} fields, the header has ${columns}`);
    } else if (this.rowProblem !== null) this.error(line, this.rowProblem);
    else this.storeRow(line);
    return end;
  }

  /** Where an unquoted field ends, without the CR of a CRLF line break. */
  private unquotedEnd(b: Uint8Array, start: number, p: number): number {
    return this.lineEnd === LF && b[p] === LF && p > start && b[p - 1] === CR ? p - 1 : p;
  }

  /**
   * A numeric field: one pass finds its end and reads a plain decimal as it goes (the fast path
   * of decimalAt, fused; the decimal point's position gives the scale). Anything else (a sign,
   * an exponent, more than 15 digits, a blank, a CR) is read again by takeField. Returns the
   * index of the delimiter or line break after it (`b.length` when none).
   */
  private numberField(b: Uint8Array, start: number, f: number): number {
    const n = b.length;
    const D = this.delimiter;
    const T = this.lineEnd;
    const comma = this.decimalComma;
    let m = 0;
    let dot = -1;
    let other = false;
    let p = start;
    for (; p < n; p++) {
      const c = b[p];
      const d = (c - 48) >>> 0;
      if (d <= 9) m = m * 10 + d;
      else if (c === D || c === T) break;
      else if (dot < 0 && (c === 46 || (c === 44 && comma))) dot = p;
      else other = true;
    }
    const digits = p - start - (dot >= 0 ? 1 : 0);
    if (!other && digits > 0 && digits <= 15) {
      this.numberData[this.fieldSlot[f]][this.rows] = dot >= 0 ? m / POW10[p - dot - 1] : m;
    } else this.takeField(b, start, this.unquotedEnd(b, start, p), f, false);
    return p;
  }

  /** An unquoted text field (or one past the header's columns); returns where it ends, as numberField. */
  private textField(b: Uint8Array, start: number, f: number): number {
    const n = b.length;
    const D = this.delimiter;
    const T = this.lineEnd;
    let p = start;
    while (p < n) {
      const c = b[p];
      if (c === D || c === T) break;
      p++;
    }
    if (f < this.fieldKind.length) this.takeField(b, start, this.unquotedEnd(b, start, p), f, false);
    return p;
  }

  /**
   * A quoted field opening at `start`: RFC 4180, line breaks inside counted in `extraLines`.
   * Returns the index of the delimiter or line break after it, NEED_MORE, or FATAL (a quote
   * never closed: the error is recorded).
   */
  private quotedField(b: Uint8Array, start: number, eof: boolean, f: number): number {
    const n = b.length;
    const D = this.delimiter;
    const T = this.lineEnd;
    const q = quotedEnd(b, start, n, eof, T, this.breaks);
    if (q < 0) {
      if (!eof) return NEED_MORE;
      this.fatal(
        this.line + this.extraLines,
        "a quote opened here is never closed: the rest of the file would be one field",
      );
      return FATAL;
    }
    this.extraLines += this.breaks.n;
    let p = q;
    if (T === LF && p < n && b[p] === CR) {
      // CRLF after a closing quote: the CR belongs to the line break.
      if (p + 1 === n && !eof) return NEED_MORE;
      if (p + 1 < n && b[p + 1] === LF) p++;
    }
    if (p < n && b[p] !== D && b[p] !== T) {
      this.rowProblem ??= `text after the closing quote of field ${f + 1}`;
      while (p < n && b[p] !== D && b[p] !== T) p++;
    }
    if (f < this.fieldKind.length) this.takeField(b, start, q, f, true);
    return p;
  }

  /** True when bytes `start`…`end` are only spaces, tabs and CR (a blank line). */
  private blank(b: Uint8Array, start: number, end: number): boolean {
    for (let i = start; i < end; i++) if (b[i] !== SPACE && b[i] !== TAB && b[i] !== CR) return false;
    return true;
  }

  /** The last record has no line break after it: it may be cut off, so it is dropped, and said. */
  private partialLastLine(b: Uint8Array, start: number, fields: number, lastStart: number): void {
    if (fields === 1 && this.blank(b, start, b.length)) return;
    const columns = this.fieldKind.length;
    const what =
      fields < columns
        ? `${fields} of ${columns} fields`
        : `no line break at its end, so its last value '${shown(textAt(b, lastStart, Math.min(b.length, lastStart + 40)))}' may be cut off`;
    this.warnings.push({ file: this.file, line: this.line, message: `1 truncated last line skipped (${what})` });
    this.cutAtEnd = true;
  }

  /** Converts field `f` (bytes `s`…`e`) into the row's scratch; a problem is kept in `rowProblem`. */
  private takeField(b: Uint8Array, s: number, e: number, f: number, quoted: boolean): void {
    const kind = this.fieldKind[f];
    if (kind === FieldKind.Number) {
      const k = this.fieldSlot[f];
      let v = quoted ? NOT_PLAIN : decimalAt(b, s, e, this.decimalComma);
      if (v === NOT_PLAIN) v = this.slowNumber(b, s, e, k, quoted);
      else if (v < 0)
        this.rowProblem ??= `column ${this.numericNames[k]}: ${shown(textAt(b, s, e), 40)} ${figureProblem(v)}`;
      this.numberData[k][this.rows] = v;
    } else if (kind === FieldKind.Text) {
      const j = this.fieldSlot[f];
      this.codeData[j][this.rows] = quoted
        ? quotedCode(this.textSlots[j], b, s, e)
        : textCode(this.textSlots[j], b, s, e);
    }
  }

  private slowNumber(b: Uint8Array, s: number, e: number, k: number, quoted: boolean): number {
    if (s === e) return NaN;
    const text = quoted ? unquote(b, s, e) : textAt(b, s, e);
    const v = parseNumberText(text, this.decimalComma);
    if (v === null) return NaN;
    if (typeof v === "string") {
      if (this.allowMax[k] && text.trim().toLowerCase() === "max") return NaN;
      this.rowProblem ??= `column ${this.numericNames[k]}: '${shown(text, 40)}' ${v}`;
      return NaN;
    }
    const problem = figureProblem(v);
    if (problem) this.rowProblem ??= `column ${this.numericNames[k]}: ${shown(text.trim(), 40)} ${problem}`;
    return v;
  }

  /** Room for more rows in every column at once: to the expected row count when the size is known. */
  private grow(consumed: number): void {
    const t = this.table;
    const rows = this.rows;
    let capacity = rows + (rows >> 2) + 1024;
    if (this.expectedBytes > 0 && rows >= 1024 && consumed > 0) {
      // Rows so far × (file size ÷ bytes so far), plus 2 %: one allocation instead of a series of
      // copies, and no spare quarter left at the end (peak memory stays near the table's size).
      capacity = Math.max(capacity, Math.ceil(((this.expectedBytes / consumed) * rows * 1.02) | 0) + 1024);
    }
    this.closeColumns(); // the lengths, so reserve keeps every row stored so far
    t.line.reserve(capacity);
    for (const c of t.numeric) c.reserve(capacity);
    for (const slot of this.textSlots) slot.column.codes.reserve(capacity);
    this.lineData = t.line.storage();
    this.numberData = t.numeric.map((c) => c.storage());
    this.codeData = this.textSlots.map((slot) => slot.column.codes.storage());
    const none = new Float64Array(0);
    this.fieldNumbers = Array.from(this.fieldKind, (kind, f) =>
      kind === FieldKind.Number ? this.numberData[this.fieldSlot[f]] : none,
    );
    this.fieldTexts = Array.from(this.fieldKind, (kind, f) =>
      kind === FieldKind.Text ? this.textSlots[this.fieldSlot[f]] : null,
    );
    this.capacity = capacity;
  }

  private storeRow(line: number): void {
    const i = this.rows;
    const iops = this.iopsAt < 0 ? NaN : this.numberData[this.iopsAt][i];
    if (iops !== iops) {
      // iogen leaves iops empty for a step interrupted during its warm-up (no measurement): the
      // row is not stored, but what it says of the interruption is kept for the warning.
      if (this.emptyIops++ === 0) this.warnings.push({ file: this.file, line, message: SKIPPED_NO_IOPS });
      if (this.table.text.interrupted_by.get(i) !== "") this.cutRows.push({ ...this.table.row(i), line });
      return;
    }
    this.lineData[i] = line;
    for (const j of this.absentSlots) this.codeData[j][i] = this.textSlots[j].emptyCode;
    this.rows = i + 1;
  }

  /** Sets every column's length to the rows stored (they are written in step, see {@link storeRow}). */
  private closeColumns(): void {
    const t = this.table;
    t.line.length = this.rows;
    for (const c of t.numeric) c.length = this.rows;
    for (const slot of this.textSlots) slot.column.codes.length = this.rows;
  }

  private result(): IogenCsvResult {
    const meta = {
      kind: this.kind,
      header: this.header,
      labelColumns: this.labelColumns,
      delimiter: this.delimiterText,
    };
    return iogenCsvResult(this.file, this.table, meta, this.warnings, this.errors);
  }
}
