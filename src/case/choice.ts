/**
 * The case's Choice table — which options may be chosen, why not, and each option's cost per unit
 * of work — and the live formula of the option the sheet chooses.
 *
 * An option qualifies when every workload can carry its load (λ·S < servers) and, when the case
 * has a service-level target (`serviceTarget`), answers at least that share within that time
 * (Capacity's "Qualifies" column); `model.ts` decides the same in `computeCase`. The choice is the
 * qualifying option with the lowest net present cost to the cent (the first on a tie), none when no
 * option qualifies: on the sheet, `MATCH` over the rounded costs with 1E+300 added to those that do
 * not qualify.
 *
 * Cost per unit of work is levelized (`core/levelized-cost`): the net present cost over the
 * present value of the work, here the option's arrival rates summed (constant over the years) times
 * the annuity factor Σ_t (1 + r)^−t, per 1,000 rate units when the rates are in the thousands.
 */
import { workloadTimeUnit } from "./capacity-units";
import { levelizedCost } from "../core/levelized-cost";
import { CaseInput } from "./input";
import { CaseResult, cents } from "./model";
import { CaseSheet, makeTable, native, opt, rateCell, workloadKey, yearKey } from "./sheet-context";
import { CellValue, ColumnPlan, TablePlan } from "../workbook/plan";

/** 1 shows as "yes", 0 as "no": a flag that stays a number, so formulas can add it. */
export const YES_NO = '"yes";"yes";"no"';

/** The Choice table's row keys. */
export function choiceRows(input: CaseInput): string[] {
  const rows = ["qualifies", "cost_if_qualifies", "chosen", "cost_if_next", "next_best"];
  return input.options.some((o) => o.workloads.length > 0) ? [...rows, "why", "unit_cost"] : rows;
}

/** Why an option does not qualify (empty when it does), in the words of the sheet. */
export function whyNot(input: CaseInput, result: CaseResult, i: number): string {
  const o = result.options[i];
  if (o.qualifies) return "";
  return o.workloads.some((w) => !w.stable) ? "cannot carry its load" : "misses the service target";
}

/** The scale of the cost per unit of work: per 1,000 rate units when the rates are in the thousands. */
export function workScale(input: CaseInput): number {
  const rates = input.options.flatMap((o) => o.workloads.map((w) => w.arrivalRate));
  return rates.length > 0 && Math.max(...rates) >= 1000 ? 1000 : 1;
}

/** Option i's work per year: its arrival rates summed (0 without workloads). */
function workOf(input: CaseInput, i: number): number {
  return input.options[i].workloads.reduce((s, w) => s + w.arrivalRate, 0);
}

/** The cost per unit of work of option i, or null without workloads. */
export function unitCost(input: CaseInput, result: CaseResult, i: number): number | null {
  const work = workOf(input, i);
  if (work === 0) return null;
  const perYear = Array.from({ length: input.years }, () => work / workScale(input));
  return levelizedCost(result.options[i].npv, perYear, input.discountRate);
}

/** Ranges the choice formulas use: each option's cost, name and qualifying flag (rows, absolute). */
export function choiceRanges(ctx: CaseSheet): {
  npvs: string;
  names: string;
  ok: string;
} {
  const n = ctx.input.options.length;
  const row = (block: CaseSheet["costs"], key: string): string =>
    ctx.sheet.span(block, [key, opt(0)], [key, opt(n - 1)], true);
  return {
    npvs: row(ctx.costs, "npv"),
    names: row(ctx.costs, "header"),
    ok: row(ctx.choice, "qualifies"),
  };
}

/**
 * The 1-based index of the option the sheet chooses now (0 when none qualifies): the first
 * qualifying option within a cent of the least cost, as `computeCase` chooses. The Choice table's
 * row "cost_if_qualifies" holds each qualifying option's cost to the cent and a text elsewhere,
 * which MIN and MATCH pass over.
 */
export function choiceFormula(ctx: CaseSheet): string {
  const costs = choiceRow(ctx, "cost_if_qualifies");
  return `IF(COUNT(${costs})=0,0,MATCH(MIN(${costs}),${costs},0))`;
}

/** The 1-based index of the next qualifying option after the choice (0 when none): the least cost of the rest. */
export function runnerUpFormula(ctx: CaseSheet): string {
  const costs = choiceRow(ctx, "cost_if_next");
  return `IF(COUNT(${costs})=0,0,MATCH(MIN(${costs}),${costs},0))`;
}

/** A row of the Choice table over every option (absolute). */
function choiceRow(ctx: CaseSheet, key: string): string {
  const n = ctx.input.options.length;
  return ctx.sheet.span(ctx.choice, [key, opt(0)], [key, opt(n - 1)], true);
}

/** The Choice table: per option, qualifies (1 yes, 0 no), why not, cost per unit of work. */
export function choiceTable(ctx: CaseSheet): TablePlan {
  const { input, result, sheet, costs } = ctx;
  const choice = ctx.choice;
  const scale = workScale(input);
  const rate = rateCell(ctx);
  const years = sheet.span(ctx.perYear, [yearKey(0), "year"], [yearKey(input.years - 1), "year"], true);
  const labels: Record<string, string> = {
    // Without workloads there is no load to judge: every option qualifies, and the label says nothing about load.
    qualifies: !input.options.some((o) => o.workloads.length > 0)
      ? "Qualifies"
      : "Qualifies" + (input.serviceTarget ? " (load and service target)" : " (carries its load)"),
    cost_if_qualifies: "Cost if it qualifies",
    chosen: "The choice",
    cost_if_next: "Cost if it qualifies, not chosen",
    next_best: "The next best",
    why: "Left out because it",
    unit_cost: `Cost per ${scale === 1 ? "" : "1,000 "}${input.rateUnit}-year (levelized)`,
  };
  const cell = (row: string, i: number): CellValue => {
    const o = input.options[i];
    const capacity = ctx.capacity;
    const m = o.workloads.length;
    const rows = (col: string): string[] => o.workloads.map((_, j) => sheet.cell(capacity!, workloadKey(i, j), col));
    switch (row) {
      case "qualifies":
        return m === 0 || !capacity
          ? 1
          : native(
              `IF(AND(${rows("qualifies")
                .map((q) => `${q}=1`)
                .join(",")}),1,0)`,
              result.options[i].qualifies ? 1 : 0,
            );
      case "cost_if_qualifies":
        return native(
          `IF(${sheet.cell(choice, "qualifies", opt(i))}=1,ROUND(${sheet.cell(costs, "npv", opt(i))},2),"left out")`,
          result.options[i].qualifies ? cents(result.options[i].npv) : "left out",
        );
      case "cost_if_next":
        return native(
          `IF(AND(${sheet.cell(choice, "qualifies", opt(i))}=1,${sheet.cell(choice, "chosen", opt(i))}=0),${sheet.cell(costs, "npv", opt(i))},"—")`,
          result.options[i].qualifies && result.chosen !== i ? result.options[i].npv : "—",
        );
      case "chosen":
        return native(`IF(${choiceFormula(ctx)}=${i + 1},1,0)`, result.chosen === i ? 1 : 0);
      case "next_best":
        return native(`IF(${runnerUpFormula(ctx)}=${i + 1},1,0)`, ctx.robustness.runnerUp === i ? 1 : 0);
      case "why": {
        if (m === 0 || !capacity) return "";
        const here = `${sheet.cell(choice, "qualifies", opt(i))}=1`;
        const unstable = o.workloads.map((_, j) => `${rows("servers")[j]}<=${rows("rate")[j]}*${serviceOf(ctx, i, j)}`);
        return native(
          `IF(${here},"",IF(OR(${unstable.join(",")}),"cannot carry its load","misses the service target"))`,
          whyNot(input, result, i),
        );
      }
      default: {
        const value = unitCost(input, result, i);
        if (value === null || !capacity) return "";
        const work = `SUM(${rows("rate").join(",")})`;
        return native(
          `${sheet.cell(costs, "npv", opt(i))}/(${work}/${scale}*SUMPRODUCT(1/(1+${rate})^${years}))`,
          value,
        );
      }
    }
  };
  return makeTable(
    ctx,
    choice,
    [
      { key: "item", header: "Item", width: 26, wrap: true },
      ...input.options.map((o, i): ColumnPlan => ({
        key: opt(i),
        header: o.name,
      })),
    ],
    choice.rows.map((row) => [labels[row], ...input.options.map((_, i) => cell(row, i))]),
    {
      cellFormats: input.options.flatMap((_, i) => [
        ...[0, 2, 4].map((r) => ({ row: r, col: i + 1, numFmt: YES_NO })),
        ...[1, 3, 6].filter((r) => r < choice.rows.length).map((r) => ({ row: r, col: i + 1, numFmt: ctx.cur })),
      ]),
    },
  );
}

/** S of workload j of option i in the case's time unit, as the Capacity table's formulas write it. */
function serviceOf(ctx: CaseSheet, i: number, j: number): string {
  const at = ctx.sheet.cell(ctx.capacity!, workloadKey(i, j), "service_time");
  const scale = workloadTimeUnit(ctx.input, i, j).scale;
  return scale === 1 ? at : `(${at}/${scale})`;
}

/** The case's service-level target as inputs: the share to answer, and within what time (the Capacity table's time unit). */
export function serviceTargetTable(ctx: CaseSheet): TablePlan | undefined {
  const t = ctx.input.serviceTarget;
  const block = ctx.serviceTarget;
  if (!t || !block) return undefined;
  const { unit, scale } = ctx.shownTime;
  return makeTable(
    ctx,
    block,
    [
      {
        key: "level",
        header: "Share answered in time (input)",
        numFmt: "0%",
        description: "Every workload of an option must reach it for the option to qualify",
      },
      {
        key: "answer_within",
        header: `Within (${unit}) (input)`,
        numFmt: "0.00",
        description: "The wait allowed before an answer",
      },
    ],
    [[t.level, scale === 1 ? t.answerWithin : t.answerWithin * scale]],
  );
}
