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
import { CaseInput, parseCaseInput, Workload } from "./case-input";
import { CaseResult, cents, computeCase, WorkloadResult } from "./case-model";
import { Block, CaseLayout } from "./case-layout";
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
} from "./case-mmc";
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
} from "./plan";

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

/** Whole currency units with grouping, e.g. "£273,554" or "CHF 1,200" (negative: "-£5"). */
export function money(amount: number, currency: string): string {
  const whole = Math.round(Math.abs(amount)).toLocaleString("en-GB");
  const sign = amount < 0 && Math.round(Math.abs(amount)) !== 0 ? "-" : "";
  return currency.length === 1 ? `${sign}${currency}${whole}` : `${sign}${currency} ${whole}`;
}

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

/** Decimals that show the smallest time to 3 significant digits (at least 2): 30 → 2, 0.000041 → 7. */
function timeFormat(times: number[]): string {
  const smallest = Math.min(...times.filter((t) => t > 0));
  const decimals = Math.min(9, Math.max(2, 2 - Math.floor(Math.log10(smallest))));
  return "0." + "0".repeat(decimals);
}

function currencyFormat(currency: string): string {
  const symbol = currency.length === 1 ? `"${currency}"` : `"${currency} "`;
  return `${symbol}#,##0;-${symbol}#,##0`;
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
  assumptions: Block;
  costs: Block;
  capacity: Block | undefined;
  perYear: Block;
  cumulative: Block;
  addin: (address: string, formula: string, result: number, nativeEquivalent?: string) => CellValue;
  cells: CaseCells;
}

const opt = (i: number): string => `option_${i + 1}`;
const lineKey = (k: number): string => `line:${k}`;
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

function costRows(ctx: Pick<Ctx, "anyWorkloads" | "lineLabels">): string[] {
  return [
    "capex",
    ...(ctx.anyWorkloads ? ["per_server", "per_server_year"] : []),
    ...ctx.lineLabels.map((_, k) => lineKey(k)),
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
function serversTerm(ctx: Ctx, i: number): string | null {
  const n = ctx.input.options[i].workloads.length;
  if (n === 0 || !ctx.capacity) return null;
  return ctx.layout
    .span(ctx.capacity, [workloadKey(i, 0), "servers"], [workloadKey(i, n - 1), "servers"])
    .replace(/^(.*:.*)$/, "SUM($1)");
}

function costsTable(ctx: Ctx): TablePlan {
  const { input, result, layout, costs } = ctx;
  const years = input.years;
  const here = (row: string, i: number): string => layout.cell(costs, row, opt(i));
  const rate = layout.cell(ctx.assumptions, "value", "discount_rate", true);
  const labels: Record<string, string> = {
    capex: "Capex at year 0 (input)",
    per_server: "Cost per server, one-off (input)",
    per_server_year: "Cost per server per year (input)",
    upfront: "Year-0 one-off cost",
    running: "Running cost per year",
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
          `CAPLAB.NPV_IT(${rate},${flow(0)}:${flow(years - 1)})`,
          r.npv,
          // NPV_IT = first flow + Excel's NPV (which discounts from t = 1) over the rest.
          years === 1 ? flow(0) : `${flow(0)}+NPV(${rate},${flow(1)}:${flow(years - 1)})`,
        );
      }
      case "diff":
        return native(`${here("npv", i)}-${here("npv", 0)}`, r.difference);
      case "break_even":
        return native(`${here("capex", i)}-${here("diff", i)}`, r.breakEvenCapex);
      default: {
        const k = lineRows.indexOf(row);
        const label = ctx.lineLabels[k].toLowerCase();
        return o.opex.find((l) => l.label.toLowerCase() === label)?.perYear ?? 0;
      }
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

/** The servers cell of one workload: native sizing where possible, else CAPLAB.MMC_STAFF. */
function serversCell(
  ctx: Ctx,
  w: Workload,
  wr: WorkloadResult,
  c: MmcCells,
  target: string,
  within: string,
): CellValue {
  const a = w.arrivalRate * w.serviceTime;
  switch (w.sizing.kind) {
    case "servers":
      return native(target, wr.servers);
    case "utilization":
      return native(`MAX(ROUNDUP(${c.rate}*${c.service}/${target},0),INT(${c.rate}*${c.service})+1)`, wr.servers);
    case "response": {
      const width = searchWidth(wr.servers, a);
      if (nativeMmc(a, width)) return native(staffForResponseFormula(c, target, width), wr.servers);
      return ctx.addin(c.servers, `CAPLAB.MMC_STAFF(${c.service},${c.rate},${target}-${c.service})`, wr.servers);
    }
    default: {
      const width = searchWidth(wr.servers, a);
      if (nativeMmc(a, width)) return native(staffForServiceLevelFormula(c, target, within, width), wr.servers);
      return ctx.addin(c.servers, `CAPLAB.MMC_STAFF(${c.service},${c.rate},${target},${within})`, wr.servers);
    }
  }
}

function capacityTable(ctx: Ctx, block: Block): TablePlan {
  const { input, result, layout } = ctx;
  const times: number[] = [];
  for (const o of input.options)
    for (const w of o.workloads) {
      times.push(w.serviceTime);
      if (w.sizing.kind === "response") times.push(w.sizing.response);
      if (w.sizing.kind === "serviceLevel" && w.sizing.answerWithin > 0) times.push(w.sizing.answerWithin);
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
      header: `Service time (${input.timeUnit}) (input)`,
      numFmt: tf,
      description: "S: mean service time (CPU time per IO, handling time per call)",
    },
    { key: "sizing_rule", header: "Sizing rule" },
    {
      key: "target",
      header: "Target (input)",
      description: "Servers for a fixed count; a fraction for utilization or service level; a time for response",
    },
    {
      key: "answer_within",
      header: "Answer within (input)",
      numFmt: tf,
      description: `For a service-level target: the wait allowed, in ${input.timeUnit}`,
    },
    { key: "servers", header: "Servers", numFmt: "0", description: "Servers (cores, agents) the sizing rule gives" },
    { key: "utilization", header: "Utilization", numFmt: "0.0%", description: "λ·S / servers" },
    {
      key: "mean_response",
      header: `Mean response (${input.timeUnit})`,
      numFmt: tf,
      description: "S + mean wait (M/M/c, exact Erlang C)",
    },
    {
      key: "mean_wait",
      header: `Mean wait (${input.timeUnit})`,
      numFmt: tf,
      description: "Mean time queued before service",
    },
    { key: "p_wait", header: "P(wait)", numFmt: "0.0%", description: "Probability that an arrival waits (Erlang C)" },
    {
      key: "check",
      header: "Check",
      description: `Cannot carry its load (λ·S ≥ servers), utilization above the limit in Assumptions, P(wait) above ${PWAIT_WARNING * 100}%`,
    },
  ].filter((c) => block.cols.includes(c.key));
  const limit = layout.cell(ctx.assumptions, "value", "utilization_limit", true);
  const rows: CellValue[][] = [];
  input.options.forEach((o, i) => {
    const cellsOf: CaseCells["workloads"][number] = [];
    o.workloads.forEach((w, j) => {
      const key = workloadKey(i, j);
      const at = (col: string): string => layout.cell(block, key, col);
      const wr = result.options[i].workloads[j];
      const c: MmcCells = {
        rate: at("rate"),
        service: at("service_time"),
        servers: at("servers"),
        pWait: at("p_wait"),
        wait: at("mean_wait"),
      };
      const target = at("target");
      const within = block.cols.includes("answer_within") ? at("answer_within") : "";
      const a = w.arrivalRate * w.serviceTime;
      const live = nativeMmc(a, 0);
      const metrics = `CAPLAB.MMC_METRICS(${c.servers},${c.service},${c.rate})`;
      const values: Record<string, CellValue> = {
        option: o.name,
        workload: w.name,
        rate: w.arrivalRate,
        service_time: w.serviceTimeRef
          ? native(serviceTimeFormula(w.serviceTimeRef, w.serviceTimeRefDivisor), w.serviceTime)
          : w.serviceTime,
        sizing_rule: SIZING_TEXT[w.sizing.kind],
        target:
          w.sizing.kind === "servers"
            ? w.sizing.servers
            : w.sizing.kind === "utilization"
              ? w.sizing.utilization
              : w.sizing.kind === "response"
                ? w.sizing.response
                : w.sizing.level,
        answer_within: w.sizing.kind === "serviceLevel" ? w.sizing.answerWithin : null,
        servers: serversCell(ctx, w, wr, c, target, within),
        utilization: native(utilizationFormula(c), wr.utilization),
        mean_response: live
          ? native(responseFormula(c), wr.meanResponse)
          : ctx.addin(at("mean_response"), `INDEX(${metrics},4,2)`, wr.meanResponse),
        mean_wait: live
          ? native(waitFormula(c), wr.meanWait)
          : ctx.addin(at("mean_wait"), `INDEX(${metrics},3,2)`, wr.meanWait),
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
        native: live && ctx.cells.addinFormulas.every((f) => f.address !== c.servers),
      });
    });
    ctx.cells.workloads.push(cellsOf);
    ctx.cells.servers.push(cellsOf.map((x) => x.servers));
  });
  return tableOf(block, columns, rows);
}

/** The cost each option pays at the start of each year. */
function perYearTable(ctx: Ctx): TablePlan {
  const { input, result, layout, perYear, costs } = ctx;
  const rows = perYear.rows.map((_, t) => [
    t,
    ...input.options.map((_o, i) => {
      const upfront = layout.cell(costs, "upfront", opt(i));
      const running = layout.cell(costs, "running", opt(i));
      return native(t === 0 ? `${upfront}+${running}` : running, result.options[i].cashflows[t]);
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
    `IF(AND(${x}<0,ROUND(ABS(${x}),0)<>0),"-","")&"${sym}"&TEXT(ROUND(ABS(${x}),0),"#,##0")`;
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
  const lineLabels: string[] = [];
  for (const o of input.options)
    for (const l of o.opex)
      if (!lineLabels.some((x) => x.toLowerCase() === l.label.toLowerCase())) lineLabels.push(l.label);
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
  const assumptions = layout.place(names("Assumptions"), ["value"], assumptionColumns(anyWorkloads));
  const costs = layout.place(names("Costs"), costRows({ anyWorkloads, lineLabels }), [
    "item",
    ...input.options.map((_, i) => opt(i)),
  ]);
  const capacity = anyWorkloads
    ? layout.place(
        names("Capacity"),
        input.options.flatMap((o, i) => o.workloads.map((_, j) => workloadKey(i, j))),
        capacityColumns(input),
      )
    : undefined;
  const yearRows = Array.from({ length: input.years }, (_, t) => yearKey(t));
  const optionCols = ["year", ...input.options.map((_, i) => opt(i))];
  const perYear = layout.place(names("CostPerYear"), yearRows, optionCols);
  const cumulative = layout.place(names("CumulativeCost"), yearRows, optionCols, perYear);

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
    assumptions,
    costs,
    capacity,
    perYear,
    cumulative,
    cells,
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

  const tables: TablePlan[] = [assumptionsTable(ctx), costsTable(ctx)];
  if (capacity) tables.push(capacityTable(ctx, capacity));
  tables.push(perYearTable(ctx), cumulativeTable(ctx));

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
    tables,
    charts: [chart],
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
