/**
 * The case's Recommendation table, first on the sheet: over how many years at what rate, the option
 * to choose (the cheapest qualifying one, `choice.ts`), its NPV saving over the baseline, its lead
 * over the next best qualifying option, its payback, and how far the choice can be trusted (the
 * confidence grade of `robustness.ts`, worded from the Break-even moves table). All live formulas.
 */
import { CLOSE_LEAD_SHARE } from "../core/confidence-grade";
import { saidMove } from "./break-even-table";
import { choiceFormula, choiceRanges } from "./choice";
import { CaseInput } from "./input";
import { CaseResult, VsBaseline } from "./model";
import { MINUS, money, percent } from "./money-text";
import { Robustness } from "./robustness";
import { CaseSheet, makeTable, native, opt, rateCell, roundMicro, yearsText } from "./sheet-context";
import { CellValue, TablePlan } from "../workbook/plan";
import { runsOutRows } from "./runs-out";

/** The Recommendation table's row keys. */
export const RECOMMENDATION_ROWS = ["basis", "choose", "saving", "lead", "payback", "confidence", "closest"];

const CLOSE = percent(CLOSE_LEAD_SHARE);

/**
 * The confidence verdict as text (what `caplab case` prints and the sheet caches): the grade and
 * why, from the robustness of the choice.
 */
export function confidenceText(input: CaseInput, result: CaseResult, r: Robustness): string {
  const names = input.options.map((o) => o.name);
  const cur = input.currency;
  if (r.chosen < 0) return "Low: no option qualifies (see Choice and Capacity).";
  const npv = result.options[r.chosen].npv;
  if (r.grade === "Low" && r.lead !== null)
    return (
      `Low: the lead over ${names[r.runnerUp]} (${money(r.lead, cur)}) is under ${CLOSE} of ` +
      `${names[r.chosen]}'s net present cost (${money(npv, cur)}).`
    );
  if (r.drivers.some((d) => d.reverses)) return MEDIUM;
  return r.lead === null
    ? "High: the only option that qualifies; no single input moved within its plausible range changes that."
    : `High: no single input moved within its plausible range changes the choice; the lead is ` +
        (npv === 0
          ? `${money(r.lead, cur)}.`
          : `${((r.lead / Math.abs(npv)) * 100).toFixed(1)}% of the net present cost.`);
}

/**
 * The Medium verdict names no driver (the Closest row does): the Break-even table says which inputs
 * move the choice within their plausible range.
 */
const MEDIUM = "Medium: a single input moved within its plausible range changes the choice (see Break-even moves).";

/**
 * The closest break-even move in words: "Replace: capex +9.42% makes Keep the choice"; for a driver
 * asked at the grid, the bracket: "Keep › Calls: arrival rate between +10.00% and +20.00% makes …".
 * The closest is the driver ranked 1 (the first defined among equally close ones), as the sheet's
 * formula finds it.
 */
export function closestText(input: CaseInput, r: Robustness): string {
  const d = r.drivers.find((x) => x.nearest && x.driver.base !== 0);
  if (!d || !d.nearest) return "no single input changes the choice";
  const c = d.nearest;
  const rival = c.rival < 0 ? "no option qualifying" : `${input.options[c.rival].name} the choice`;
  return `${d.driver.label} ${saidMove(d)} makes ${rival}`;
}

/** {@link closestText} as a live formula over the Break-even table (the row ranked 1). */
function closestFormula(ctx: CaseSheet): string {
  const { sheet, breakEven } = ctx;
  const col = (key: string): string =>
    sheet.span(breakEven, [breakEven.rows[0], key], [breakEven.rows[breakEven.rows.length - 1], key], true);
  const row = `MATCH(1,${col("rank")},0)`;
  const at = (key: string): string => `INDEX(${col(key)},${row})`;
  const rival = `IF(${at("rival")}="no option qualifying","no option qualifying",${at("rival")}&" the choice")`;
  return `IFERROR(${at("driver")}&" "&${at("said")}&" makes "&${rival},"no single input changes the choice")`;
}

/** {@link confidenceText} as a live formula over the Choice and Break-even moves tables. */
function confidenceFormula(ctx: CaseSheet): string {
  const { sheet, breakEven, input } = ctx;
  const { npvs, names } = choiceRanges(ctx);
  const n = input.options.length;
  const flags = (row: string): string => sheet.span(ctx.choice, [row, opt(0)], [row, opt(n - 1)], true);
  const col = (key: string): string =>
    sheet.span(breakEven, [breakEven.rows[0], key], [breakEven.rows[breakEven.rows.length - 1], key], true);
  const sym = input.currency.length === 1 ? input.currency : `${input.currency} `;
  const moneyF = (x: string): string =>
    `IF(AND(${x}<0,ROUND(ABS(${x}),0)<>0),"${MINUS}","")&"${sym}"&TEXT(ROUND(ABS(${x}),0),"#,##0")`;
  const chosenCost = `SUMPRODUCT(${flags("chosen")},${npvs})`;
  const nextCost = `SUMPRODUCT(${flags("next_best")},${npvs})`;
  const lead = `(${nextCost}-${chosenCost})`;
  const name = (row: string): string => `INDEX(${names},MATCH(1,${flags(row)},0))`;
  const hasNext = `SUM(${flags("next_best")})=1`;
  const low =
    `"Low: the lead over "&${name("next_best")}&" ("&${moneyF(lead)}&") is under ${CLOSE} of "&${name("chosen")}` +
    `&"'s net present cost ("&${moneyF(chosenCost)}&")."`;
  const medium = `"${MEDIUM}"`;
  const high =
    `IF(${hasNext},"High: no single input moved within its plausible range changes the choice; the lead is "` +
    `&IF(${chosenCost}=0,${moneyF(lead)}&".",TEXT(${lead}/ABS(${chosenCost})*100,"0.0")&"% of the net present cost."),` +
    `"High: the only option that qualifies; no single input moved within its plausible range changes that.")`;
  return (
    `IF(SUM(${flags("chosen")})=0,"Low: no option qualifies (see Choice and Capacity).",` +
    `IF(AND(${hasNext},${lead}<${CLOSE_LEAD_SHARE}*ABS(${chosenCost})),${low},` +
    `IF(COUNTIF(${col("within")},"yes")>0,${medium},${high})))`
  );
}

/** The recommendation's figures now (as the sheet caches them). */
function cachedFigures(ctx: CaseSheet): {
  choose: string;
  saving: number | string;
  lead: number | string;
  payback: number | string;
} {
  const { input, result, robustness: r } = ctx;
  const c = r.chosen;
  if (c < 0)
    return {
      choose: "none qualifies",
      saving: "n/a",
      lead: "n/a",
      payback: "n/a",
    };
  const notWithin = `not within ${yearsText(input.years)}`;
  return {
    choose: input.options[c].name,
    saving: roundMicro(result.options[0].npv - result.options[c].npv),
    lead: r.lead === null ? "no other option qualifies" : roundMicro(r.lead),
    payback: c === 0 ? "n/a: keep the baseline" : ((result.options[c].vsBaseline as VsBaseline).payback ?? notWithin),
  };
}

/**
 * The verdict, first on the sheet: the basis (years and rate), the option to choose, its NPV saving
 * over the baseline, its lead over the next best qualifying option, its payback, and the confidence.
 */
export function recommendationTable(ctx: CaseSheet): TablePlan {
  const { input, result, sheet, costs, returns } = ctx;
  const n = input.options.length;
  const { npvs, names } = choiceRanges(ctx);
  const k = choiceFormula(ctx);
  const flags = (row: string): string => sheet.span(ctx.choice, [row, opt(0)], [row, opt(n - 1)], true);
  const npv0 = sheet.cell(costs, "npv", opt(0), true);
  const chosenCost = `SUMPRODUCT(${flags("chosen")},${npvs})`;
  const nextCost = `SUMPRODUCT(${flags("next_best")},${npvs})`;
  const paybacks = n > 1 ? sheet.span(returns, [opt(1), "payback"], [opt(n - 1), "payback"], true) : "";
  const now = cachedFigures(ctx);
  const rate = rateCell(ctx);
  const none = `SUM(${flags("chosen")})=0`;
  const rows: CellValue[][] = [
    [
      "Over",
      native(
        `"${yearsText(input.years)} at "&ROUND(${rate}*100,2)&"%"`,
        `${yearsText(input.years)} at ${percent(input.discountRate)}`,
      ),
    ],
    ["Choose", native(`IF(${none},"none qualifies",INDEX(${names},${k}))`, now.choose)],
    [
      `NPV saving over ${input.options[0].name}`,
      native(`IF(${none},"n/a",ROUND(${npv0}-${chosenCost},6))`, now.saving),
    ],
    [
      "Lead over the next best (NPV)",
      native(
        `IF(${none},"n/a",IF(SUM(${flags("next_best")})=0,"no other option qualifies",ROUND(${nextCost}-${chosenCost},6)))`,
        now.lead,
      ),
    ],
    [
      "Payback (years)",
      native(`IF(${none},"n/a",IF(${k}=1,"n/a: keep the baseline",INDEX(${paybacks},${k}-1)))`, now.payback),
    ],
    ["Confidence", native(confidenceFormula(ctx), confidenceText(input, result, ctx.robustness))],
    ["Closest break-even", native(closestFormula(ctx), closestText(input, ctx.robustness))],
    ...runsOutRows(ctx),
  ];
  return makeTable(
    ctx,
    ctx.recommendation,
    [
      { key: "item", header: "Verdict", width: 26, wrap: true },
      { key: "value", header: "As the figures stand", width: 28, wrap: true },
    ],
    rows,
    {
      callout: true,
      cellFormats: [
        { row: 2, col: 1, numFmt: ctx.cur },
        { row: 3, col: 1, numFmt: ctx.cur },
        { row: 4, col: 1, numFmt: "0" },
      ],
    },
  );
}
