/** The case's one-line conclusion: as text from the figures, and as a live formula over the Costs table. */
import { CaseInput } from "./input";
import { CaseResult, cents } from "./model";
import { MINUS, money, percent } from "./money-text";
import { CaseSheet, opt, yearsText } from "./sheet-context";
import { conclusionRunsOut, conclusionRunsOutFormula } from "./runs-out";

/**
 * The conclusion line: the cheapest option against the first (the baseline), or, when the
 * baseline is cheapest, what the runner-up would cost more; with two options, the break-even
 * capex of the second.
 */
export function conclusion(input: CaseInput, result: CaseResult): string {
  const opts = result.options;
  const over = `over ${yearsText(input.years)} at ${percent(input.discountRate)}`;
  const cost = (i: number): string => money(opts[i].npv, input.currency);
  let line: string;
  if (result.cheapest !== 0) {
    const k = result.cheapest;
    line =
      `${input.options[k].name} saves ${money(-opts[k].difference, input.currency)} ${over} compared with ` +
      `${input.options[0].name} (net present cost ${cost(k)} vs ${cost(0)}).`;
  } else {
    let second = 1;
    for (let i = 2; i < opts.length; i++) if (cents(opts[i].npv) < cents(opts[second].npv)) second = i;
    line =
      Math.round(Math.abs(opts[second].difference)) === 0
        ? `${input.options[0].name} and ${input.options[second].name} cost the same ${over} (net present cost ${cost(0)}).`
        : `${input.options[0].name} costs least: ${input.options[second].name} would cost ` +
          `${money(opts[second].difference, input.currency)} more ${over} (net present cost ${cost(second)} vs ${cost(0)}).`;
  }
  if (opts.length === 2) {
    line += ` ${input.options[1].name} breaks even with ${input.options[0].name} at a capex of ${money(opts[1].breakEvenCapex, input.currency)}.`;
  }
  return line + conclusionRunsOut(input, result);
}

/**
 * {@link conclusion} as a native Excel formula over the Costs table, so the line follows the inputs:
 * the same words, the same choice of options (the first lowest net present cost, as MATCH finds
 * it) and the same rounding ({@link money}: whole units, grouped; {@link percent}: two decimals at
 * most). No LET or TEXTJOIN, so Excel 2016 and LibreOffice read it. TEXT reads "#,##0" in the
 * reader's locale: where "," is not the thousands separator, a recalculated line may group the
 * figures differently from the cached text.
 */
export function conclusionFormula(ctx: CaseSheet): string {
  const { input, sheet, costs } = ctx;
  const n = input.options.length;
  const row = (r: string, from = 0): string => sheet.span(costs, [r, opt(from)], [r, opt(n - 1)], true);
  const at = (r: string, i: number): string => sheet.cell(costs, r, opt(i), true);
  const rate = sheet.cell(ctx.assumptions, "value", "discount_rate", true);
  const sym = input.currency.length === 1 ? input.currency : `${input.currency} `;
  const money = (x: string): string =>
    `IF(AND(${x}<0,ROUND(ABS(${x}),0)<>0),"${MINUS}","")&"${sym}"&TEXT(ROUND(ABS(${x}),0),"#,##0")`;
  const over = `"over ${yearsText(input.years)} at "&ROUND(${rate}*100,2)&"%"`;
  const names = row("header");
  const npvs = row("npv");
  const diffs = row("diff");
  const name0 = at("header", 0);
  const npv0 = at("npv", 0);
  // The first option within a cent of the least (as computeCase chooses).
  const first = (range: string): string =>
    range.includes(":") ? `MATCH(TRUE,INDEX(ROUND(${range},2)=ROUND(MIN(${range}),2),0),0)` : "1";
  const k = first(npvs);
  const cheapest =
    `INDEX(${names},${k})&" saves "&${money(`-INDEX(${diffs},${k})`)}&" "&${over}&" compared with "&${name0}` +
    `&" (net present cost "&${money(`INDEX(${npvs},${k})`)}&" vs "&${money(npv0)}&")."`;
  const rest = row("npv", 1);
  const second = `(1+${first(rest)})`;
  const baseline =
    `IF(ROUND(INDEX(${diffs},${second}),0)=0,${name0}&" and "&INDEX(${names},${second})&" cost the same "&${over}` +
    `&" (net present cost "&${money(npv0)}&").",${name0}&" costs least: "&INDEX(${names},${second})&" would cost "` +
    `&${money(`INDEX(${diffs},${second})`)}&" more "&${over}&" (net present cost "&${money(`INDEX(${npvs},${second})`)}` +
    `&" vs "&${money(npv0)}&").")`;
  const breakEven =
    n === 2
      ? `&" "&${at("header", 1)}&" breaks even with "&${name0}&" at a capex of "&${money(at("break_even", 1))}&"."`
      : "";
  return `IF(${k}<>1,${cheapest},${baseline})${breakEven}${conclusionRunsOutFormula(ctx)}`;
}
