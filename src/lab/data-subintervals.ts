/** Subinterval rows by step: grouping each file's rows by host × step × category, a group's measure-phase and steady-state rows, and the rows the workbook shows, column by column. */
import { LabFileResult } from "../import/detect";
import { IogenTable, NumberColumn, TextColumn, Uint32Column } from "../import/iogen-table";
import { IogenNumericColumn } from "../import/iogen-csv";
import { ColumnData } from "../workbook/plan";
import type { LabStep, SubintervalGroup, SubintervalSegment } from "./data";

export const key = (host: string, step: string, category: string): string => `${host}\u0000${step}\u0000${category}`;

export function stepId(v: number | null): string {
  return v === null ? "" : String(v);
}

/** A column of a group's table, or null when the file lacks it. */
export type Col = NumberColumn | null;

export const valueAt = (c: Col, i: number): number | null => (c === null ? null : c.value(i));

/**
 * The group's rows in the measure phase (warm-up excluded), as table row indices.
 *
 * @example measureRowsOf(group).length // => the step's measured subintervals
 */
export function measureRowsOf(g: SubintervalGroup): Uint32Array {
  const phase = g.table.text.phase;
  const measure = phase.texts.indexOf("measure");
  if (measure < 0) return new Uint32Array(0);
  let n = 0;
  for (let k = 0; k < g.rows.length; k++) if (phase.code(g.rows[k]) === measure) n++;
  if (n === g.rows.length) return g.rows;
  const out = new Uint32Array(n);
  n = 0;
  for (let k = 0; k < g.rows.length; k++) if (phase.code(g.rows[k]) === measure) out[n++] = g.rows[k];
  return out;
}

/**
 * The group's rows in the step's steady-state window: its measured rows from iogen's `steady_from`
 * on (the rows its summary covers), else all measured rows.
 */
export function steadyRowsOf(g: SubintervalGroup, step: LabStep): Uint32Array {
  const measure = measureRowsOf(g);
  const from = step.steady?.basis === "iogen" ? step.steady.from : null;
  if (from === null) return measure;
  const subCol = g.table.column("subinterval");
  return measure.filter((i) => (valueAt(subCol, i) ?? 0) >= from);
}

/**
 * Adds one subinterval file's rows to the groups by host × step × category (first file wins when
 * several give the same key). Rows are looked up by their numeric step and their host and
 * category codes, so the text key is built once per group of a file, not once per row.
 *
 * @returns the file's segment of kept rows, or null when it keeps none
 */
function groupSubintervalRows(file: string, table: IogenTable, groups: GroupMap): SubintervalSegment | null {
  const stepCol = table.column("step");
  const host = table.text.host;
  const category = table.text.category;
  const local = new Map<number, Map<number, Uint32Column | null>>();
  // The last group seen per category code: rows of a step come in runs (overall, read, write
  // interleaved), so most rows find their group here without a Map lookup.
  const lastStep: number[] = [];
  const lastHost: number[] = [];
  const lastRows: (Uint32Column | null)[] = [];
  const kept = new Uint32Column();
  for (let i = 0; i < table.length; i++) {
    const step = stepCol === null ? NaN : stepCol.get(i);
    const hc = host.code(i);
    const cc = category.code(i);
    if (lastHost[cc] === hc && Object.is(lastStep[cc], step)) {
      const cached = lastRows[cc];
      if (cached === null) continue;
      cached.push(i);
      kept.push(i);
      continue;
    }
    let byText = local.get(step);
    if (byText === undefined) {
      byText = new Map();
      local.set(step, byText);
    }
    const localKey = hc * 4294967296 + cc;
    let rows = byText.get(localKey);
    if (rows === undefined) {
      const id = stepId(step === step ? step : null);
      const k = key(host.get(i), id, category.get(i));
      let g = groups.get(k);
      if (!g) {
        const group: SubintervalGroup = {
          source: file,
          table,
          rows: new Uint32Array(0),
          host: host.get(i),
          step: id,
          stepName: table.text.step_name.get(i),
          category: category.get(i),
        };
        g = { group, rows: new Uint32Column() };
        groups.set(k, g);
      }
      rows = g.group.source === file ? g.rows : null;
      byText.set(localKey, rows);
    }
    lastStep[cc] = step;
    lastHost[cc] = hc;
    lastRows[cc] = rows;
    if (rows === null) continue;
    rows.push(i);
    kept.push(i);
  }
  if (kept.length === 0) return null;
  const all = kept.length === table.length;
  kept.trim();
  return { source: file, table, rows: all ? null : kept.values(), length: kept.length };
}

/** Subinterval groups by host × step × category key, with the rows gathered for each. */
export type GroupMap = Map<string, { group: SubintervalGroup; rows: Uint32Column }>;

/**
 * Groups every subinterval file's rows by host × step × category (first file wins when several give
 * the same key). Rows are looked up by their numeric step and their host and category codes, so
 * the text key is built once per group of a file, not once per row.
 */
export function groupSubintervals(
  inputs: readonly LabFileResult[],
  addLabels: (names: Iterable<string>) => void,
): { groups: GroupMap; segments: SubintervalSegment[]; ordered: SubintervalGroup[] } {
  const groups: GroupMap = new Map();
  const segments: SubintervalSegment[] = [];
  for (const input of inputs) {
    if (input.format !== "iogen-subinterval") continue;
    addLabels(input.iogen.labelColumns);
    const segment = groupSubintervalRows(input.file, input.iogen.table, groups);
    if (segment) segments.push(segment);
  }
  const ordered: SubintervalGroup[] = [];
  for (const g of groups.values()) {
    g.rows.trim();
    g.group.rows = g.rows.values();
    ordered.push(g.group);
  }
  return { groups, segments, ordered };
}

/**
 * The subinterval rows the workbook shows (the first `limit` of the segments, in order), column by
 * column, as plain arrays ({@link ColumnData}) read straight from the readers' typed arrays: no
 * object per row.
 */
export class SubintervalColumns {
  /** Rows shown. */
  readonly length: number;
  /** Per segment: rows taken (a prefix of the segment). */
  private readonly take: number[];

  constructor(
    private readonly segments: readonly SubintervalSegment[],
    limit: number,
  ) {
    let left = Math.max(0, limit);
    this.take = segments.map((s) => {
      const n = Math.min(s.length, left);
      left -= n;
      return n;
    });
    this.length = this.take.reduce((a, b) => a + b, 0);
  }

  /** A numeric column; `emptyAs` replaces empty cells when given, else they are listed in `empty`. */
  number(name: IogenNumericColumn, emptyAs?: number): ColumnData {
    const values = new Array<number>(this.length);
    const empty: number[] = [];
    let pos = 0;
    this.segments.forEach((s, n) => {
      const c = s.table.column(name);
      const raw = c === null ? null : c.values();
      const rows = s.rows;
      for (let k = 0; k < this.take[n]; k++) {
        const v = raw === null ? NaN : raw[rows === null ? k : rows[k]];
        if (v === v) values[pos] = v;
        else if (emptyAs !== undefined) values[pos] = emptyAs;
        else {
          values[pos] = 0;
          empty.push(pos);
        }
        pos++;
      }
    });
    return { kind: "number", values, empty };
  }

  /** A text column of the readers' tables (`pick` chooses it). */
  text(pick: (t: IogenTable) => TextColumn): ColumnData {
    const texts: string[] = [];
    const index = new Map<string, number>();
    const codes = new Array<number>(this.length);
    let pos = 0;
    this.segments.forEach((s, n) => {
      const col = pick(s.table);
      const remap = col.texts.map((t) => {
        let c = index.get(t);
        if (c === undefined) {
          c = texts.length;
          texts.push(t);
          index.set(t, c);
        }
        return c;
      });
      const raw = col.codes.values();
      const rows = s.rows;
      for (let k = 0; k < this.take[n]; k++) codes[pos++] = remap[raw[rows === null ? k : rows[k]]];
    });
    return { kind: "text", codes, texts };
  }

  /** The source file of each row. */
  source(): ColumnData {
    const texts = this.segments.map((s) => s.source);
    const codes = new Array<number>(this.length);
    let pos = 0;
    this.take.forEach((n, seg) => {
      for (let k = 0; k < n; k++) codes[pos++] = seg;
    });
    return { kind: "text", codes, texts };
  }

  /** The step identifier as text (the CSV's step number; "" when empty). */
  step(): ColumnData {
    const texts: string[] = [];
    const index = new Map<number, number>();
    const codes = new Array<number>(this.length);
    let pos = 0;
    this.segments.forEach((s, n) => {
      const c = s.table.column("step");
      const raw = c === null ? null : c.values();
      const rows = s.rows;
      let last = NaN;
      let lastCode = -1;
      for (let k = 0; k < this.take[n]; k++) {
        const v = raw === null ? NaN : raw[rows === null ? k : rows[k]];
        if (lastCode < 0 || !Object.is(v, last)) {
          let code = index.get(v);
          if (code === undefined) {
            code = texts.length;
            texts.push(stepId(v === v ? v : null));
            index.set(v, code);
          }
          last = v;
          lastCode = code;
        }
        codes[pos++] = lastCode;
      }
    });
    return { kind: "text", codes, texts };
  }

  /** True when any row shown has a value in this numeric column. */
  anyValue(name: IogenNumericColumn): boolean {
    return this.segments.some((s, n) => {
      const c = s.table.column(name);
      if (c === null) return false;
      for (let k = 0; k < this.take[n]; k++) if (c.value(s.rows === null ? k : s.rows[k]) !== null) return true;
      return false;
    });
  }

  /** The rows of a group that are shown (all of them unless the limit cuts into its file). */
  included(g: SubintervalGroup): Uint32Array {
    const n = this.segments.findIndex((s) => s.table === g.table && s.source === g.source);
    if (n < 0) return new Uint32Array(0);
    const s = this.segments[n];
    if (this.take[n] === s.length) return g.rows;
    const bound = this.take[n] === 0 ? 0 : (s.rows === null ? this.take[n] - 1 : s.rows[this.take[n] - 1]) + 1;
    let end = 0;
    while (end < g.rows.length && g.rows[end] < bound) end++;
    return g.rows.subarray(0, end);
  }
}
