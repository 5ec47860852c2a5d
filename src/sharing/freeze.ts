/**
 * "Prepare for sharing", as a pure function: given sheets as read from Excel (each used range's
 * formulas and values), find every cell whose formula calls a Capacity Lab function and say what
 * a copy of the sheet should hold there instead so that it opens anywhere without the add-in
 * (where `CAPLAB.*` shows `#NAME?` and is saved as `_xldudf_…`; OfficeDev/office-js #3558, #5611):
 *
 * - its **value**, computed here by the same worksheet functions Excel calls
 *   ({@link FormulaEvaluator}), never by writing back a string read from the cell (text that
 *   starts with "=" would turn into a formula again);
 * - or, when asked and when Excel has one, a **native equivalent** that stays live:
 *   `CAPLAB.NPV_IT(rate, R0:Rn)` → `R0+NPV(rate, R1:Rn)` (NPV_IT discounts from t = 0, Excel's
 *   NPV from t = 1);
 * - or, when the formula uses something the evaluator does not compute or the value is an Excel
 *   error, **Excel's own value**, copied with `Range.copyFrom(…, "Values")` after calculation.
 *
 * The Office.js side (`src/excel/sharing-excel.ts`) applies the plan to copies of the sheets, lists the
 * frozen cells on a `Frozen formulas` sheet and checks that no copy has a `CAPLAB.` formula left.
 */
import { tokenize } from "@borgar/fx";
import { FormulaEvaluator, isErrorValue, Scalar, Unsupported, Value } from "./evaluate";
import { addressA1, CellAddress, cellA1, parseCell, parseReference, quoteSheet, Reference } from "../workbook/plan";

/** A sheet as Office.js reads it: the used range's position and its `formulas` and `values`. */
export interface SheetSnapshot {
  name: string;
  /** 0-based row and column of the used range's top-left cell (A1 = 0, 0). */
  row: number;
  col: number;
  /** `Range.formulas`: "=…" for a formula cell, else the constant (as `values`). */
  formulas: unknown[][];
  /** `Range.values` after calculation (used for cells without a Capacity Lab formula). */
  values: unknown[][];
  /** `Range.valueTypes` (optional): "Error" marks an error value, which `values` gives as text. */
  valueTypes?: string[][];
}

/** What the copy gets in place of one Capacity Lab formula. */
export type Replacement =
  /** Values to write from the cell (one row/column more for each spilled row/column). */
  | { kind: "values"; values: Scalar[][] }
  /** A native formula with the same value that stays live without the add-in. */
  | { kind: "formula"; formula: string }
  /** Excel's calculated value, copied with Range.copyFrom(source, "Values"). */
  | { kind: "copy"; rows: number; columns: number; reason: string };

export interface FrozenCell {
  sheet: string;
  /** A1 address of the cell (the anchor of a spilled result). */
  address: string;
  /** The formula as read, with "=". */
  formula: string;
  replacement: Replacement;
  /** The value (top-left for a spilled result); undefined when Excel's value is copied. */
  value: Scalar | undefined;
}

export interface FreezeOptions {
  /** Replace a formula by a native equivalent where one gives the same value (default false). */
  nativeEquivalents?: boolean;
}

/** True for a formula that calls a Capacity Lab function (as registered, or as saved without the add-in). */
export function hasCaplabFormula(formula: unknown): boolean {
  return (
    typeof formula === "string" &&
    formula.startsWith("=") &&
    /(?:^|[^A-Za-z0-9_.])(?:CAPLAB\.|_xldudf_CAPLAB_)/i.test(formula)
  );
}

/**
 * The formula of a cell as Office.js reports it, or undefined for a constant. `Range.formulas`
 * gives a text cell's text, so a text that begins with "=" (a label written as text) looks like a
 * formula there; its `values` entry is the same text, which a real formula's value never is.
 */
export function formulaOf(formula: unknown, value: unknown): string | undefined {
  return typeof formula === "string" && formula.startsWith("=") && formula !== value ? formula : undefined;
}

function toScalar(v: unknown): Scalar {
  if (v === undefined || v === "") return null;
  if (typeof v === "number" || typeof v === "string" || typeof v === "boolean" || v === null) return v;
  if (isErrorValue(v)) return v;
  return null;
}

/** Text a cell would read as a formula or an Excel error when written through `Range.values`. */
export function looksLikeFormula(text: string): boolean {
  return /^[=+\-@\t\r]/.test(text) || /^#(?:N\/A|NUM!|VALUE!|DIV\/0!|REF!|NAME\?|NULL!|SPILL!|CALC!|BUSY!)/i.test(text);
}

/** Values that are safe to write with `Range.values` (numbers, booleans, plain text). */
function writable(values: Scalar[][]): boolean {
  return values.every((row) => row.every((v) => !isErrorValue(v) && !(typeof v === "string" && looksLikeFormula(v))));
}

/**
 * The native equivalent of `=CAPLAB.NPV_IT(rate, R0:Rn)` over a single row or column of two or
 * more cells (no `periods`): `=R0+NPV(rate,R1:Rn)`. Undefined for any other formula.
 */
export function nativeNpvEquivalent(formula: string): string | undefined {
  const tokens = tokenize(formula.startsWith("=") ? formula : "=" + formula) as { type: string; value: string }[];
  const body = tokens.filter((t) => t.type !== "whitespace");
  // = CAPLAB.NPV_IT ( rate… , range )
  if (body.length < 6 || body[0].type !== "fx_prefix" || !/^(?:CAPLAB\.|_xldudf_CAPLAB_)NPV_IT$/i.test(body[1].value))
    return undefined;
  if (body[2].value !== "(" || body[body.length - 1].value !== ")") return undefined;
  const inner = body.slice(3, -1);
  let depth = 0;
  const commas: number[] = [];
  inner.forEach((t, i) => {
    if (t.value === "(" || t.value === "{") depth++;
    if (t.value === ")" || t.value === "}") depth--;
    if (depth === 0 && t.type === "operator" && t.value === ",") commas.push(i);
  });
  if (commas.length !== 1) return undefined;
  const rate = inner
    .slice(0, commas[0])
    .map((t) => t.value)
    .join("");
  const flows = inner.slice(commas[0] + 1);
  if (flows.length !== 1 || flows[0].type !== "range") return undefined;
  const ref = parseReference(flows[0].value);
  if (!ref || ref.single) return undefined;
  const prefix = ref.sheet === undefined ? "" : `${quoteSheet(ref.sheet)}!`;
  const { start: a, end: b } = ref;
  const column = a.col === b.col && b.row > a.row;
  const row = a.row === b.row && b.col > a.col;
  if (!column && !row) return undefined; // one cell, a 2-D block or a reversed range
  const second: CellAddress = column ? { ...a, row: a.row + 1 } : { ...a, col: a.col + 1 };
  return `=${prefix}${addressA1(a)}+NPV(${rate},${prefix}${addressA1(second)}:${addressA1(b)})`;
}

/**
 * Plans the freezing of every Capacity Lab formula in `sheets`.
 *
 * References to cells that hold Capacity Lab formulas are evaluated here too (so a chain such
 * as MMC_STAFF → MMC_METRICS uses our values, not possibly stale ones); other cells give the
 * values Excel read. Cost: one evaluation per Capacity Lab cell (memoised).
 *
 * @param sheets - the sheets to share, plus any sheet their formulas refer to
 * @param only - names of the sheets whose cells to freeze (default: all of `sheets`)
 * @param options - {@link FreezeOptions}
 * @returns one entry per Capacity Lab formula, in sheet, row, column order
 * @example
 * planFreeze([{ name: "S", row: 0, col: 0, formulas: [["=CAPLAB.NPV_IT(0.1,{1,1})"]], values: [[0]] }])[0].value;
 * // => 1.9090909090909092
 */
export function planFreeze(sheets: SheetSnapshot[], only?: string[], options: FreezeOptions = {}): FrozenCell[] {
  const byName = new Map(sheets.map((s) => [s.name.toLowerCase(), s] as const));
  const memo = new Map<string, Value | Unsupported>();
  const evaluating = new Set<string>();

  const cellValue = (sheet: SheetSnapshot, row: number, col: number): Scalar => {
    const i = row - sheet.row;
    const j = col - sheet.col;
    const formula = formulaOf(sheet.formulas[i]?.[j], sheet.values[i]?.[j]);
    if (hasCaplabFormula(formula)) {
      const v = evaluateCell(sheet, row, col);
      if (v instanceof Unsupported) throw new Unsupported(`${sheet.name}!${cellA1({ row, col })}: ${v.message}`);
      return Array.isArray(v) ? (v[0]?.[0] ?? null) : v;
    }
    const v = sheet.values[i]?.[j];
    return sheet.valueTypes?.[i]?.[j] === "Error" && typeof v === "string" ? { error: v } : toScalar(v);
  };

  const resolverFor =
    (home: SheetSnapshot) =>
    (sheetName: string | undefined, range: string, ref: Reference): Scalar[][] => {
      const sheet = sheetName === undefined ? home : byName.get(sheetName.toLowerCase());
      if (!sheet) throw new Unsupported(`the sheet ${sheetName} is not among those read`);
      const { start: a, end: b } = ref;
      if ((b.row - a.row + 1) * (b.col - a.col + 1) > 1_000_000)
        throw new Unsupported(`the range ${range} is too large`);
      const out: Scalar[][] = [];
      for (let r = Math.min(a.row, b.row); r <= Math.max(a.row, b.row); r++) {
        const line: Scalar[] = [];
        for (let c = Math.min(a.col, b.col); c <= Math.max(a.col, b.col); c++) line.push(cellValue(sheet, r, c));
        out.push(line);
      }
      return out;
    };

  function evaluateCell(sheet: SheetSnapshot, row: number, col: number): Value | Unsupported {
    const key = `${sheet.name.toLowerCase()}!${row},${col}`;
    const done = memo.get(key);
    if (done !== undefined) return done;
    if (evaluating.has(key)) return new Unsupported("a circular reference");
    evaluating.add(key);
    let result: Value | Unsupported;
    try {
      result = new FormulaEvaluator(resolverFor(sheet)).evaluate(
        String(sheet.formulas[row - sheet.row][col - sheet.col]),
      );
    } catch (e) {
      if (!(e instanceof Unsupported)) throw e;
      result = e;
    }
    evaluating.delete(key);
    memo.set(key, result);
    return result;
  }

  const wanted = only === undefined ? undefined : new Set(only.map((n) => n.toLowerCase()));
  const frozen: FrozenCell[] = [];
  for (const sheet of sheets) {
    if (wanted && !wanted.has(sheet.name.toLowerCase())) continue;
    sheet.formulas.forEach((line, i) =>
      line.forEach((written, j) => {
        const formula = formulaOf(written, sheet.values[i]?.[j]);
        if (formula === undefined || !hasCaplabFormula(formula)) return;
        const row = sheet.row + i;
        const col = sheet.col + j;
        const address = cellA1({ row, col });
        const native = options.nativeEquivalents ? nativeNpvEquivalent(formula) : undefined;
        const v = evaluateCell(sheet, row, col);
        let replacement: Replacement;
        let value: Scalar | undefined;
        if (v instanceof Unsupported) {
          replacement = { kind: "copy", rows: 1, columns: 1, reason: v.message };
          value = undefined;
        } else {
          const block: Scalar[][] = Array.isArray(v) ? v : [[v]];
          value = block[0]?.[0] ?? null;
          if (native !== undefined && !Array.isArray(v) && typeof v === "number")
            replacement = { kind: "formula", formula: native };
          else if (writable(block)) replacement = { kind: "values", values: block };
          else {
            const error = block.flat().find(isErrorValue);
            replacement = {
              kind: "copy",
              rows: block.length,
              columns: block[0]?.length ?? 1,
              reason: isErrorValue(value)
                ? `the value is the error ${value.error}`
                : error
                  ? `the result holds the error ${error.error}`
                  : "a text value that would read as a formula",
            };
          }
        }
        frozen.push({ sheet: sheet.name, address, formula, replacement, value });
      }),
    );
  }
  return frozen;
}

/**
 * Applies a freeze plan to a sheet model (what the Office.js side does to the copy, for tests and
 * for checking): each frozen cell gets its values, its native formula, or — for "copy" — the
 * values Excel calculated (`sheet.values`, as `Range.copyFrom(…, "Values")` would). The input is
 * not modified.
 *
 * @param sheet - the sheet as read
 * @param cells - the frozen cells (those of other sheets are ignored)
 * @returns the copy's formulas and values
 */
export function applyFreeze(sheet: SheetSnapshot, cells: FrozenCell[]): SheetSnapshot {
  const formulas = sheet.formulas.map((line) => [...line]);
  const values = sheet.values.map((line) => [...line]);
  const put = (row: number, col: number, formula: unknown, value: unknown): void => {
    const i = row - sheet.row;
    const j = col - sheet.col;
    while (formulas.length <= i) formulas.push([]);
    while (values.length <= i) values.push([]);
    formulas[i][j] = formula;
    values[i][j] = value;
  };
  for (const c of cells) {
    if (c.sheet !== sheet.name) continue;
    const { row, col } = parseCell(c.address);
    const r = c.replacement;
    if (r.kind === "formula") put(row, col, r.formula, c.value);
    else if (r.kind === "values") {
      r.values.forEach((line, i) =>
        line.forEach((v, j) => {
          const shown = isErrorValue(v) ? v.error : v === null ? "" : v;
          put(row + i, col + j, shown, shown);
        }),
      );
    } else {
      for (let i = 0; i < r.rows; i++)
        for (let j = 0; j < r.columns; j++) {
          const v = sheet.values[row + i - sheet.row]?.[col + j - sheet.col] ?? "";
          put(row + i, col + j, v, v);
        }
    }
  }
  return { ...sheet, formulas, values };
}
