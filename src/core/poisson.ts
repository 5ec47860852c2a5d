/**
 * The Poisson probability mass p(n; λ) = λⁿ e^{−λ} / n! to full relative precision for large n,
 * by Loader's saddle-point form (the algorithm of R's `dpois`):
 *
 *     p(n; λ) = exp(−stirlerr(n) − bd0(n, λ)) / √(2πn)
 *
 * where stirlerr(n) = ln n! − ln(√(2πn) (n/e)ⁿ) is Stirling's remainder (an asymptotic series in
 * 1/n²) and bd0(n, λ) = n ln(n/λ) + λ − n is the "deviance" term. Writing bd0 = −n·log1pmx(λ/n − 1)
 * with log1pmx(x) = ln(1 + x) − x (@stdlib, a port of Boost's) avoids the cancellation between
 * n ln(n/λ) and λ − n, so the exponent has an absolute error of a few ulps of its value and the
 * result a relative error of a few ulps of max(1, exponent) — the naive λⁿe^{−λ}/n! through lgamma
 * loses ~n·2⁻⁵³ (1e-9 at n = 10⁷).
 *
 * Reference: C. Loader (2000), "Fast and accurate computation of binomial probabilities"; R's
 * src/nmath/dpois.c, stirlerr.c, bd0.c.
 */
import log1pmx from "@stdlib/math-base-special-log1pmx";

/** Stirling-series coefficients 1/12, 1/360, 1/1260, 1/1680, 1/1188 (R's stirlerr.c). */
const S0 = 1 / 12;
const S1 = 1 / 360;
const S2 = 1 / 1260;
const S3 = 1 / 1680;
const S4 = 1 / 1188;

/** The smallest n for which {@link stirlingRemainder} is accurate (R tabulates n ≤ 15 instead). */
export const STIRLING_SERIES_MIN = 16;

/**
 * Stirling's remainder ln n! − ln(√(2πn)(n/e)ⁿ) for n ≥ 16, by the truncated asymptotic series
 * (1/12 − (1/360 − (1/1260 − …)/n²)/n²)/n, with as many terms as R uses for each range; the
 * truncation error is below 1e-17 absolute. Cost: O(1).
 *
 * @param n - a number ≥ {@link STIRLING_SERIES_MIN}
 * @returns the remainder, about 1/(12n)
 * @example
 * stirlingRemainder(100); // => 0.0008333056 (≈ 1/1200)
 */
export function stirlingRemainder(n: number): number {
  const nn = n * n;
  if (n > 500) return (S0 - S1 / nn) / n;
  if (n > 80) return (S0 - (S1 - S2 / nn) / nn) / n;
  if (n > 35) return (S0 - (S1 - (S2 - S3 / nn) / nn) / nn) / n;
  return (S0 - (S1 - (S2 - (S3 - S4 / nn) / nn) / nn) / nn) / n;
}

/**
 * Loader's deviance term bd0(n, λ) = n ln(n/λ) + λ − n ≥ 0: as −n·log1pmx(λ/n − 1) for λ ≥ n/2,
 * where λ − n is exact (Sterbenz) and no cancellation occurs; directly for λ < n/2, where forming
 * λ/n − 1 ≈ −1 would cost the digits of ln(λ/n) and the direct sum cancels at most a factor ~4.
 *
 * @param n - a number > 0
 * @param lambda - the mean λ > 0
 * @returns bd0, 0 when n = λ
 * @example
 * poissonDeviance(10, 10); // => 0
 */
export function poissonDeviance(n: number, lambda: number): number {
  if (lambda < n / 2) return n * Math.log(n / lambda) + lambda - n;
  return -n * log1pmx((lambda - n) / n);
}

/**
 * Poisson probability mass p(n; λ) for a whole number n ≥ {@link STIRLING_SERIES_MIN}, to a few ulps
 * relative (Loader's saddle-point form). Underflows gradually to 0 far in the tails.
 *
 * Cost: O(1) (one log1pmx, one exp, one sqrt).
 *
 * @param n - a whole number ≥ 16
 * @param lambda - the mean λ > 0, finite
 * @returns λⁿ e^{−λ} / n!
 * @example
 * poissonPmf(20, 20); // => 0.08883531739208672
 */
export function poissonPmf(n: number, lambda: number): number {
  return Math.exp(-stirlingRemainder(n) - poissonDeviance(n, lambda)) / Math.sqrt(2 * Math.PI * n);
}
