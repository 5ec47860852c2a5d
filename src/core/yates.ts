/**
 * Least squares for a balanced full 2^k factorial in ±1 coding by Yates' algorithm (the fast
 * Walsh–Hadamard transform), the O(n + k·2^k) shortcut for what {@link leastSquares} computes in
 * O(n·p²).
 *
 * When every run has each factor at exactly −1 or +1 and each of the 2^k level combinations (cells)
 * appears the same number r ≥ 1 of times, every model column x_S (the product of the factors in a
 * term S) is orthogonal to every other and X'X = n·I, n = r·2^k. Then, exactly,
 *
 *     b_S = x_S'y / n,   diag((X'X)⁻¹) = 1/n,   fitted(cell) = Σ_S b_S·x_S(cell),
 *
 * and all 2^k contrasts x_S'y come from one Walsh–Hadamard transform of the cell totals: with cells
 * indexed by the bit mask of their high factors, W[S] = Σ_c (−1)^|S∩c|·total_c and
 * x_S'y = (−1)^|S|·W[S]. The fitted cell values are the same transform of (−1)^|S|·b_S over the
 * model's terms (zero elsewhere). Rounding: each output is a ±-sum of 2^k inputs formed in k
 * pairwise stages, as accurate as the QR path (the tests compare both to 12 digits).
 *
 * Cost: O(n + k·2^k) time, O(2^k) memory.
 *
 * References: F. Yates (1937), "The design and analysis of factorial experiments", Imperial Bureau
 * of Soil Science; Box, Hunter & Hunter, Statistics for Experimenters (2005), §5.
 */
import type { LeastSquaresResult } from "./least-squares";
import type { ModelTerm } from "./model-matrix";

/** Designs with more factors than this go to the QR path (2^k cells would not fit in memory). */
export const YATES_MAX_FACTORS = 24;

/**
 * The least-squares fit of `terms` when `coded` is a balanced full 2^k factorial in ±1 coding;
 * null when it is not (then use {@link leastSquares}). The result has the same shape and meaning as
 * leastSquares' (no term is aliased in a full factorial).
 *
 * @param coded Coded factor columns, coded[f][i] (from codeFactors), all of length n ≥ 1.
 * @param terms The model's terms (from modelTerms), each a set of factor indices.
 * @param y The response, length n, finite.
 * @returns The fit, or null when the design is not a balanced full 2^k factorial in ±1.
 * @example
 * balancedFactorialFit([[-1, 1, -1, 1]], [{ name: "A", factors: [0] }], [1, 3, 1, 3])?.coefficients; // => [1]
 */
export function balancedFactorialFit(
  coded: readonly (readonly number[])[],
  terms: readonly ModelTerm[],
  y: readonly number[],
): LeastSquaresResult | null {
  const k = coded.length;
  const n = y.length;
  if (k === 0 || k > YATES_MAX_FACTORS || n === 0) return null;
  const cellOf = cellIndices(coded, n);
  if (cellOf === null) return null;
  const size = 2 ** k;
  const totals = new Float64Array(size);
  const counts = new Uint32Array(size);
  for (let i = 0; i < n; i++) {
    totals[cellOf[i]] += y[i];
    counts[cellOf[i]]++;
  }
  const r = counts[0];
  if (r === 0 || counts.some((c) => c !== r)) return null;

  walshHadamard(totals);
  const coefficients = terms.map((t) => (parity(t.factors.length) * totals[maskOf(t)]) / n);
  const u = new Float64Array(size);
  terms.forEach((t, j) => (u[maskOf(t)] = parity(t.factors.length) * coefficients[j]));
  walshHadamard(u); // u[c] is now the fitted value of cell c
  const residuals = new Array<number>(n);
  let rss = 0;
  for (let i = 0; i < n; i++) {
    const e = y[i] - u[cellOf[i]];
    residuals[i] = e;
    rss += e * e;
  }
  return {
    coefficients,
    aliased: terms.map(() => false),
    unscaledVariance: terms.map(() => 1 / n),
    residuals,
    rss,
    rank: terms.length,
    pivot: terms.map((_, j) => j),
  };
}

/** Each run's cell: the bit mask of the factors at +1; null unless every value is exactly ±1. */
function cellIndices(coded: readonly (readonly number[])[], n: number): Uint32Array | null {
  const cell = new Uint32Array(n);
  for (let f = 0; f < coded.length; f++) {
    const col = coded[f];
    const bit = 2 ** f;
    for (let i = 0; i < n; i++) {
      if (col[i] === 1) cell[i] += bit;
      else if (col[i] !== -1) return null;
    }
  }
  return cell;
}

function maskOf(t: ModelTerm): number {
  let m = 0;
  for (const f of t.factors) m += 2 ** f;
  return m;
}

function parity(count: number): number {
  return count % 2 === 0 ? 1 : -1;
}

/** In place: v ← H v with H[s][c] = (−1)^popcount(s & c), by k butterfly stages (unnormalised). */
function walshHadamard(v: Float64Array): void {
  const size = v.length;
  for (let h = 1; h < size; h *= 2) {
    for (let start = 0; start < size; start += 2 * h) {
      for (let j = start; j < start + h; j++) {
        const a = v[j];
        const b = v[j + h];
        v[j] = a + b;
        v[j + h] = a - b;
      }
    }
  }
}
