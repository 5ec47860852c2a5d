/**
 * An in-memory Excel for the sharing tests: the subset of Office.js that `src/excel/sharing-excel.ts`
 * uses (worksheets, used ranges, getRangeByIndexes, values / formulas / numberFormat, copyFrom,
 * Worksheet.copy, Excel.createWorkbook, requirement sets), with Excel's behaviours that matter here:
 * - formulas are recalculated on every sync (with the add-in's evaluator, as Excel with Capacity Lab
 *   loaded would), array results spill into the cells below/right;
 * - `Range.values` with a text that begins with "=" turns into a formula unless the cell is
 *   formatted as text ("@") — the trap a values-only copy must not fall into;
 * - `null` in a values array leaves the cell as it is;
 * - `Range.formulas` of a constant (or spilled) cell is its value; error values read as text with
 *   valueType "Error".
 */
import "./publish-functions";
import { FormulaEvaluator, isErrorValue, Scalar, Unsupported } from "../../src/excel/sharing-eval";

interface Cell {
  formula?: string;
  value: Scalar;
  numberFormat: string;
  spilled?: boolean;
}

function key(r: number, c: number): string {
  return `${r},${c}`;
}

function parseA1(a1: string): { row: number; col: number } {
  const m = /^\$?([A-Z]{1,3})\$?(\d+)$/.exec(a1) as RegExpExecArray;
  let col = 0;
  for (const ch of m[1]) col = col * 26 + (ch.charCodeAt(0) - 64);
  return { row: Number(m[2]) - 1, col: col - 1 };
}

export class FakeSheet {
  cells = new Map<string, Cell>();
  charts = 0;
  constructor(public name: string) {}

  clone(name: string): FakeSheet {
    const s = new FakeSheet(name);
    for (const [k, c] of this.cells) s.cells.set(k, { ...c });
    s.charts = this.charts;
    return s;
  }

  cell(r: number, c: number): Cell {
    let cell = this.cells.get(key(r, c));
    if (!cell) {
      cell = { value: null, numberFormat: "General" };
      this.cells.set(key(r, c), cell);
    }
    return cell;
  }

  /** Bounding box of non-empty cells, or undefined. */
  used(): { row: number; col: number; rows: number; cols: number } | undefined {
    let r0 = Infinity;
    let c0 = Infinity;
    let r1 = -1;
    let c1 = -1;
    for (const [k, c] of this.cells) {
      if (c.formula === undefined && (c.value === null || c.value === "")) continue;
      const [r, col] = k.split(",").map(Number);
      r0 = Math.min(r0, r);
      c0 = Math.min(c0, col);
      r1 = Math.max(r1, r);
      c1 = Math.max(c1, col);
    }
    return r1 < 0 ? undefined : { row: r0, col: c0, rows: r1 - r0 + 1, cols: c1 - c0 + 1 };
  }
}

export class FakeWorkbook {
  sheets: FakeSheet[] = [];
  created: string[] = [];
  supported = new Set(["1.1", "1.7", "1.8", "1.9"]);
  syncs = 0;

  sheet(name: string): FakeSheet {
    const s = this.sheets.find((x) => x.name.toLowerCase() === name.toLowerCase());
    if (!s) throw new Error(`ItemNotFound: ${name}`);
    return s;
  }

  addSheet(name: string): FakeSheet {
    if (this.sheets.some((x) => x.name.toLowerCase() === name.toLowerCase()))
      throw new Error(`ItemAlreadyExists: ${name}`);
    const s = new FakeSheet(name);
    this.sheets.push(s);
    return s;
  }

  /** Writes one cell as a user or a renderer would through Range.formulas / Range.values. */
  write(sheet: FakeSheet, r: number, c: number, v: unknown, asValue: boolean): void {
    if (v === null) return; // Office.js: null leaves the cell unchanged
    const cell = sheet.cell(r, c);
    cell.spilled = false;
    if (typeof v === "string" && v.startsWith("=") && !(asValue && cell.numberFormat === "@")) {
      cell.formula = v;
      cell.value = null;
    } else {
      cell.formula = undefined;
      cell.value = v === "" ? null : (v as Scalar);
    }
  }

  /** Recalculates every formula (a few passes settle chains) and spills array results. */
  recalc(): void {
    for (const s of this.sheets) for (const [k, c] of [...s.cells]) if (c.spilled) s.cells.delete(k);
    for (let pass = 0; pass < 6; pass++) {
      for (const s of this.sheets) {
        const ev = new FormulaEvaluator((name, range) => {
          const sheet = name === undefined ? s : this.sheet(name);
          const [a, b] = range.split(":").map(parseA1);
          const end = b ?? a;
          const out: Scalar[][] = [];
          for (let r = a.row; r <= end.row; r++) {
            const line: Scalar[] = [];
            for (let c = a.col; c <= end.col; c++) line.push(sheet.cells.get(key(r, c))?.value ?? null);
            out.push(line);
          }
          return out;
        });
        for (const [k, c] of [...s.cells]) {
          if (c.formula === undefined) continue;
          let v;
          try {
            v = ev.evaluate(c.formula);
          } catch (e) {
            if (!(e instanceof Unsupported)) throw e;
            v = { error: "#NAME?" };
          }
          const [r, col] = k.split(",").map(Number);
          if (Array.isArray(v)) {
            v.forEach((line, i) =>
              line.forEach((x, j) => {
                if (i === 0 && j === 0) c.value = x;
                else {
                  const child = s.cell(r + i, col + j);
                  if (child.formula === undefined) Object.assign(child, { value: x, spilled: true });
                }
              }),
            );
          } else c.value = v;
        }
      }
    }
  }

  /** Installs `Excel` and `Office` globals backed by this workbook. */
  install(): void {
    const g = globalThis as Record<string, unknown>;
    g.Office = { context: { requirements: { isSetSupported: (_: string, v: string) => this.supported.has(v) } } };
    g.Excel = {
      WorksheetPositionType: { end: "End" },
      RangeCopyType: { values: "Values" },
      createWorkbook: async (base64: string) => {
        this.created.push(base64);
      },
      run: async <T>(body: (context: unknown) => Promise<T>): Promise<T> => body(contextOf(this)),
    };
  }
}

/** The request context of the fake: proxies over the workbook's sheets and cells. */
function contextOf(wb: FakeWorkbook): unknown {
  const sheetProxy = (s: FakeSheet): Record<string, unknown> => ({
    get name() {
      return s.name;
    },
    set name(v: string) {
      if (wb.sheets.some((x) => x !== s && x.name.toLowerCase() === v.toLowerCase()))
        throw new Error(`ItemAlreadyExists: ${v}`);
      s.name = v;
    },
    copy: () => {
      let n = 2;
      while (wb.sheets.some((x) => x.name === `${s.name} (${n})`)) n++;
      const c = s.clone(`${s.name} (${n})`);
      wb.sheets.push(c);
      return sheetProxy(c);
    },
    getUsedRangeOrNullObject: () => {
      const u = s.used();
      return u ? rangeProxy(s, u.row, u.col, u.rows, u.cols) : { isNullObject: true, load: () => undefined };
    },
    getRangeByIndexes: (r: number, c: number, rows: number, cols: number) => rangeProxy(s, r, c, rows, cols),
    getRange: (a1: string) => {
      const [a, b] = a1.split(":").map(parseA1);
      const end = b ?? a;
      return rangeProxy(s, a.row, a.col, end.row - a.row + 1, end.col - a.col + 1);
    },
  });
  const grid = <T>(
    s: FakeSheet,
    r: number,
    c: number,
    rows: number,
    cols: number,
    f: (cell: Cell | undefined) => T,
  ): T[][] =>
    Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => f(s.cells.get(key(r + i, c + j)))));
  const shown = (v: Scalar | undefined): string | number | boolean =>
    v === null || v === undefined ? "" : isErrorValue(v) ? v.error : v;
  const rangeProxy = (s: FakeSheet, r: number, c: number, rows: number, cols: number): Record<string, unknown> => {
    const each = (values: unknown[][], set: (cell: Cell, v: unknown, i: number, j: number) => void): void => {
      if (values.length !== rows || values.some((line) => line.length !== cols)) {
        throw new Error(`InvalidArgument: ${values.length}×${values[0]?.length} for a ${rows}×${cols} range`);
      }
      values.forEach((line, i) => line.forEach((v, j) => set(s.cell(r + i, c + j), v, i, j)));
    };
    const format = {
      font: { bold: false },
      columnWidth: 64,
      autofitColumns: () => undefined,
      load: () => undefined,
    };
    return {
      isNullObject: false,
      rowIndex: r,
      columnIndex: c,
      rowCount: rows,
      columnCount: cols,
      load: () => undefined,
      format,
      get values() {
        return grid(s, r, c, rows, cols, (x) => shown(x?.value));
      },
      set values(v: unknown[][]) {
        each(v, (_cell, x, i, j) => wb.write(s, r + i, c + j, x, true));
      },
      get formulas() {
        return grid(s, r, c, rows, cols, (x) => (x?.formula !== undefined ? x.formula : shown(x?.value)));
      },
      set formulas(v: unknown[][]) {
        each(v, (_cell, x, i, j) => wb.write(s, r + i, c + j, x, false));
      },
      get valueTypes() {
        return grid(s, r, c, rows, cols, (x) => {
          const v = x?.value;
          if (v === null || v === undefined) return "Empty";
          if (isErrorValue(v)) return "Error";
          return typeof v === "number" ? "Double" : typeof v === "boolean" ? "Boolean" : "String";
        });
      },
      get numberFormat() {
        return grid(s, r, c, rows, cols, (x) => x?.numberFormat ?? "General");
      },
      set numberFormat(v: unknown[][]) {
        each(v, (cell, x) => (cell.numberFormat = String(x)));
      },
      copyFrom: (
        source: { rowCount: number; columnCount: number; values: unknown; valueTypes: string[][] },
        type: string,
      ) => {
        if (type !== "Values") throw new Error(`copyFrom ${type} is not faked`);
        wb.recalc();
        const vals = source.values as (string | number | boolean)[][];
        vals.forEach((line, i) =>
          line.forEach((v, j) => {
            const cell = s.cell(r + i, c + j);
            cell.formula = undefined;
            cell.spilled = false;
            cell.value = source.valueTypes[i][j] === "Error" ? { error: String(v) } : v === "" ? null : v;
          }),
        );
      },
    };
  };
  return {
    workbook: {
      worksheets: {
        load: () => undefined,
        get items() {
          return wb.sheets.map(sheetProxy);
        },
        getItem: (name: string) => sheetProxy(wb.sheet(name)),
        add: (name: string) => sheetProxy(wb.addSheet(name)),
      },
    },
    sync: async () => {
      wb.syncs++;
      wb.recalc();
    },
  };
}
