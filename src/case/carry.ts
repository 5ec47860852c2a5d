/**
 * Whether an option can carry its load at the Sensitivity table's low or high load factor. A
 * workload sized to a target always can (its servers at that load are sized for it); a fixed count
 * (servers given, not sized) cannot once λ·factor·S ≥ servers: the queue is unstable and the wait
 * grows without bound (Kleinrock, Queueing Systems vol. 1, 1975, §3.5). The Scenarios and
 * Sensitivity tables then say so instead of costing the option as if it coped.
 */
import { workloadTimeUnit } from "./capacity-units";
import { CaseInput } from "./input";
import { CaseResult } from "./model";
import { CaseSheet, workloadKey } from "./sheet-context";

/** What a cell says instead of a cost where an option cannot carry its load (after the option's name in the Sensitivity table). */
export const CANNOT_CARRY = "cannot carry its load";
/** The same after two names. */
export const CANNOT_CARRY_BOTH = "cannot carry their load";

/**
 * Whether option `i` has a workload it cannot carry at the load factor `side` (from the input:
 * a fixed count no more than λ·factor·S), as the sheet's {@link cannotCarryFormula} judges it.
 *
 * @example cannotCarryAt(helpdesk, result, 0, "high") // => true (21 agents, 3 calls/min × 1.3 × 6.5 min = 25.35 erlangs)
 */
export function cannotCarryAt(input: CaseInput, result: CaseResult, i: number, side: "low" | "high"): boolean {
  const factor = input.sensitivity.load[side];
  return input.options[i].workloads.some(
    (w, j) =>
      result.options[i].workloads[j] !== undefined &&
      w.sizing.kind === "servers" &&
      w.sizing.servers <= w.arrivalRate * factor * w.serviceTime,
  );
}

/**
 * {@link cannotCarryAt} as a live test over the Capacity table (servers at that load, rate and
 * service time) and the Sensitivity table's load factor: `OR(c ≤ λ·factor·S, …)`; null when the
 * option has no workloads.
 */
export function cannotCarryFormula(ctx: CaseSheet, i: number, side: "low" | "high"): string | null {
  const o = ctx.input.options[i];
  const capacity = ctx.capacity;
  if (!capacity || o.workloads.length === 0) return null;
  const cell = (j: number, col: string): string => ctx.sheet.cell(capacity, workloadKey(i, j), col);
  const service = (j: number): string => {
    const scale = workloadTimeUnit(ctx.input, i, j).scale;
    return scale === 1 ? cell(j, "service_time") : `(${cell(j, "service_time")}/${scale})`;
  };
  const load = ctx.sheet.cell(ctx.sensitivity, "load", side, true);
  const over = o.workloads.map((_, j) => `${cell(j, `servers_${side}`)}<=${cell(j, "rate")}*${load}*${service(j)}`);
  return `OR(${over.join(",")})`;
}
