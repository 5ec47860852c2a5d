/**
 * The lab analysis workbook: from imported iogen/fio results to a {@link WorkbookPlan}
 * (`docs/analysis.md` documents every sheet and column).
 *
 * Sheets: `Summary` (what is where, sources, headline figures, warnings), `Steps` (one row per
 * step × host, overall category; fio: per job × direction), `Model` (utilization law, Little's law,
 * saturation, M/M/c), `Fit` (DOE_FIT of the response on the two-level factors, when there are at
 * least two), `Subintervals` (the time series), `Categories` (iogen read/write rows, when present).
 *
 * The numbers come from the core (`mmcMetrics`, `doeFit`, `seenEnough`) — nothing is computed
 * twice. Live formulas are used only where a reader may want to edit an input (busy cores, D,
 * X_max, X·R); each carries the value the analysis computed.
 */
import { checkSteadyFromAcrossFiles } from "../import/iogen-cross-check";
import { DomainError } from "../core/errors";
import { LabFileResult } from "../import/detect";
import { formatProblem } from "../import/types";
import { cpuFits, CpuFits } from "./cpu-fit";
import { collectLabData } from "./data";
import { STEP_METRICS } from "./data-metrics";
import { fitSheet } from "./fit";
import { hostBalance, hostsSheet, imbalanceFindings, splitHosts } from "./hosts";
import { modelSheet, responseHeadline } from "./model";
import { StepAnswer, stepAnswers } from "./quality";
import { whatIfFigures, WhatIfFigures, whatIfSheet } from "./whatif";
import { ResponseFit, responseFits } from "./response-fit";
import { categoriesSheet, stepsSheet } from "./steps";
import { subintervalsSheet } from "./subintervals";
import { summarySheet } from "./summary";
import { SheetPlan, WorkbookPlan } from "../workbook/plan";

export interface LabPlanOptions {
  /** The DoE response column (an iogen metric name or a numeric label), default `cpu_busy_pct`. */
  response?: string;
  /** Workbook title. */
  title?: string;
  /**
   * Most subinterval rows written to the Subintervals sheet (default
   * {@link DEFAULT_MAX_SUBINTERVAL_ROWS}; at most {@link EXCEL_MAX_TABLE_ROWS}). Rows are taken
   * in file order, warm-up included; a warning names the steps that lost rows.
   */
  maxSubintervalRows?: number;
  /** Year 0 of the What-if forecast (default: today, UTC). */
  today?: Date;
  /** Told the name of each analysis stage as it starts (the pane shows it while it waits). */
  onStage?: (stage: string) => void;
}

/** Data rows an Excel table can hold below its header on one sheet (1,048,576 rows a sheet). */
export const EXCEL_MAX_TABLE_ROWS = 1_048_575;
/** The Subintervals row limit of `caplab report` (and of the plan when none is given). */
export const DEFAULT_MAX_SUBINTERVAL_ROWS = 1_000_000;

export const DEFAULT_RESPONSE = "response_ms_avg";

/**
 * Builds the lab analysis workbook plan.
 *
 * @param inputs - readers' results (`readLabText` / `readLabStream`); any with errors makes this throw
 * @param options - `response`: the DoE response column (default `cpu_busy_pct`); `title`
 * @returns the plan (plain data, JSON-serialisable)
 * @throws DomainError naming the file when an input has errors or no steps; naming `response` when
 *   the response column does not exist in the data
 * @example
 * buildLabPlan([readLabText(csv, "s.csv")]).sheets.map((s) => s.name)
 * // => ["Summary", "Steps", "Model", "Subintervals"]
 */
export function buildLabPlan(inputs: readonly LabFileResult[], options: LabPlanOptions = {}): WorkbookPlan {
  return buildLabAnalysis(inputs, options).plan;
}

/**
 * The analysis' answers, computed once: the sheets show them and `caplab report --json` writes them.
 */
export interface LabAnswers {
  /** The CPU line of each protocol/option level (marginal cost per IO, background, saturation). */
  cpu: CpuFits;
  /** Per step: response-time intervals and measurement-quality warnings. */
  steps: StepAnswer[];
  /** Knee and saturation from response vs throughput, per level, for the mean and p99. */
  response: ResponseFit[];
  /** Problems about the whole run (inputs, CPU lines), in plain words; step warnings are in `steps`. */
  warnings: string[];
  /** The What-if sheet's capacity and headroom per line, with its default inputs (empty: no What-if sheet). */
  whatIf: WhatIfFigures[];
}

/**
 * Builds the lab analysis: the workbook plan and the answers it shows.
 *
 * @param inputs - as {@link buildLabPlan}
 * @param options - as {@link buildLabPlan}
 * @returns the plan and the answers (plain data)
 * @throws as {@link buildLabPlan}
 */
export function buildLabAnalysis(
  inputs: readonly LabFileResult[],
  options: LabPlanOptions = {},
): { plan: WorkbookPlan; answers: LabAnswers } {
  checkSteadyFromAcrossFiles(inputs); // a summary's steady_from against its subinterval file (errors added)
  for (const input of inputs) {
    if (input.errors.length > 0) throw new DomainError(input.file, input.errors.map(formatProblem).join("; "), "value");
  }
  if (inputs.length === 0) throw new DomainError("inputs", "no input files", "value");
  const maxRows = options.maxSubintervalRows ?? DEFAULT_MAX_SUBINTERVAL_ROWS;
  if (!Number.isInteger(maxRows) || maxRows < 0 || maxRows > EXCEL_MAX_TABLE_ROWS)
    throw new DomainError(
      "maxSubintervalRows",
      `must be a whole number from 0 to ${EXCEL_MAX_TABLE_ROWS.toLocaleString("en-US")} (Excel's rows a sheet below a header), got ${maxRows}`,
      "value",
    );
  const stage = options.onStage ?? ((): void => undefined);
  stage("grouping the rows into steps");
  const data = collectLabData(inputs);
  if (data.steps.length === 0) throw new DomainError(inputs.map((i) => i.file).join(", "), "no steps found", "value");
  const response = checkedResponse(options.response, data.labelColumns);
  const title = options.title ?? "Capacity Lab — lab analysis";
  const warnings = [...inputs.flatMap((i) => i.warnings.map(formatProblem)), ...data.warnings];
  const overall = (s: (typeof data.steps)[number]): boolean => s.category === "overall" || s.tool === "fio";
  // A multi-host iogen run: its `all` rows are the steps; each host's rows go to the Hosts sheet.
  const { aggregate, perHost } = splitHosts(data.steps);
  const main = aggregate.filter(overall);
  const hostRows = perHost.filter(overall);
  warnings.push(...imbalanceFindings(hostBalance(hostRows, main)));
  stage("steps, model and fit");
  const cpu = cpuFits(main);
  const answers = stepAnswers(data, main, cpu);
  const curves = responseFits(main, cpu);
  for (const g of cpu.groups)
    if (g.usable !== "usable")
      warnings.push(`CPU line${cpu.groups.length > 1 || g.label ? ` (${g.group})` : ""}: ${g.verdict}`);
  const steps = stepsSheet(data, main, answers);
  const model = modelSheet(main, cpu, curves);
  const whatIf = whatIfSheet(model.sheet, cpu.groups, curves, options.today);
  const fit = fitSheet(main, data.labelColumns, response, options.response !== undefined, steps.table);
  const sub = subintervalsSheet(data, maxRows, warnings, stage);
  const cat = categoriesSheet(
    data,
    aggregate.filter((s) => !overall(s)),
  );
  const hosts = hostsSheet(hostRows, main);
  const summary = summarySheet({
    title,
    inputs,
    steps: main.length,
    headline: model.headline,
    kneeHeadline: responseHeadline(curves),
    fitSummary: fit.summary,
    hasFit: fit.sheet !== null,
    hasWhatIf: whatIf !== null,
    hasSubintervals: sub !== null,
    hasCategories: cat !== null,
    hasHosts: hosts !== null,
    warnings: [...warnings, ...answers.flatMap((a) => a.warnings)],
  });
  const sheets: SheetPlan[] = [summary, steps.sheet, model.sheet];
  if (whatIf) sheets.push(whatIf);
  for (const s of [fit.sheet, sub, cat, hosts]) if (s) sheets.push(s);
  const all = [...warnings, ...answers.flatMap((a) => a.warnings)];
  return {
    plan: { title, sources: inputs.map((i) => i.file), warnings: all, sheets },
    answers: { cpu, steps: answers, response: curves, warnings, whatIf: whatIf ? whatIfFigures(whatIf) : [] },
  };
}

/** The response column, checked against the data (iogen_cpu_pct is the tool's CPU). */
function checkedResponse(option: string | undefined, labelColumns: string[]): string {
  const response = option ?? DEFAULT_RESPONSE;
  const knownColumns = [...STEP_METRICS, ...labelColumns];
  if (!knownColumns.includes(response) && response !== "iogen_cpu_pct") {
    throw new DomainError(
      "response",
      `unknown column '${response}'; choose one of ${knownColumns.join(", ")}`,
      "value",
    );
  }
  return response === "iogen_cpu_pct" ? "tool_cpu_pct" : response;
}
