/**
 * "Runs out in": for each option of a case whose load grows, the first year its installed servers
 * stop meeting a workload's target (`capacity-plan.ts`), in words for the recommendation box and
 * the conclusion, as text from the figures and as a live formula over the Growth table, e.g.
 * "NFS runs out in year 2 at 23% growth; FC does not run out within 5 years."
 */
import { CaseInput } from "./input";
import { CaseResult } from "./model";
import { percent } from "./money-text";
import { CaseSheet, opt, workloadKey, yearsText } from "./sheet-context";
import { CellValue } from "../workbook/plan";

/** The single compound growth of option i's workloads, when it has exactly one growing workload with one. */
function soleGrowth(input: CaseInput, i: number): number | null {
  const growing = input.options[i].workloads.filter((w) => w.growth !== undefined);
  return growing.length === 1 && typeof growing[0].growth === "number" ? growing[0].growth : null;
}

/** The options the runs-out words are about: those with servers installed (the others buy all they need). */
function withInstalled(result: CaseResult): number[] {
  return result.options.map((o, i) => (o.runsOutIn === undefined ? -1 : i)).filter((i) => i >= 0);
}

/** Said when no option has servers installed. */
const NONE_INSTALLED = "No option has servers installed: each buys what it needs from year 0.";

/** The runs-out words of every option with servers installed, as text now. */
export function runsOutText(input: CaseInput, result: CaseResult): string {
  const parts: string[] = [];
  withInstalled(result).forEach((i) => {
    const o = input.options[i];
    const year = result.options[i].runsOutIn;
    const g = soleGrowth(input, i);
    parts.push(
      year === null || year === undefined
        ? `${o.name} does not run out within ${yearsText(input.years)}`
        : `${o.name} runs out in year ${year}${g === null ? "" : ` at ${percent(g)} growth`}`,
    );
  });
  return parts.length === 0 ? NONE_INSTALLED : parts.join("; ") + ".";
}

/**
 * The same words as a formula over the Growth table (option names from the Costs header). Which
 * options are named is live too: every option with workloads has its part, said only while its
 * installed servers (inputs) add up to more than none, so typing servers in for an option that had
 * none brings it into the words, as `caplab case` would for that input.
 */
export function runsOutFormula(ctx: CaseSheet): string {
  const { input, sheet, costs } = ctx;
  const growth = ctx.growth as NonNullable<CaseSheet["growth"]>;
  const column = (i: number, col: string): string => {
    const n = input.options[i].workloads.length;
    return sheet.span(growth, [workloadKey(i, 0), col], [workloadKey(i, n - 1), col], true);
  };
  const parts: string[] = [];
  input.options.forEach((o, i) => {
    if (o.workloads.length === 0) return;
    const years = column(i, "runs_out");
    const name = sheet.cell(costs, "header", opt(i), true);
    const j = o.workloads.findIndex((w) => w.growth !== undefined);
    const g =
      soleGrowth(input, i) === null
        ? ""
        : `&" at "&ROUND(${sheet.cell(growth, workloadKey(i, j), "growth", true)}*100,2)&"% growth"`;
    parts.push(
      `IF(SUM(${column(i, "installed")})=0,"","; "&IF(COUNT(${years})=0,${name}&" does not run out within ${yearsText(input.years)}",${name}&" runs out in year "&MIN(${years})${g}))`,
    );
  });
  const installed = sheet.span(
    growth,
    [growth.rows[0], "installed"],
    [growth.rows[growth.rows.length - 1], "installed"],
    true,
  );
  const all = parts.join("&");
  return `IF(SUM(${installed})=0,"${NONE_INSTALLED}",MID(${all},3,32767)&".")`;
}

/** Whether an option's installed servers run out within the years (then the conclusion says so). */
export function anyRunsOut(result: CaseResult): boolean {
  return result.options.some((o) => o.runsOutIn !== undefined && o.runsOutIn !== null);
}

/** The conclusion's runs-out sentence (with a leading space), or "" when nothing runs out or nothing grows. */
export function conclusionRunsOut(input: CaseInput, result: CaseResult): string {
  return anyRunsOut(result) ? ` ${runsOutText(input, result)}` : "";
}

/** The same as a formula suffix for the conclusion ("" when the case does not grow). */
export function conclusionRunsOutFormula(ctx: CaseSheet): string {
  if (!ctx.growth) return "";
  const cells = ctx.sheet.span(
    ctx.growth,
    [ctx.growth.rows[0], "runs_out"],
    [ctx.growth.rows[ctx.growth.rows.length - 1], "runs_out"],
    true,
  );
  return `&IF(COUNT(${cells})=0,""," "&${runsOutFormula(ctx)})`;
}

/** The recommendation box's runs-out row ([] when the case does not grow). */
export function runsOutRows(ctx: CaseSheet): CellValue[][] {
  if (!ctx.growth) return [];
  return [["Installed servers run out", { formula: runsOutFormula(ctx), result: runsOutText(ctx.input, ctx.result) }]];
}
