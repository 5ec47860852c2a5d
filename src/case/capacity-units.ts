/** Times on the case's Capacity table: the unit they are shown in, their number format, and service times taken from another sheet. */

/**
 * The service-time cell's formula when S is taken from another sheet: the cell (or the mean of
 * the cells), scaled to the case's unit.
 */
export function serviceTimeFormula(ref: string | string[], divisor: number | undefined): string {
  const cells = referencedCells(ref);
  return divisor === undefined || divisor === 1 ? cells : `${cells}/${divisor}`;
}

/** The analysis cell a service time refers to, or the mean of several (before any unit scaling). */
export function referencedCells(ref: string | string[]): string {
  return typeof ref === "string" ? ref : ref.length === 1 ? ref[0] : `AVERAGE(${ref.join(",")})`;
}

/**
 * The unit the Capacity table shows times in: the case's, or a smaller one when the case is in
 * seconds (or milliseconds) and its service times are small, so 0.000081 s shows as 81 µs.
 *
 * @example shownTimeUnit("s", [0.000081, 0.000041]) // => { unit: "µs", scale: 1000000 }
 */
export function shownTimeUnit(timeUnit: string, serviceTimes: number[]): { unit: string; scale: number } {
  const smallest = Math.min(...serviceTimes.filter((t) => t > 0));
  const unit = timeUnit.trim().toLowerCase();
  if (!Number.isFinite(smallest)) return { unit: timeUnit, scale: 1 };
  if (["s", "sec", "second", "seconds"].includes(unit)) {
    if (smallest < 1e-3) return { unit: "µs", scale: 1e6 };
    if (smallest < 0.1) return { unit: "ms", scale: 1e3 };
  }
  if (["ms", "millisecond", "milliseconds"].includes(unit) && smallest < 0.1) return { unit: "µs", scale: 1e3 };
  return { unit: timeUnit, scale: 1 };
}

/** Decimals that show the smallest time to 3 significant digits (at least 2): 30 → 2, 0.000041 → 7. */
export function timeFormat(times: number[]): string {
  const smallest = Math.min(...times.filter((t) => t > 0));
  const decimals = Math.min(9, Math.max(2, 2 - Math.floor(Math.log10(smallest))));
  return "0." + "0".repeat(decimals);
}
