/**
 * Linear least squares by Householder QR with limited column pivoting (LINPACK dqrdc2, as R's lm).
 * Pure; throws only DomainError.
 */
import { DomainError } from "./errors";

export interface LeastSquaresOptions {
  /**
   * Rank tolerance: a column whose norm, after removing its projection on the columns already
   * accepted, falls to ≤ tol × its original norm is declared aliased. Default 1e-10 (R's lm uses
   * 1e-7, which declares a column of NIST's Filip aliased; exact aliasing in a design gives ~1e-16).
   */
  tolerance?: number;
}

export interface LeastSquaresResult {
  /** Coefficients in the original column order; null for an aliased column. */
  coefficients: (number | null)[];
  /** True for each column found (numerically) linearly dependent on earlier ones. */
  aliased: boolean[];
  /** diag((R'R)⁻¹) per column in the original units (null if aliased): SE_j = σ̂ · √diag_j. */
  unscaledVariance: (number | null)[];
  /** Residuals y − Xb, one per row. */
  residuals: number[];
  /** Residual sum of squares of the refined fit (residuals summed with compensation). */
  rss: number;
  /** Numerical rank (number of non-aliased columns). */
  rank: number;
  /** Column order in which the QR accepted columns: pivot[k] = original column index. */
  pivot: number[];
}

/**
 * Solves min ‖y − Xb‖₂ by Householder QR with limited column pivoting, the variant of LINPACK's
 * dqrdc2 that R's `lm` uses: columns are taken in their given order, and a column whose remaining
 * norm has fallen to ≤ tolerance × its original norm is moved to the end and reported as aliased
 * (never silently dropped). So, as in R, the first of two aliased terms is kept and the later one is
 * flagged, and the surviving columns keep their order.
 *
 * Numerics: each column is first scaled to unit Euclidean norm (equilibration, undone afterwards),
 * which makes the tolerance relative and improves the conditioning of polynomial columns (NIST
 * Filip). No normal equations and no inverse of X'X are formed: b solves R₁₁ b = (Q'y)₁ by back
 * substitution; the standard-error factors are the squared row norms of R₁₁⁻¹ (R⁻¹ is triangular
 * and computed by back substitution), since (X'X)⁻¹ = R⁻¹R⁻ᵀ. Householder vectors follow the
 * LAPACK dlarfg convention (β = −sign(α)‖x‖, so no cancellation).
 *
 * Cost: O(n p²) time for the QR, O(p³) for R⁻¹, O(n p) memory (a copy of X).
 *
 * References: Dongarra et al., LINPACK Users' Guide (dqrdc, dqrsl), 1979; R's src/appl/dqrdc2.f;
 * Golub & Van Loan, Matrix Computations, §5.2 and §5.4.
 *
 * @param x Design matrix as columns: x[j][i] is row i of column j. All columns of length n ≥ 1; finite.
 * @param y Response, length n; finite.
 * @param options.tolerance Rank tolerance (see {@link LeastSquaresOptions}).
 * @returns Coefficients (null where aliased), aliasing flags, diag((R'R)⁻¹), residuals, RSS, rank.
 * @throws DomainError("x" | "y", …) for mismatched lengths, non-finite values or no columns.
 * @example
 * leastSquares([[1, 1, 1], [1, 2, 3]], [1, 2, 3]).coefficients; // => [0, 1] (to rounding)
 */
export function leastSquares(
  x: readonly (readonly number[])[],
  y: readonly number[],
  options: LeastSquaresOptions = {},
): LeastSquaresResult {
  const tol = options.tolerance ?? 1e-10;
  const p = x.length;
  const n = y.length;
  if (p === 0) throw new DomainError("x", "needs at least one column", "value");
  if (n === 0) throw new DomainError("y", "needs at least one value", "value");
  for (let j = 0; j < p; j++) {
    if (x[j].length !== n) {
      throw new DomainError("x", `column ${j + 1} has ${x[j].length} values, y has ${n}`, "value");
    }
    for (let i = 0; i < n; i++) {
      if (!Number.isFinite(x[j][i])) throw new DomainError("x", `column ${j + 1}, row ${i + 1} is not finite`, "value");
    }
  }
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(y[i])) throw new DomainError("y", `row ${i + 1} is not finite`, "value");
  }

  // Working copy, scaled to unit column norms. a[k] is the column now in position k.
  const scale = new Array<number>(p);
  const a: Float64Array[] = [];
  for (let j = 0; j < p; j++) {
    const nrm = norm2(x[j], 0, n);
    scale[j] = nrm > 0 ? nrm : 1;
    const col = new Float64Array(n);
    for (let i = 0; i < n; i++) col[i] = x[j][i] / scale[j];
    a.push(col);
  }
  const originalNorm = a.map((col) => norm2(col, 0, n)); // 1, or 0 for a zero column
  const pivot = Array.from({ length: p }, (_, j) => j);
  const qty = Float64Array.from(y);
  const tau = new Float64Array(p);
  const diagR = new Float64Array(p);

  let rank = 0;
  let last = p; // columns at positions ≥ last are aliased
  const maxRank = Math.min(n, p);
  while (rank < last) {
    const col = a[rank];
    const remaining = rank < n ? norm2(col, rank, n) : 0;
    if (rank >= maxRank || !(remaining > tol * originalNorm[pivot[rank]]) || originalNorm[pivot[rank]] === 0) {
      // Aliased: rotate this column to the end (dqrdc2's limited pivoting), keep the others' order.
      const [c] = a.splice(rank, 1);
      a.push(c);
      const [pv] = pivot.splice(rank, 1);
      pivot.push(pv);
      last--;
      continue;
    }
    // Householder reflector H = I − τ v vᵀ with v[rank] = 1, mapping col[rank…] to (β, 0, …).
    const alpha = col[rank];
    const beta = alpha >= 0 ? -remaining : remaining;
    const t = (beta - alpha) / beta;
    const inv = 1 / (alpha - beta);
    for (let i = rank + 1; i < n; i++) col[i] *= inv;
    col[rank] = beta;
    tau[rank] = t;
    diagR[rank] = beta;
    // Apply to the later columns and to y.
    for (let k = rank + 1; k < p; k++) applyReflector(col, t, rank, n, a[k]);
    applyReflector(col, t, rank, n, qty);
    rank++;
  }

  // Back substitution R₁₁ b = (Q'y)₁ (scaled units).
  const bScaled = new Float64Array(rank);
  for (let k = rank - 1; k >= 0; k--) {
    let s = qty[k];
    for (let j = k + 1; j < rank; j++) s -= r(a, k, j, diagR) * bScaled[j];
    bScaled[k] = s / diagR[k];
  }
  // One step of iterative refinement (Golub & Wilkinson): residual of the scaled system with a
  // compensated (Neumaier) sum, mapped through Q', solved with R₁₁, added to b. It recovers the
  // last digits lost to rounding in near-exact fits (NIST Wampler1: 9.0 → 13+ digits).
  if (rank > 0) {
    const res = scaledResiduals(x, y, pivot, scale, bScaled, rank);
    for (let k = 0; k < rank; k++) applyReflector(a[k], tau[k], k, n, res);
    const delta = new Float64Array(rank);
    for (let k = rank - 1; k >= 0; k--) {
      let v = res[k];
      for (let j = k + 1; j < rank; j++) v -= r(a, k, j, diagR) * delta[j];
      delta[k] = v / diagR[k];
    }
    for (let k = 0; k < rank; k++) bScaled[k] += delta[k];
  }
  // R₁₁⁻¹ (upper triangular), by columns: R Rinv = I.
  const rinv: Float64Array[] = Array.from({ length: rank }, () => new Float64Array(rank));
  for (let c = 0; c < rank; c++) {
    rinv[c][c] = 1 / diagR[c];
    for (let k = c - 1; k >= 0; k--) {
      let s = 0;
      for (let j = k + 1; j <= c; j++) s += r(a, k, j, diagR) * rinv[j][c];
      rinv[k][c] = -s / diagR[k];
    }
  }

  const coefficients: (number | null)[] = new Array(p).fill(null);
  const unscaledVariance: (number | null)[] = new Array(p).fill(null);
  const aliased: boolean[] = new Array(p).fill(true);
  for (let k = 0; k < rank; k++) {
    const j = pivot[k];
    coefficients[j] = bScaled[k] / scale[j];
    let v = 0;
    for (let c = k; c < rank; c++) v += rinv[k][c] * rinv[k][c];
    unscaledVariance[j] = v / (scale[j] * scale[j]);
    aliased[j] = false;
  }
  // RSS from the refined residuals (compensated), which beats Σ (Q'y)_i², i ≥ rank, on near-exact fits.
  let rss = 0;
  for (const e of scaledResiduals(x, y, pivot, scale, bScaled, rank)) rss += e * e;
  const residuals = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    let fit = 0;
    for (let j = 0; j < p; j++) if (coefficients[j] !== null) fit += x[j][i] * (coefficients[j] as number);
    residuals[i] = y[i] - fit;
  }
  return { coefficients, aliased, unscaledVariance, residuals, rss, rank, pivot };
}

/** y − X b for the scaled coefficients, each row summed with Neumaier's compensation. */
function scaledResiduals(
  x: readonly (readonly number[])[],
  y: readonly number[],
  pivot: readonly number[],
  scale: readonly number[],
  bScaled: Float64Array,
  rank: number,
): Float64Array {
  const n = y.length;
  const res = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let sum = y[i];
    let comp = 0;
    for (let k = 0; k < rank; k++) {
      const term = -(x[pivot[k]][i] / scale[pivot[k]]) * bScaled[k];
      const t = sum + term;
      comp += Math.abs(sum) >= Math.abs(term) ? sum - t + term : term - t + sum;
      sum = t;
    }
    res[i] = sum + comp;
  }
  return res;
}

/** R[k][j] for k < j (stored above the diagonal in the working columns). */
function r(a: Float64Array[], k: number, j: number, diagR: Float64Array): number {
  return k === j ? diagR[k] : a[j][k];
}

/** w ← (I − τ v vᵀ) w on rows from…n−1, with v = (1, col[from+1…]). */
function applyReflector(col: Float64Array, tau: number, from: number, n: number, w: Float64Array): void {
  let s = w[from];
  for (let i = from + 1; i < n; i++) s += col[i] * w[i];
  s *= tau;
  w[from] -= s;
  for (let i = from + 1; i < n; i++) w[i] -= s * col[i];
}

/** Euclidean norm of v[from…to−1], scaled to avoid overflow and underflow. */
function norm2(v: ArrayLike<number>, from: number, to: number): number {
  let maxAbs = 0;
  for (let i = from; i < to; i++) maxAbs = Math.max(maxAbs, Math.abs(v[i]));
  if (maxAbs === 0) return 0;
  let s = 0;
  for (let i = from; i < to; i++) {
    const q = v[i] / maxAbs;
    s += q * q;
  }
  return maxAbs * Math.sqrt(s);
}
