/** The case's Assumptions table (discount rate, years, units, utilization limit) and its Notes table (assumptions, risks, sources). */
import { CaseInput } from "./input";
import { CaseSheet, makeTable } from "./sheet-context";
import { CellValue, ColumnPlan, TablePlan } from "../workbook/plan";

/** The Assumptions table's columns: the utilization limit only when a workload is sized. */
export function assumptionColumns(anyWorkloads: boolean): string[] {
  // Time and rate units only where there are workloads to measure with them.
  const cols = ["discount_rate", "years", "currency"];
  if (anyWorkloads) cols.push("time_unit", "rate_unit", "utilization_limit");
  return cols;
}

const ASSUMPTION_COLUMNS: ColumnPlan[] = [
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

/** One row: the discount rate and utilization limit (inputs), the years and the units. */
export function assumptionsTable(ctx: CaseSheet): TablePlan {
  const { input } = ctx;
  const columns = ASSUMPTION_COLUMNS.filter((c) => ctx.assumptions.cols.includes(c.key));
  const values: Record<string, CellValue> = {
    discount_rate: input.discountRate,
    years: input.years,
    currency: input.currency,
    time_unit: input.timeUnit,
    rate_unit: input.rateUnit,
    utilization_limit: input.utilizationLimit,
  };
  return makeTable(ctx, ctx.assumptions, columns, [columns.map((c) => values[c.key])]);
}

/**
 * The case's free-text notes as rows (kind, what it is about, the text): its assumptions, risks and
 * sources, then the source of each figure that has one (an option's capex and server costs, a
 * running-cost or one-off line, a workload's rate and service time). Plain text cells.
 */
export function caseNotes(input: CaseInput): string[][] {
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

/** The Notes table (placed only when the case has notes). */
export function notesTable(ctx: CaseSheet): TablePlan | undefined {
  if (!ctx.notes) return undefined;
  return makeTable(
    ctx,
    ctx.notes,
    [
      { key: "kind", header: "Kind", numFmt: "@" },
      { key: "about", header: "About", numFmt: "@", width: 16, wrap: true },
      // Free text from the input: text cells (never formulas), running on over the empty cells to the right.
      { key: "text", header: "Note", numFmt: "@", width: 12 },
    ],
    caseNotes(ctx.input),
  );
}
