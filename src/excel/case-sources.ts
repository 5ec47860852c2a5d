/**
 * Figures a business case can take from an analysis already in the workbook, by reference: the
 * fitted marginal CPU cost per IO of each protocol/option level (table `CpuFit` on the Model sheet
 * the lab import writes, `src/lab/model.ts`), offered with its 95 % interval in the label.
 * The case sheet then holds `='Model'!$F$3/1000` (the cell in CPU-milliseconds per IO, the case in
 * seconds), never a copied number, so re-importing or editing the analysis flows into the case.
 *
 * Per-step U/X (the Model table's "U/X CPU-ms per IO") is not offered: it includes the background
 * CPU, so at low load it is many times the cost of an IO and sizes a case wrongly.
 *
 * The cells are found from the analysis' layout — the table's name and its columns' keys in
 * order ({@link cpuFitLayout}) — never by header text or sheet name. {@link cpuCostChoices} is
 * pure (tables as read → choices); {@link readCpuCostChoices} and {@link readCellValues} are the
 * Office.js side.
 */
// The one renderer-side import of src/lab: a case refers to tables only the lab writes (the Model
// sheet's CpuFit, the What-if sheet's inputs), so their layout comes from the lab's own constants.
import { cpuFitTableLayout } from "../lab/model";
import { INPUT_COLUMNS, WHATIF_INPUTS_TABLE } from "../lab/whatif-tables";
import { SheetBuilder } from "../workbook/sheet-builder";
import { cellA1, parseReference, TableLayout, workbookLayout } from "../workbook/plan";

/** An Excel table as read: its name, sheet, top-left cell (0-based, the header row) and values (header first). */
export interface ReadTable {
  name: string;
  sheet: string;
  row: number;
  col: number;
  values: unknown[][];
}

export interface CpuCostChoice {
  /** The cell, e.g. `'Model'!$F$3`. */
  refs: string[];
  /** The value now, in CPU-milliseconds per IO. */
  ms: number;
  /** What a planner picks it by, with the interval, e.g. "Model: fitted marginal cost, protocol nfs (95 % CI 0.0011–0.0015, usable)". */
  label: string;
}

/**
 * Where the fitted CPU cost lives: the table's base name (a second import gets "CpuFit_2", as the
 * renderer names a taken table) and the 0-based column of each key. The one place that knows the
 * layout; everything else asks it.
 */
export function cpuFitLayout(): { table: string; column: (key: string) => number } {
  // The plan's own layout of the table (workbookLayout): column = its sheet column − the table's first.
  const layout = cpuFitTableLayout();
  return {
    table: layout.table,
    column: (key) => {
      const c = layout.columns[key];
      if (!c) throw new Error(`internal: no column ${key} in ${layout.table}`);
      return c.col - layout.at.col;
    },
  };
}

/** True for the analysis' table name or the name the renderer gives it when taken ("CpuFit_2"). */
function isCpuFitTable(name: string, base: string): boolean {
  if (name === base) return true;
  const rest = name.startsWith(`${base}_`) ? name.slice(base.length + 1) : "";
  return /^[1-9]\d*$/.test(rest);
}

const short = (x: unknown): string =>
  typeof x === "number" && Number.isFinite(x) ? String(Number(x.toPrecision(2))) : "?";

/**
 * The fitted CPU cost cells of every CpuFit table among `tables`: one choice per line (protocol
 * level) with a positive estimate.
 *
 * @param tables - Excel tables as read (others are ignored)
 * @returns the choices, in table and row order
 * @example
 * cpuCostChoices([{ name: "CpuFit", sheet: "Model", row: 2, col: 0, values: [header, ["protocol nfs", "host", 4, 3, 1, 0.0013, 0.0011, 0.0015, …, "usable", "Usable: …"]] }]);
 * // => [{ refs: ["'Model'!$F$4"], ms: 0.0013, label: "Model: fitted marginal cost, protocol nfs (95 % CI 0.0011–0.0015, usable, 3 steps)" }]
 */
export function cpuCostChoices(tables: ReadTable[]): CpuCostChoice[] {
  const layout = cpuFitLayout();
  const col = layout.column;
  const out: CpuCostChoice[] = [];
  for (const t of tables) {
    if (!isCpuFitTable(t.name, layout.table)) continue;
    for (let i = 1; i < t.values.length; i++) {
      const line = t.values[i];
      const ms = line[col("d")];
      if (typeof ms !== "number" || !(ms > 0)) continue;
      const steps = line[col("n")];
      const label =
        `${t.sheet}: fitted marginal cost, ${String(line[col("group")] ?? "")} ` +
        `(95 % CI ${short(line[col("d_lo")])}–${short(line[col("d_hi")])}, ${String(line[col("usable")] ?? "")}` +
        `${typeof steps === "number" ? `, ${steps} steps` : ""})`;
      const ref = cellA1({ row: t.row + i, col: t.col + col("d") }, { absolute: true, sheet: t.sheet });
      out.push({ refs: [ref], ms, label });
    }
  }
  return out;
}

/** A What-if line a workload can take its current load and growth from, by reference. */
export interface WhatIfChoice {
  /** The line (protocol/option level), e.g. "protocol nfs". */
  line: string;
  /** The current IOPS cell and its value now. */
  currentRef: string;
  current: number;
  /** The growth % per year cell and its value now (in percent: 20 for 20 %). */
  growthRef: string;
  growthPct: number;
  /** What a planner picks it by: "What-if: protocol nfs (1,006 IOPS now, 20 % a year)". */
  label: string;
}

/** Where the What-if sheet's Inputs table puts each column: the lab's own layout of it. */
function whatIfInputsLayout(): TableLayout {
  const b = new SheetBuilder("What-if", []);
  b.table(WHATIF_INPUTS_TABLE, INPUT_COLUMNS, []);
  return workbookLayout({ title: "", sources: [], warnings: [], sheets: [b.sheet()] })[WHATIF_INPUTS_TABLE];
}

/** True for the What-if Inputs table or the name the renderer gives it when taken ("WhatIfInputs_2"). */
function isWhatIfTable(name: string, base: string): boolean {
  return isCpuFitTable(name, base);
}

/**
 * The current-load and growth cells of every What-if line among `tables` (others are ignored),
 * found from the What-if sheet's layout (table name, column keys), never by header text.
 *
 * @example
 * whatIfChoices([{ name: "WhatIfInputs", sheet: "What-if", row: 5, col: 0, values: [header, ["protocol nfs", 1006, 20, 70, 1, "mean", 46353]] }]);
 * // => [{ line: "protocol nfs", currentRef: "'What-if'!$B$7", current: 1006, growthRef: "'What-if'!$C$7", growthPct: 20, label: "What-if: protocol nfs (1,006 IOPS now, 20 % a year)" }]
 */
export function whatIfChoices(tables: ReadTable[]): WhatIfChoice[] {
  const layout = whatIfInputsLayout();
  const col = (key: string): number => {
    const c = layout.columns[key];
    if (!c) throw new Error(`internal: no column ${key} in ${layout.table}`);
    return c.col - layout.at.col;
  };
  const out: WhatIfChoice[] = [];
  for (const t of tables) {
    if (!isWhatIfTable(t.name, layout.table)) continue;
    for (let i = 1; i < t.values.length; i++) {
      const row = t.values[i];
      const [line, current, growthPct] = [row[col("line")], row[col("current")], row[col("growth")]];
      if (typeof current !== "number" || !(current > 0) || typeof growthPct !== "number") continue;
      const at = (key: string): string =>
        cellA1({ row: t.row + i, col: t.col + col(key) }, { absolute: true, sheet: t.sheet });
      out.push({
        line: String(line ?? ""),
        currentRef: at("current"),
        current,
        growthRef: at("growth"),
        growthPct,
        label: `${t.sheet}: ${String(line ?? "")} (${current.toLocaleString("en-GB")} IOPS now, ${growthPct} % a year)`,
      });
    }
  }
  return out;
}

/** Reads every table of the open workbook whose name `matches`: its name, sheet, position and values. */
async function readTables(matches: (name: string) => boolean): Promise<ReadTable[]> {
  return Excel.run(async (context) => {
    const tables = context.workbook.tables;
    tables.load("items/name");
    await context.sync();
    const reads = tables.items
      .filter((t) => matches(t.name))
      .map((t) => {
        const range = t.getRange();
        range.load("rowIndex,columnIndex,values");
        t.worksheet.load("name");
        return { t, range };
      });
    await context.sync();
    return reads.map(({ t, range }) => ({
      name: t.name,
      sheet: t.worksheet.name,
      row: range.rowIndex,
      col: range.columnIndex,
      values: range.values,
    }));
  });
}

/** Reads the What-if Inputs tables of the open workbook (none: an empty list). */
export async function readWhatIfChoices(): Promise<WhatIfChoice[]> {
  const base = whatIfInputsLayout().table;
  return whatIfChoices(await readTables((name) => isWhatIfTable(name, base)));
}

/**
 * Reads the CpuFit tables of the open workbook and lists the fitted CPU-cost cells.
 *
 * @returns the choices (empty when no analysis is in the workbook)
 */
export async function readCpuCostChoices(): Promise<CpuCostChoice[]> {
  const base = cpuFitLayout().table;
  return cpuCostChoices(await readTables((name) => isCpuFitTable(name, base)));
}

/**
 * The current values of cells given as `'Sheet'!$A$1` references.
 *
 * @param refs - references as {@link CpuCostChoice.ref} gives them
 * @returns their values, in order
 * @throws Error naming a reference whose sheet is not in the workbook, or that is not one cell
 */
export async function readCellValues(refs: string[]): Promise<unknown[]> {
  if (refs.length === 0) return [];
  const cells = refs.map((ref) => {
    const r = parseReference(ref);
    if (!r || !r.single || r.sheet === undefined) throw new Error(`${ref}: not a single-cell reference`);
    return { ref, sheet: r.sheet, row: r.start.row, col: r.start.col };
  });
  return Excel.run(async (context) => {
    // getItem would fail at sync with a bare ItemNotFound; the null object lets the error name the
    // reference (Office docs, "*OrNullObject methods and properties").
    const sheets = new Map<string, Excel.Worksheet>();
    for (const c of cells)
      if (!sheets.has(c.sheet)) sheets.set(c.sheet, context.workbook.worksheets.getItemOrNullObject(c.sheet));
    await context.sync();
    const gone = cells.find((c) => (sheets.get(c.sheet) as Excel.Worksheet).isNullObject);
    if (gone) throw new Error(`${gone.ref}: the sheet "${gone.sheet}" is not in the workbook (deleted or renamed?)`);
    const ranges = cells.map((c) => {
      const r = (sheets.get(c.sheet) as Excel.Worksheet).getRangeByIndexes(c.row, c.col, 1, 1);
      r.load("values");
      return r;
    });
    await context.sync();
    return ranges.map((r) => r.values[0][0]);
  });
}
