/**
 * Double-double accumulation: a sum of products kept as an unevaluated pair hi + lo of doubles,
 * about 106 bits, with error-free transformations (Knuth's TwoSum, Dekker's TwoProduct with
 * Veltkamp splitting, as JavaScript has no fused multiply-add). Used for the residuals of iterative
 * refinement, which must be computed in more than working precision to gain digits.
 *
 * Valid while products stay below ~1e300 in magnitude (the splitting multiplies by 2²⁷ + 1).
 *
 * Cost: about 20 floating-point operations per accumulated product (measured against mathjs
 * BigNumber at 34 digits in bench/functions.ts: two to three orders of magnitude faster).
 *
 * References: T. J. Dekker (1971), "A floating-point technique for extending the available
 * precision", Numer. Math. 18; D. E. Knuth, TAOCP vol. 2, §4.2.2; Ogita, Rump & Oishi (2005),
 * "Accurate sum and dot product", SIAM J. Sci. Comput. 26.
 */

/** Veltkamp's splitter 2²⁷ + 1: a·SPLITTER separates a double into two 26-bit halves. */
const SPLITTER = 134217729;

/**
 * Accumulates Σ aᵢ·bᵢ (and plain terms) in double-double; read the rounded result with
 * {@link DoubleDoubleSum.value}.
 *
 * @example
 * const s = new DoubleDoubleSum(1e16);
 * s.addProduct(1, 1); s.add(-1e16);
 * s.value(); // => 1 (plain doubles give 0)
 */
export class DoubleDoubleSum {
  private hi: number;
  private lo = 0;

  constructor(start = 0) {
    this.hi = start;
  }

  /** Starts again from `start` (lets a loop reuse one accumulator instead of allocating one per sum). */
  reset(start = 0): this {
    this.hi = start;
    this.lo = 0;
    return this;
  }

  /** Adds x exactly (TwoSum). */
  add(x: number): void {
    const s = this.hi + x;
    const bb = s - this.hi;
    this.lo += this.hi - (s - bb) + (x - bb);
    this.hi = s;
  }

  /** Adds a·b with the product's rounding error (Dekker's TwoProduct). */
  addProduct(a: number, b: number): void {
    const p = a * b;
    let t = SPLITTER * a;
    const ah = t - (t - a);
    const al = a - ah;
    t = SPLITTER * b;
    const bh = t - (t - b);
    const bl = b - bh;
    const e = ah * bh - p + ah * bl + al * bh + al * bl;
    const s = this.hi + p;
    const bb = s - this.hi;
    this.lo += this.hi - (s - bb) + (p - bb) + e;
    this.hi = s;
  }

  /** hi + lo rounded to the nearest double. */
  value(): number {
    return this.hi + this.lo;
  }
}
