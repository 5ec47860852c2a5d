/**
 * Linear least squares by Householder QR with limited column pivoting (LINPACK dqrdc2, as R's lm).
 * Pure; throws only DomainError.
 */
import { DoubleDoubleSum } from "./double-double";
import { DomainError } from "./errors";

export interface LeastSquaresOptions {
  /**
   * Rank tolerance: a column whose norm, after removing its projection on the columns already
   * accepted, falls to ≤ tol × its original norm is declared aliased. Default 1e-10 (R's lm uses
   * 1e-7, which declares a column of NIST's Filip aliased; exact aliasing in a design gives ~1e-16).
   */
  tolerance?: number;
  /**
   * Optional low parts of X in double-double: the exact column j is x[j][i] + lowParts[j][i] (null
   * for a column that is exact in double). The refinement's residuals use them, so the solution is
   * that of the extended-precision data (e.g. powers xᵏ, which rounding to double perturbs by more
   * than NIST Filip's conditioning allows); the QR works on the rounded columns.
   */
  lowParts?: readonly (readonly number[] | null)[];
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
 * Numerics: each column is first scaled by the power of two nearest its Euclidean norm
 * (equilibration, exact, undone afterwards), which makes the tolerance relative and improves the
 * conditioning of polynomial columns (NIST Filip). No normal equations and no inverse of X'X are
 * formed. The solution and residuals come from Björck's iterative refinement of the augmented
 * system with double-double residuals ({@link DoubleDoubleSum}), which reaches working accuracy
 * whenever κ(X)·2⁻⁵³ ≪ 1 — ≥ 11 correct digits on every NIST StRD linear dataset. The
 * standard-error factors diag((X'X)⁻¹) are the squared row norms of R₁₁⁻¹, refined the same way
 * when R is ill-conditioned. Householder vectors follow the LAPACK dlarfg convention
 * (β = −sign(α)‖x‖, so no cancellation).
 *
 * Cost: O(n p²) time for the QR, O(p³) for R⁻¹, O(n p) per refinement step (usually 2–4), and
 * O(n p²) per step for the variances of an ill-conditioned X; O(n p) memory (two copies of X).
 *
 * References: Dongarra et al., LINPACK Users' Guide (dqrdc, dqrsl), 1979; R's src/appl/dqrdc2.f;
 * Golub & Van Loan, Matrix Computations, §5.2 and §5.4; Å. Björck (1967), "Iterative refinement of
 * linear least squares solutions I", BIT 7.
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
  checkInputs(x, y);
  const low = options.lowParts;
  if (low !== undefined && (low.length !== x.length || low.some((c) => c !== null && c.length !== y.length))) {
    throw new DomainError("lowParts", `must have ${x.length} columns of ${y.length} values (or null)`, "value");
  }
  const p = x.length;
  const n = y.length;
  // Working copy, each column scaled by the power of two nearest its norm: the scaling is exact, so
  // the scaled problem has the same residuals and refinement can work on it.
  const scale = new Array<number>(p);
  const a: Float64Array[] = [];
  for (let j = 0; j < p; j++) {
    const nrm = norm2(x[j], 0, n);
    scale[j] = nrm > 0 ? 2 ** Math.round(Math.log2(nrm)) : 1;
    const col = new Float64Array(n);
    for (let i = 0; i < n; i++) col[i] = x[j][i] / scale[j];
    a.push(col);
  }
  const originalNorm = a.map((col) => norm2(col, 0, n)); // about 1, or 0 for a zero column
  const pivot = Array.from({ length: p }, (_, j) => j);
  // Unreduced columns (with their exact low parts, if any), for the residuals.
  const scaled: ExactColumn[] = a.map((col, j) => ({
    hi: Float64Array.from(col),
    lo: low?.[j] ? Float64Array.from(low[j] as readonly number[], (v) => v / scale[j]) : null,
  }));
  const qr = householderQr(a, pivot, originalNorm, n, tol);
  const rank = qr.rank;
  const columns = pivot.slice(0, rank).map((j) => scaled[j]);

  // Solution and residual by Björck's refinement (see refineAugmented): it also removes the
  // κ²·‖r‖ error term that refining b alone leaves (NIST Wampler5, Filip).
  const { solution: bScaled, residual } = refineAugmented(qr, columns, Float64Array.from(y), null);
  const variance = scaledVarianceDiagonal(qr, columns);

  const coefficients: (number | null)[] = new Array(p).fill(null);
  const unscaledVariance: (number | null)[] = new Array(p).fill(null);
  const aliased: boolean[] = new Array(p).fill(true);
  for (let k = 0; k < rank; k++) {
    const j = pivot[k];
    coefficients[j] = bScaled[k] / scale[j];
    unscaledVariance[j] = variance[k] / (scale[j] * scale[j]);
    aliased[j] = false;
  }
  let rss = 0;
  for (let i = 0; i < n; i++) rss += residual[i] * residual[i];
  return { coefficients, aliased, unscaledVariance, residuals: Array.from(residual), rss, rank, pivot };
}

/** Lengths match, at least one column and row, every value finite. */
function checkInputs(x: readonly (readonly number[])[], y: readonly number[]): void {
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
}

/** A column as hi + lo (lo null when the column is exact in double). */
interface ExactColumn {
  hi: Float64Array;
  lo: Float64Array | null;
}

/** Householder QR factors: R above the diagonal of `a` and in `diagR`, reflectors below it. */
interface QrFactors {
  /** Working columns in pivot order: a[j][k] = R[k][j] for k < j; reflector k is (1, a[k][k+1…]). */
  a: Float64Array[];
  tau: Float64Array;
  diagR: Float64Array;
  rank: number;
  n: number;
}

/**
 * Householder QR with dqrdc2's limited pivoting, in place on `a` and `pivot`: a column whose
 * remaining norm is ≤ tol × its original norm is rotated to the end and reported as aliased.
 */
function householderQr(
  a: Float64Array[],
  pivot: number[],
  originalNorm: readonly number[],
  n: number,
  tol: number,
): QrFactors {
  const p = a.length;
  const tau = new Float64Array(p);
  const diagR = new Float64Array(p);
  let rank = 0;
  let last = p; // columns at positions ≥ last are aliased
  const maxRank = Math.min(n, p);
  while (rank < last) {
    const col = a[rank];
    const remaining = rank < n ? norm2(col, rank, n) : 0;
    const norm0 = originalNorm[pivot[rank]];
    if (rank >= maxRank || !(remaining > tol * norm0) || norm0 === 0) {
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
    const inv = 1 / (alpha - beta);
    for (let i = rank + 1; i < n; i++) col[i] *= inv;
    col[rank] = beta;
    tau[rank] = (beta - alpha) / beta;
    diagR[rank] = beta;
    for (let k = rank + 1; k < p; k++) applyReflector(col, tau[rank], rank, n, a[k]);
    rank++;
  }
  return { a, tau, diagR, rank, n };
}

/** Most refinement steps; each gains about −log10(κ·2⁻⁵³) digits, so 2–4 suffice even for Filip. */
const MAX_REFINEMENT_STEPS = 12;

/**
 * Solves the augmented system [I A; Aᵀ 0][r; b] = [y; −e] by Björck's iterative refinement. With
 * e = 0 it is least squares (b = A⁺y, r = y − Ab); with y = 0 and e = eⱼ, b = (AᵀA)⁻¹eⱼ. From
 * b = r = 0 it repeats: f = y − r − Ab and g = −e − Aᵀr in double-double, then with the QR factors
 * h = R⁻ᵀg, d = Qᵀf, δb = R⁻¹(d₁ − h), δr = Q(h; d₂). The first step is the plain QR solution; the
 * later ones correct it until δb is below 2⁻⁵³·‖b‖ or stops shrinking.
 *
 * Reference: Å. Björck (1967), "Iterative refinement of linear least squares solutions I", BIT 7;
 * Björck, Numerical Methods for Least Squares Problems (1996), §2.9.
 */
function refineAugmented(
  qr: QrFactors,
  columns: readonly ExactColumn[],
  y: Float64Array,
  unit: number | null,
): { solution: Float64Array; residual: Float64Array } {
  const { rank, n } = qr;
  const b = new Float64Array(rank);
  const r = new Float64Array(n);
  const f = new Float64Array(n);
  const g = new Float64Array(rank);
  let previous = Infinity;
  for (let step = 0; step < MAX_REFINEMENT_STEPS; step++) {
    augmentedResidual(columns, y, r, b, unit, f, g);
    const { db, dr } = solveAugmented(qr, f, g);
    let sizeDb = 0;
    let sizeB = 0;
    for (let k = 0; k < rank; k++) {
      b[k] += db[k];
      sizeDb = Math.max(sizeDb, Math.abs(db[k]));
      sizeB = Math.max(sizeB, Math.abs(b[k]));
    }
    for (let i = 0; i < n; i++) r[i] += dr[i];
    if (sizeDb <= Number.EPSILON * sizeB || !(sizeDb < previous / 2)) break;
    previous = sizeDb;
  }
  return { solution: b, residual: r };
}

/** f = y − r − Ab and g = −e_unit − Aᵀr, each element accumulated in double-double. */
function augmentedResidual(
  columns: readonly ExactColumn[],
  y: Float64Array,
  r: Float64Array,
  b: Float64Array,
  unit: number | null,
  f: Float64Array,
  g: Float64Array,
): void {
  const n = y.length;
  const acc = new DoubleDoubleSum();
  for (let i = 0; i < n; i++) {
    acc.reset(y[i]);
    acc.add(-r[i]);
    for (let k = 0; k < columns.length; k++) {
      const col = columns[k];
      acc.addProduct(-col.hi[i], b[k]);
      if (col.lo !== null) acc.addProduct(-col.lo[i], b[k]);
    }
    f[i] = acc.value();
  }
  for (let k = 0; k < columns.length; k++) {
    acc.reset(k === unit ? -1 : 0);
    const { hi, lo } = columns[k];
    for (let i = 0; i < n; i++) acc.addProduct(-hi[i], r[i]);
    if (lo !== null) for (let i = 0; i < n; i++) acc.addProduct(-lo[i], r[i]);
    g[k] = acc.value();
  }
}

/** One solve of [I A; Aᵀ 0][δr; δb] = [f; g] with the QR factors of A. */
function solveAugmented(qr: QrFactors, f: Float64Array, g: Float64Array): { db: Float64Array; dr: Float64Array } {
  const { a, tau, diagR, rank, n } = qr;
  // h = R⁻ᵀ g (forward substitution; R[j][k] = a[k][j] for j < k).
  const h = new Float64Array(rank);
  for (let k = 0; k < rank; k++) {
    let s = g[k];
    for (let j = 0; j < k; j++) s -= a[k][j] * h[j];
    h[k] = s / diagR[k];
  }
  // d = Qᵀ f.
  const d = Float64Array.from(f);
  for (let k = 0; k < rank; k++) applyReflector(a[k], tau[k], k, n, d);
  // δb = R⁻¹ (d₁ − h).
  const db = new Float64Array(rank);
  for (let k = rank - 1; k >= 0; k--) {
    let s = d[k] - h[k];
    for (let j = k + 1; j < rank; j++) s -= a[j][k] * db[j];
    db[k] = s / diagR[k];
  }
  // δr = Q (h; d₂): Q = H₀H₁…, so the last reflector is applied first.
  for (let k = 0; k < rank; k++) d[k] = h[k];
  for (let k = rank - 1; k >= 0; k--) applyReflector(a[k], tau[k], k, n, d);
  return { db, dr: d };
}

/**
 * Above this estimate of κ(R), ‖R‖_F·‖R⁻¹‖_F / rank (1 for orthogonal columns, ≤ the 2-norm
 * condition number), the diagonal of (AᵀA)⁻¹ from R⁻¹ may have lost more than ~2 digits (its
 * relative error is about κ·2⁻⁵³), and each element is refined instead.
 */
const VARIANCE_REFINEMENT_CONDITION = 100;

/**
 * diag((AᵀA)⁻¹) in pivot order: the squared row norms of R⁻¹ (no normal equations), each refined
 * through {@link refineAugmented} with y = 0 and e = eⱼ when R is ill-conditioned (O(n·rank) per
 * element and step, so only where it is needed: polynomial fits, not coded designs).
 */
function scaledVarianceDiagonal(qr: QrFactors, columns: readonly ExactColumn[]): Float64Array {
  const { a, diagR, rank, n } = qr;
  // R⁻¹ (upper triangular), by columns: R Rinv = I.
  const rinv: Float64Array[] = Array.from({ length: rank }, () => new Float64Array(rank));
  let normR2 = 0;
  for (let c = 0; c < rank; c++) {
    rinv[c][c] = 1 / diagR[c];
    normR2 += diagR[c] * diagR[c];
    for (let k = c - 1; k >= 0; k--) {
      let s = 0;
      for (let j = k + 1; j <= c; j++) s += a[j][k] * rinv[j][c];
      rinv[k][c] = -s / diagR[k];
      normR2 += a[c][k] * a[c][k];
    }
  }
  const variance = new Float64Array(rank);
  let normRinv2 = 0;
  for (let k = 0; k < rank; k++) {
    let v = 0;
    for (let c = k; c < rank; c++) v += rinv[k][c] * rinv[k][c];
    variance[k] = v;
    normRinv2 += v;
  }
  if (Math.sqrt(normR2 * normRinv2) / rank <= VARIANCE_REFINEMENT_CONDITION) return variance;
  const zero = new Float64Array(n);
  for (let k = 0; k < rank; k++) variance[k] = refineAugmented(qr, columns, zero, k).solution[k];
  return variance;
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
