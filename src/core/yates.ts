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
 * model's terms (zero elsewhere).
 *
 * Rounding: a contrast is a ±-sum of n responses whose size is the offset's, while an effect can
 * be 1e10 times smaller (1000 + 1e-9·noise), so a plain transform loses the effects' digits to the
 * offset. Here the response is centred first (d = y − c, c its mean, each difference kept exactly
 * as a double-double pair), and the cell totals and both transforms run in double-double (Knuth's
 * TwoSum), so each effect is the exact contrast rounded once; the intercept is c + b'_∅, and the
 * residuals are d − fitted' in double-double. The tests check 12 digits against 50-digit
 * references (tests/core/fixtures/gen-doe-exact.py) with offsets up to 1e10 × the noise.
 *
 * Cost: O(n + k·2^k) time (about 10 operations per butterfly instead of 2), O(2^k) memory.
 *
 * References: F. Yates (1937), "The design and analysis of factorial experiments", Imperial Bureau
 * of Soil Science; Box, Hunter & Hunter, Statistics for Experimenters (2005), §5.
 */
import { DoubleDoubleSum } from "./double-double";
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
  const counts = new Uint32Array(size);
  for (let i = 0; i < n; i++) counts[cellOf[i]]++;
  const r = counts[0];
  if (r === 0 || counts.some((c) => c !== r)) return null;

  // Centre, exactly: d_i = y_i − c as the pair dHi + dLo (TwoSum).
  const centre = mean(y);
  const dHi = new Float64Array(n);
  const dLo = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const s = y[i] - centre;
    const bb = s - y[i];
    dHi[i] = s;
    dLo[i] = y[i] - (s - bb) - (centre + bb);
  }
  const hi = new Float64Array(size);
  const lo = new Float64Array(size);
  for (let i = 0; i < n; i++) {
    const c = cellOf[i];
    addTo(hi, lo, c, dHi[i], dLo[i]);
  }
  walshHadamard(hi, lo);
  const hasIntercept = terms.some((t) => t.factors.length === 0);
  // Coefficients of the centred response (b'), each the exact contrast rounded once.
  const centred = terms.map((t) => {
    const m = maskOf(t);
    return (parity(t.factors.length) * (hi[m] + lo[m])) / n;
  });
  const coefficients = terms.map((t, j) => (t.factors.length === 0 ? centre + centred[j] : centred[j]));
  const uHi = new Float64Array(size);
  const uLo = new Float64Array(size);
  terms.forEach((t, j) => (uHi[maskOf(t)] = parity(t.factors.length) * centred[j]));
  walshHadamard(uHi, uLo); // the fitted value of each cell, less the centre
  const residuals = new Array<number>(n);
  let rss = 0;
  for (let i = 0; i < n; i++) {
    const c = cellOf[i];
    // e = d − fitted' (+ c without an intercept: then the centre is part of the residual).
    let eHi = dHi[i] - uHi[c];
    let eLo = dLo[i] - uLo[c] + twoDiffError(dHi[i], uHi[c], eHi);
    if (!hasIntercept) {
      const s = eHi + centre;
      eLo += twoDiffError(eHi, -centre, s);
      eHi = s;
    }
    const e = eHi + eLo;
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

/** The mean, summed in double-double and rounded once. */
function mean(y: readonly number[]): number {
  const sum = new DoubleDoubleSum();
  for (const v of y) sum.add(v);
  const m = sum.value() / y.length;
  sum.addProduct(-m, y.length); // what rounding m left over, divided out below
  const rest = sum.value();
  return Number.isFinite(rest) ? m + rest / y.length : m;
}

/** The rounding error of s = a − b (s computed in double): a − b = s + error, exactly (TwoSum). */
function twoDiffError(a: number, b: number, s: number): number {
  const bb = s - a;
  return a - (s - bb) - (b + bb);
}

/** hi[c] + lo[c] += xHi + xLo, in double-double. */
function addTo(hi: Float64Array, lo: Float64Array, c: number, xHi: number, xLo: number): void {
  const a = hi[c];
  const s = a + xHi;
  const bb = s - a;
  const err = a - (s - bb) + (xHi - bb);
  const t = err + lo[c] + xLo;
  const h = s + t;
  hi[c] = h;
  lo[c] = t - (h - s);
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

/**
 * In place: v ← H v with H[s][c] = (−1)^popcount(s & c), by k butterfly stages (unnormalised),
 * v held in double-double as hi + lo (each sum and difference by TwoSum, then renormalised).
 */
function walshHadamard(hi: Float64Array, lo: Float64Array): void {
  const size = hi.length;
  for (let h = 1; h < size; h *= 2) {
    for (let start = 0; start < size; start += 2 * h) {
      for (let j = start; j < start + h; j++) {
        const ah = hi[j];
        const al = lo[j];
        const bh = hi[j + h];
        const bl = lo[j + h];
        let s = ah + bh;
        let bb = s - ah;
        let t = ah - (s - bb) + (bh - bb) + al + bl;
        let x = s + t;
        hi[j] = x;
        lo[j] = t - (x - s);
        s = ah - bh;
        bb = s - ah;
        t = ah - (s - bb) - (bh + bb) + al - bl;
        x = s + t;
        hi[j + h] = x;
        lo[j + h] = t - (x - s);
      }
    }
  }
}
