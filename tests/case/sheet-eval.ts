/**
 * A small spreadsheet for tests: lays a {@link SheetPlan} out on a grid the way the grid
 * renderers do (notes in column A from row 1, each table's header at `at`, rows below) and
 * recalculates its formulas from the input cells, so a test can check that every formula in the
 * plan gives the value the plan carries, and that editing an input changes the outputs.
 *
 * Formulas are parsed by `@borgar/fx`; evaluated: numbers, cell and range references on the
 * sheet (and on other sheets through `external`), + − * / ^, unary minus, SUM, MAX, INT,
 * ROUNDUP, NPV (Excel's: first flow discounted one period), INDEX, and `CAPLAB.*` through the
 * add-in's own worksheet functions (`src/functions/functions.ts`). Anything else throws, so a
 * formula the helper does not know fails the test instead of passing silently.
 */
import { parse, tokenize } from "@borgar/fx";
import * as functions from "../../src/functions/functions";
import { CellValue, SheetPlan, tableRow, tableRowCount } from "../../src/analysis/plan";

type Value = number | string | boolean | null | Value[][];

interface Node {
  type: string;
  value?: unknown;
  operator?: string;
  arguments?: Node[];
  callee?: { name: string };
}

/** Column index (0-based) of letters: A → 0, AA → 26. */
function colIndex(letters: string): number {
  let n = 0;
  for (const ch of letters) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}

export function parseA1(ref: string): { row: number; col: number } {
  const m = /^\$?([A-Z]{1,3})\$?(\d+)$/.exec(ref);
  if (!m) throw new Error(`not a cell address: ${ref}`);
  return { row: Number(m[2]) - 1, col: colIndex(m[1]) };
}

export class SheetGrid {
  /** Cells by "row,col" (0-based): plan cells as planned. */
  readonly cells = new Map<string, CellValue>();
  private cache = new Map<string, Value>();

  constructor(
    sheet: SheetPlan,
    private readonly external: (ref: string) => Value = (ref) => {
      throw new Error(`reference to another sheet: ${ref}`);
    },
  ) {
    sheet.notes.forEach((n, i) => this.cells.set(`${i},0`, n));
    for (const t of sheet.tables) {
      if (!t.at) throw new Error(`table ${t.name} has no position`);
      const { row, col } = t.at;
      t.columns.forEach((c, j) => this.cells.set(`${row},${col + j}`, c.header));
      for (let i = 0; i < tableRowCount(t); i++) {
        tableRow(t, i).forEach((v, j) => this.cells.set(`${row + 1 + i},${col + j}`, v));
      }
    }
  }

  /** Replaces a cell (an input edit); clears computed values. */
  set(a1: string, value: CellValue): void {
    const { row, col } = parseA1(a1);
    this.cells.set(`${row},${col}`, value);
    this.cache.clear();
  }

  /** The value of a cell: a constant as planned, a formula recalculated. */
  value(row: number, col: number): Value {
    const key = `${row},${col}`;
    if (this.cache.has(key)) return this.cache.get(key) as Value;
    const v = this.cells.get(key) ?? null;
    let out: Value;
    if (v !== null && typeof v === "object") {
      if ("formula" in v) out = this.evaluate(v.formula);
      else if ("error" in v) throw new Error(`error cell ${v.error} at ${key}`);
      else throw new Error(`unknown cell kind at ${key}: ${JSON.stringify(v)}`);
    } else out = v;
    this.cache.set(key, out);
    return out;
  }

  /** Evaluates a formula (without "=") on this sheet. */
  evaluate(formula: string): Value {
    return this.node(parse(tokenize("=" + formula)) as unknown as Node);
  }

  private node(n: Node): Value {
    switch (n.type) {
      case "Literal":
        return n.value as Value;
      case "ReferenceIdentifier":
        return this.ref(String(n.value));
      case "UnaryExpression": {
        const x = this.num(this.node((n.arguments as Node[])[0]));
        if (n.operator === "-") return -x;
        if (n.operator === "+") return x;
        throw new Error(`operator ${n.operator}`);
      }
      case "BinaryExpression": {
        const [a, b] = (n.arguments as Node[]).map((x) => this.num(this.node(x)));
        switch (n.operator) {
          case "+":
            return a + b;
          case "-":
            return a - b;
          case "*":
            return a * b;
          case "/":
            if (b === 0) throw new Error("#DIV/0!");
            return a / b;
          case "^":
            return Math.pow(a, b);
          default:
            throw new Error(`operator ${n.operator}`);
        }
      }
      case "CallExpression":
        return this.call((n.callee as { name: string }).name.toUpperCase(), n.arguments as Node[]);
      default:
        throw new Error(`formula node ${n.type}`);
    }
  }

  private ref(ref: string): Value {
    if (ref.includes("!")) return this.external(ref);
    const [from, to] = ref.split(":");
    const a = parseA1(from);
    if (to === undefined) return this.value(a.row, a.col);
    const b = parseA1(to);
    const out: Value[][] = [];
    for (let r = a.row; r <= b.row; r++) {
      const line: Value[] = [];
      for (let c = a.col; c <= b.col; c++) line.push(this.value(r, c));
      out.push(line);
    }
    return out;
  }

  private num(v: Value): number {
    if (Array.isArray(v)) {
      if (v.length === 1 && v[0].length === 1) return this.num(v[0][0]);
      throw new Error("a range where a number is needed");
    }
    if (v === null) return 0;
    if (typeof v === "number") return v;
    throw new Error(`not a number: ${JSON.stringify(v)}`);
  }

  private flat(v: Value): number[] {
    if (Array.isArray(v)) return v.flat(2).filter((x): x is number => typeof x === "number");
    return [this.num(v)];
  }

  private call(name: string, args: Node[]): Value {
    const vals = (): Value[] => args.map((a) => this.node(a));
    switch (name) {
      case "SUM":
        return vals().reduce<number>((s, v) => s + this.flat(v).reduce((x, y) => x + y, 0), 0);
      case "MAX":
        return Math.max(...vals().flatMap((v) => this.flat(v)));
      case "INT":
        return Math.floor(this.num(this.node(args[0])));
      case "ROUNDUP": {
        const [x, d] = vals().map((v) => this.num(v));
        const f = Math.pow(10, d);
        return (Math.sign(x) * Math.ceil(Math.abs(x) * f)) / f;
      }
      case "NPV": {
        const [rate, ...rest] = vals();
        const r = this.num(rate);
        return rest.flatMap((v) => this.flat(v)).reduce((s, cf, i) => s + cf / Math.pow(1 + r, i + 1), 0);
      }
      case "INDEX": {
        const [arr, r, c] = vals();
        if (!Array.isArray(arr)) throw new Error("INDEX of a single value");
        return arr[this.num(r) - 1][this.num(c) - 1];
      }
      default: {
        if (!name.startsWith("CAPLAB.")) throw new Error(`function ${name}`);
        const fn = (functions as unknown as Record<string, (...a: unknown[]) => unknown>)[name.slice(7)];
        if (typeof fn !== "function") throw new Error(`function ${name}`);
        const a = vals().map((v) => (Array.isArray(v) ? v : v === null ? null : v));
        return fn(...a) as Value;
      }
    }
  }
}
