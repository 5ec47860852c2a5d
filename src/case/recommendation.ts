/** The case's Recommendation table, first on the sheet: the option to choose, its saving, lead and payback, and how far the choice can be trusted. */
import { checkText } from "./capacity-check";
import { VsBaseline } from "./model";
import { percent } from "./money-text";
import { CaseSheet, makeTable, native, opt, roundMicro, yearsText } from "./sheet-context";
import { CellValue, TablePlan } from "../workbook/plan";
import { runsOutRows } from "./runs-out";

/** The Recommendation table's row keys. */
export const RECOMMENDATION_ROWS = ["choose", "saving", "lead", "payback", "confidence"];

/** The 1-based index of the option the sheet chooses now: the first lowest net present cost (to the cent). */
function choiceFormula(ctx: CaseSheet): string {
  const n = ctx.input.options.length;
  const npvs = ctx.sheet.span(ctx.costs, ["npv", opt(0)], ["npv", opt(n - 1)], true);
  return `MATCH(TRUE,INDEX(ROUND(${npvs},2)=ROUND(MIN(${npvs}),2),0),0)`;
}

/**
 * The confidence verdict, as a live formula and as its text now: whether every low and high value
 * in the Sensitivity table keeps the choice, and whether a workload is flagged in Capacity.
 */
function confidence(ctx: CaseSheet, k: string): { formula: string; now: string } {
  const { input, result, sheet, costs, sensitivity } = ctx;
  const n = input.options.length;
  const names = sheet.span(costs, ["header", opt(0)], ["header", opt(n - 1)], true);
  const c = result.cheapest;
  // The Sensitivity table measures option `r` against the baseline; the choice holds at a low or
  // high value when the saving keeps its sign (positive when `r` is chosen, negative when the
  // baseline is).
  const r = result.recommended;
  const first = sensitivity.rows[0];
  const last = sensitivity.rows[sensitivity.rows.length - 1];
  const savings = sheet.span(sensitivity, [first, "saving_low"], [last, "saving_high"], true);
  // Live: which sign reverses the choice depends on the choice the sheet shows now (k).
  const reversing = `IF(${k}=1,COUNTIF(${savings},">=0"),COUNTIF(${savings},"<=0"))`;
  const all = result.tornado.length * 2;
  const flips = result.tornado.reduce(
    (m, t) => m + [t.savingLow, t.savingHigh].filter((v) => (c === 0 ? v >= 0 : v <= 0)).length,
    0,
  );
  const capacity = ctx.capacity;
  const checks = capacity
    ? sheet.span(capacity, [capacity.rows[0], "check"], [capacity.rows[capacity.rows.length - 1], "check"], true)
    : undefined;
  const flagged = result.options.some((o) =>
    o.workloads.some((w) => checkText(false, w.utilization, w.pWait, input.utilizationLimit) !== ""),
  );
  // Option names come from the input: the formula refers to their cells, never quotes them.
  const against = `${input.options[r].name} vs ${input.options[0].name}`;
  const againstCells = `${sheet.cell(costs, "header", opt(r), true)}&" vs "&${sheet.cell(costs, "header", opt(0), true)}`;
  const high = `High: all ${all} low/high values in Sensitivity (${against}) keep this choice.`;
  const highFormula = `"High: all ${all} low/high values in Sensitivity ("&${againstCells}&") keep this choice."`;
  const low = (m: string): string =>
    `"Low: "&${m}&" of ${all} low/high values in Sensitivity ("&${againstCells}&") reverse it."`;
  const flagText = " Capacity: a workload is flagged (Check column).";
  const now =
    (flips === 0 ? high : `Low: ${flips} of ${all} low/high values in Sensitivity (${against}) reverse it.`) +
    (flagged ? flagText : "");
  // Sensitivity compares option r with the baseline; if edits make a third option the choice, its
  // counts say nothing about it, so the verdict says so instead of judging with them.
  const judged =
    `IF(${reversing}=0,${highFormula},${low(reversing)})` +
    (checks ? `&IF(COUNTIF(${checks},"?*")>0,"${flagText}","")` : "");
  const formula = `IF(OR(${k}=1,${k}=${r + 1}),${judged},"Not judged: with the edited figures the choice is "&INDEX(${names},${k})&", but Sensitivity compares "&${againstCells}&". Build the case again to judge it.")`;
  return { formula, now };
}

/**
 * The verdict, first on the sheet: the option to choose (the lowest net present cost), its NPV
 * saving over the baseline, its lead over the next best option, its payback, and how far the
 * choice can be trusted — whether every low and high value in the Sensitivity table keeps the same
 * choice, and whether a workload is flagged in Capacity. All live formulas.
 */
export function recommendationTable(ctx: CaseSheet): TablePlan {
  const { input, result, sheet, costs, returns } = ctx;
  const n = input.options.length;
  const npvs = sheet.span(costs, ["npv", opt(0)], ["npv", opt(n - 1)], true);
  const names = sheet.span(costs, ["header", opt(0)], ["header", opt(n - 1)], true);
  const k = choiceFormula(ctx);
  const npv0 = sheet.cell(costs, "npv", opt(0), true);
  const opts = result.options;
  const c = result.cheapest;
  const sorted = opts.map((o) => o.npv).sort((a, b) => a - b);
  const notWithin = `not within ${yearsText(input.years)}`;
  const paybacks = sheet.span(returns, [opt(1), "payback"], [opt(n - 1), "payback"], true);
  const paybackNow = c === 0 ? "n/a: keep the baseline" : ((opts[c].vsBaseline as VsBaseline).payback ?? notWithin);
  const trust = confidence(ctx, k);
  const rows: CellValue[][] = [
    ["Choose", native(`INDEX(${names},${k})`, input.options[c].name)],
    [
      `NPV saving over ${input.options[0].name}`,
      native(`ROUND(${npv0}-MIN(${npvs}),6)`, roundMicro(opts[0].npv - sorted[0])),
    ],
    [
      "Lead over the next best option (NPV)",
      native(`ROUND(SMALL(${npvs},2)-MIN(${npvs}),6)`, roundMicro(sorted[1] - sorted[0])),
    ],
    ["Payback (years)", native(`IF(${k}=1,"n/a: keep the baseline",INDEX(${paybacks},${k}-1))`, paybackNow)],
    ["Confidence", native(trust.formula, trust.now)],
    ...runsOutRows(ctx),
  ];
  return makeTable(
    ctx,
    ctx.recommendation,
    [
      { key: "item", header: "Verdict" },
      { key: "value", header: `Over ${yearsText(input.years)} at ${percent(input.discountRate)}` },
    ],
    rows,
    {
      callout: true,
      cellFormats: [
        { row: 1, col: 1, numFmt: ctx.cur },
        { row: 2, col: 1, numFmt: ctx.cur },
        { row: 3, col: 1, numFmt: "0" },
      ],
    },
  );
}
