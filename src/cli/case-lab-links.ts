/**
 * `caplab report INPUTS --case CASE.json`: a case whose workloads take their figures from the lab
 * analysis of the same workbook, by reference. A workload names a What-if line
 * (`"fromLab": "protocol nfs"`, the line column of the What-if sheet's Inputs table) and gets
 *
 * - its service time from the Model sheet's fitted marginal CPU cost per IO of that line
 *   (`serviceTimeRef`, CPU-ms per IO divided by 1000 for a case in s, 1 in ms, 0.001 in µs);
 * - its current load from the What-if line's current IOPS (`arrivalRateRef`);
 * - its growth from the What-if line's growth % per year (`growthRef`, divided by 100);
 *
 * each with the cell's current value, so the case sheet holds `='What-if'!$C$7/100` rather than a
 * copy: editing the growth on What-if moves the case's purchases. The cells are found from the
 * lab plan's tables by name and column key (the layout), never by header text. Pure: JSON in,
 * JSON out; nothing is read or written here.
 */
import { DomainError } from "../core/errors";
import { cellA1, TablePlan, WorkbookPlan } from "../workbook/plan";
import { CPU_FIT_TABLE } from "../lab/model-fits";

/** Case time units the fitted cost (CPU-ms per IO) converts to, and the divisor for each. */
const MS_DIVISOR: Record<string, number> = { s: 1000, ms: 1, µs: 0.001, us: 0.001 };

/** The fields a linked workload takes from the lab (and must not give itself). */
const LINKED = ["arrivalRate", "serviceTime", "growth", "serviceTimeRef", "serviceTimeRefDivisor", "arrivalRateRef"];

interface LabCell {
  ref: string;
  value: number;
}

/** The cell of column `key` in the data row whose `match` column is `line`, with its value. */
function cellOf(plan: WorkbookPlan, table: string, match: string, line: string, key: string): LabCell | undefined {
  for (const sheet of plan.sheets) {
    const t: TablePlan | undefined = sheet.tables.find((x) => x.name === table);
    if (!t || !t.at) continue;
    const m = t.columns.findIndex((c) => c.key === match);
    const c = t.columns.findIndex((col) => col.key === key);
    const i = t.rows.findIndex((row) => row[m] === line);
    if (m < 0 || c < 0 || i < 0) continue;
    const cell = t.rows[i][c];
    const value = typeof cell === "number" ? cell : null;
    if (value === null) return undefined;
    return { ref: cellA1({ row: t.at.row + 1 + i, col: t.at.col + c }, { absolute: true, sheet: sheet.name }), value };
  }
  return undefined;
}

/** The What-if lines of the analysis (the Inputs table's line column). */
export function whatIfLines(plan: WorkbookPlan): string[] {
  const t = plan.sheets.flatMap((s) => s.tables).find((x) => x.name === "WhatIfInputs");
  if (!t) return [];
  const m = t.columns.findIndex((c) => c.key === "line");
  return t.rows.map((r) => String(r[m]));
}

function fail(path: string, problem: string): never {
  throw new DomainError(path, problem, "value");
}

/** One workload with `fromLab`, its references filled in. */
function link(w: Record<string, unknown>, path: string, timeUnit: string, plan: WorkbookPlan): Record<string, unknown> {
  const line = w.fromLab;
  const lines = whatIfLines(plan);
  if (typeof line !== "string" || !lines.includes(line))
    fail(
      `${path}.fromLab`,
      lines.length === 0
        ? "the analysis has no What-if sheet (it needs a line with a CPU fit and a response curve)"
        : `must name a What-if line: ${lines.map((l) => JSON.stringify(l)).join(", ")}; got ${JSON.stringify(line)}`,
    );
  for (const key of LINKED)
    if (w[key] !== undefined) fail(`${path}.${key}`, `comes from the lab's What-if line (fromLab); remove it`);
  const divisor = MS_DIVISOR[timeUnit];
  if (divisor === undefined)
    fail(
      `${path}.fromLab`,
      `needs the case's timeUnit to be s, ms or µs (the lab's CPU cost is in ms), got ${JSON.stringify(timeUnit)}`,
    );
  const cost = cellOf(plan, CPU_FIT_TABLE, "group", line, "d");
  const current = cellOf(plan, "WhatIfInputs", "line", line, "current");
  const growth = cellOf(plan, "WhatIfInputs", "line", line, "growth");
  if (!cost || !(cost.value > 0))
    fail(`${path}.fromLab`, `the line ${JSON.stringify(line)} has no positive fitted CPU cost per IO`);
  if (!current || !growth)
    fail(`${path}.fromLab`, `the What-if line ${JSON.stringify(line)} has no current load or growth`);
  const out: Record<string, unknown> = { ...w };
  delete out.fromLab;
  return {
    ...out,
    arrivalRate: current.value,
    arrivalRateRef: current.ref,
    serviceTime: cost.value / divisor,
    serviceTimeRef: cost.ref,
    ...(divisor === 1 ? {} : { serviceTimeRefDivisor: divisor }),
    growth: growth.value / 100,
    growthRef: growth.ref,
    growthRefDivisor: 100,
  };
}

/**
 * The case JSON with every `fromLab` workload linked to the analysis' cells.
 *
 * @param json - the parsed case file (not modified)
 * @param plan - the lab analysis plan the case goes beside
 * @returns a copy with `fromLab` replaced by the references and their current values
 * @throws DomainError naming the workload's field, e.g. `options[0].workloads[0].fromLab`
 */
export function linkCaseToLab(json: unknown, plan: WorkbookPlan): unknown {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return json;
  const c = json as Record<string, unknown>;
  const timeUnit = typeof c.timeUnit === "string" ? c.timeUnit : "s";
  if (!Array.isArray(c.options)) return json;
  return {
    ...c,
    options: c.options.map((o: unknown, i) => {
      if (typeof o !== "object" || o === null || !Array.isArray((o as { workloads?: unknown }).workloads)) return o;
      const opt = o as { workloads: unknown[] };
      return {
        ...opt,
        workloads: opt.workloads.map((w, j) =>
          typeof w === "object" && w !== null && "fromLab" in w
            ? link(w as Record<string, unknown>, `options[${i}].workloads[${j}]`, timeUnit, plan)
            : w,
        ),
      };
    }),
  };
}

/** Whether a case file links a workload to the lab (`fromLab`), which only `caplab report --case` resolves. */
export function linksToLab(json: unknown): string | null {
  const opts = (json as { options?: unknown })?.options;
  if (!Array.isArray(opts)) return null;
  for (let i = 0; i < opts.length; i++) {
    const ws = (opts[i] as { workloads?: unknown })?.workloads;
    if (!Array.isArray(ws)) continue;
    for (let j = 0; j < ws.length; j++)
      if (typeof ws[j] === "object" && ws[j] !== null && "fromLab" in (ws[j] as object))
        return `options[${i}].workloads[${j}].fromLab`;
  }
  return null;
}
