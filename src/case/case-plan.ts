/**
 * A costed business case as a one-sheet {@link WorkbookPlan}: the same plan is drawn by the
 * .xlsx and HTML renderers (`caplab case`) and by the Office.js renderer (the pane's "New
 * business case"). This file assembles the sheet; each table is made in a file of its own.
 *
 * Layout (top to bottom):
 * - notes: the title, a one-line conclusion built from the numbers ("FC saves £X over 3 years at
 *   10%"; a live formula over the Costs table in the .xlsx and in Excel, `conclusion.ts`), how to
 *   read the sheet;
 * - Recommendation (`recommendation.ts`): the option to choose and how far to trust it;
 * - Assumptions and Notes (`notes.ts`): discount rate (input), years, units, the utilization above
 *   which a workload is flagged (input); the case's assumptions, risks and sources;
 * - Costs (`costs.ts`): one column per option — capex, server costs and yearly running-cost lines
 *   (inputs), year-0 one-off cost, running cost per year, net present cost, difference from the
 *   first option, break-even capex; escalation and one-off costs per line (`per-line.ts`);
 * - Return (`returns.ts`): NPV saving, incremental IRR and paybacks against the first option;
 * - Capacity (`capacity.ts`, when an option has workloads): one row per option × workload with its
 *   arrival rate, service time and sizing target as inputs, then servers, utilization, mean
 *   response, mean wait, P(wait) and a check;
 * - Cost per year, and beside it the cumulative discounted cost per option with its chart
 *   (`per-year.ts`); the savings per year (`savings.ts`);
 * - Sensitivity with its tornado chart (`sensitivity.ts`) and Scenarios (`scenarios.ts`).
 *
 * Every table is placed first by the workbook's {@link SheetBuilder} (table, row key, column key →
 * address), then each table is made by its own function, and every formula takes the addresses of
 * the cells it means from the builder — never by looking for a label, so a cost line named like a
 * row title ("Cost per server") cannot make a formula point at the wrong row.
 *
 * Every output is a live formula over the input cells, carrying the value computed by
 * {@link computeCase}: native spreadsheet formulas where they are accurate (costs, discounting,
 * sizing, and the M/M/c figures through POISSON: `mmc-cells.ts`), `CAPLAB.*` add-in formulas
 * ({@link AddinFormulaCell}) where they are not (M/M/c above `NATIVE_MAX_LOAD` erlangs; NPV_IT
 * with `forExcelAddin`). Labels that come from the input (option names, cost lines) are text
 * cells, never formula text.
 */
import { capacityColumns, capacityTable } from "./capacity";
import { shownTimeUnit, workloadTimeUnit } from "./capacity-units";
import { conclusion, conclusionFormula } from "./conclusion";
import { isGrowthCase } from "./growth-model";
import { GROWTH_COLUMNS, growthTable, planColumns, planRows, purchasePlanTable } from "./purchase-plan";
import { PV_COLUMNS, purchasePvTable, purchaseSensitivityTable, sensitivityPlanColumns } from "./purchase-sensitivity";
import {
  serversPerYearChart,
  serversPerYearColumns,
  serversPerYearRows,
  serversPerYearTable,
} from "./servers-per-year";
import { costRows, costsTable } from "./costs";
import { CaseInput, parseCaseInput } from "./input";
import { nativeMmc } from "./mmc-cells";
import { CaseResult, computeCase } from "./model";
import { currencyFormat } from "./money-text";
import { assumptionColumns, assumptionsTable, caseNotes, notesTable } from "./notes";
import { escalationTable, oneOffTables } from "./per-line";
import { cumulativeChart, cumulativeTable, perYearTable } from "./per-year";
import { RECOMMENDATION_ROWS, recommendationTable } from "./recommendation";
import { returnsTable } from "./returns";
import { BREAK_EVEN_COLUMNS, breakEvenTable } from "./break-even-table";
import { choiceRows, choiceTable, serviceTargetTable } from "./choice";
import { judgeCase, Robustness } from "./robustness";
import { probeColumns, probeRows, probeTable } from "./probe-table";
import { PROBE_PLAN_COLUMNS, probePlanRows, probePlanTable } from "./probe-plan";
import { savingsTable } from "./savings";
import { scenarioColumns, scenariosTable } from "./scenarios";
import { SENSITIVITY_COLUMNS, sensitivityRows, sensitivityTable, tornadoChart } from "./sensitivity";
import {
  CaseCells,
  CaseShape,
  CaseSheet,
  CaseTables,
  cumSavKey,
  dcumSavKey,
  lineKey,
  native,
  oneOffKey,
  opt,
  savKey,
  workloadKey,
  yearKey,
} from "./sheet-context";
import {
  AddinFormulaCell,
  CellValue,
  columnLetter as a1Column,
  PrintSetup,
  SheetPlan,
  WorkbookPlan,
} from "../workbook/plan";
import { SheetBuilder } from "../workbook/sheet-builder";

export type { CaseCells } from "./sheet-context";
// The pane's case form names a service time's cells as the sheet does.
export { referencedCells } from "./capacity-units";

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

export interface CasePlan {
  plan: WorkbookPlan;
  input: CaseInput;
  result: CaseResult;
  layout: CaseCells;
}

/** Table names: letters, digits and underscores, starting with a letter. */
function tableName(prefix: string, name: string): string {
  if (prefix === "") return name;
  const clean = prefix.replace(/[^A-Za-z0-9_]/g, "_").replace(/^[^A-Za-z]/, "T");
  return `${clean}_${name}`;
}

/** Every table's title, by its name without the prefix. */
function tableTitles(input: CaseInput, result: CaseResult): Record<string, string> {
  const baseline = input.options[0].name;
  const k = result.recommended;
  return {
    Recommendation: "Recommendation",
    Assumptions: "Assumptions",
    Notes: "Assumptions, risks and sources",
    Costs: "Costs per option",
    Escalation: "Escalation of running costs per year",
    OneOff: "One-off costs",
    OneOffYear: "Year each one-off cost is paid",
    Return: `Return of each option against ${baseline}`,
    Capacity: "Capacity: servers each workload needs (M/M/c)",
    Growth: "Growth: how each workload's load grows and how its servers are bought",
    ServersPerYear: "Servers required and in service per year, per option",
    PurchasePlan: "Purchase plan: servers needed, bought and in service, year by year",
    PurchaseSensitivity: "Purchase plan at low and high load and growth (for the sensitivity and the scenarios)",
    PurchasePV: "Present value of the server costs of each purchase plan",
    CostPerYear: "Cost per year",
    CumulativeCost: "Cumulative discounted cost",
    Savings: `Savings against ${baseline}, per year`,
    Sensitivity: `Sensitivity: NPV saving of ${input.options[k].name} vs ${baseline}, one driver at a time`,
    Scenarios: "Scenarios: net present cost with every driver low, base or high",
    Choice: "Which options qualify, and the choice",
    ServiceTarget: "Service target every option must meet",
    BreakEven: "Break-even moves: how far each input can move before the choice changes",
    Probes: "Probes: the choice with one input moved by 1, 2 and 5 times its plausible move",
    ProbePlan: "Purchase plans at the probes' moves (for the Probes table)",
  };
}

/** What the input says about the shape of the sheet. */
function caseShape(input: CaseInput, result: CaseResult): CaseShape {
  const distinct = (labels: string[]): string[] => {
    const out: string[] = [];
    for (const l of labels) if (!out.some((x) => x.toLowerCase() === l.toLowerCase())) out.push(l);
    return out;
  };
  return {
    anyWorkloads: input.options.some((o) => o.workloads.length > 0),
    lineLabels: distinct(input.options.flatMap((o) => o.opex.map((l) => l.label))),
    oneOffLabels: distinct(input.options.flatMap((o) => o.oneOff.map((l) => l.label))),
    escalates: input.options.some((o) => o.opex.some((l) => l.escalation !== 0)),
    residual: result.periods > input.years,
  };
}

/** The lines above the tables: title, conclusion, how to read the sheet, and where the M/M/c figures come from. */
function sheetNotes(input: CaseInput, result: CaseResult, anyWorkloads: boolean, r: Robustness): string[] {
  const notes = [
    `Business case: ${input.title}`,
    conclusion(input, result, r),
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
  return notes;
}

/** Places every table of the case, top to bottom, with the keys of its rows and columns, before any cell is made. */
function placeTables(
  sheet: SheetBuilder,
  input: CaseInput,
  result: CaseResult,
  shape: CaseShape,
  names: (name: string) => string,
  robustness: Robustness,
): PlacedTables {
  const place = (name: string, rows: readonly string[], cols: readonly string[], beside?: CaseTables["costs"]) =>
    sheet.place(names(name), rows, cols, { titled: true, beside });
  const optionKeys = input.options.map((_, i) => opt(i));
  const others = input.options.map((_, i) => i).slice(1);
  const noteRows = caseNotes(input).map((_, k) => `note:${k}`);
  const lineRows = shape.lineLabels.map((_, k) => lineKey(k));
  const oneOffRows = shape.oneOffLabels.map((_, k) => oneOffKey(k));
  const yearRows = Array.from({ length: result.periods }, (_, t) => yearKey(t));
  const growthRows = capacityPlanned(input, shape) ? ["runs_out"] : [];
  // Page 1: the verdict, the costs and the tornado (rows left free for it); the rest from page 2.
  const recommendation = place("Recommendation", [...RECOMMENDATION_ROWS, ...growthRows], ["item", "value"]);
  const costs = place("Costs", costRows(shape), ["item", ...optionKeys]);
  const tornadoRow = sheet.skipRows(CHART_ROWS);
  const assumptions = place("Assumptions", ["value"], assumptionColumns(shape.anyWorkloads));
  const notes = noteRows.length > 0 ? place("Notes", noteRows, ["kind", "about", "text"]) : undefined;
  const choice = place("Choice", choiceRows(input), ["item", ...optionKeys]);
  const breakEven = place(
    "BreakEven",
    robustness.drivers.map((d) => d.driver.key),
    BREAK_EVEN_COLUMNS,
  );
  const escalation =
    shape.escalates && lineRows.length > 0 ? place("Escalation", lineRows, ["item", ...optionKeys]) : undefined;
  const oneOffs = oneOffRows.length > 0 ? place("OneOff", oneOffRows, ["item", ...optionKeys]) : undefined;
  const oneOffYears = oneOffs ? place("OneOffYear", oneOffRows, ["item", ...optionKeys], oneOffs) : undefined;
  const returns = place(
    "Return",
    others.map((i) => opt(i)),
    ["option", "npv_saving", "measure", "irr", "payback", "payback_fraction", "discounted_payback"],
  );
  const workloadRows = input.options.flatMap((o, i) => o.workloads.map((_, j) => workloadKey(i, j)));
  const serviceTarget = input.serviceTarget ? place("ServiceTarget", ["value"], ["level", "answer_within"]) : undefined;
  const capacity = shape.anyWorkloads ? place("Capacity", workloadRows, capacityColumns(input)) : undefined;
  const growthTables = capacity && capacityPlanned(input, shape) ? placeGrowthTables(place, input, workloadRows) : {};
  const perYear = place("CostPerYear", yearRows, ["year", ...optionKeys]);
  const cumulative = place("CumulativeCost", yearRows, ["year", ...optionKeys], perYear);
  const savingCols = others.flatMap((i) => [savKey(i), cumSavKey(i), dcumSavKey(i)]);
  const savings = place("Savings", yearRows, ["year", ...savingCols]);
  const sensitivity = place("Sensitivity", sensitivityRows(input, result), SENSITIVITY_COLUMNS);
  const scenarios = place("Scenarios", optionKeys, scenarioColumns(shape.anyWorkloads));
  const probeKeys = probeRows(robustness.drivers);
  const probes = probeKeys.length > 0 ? place("Probes", probeKeys, probeColumns(input)) : undefined;
  const planKeys = growthTables.purchases ? probePlanRows(input, robustness.drivers) : [];
  const probePlan = planKeys.length > 0 ? place("ProbePlan", planKeys, PROBE_PLAN_COLUMNS) : undefined;
  return {
    probes,
    probePlan,
    ...{ recommendation, assumptions, notes, costs, escalation, oneOffs, oneOffYears, returns, capacity },
    ...{ perYear, cumulative, savings, sensitivity, scenarios, choice, serviceTarget, breakEven },
    ...growthTables,
    tornadoRow,
  };
}

/** Rows a chart takes (9 cm at 15 pt a row), with one to spare. */
const CHART_ROWS = 19;

/**
 * How the case prints: A4 portrait; page 1 the conclusion, the verdict, the costs and the tornado
 * (the scale lowered until the Costs table's columns fit the page width, never below 73 %, where
 * 11-point text prints at 8 points); the other tables from page 2; the charts below them, two to a
 * page, each starting where no page break can cut it.
 */
function printSetup(tables: PlacedTables, chartRows: number[]): PrintSetup {
  const placed = Object.values(tables).filter((t): t is CaseTables["costs"] => typeof t === "object" && t !== null);
  const lastCol = Math.max(...placed.map((t) => t.at.col + t.cols.length - 1));
  const lastRow = Math.max(...chartRows.map((r) => r + CHART_ROWS), ...placed.map((t) => t.at.row + t.rows.length));
  const pageTwo = tables.tornadoRow + CHART_ROWS;
  return {
    orientation: "portrait",
    area: `A1:${a1Column(lastCol)}${lastRow + 1}`,
    pageBreaks: [pageTwo, ...chartRows.filter((_, k) => k % 2 === 0)],
    scale: 90,
    minScale: 73,
    fitColumns: tables.costs.cols.length - 1,
    notesToColumn: tables.costs.cols.length - 1,
  };
}

/** The placed tables and the first row left free for the tornado on page 1. */
type PlacedTables = CaseTables & { tornadoRow: number };

/** Whether the case plans purchases year by year (a workload has a growth field). */
function capacityPlanned(input: CaseInput, shape: CaseShape): boolean {
  return shape.anyWorkloads && isGrowthCase(input);
}

/** The growth tables (`purchase-plan.ts`), placed below Capacity when a workload's load grows. */
function placeGrowthTables(
  place: (name: string, rows: readonly string[], cols: readonly string[]) => CaseTables["costs"],
  input: CaseInput,
  workloadRows: string[],
): Pick<CaseTables, "growth" | "serversPerYear" | "purchases" | "purchaseSensitivity" | "purchasePv"> {
  const rows = planRows({ input });
  const serviceLevel = input.options.some((o) => o.workloads.some((w) => w.sizing.kind === "serviceLevel"));
  return {
    growth: place("Growth", workloadRows, GROWTH_COLUMNS),
    serversPerYear: place("ServersPerYear", serversPerYearRows({ input }), serversPerYearColumns({ input })),
    purchases: place("PurchasePlan", rows, planColumns(serviceLevel)),
    purchaseSensitivity: place("PurchaseSensitivity", rows, sensitivityPlanColumns()),
    purchasePv: place(
      "PurchasePV",
      input.options.map((_, i) => opt(i)),
      PV_COLUMNS,
    ),
  };
}

/**
 * The unit the case's service target time is shown in: its own (a 2 ms target reads 2.00 ms, not
 * 2000.00 µs beside an 81 µs CPU), as each workload's times are in their own.
 */
function targetTimeUnit(input: CaseInput): { unit: string; scale: number } {
  return shownTimeUnit(input.timeUnit, input.serviceTarget ? [input.serviceTarget.answerWithin] : []);
}

/** The scale a time driver is shown at: its workload's row unit, the service target's own unit. */
function driverTimeScale(input: CaseInput, key: string): number {
  const [kind, i, j] = key.split(":");
  if (kind === "target_within") return targetTimeUnit(input).scale;
  return workloadTimeUnit(input, Number(i), Number(j)).scale;
}

/** Makes every placed table, in the order they were placed. */
function makeTables(ctx: CaseSheet): void {
  recommendationTable(ctx);
  costsTable(ctx);
  assumptionsTable(ctx);
  notesTable(ctx);
  choiceTable(ctx);
  breakEvenTable(ctx);
  escalationTable(ctx);
  oneOffTables(ctx);
  returnsTable(ctx);
  serviceTargetTable(ctx);
  capacityTable(ctx);
  growthTable(ctx);
  serversPerYearTable(ctx);
  purchasePlanTable(ctx);
  purchaseSensitivityTable(ctx);
  purchasePvTable(ctx);
  perYearTable(ctx);
  cumulativeTable(ctx);
  savingsTable(ctx);
  sensitivityTable(ctx);
  scenariosTable(ctx);
  probeTable(ctx);
  probePlanTable(ctx);
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
  const robustness = judgeCase(input, result, { timeScale: (key) => driverTimeScale(input, key) });
  const prefix = options.tablePrefix ?? "";
  const names = (name: string): string => tableName(prefix, name);
  const shape = caseShape(input, result);
  const sheet = new SheetBuilder(
    options.sheetName ?? CASE_SHEET,
    sheetNotes(input, result, shape.anyWorkloads, robustness),
  );
  const tables = placeTables(sheet, input, result, shape, names, robustness);
  const cells: CaseCells = {
    discountRate: sheet.cell(tables.assumptions, "value", "discount_rate"),
    npv: input.options.map((_, i) => sheet.cell(tables.costs, "npv", opt(i))),
    workloads: [],
    servers: [],
    addinFormulas: [],
  };
  const titles = new Map(Object.entries(tableTitles(input, result)).map(([raw, title]) => [names(raw), title]));
  const ctx: CaseSheet = {
    ...{ input, result, sheet, names, cells, ...shape, ...tables },
    cur: currencyFormat(input.currency),
    shownTime: targetTimeUnit(input),
    title: (name) => titles.get(name) ?? name,
    robustness,
    /**
     * A cell whose live form is a Capacity Lab function. Renderers that cannot run `CAPLAB.*`
     * (ExcelJS, HTML) must show the computed value or a native equivalent, never the formula (a
     * workbook opened without the add-in would show #NAME?), so that is what the plan holds.
     */
    addin: (address, formula, value, nativeEquivalent): CellValue => {
      cells.addinFormulas.push({ address, formula });
      if (nativeEquivalent !== undefined && !options.forExcelAddin) return native(nativeEquivalent, value);
      return {
        addinFormula: formula,
        result: value,
      } satisfies AddinFormulaCell;
    },
  };
  makeTables(ctx);
  // The charts below the tables, each in rows of its own; the tornado on page 1.
  const below = [cumulativeChart(ctx), ...(ctx.serversPerYear ? [serversPerYearChart(ctx)] : [])];
  const chartRows = below.map(() => sheet.skipRows(CHART_ROWS));
  sheet.charts.push(
    { ...below[0], anchor: { row: chartRows[0], col: 0 } },
    { ...tornadoChart(ctx), anchor: { row: tables.tornadoRow, col: 0 } },
    ...below.slice(1).map((c, k) => ({ ...c, anchor: { row: chartRows[k + 1], col: 0 } })),
  );
  const plan: SheetPlan = {
    ...sheet.sheet(false),
    print: printSetup(tables, chartRows),
    noteFormulas: [{ note: 1, formula: conclusionFormula(ctx) }],
  };
  return {
    plan: {
      title: `Business case: ${input.title}`,
      sources: options.sources ?? [],
      warnings: [],
      sheets: [plan],
    },
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
