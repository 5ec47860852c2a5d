/**
 * A costed business case as a one-sheet {@link WorkbookPlan}: the same plan is drawn by the
 * .xlsx and HTML renderers (`caplab case`) and by the Office.js renderer (the pane's "New
 * business case").
 *
 * Layout (top to bottom; every table at a fixed position so the formulas can refer to it):
 * - notes: the title, a one-line conclusion built from the numbers ("FC saves £X over 3 years at
 *   10%"; a live formula over the Costs table in the .xlsx and in Excel), how to read the sheet;
 * - Assumptions: discount rate (input), years, units;
 * - Costs: one column per option — capex, server costs and yearly running-cost lines (inputs),
 *   year-0 one-off cost, running cost per year, net present cost, difference from the first
 *   option, break-even capex;
 * - Capacity (when an option has workloads): one row per option × workload with its arrival
 *   rate, service time and sizing target as inputs, then servers, utilization, mean response,
 *   mean wait, P(wait);
 * - Cost per year: one row per year, each option's cost; beside it, the cumulative discounted
 *   cost per option (the chart's data); the chart "Cumulative discounted cost".
 *
 * Every output is a live formula over the input cells, carrying the value computed by
 * {@link computeCase}: native Excel arithmetic where Excel has it (costs, discounting, sizing by
 * utilization), `CAPLAB.*` add-in formulas ({@link AddinFormulaCell}) where it does not (M/M/c
 * figures, MMC_STAFF sizing; NPV_IT with `forExcelAddin`).
 * Labels that come from the input (option names, cost lines) are text cells, never formula text.
 */
import { CaseInput, CaseOption, parseCaseInput } from "./case-input";
import { CaseResult, computeCase } from "./case-model";
import {
  AddinFormulaCell,
  CellValue,
  ChartPlan,
  ColumnPlan,
  FormulaCell,
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
   * native equivalent first flow + NPV(rate, rest), which stays live in any spreadsheet. The M/M/c
   * cells are add-in formulas either way (renderers without the add-in write their values).
   */
  forExcelAddin?: boolean;
}

/** The sheet name of a case when none is given. */
export const CASE_SHEET = "Business case";

/** Where things are on the case sheet, for callers that need to find a figure (tests, the pane). */
export interface CaseLayout {
  /** A1 address of the discount-rate input. */
  discountRate: string;
  /** Per option: A1 address of its net present cost. */
  npv: string[];
  /** Per option, per workload: A1 address of its server count. */
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
  layout: CaseLayout;
}

/** Column letters of a 0-based column index (0 → A, 26 → AA). */
function letter(col: number): string {
  let s = "";
  for (let n = col + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

/** A1 address of a 0-based sheet position; `abs` gives $A$1. */
function a1(row: number, col: number, abs = false): string {
  return abs ? `$${letter(col)}$${row + 1}` : `${letter(col)}${row + 1}`;
}

/** A native Excel formula with the value computed here. */
function native(formula: string, result: number): FormulaCell {
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
    for (let i = 2; i < opts.length; i++) if (opts[i].npv < opts[second].npv) second = i;
    line =
      opts[second].difference === 0
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

/** Where the conclusion's figures are: 1-based rows of the Costs table, options in columns B onwards. */
interface ConclusionCells {
  names: number;
  npv: number;
  diff: number;
  breakEven: number;
  /** The discount-rate cell ($A$n). */
  rate: string;
}

/**
 * {@link conclusion} as a native Excel formula over the Costs table, so the line follows the inputs:
 * the same words, the same choice of options (the first lowest net present cost, as MATCH finds
 * it) and the same rounding ({@link money}: whole units, grouped; {@link percent}: two decimals at
 * most). No LET or TEXTJOIN, so Excel 2016 and LibreOffice read it. TEXT reads "#,##0" in the
 * reader's locale: where "," is not the thousands separator, a recalculated line may group the
 * figures differently from the cached text.
 */
function conclusionFormula(input: CaseInput, at: ConclusionCells): string {
  const n = input.options.length;
  const last = letter(n);
  const row = (r: number, from = "B"): string => `$${from}$${r}:$${last}$${r}`;
  const sym = input.currency.length === 1 ? input.currency : `${input.currency} `;
  const money = (x: string): string =>
    `IF(AND(${x}<0,ROUND(ABS(${x}),0)<>0),"-","")&"${sym}"&TEXT(ROUND(ABS(${x}),0),"#,##0")`;
  const years = input.years;
  const over = `"over ${years} year${years === 1 ? "" : "s"} at "&ROUND(${at.rate}*100,2)&"%"`;
  const names = row(at.names);
  const npvs = row(at.npv);
  const diffs = row(at.diff);
  const name0 = `$B$${at.names}`;
  const npv0 = `$B$${at.npv}`;
  const k = `MATCH(MIN(${npvs}),${npvs},0)`;
  const cheapest =
    `INDEX(${names},${k})&" saves "&${money(`-INDEX(${diffs},${k})`)}&" "&${over}&" compared with "&${name0}` +
    `&" (net present cost "&${money(`INDEX(${npvs},${k})`)}&" vs "&${money(npv0)}&")."`;
  const rest = row(at.npv, "C");
  const second = `(1+MATCH(MIN(${rest}),${rest},0))`;
  const baseline =
    `IF(INDEX(${diffs},${second})=0,${name0}&" and "&INDEX(${names},${second})&" cost the same "&${over}` +
    `&" (net present cost "&${money(npv0)}&").",${name0}&" costs least: "&INDEX(${names},${second})&" would cost "` +
    `&${money(`INDEX(${diffs},${second})`)}&" more "&${over}&" (net present cost "&${money(`INDEX(${npvs},${second})`)}` +
    `&" vs "&${money(npv0)}&").")`;
  const breakEven =
    n === 2
      ? `&" "&$C$${at.names}&" breaks even with "&${name0}&" at a capex of "&${money(`$C$${at.breakEven}`)}&"."`
      : "";
  return `IF(${k}<>1,${cheapest},${baseline})${breakEven}`;
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
  const cur = currencyFormat(input.currency);
  const opts = input.options;
  const res = result.options;
  const anyWorkloads = opts.some((o) => o.workloads.length > 0);
  const addinFormulas: { address: string; formula: string }[] = [];
  /**
   * A cell whose live form is a Capacity Lab function. Renderers that cannot run `CAPLAB.*`
   * (ExcelJS, HTML) must show the computed value or a native equivalent, never the formula (a
   * workbook opened without the add-in would show #NAME?), so that is what the plan holds.
   */
  const addin = (
    address: string,
    formula: string,
    result: number,
    nativeEquivalent?: string,
  ): AddinFormulaCell | FormulaCell => {
    addinFormulas.push({ address, formula });
    if (nativeEquivalent !== undefined && !options.forExcelAddin) return native(nativeEquivalent, result);
    return { addinFormula: formula, result };
  };

  const notes = [
    `Business case: ${input.title}`,
    conclusion(input, result),
    `Inputs are marked "(input)"; every other figure is a formula over them. Costs are paid at the start of each year ` +
      `(year 0 = now, not discounted) and discounted at the rate below.`,
  ];
  if (anyWorkloads) {
    notes.push(
      "Servers, response, wait and P(wait) are M/M/c figures (Capacity Lab's MMC_STAFF and MMC_METRICS): " +
        "live with the add-in; a copy made for sharing holds their values for the inputs shown.",
    );
  }
  const lineLabels: string[] = [];
  for (const o of opts)
    for (const l of o.opex)
      if (!lineLabels.some((x) => x.toLowerCase() === l.label.toLowerCase())) lineLabels.push(l.label);
  // Costs rows: capex, [two server costs], the lines, then five figures (see below).
  const costRowCount = 1 + (anyWorkloads ? 2 : 0) + lineLabels.length + 5;
  const tables: TablePlan[] = [];
  let row = notes.length + 1;

  // Assumptions: one row.
  const assumptionsAt = { row, col: 0 };
  const rateCell = a1(row + 1, 0, true);
  tables.push({
    name: tableName(prefix, "Assumptions"),
    columns: [
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
    ],
    rows: [[input.discountRate, input.years, input.currency, input.timeUnit, input.rateUnit]],
    at: assumptionsAt,
  });
  row += 4;
  const costsAt = { row, col: 0 };
  row += costRowCount + 3;

  // Capacity: one row per option × workload.
  const serversAt: string[][] = opts.map(() => []);
  const serverRange: (string | null)[] = opts.map(() => null);
  let capacity: TablePlan | undefined;
  if (anyWorkloads) {
    const times: number[] = [];
    for (const o of opts)
      for (const w of o.workloads) {
        times.push(w.serviceTime);
        if (w.sizing.kind === "response") times.push(w.sizing.response);
        if (w.sizing.kind === "serviceLevel" && w.sizing.answerWithin > 0) times.push(w.sizing.answerWithin);
      }
    const tf = timeFormat(times);
    const withinCol = opts.some((o) => o.workloads.some((w) => w.sizing.kind === "serviceLevel"));
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
    ];
    if (withinCol) {
      columns.push({
        key: "answer_within",
        header: "Answer within (input)",
        numFmt: tf,
        description: `For a service-level target: the wait allowed, in ${input.timeUnit}`,
      });
    }
    const C = { rate: 2, service: 3, target: 5, within: 6, servers: withinCol ? 7 : 6 };
    columns.push(
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
    );
    const at = { row, col: 0 };
    const rows: CellValue[][] = [];
    opts.forEach((o, i) => {
      const first = at.row + 1 + rows.length;
      o.workloads.forEach((w, j) => {
        const r = at.row + 1 + rows.length;
        const ref = (col: number): string => a1(r, col);
        const wr = res[i].workloads[j];
        const lam = ref(C.rate);
        const s = ref(C.service);
        const tgt = ref(C.target);
        const c = ref(C.servers);
        let target: number;
        let servers: CellValue;
        switch (w.sizing.kind) {
          case "servers":
            target = w.sizing.servers;
            servers = native(`${tgt}`, wr.servers);
            break;
          case "utilization":
            target = w.sizing.utilization;
            servers = native(`MAX(ROUNDUP(${lam}*${s}/${tgt},0),INT(${lam}*${s})+1)`, wr.servers);
            break;
          case "response":
            target = w.sizing.response;
            servers = addin(c, `CAPLAB.MMC_STAFF(${s},${lam},${tgt}-${s})`, wr.servers);
            break;
          default:
            target = w.sizing.level;
            servers = addin(c, `CAPLAB.MMC_STAFF(${s},${lam},${tgt},${ref(C.within)})`, wr.servers);
        }
        const metrics = `CAPLAB.MMC_METRICS(${c},${s},${lam})`;
        const cells: CellValue[] = [
          o.name,
          w.name,
          w.arrivalRate,
          w.serviceTimeRef
            ? native(serviceTimeFormula(w.serviceTimeRef, w.serviceTimeRefDivisor), w.serviceTime)
            : w.serviceTime,
          SIZING_TEXT[w.sizing.kind],
          target,
        ];
        if (withinCol) cells.push(w.sizing.kind === "serviceLevel" ? w.sizing.answerWithin : null);
        cells.push(
          servers,
          native(`${lam}*${s}/${c}`, wr.utilization),
          addin(ref(C.servers + 2), `INDEX(${metrics},4,2)`, wr.meanResponse),
          addin(ref(C.servers + 3), `INDEX(${metrics},3,2)`, wr.meanWait),
          addin(ref(C.servers + 4), `INDEX(${metrics},2,2)`, wr.pWait),
        );
        rows.push(cells);
        serversAt[i].push(a1(r, C.servers));
      });
      if (o.workloads.length === 1) serverRange[i] = a1(first, C.servers);
      if (o.workloads.length > 1) {
        serverRange[i] = `SUM(${a1(first, C.servers)}:${a1(first + o.workloads.length - 1, C.servers)})`;
      }
    });
    capacity = { name: tableName(prefix, "Capacity"), columns, rows, at };
    row += rows.length + 3;
  }

  // Costs: one column per option.
  const costRows: { label: string; cells: (o: CaseOption, i: number, col: number) => CellValue }[] = [];
  const rowOf = (label: string): number => costsAt.row + 1 + costRows.findIndex((r) => r.label === label);
  const cellOf = (label: string, col: number): string => a1(rowOf(label), col);
  const L = {
    capex: "Capex at year 0 (input)",
    perServer: "Cost per server, one-off (input)",
    perServerYear: "Cost per server per year (input)",
    upfront: "Year-0 one-off cost",
    running: "Running cost per year",
    npv: `Net present cost over ${input.years} year${input.years === 1 ? "" : "s"}`,
    diff: `Difference from ${opts[0].name}`,
    breakEven: "Break-even capex",
  };
  const years = input.years;
  const cashAt = { row, col: 0 };
  const cashCostCell = (i: number, t: number): string => a1(cashAt.row + 1 + t, 1 + i);
  costRows.push({ label: L.capex, cells: (o) => o.capex });
  if (anyWorkloads) {
    costRows.push({ label: L.perServer, cells: (o) => o.costPerServer });
    costRows.push({ label: L.perServerYear, cells: (o) => o.costPerServerPerYear });
  }
  lineLabels.forEach((label) => {
    costRows.push({
      label: `${label} per year (input)`,
      cells: (o) => o.opex.find((l) => l.label.toLowerCase() === label.toLowerCase())?.perYear ?? 0,
    });
  });
  const lineRows = lineLabels.map((label) => `${label} per year (input)`);
  costRows.push({
    label: L.upfront,
    cells: (o, i, col) => {
      const parts = [cellOf(L.capex, col)];
      if (serverRange[i]) parts.push(`${serverRange[i]}*${cellOf(L.perServer, col)}`);
      return native(parts.join("+"), res[i].upfront);
    },
  });
  costRows.push({
    label: L.running,
    cells: (o, i, col) => {
      const parts: string[] = [];
      if (lineRows.length === 1) parts.push(cellOf(lineRows[0], col));
      if (lineRows.length > 1)
        parts.push(`SUM(${cellOf(lineRows[0], col)}:${cellOf(lineRows[lineRows.length - 1], col)})`);
      if (serverRange[i]) parts.push(`${serverRange[i]}*${cellOf(L.perServerYear, col)}`);
      return native(parts.length > 0 ? parts.join("+") : "0", res[i].running);
    },
  });
  costRows.push({
    label: L.npv,
    cells: (o, i, col) =>
      addin(
        cellOf(L.npv, col),
        `CAPLAB.NPV_IT(${rateCell},${cashCostCell(i, 0)}:${cashCostCell(i, years - 1)})`,
        res[i].npv,
        // NPV_IT = first flow + Excel's NPV (which discounts from t = 1) over the rest.
        years === 1
          ? cashCostCell(i, 0)
          : `${cashCostCell(i, 0)}+NPV(${rateCell},${cashCostCell(i, 1)}:${cashCostCell(i, years - 1)})`,
      ),
  });
  costRows.push({
    label: L.diff,
    cells: (o, i, col) => native(`${cellOf(L.npv, col)}-${cellOf(L.npv, 1)}`, res[i].difference),
  });
  costRows.push({
    label: L.breakEven,
    cells: (o, i, col) => native(`${cellOf(L.capex, col)}-${cellOf(L.diff, col)}`, res[i].breakEvenCapex),
  });
  if (costRows.length !== costRowCount) throw new Error("internal: cost rows miscounted");
  tables.push({
    name: tableName(prefix, "Costs"),
    columns: [
      { key: "item", header: "Item" },
      ...opts.map((o, i): ColumnPlan => ({ key: `option_${i + 1}`, header: o.name, numFmt: cur })),
    ],
    rows: costRows.map((r) => [r.label, ...opts.map((o, i) => r.cells(o, i, 1 + i))]),
    at: costsAt,
  });
  if (capacity) tables.push(capacity);

  // Cash flows: one row per year, each option's cost; beside it the cumulative discounted cost
  // (the chart's data). Headers are the option names, so the tables stay narrow.
  const cumAt = { row: cashAt.row, col: opts.length + 2 };
  const cashName = tableName(prefix, "CostPerYear");
  const cumName = tableName(prefix, "CumulativeCost");
  const cashRows: CellValue[][] = [];
  const cumRows: CellValue[][] = [];
  for (let t = 0; t < years; t++) {
    const r = cashAt.row + 1 + t;
    cashRows.push([
      t,
      ...opts.map((o, i) => {
        const upfront = cellOf(L.upfront, 1 + i);
        const running = cellOf(L.running, 1 + i);
        return native(t === 0 ? `${upfront}+${running}` : running, res[i].cashflows[t]);
      }),
    ]);
    cumRows.push([
      native(a1(r, 0), t),
      ...opts.map((o, i) => {
        const discounted = `${a1(r, 1 + i)}/(1+${rateCell})^${a1(r, 0)}`;
        const formula = t === 0 ? discounted : `${a1(r - 1, cumAt.col + 1 + i)}+${discounted}`;
        return native(formula, res[i].cumulativeDiscounted[t]);
      }),
    ]);
  }
  const optionColumns = (description: string): ColumnPlan[] =>
    opts.map((o, i): ColumnPlan => ({ key: `option_${i + 1}`, header: o.name, numFmt: cur, description }));
  tables.push(
    {
      name: cashName,
      columns: [
        { key: "year", header: "Year", numFmt: "0", description: "Payments at the start of the year; year 0 = now" },
        ...optionColumns("Cost paid at the start of the year"),
      ],
      rows: cashRows,
      at: cashAt,
    },
    {
      name: cumName,
      columns: [
        { key: "year", header: "Year", numFmt: "0" },
        ...optionColumns("Cumulative discounted cost: Σ cost/(1 + rate)^year up to this year"),
      ],
      rows: cumRows,
      at: cumAt,
    },
  );

  const chart: ChartPlan = {
    id: tableName(prefix, "cumulative"),
    title: "Cumulative discounted cost",
    kind: "line",
    xTitle: "Year",
    yTitle: `Cumulative discounted cost (${input.currency})`,
    series: opts.map((o, i) => ({
      name: o.name,
      x: res[i].cumulativeDiscounted.map((_, t) => t),
      y: res[i].cumulativeDiscounted,
      style: "points+line",
    })),
    source: { table: cumName, xColumn: "year", yColumns: opts.map((o, i) => `option_${i + 1}`) },
  };

  const sheet: SheetPlan = {
    name: options.sheetName ?? CASE_SHEET,
    notes,
    noteFormulas: [
      {
        note: 1,
        formula: conclusionFormula(input, {
          names: costsAt.row + 1,
          npv: rowOf(L.npv) + 1,
          diff: rowOf(L.diff) + 1,
          breakEven: rowOf(L.breakEven) + 1,
          rate: rateCell,
        }),
      },
    ],
    tables,
    charts: [chart],
    freezeHeader: false,
  };
  return {
    plan: { title: `Business case: ${input.title}`, sources: options.sources ?? [], warnings: [], sheets: [sheet] },
    input,
    result,
    layout: {
      discountRate: rateCell.replace(/\$/g, ""),
      npv: opts.map((_, i) => cellOf(L.npv, 1 + i)),
      servers: serversAt,
      addinFormulas,
    },
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
