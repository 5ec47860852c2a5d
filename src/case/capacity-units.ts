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

/** A unit times are shown in, and the factor from the case's unit to it (1000 for s → ms). */
export interface TimeUnit {
  unit: string;
  scale: number;
}

/**
 * The unit workload j of option i shows its times in on the Capacity and PurchasePlan tables: the
 * one its own service time calls for ({@link shownTimeUnit}), so a 9.1 ms disk beside an 81 µs CPU
 * shows 9.10 ms, not 9100.00 µs.
 *
 * @example workloadTimeUnit({ timeUnit: "s", options: [{ workloads: [{ serviceTime: 0.0091 }] }] }, 0, 0) // => { unit: "ms", scale: 1000 }
 */
export function workloadTimeUnit(
  input: { timeUnit: string; options: readonly { workloads: readonly { serviceTime: number }[] }[] },
  i: number,
  j: number,
): TimeUnit {
  return shownTimeUnit(input.timeUnit, [input.options[i].workloads[j].serviceTime]);
}

/**
 * The one unit every workload's times are shown in, or null when rows differ (then each time cell
 * carries its unit in its number format, and the column headers name none).
 */
export function commonTimeUnit(input: Parameters<typeof workloadTimeUnit>[0]): TimeUnit | null {
  const units = input.options.flatMap((o, i) => o.workloads.map((_, j) => workloadTimeUnit(input, i, j)));
  if (units.length === 0) return null;
  return units.every((u) => u.unit === units[0].unit && u.scale === units[0].scale) ? units[0] : null;
}

/** A time format with the unit after the number ("0.00" → `0.00" ms"`), for a row in a unit of its own. */
export function withUnit(format: string, unit: string): string {
  return `${format}" ${unit.replace(/"/g, "")}"`;
}

/** Decimals that show the smallest time to 3 significant digits (at least 2): 30 → 2, 0.000041 → 7. */
export function timeFormat(times: number[]): string {
  const smallest = Math.min(...times.filter((t) => t > 0));
  const decimals = Math.min(9, Math.max(2, 2 - Math.floor(Math.log10(smallest))));
  return "0." + "0".repeat(decimals);
}

/**
 * The number format of an arrival rate typed in: grouped thousands and the decimals it was given
 * with (at most 6), so 70000 shows as 70,000 and 3.3 as 3.3 (not 3.30, nor 3.).
 *
 * @example rateFormat(70000) // => "#,##0"
 * @example rateFormat(0.05) // => "#,##0.00"
 */
export function rateFormat(rate: number): string {
  let decimals = 0;
  while (decimals < 6 && Math.abs(rate * 10 ** decimals - Math.round(rate * 10 ** decimals)) > 1e-9 * 10 ** decimals)
    decimals++;
  return decimals === 0 ? "#,##0" : "#,##0." + "0".repeat(decimals);
}

/**
 * The number format of computed loads (rates grown year by year): grouped thousands, and decimals
 * enough for the smallest to show 3 significant digits (none from 100 up).
 *
 * @example loadFormat([70000, 86100]) // => "#,##0"
 * @example loadFormat([3, 3.3, 3.63]) // => "#,##0.00"
 */
export function loadFormat(loads: number[]): string {
  const sizes = loads.filter((x) => Number.isFinite(x) && x !== 0).map(Math.abs);
  if (sizes.length === 0) return "#,##0";
  const decimals = Math.min(6, Math.max(0, 2 - Math.floor(Math.log10(Math.min(...sizes)))));
  return decimals === 0 ? "#,##0" : "#,##0." + "0".repeat(decimals);
}
