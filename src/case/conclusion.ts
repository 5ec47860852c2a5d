/**
 * The case's one-line conclusion: as text from the figures, and as a live formula over the Costs
 * and Choice tables. Options that do not qualify are named first with why ("Today cannot carry its
 * load; of the rest, …"); the choice is the cheapest qualifying option (`choice.ts`).
 */
import { choiceFormula, choiceRanges, runnerUpFormula, whyNot } from "./choice";
import { CaseInput } from "./input";
import { CaseResult } from "./model";
import { MINUS, money, percent } from "./money-text";
import { Robustness } from "./robustness";
import { CaseSheet, opt, yearsText } from "./sheet-context";
import { conclusionRunsOut, conclusionRunsOutFormula } from "./runs-out";

/** The break-even sentence of a two-option case; a break-even below zero cannot be a price. */
function breakEvenText(input: CaseInput, result: CaseResult): string {
  const [a, b] = [input.options[0].name, input.options[1].name];
  const be = result.options[1].breakEvenCapex;
  return Math.round(be) < 0
    ? ` ${b} cannot break even with ${a} by its capex alone (it would need a capex below zero).`
    : ` ${b} breaks even with ${a} at a capex of ${money(be, input.currency)}.`;
}

/** The choice and the next best qualifying option of computed figures (as `judgeCase` finds them). */
function choiceOf(result: CaseResult): Pick<Robustness, "chosen" | "runnerUp"> {
  const order = result.options
    .map((o, i) => i)
    .filter((i) => result.options[i].qualifies)
    .sort((a, b) => result.options[a].npv - result.options[b].npv || a - b);
  return {
    chosen: result.chosen,
    runnerUp: order.find((i) => i !== result.chosen) ?? -1,
  };
}

/**
 * The conclusion line: the options left out and why; the choice against the first option (the
 * baseline), or, when the baseline is chosen, what the next best qualifying option would cost more;
 * with two options, the break-even capex of the second.
 */
export function conclusion(
  input: CaseInput,
  result: CaseResult,
  r: Pick<Robustness, "chosen" | "runnerUp"> = choiceOf(result),
): string {
  const opts = result.options;
  const over = `over ${yearsText(input.years)} at ${percent(input.discountRate)}`;
  const cost = (i: number): string => money(opts[i].npv, input.currency);
  const name = (i: number): string => input.options[i].name;
  const left = opts.flatMap((o, i) => (o.qualifies ? [] : [`${name(i)} ${whyNot(input, result, i)}`]));
  const tail = opts.length === 2 ? breakEvenText(input, result) : "";
  if (r.chosen < 0) return `No option qualifies: ${left.join("; ")}.${tail}${conclusionRunsOut(input, result)}`;
  const prefix = left.length > 0 ? `${left.join("; ")}; of the rest, ` : "";
  const k = r.chosen;
  let line: string;
  if (k !== 0 && Math.round(opts[k].difference) > 0)
    // The baseline is left out and costs less: the choice costs more, it does not save.
    line =
      `${name(k)} costs ${money(opts[k].difference, input.currency)} more ${over} than ` +
      `${name(0)} (net present cost ${cost(k)} vs ${cost(0)}).`;
  else if (k !== 0)
    line =
      `${name(k)} saves ${money(-opts[k].difference, input.currency)} ${over} compared with ` +
      `${name(0)} (net present cost ${cost(k)} vs ${cost(0)}).`;
  else if (r.runnerUp < 0) line = `${name(0)} is the only option that qualifies (net present cost ${cost(0)} ${over}).`;
  else {
    const second = r.runnerUp;
    line =
      Math.round(Math.abs(opts[second].difference)) === 0
        ? `${name(0)} and ${name(second)} cost the same ${over} (net present cost ${cost(0)}).`
        : `${name(0)} costs least: ${name(second)} would cost ` +
          `${money(opts[second].difference, input.currency)} more ${over} (net present cost ${cost(second)} vs ${cost(0)}).`;
  }
  return prefix + line + tail + conclusionRunsOut(input, result);
}

/**
 * {@link conclusion} as a native Excel formula, so the line follows the inputs: the same words,
 * the same choice and the same rounding ({@link money}: whole units, grouped; {@link percent}: two
 * decimals at most). No LET, CONCAT or TEXTJOIN, so Excel 2016 and LibreOffice read it. TEXT reads
 * "#,##0" in the reader's locale: where "," is not the thousands separator, a recalculated line may
 * group the figures differently from the cached text.
 */
export function conclusionFormula(ctx: CaseSheet): string {
  const { input, sheet, costs } = ctx;
  const n = input.options.length;
  const row = (r: string): string => sheet.span(costs, [r, opt(0)], [r, opt(n - 1)], true);
  const at = (r: string, i: number): string => sheet.cell(costs, r, opt(i), true);
  const rate = sheet.cell(ctx.assumptions, "value", "discount_rate", true);
  const sym = input.currency.length === 1 ? input.currency : `${input.currency} `;
  const money = (x: string): string =>
    `IF(AND(${x}<0,ROUND(ABS(${x}),0)<>0),"${MINUS}","")&"${sym}"&TEXT(ROUND(ABS(${x}),0),"#,##0")`;
  const over = `"over ${yearsText(input.years)} at "&ROUND(${rate}*100,2)&"%"`;
  const { names, npvs } = choiceRanges(ctx);
  const diffs = row("diff");
  const name0 = at("header", 0);
  const npv0 = at("npv", 0);
  const k = choiceFormula(ctx);
  const second = runnerUpFormula(ctx);
  const hasWhy = ctx.choice.rows.includes("why");
  const leftOut = hasWhy
    ? input.options
        .map((_, i) => {
          const q = sheet.cell(ctx.choice, "qualifies", opt(i), true);
          return `IF(${q}=0,${at("header", i)}&" "&${sheet.cell(ctx.choice, "why", opt(i), true)}&"; ","")`;
        })
        .join("&")
    : `""`;
  const dearer =
    `INDEX(${names},${k})&" costs "&${money(`INDEX(${diffs},${k})`)}&" more "&${over}&" than "&${name0}` +
    `&" (net present cost "&${money(`INDEX(${npvs},${k})`)}&" vs "&${money(npv0)}&")."`;
  const saves =
    `INDEX(${names},${k})&" saves "&${money(`-INDEX(${diffs},${k})`)}&" "&${over}&" compared with "&${name0}` +
    `&" (net present cost "&${money(`INDEX(${npvs},${k})`)}&" vs "&${money(npv0)}&")."`;
  const baseline =
    `IF(${second}=0,${name0}&" is the only option that qualifies (net present cost "&${money(npv0)}&" "&${over}&").",` +
    `IF(ROUND(INDEX(${diffs},${second}),0)=0,${name0}&" and "&INDEX(${names},${second})&" cost the same "&${over}` +
    `&" (net present cost "&${money(npv0)}&").",${name0}&" costs least: "&INDEX(${names},${second})&" would cost "` +
    `&${money(`INDEX(${diffs},${second})`)}&" more "&${over}&" (net present cost "&${money(`INDEX(${npvs},${second})`)}` +
    `&" vs "&${money(npv0)}&")."))`;
  const be = at("break_even", 1);
  const breakEven =
    n === 2
      ? `&IF(ROUND(${be},0)<0," "&${at("header", 1)}&" cannot break even with "&${name0}&" by its capex alone (it would need a capex below zero)."," "&${at("header", 1)}&" breaks even with "&${name0}&" at a capex of "&${money(be)}&".")`
      : "";
  const left = `(${leftOut})`;
  const none = `"No option qualifies: "&LEFT(${left},LEN(${left})-2)&"."`;
  const rest = `IF(LEN(${left})>0,${left}&"of the rest, ","")&IF(${k}<>1,IF(ROUND(INDEX(${diffs},${k}),0)>0,${dearer},${saves}),${baseline})`;
  return `IF(${k}=0,${none},${rest})${breakEven}${conclusionRunsOutFormula(ctx)}`;
}
