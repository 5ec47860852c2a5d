/** The case's per-line tables: each running-cost line's escalation, and each one-off cost's amount and year, per option (inputs). */
import { CaseOption } from "./input";
import { CaseSheet, lineOf, makeTable, oneOffOf, opt } from "./sheet-context";
import { PlacedTable } from "../workbook/sheet-builder";
import { ColumnPlan, TablePlan } from "../workbook/plan";

/** A table of one figure per running-cost or one-off line and option (escalation rates, one-off amounts or years). */
function perLineTable(
  ctx: CaseSheet,
  block: PlacedTable,
  column: { header: string; numFmt: string; description: string },
  value: (o: CaseOption, k: number) => number,
  label: (k: number) => string,
): TablePlan {
  const { header, numFmt, description } = column;
  return makeTable(
    ctx,
    block,
    [
      { key: "item", header },
      ...ctx.input.options.map((o, i): ColumnPlan => ({ key: opt(i), header: o.name, numFmt, description })),
    ],
    block.rows.map((_, k) => [label(k), ...ctx.input.options.map((o) => value(o, k))]),
  );
}

/** Escalation per year of each running-cost line (placed only when a line escalates). */
export function escalationTable(ctx: CaseSheet): TablePlan | undefined {
  if (!ctx.escalation) return undefined;
  return perLineTable(
    ctx,
    ctx.escalation,
    { header: "Escalation per year (input)", numFmt: "0.0%", description: "Year t pays the line × (1 + escalation)^t" },
    (o, k) => lineOf(ctx, o, k)?.escalation ?? 0,
    (k) => ctx.lineLabels[k],
  );
}

/** The one-off costs' amounts and, beside them, the year each is paid (placed only when there are one-offs). */
export function oneOffTables(ctx: CaseSheet): TablePlan[] {
  if (!ctx.oneOffs || !ctx.oneOffYears) return [];
  const label = (k: number): string => ctx.oneOffLabels[k];
  return [
    perLineTable(
      ctx,
      ctx.oneOffs,
      { header: "One-off cost (input)", numFmt: ctx.cur, description: "Paid once, at the start of its year" },
      (o, k) => oneOffOf(ctx, o, k)?.amount ?? 0,
      label,
    ),
    perLineTable(
      ctx,
      ctx.oneOffYears,
      { header: "Year paid (input)", numFmt: "0", description: "0 = now" },
      (o, k) => oneOffOf(ctx, o, k)?.year ?? 0,
      label,
    ),
  ];
}
