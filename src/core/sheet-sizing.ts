/**
 * Whole-server sizing that gives the same count as the case sheet's formulas when Excel or
 * LibreOffice recalculates them.
 *
 * Why: λ·S/u is computed in binary, so round decimal inputs land a hair above a whole number
 * (7/s × 0.1 s / 0.7 = 1.0000000000000002): `Math.ceil` says 2 servers, exact arithmetic 1, and a
 * spreadsheet's ROUNDUP may say either (LibreOffice snaps values within a few ulps of a whole
 * number before rounding, Excel at 15 digits in some functions and not others). So both sides
 * round to **12 significant digits first** — the core with {@link round12}, the sheet with
 * `ROUND(x,11-INT(LOG10(ABS(x))))` — and decide on that: a whole number stays whole in both, and
 * anything else is at least 1e-12 (relative) away from one, far beyond the few ulps in which the
 * two computations can differ. What remains ambiguous is a value sitting within ±1 % of the
 * half-unit of its 12th digit next to a decision: such a target is at double precision's limit and
 * is refused with a message naming it (round inputs never land there).
 *
 * The searches for a response or service-level target compare the candidate's figure with the
 * target after the same rounding (`ROUND(figure) > ROUND(target)` fails a candidate); a figure
 * within 1e-9 of its target that the rounding does not settle the same way in both is refused.
 *
 * Cost: utilization O(1); searches O(log(c* − a)) Erlang C evaluations (as `mmcStaff`).
 * References: IEEE 754 binary64 (Goldberg 1991, "What every computer scientist should know about
 * floating-point arithmetic"); ECMA-262 Number.prototype.toPrecision (exact decimal, ties up).
 */
import { DomainError } from "./errors";
import { MAX_SERVERS, erlangBUnchecked, erlangCFromB, formatShort } from "./erlang";

/** Significant digits both the core and the sheet round to before a sizing decision. */
export const SIZING_DIGITS = 12;

/**
 * `x` rounded to 12 significant digits, as the sheet's `ROUND(x,11-INT(LOG10(ABS(x))))`.
 *
 * @param x - a finite number (0 stays 0)
 * @returns the nearest number with 12 significant digits (ties away from zero)
 * @example round12(7 * 0.1 / 0.7) // => 1
 */
export function round12(x: number): number {
  if (x === 0 || !Number.isFinite(x)) return x;
  return Number(x.toPrecision(SIZING_DIGITS));
}

/**
 * Where `x` sits between two 12-digit values, in units of its 12th digit: 0.5 is exactly half
 * way (the rounding could go either way in another implementation).
 */
function tail(x: number): number {
  const unit = 10 ** (Math.floor(Math.log10(Math.abs(x))) - (SIZING_DIGITS - 1));
  const t = Math.abs(x) / unit;
  return t - Math.floor(t);
}

/** True when `x`'s rounding to 12 digits could go either way (within ±1 % of a half unit). */
function ambiguous(x: number): boolean {
  return x !== 0 && Math.abs(tail(x) - 0.5) < 0.01;
}

/**
 * INT(round12(load)) + 1: the fewest servers for a stable queue, as the sheet computes it.
 *
 * @param load - offered load λ·S in erlangs (> 0)
 * @param field - the input to name when the load is at double precision's limit
 */
export function firstStable(load: number, field: string): number {
  if (ambiguous(load) && Math.abs(load - Math.round(load)) < 1e-9 * Math.max(1, load)) {
    throw new DomainError(field, atLimit(`the offered load ${load}`), "num");
  }
  return Math.floor(round12(load)) + 1;
}

function atLimit(what: string): string {
  return (
    `${what} sits at the limit of double precision next to a whole number of servers, where a ` +
    `spreadsheet may round it the other way; change the input in its last digits`
  );
}

/**
 * The fewest whole servers with utilization λ·S/c ≤ target and λ·S < c (stable), deciding on
 * 12 significant digits as the sheet's `MAX(ROUNDUP(R(λ*S/u),0),INT(R(λ*S))+1)` does.
 *
 * @param load - offered load λ·S in erlangs (> 0)
 * @param utilization - target utilization, a fraction in (0, 1]
 * @param field - the input to name when the target is at double precision's limit
 * @returns the server count
 * @throws DomainError (`#NUM!`) naming `field` when λ·S/u is within ±1 % of a half 12th-digit unit of a whole number
 * @example
 * serversForUtilization(7 * 0.1, 0.7, "utilization"); // => 1 (Math.ceil would say 2)
 */
export function serversForUtilization(load: number, utilization: number, field = "utilization"): number {
  const ratio = load / utilization;
  if (ambiguous(ratio) && Math.abs(ratio - Math.round(ratio)) < 1e-9 * Math.max(1, ratio)) {
    throw new DomainError(field, atLimit(`λ·S/${utilization} = ${ratio}`), "num");
  }
  // Beyond the most servers sized (refused later, naming the count) 12 digits would cut into the
  // whole number itself: the count is then the plain ceiling, for the message.
  if (ratio > MAX_SERVERS) return Math.max(Math.ceil(ratio), Math.floor(load) + 1);
  return Math.max(Math.ceil(round12(ratio)), firstStable(load, field));
}

/** A sizing target for {@link staffForTarget}. */
export type StaffTarget =
  { kind: "wait"; wait: number } | { kind: "serviceLevel"; level: number; answerWithin: number };

/**
 * The smallest c from the first stable count whose figure meets the target, comparing both after
 * rounding to 12 significant digits: the mean wait C·S/(c − a) (not above `wait`), or the service
 * level 1 − C·e^(−(c − a)t/S) (not below `level`).
 *
 * @param serviceTime - S (> 0)
 * @param arrivalRate - λ (> 0), per the unit of S
 * @param target - the wait to stay within, or the service level with its answer time
 * @param field - the input to name in a refusal
 * @returns the server count
 * @throws DomainError (`#NUM!`) naming `field` when a decisive figure is within 1e-9 of the target
 *   and its rounding is ambiguous, or the target needs more than {@link MAX_SERVERS} servers
 * @example
 * staffForTarget(0.1, 5, { kind: "wait", wait: 0.1 }, "response"); // => 1 (M/M/1 at ρ = 0.5 waits exactly 0.1)
 */
export function staffForTarget(serviceTime: number, arrivalRate: number, target: StaffTarget, field: string): number {
  const load = arrivalRate * serviceTime;
  const goal = target.kind === "wait" ? target.wait : target.level;
  const figure = (c: number): number => {
    const pWait = erlangCFromB(c, load, erlangBUnchecked(c, load));
    if (target.kind === "wait") return (pWait * serviceTime) / (c - load);
    return 1 - pWait * Math.exp((-(c - load) * target.answerWithin) / serviceTime);
  };
  const meets = (c: number): boolean => {
    const f = figure(c);
    const near = Math.abs(f - goal) <= 1e-9 * Math.abs(goal);
    if (near && (ambiguous(f) || ambiguous(goal))) {
      throw new DomainError(field, atLimit(`the target ${goal} (${c} servers give ${f})`), "num");
    }
    const a = round12(f);
    const b = round12(goal);
    return target.kind === "wait" ? a <= b : a >= b;
  };
  const first = firstStable(load, field);
  if (first > MAX_SERVERS) {
    throw new DomainError(
      field,
      `needs more than ${MAX_SERVERS} servers just to be stable (load ${formatShort(load)} erlangs)`,
      "num",
    );
  }
  let lo = first - 1;
  let hi = first;
  for (let step = 1; !meets(hi); step *= 2) {
    if (hi >= MAX_SERVERS) throw new DomainError(field, `not reachable with up to ${MAX_SERVERS} servers`, "num");
    lo = hi;
    hi = Math.min(hi + step, MAX_SERVERS);
  }
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (meets(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}
