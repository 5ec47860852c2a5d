/**
 * What every table of the case sheet shares: the input, the figures, where each table is placed
 * (by the workbook's {@link SheetBuilder}), the row and column keys, and small cell helpers.
 */
import { CaseInput, CaseOption, OneOffLine, OpexLine } from "./input";
import { CaseResult } from "./model";
import { Robustness } from "./robustness";
import { CellValue, ColumnPlan, FormulaCell, TablePlan } from "../workbook/plan";
import { PlacedTable, SheetBuilder } from "../workbook/sheet-builder";

/** Where things are on the case sheet, for callers that need to find a figure (tests, the pane). */
export interface CaseCells {
  /** A1 address of the discount-rate input. */
  discountRate: string;
  /** Per option: A1 address of its net present cost. */
  npv: string[];
  /** Per option, per workload: A1 addresses of its inputs and figures. */
  workloads: {
    rate: string;
    serviceTime: string;
    servers: string;
    utilization: string;
    meanResponse: string;
    meanWait: string;
    pWait: string;
    check: string;
    /**
     * The service time, mean response and mean wait cells (and a response or answer-within
     * target) hold times in the case's unit × this (1, or 1000 / 1e6 when shown in ms or µs).
     */
    timeScale: number;
    /** True when the M/M/c figures are native formulas (live without the add-in). */
    native: boolean;
  }[][];
  /** Per option, per workload: A1 address of its server count (as `workloads[i][j].servers`). */
  servers: string[][];
  /**
   * The cells whose live form is a Capacity Lab function, with that formula (without "="). The
   * plan holds their computed value (or a native equivalent), which is what renderers without the
   * add-in show; the Office.js renderer writes these formulas.
   */
  addinFormulas: { address: string; formula: string }[];
}

/** The tables of the case sheet, placed (every address fixed) before any cell is made. */
export interface CaseTables {
  recommendation: PlacedTable;
  assumptions: PlacedTable;
  notes: PlacedTable | undefined;
  costs: PlacedTable;
  escalation: PlacedTable | undefined;
  oneOffs: PlacedTable | undefined;
  oneOffYears: PlacedTable | undefined;
  returns: PlacedTable;
  capacity: PlacedTable | undefined;
  /** With growth (`purchase-plan.ts`): inputs per workload, the plan per year, its sensitivity variants, PVs. */
  growth?: PlacedTable;
  purchases?: PlacedTable;
  purchaseSensitivity?: PlacedTable;
  purchasePv?: PlacedTable;
  serversPerYear?: PlacedTable;
  perYear: PlacedTable;
  cumulative: PlacedTable;
  savings: PlacedTable;
  sensitivity: PlacedTable;
  scenarios: PlacedTable;
  /** Which options qualify, why not, cost per unit of work (`choice.ts`). */
  choice: PlacedTable;
  /** The case's service-level target (inputs), when it has one. */
  serviceTarget: PlacedTable | undefined;
  /** Every driver's break-even move (`break-even-table.ts`). */
  breakEven: PlacedTable;
  /** The choice at the grid of moves of every driver not linear in the costs (`probe-table.ts`), when there is one. */
  probes?: PlacedTable;
  /** With growth: the purchase plans the grid moves (`probe-plan.ts`). */
  probePlan?: PlacedTable;
}

/** What the input says about the shape of the sheet, worked out once. */
export interface CaseShape {
  anyWorkloads: boolean;
  /** Distinct running-cost labels (case-insensitive), in order of first appearance. */
  lineLabels: string[];
  /** Distinct one-off labels, likewise. */
  oneOffLabels: string[];
  /** Whether any running-cost line escalates (then each line has an escalation row). */
  escalates: boolean;
  /** Whether any option has a residual value (then the flows have a row at t = years). */
  residual: boolean;
}

/** Everything the table functions share: the input, the figures and where every table is. */
export interface CaseSheet extends CaseShape, CaseTables {
  input: CaseInput;
  result: CaseResult;
  /** The sheet being built: it placed every table and answers addresses by table, row key and column key. */
  sheet: SheetBuilder;
  /** A table name with the case's prefix. */
  names: (name: string) => string;
  /** The money number format. */
  cur: string;
  /** A cell whose live form is a Capacity Lab function (see `buildCasePlan`). */
  addin: (address: string, formula: string, result: number, nativeEquivalent?: string) => CellValue;
  cells: CaseCells;
  /** The unit the case's service target time is shown in (its own, `shownTimeUnit`); each workload row has its own too. */
  shownTime: { unit: string; scale: number };
  /** Every table's title, by its name (with the prefix). */
  title: (name: string) => string;
  /** Every driver's break-even move and the confidence grade (`robustness.ts`). */
  robustness: Robustness;
}

export const opt = (i: number): string => `option_${i + 1}`;
export const lineKey = (k: number): string => `line:${k}`;
export const oneOffKey = (k: number): string => `oneoff:${k}`;
export const savKey = (i: number): string => `saving_${i + 1}`;
export const cumSavKey = (i: number): string => `cum_saving_${i + 1}`;
export const dcumSavKey = (i: number): string => `dcum_saving_${i + 1}`;
export const workloadKey = (i: number, j: number): string => `w:${i}:${j}`;
export const yearKey = (t: number): string => `y:${t}`;

/** A native Excel formula with the value computed here. */
export function native(formula: string, result: number | string): FormulaCell {
  return { formula, result };
}

/** "N years" (or "1 year"). */
export function yearsText(n: number): string {
  return `${n} year${n === 1 ? "" : "s"}`;
}

/**
 * A difference of two sums of the same payments can come out as −1e−10 instead of 0, which a
 * currency format shows as "−£0"; rounded to a millionth of a currency unit it is 0 (the figure
 * is unchanged for any real amount). The same rounding on the sheet: ROUND(x, 6).
 */
export function roundMicro(x: number): number {
  // Above 2^53 millionths every double is already a whole number of them (and x·1e6 overflows
  // past 1.8e302): ROUND(x, 6) leaves x as it is, and so does this.
  if (Math.abs(x) >= 2 ** 53 / 1e6) return x;
  return Math.round(x * 1e6) / 1e6 + 0;
}

/** Makes the cells of a placed table of the case, with its title. */
export function makeTable(
  ctx: CaseSheet,
  block: PlacedTable,
  columns: ColumnPlan[],
  rows: CellValue[][],
  extra: Pick<TablePlan, "callout" | "cellFormats"> = {},
): TablePlan {
  return ctx.sheet.fill(block, columns, rows, {
    ...extra,
    title: ctx.title(block.name),
  });
}

/** The absolute address of the discount-rate input. */
export function rateCell(ctx: CaseSheet): string {
  return ctx.sheet.cell(ctx.assumptions, "value", "discount_rate", true);
}

/** The servers of option `i` as a formula term (one cell, or the SUM of its workload rows), or null. */
export function serversTerm(ctx: CaseSheet, i: number, column = "servers"): string | null {
  const n = ctx.input.options[i].workloads.length;
  if (n === 0 || !ctx.capacity) return null;
  return ctx.sheet
    .span(ctx.capacity, [workloadKey(i, 0), column], [workloadKey(i, n - 1), column])
    .replace(/^(.*:.*)$/, "SUM($1)");
}

/** Option `o`'s running-cost line with the k-th distinct label, if it has one. */
export function lineOf(ctx: CaseSheet, o: CaseOption, k: number): OpexLine | undefined {
  return o.opex.find((l) => l.label.toLowerCase() === ctx.lineLabels[k].toLowerCase());
}

/** Option `o`'s one-off line with the k-th distinct one-off label, if it has one. */
export function oneOffOf(ctx: CaseSheet, o: CaseOption, k: number): OneOffLine | undefined {
  return o.oneOff.find((l) => l.label.toLowerCase() === ctx.oneOffLabels[k].toLowerCase());
}
