/**
 * A costed business case as a one-sheet {@link WorkbookPlan}: the same plan is drawn by the
 * .xlsx and HTML renderers (`caplab case`) and by the Office.js renderer (the pane's "New
 * business case").
 *
 * Layout (top to bottom):
 * - notes: the title, a one-line conclusion built from the numbers ("FC saves £X over 3 years at
 *   10%"; a live formula over the Costs table in the .xlsx and in Excel), how to read the sheet;
 * - Assumptions: discount rate (input), years, units, the utilization above which a workload is
 *   flagged (input);
 * - Costs: one column per option — capex, server costs and yearly running-cost lines (inputs),
 *   year-0 one-off cost, running cost per year, net present cost, difference from the first
 *   option, break-even capex;
 * - Capacity (when an option has workloads): one row per option × workload with its arrival
 *   rate, service time and sizing target as inputs, then servers, utilization, mean response,
 *   mean wait, P(wait) and a check (cannot carry its load, utilization above the limit, P(wait)
 *   above 50 %);
 * - Cost per year: one row per year, each option's cost; beside it, the cumulative discounted
 *   cost per option (the chart's data); the chart "Cumulative discounted cost".
 *
 * Every table is placed first ({@link CaseLayout}: table, row key, column key → address), then
 * each table is made by its own function, and every formula takes the addresses of the cells it
 * means from the layout — never by looking for a label, so a cost line named like a row title
 * ("Cost per server") cannot make a formula point at the wrong row.
 *
 * Every output is a live formula over the input cells, carrying the value computed by
 * {@link computeCase}: native spreadsheet formulas where they are accurate (costs, discounting,
 * sizing, and the M/M/c figures through POISSON: `case-mmc.ts`), `CAPLAB.*` add-in formulas
 * ({@link AddinFormulaCell}) where they are not (M/M/c above `NATIVE_MAX_LOAD` erlangs; NPV_IT
 * with `forExcelAddin`). Labels that come from the input (option names, cost lines) are text
 * cells, never formula text.
 */
import { CaseInput, CaseOption, OneOffLine, OpexLine, parseCaseInput, Workload } from "./input";
import { CaseResult, cents, computeCase, TornadoRow, VsBaseline } from "./model";
import { Block, CaseLayout } from "./layout";
import {
  MmcCells,
  nativeMmc,
  pWaitFormula,
  responseFormula,
  searchWidth,
  staffForResponseFormula,
  staffForServiceLevelFormula,
  utilizationFormula,
  waitFormula,
} from "./mmc-cells";
import {
  AddinFormulaCell,
  CellValue,
  ChartPlan,
  ColumnPlan,
  FormulaCell,
  rowBelow,
  SheetPlan,
  TablePlan,
  WorkbookPlan,
} from "../workbook/plan";

export interface CasePlanOptions {
  /** Sheet name (default "Business case"). */
  sheetName?: string;
  /**
   * Prefix of the table names, to keep them unique in a workbook with several cases (default
   * none: Assumptions, Costs, Capacity, CostPerYear, CumulativeCost).
   */
  tablePrefix?: string;
  /** Input files, as given (the plan's `sources`). */
  sources?: string[];
  /**
   * The plan is for the Office.js renderer in Excel with the add-in: net present costs are
   * `CAPLAB.NPV_IT` add-in formulas. Otherwise (files for people without the add-in) they are the
   * native equivalent first flow + NPV(rate, rest), which stays live in any spreadsheet.
   */
  forExcelAddin?: boolean;
}

/** The sheet name of a case when none is given. */
export const CASE_SHEET = "Business case";

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

export interface CasePlan {
  plan: WorkbookPlan;
  input: CaseInput;
  result: CaseResult;
  layout: CaseCells;
}

/** A native Excel formula with the value computed here. */
function native(formula: string, result: number | string): FormulaCell {
  return { formula, result };
}

/**
 * Whole currency units with grouping, e.g. "£273,554" or "CHF 1,200"; negative with a true minus
 * sign (U+2212) before the symbol, "−£5", as the sheet's number format shows it; never "−£0".
 */
export function money(amount: number, currency: string): string {
  const whole = Math.round(Math.abs(amount)).toLocaleString("en-GB");
  const sign = amount < 0 && Math.round(Math.abs(amount)) !== 0 ? MINUS : "";
  return currency.length === 1 ? `${sign}${currency}${whole}` : `${sign}${currency} ${whole}`;
}

/** The minus sign of money on the sheet and in the page (U+2212, not a hyphen). */
export const MINUS = "\u2212";

/** A rate as a percentage with up to two decimals: 0.1 → "10%", 0.075 → "7.5%". */
export function percent(rate: number): string {
  return `${Number((rate * 100).toFixed(2))}%`;
}

/**
 * The conclusion line: the cheapest option against the first (the baseline), or, when the
 * baseline is cheapest, what the runner-up would cost more; with two options, the break-even
 * capex of the second.
 */
export function conclusion(input: CaseInput, result: CaseResult): string {
  const opts = result.options;
  const n = input.years;
  const over = `over ${n} year${n === 1 ? "" : "s"} at ${percent(input.discountRate)}`;
  const cost = (i: number): string => money(opts[i].npv, input.currency);
  let line: string;
  if (result.cheapest !== 0) {
    const k = result.cheapest;
    line =
      `${input.options[k].name} saves ${money(-opts[k].difference, input.currency)} ${over} compared with ` +
      `${input.options[0].name} (net present cost ${cost(k)} vs ${cost(0)}).`;
  } else {
    let second = 1;
    for (let i = 2; i < opts.length; i++) if (cents(opts[i].npv) < cents(opts[second].npv)) second = i;
    line =
      Math.round(Math.abs(opts[second].difference)) === 0
        ? `${input.options[0].name} and ${input.options[second].name} cost the same ${over} (net present cost ${cost(0)}).`
        : `${input.options[0].name} costs least: ${input.options[second].name} would cost ` +
          `${money(opts[second].difference, input.currency)} more ${over} (net present cost ${cost(second)} vs ${cost(0)}).`;
  }
  if (opts.length === 2) {
    line += ` ${input.options[1].name} breaks even with ${input.options[0].name} at a capex of ${money(opts[1].breakEvenCapex, input.currency)}.`;
  }
  return line;
}

/**
 * The service-time cell's formula when S is taken from another sheet: the cell (or the mean of
 * the cells), scaled to the case's unit.
 */
function serviceTimeFormula(ref: string | string[], divisor: number | undefined): string {
  const cells = referencedCells(ref);
  return divisor === undefined || divisor === 1 ? cells : `${cells}/${divisor}`;
}

/** The analysis cell a service time refers to, or the mean of several (before any unit scaling). */
export function referencedCells(ref: string | string[]): string {
  return typeof ref === "string" ? ref : ref.length === 1 ? ref[0] : `AVERAGE(${ref.join(",")})`;
}

/**
 * The unit the Capacity table shows times in: the case's, or a smaller one when the case is in
 * seconds (or milliseconds) and its service times are small, so 0.000081 s shows as 81 µs.
 *
 * @example shownTimeUnit("s", [0.000081, 0.000041]) // => { unit: "µs", scale: 1000000 }
 */
export function shownTimeUnit(timeUnit: string, serviceTimes: number[]): { unit: string; scale: number } {
  const smallest = Math.min(...serviceTimes.filter((t) => t > 0));
  const unit = timeUnit.trim().toLowerCase();
  if (!Number.isFinite(smallest)) return { unit: timeUnit, scale: 1 };
  if (["s", "sec", "second", "seconds"].includes(unit)) {
    if (smallest < 1e-3) return { unit: "µs", scale: 1e6 };
    if (smallest < 0.1) return { unit: "ms", scale: 1e3 };
  }
  if (["ms", "millisecond", "milliseconds"].includes(unit) && smallest < 0.1) return { unit: "µs", scale: 1e3 };
  return { unit: timeUnit, scale: 1 };
}

/** Decimals that show the smallest time to 3 significant digits (at least 2): 30 → 2, 0.000041 → 7. */
function timeFormat(times: number[]): string {
  const smallest = Math.min(...times.filter((t) => t > 0));
  const decimals = Math.min(9, Math.max(2, 2 - Math.floor(Math.log10(smallest))));
  return "0." + "0".repeat(decimals);
}

/** Money: "£22,066", negative "−£22,066" (U+2212 before the symbol), zero "£0". */
function currencyFormat(currency: string): string {
  const symbol = currency.length === 1 ? `"${currency}"` : `"${currency} "`;
  const minus = currency.length === 1 ? `"${MINUS}${currency}"` : `"${MINUS}${currency} "`;
  return `${symbol}#,##0;${minus}#,##0;${symbol}0`;
}

/**
 * A difference of two sums of the same payments can come out as −1e−10 instead of 0, which a
 * currency format shows as "−£0"; rounded to a millionth of a currency unit it is 0 (the figure
 * is unchanged for any real amount). The same rounding on the sheet: ROUND(x, 6).
 */
function roundMicro(x: number): number {
  return Math.round(x * 1e6) / 1e6 + 0;
}

/** Table names: letters, digits and underscores, starting with a letter. */
function tableName(prefix: string, name: string): string {
  if (prefix === "") return name;
  const clean = prefix.replace(/[^A-Za-z0-9_]/g, "_").replace(/^[^A-Za-z]/, "T");
  return `${clean}_${name}`;
}

const SIZING_TEXT = {
  servers: "fixed servers",
  utilization: "utilization ≤ target",
  response: "response ≤ target",
  serviceLevel: "answered in time ≥ target",
} as const;

/** P(wait) above this is flagged: most arrivals queue. */
export const PWAIT_WARNING = 0.5;

/**
 * The check shown beside a workload's figures (empty when all is well). The sheet computes the
 * same text with {@link checkFormula}.
 *
 * @example checkText(false, 0.945, 0.86, 0.8) // => "Utilization above 80%. P(wait) above 50%."
 */
export function checkText(unstable: boolean, utilization: number, pWait: number, limit: number): string {
  if (unstable) return "Cannot carry its load.";
  const parts: string[] = [];
  // TEXT(limit,"0%") rounds half away from zero, as Math.round does for positive numbers.
  if (utilization > limit) parts.push(`Utilization above ${Math.round(limit * 100)}%.`);
  if (pWait > PWAIT_WARNING) parts.push(`P(wait) above ${PWAIT_WARNING * 100}%.`);
  return parts.join(" ");
}

function checkFormula(cells: MmcCells, utilization: string, limit: string): string {
  const a = `(${cells.rate}*${cells.service})`;
  return (
    `IF(${cells.servers}<=${a},"Cannot carry its load.",` +
    `TRIM(IF(${utilization}>${limit},"Utilization above "&TEXT(${limit},"0%")&". ","")` +
    `&IF(${cells.pWait}>${PWAIT_WARNING},"P(wait) above ${PWAIT_WARNING * 100}%.","")))`
  );
}

/** Everything the table functions share: the input, the figures and where every table is. */
interface Ctx {
  input: CaseInput;
  result: CaseResult;
  layout: CaseLayout;
  names: (name: string) => string;
  cur: string;
  anyWorkloads: boolean;
  /** Distinct running-cost labels (case-insensitive), in order of first appearance. */
  lineLabels: string[];
  /** Distinct one-off labels, likewise. */
  oneOffLabels: string[];
  /** Whether any running-cost line escalates (then each line has an escalation row). */
  escalates: boolean;
  /** Whether any option has a residual value (then the flows have a row at t = years). */
  residual: boolean;
  assumptions: Block;
  costs: Block;
  capacity: Block | undefined;
  perYear: Block;
  cumulative: Block;
  escalation: Block | undefined;
  oneOffs: Block | undefined;
  oneOffYears: Block | undefined;
  returns: Block;
  savings: Block;
  sensitivity: Block;
  scenarios: Block;
  recommendation: Block;
  addin: (address: string, formula: string, result: number, nativeEquivalent?: string) => CellValue;
  cells: CaseCells;
  /** The unit the Capacity table shows times in ({@link shownTimeUnit}). */
  shownTime: { unit: string; scale: number };
}

const opt = (i: number): string => `option_${i + 1}`;
const lineKey = (k: number): string => `line:${k}`;
const oneOffKey = (k: number): string => `oneoff:${k}`;
const savKey = (i: number): string => `saving_${i + 1}`;
const cumSavKey = (i: number): string => `cum_saving_${i + 1}`;
const dcumSavKey = (i: number): string => `dcum_saving_${i + 1}`;
const workloadKey = (i: number, j: number): string => `w:${i}:${j}`;
const yearKey = (t: number): string => `y:${t}`;

/** A table plan for a placed block; its columns and rows must match the block's keys. */
function tableOf(block: Block, columns: ColumnPlan[], rows: CellValue[][]): TablePlan {
  if (columns.map((c) => c.key).join("\n") !== block.cols.join("\n"))
    throw new Error(`internal: columns of ${block.name} differ from its layout`);
  if (rows.length !== block.rows.length || rows.some((r) => r.length !== columns.length))
    throw new Error(`internal: rows of ${block.name} differ from its layout`);
  return { name: block.name, columns, rows, at: block.at };
}

// ---------------------------------------------------------------------------------------------
// Placement: every table's rows and columns, before any cell is made.

function assumptionColumns(anyWorkloads: boolean): string[] {
  const cols = ["discount_rate", "years", "currency", "time_unit", "rate_unit"];
  if (anyWorkloads) cols.push("utilization_limit");
  return cols;
}

function costRows(ctx: Pick<Ctx, "anyWorkloads" | "lineLabels" | "residual">): string[] {
  return [
    "capex",
    ...(ctx.anyWorkloads ? ["per_server", "per_server_year"] : []),
    ...ctx.lineLabels.map((_, k) => lineKey(k)),
    ...(ctx.residual ? ["residual"] : []),
    "upfront",
    "running",
    "npv",
    "diff",
    "break_even",
  ];
}

function hasServiceLevel(input: CaseInput): boolean {
  return input.options.some((o) => o.workloads.some((w) => w.sizing.kind === "serviceLevel"));
}

function capacityColumns(input: CaseInput): string[] {
  return [
    "option",
    "workload",
    "rate",
    "service_time",
    "sizing_rule",
    "target",
    ...(hasServiceLevel(input) ? ["answer_within"] : []),
    "servers",
    "utilization",
    "mean_response",
    "mean_wait",
    "p_wait",
    "servers_low",
    "servers_high",
    "check",
  ];
}

// ---------------------------------------------------------------------------------------------
// Tables, one function each.

function assumptionsTable(ctx: Ctx): TablePlan {
  const { input } = ctx;
  const all: ColumnPlan[] = [
    {
      key: "discount_rate",
      header: "Discount rate per year (input)",
      numFmt: "0.0%",
      description: "A fraction per year: 10% = 0.1",
    },
    {
      key: "years",
      header: "Years",
      numFmt: "0",
      description: "Yearly payments at the start of years 0 … N − 1; rebuild the case to change",
    },
    { key: "currency", header: "Currency", numFmt: "@" },
    { key: "time_unit", header: "Time unit", numFmt: "@", description: "Unit of service times and response times" },
    { key: "rate_unit", header: "Rate unit", numFmt: "@", description: "Unit of arrival rates" },
    {
      key: "utilization_limit",
      header: "Flag utilization above (input)",
      numFmt: "0%",
      description: "A workload busier than this is flagged in the Capacity table's Check column",
    },
  ];
  const columns = all.filter((c) => ctx.assumptions.cols.includes(c.key));
  const values: Record<string, CellValue> = {
    discount_rate: input.discountRate,
    years: input.years,
    currency: input.currency,
    time_unit: input.timeUnit,
    rate_unit: input.rateUnit,
    utilization_limit: input.utilizationLimit,
  };
  return tableOf(ctx.assumptions, columns, [columns.map((c) => values[c.key])]);
}

/** The servers of option `i` as a formula term (one cell, or the SUM of its workload rows), or null. */
function serversTerm(ctx: Ctx, i: number, column = "servers"): string | null {
  const n = ctx.input.options[i].workloads.length;
  if (n === 0 || !ctx.capacity) return null;
  return ctx.layout
    .span(ctx.capacity, [workloadKey(i, 0), column], [workloadKey(i, n - 1), column])
    .replace(/^(.*:.*)$/, "SUM($1)");
}

function costsTable(ctx: Ctx): TablePlan {
  const { input, result, layout, costs } = ctx;
  const years = input.years;
  const periods = result.periods;
  const here = (row: string, i: number): string => layout.cell(costs, row, opt(i));
  const rate = layout.cell(ctx.assumptions, "value", "discount_rate", true);
  const labels: Record<string, string> = {
    capex: "Capex at year 0 (input)",
    per_server: "Cost per server, one-off (input)",
    per_server_year: "Cost per server per year (input)",
    residual: "Residual value at the end (input)",
    upfront: "Year-0 one-off cost",
    running: ctx.escalates ? "Running cost in year 0" : "Running cost per year",
    npv: `Net present cost over ${years} year${years === 1 ? "" : "s"}`,
    diff: `Difference from ${input.options[0].name}`,
    break_even: "Break-even capex",
  };
  ctx.lineLabels.forEach((label, k) => (labels[lineKey(k)] = `${label} per year (input)`));
  const lineRows = ctx.lineLabels.map((_, k) => lineKey(k));
  const cell = (row: string, i: number): CellValue => {
    const o = input.options[i];
    const r = result.options[i];
    const servers = serversTerm(ctx, i);
    switch (row) {
      case "capex":
        return o.capex;
      case "per_server":
        return o.costPerServer;
      case "per_server_year":
        return o.costPerServerPerYear;
      case "residual":
        return o.residualValue;
      case "upfront": {
        const parts = [here("capex", i)];
        if (servers) parts.push(`${servers}*${here("per_server", i)}`);
        return native(parts.join("+"), r.upfront);
      }
      case "running": {
        const parts: string[] = [];
        if (lineRows.length === 1) parts.push(here(lineRows[0], i));
        if (lineRows.length > 1) parts.push(`SUM(${here(lineRows[0], i)}:${here(lineRows[lineRows.length - 1], i)})`);
        if (servers) parts.push(`${servers}*${here("per_server_year", i)}`);
        return native(parts.length > 0 ? parts.join("+") : "0", r.running);
      }
      case "npv": {
        const flow = (t: number): string => layout.cell(ctx.perYear, yearKey(t), opt(i));
        return ctx.addin(
          here("npv", i),
          `CAPLAB.NPV_IT(${rate},${flow(0)}:${flow(periods - 1)})`,
          r.npv,
          // NPV_IT = first flow + Excel's NPV (which discounts from t = 1) over the rest.
          periods === 1 ? flow(0) : `${flow(0)}+NPV(${rate},${flow(1)}:${flow(periods - 1)})`,
        );
      }
      case "diff":
        return native(`ROUND(${here("npv", i)}-${here("npv", 0)},6)`, roundMicro(r.difference));
      case "break_even":
        return native(
          `ROUND(${here("capex", i)}-${here("diff", i)},6)`,
          roundMicro(o.capex - roundMicro(r.difference)),
        );
      default:
        return lineOf(ctx, o, Number(row.split(":")[1]))?.perYear ?? 0;
    }
  };
  return tableOf(
    costs,
    [
      { key: "item", header: "Item" },
      ...input.options.map((o, i): ColumnPlan => ({ key: opt(i), header: o.name, numFmt: ctx.cur })),
    ],
    costs.rows.map((row) => [labels[row], ...input.options.map((_, i) => cell(row, i))]),
  );
}

/** Option `o`'s running-cost line with the k-th distinct label, if it has one. */
function lineOf(ctx: Ctx, o: CaseOption, k: number): OpexLine | undefined {
  return o.opex.find((l) => l.label.toLowerCase() === ctx.lineLabels[k].toLowerCase());
}

/** Option `o`'s one-off line with the k-th distinct one-off label, if it has one. */
function oneOffOf(ctx: Ctx, o: CaseOption, k: number): OneOffLine | undefined {
  return o.oneOff.find((l) => l.label.toLowerCase() === ctx.oneOffLabels[k].toLowerCase());
}

/** A table of one figure per running-cost or one-off line and option (escalation rates, one-off amounts or years). */
function perLineTable(
  ctx: Ctx,
  block: Block,
  header: string,
  numFmt: string,
  value: (o: CaseOption, k: number) => number,
  label: (k: number) => string,
  description: string,
): TablePlan {
  return tableOf(
    block,
    [
      { key: "item", header },
      ...ctx.input.options.map((o, i): ColumnPlan => ({ key: opt(i), header: o.name, numFmt, description })),
    ],
    block.rows.map((_, k) => [label(k), ...ctx.input.options.map((o) => value(o, k))]),
  );
}

/**
 * A servers cell of one workload at its rate × `factor` (a cell; none for the case's own load):
 * native sizing where possible, else CAPLAB.MMC_STAFF. `width` is the search window, wide enough
 * for the base, low and high loads.
 */
function serversCell(
  ctx: Ctx,
  w: Workload,
  cells: MmcCells,
  at: { address: string; count: number; factor?: string },
  target: string,
  within: string,
  width: number,
): CellValue {
  const a = w.arrivalRate * w.serviceTime;
  const c = at.factor ? { ...cells, rate: `(${cells.rate}*${at.factor})` } : cells;
  // A time shown in a smaller unit, back in the case's unit for Capacity Lab's functions.
  const scale = ctx.shownTime.scale;
  const unscaled = (time: string): string => (scale === 1 ? time : `(${time})/${scale}`);
  switch (w.sizing.kind) {
    case "servers":
      return native(target, at.count);
    case "utilization":
      return native(`MAX(ROUNDUP(${c.rate}*${c.service}/${target},0),INT(${c.rate}*${c.service})+1)`, at.count);
    case "response":
      if (nativeMmc(a, width)) return native(staffForResponseFormula(c, target, width), at.count);
      return ctx.addin(
        at.address,
        `CAPLAB.MMC_STAFF(${c.service},${c.rate},${unscaled(`${target}-${c.shown ?? c.service}`)})`,
        at.count,
      );
    default:
      if (nativeMmc(a, width)) return native(staffForServiceLevelFormula(c, target, within, width), at.count);
      return ctx.addin(at.address, `CAPLAB.MMC_STAFF(${c.service},${c.rate},${target},${unscaled(within)})`, at.count);
  }
}

function capacityTable(ctx: Ctx, block: Block): TablePlan {
  const { input, result, layout } = ctx;
  const { unit, scale } = ctx.shownTime;
  const shown = (t: number): number => (scale === 1 ? t : t * scale);
  const times: number[] = [];
  for (const o of input.options)
    for (const w of o.workloads) {
      times.push(shown(w.serviceTime));
      if (w.sizing.kind === "response") times.push(shown(w.sizing.response));
      if (w.sizing.kind === "serviceLevel" && w.sizing.answerWithin > 0) times.push(shown(w.sizing.answerWithin));
    }
  const tf = timeFormat(times);
  const columns: ColumnPlan[] = [
    { key: "option", header: "Option" },
    { key: "workload", header: "Workload" },
    {
      key: "rate",
      header: `Rate (${input.rateUnit}) (input)`,
      description: "λ: arrival rate (IOs, calls) per time unit",
    },
    {
      key: "service_time",
      header: `Service time (${unit}) (input)`,
      numFmt: tf,
      description: "S: mean service time (CPU time per IO, handling time per call)",
    },
    { key: "sizing_rule", header: "Sizing rule" },
    {
      key: "target",
      header: "Target (input)",
      description: `Servers for a fixed count; a percentage for utilization or service level; a time in ${unit} for response`,
    },
    {
      key: "answer_within",
      header: "Answer within (input)",
      numFmt: tf,
      description: `For a service-level target: the wait allowed, in ${unit}`,
    },
    { key: "servers", header: "Servers", numFmt: "0", description: "Servers (cores, agents) the sizing rule gives" },
    { key: "utilization", header: "Utilization", numFmt: "0.0%", description: "λ·S / servers" },
    {
      key: "mean_response",
      header: `Mean response (${unit})`,
      numFmt: tf,
      description: "S + mean wait (M/M/c, exact Erlang C)",
    },
    {
      key: "mean_wait",
      header: `Mean wait (${unit})`,
      numFmt: tf,
      description: "Mean time queued before service",
    },
    { key: "p_wait", header: "P(wait)", numFmt: "0.0%", description: "Probability that an arrival waits (Erlang C)" },
    {
      key: "servers_low",
      header: "Servers, low load",
      numFmt: "0",
      description: "The same rule at the arrival rate × the Sensitivity table's low load factor",
    },
    {
      key: "servers_high",
      header: "Servers, high load",
      numFmt: "0",
      description: "The same rule at the arrival rate × the high load factor",
    },
    {
      key: "check",
      header: "Check",
      description: `Cannot carry its load (λ·S ≥ servers), utilization above the limit in Assumptions, P(wait) above ${PWAIT_WARNING * 100}%`,
    },
  ].filter((c) => block.cols.includes(c.key));
  const limit = layout.cell(ctx.assumptions, "value", "utilization_limit", true);
  const loadAt = (side: "low" | "high"): string => layout.cell(ctx.sensitivity, "load", side, true);
  const rows: CellValue[][] = [];
  const cellFormats: NonNullable<TablePlan["cellFormats"]> = [];
  const targetCol = columns.findIndex((c) => c.key === "target");
  input.options.forEach((o, i) => {
    const cellsOf: CaseCells["workloads"][number] = [];
    o.workloads.forEach((w, j) => {
      const key = workloadKey(i, j);
      const at = (col: string): string => layout.cell(block, key, col);
      const wr = result.options[i].workloads[j];
      const c: MmcCells = {
        rate: at("rate"),
        service: scale === 1 ? at("service_time") : `(${at("service_time")}/${scale})`,
        shown: at("service_time"),
        servers: at("servers"),
        pWait: at("p_wait"),
        wait: at("mean_wait"),
      };
      const kind = w.sizing.kind;
      cellFormats.push({
        row: rows.length,
        col: targetCol,
        numFmt: kind === "servers" ? "0" : kind === "response" ? tf : "0%",
      });
      const target = at("target");
      const within = block.cols.includes("answer_within") ? at("answer_within") : "";
      const a = w.arrivalRate * w.serviceTime;
      const live = nativeMmc(a, 0);
      const s = input.sensitivity.load;
      const width = Math.max(
        searchWidth(wr.servers, a),
        searchWidth(wr.serversLowLoad, w.arrivalRate * s.low * w.serviceTime),
        searchWidth(wr.serversHighLoad, w.arrivalRate * s.high * w.serviceTime),
      );
      const metrics = `CAPLAB.MMC_METRICS(${c.servers},${c.service},${c.rate})`;
      const perScale = scale === 1 ? "" : `*${scale}`;
      const values: Record<string, CellValue> = {
        option: o.name,
        workload: w.name,
        rate: w.arrivalRate,
        service_time: w.serviceTimeRef
          ? native(
              serviceTimeFormula(w.serviceTimeRef, w.serviceTimeRefDivisor) + (scale === 1 ? "" : `*${scale}`),
              shown(w.serviceTime),
            )
          : shown(w.serviceTime),
        sizing_rule: SIZING_TEXT[w.sizing.kind],
        target:
          w.sizing.kind === "servers"
            ? w.sizing.servers
            : w.sizing.kind === "utilization"
              ? w.sizing.utilization
              : w.sizing.kind === "response"
                ? shown(w.sizing.response)
                : w.sizing.level,
        answer_within: w.sizing.kind === "serviceLevel" ? shown(w.sizing.answerWithin) : null,
        servers: serversCell(ctx, w, c, { address: c.servers, count: wr.servers }, target, within, width),
        servers_low: serversCell(
          ctx,
          w,
          c,
          { address: at("servers_low"), count: wr.serversLowLoad, factor: loadAt("low") },
          target,
          within,
          width,
        ),
        servers_high: serversCell(
          ctx,
          w,
          c,
          { address: at("servers_high"), count: wr.serversHighLoad, factor: loadAt("high") },
          target,
          within,
          width,
        ),
        utilization: native(utilizationFormula(c), wr.utilization),
        mean_response: live
          ? native(responseFormula(c), shown(wr.meanResponse))
          : ctx.addin(at("mean_response"), `INDEX(${metrics},4,2)${perScale}`, shown(wr.meanResponse)),
        mean_wait: live
          ? native(waitFormula(c), shown(wr.meanWait))
          : ctx.addin(at("mean_wait"), `INDEX(${metrics},3,2)${perScale}`, shown(wr.meanWait)),
        p_wait: live ? native(pWaitFormula(c), wr.pWait) : ctx.addin(at("p_wait"), `INDEX(${metrics},2,2)`, wr.pWait),
        check: native(
          checkFormula(c, at("utilization"), limit),
          checkText(false, wr.utilization, wr.pWait, input.utilizationLimit),
        ),
      };
      rows.push(columns.map((col) => values[col.key]));
      cellsOf.push({
        rate: c.rate,
        serviceTime: c.service,
        servers: c.servers,
        utilization: at("utilization"),
        meanResponse: at("mean_response"),
        meanWait: c.wait,
        pWait: c.pWait,
        check: at("check"),
        timeScale: scale,
        native: live && ctx.cells.addinFormulas.every((f) => f.address !== c.servers),
      });
    });
    ctx.cells.workloads.push(cellsOf);
    ctx.cells.servers.push(cellsOf.map((x) => x.servers));
  });
  return { ...tableOf(block, columns, rows), cellFormats };
}

/** The cost each option pays at the start of each year (and, with a residual value, the value recovered at the end). */
function perYearTable(ctx: Ctx): TablePlan {
  const { input, result, layout, perYear, costs } = ctx;
  const lines = ctx.lineLabels.length;
  const rows = perYear.rows.map((row, t) => [
    t,
    ...input.options.map((_o, i) => {
      const col = opt(i);
      const value = result.options[i].cashflows[t];
      if (t === input.years) return native(`-${layout.cell(costs, "residual", col)}`, value);
      const year = layout.cell(perYear, row, "year");
      const parts: string[] = [];
      if (t === 0) parts.push(layout.cell(costs, "upfront", col));
      if (ctx.escalation && lines > 0) {
        const amounts = layout.span(costs, [lineKey(0), col], [lineKey(lines - 1), col]);
        const rates = layout.span(ctx.escalation, [lineKey(0), col], [lineKey(lines - 1), col]);
        parts.push(`SUMPRODUCT(${amounts},(1+${rates})^${year})`);
        const servers = serversTerm(ctx, i);
        if (servers) parts.push(`${servers}*${layout.cell(costs, "per_server_year", col)}`);
      } else parts.push(layout.cell(costs, "running", col));
      if (ctx.oneOffs && ctx.oneOffYears) {
        const n = ctx.oneOffLabels.length;
        const amounts = layout.span(ctx.oneOffs, [oneOffKey(0), col], [oneOffKey(n - 1), col]);
        const years = layout.span(ctx.oneOffYears, [oneOffKey(0), col], [oneOffKey(n - 1), col]);
        parts.push(`SUMPRODUCT((${years}=${year})*${amounts})`);
      }
      return native(parts.join("+"), value);
    }),
  ]);
  return tableOf(
    perYear,
    [
      { key: "year", header: "Year", numFmt: "0", description: "Payments at the start of the year; year 0 = now" },
      ...input.options.map((o, i): ColumnPlan => ({
        key: opt(i),
        header: o.name,
        numFmt: ctx.cur,
        description: "Cost paid at the start of the year",
      })),
    ],
    rows,
  );
}

/** Beside it, the running sum of the discounted costs (the chart's data). */
function cumulativeTable(ctx: Ctx): TablePlan {
  const { input, result, layout, perYear, cumulative } = ctx;
  const rate = layout.cell(ctx.assumptions, "value", "discount_rate", true);
  const rows = cumulative.rows.map((row, t) => [
    native(layout.cell(perYear, row, "year"), t),
    ...input.options.map((_o, i) => {
      const discounted = `${layout.cell(perYear, row, opt(i))}/(1+${rate})^${layout.cell(perYear, row, "year")}`;
      const formula = t === 0 ? discounted : `${layout.cell(cumulative, yearKey(t - 1), opt(i))}+${discounted}`;
      return native(formula, result.options[i].cumulativeDiscounted[t]);
    }),
  ]);
  return tableOf(
    cumulative,
    [
      { key: "year", header: "Year", numFmt: "0" },
      ...input.options.map((o, i): ColumnPlan => ({
        key: opt(i),
        header: o.name,
        numFmt: ctx.cur,
        description: "Cumulative discounted cost: Σ cost/(1 + rate)^year up to this year",
      })),
    ],
    rows,
  );
}

/** Per option against the baseline: NPV saving, incremental IRR, payback and discounted payback. */
function returnsTable(ctx: Ctx): TablePlan {
  const { input, result, layout, returns, costs, savings } = ctx;
  const m = result.periods;
  const years = (key: string): string => layout.span(savings, [yearKey(0), key], [yearKey(m - 1), key]);
  const notWithin = `not within ${input.years} year${input.years === 1 ? "" : "s"}`;
  const rows = returns.rows.map((row) => {
    const i = Number(row.split("_")[1]) - 1;
    const v = result.options[i].vsBaseline as VsBaseline;
    const payback = (key: string, value: number | null): CellValue => {
      // 1 + the last year whose cumulative saving is negative (core/payback.ts); the last year itself: not reached.
      const last = `SUMPRODUCT(MAX((${years(key)}<0)*(${years("year")}+1)))`;
      return native(`IF(${last}=${m},"${notWithin}",${last})`, value === null ? notWithin : value);
    };
    let irr: CellValue = "n/a";
    if (m >= 2) {
      const later = layout.span(savings, [yearKey(1), savKey(i)], [yearKey(m - 1), savKey(i)]);
      const earlier = layout.span(savings, [yearKey(0), savKey(i)], [yearKey(m - 2), savKey(i)]);
      const all = years(savKey(i));
      irr = native(
        // The guess is the IRR found when the case was built: spreadsheets' IRR is Newton's method from
        // the guess (10 % by default) and fails for rates far from it (LibreOffice, at -15 %).
        `IF(AND(COUNTIF(${all},0)=0,SUMPRODUCT(--(${later}*${earlier}<0))=1),IFERROR(IRR(${all},${v.irr ?? 0.1}),"n/a"),"n/a")`,
        v.irr ?? "n/a",
      );
    }
    return [
      input.options[i].name,
      native(`${layout.cell(costs, "npv", opt(0))}-${layout.cell(costs, "npv", opt(i))}`, v.npvSaving),
      irr,
      payback(cumSavKey(i), v.payback),
      payback(dcumSavKey(i), v.discountedPayback),
    ];
  });
  return tableOf(
    returns,
    [
      { key: "option", header: `Against ${input.options[0].name}` },
      {
        key: "npv_saving",
        header: "NPV saving",
        numFmt: ctx.cur,
        description: "Baseline net present cost − this option's",
      },
      {
        key: "irr",
        header: "Incremental IRR",
        numFmt: "0.0%",
        description:
          "The rate at which the yearly savings' NPV is zero; n/a unless the savings change sign exactly once",
      },
      {
        key: "payback",
        header: "Payback (years)",
        numFmt: "0",
        description: "Years until the cumulative saving stays ≥ 0 (payments at the start of each year)",
      },
      {
        key: "discounted_payback",
        header: "Discounted payback (years)",
        numFmt: "0",
        description: "The same on the discounted savings",
      },
    ],
    rows,
  );
}

/** Per year and option: the saving against the baseline, its running sum and its discounted running sum. */
function savingsTable(ctx: Ctx): TablePlan {
  const { input, result, layout, savings, perYear } = ctx;
  const rate = layout.cell(ctx.assumptions, "value", "discount_rate", true);
  const others = input.options.map((_, i) => i).slice(1);
  const rows = savings.rows.map((row, t) => {
    const cells: CellValue[] = [native(layout.cell(perYear, row, "year"), t)];
    const year = layout.cell(savings, row, "year");
    for (const i of others) {
      const v = result.options[i].vsBaseline as VsBaseline;
      const sav = layout.cell(savings, row, savKey(i));
      const prev = (key: string): string => (t === 0 ? "" : `${layout.cell(savings, yearKey(t - 1), key)}+`);
      cells.push(
        native(`${layout.cell(perYear, row, opt(0))}-${layout.cell(perYear, row, opt(i))}`, v.savings[t]),
        native(`${prev(cumSavKey(i))}${sav}`, v.cumulative[t]),
        native(`${prev(dcumSavKey(i))}${sav}/(1+${rate})^${year}`, v.cumulativeDiscounted[t]),
      );
    }
    return cells;
  });
  return tableOf(
    savings,
    [
      { key: "year", header: "Year", numFmt: "0" },
      ...others.flatMap((i): ColumnPlan[] => [
        {
          key: savKey(i),
          header: `${input.options[i].name}: saving`,
          numFmt: ctx.cur,
          description: "Baseline cost − this option's cost in the year",
        },
        { key: cumSavKey(i), header: `${input.options[i].name}: cumulative`, numFmt: ctx.cur },
        { key: dcumSavKey(i), header: `${input.options[i].name}: cumulative discounted`, numFmt: ctx.cur },
      ]),
    ],
    rows,
  );
}

const DRIVER_TEXT: Record<TornadoRow["driver"], string> = {
  load: "Load (× every arrival rate)",
  discountRate: "Discount rate",
  capex: "Capex (× every option's)",
  serverCost: "Per-server costs (×)",
};

/**
 * The tornado: the recommended option's NPV saving over the baseline with one driver at its low or
 * high value (inputs), the others at base, as closed forms over the sheet's cells (the saving is
 * linear in capex and per-server cost; the load acts through the servers at low and high load;
 * the rate through the yearly savings).
 */
function sensitivityTable(ctx: Ctx): TablePlan {
  const { input, result, layout, sensitivity, costs, returns, scenarios, savings } = ctx;
  const k = result.recommended;
  const base = layout.cell(returns, opt(k), "npv_saving");
  const sav = layout.span(savings, [yearKey(0), savKey(k)], [yearKey(result.periods - 1), savKey(k)]);
  const years = layout.span(savings, [yearKey(0), "year"], [yearKey(result.periods - 1), "year"]);
  const sc = (i: number, col: string): string => layout.cell(scenarios, opt(i), col);
  const rows = sensitivity.rows.map((driver) => {
    const row = result.tornado.find((r) => r.driver === driver) as TornadoRow;
    const at = (side: "low" | "high"): string => layout.cell(sensitivity, row.driver, side);
    const saving = (side: "low" | "high"): string => {
      switch (row.driver) {
        case "discountRate":
          return `SUMPRODUCT(${sav}/(1+${at(side)})^${years})`;
        case "capex":
          return `${base}+(${at(side)}-1)*(${layout.cell(costs, "capex", opt(0))}-${layout.cell(costs, "capex", opt(k))})`;
        case "serverCost":
          return `${base}+(${at(side)}-1)*(${sc(0, "pv_base")}-${sc(k, "pv_base")})`;
        default:
          return `${base}+(${sc(0, `pv_${side}`)}-${sc(0, "pv_base")})-(${sc(k, `pv_${side}`)}-${sc(k, "pv_base")})`;
      }
    };
    const lo = layout.cell(sensitivity, row.driver, "saving_low");
    const hi = layout.cell(sensitivity, row.driver, "saving_high");
    return [
      DRIVER_TEXT[row.driver],
      row.low,
      row.high,
      native(saving("low"), row.savingLow),
      native(saving("high"), row.savingHigh),
      native(`ABS(${hi}-${lo})`, Math.abs(row.savingHigh - row.savingLow)),
    ];
  });
  const vs = `${input.options[k].name} vs ${input.options[0].name}`;
  return tableOf(
    sensitivity,
    [
      { key: "driver", header: "Driver" },
      {
        key: "low",
        header: "Low (input)",
        numFmt: "0.00",
        description: "A factor on the case's values (a rate for the discount rate); the Scenarios table uses the same",
      },
      { key: "high", header: "High (input)", numFmt: "0.00" },
      { key: "saving_low", header: `NPV saving, ${vs}, at low`, numFmt: ctx.cur },
      { key: "saving_high", header: `NPV saving at high`, numFmt: ctx.cur },
      {
        key: "swing",
        header: "Swing",
        numFmt: ctx.cur,
        description: "|saving at high − saving at low|: the longer the bar, the more the decision depends on it",
      },
    ],
    rows,
  );
}

/**
 * The tornado chart: one horizontal bar per driver (largest swing on top, the Sensitivity table's
 * order), from the base NPV saving to the saving at the driver's low and at its high value.
 */
function tornadoChart(ctx: Ctx): ChartPlan {
  const { input, result, sensitivity } = ctx;
  const k = result.recommended;
  const rows = sensitivity.rows.map((d) => result.tornado.find((r) => r.driver === d) as TornadoRow);
  const base = (result.options[k].vsBaseline as VsBaseline).npvSaving;
  return {
    id: ctx.names("tornado"),
    title: `Sensitivity: NPV saving of ${input.options[k].name} vs ${input.options[0].name}`,
    kind: "bar",
    categories: rows.map((r) => DRIVER_TEXT[r.driver]),
    base,
    xTitle: "Driver",
    yTitle: `NPV saving (${input.currency}); bars from the base case ${money(base, input.currency)}`,
    series: [
      {
        name: "Driver at its low value",
        x: rows.map((_, j) => j),
        y: rows.map((r) => r.savingLow),
        style: "points",
      },
      {
        name: "Driver at its high value",
        x: rows.map((_, j) => j),
        y: rows.map((r) => r.savingHigh),
        style: "points",
      },
    ],
    source: { table: sensitivity.name, xColumn: "driver", yColumns: ["saving_low", "saving_high"] },
  };
}

/**
 * Low / base / high scenarios: each option's net present cost with load, capex and per-server
 * costs all at their low (or all at their high) values from the Sensitivity table, the discount
 * rate at base. With workloads, the workings: servers and the present value of the per-server
 * costs at each load.
 */
function scenariosTable(ctx: Ctx): TablePlan {
  const { input, result, layout, scenarios, costs, sensitivity, perYear } = ctx;
  const rate = layout.cell(ctx.assumptions, "value", "discount_rate", true);
  const years = layout.span(perYear, [yearKey(0), "year"], [yearKey(input.years - 1), "year"]);
  const annuity = `SUMPRODUCT(1/(1+${rate})^${years})`;
  const s = (driver: string, side: string): string => layout.cell(sensitivity, driver, side, true);
  const rows = input.options.map((o, i) => {
    const r = result.options[i];
    const col = opt(i);
    const here = (key: string): string => layout.cell(scenarios, col, key);
    const cells: CellValue[] = [o.name];
    const npv = layout.cell(costs, "npv", col);
    const capex = layout.cell(costs, "capex", col);
    if (ctx.anyWorkloads) {
      const sum = (key: string): string => serversTerm(ctx, i, key) ?? "0";
      cells.push(
        native(sum("servers_low"), r.serversLowLoad),
        native(sum("servers"), r.servers),
        native(sum("servers_high"), r.serversHighLoad),
      );
      const pv = (servers: string): string =>
        `${servers}*(${layout.cell(costs, "per_server", col)}+${layout.cell(costs, "per_server_year", col)}*${annuity})`;
      cells.push(
        native(pv(here("servers_low")), r.serverCostPv.low),
        native(pv(here("servers_base")), r.serverCostPv.base),
        native(pv(here("servers_high")), r.serverCostPv.high),
      );
      cells.push(
        native(
          `${npv}+(${s("capex", "low")}-1)*${capex}+${s("serverCost", "low")}*${here("pv_low")}-${here("pv_base")}`,
          r.scenario.low,
        ),
        native(npv, r.npv),
        native(
          `${npv}+(${s("capex", "high")}-1)*${capex}+${s("serverCost", "high")}*${here("pv_high")}-${here("pv_base")}`,
          r.scenario.high,
        ),
      );
    } else {
      cells.push(
        native(`${npv}+(${s("capex", "low")}-1)*${capex}`, r.scenario.low),
        native(npv, r.npv),
        native(`${npv}+(${s("capex", "high")}-1)*${capex}`, r.scenario.high),
      );
    }
    return cells;
  });
  const all: ColumnPlan[] = [
    { key: "option", header: "Option" },
    { key: "servers_low", header: "Servers, low load", numFmt: "0" },
    { key: "servers_base", header: "Servers, base", numFmt: "0" },
    { key: "servers_high", header: "Servers, high load", numFmt: "0" },
    {
      key: "pv_low",
      header: "Server costs PV, low load",
      numFmt: ctx.cur,
      description: "Present value of the per-server costs (one-off + yearly)",
    },
    { key: "pv_base", header: "Server costs PV, base", numFmt: ctx.cur },
    { key: "pv_high", header: "Server costs PV, high load", numFmt: ctx.cur },
    {
      key: "npv_low",
      header: "Net present cost, low scenario",
      numFmt: ctx.cur,
      description: "Load, capex and per-server costs all at their low values",
    },
    { key: "npv_base", header: "Base", numFmt: ctx.cur },
    {
      key: "npv_high",
      header: "High scenario",
      numFmt: ctx.cur,
      description: "Load, capex and per-server costs all at their high values",
    },
  ];
  return tableOf(
    scenarios,
    all.filter((c) => scenarios.cols.includes(c.key)),
    rows,
  );
}

// ---------------------------------------------------------------------------------------------
// The verdict first, and a title for every table

/** Every table's title, by its name without the prefix. */
function tableTitle(ctx: Ctx, name: string): string {
  const { input, result } = ctx;
  const baseline = input.options[0].name;
  const k = result.recommended;
  const titles: Record<string, string> = {
    Recommendation: "Recommendation",
    Assumptions: "Assumptions",
    Notes: "Assumptions, risks and sources",
    Costs: "Costs per option",
    Escalation: "Escalation of running costs per year",
    OneOff: "One-off costs",
    OneOffYear: "Year each one-off cost is paid",
    Return: `Return of each option against ${baseline}`,
    Capacity: "Capacity: servers each workload needs (M/M/c)",
    CostPerYear: "Cost per year",
    CumulativeCost: "Cumulative discounted cost",
    Savings: `Savings against ${baseline}, per year`,
    Sensitivity: `Sensitivity: NPV saving of ${input.options[k].name} vs ${baseline}, one driver at a time`,
    Scenarios: "Scenarios: net present cost with every driver low, base or high",
  };
  for (const [raw, title] of Object.entries(titles)) if (ctx.names(raw) === name) return title;
  return name;
}

/**
 * The case's free-text notes as rows (kind, what it is about, the text): its assumptions, risks and
 * sources, then the source of each figure that has one (an option's capex and server costs, a
 * running-cost or one-off line, a workload's rate and service time). Plain text cells.
 */
function caseNotes(input: CaseInput): string[][] {
  const rows: string[][] = [
    ...input.notes.assumptions.map((t) => ["Assumption", "The case", t]),
    ...input.notes.risks.map((t) => ["Risk", "The case", t]),
    ...input.notes.sources.map((t) => ["Source", "The case", t]),
  ];
  for (const o of input.options) {
    if (o.source) rows.push(["Source", `${o.name}: capex and per-server costs`, o.source]);
    for (const l of o.opex) if (l.source) rows.push(["Source", `${o.name}: ${l.label} per year`, l.source]);
    for (const l of o.oneOff) if (l.source) rows.push(["Source", `${o.name}: ${l.label} (one-off)`, l.source]);
    for (const w of o.workloads)
      if (w.source) rows.push(["Source", `${o.name}: ${w.name} (rate and service time)`, w.source]);
  }
  return rows;
}

const RECOMMENDATION_ROWS = ["choose", "saving", "lead", "payback", "confidence"];

/**
 * The verdict, first on the sheet: the option to choose (the lowest net present cost), its NPV
 * saving over the baseline, its lead over the next best option, its payback, and how far the
 * choice can be trusted — whether every low and high value in the Sensitivity table keeps the same
 * choice, and whether a workload is flagged in Capacity. All live formulas.
 */
function recommendationTable(ctx: Ctx): TablePlan {
  const { input, result, layout, costs, returns, sensitivity } = ctx;
  const n = input.options.length;
  const npvs = layout.span(costs, ["npv", opt(0)], ["npv", opt(n - 1)], true);
  const names = layout.span(costs, ["header", opt(0)], ["header", opt(n - 1)], true);
  const k = `MATCH(TRUE,INDEX(ROUND(${npvs},2)=ROUND(MIN(${npvs}),2),0),0)`;
  const npv0 = layout.cell(costs, "npv", opt(0), true);
  const opts = result.options;
  const c = result.cheapest;
  const sorted = opts.map((o) => o.npv).sort((a, b) => a - b);
  const notWithin = `not within ${input.years} year${input.years === 1 ? "" : "s"}`;
  const paybacks = layout.span(returns, [opt(1), "payback"], [opt(n - 1), "payback"], true);
  const paybackNow = c === 0 ? "n/a: keep the baseline" : ((opts[c].vsBaseline as VsBaseline).payback ?? notWithin);

  // Confidence: the Sensitivity table measures option `r` against the baseline; the choice holds at a
  // low or high value when the saving keeps its sign (positive when `r` is chosen, negative when the
  // baseline is).
  const r = result.recommended;
  const savings = layout.span(
    sensitivity,
    [sensitivity.rows[0], "saving_low"],
    [sensitivity.rows[sensitivity.rows.length - 1], "saving_high"],
    true,
  );
  // Live: which sign reverses the choice depends on the choice the sheet shows now (k).
  const reversing = `IF(${k}=1,COUNTIF(${savings},">=0"),COUNTIF(${savings},"<=0"))`;
  const all = result.tornado.length * 2;
  const flips = result.tornado.reduce(
    (m, t) => m + [t.savingLow, t.savingHigh].filter((v) => (c === 0 ? v >= 0 : v <= 0)).length,
    0,
  );
  const checks = ctx.capacity
    ? layout.span(
        ctx.capacity,
        [ctx.capacity.rows[0], "check"],
        [ctx.capacity.rows[ctx.capacity.rows.length - 1], "check"],
        true,
      )
    : undefined;
  const flagged = opts.some((o) =>
    o.workloads.some((w) => checkText(false, w.utilization, w.pWait, input.utilizationLimit) !== ""),
  );
  // Option names come from the input: the formula refers to their cells, never quotes them.
  const against = `${input.options[r].name} vs ${input.options[0].name}`;
  const againstCells = `${layout.cell(costs, "header", opt(r), true)}&" vs "&${layout.cell(costs, "header", opt(0), true)}`;
  const high = `High: all ${all} low/high values in Sensitivity (${against}) keep this choice.`;
  const highFormula = `"High: all ${all} low/high values in Sensitivity ("&${againstCells}&") keep this choice."`;
  const low = (m: string): string =>
    `"Low: "&${m}&" of ${all} low/high values in Sensitivity ("&${againstCells}&") reverse it."`;
  const flagText = " Capacity: a workload is flagged (Check column).";
  const confidenceNow =
    (flips === 0 ? high : `Low: ${flips} of ${all} low/high values in Sensitivity (${against}) reverse it.`) +
    (flagged ? flagText : "");
  // Sensitivity compares option r with the baseline; if edits make a third option the choice, its
  // counts say nothing about it, so the verdict says so instead of judging with them.
  const judged =
    `IF(${reversing}=0,${highFormula},${low(reversing)})` +
    (checks ? `&IF(COUNTIF(${checks},"?*")>0,"${flagText}","")` : "");
  const confidence = `IF(OR(${k}=1,${k}=${r + 1}),${judged},"Not judged: with the edited figures the choice is "&INDEX(${names},${k})&", but Sensitivity compares "&${againstCells}&". Build the case again to judge it.")`;
  const rows: CellValue[][] = [
    ["Choose", native(`INDEX(${names},${k})`, input.options[c].name)],
    [
      `NPV saving over ${input.options[0].name}`,
      native(`ROUND(${npv0}-MIN(${npvs}),6)`, roundMicro(opts[0].npv - sorted[0])),
    ],
    [
      "Lead over the next best option (NPV)",
      native(`ROUND(SMALL(${npvs},2)-MIN(${npvs}),6)`, roundMicro(sorted[1] - sorted[0])),
    ],
    ["Payback (years)", native(`IF(${k}=1,"n/a: keep the baseline",INDEX(${paybacks},${k}-1))`, paybackNow)],
    ["Confidence", native(confidence, confidenceNow)],
  ];
  return {
    ...tableOf(
      ctx.recommendation,
      [
        { key: "item", header: "Verdict" },
        {
          key: "value",
          header: `Over ${input.years} year${input.years === 1 ? "" : "s"} at ${percent(input.discountRate)}`,
        },
      ],
      rows,
    ),
    callout: true,
    cellFormats: [
      { row: 1, col: 1, numFmt: ctx.cur },
      { row: 2, col: 1, numFmt: ctx.cur },
      { row: 3, col: 1, numFmt: "0" },
    ],
  };
}

// ---------------------------------------------------------------------------------------------
// The conclusion, as a live formula

/**
 * {@link conclusion} as a native Excel formula over the Costs table, so the line follows the inputs:
 * the same words, the same choice of options (the first lowest net present cost, as MATCH finds
 * it) and the same rounding ({@link money}: whole units, grouped; {@link percent}: two decimals at
 * most). No LET or TEXTJOIN, so Excel 2016 and LibreOffice read it. TEXT reads "#,##0" in the
 * reader's locale: where "," is not the thousands separator, a recalculated line may group the
 * figures differently from the cached text.
 */
function conclusionFormula(ctx: Ctx): string {
  const { input, layout, costs } = ctx;
  const n = input.options.length;
  const row = (r: string, from = 0): string => layout.span(costs, [r, opt(from)], [r, opt(n - 1)], true);
  const at = (r: string, i: number): string => layout.cell(costs, r, opt(i), true);
  const rate = layout.cell(ctx.assumptions, "value", "discount_rate", true);
  const sym = input.currency.length === 1 ? input.currency : `${input.currency} `;
  const money = (x: string): string =>
    `IF(AND(${x}<0,ROUND(ABS(${x}),0)<>0),"${MINUS}","")&"${sym}"&TEXT(ROUND(ABS(${x}),0),"#,##0")`;
  const years = input.years;
  const over = `"over ${years} year${years === 1 ? "" : "s"} at "&ROUND(${rate}*100,2)&"%"`;
  const names = row("header");
  const npvs = row("npv");
  const diffs = row("diff");
  const name0 = at("header", 0);
  const npv0 = at("npv", 0);
  // The first option within a cent of the least (as computeCase chooses).
  const first = (range: string): string =>
    range.includes(":") ? `MATCH(TRUE,INDEX(ROUND(${range},2)=ROUND(MIN(${range}),2),0),0)` : "1";
  const k = first(npvs);
  const cheapest =
    `INDEX(${names},${k})&" saves "&${money(`-INDEX(${diffs},${k})`)}&" "&${over}&" compared with "&${name0}` +
    `&" (net present cost "&${money(`INDEX(${npvs},${k})`)}&" vs "&${money(npv0)}&")."`;
  const rest = row("npv", 1);
  const second = `(1+${first(rest)})`;
  const baseline =
    `IF(ROUND(INDEX(${diffs},${second}),0)=0,${name0}&" and "&INDEX(${names},${second})&" cost the same "&${over}` +
    `&" (net present cost "&${money(npv0)}&").",${name0}&" costs least: "&INDEX(${names},${second})&" would cost "` +
    `&${money(`INDEX(${diffs},${second})`)}&" more "&${over}&" (net present cost "&${money(`INDEX(${npvs},${second})`)}` +
    `&" vs "&${money(npv0)}&").")`;
  const breakEven =
    n === 2
      ? `&" "&${at("header", 1)}&" breaks even with "&${name0}&" at a capex of "&${money(at("break_even", 1))}&"."`
      : "";
  return `IF(${k}<>1,${cheapest},${baseline})${breakEven}`;
}

/**
 * Builds the business-case sheet from a validated case.
 *
 * @param input - the case, from {@link parseCaseInput} (not modified)
 * @param options - sheet name, table-name prefix, sources
 * @returns the plan (one sheet), the input, the computed figures and where the key cells are
 * @throws DomainError naming the input path when the case cannot be computed (see {@link computeCase})
 * @example
 * buildCasePlan(parseCaseInput({ years: 3, discountRate: 0.1, options: [
 *   { name: "Keep", opex: [{ label: "Support", perYear: 100000 }] },
 *   { name: "Replace", capex: 250000 } ] })).plan.sheets[0].notes[1];
 * // => "Replace saves £23,554 over 3 years at 10% compared with Keep (net present cost £250,000 vs £273,554). Replace breaks even with Keep at a capex of £273,554."
 */
export function buildCasePlan(input: CaseInput, options: CasePlanOptions = {}): CasePlan {
  const result = computeCase(input);
  const prefix = options.tablePrefix ?? "";
  const names = (name: string): string => tableName(prefix, name);
  const anyWorkloads = input.options.some((o) => o.workloads.length > 0);
  const distinct = (labels: string[]): string[] => {
    const out: string[] = [];
    for (const l of labels) if (!out.some((x) => x.toLowerCase() === l.toLowerCase())) out.push(l);
    return out;
  };
  const lineLabels = distinct(input.options.flatMap((o) => o.opex.map((l) => l.label)));
  const oneOffLabels = distinct(input.options.flatMap((o) => o.oneOff.map((l) => l.label)));
  const escalates = input.options.some((o) => o.opex.some((l) => l.escalation !== 0));
  const residual = result.periods > input.years;
  const notes = [
    `Business case: ${input.title}`,
    conclusion(input, result),
    `Inputs are marked "(input)"; every other figure is a formula over them. Costs are paid at the start of each year ` +
      `(year 0 = now, not discounted) and discounted at the rate below.`,
  ];
  const loads = input.options.flatMap((o) => o.workloads.map((w) => w.arrivalRate * w.serviceTime));
  if (anyWorkloads) {
    notes.push(
      loads.every((a) => nativeMmc(a, 0))
        ? "Servers, utilization, response, wait and P(wait) are M/M/c figures written as spreadsheet formulas " +
            "(Erlang C through POISSON): change a rate, a service time or a target and they follow, with or without Capacity Lab."
        : "Servers, response, wait and P(wait) are M/M/c figures; for loads above 500 erlangs they are Capacity Lab " +
            "formulas (MMC_STAFF, MMC_METRICS): live with the add-in, values (frozen) in a copy without it.",
    );
  }

  // Placement: every table, with the keys of its rows and columns.
  const layout = new CaseLayout(rowBelow(0, notes.length));
  const recommendation = layout.place(names("Recommendation"), RECOMMENDATION_ROWS, ["item", "value"]);
  const assumptions = layout.place(names("Assumptions"), ["value"], assumptionColumns(anyWorkloads));
  const noteRows = caseNotes(input);
  const notesBlock =
    noteRows.length > 0
      ? layout.place(
          names("Notes"),
          noteRows.map((_, k) => `note:${k}`),
          ["kind", "about", "text"],
        )
      : undefined;
  const optionKeys = input.options.map((_, i) => opt(i));
  const costs = layout.place(names("Costs"), costRows({ anyWorkloads, lineLabels, residual }), ["item", ...optionKeys]);
  const escalation =
    escalates && lineLabels.length > 0
      ? layout.place(
          names("Escalation"),
          lineLabels.map((_, k) => lineKey(k)),
          ["item", ...optionKeys],
        )
      : undefined;
  const oneOffRows = oneOffLabels.map((_, k) => oneOffKey(k));
  const oneOffs =
    oneOffRows.length > 0 ? layout.place(names("OneOff"), oneOffRows, ["item", ...optionKeys]) : undefined;
  const oneOffYears =
    oneOffRows.length > 0 ? layout.place(names("OneOffYear"), oneOffRows, ["item", ...optionKeys], oneOffs) : undefined;
  const others = input.options.map((_, i) => i).slice(1);
  const returns = layout.place(
    names("Return"),
    others.map((i) => opt(i)),
    ["option", "npv_saving", "irr", "payback", "discounted_payback"],
  );
  const capacity = anyWorkloads
    ? layout.place(
        names("Capacity"),
        input.options.flatMap((o, i) => o.workloads.map((_, j) => workloadKey(i, j))),
        capacityColumns(input),
      )
    : undefined;
  const yearRows = Array.from({ length: result.periods }, (_, t) => yearKey(t));
  const optionCols = ["year", ...optionKeys];
  const perYear = layout.place(names("CostPerYear"), yearRows, optionCols);
  const cumulative = layout.place(names("CumulativeCost"), yearRows, optionCols, perYear);
  const savings = layout.place(names("Savings"), yearRows, [
    "year",
    ...others.flatMap((i) => [savKey(i), cumSavKey(i), dcumSavKey(i)]),
  ]);
  // Largest swing first: the tornado's widest bar on top.
  const drivers = [...result.tornado]
    .sort((a, b) => Math.abs(b.savingHigh - b.savingLow) - Math.abs(a.savingHigh - a.savingLow))
    .map((r) => r.driver);
  const sensitivity = layout.place(names("Sensitivity"), drivers, [
    "driver",
    "low",
    "high",
    "saving_low",
    "saving_high",
    "swing",
  ]);
  const scenarios = layout.place(
    names("Scenarios"),
    optionKeys,
    anyWorkloads
      ? [
          "option",
          "servers_low",
          "servers_base",
          "servers_high",
          "pv_low",
          "pv_base",
          "pv_high",
          "npv_low",
          "npv_base",
          "npv_high",
        ]
      : ["option", "npv_low", "npv_base", "npv_high"],
  );

  const cells: CaseCells = {
    discountRate: layout.cell(assumptions, "value", "discount_rate"),
    npv: input.options.map((_, i) => layout.cell(costs, "npv", opt(i))),
    workloads: [],
    servers: [],
    addinFormulas: [],
  };
  const ctx: Ctx = {
    input,
    result,
    layout,
    names,
    cur: currencyFormat(input.currency),
    anyWorkloads,
    lineLabels,
    oneOffLabels,
    escalates,
    residual,
    assumptions,
    costs,
    capacity,
    perYear,
    cumulative,
    escalation,
    oneOffs,
    oneOffYears,
    returns,
    savings,
    sensitivity,
    scenarios,
    recommendation,
    cells,
    shownTime: shownTimeUnit(
      input.timeUnit,
      input.options.flatMap((o) => o.workloads.map((w) => w.serviceTime)),
    ),
    /**
     * A cell whose live form is a Capacity Lab function. Renderers that cannot run `CAPLAB.*`
     * (ExcelJS, HTML) must show the computed value or a native equivalent, never the formula (a
     * workbook opened without the add-in would show #NAME?), so that is what the plan holds.
     */
    addin: (address, formula, value, nativeEquivalent) => {
      cells.addinFormulas.push({ address, formula });
      if (nativeEquivalent !== undefined && !options.forExcelAddin) return native(nativeEquivalent, value);
      return { addinFormula: formula, result: value } satisfies AddinFormulaCell;
    },
  };

  const tables: TablePlan[] = [recommendationTable(ctx), assumptionsTable(ctx)];
  if (notesBlock)
    tables.push(
      tableOf(
        notesBlock,
        [
          { key: "kind", header: "Kind", numFmt: "@" },
          { key: "about", header: "About", numFmt: "@" },
          // Free text from the input: text cells (never formulas), running on over the empty cells to the right.
          { key: "text", header: "Note", numFmt: "@", width: 12 },
        ],
        noteRows,
      ),
    );
  tables.push(costsTable(ctx));
  if (escalation)
    tables.push(
      perLineTable(
        ctx,
        escalation,
        "Escalation per year (input)",
        "0.0%",
        (o, k) => lineOf(ctx, o, k)?.escalation ?? 0,
        (k) => lineLabels[k],
        "Year t pays the line × (1 + escalation)^t",
      ),
    );
  if (oneOffs && oneOffYears)
    tables.push(
      perLineTable(
        ctx,
        oneOffs,
        "One-off cost (input)",
        ctx.cur,
        (o, k) => oneOffOf(ctx, o, k)?.amount ?? 0,
        (k) => oneOffLabels[k],
        "Paid once, at the start of its year",
      ),
      perLineTable(
        ctx,
        oneOffYears,
        "Year paid (input)",
        "0",
        (o, k) => oneOffOf(ctx, o, k)?.year ?? 0,
        (k) => oneOffLabels[k],
        "0 = now",
      ),
    );
  tables.push(returnsTable(ctx));
  if (capacity) tables.push(capacityTable(ctx, capacity));
  tables.push(perYearTable(ctx), cumulativeTable(ctx), savingsTable(ctx), sensitivityTable(ctx), scenariosTable(ctx));
  const titled = tables.map((t) => ({ ...t, title: tableTitle(ctx, t.name) }));

  const chart: ChartPlan = {
    id: names("cumulative"),
    title: "Cumulative discounted cost",
    kind: "line",
    xTitle: "Year",
    yTitle: `Cumulative discounted cost (${input.currency})`,
    series: input.options.map((o, i) => ({
      name: o.name,
      x: result.options[i].cumulativeDiscounted.map((_, t) => t),
      y: result.options[i].cumulativeDiscounted,
      style: "points+line",
    })),
    source: { table: cumulative.name, xColumn: "year", yColumns: input.options.map((_, i) => opt(i)) },
  };

  const sheet: SheetPlan = {
    name: options.sheetName ?? CASE_SHEET,
    notes,
    noteFormulas: [{ note: 1, formula: conclusionFormula(ctx) }],
    tables: titled,
    charts: [chart, tornadoChart(ctx)],
    freezeHeader: false,
  };
  return {
    plan: { title: `Business case: ${input.title}`, sources: options.sources ?? [], warnings: [], sheets: [sheet] },
    input,
    result,
    layout: cells,
  };
}

/**
 * Validates untrusted JSON and builds the case plan in one step (what `caplab case` does).
 *
 * @param json - parsed JSON of a case (see `docs/case.md`)
 * @param options - sheet name, table prefix, sources
 * @returns the case plan
 * @throws DomainError naming the input path of the first problem
 */
export function casePlanFromJson(json: unknown, options: CasePlanOptions = {}): CasePlan {
  return buildCasePlan(parseCaseInput(json), options);
}
