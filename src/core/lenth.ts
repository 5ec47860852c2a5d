/**
 * Lenth's pseudo standard error for unreplicated factorial effects. Pure; throws only DomainError.
 */
import { DomainError } from "./errors";

/**
 * Lenth's (1989) pseudo standard error of m effect estimates b₁ … b_m from an unreplicated
 * two-level design: s₀ = 1.5 · median|b|, PSE = 1.5 · median{|b| : |b| < 2.5 · s₀}. Effects are then
 * judged by t = b / PSE on m/3 degrees of freedom (Lenth's approximation). Assumes the effects have
 * equal variance (orthogonal ±1 coding); the intercept is not an effect and must not be passed.
 * Cost O(m log m).
 *
 * Reference: R. V. Lenth, "Quick and easy analysis of unreplicated factorials", Technometrics 31
 * (1989) 469–473.
 *
 * @param effects The effect estimates (coded units), at least 1, finite.
 * @returns `{ pse, df }`, PSE in the unit of the effects and df = m/3.
 * @throws DomainError("effects", …) when empty, or when the PSE is 0 (more than half the effects 0).
 * @example
 * lenthPse([10, -0.5, 0.3, 0.2, -0.1, 0.4, 0.6]); // => { pse: 0.525 (to rounding), df: 2.333… }
 */
export function lenthPse(effects: readonly number[]): { pse: number; df: number } {
  const m = effects.length;
  if (m === 0) throw new DomainError("effects", "needs at least one effect for Lenth's PSE", "num");
  const abs = effects.map(Math.abs);
  const s0 = 1.5 * median(abs);
  const kept = abs.filter((v) => v < 2.5 * s0);
  const pse = kept.length > 0 ? 1.5 * median(kept) : 0;
  if (!(pse > 0)) throw new DomainError("effects", "Lenth's pseudo standard error is 0 (most effects are 0)", "div0");
  return { pse, df: m / 3 };
}

function median(v: readonly number[]): number {
  const s = [...v].sort((a, b) => a - b);
  const h = s.length >> 1;
  return s.length % 2 ? s[h] : (s[h - 1] + s[h]) / 2;
}
