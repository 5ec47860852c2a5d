/** The check beside each workload of the case's Capacity table: cannot carry its load, utilization above the limit, P(wait) above 50 %. */
import { MmcCells } from "./mmc-cells";

/** P(wait) above this is flagged: most arrivals queue. */
export const PWAIT_WARNING = 0.5;

/**
 * The check shown beside a workload's figures (empty when all is well). The sheet computes the
 * same text with {@link checkFormula}.
 *
 * @example checkText(false, 0.945, 0.86, 0.8) // => "Utilization above 80%. P(wait) above 50%."
 */
export function checkText(unstable: boolean, utilization: number, pWait: number, limit: number): string {
  if (unstable) return "Cannot carry its load.";
  const parts: string[] = [];
  // TEXT(limit,"0%") rounds half away from zero, as Math.round does for positive numbers.
  if (utilization > limit) parts.push(`Utilization above ${Math.round(limit * 100)}%.`);
  if (pWait > PWAIT_WARNING) parts.push(`P(wait) above ${PWAIT_WARNING * 100}%.`);
  return parts.join(" ");
}

/** {@link checkText} as a native formula over a workload's cells and the utilization limit's cell. */
export function checkFormula(cells: MmcCells, utilization: string, limit: string): string {
  const a = `(${cells.rate}*${cells.service})`;
  return (
    `IF(${cells.servers}<=${a},"Cannot carry its load.",` +
    `TRIM(IF(${utilization}>${limit},"Utilization above "&TEXT(${limit},"0%")&". ","")` +
    `&IF(${cells.pWait}>${PWAIT_WARNING},"P(wait) above ${PWAIT_WARNING * 100}%.","")))`
  );
}
