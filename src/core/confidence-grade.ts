/**
 * The confidence grade of a choice between options: a statement about how far the inputs can move
 * before another option is the cheapest, and how large the lead is — never "High" while one input
 * moved within the range judged plausible for it reverses the choice.
 *
 *     Low     the lead over the next best qualifying option is under 2 % of the smaller of the two
 *             net present costs (a difference estimates of this kind do not resolve), or no option
 *             qualifies;
 *     Medium  otherwise, when some single input moved within its plausible range (±10 % by default,
 *             per input) makes another option cheapest (or leaves none qualifying): its break-even
 *             move is inside that range;
 *     High    otherwise: no plausible single move reverses the choice.
 *
 * Why 2 %: a case's costs are quotes and estimates, each uncertain by several percent, so a lead
 * smaller than that is a difference the inputs do not resolve; 2 % is Capacity Lab's rule (a
 * judgement, not a published constant), the same for every case. The break-even moves come from
 * `break-even.ts`.
 *
 * Cost: O(drivers).
 */
import { DomainError } from "./errors";

export type ConfidenceGrade = "High" | "Medium" | "Low";

/** Below this share of the smaller net present cost a lead is the lowest grade. */
export const CLOSE_LEAD_SHARE = 0.02;

/** One input's break-even move as a share of its value, and the share judged plausible for it. */
export interface DriverMove {
  /** |move| / |base value| of the nearest move that reverses the choice (Infinity when none does). */
  share: number;
  /** The plausible move for this input, as a share (0.1 for ±10 %). */
  plausible: number;
}

/**
 * The grade of a choice (see the module comment).
 *
 * @param lead - the next best qualifying option's net present cost − the chosen one's (≥ 0, currency); null when no other option qualifies
 * @param smallerCost - the chosen option's net present cost (the smaller of the two; currency); null when no option qualifies
 * @param moves - every driver's nearest reversing move and its plausible range
 * @returns "High", "Medium" or "Low"
 * @throws DomainError for a negative lead or a non-finite cost
 * @example
 * confidenceGrade(1650, 280000, []); // => "Low" (a lead of 0.59 %)
 * confidenceGrade(30000, 250000, [{ share: 0.0135, plausible: 0.1 }]); // => "Medium"
 */
export function confidenceGrade(
  lead: number | null,
  smallerCost: number | null,
  moves: readonly DriverMove[],
): ConfidenceGrade {
  if (smallerCost === null) return "Low";
  if (!Number.isFinite(smallerCost)) throw new DomainError("smallerCost", `must be finite, got ${smallerCost}`, "num");
  if (lead !== null && !(lead >= 0)) throw new DomainError("lead", `must be ≥ 0, got ${lead}`, "num");
  if (lead !== null && lead < CLOSE_LEAD_SHARE * Math.abs(smallerCost)) return "Low";
  return moves.some((m) => m.share <= m.plausible * (1 + 1e-9)) ? "Medium" : "High";
}
