/**
 * Figures a business case can take from an analysis already in the workbook, by reference: the
 * CPU cost per IO ("D CPU-ms per IO", the utilization law D = U / X) of each step on a Model sheet
 * written by the lab import (`src/analysis/lab-model.ts`), labelled with its step and, when the
 * Steps sheet has one, the step's protocol level. The case sheet then holds `='Model'!$H$6/1000`
 * (the cell in milliseconds, the case in seconds), never a copied number, so re-importing or
 * editing the analysis flows into the case.
 *
 * {@link cpuCostChoices} is pure (sheets as read → choices); {@link readCpuCostChoices} and
 * {@link readCellValues} are the Office.js side.
 */
import { CPU_COST_HEADER } from "../analysis/lab-model";
import { columnLetter } from "../analysis/plan";
/** Sheets the lab import writes, with the suffix a second import gets ("Model (2)"). */
const MODEL_SHEET = /^Model(?: \(\d+\))?$/;
const STEPS_SHEET = /^Steps(?: \(\d+\))?$/;

/** A sheet's used range as read: its top-left position and values. */
export interface ReadSheet {
  name: string;
  row: number;
  col: number;
  values: unknown[][];
}

export interface CpuCostChoice {
  /** The cell, e.g. `'Model'!$H$6`, or the cells of one protocol level's steps (their mean). */
  refs: string[];
  /** The value now (the mean of the cells), in CPU-milliseconds per IO. */
  ms: number;
  /** What a planner picks it by, e.g. "Model: step 1 (r100-500, protocol local)". */
  label: string;
}

/** A sheet name as a formula reference ('Model', with quotes doubled). */
function quoted(name: string): string {
  return `'${name.replace(/'/g, "''")}'`;
}

/** The header row (index in `values`) and the columns of the headers wanted, or undefined. */
function findHeader(
  values: unknown[][],
  wanted: string[],
  required: string,
): { row: number; cols: Map<string, number> } | undefined {
  for (let i = 0; i < values.length; i++) {
    const j = values[i].indexOf(required);
    if (j < 0) continue;
    const cols = new Map<string, number>();
    for (const w of wanted) {
      const k = values[i].indexOf(w);
      if (k >= 0) cols.set(w, k);
    }
    return { row: i, cols };
  }
  return undefined;
}

/** What the Steps sheet says about a step: its name and protocol level (either may be ""). */
interface StepInfo {
  name: string;
  protocol: string;
}

const stepKey = (source: unknown, step: unknown): string => `${String(source ?? "")}\u0000${String(step ?? "")}`;

/** (source, step) → name and protocol, from a Steps sheet's table (the first row of each step). */
function stepInfo(sheet: ReadSheet | undefined): Map<string, StepInfo> {
  const out = new Map<string, StepInfo>();
  if (!sheet) return out;
  const h = findHeader(sheet.values, ["source", "step", "step name", "protocol"], "step name");
  if (!h) return out;
  const col = (name: string): number => h.cols.get(name) ?? -1;
  for (const line of sheet.values.slice(h.row + 1)) {
    const key = stepKey(line[col("source")], line[col("step")]);
    if (out.has(key)) continue;
    out.set(key, { name: String(line[col("step name")] ?? ""), protocol: String(line[col("protocol")] ?? "") });
  }
  return out;
}

/**
 * The CPU-cost cells of every Model sheet among `sheets`: per protocol level (when the Steps table
 * labels steps with a `protocol`) the mean over that level's steps, then each step's cell.
 *
 * @param sheets - used ranges as read (Model and Steps sheets matter; others are ignored)
 * @returns the level choices (levels with two or more steps), then one choice per step row with a
 *   positive D, in sheet and row order
 * @example
 * cpuCostChoices([{ name: "Model", row: 0, col: 0, values: [["step", "D CPU-ms per IO"], ["s1", 0.08]] }]);
 * // => [{ refs: ["'Model'!$B$2"], ms: 0.08, label: "Model: step s1" }]
 */
export function cpuCostChoices(sheets: ReadSheet[]): CpuCostChoice[] {
  const levels: CpuCostChoice[] = [];
  const choices: (CpuCostChoice & { protocol: string })[] = [];
  for (const sheet of sheets) {
    if (!MODEL_SHEET.test(sheet.name)) continue;
    const suffix = sheet.name.slice("Model".length);
    const steps = stepInfo(sheets.find((s) => STEPS_SHEET.test(s.name) && s.name.slice("Steps".length) === suffix));
    const h = findHeader(sheet.values, ["source", "step", CPU_COST_HEADER], CPU_COST_HEADER);
    if (!h) continue;
    const dCol = h.cols.get(CPU_COST_HEADER) as number;
    const stepCol = h.cols.get("step") ?? -1;
    const sourceCol = h.cols.get("source") ?? -1;
    for (let i = h.row + 1; i < sheet.values.length; i++) {
      const line = sheet.values[i];
      const ms = line[dCol];
      if (line.every((v) => v === "" || v === null)) break; // the end of the table
      if (typeof ms !== "number" || !(ms > 0)) continue;
      const step = String(line[stepCol] ?? "") || String(i - h.row);
      const info = steps.get(stepKey(line[sourceCol], line[stepCol]));
      const detail = [info?.name, info?.protocol ? `protocol ${info.protocol}` : ""].filter((x) => x).join(", ");
      const label = `${sheet.name}: step ${step}${detail ? ` (${detail})` : ""}`;
      const ref = `${quoted(sheet.name)}!$${columnLetter(sheet.col + dCol)}$${sheet.row + i + 1}`;
      choices.push({ refs: [ref], ms, label, protocol: info?.protocol ?? "" });
    }
    // Per protocol level: the mean of its steps' D, as AVERAGE over their cells.
    const byLevel = new Map<string, CpuCostChoice[]>();
    for (const c of choices.filter((x) => x.refs[0].startsWith(`${quoted(sheet.name)}!`))) {
      if (c.protocol !== "") byLevel.set(c.protocol, [...(byLevel.get(c.protocol) ?? []), c]);
    }
    for (const [level, steps] of byLevel) {
      if (steps.length < 2) continue;
      levels.push({
        refs: steps.map((c) => c.refs[0]),
        ms: steps.reduce((sum, c) => sum + c.ms, 0) / steps.length,
        label: `${sheet.name}: protocol ${level}, mean of ${steps.length} steps`,
      });
    }
  }
  return [...levels, ...choices.map(({ refs, ms, label }) => ({ refs, ms, label }))];
}

/**
 * Reads the Model and Steps sheets of the open workbook and lists the CPU-cost cells.
 *
 * @returns the choices (empty when no analysis is in the workbook)
 */
export async function readCpuCostChoices(): Promise<CpuCostChoice[]> {
  return Excel.run(async (context) => {
    const sheets = context.workbook.worksheets;
    sheets.load("items/name");
    await context.sync();
    const reads = sheets.items
      .filter((ws) => MODEL_SHEET.test(ws.name) || STEPS_SHEET.test(ws.name))
      .map((ws) => {
        const used = ws.getUsedRangeOrNullObject();
        used.load("rowIndex,columnIndex,values");
        return { name: ws.name, used };
      });
    await context.sync();
    return cpuCostChoices(
      reads
        .filter((r) => !r.used.isNullObject)
        .map((r) => ({ name: r.name, row: r.used.rowIndex, col: r.used.columnIndex, values: r.used.values })),
    );
  });
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
    const bang = ref.lastIndexOf("!");
    const sheet = ref
      .slice(0, bang)
      .replace(/^'(.*)'$/, "$1")
      .replace(/''/g, "'");
    const m = /^\$?([A-Z]{1,3})\$?(\d+)$/.exec(ref.slice(bang + 1));
    if (bang < 1 || !m) throw new Error(`${ref}: not a single-cell reference`);
    let col = 0;
    for (const ch of m[1]) col = col * 26 + (ch.charCodeAt(0) - 64);
    return { ref, sheet, row: Number(m[2]) - 1, col: col - 1 };
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
