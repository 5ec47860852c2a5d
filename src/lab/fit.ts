/**
 * The Fit sheet: DOE_FIT of the response (and of the mean response time) on the factors that take
 * two levels over the steps, live over references to the Steps table.
 */
import { isDomainError } from "../core/errors";
import { doeFit } from "../core/doe-fit";
import { doeFitTable, isMissingValue, DoeFitTableCell } from "../core/doe-fit-table";
import { LabStep } from "./data";
import { STEP_METRICS, StepMetric } from "./data-metrics";
import {
  CellValue,
  columnIndex,
  rangeA1,
  SheetPlan,
  tableCellA1,
  tableCellAt,
  tableColumnA1,
  TablePlan,
} from "../workbook/plan";
import { BOOKKEEPING_LABELS } from "./steps";
import { ColumnSpec, F, fmt, SheetBuilder } from "../workbook/sheet-builder";

interface FactorInfo {
  name: string;
  /** The factor's column key in the Steps table. */
  key: string;
  levels: (number | string)[];
  get: (s: LabStep) => number | string | null;
}

const FACTOR_METRICS: StepMetric[] = ["block_size", "read_pct", "random_pct", "queue_depth", "target_iops"];

/** Factors that take exactly two levels over the steps (numbers stay numbers, labels stay text). */
function twoLevelFactors(
  steps: LabStep[],
  labelColumns: string[],
  response: string,
): { two: FactorInfo[]; more: string[] } {
  const candidates: FactorInfo[] = [];
  for (const m of FACTOR_METRICS)
    if (m !== response) candidates.push({ name: m, key: m, levels: [], get: (s) => s.values[m] });
  for (const l of labelColumns) {
    if (BOOKKEEPING_LABELS.has(l.toLowerCase()) || l === "job" || l === response) continue;
    candidates.push({
      name: l,
      key: `label:${l}`,
      levels: [],
      get: (s) => {
        const t = s.labels[l];
        if (t === undefined || t.trim() === "") return null;
        const n = Number(t);
        return Number.isFinite(n) && t.trim() !== "" ? n : t;
      },
    });
  }
  const two: FactorInfo[] = [];
  const more: string[] = [];
  for (const c of candidates) {
    const vals = steps.map(c.get);
    if (vals.some((v) => v === null)) continue;
    const levels = [...new Set(vals.map((v) => String(v)))];
    if (levels.length === 2) {
      const typed = levels.map((l) => (typeof vals[0] === "number" ? Number(l) : l));
      typed.sort((a, b) =>
        typeof a === "number" && typeof b === "number" ? a - b : String(a).localeCompare(String(b)),
      );
      two.push({ ...c, levels: typed });
    } else if (levels.length > 2) more.push(c.name);
  }
  // target_iops and a label derived from it are the same factor: keep the first of identical columns.
  const unique: FactorInfo[] = [];
  for (const f of two) {
    const sig = steps.map((s) => String(f.get(s) === f.levels[0])).join();
    if (!unique.some((u) => steps.map((s) => String(u.get(s) === u.levels[0])).join() === sig)) unique.push(f);
  }
  return { two: unique, more };
}

export function responseValue(s: LabStep, response: string): number | null {
  if ((STEP_METRICS as readonly string[]).includes(response)) return s.values[response as StepMetric];
  const t = s.labels[response];
  if (t === undefined || t.trim() === "") return null;
  const n = Number(t.replace(",", "."));
  return Number.isFinite(n) ? n : null;
}

/** A1 reference to a cell of the Steps table from another sheet, or null when it has no such column. */
type StepsRef = (row: number, key: string) => string | null;

export function stepsRefOf(sheetName: string, steps: TablePlan): StepsRef {
  return (row, key) => (columnIndex(steps, key) < 0 ? null : tableCellA1(steps, key, row, { sheet: sheetName }));
}

/** The DOE_FIT table as plan cells (a missing value is #N/A, as the worksheet function shows it). */
function arrayCells(out: DoeFitTableCell[][]): CellValue[][] {
  return out.map((row) => row.map((v): CellValue => (isMissingValue(v) ? { error: "#N/A" } : v)));
}

/**
 * The Fit tables of one response: `FitData_<suffix>` (the factor and response columns, each cell a
 * live reference to the Steps table, so editing Steps re-fits) and `Fit_<suffix>`, the array
 * `CAPLAB.DOE_FIT` returns over them — the same fit laid out by the same core function
 * (`doeFitTable`) as the worksheet function, so the headless renderers show what the live formula shows.
 */
function fitTables(
  sb: SheetBuilder,
  steps: LabStep[],
  factors: FactorInfo[],
  response: string,
  tableSuffix: string,
  stepsRef: StepsRef,
): string {
  const ys = steps.map((s) => responseValue(s, response));
  if (ys.some((y) => y === null)) return `${response}: not available for every step, no fit.`;
  const k = factors.length;
  const n = steps.length;
  // Main effects and two-factor interactions when the rows allow it (with zero residual df DOE_FIT
  // takes significance from Lenth's PSE), else main effects only.
  const order = n >= 1 + k + (k * (k - 1)) / 2 ? 2 : 1;
  let fit;
  try {
    fit = doeFit(
      factors.map((f) => f.name),
      factors.map((f) => steps.map((s) => f.get(s) as number | string)),
      ys as number[],
      { order },
    );
  } catch (e) {
    if (!isDomainError(e)) throw e;
    return `${response}: DOE_FIT failed: ${e.message}`;
  }
  const responseKey = (STEP_METRICS as readonly string[]).includes(response) ? response : `label:${response}`;
  const live = (i: number, key: string, value: number | string): CellValue => {
    const ref = stepsRef(i, key);
    if (ref === null) return value;
    // A numeric level read from a text label column: VALUE() so DOE_FIT codes it as a number.
    const text = key.startsWith("label:") && typeof value === "number";
    return { formula: text ? `VALUE(${ref})` : ref, result: value };
  };
  const dataSpecs: ColumnSpec<number>[] = [
    ...factors.map((f, j): ColumnSpec<number> => ({
      key: `factor_${j + 1}`,
      header: f.name,
      numFmt: "General",
      keep: true,
      get: (i) => live(i, f.key, f.get(steps[i]) as number | string),
    })),
    {
      key: "response",
      header: response,
      numFmt: "General",
      keep: true,
      get: (i) => live(i, responseKey, ys[i] as number),
    },
  ];
  const data = sb.table(
    `FitData_${tableSuffix}`,
    dataSpecs,
    steps.map((_, i) => i),
  );
  // With the header row: DOE_FIT names the terms after it.
  const factorRange = rangeA1(tableCellAt(data, "factor_1", -1), tableCellAt(data, `factor_${k}`, n - 1));
  const responseRange = tableColumnA1(data, "response", { header: true });
  const array = arrayCells(doeFitTable(fit));
  const keys = ["term", "estimate", "std_error", "t_value", "p_value"];
  const formats = [F.text, "General", "General", "0.000", "0.00E+00"];
  sb.table(
    `Fit_${tableSuffix}`,
    array[0].map((h, j): ColumnSpec<CellValue[]> => ({
      key: keys[j],
      header: String(h),
      numFmt: formats[j],
      keep: true,
      get: (row) => row[j] ?? null,
    })),
    array.slice(1),
    `CAPLAB.DOE_FIT(${factorRange},${responseRange},${order})`,
  );
  const significance =
    fit.significanceFrom === "lenth" ? " (no residual df: significance from Lenth's pseudo standard error)" : "";
  return `${response}: ${order === 2 ? "main effects and two-factor interactions" : "main effects"}, ${fit.observations} observations, R² = ${fmt(fit.rSquared, 4)}${significance}.`;
}

/**
 * The Fit sheet, or null when fewer than two factors take two levels.
 *
 * @returns the sheet (or null) and the Summary's line on the fit
 */
export function fitSheet(
  main: LabStep[],
  labelColumns: string[],
  response: string,
  explicitResponse: boolean,
  stepsTable: TablePlan,
): { sheet: SheetPlan | null; summary: string } {
  const fitNotes: string[] = [];
  const { two, more } = twoLevelFactors(main, labelColumns, response);
  if (two.length < 2)
    return { sheet: null, summary: "no fit (the steps do not vary two or more factors at two levels)" };
  {
    let resp = response;
    // fio records no host CPU: asked for cpu_busy_pct, fit the tool's CPU instead, and say so.
    if (
      resp === "cpu_busy_pct" &&
      main.every((s) => responseValue(s, resp) === null) &&
      main.every((s) => s.values.tool_cpu_pct !== null)
    ) {
      resp = "tool_cpu_pct";
      fitNotes.push(
        "cpu_busy_pct is not in these inputs (fio does not record host CPU): the response is the tool's CPU % instead.",
      );
    }
    const responses = resp === "response_ms_avg" ? [resp] : [resp, "response_ms_avg"];
    // The notes' count is known before the tables are placed (formulas refer to table positions).
    const noteCount = 3 + responses.length + fitNotes.length + (more.length > 0 ? 1 : 0);
    const fit = new SheetBuilder("Fit", new Array<string>(noteCount).fill(""));
    const ref = stepsRefOf("Steps", stepsTable);
    const lines = responses.map((r, i) => fitTables(fit, main, two, r, i === 0 ? "response" : "response_time", ref));
    const coding = two.map((f) => `${f.name}: ${f.levels[0]} → −1, ${f.levels[1]} → +1`).join("; ");
    const notes = [
      `DOE_FIT (least squares on coded factors, R lm() style) of ${responses.join(" and ")} on ${two.map((f) => f.name).join(", ")}.`,
      `Coding: ${coding}.`,
      ...lines,
      ...fitNotes,
      ...(more.length > 0 ? [`Left out (more than two levels): ${more.join(", ")}.`] : []),
      "Per response: the factor and response columns (references to the Steps table, so editing Steps re-fits), then " +
        "DOE_FIT's result over them (terms, then the summary rows). Aliased terms show #N/A.",
    ];
    if (notes.length !== noteCount) throw new Error("internal: Fit notes miscounted");
    return { sheet: { ...fit.sheet(), notes }, summary: lines.join(" ") };
  }
}
