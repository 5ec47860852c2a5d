/**
 * Column storage for the rows of an iogen CSV (`iogen-csv.ts`): one growable `Float64Array` per
 * numeric column and one array of small-integer codes per text column, so a million-row file
 * holds a few dozen typed arrays instead of a million row objects (which cost the garbage
 * collector a re-mark of an ever larger heap, and about 0.7 KB each).
 *
 * - Numbers: an empty cell is stored as NaN (the reader turns `nan`, `inf`, `n/a`… into empty
 *   cells, so NaN never stands for a value); {@link NumberColumn.value} gives it back as `null`.
 * - Texts: each distinct text once in `texts`, each row a `Uint32Array` code into it.
 * - Row objects ({@link IogenRow}) are made only on request ({@link IogenTable.row}), for small
 *   files, tests and the golden JSON.
 *
 * Cost: amortised O(1) per value appended (capacity grows by half); {@link IogenTable.trim} at
 * the end drops the spare capacity.
 */
import type { IogenNumericColumn, IogenRow } from "./iogen-row";

const INITIAL_CAPACITY = 1024;

function grownCapacity(current: number): number {
  return current + (current >> 1) + 16;
}

/** A growable array of doubles; NaN marks an empty cell. */
export class NumberColumn {
  private data = new Float64Array(INITIAL_CAPACITY);
  length = 0;

  /** Appends one value (NaN for an empty cell). */
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Float64Array(grownCapacity(this.data.length));
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }

  /** The raw value of row `i` (NaN when the cell was empty). */
  get(i: number): number {
    return this.data[i];
  }

  /** The value of row `i`, `null` when the cell was empty. */
  value(i: number): number | null {
    const v = this.data[i];
    return v === v ? v : null;
  }

  /** The values as one array: a view of the storage, not a copy (NaN = empty). */
  values(): Float64Array {
    return this.data.subarray(0, this.length);
  }

  /**
   * The storage itself, for a writer that fills many columns in step (the iogen reader): it
   * writes `storage()[length]`, then sets `length`; {@link reserve} first makes the room.
   */
  storage(): Float64Array {
    return this.data;
  }

  /** Makes room for `capacity` values in all (one copy when it grows). */
  reserve(capacity: number): void {
    if (capacity <= this.data.length) return;
    const next = new Float64Array(capacity);
    next.set(this.data.subarray(0, this.length));
    this.data = next;
  }

  /**
   * Drops the spare capacity: a copy when more than an eighth is spare, else a view (copying a
   * large column costs more time, in fresh pages, than the few spare values cost memory).
   */
  trim(): void {
    if (this.data.length - this.length > this.data.length >> 3) this.data = this.data.slice(0, this.length);
    else this.data = this.data.subarray(0, this.length);
  }
}

/** A growable array of unsigned 32-bit integers (text codes, line numbers). */
export class Uint32Column {
  private data = new Uint32Array(INITIAL_CAPACITY);
  length = 0;

  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Uint32Array(grownCapacity(this.data.length));
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }

  get(i: number): number {
    return this.data[i];
  }

  /** The values as one array: a view of the storage, not a copy. */
  values(): Uint32Array {
    return this.data.subarray(0, this.length);
  }

  /**
   * The storage itself, for a writer that fills many columns in step (the iogen reader): it
   * writes `storage()[length]`, then sets `length`; {@link reserve} first makes the room.
   */
  storage(): Uint32Array {
    return this.data;
  }

  /** Makes room for `capacity` values in all (one copy when it grows). */
  reserve(capacity: number): void {
    if (capacity <= this.data.length) return;
    const next = new Uint32Array(capacity);
    next.set(this.data.subarray(0, this.length));
    this.data = next;
  }

  /** Drops the spare capacity, as {@link NumberColumn.trim} does. */
  trim(): void {
    if (this.data.length - this.length > this.data.length >> 3) this.data = this.data.slice(0, this.length);
    else this.data = this.data.subarray(0, this.length);
  }
}

/**
 * A text column as codes into a dictionary of distinct texts. Consecutive equal texts (the common
 * case: host, phase, labels repeat row after row) cost one string comparison, no lookup.
 */
export class TextColumn {
  /** Each distinct text once, in first-seen order; a row's code indexes it. */
  readonly texts: string[] = [];
  readonly codes = new Uint32Column();
  private readonly index = new Map<string, number>();
  private last: string | null = null;
  private lastCode = 0;

  get length(): number {
    return this.codes.length;
  }

  /** Appends one text. */
  push(s: string): void {
    if (s !== this.last) {
      let c = this.index.get(s);
      if (c === undefined) {
        c = this.texts.length;
        this.texts.push(s);
        this.index.set(s, c);
      }
      this.last = s;
      this.lastCode = c;
    }
    this.codes.push(this.lastCode);
  }

  /** The code of a text, adding it to the dictionary when new (no row is appended). */
  intern(s: string): number {
    let c = this.index.get(s);
    if (c === undefined) {
      c = this.texts.length;
      this.texts.push(s);
      this.index.set(s, c);
    }
    return c;
  }

  /** Appends one row holding the text of `code` (from {@link intern}). */
  pushCode(code: number): void {
    this.codes.push(code);
  }

  /** The text of row `i`. */
  get(i: number): string {
    return this.texts[this.codes.get(i)];
  }

  /** The code of row `i` (an index into `texts`). */
  code(i: number): number {
    return this.codes.get(i);
  }

  /**
   * Drops spare capacity, and texts no row holds (a reader interns a cell's text before it knows
   * whether the row is kept), renumbering the codes so `texts` lists exactly the texts in use.
   */
  trim(): void {
    this.codes.trim();
    const codes = this.codes.values();
    const used = new Uint8Array(this.texts.length);
    for (let i = 0; i < codes.length; i++) used[codes[i]] = 1;
    if (used.every((u) => u === 1)) return;
    // Compacted in place: spreading a copy into push() overflows the call stack from about
    // 125,000 texts (every argument goes on the stack).
    const remap = new Uint32Array(this.texts.length);
    let kept = 0;
    for (let c = 0; c < this.texts.length; c++) {
      if (used[c] === 1) {
        remap[c] = kept;
        this.texts[kept++] = this.texts[c];
      }
    }
    this.texts.length = kept;
    for (let i = 0; i < codes.length; i++) codes[i] = remap[codes[i]];
    this.index.clear();
    this.texts.forEach((t, c) => this.index.set(t, c));
    this.last = null;
  }
}

/** The text columns iogen itself writes, stored for every row (absent columns hold their default). */
export interface IogenTextColumns {
  host: TextColumn;
  step_name: TextColumn;
  phase: TextColumn;
  category: TextColumn;
  seen_enough: TextColumn;
  engine: TextColumn;
  preconditioned: TextColumn;
  interrupted_by: TextColumn;
}

/** The rows of one iogen CSV, column by column. */
export class IogenTable {
  /** 1-based line number of each row in the file (header = line 1). */
  readonly line = new Uint32Column();
  readonly text: IogenTextColumns = {
    host: new TextColumn(),
    step_name: new TextColumn(),
    phase: new TextColumn(),
    category: new TextColumn(),
    seen_enough: new TextColumn(),
    engine: new TextColumn(),
    preconditioned: new TextColumn(),
    interrupted_by: new TextColumn(),
  };
  /** Label columns (every column iogen does not define), in file order. */
  readonly labels: { name: string; column: TextColumn }[];
  /** Numeric columns in {@link numericNames} order; a column absent from the file is not stored. */
  readonly numeric: NumberColumn[];
  private readonly columns: Map<IogenNumericColumn, NumberColumn>;

  /**
   * @param numericNames - every numeric column name, in the order rows list them (IOGEN_NUMERIC_COLUMNS)
   * @param present - the numeric columns the file has
   * @param labelNames - the label columns, in file order
   */
  constructor(
    readonly numericNames: readonly IogenNumericColumn[],
    present: ReadonlySet<IogenNumericColumn>,
    labelNames: readonly string[],
  ) {
    this.columns = new Map();
    this.numeric = [];
    for (const name of numericNames) {
      if (!present.has(name)) continue;
      const c = new NumberColumn();
      this.numeric.push(c);
      this.columns.set(name, c);
    }
    this.labels = labelNames.map((name) => ({ name, column: new TextColumn() }));
  }

  /** Rows stored. */
  get length(): number {
    return this.line.length;
  }

  /** The column of a numeric field, or null when the file does not have it (every value empty). */
  column(name: IogenNumericColumn): NumberColumn | null {
    return this.columns.get(name) ?? null;
  }

  /** One value, `null` when empty or when the file lacks the column. */
  value(name: IogenNumericColumn, i: number): number | null {
    const c = this.columns.get(name);
    return c === undefined ? null : c.value(i);
  }

  /** Drops spare capacity in every column (call once, when the file has been read). */
  trim(): void {
    this.line.trim();
    for (const c of Object.values(this.text)) c.trim();
    for (const l of this.labels) l.column.trim();
    for (const c of this.numeric) c.trim();
  }

  /** Row `i` as an object, the shape the reader's `rows` list has (made on request). */
  row(i: number): IogenRow {
    const values = {} as Record<IogenNumericColumn, number | null>;
    for (const name of this.numericNames) values[name] = this.value(name, i);
    const labels: Record<string, string> = {};
    for (const l of this.labels) labels[l.name] = l.column.get(i);
    return {
      line: this.line.get(i),
      host: this.text.host.get(i),
      step_name: this.text.step_name.get(i),
      phase: this.text.phase.get(i),
      category: this.text.category.get(i),
      seen_enough: this.text.seen_enough.get(i),
      engine: this.text.engine.get(i),
      preconditioned: this.text.preconditioned.get(i),
      interrupted_by: this.text.interrupted_by.get(i),
      values,
      labels,
    };
  }

  /** Every row as an object: O(rows) objects, for small files and tests. */
  rows(): IogenRow[] {
    const out: IogenRow[] = new Array<IogenRow>(this.length);
    for (let i = 0; i < this.length; i++) out[i] = this.row(i);
    return out;
  }
}
