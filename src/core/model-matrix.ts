/**
 * Model matrices for designed experiments: factor coding and R's term order for (a + b + …)^k.
 * Pure; throws only DomainError.
 */
import { DomainError } from "./errors";

export type FactorCoding = "coded" | "raw";

export interface ModelTerm {
  /** "(Intercept)", a factor name, or factor names joined by ":" (R's notation). */
  name: string;
  /** Indices of the factors in the term (empty for the intercept). */
  factors: number[];
}

export interface ModelMatrix {
  terms: ModelTerm[];
  /** One column per term, x[t][i]. */
  columns: number[][];
}

/**
 * Most terms a model may have (intercept included): the full 2¹² model. Beyond it the factorial
 * growth of (f1 + … + fm)^order exhausts memory and time long before a fit could answer.
 */
export const MAX_MODEL_TERMS = 4096;

/**
 * The terms of R's `y ~ (f1 + f2 + … + fm)^order`: main effects in the given order, then all
 * two-factor interactions, then three-factor ones …, each degree in lexicographic order of the factor
 * positions (f1:f2, f1:f3, …, f2:f3, …), as R's `terms()` lists them. Cost O(C(m, ≤order)).
 *
 * @param names Factor names (m ≥ 1).
 * @param order Highest interaction order, a whole number 1 … m (larger values are capped at m).
 * @param intercept Whether "(Intercept)" comes first.
 * @returns The terms.
 * @throws DomainError("order", …) when order is not a whole number ≥ 1, or when the model would have
 *   more than {@link MAX_MODEL_TERMS} terms (checked before any is built).
 * @example
 * modelTerms(["A", "B", "C"], 2, true).map((t) => t.name);
 * // => ["(Intercept)", "A", "B", "C", "A:B", "A:C", "B:C"]
 */
export function modelTerms(names: readonly string[], order: number, intercept: boolean): ModelTerm[] {
  if (!Number.isInteger(order) || order < 1) {
    throw new DomainError("order", `must be a whole number ≥ 1, got ${order}`, "num");
  }
  const m = names.length;
  let count = intercept ? 1 : 0;
  for (let degree = 1, c = 1; degree <= Math.min(order, m); degree++) {
    c = (c * (m - degree + 1)) / degree; // C(m, degree), exact while below 2^53
    count += c;
  }
  if (count > MAX_MODEL_TERMS) {
    throw new DomainError(
      "order",
      `${m} factors to order ${Math.min(order, m)} give ${count} terms, more than ${MAX_MODEL_TERMS}; ` +
        "use a lower order or fewer factors",
      "num",
    );
  }
  const terms: ModelTerm[] = intercept ? [{ name: "(Intercept)", factors: [] }] : [];
  for (let degree = 1; degree <= Math.min(order, m); degree++) {
    const combo = Array.from({ length: degree }, (_, i) => i);
    for (;;) {
      terms.push({ name: combo.map((i) => names[i]).join(":"), factors: [...combo] });
      let i = degree - 1;
      while (i >= 0 && combo[i] === m - degree + i) i--;
      if (i < 0) break;
      combo[i]++;
      for (let j = i + 1; j < degree; j++) combo[j] = combo[j - 1] + 1;
    }
  }
  return terms;
}

/**
 * Codes one factor column into numbers.
 * - Text factor (any text cell): exactly two distinct levels; the alphabetically first (JavaScript
 *   string order) → −1, the second → +1, in either coding (R's contr.FrF2 convention). More than two
 *   levels is an error (this fit has one column per factor).
 * - Numeric factor, "coded": (x − mid) / half-range with mid = (max + min)/2, half = (max − min)/2, so
 *   a two-level factor becomes exactly −1/+1 as in DoE.base; at least two distinct values needed.
 * - Numeric factor, "raw": the numbers as given.
 * Cost O(n log n) for text (sorting the levels), O(n) otherwise.
 *
 * @param name Factor name (for messages).
 * @param values The factor's cells, numbers or text, one per observation.
 * @param coding "coded" | "raw".
 * @returns The coded column.
 * @throws DomainError("factors", …) for a factor with fewer than two levels, a text factor with
 *   more than two, or a non-finite number.
 * @example
 * codeFactor("blk", [4, 8, 4, 8], "coded"); // => [-1, 1, -1, 1]
 */
export function codeFactor(name: string, values: readonly (number | string)[], coding: FactorCoding): number[] {
  if (values.some((v) => typeof v === "string")) {
    const levels = [...new Set(values.map((v) => String(v)))].sort((p, q) => (p < q ? -1 : p > q ? 1 : 0));
    if (levels.length !== 2) {
      throw new DomainError(
        "factors",
        `text factor "${name}" must have exactly 2 levels, got ${levels.length} (${levels.slice(0, 5).join(", ")}); ` +
          "code a factor with more levels as numbers",
        "value",
      );
    }
    return values.map((v) => (String(v) === levels[0] ? -1 : 1));
  }
  const nums = values as readonly number[];
  for (let i = 0; i < nums.length; i++) {
    if (!Number.isFinite(nums[i])) {
      throw new DomainError("factors", `factor "${name}", row ${i + 1} is not a finite number`, "value");
    }
  }
  if (coding === "raw") return [...nums];
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of nums) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (!(hi > lo)) throw new DomainError("factors", `factor "${name}" has only one level (${lo})`, "value");
  const mid = (hi + lo) / 2;
  const half = (hi - lo) / 2;
  return nums.map((v) => (v - mid) / half);
}

/**
 * Checks the factor names and lengths and codes every factor ({@link codeFactor}).
 *
 * @param names Factor names, unique, non-empty.
 * @param columns One array of cells per factor, all the same length n.
 * @param coding "coded" | "raw".
 * @returns The coded columns, coded[f][i].
 * @throws DomainError("factors", …) for no factors, duplicate or empty names, unequal lengths; see codeFactor.
 * @example
 * codeFactors(["A"], [[10, 20]], "coded"); // => [[-1, 1]]
 */
export function codeFactors(
  names: readonly string[],
  columns: readonly (readonly (number | string)[])[],
  coding: FactorCoding,
): number[][] {
  if (names.length === 0) throw new DomainError("factors", "needs at least one factor", "value");
  if (names.length !== columns.length) {
    throw new DomainError("factors", `${names.length} names for ${columns.length} columns`, "value");
  }
  const seen = new Set<string>();
  for (const nm of names) {
    if (nm === "") throw new DomainError("factors", "a factor has an empty name (first row holds the names)", "value");
    if (seen.has(nm)) throw new DomainError("factors", `factor name "${nm}" appears twice`, "value");
    seen.add(nm);
  }
  const n = columns[0].length;
  columns.forEach((c, j) => {
    if (c.length !== n)
      throw new DomainError("factors", `factor "${names[j]}" has ${c.length} values, expected ${n}`, "value");
  });
  return columns.map((c, j) => codeFactor(names[j], c, coding));
}

/**
 * The model matrix columns of `terms` from coded factor columns: each interaction column is the
 * element-wise product of its factors' columns (ones for the intercept). Cost O(n · terms).
 *
 * @param terms From {@link modelTerms}.
 * @param coded From {@link codeFactors}; at least one column.
 * @returns One column per term.
 * @example
 * termColumns([{ name: "A:B", factors: [0, 1] }], [[-1, 1], [1, 1]]); // => [[-1, 1]]
 */
export function termColumns(terms: readonly ModelTerm[], coded: readonly (readonly number[])[]): number[][] {
  const n = coded[0].length;
  return terms.map((t) => {
    const col = new Array<number>(n).fill(1);
    for (const f of t.factors) for (let i = 0; i < n; i++) col[i] *= coded[f][i];
    return col;
  });
}

/**
 * Builds the model matrix of `(f1 + … + fm)^order` (see {@link modelTerms}, {@link codeFactors},
 * {@link termColumns}). Cost O(n · terms).
 *
 * @param names Factor names, unique.
 * @param columns One array of cells per factor, all the same length n.
 * @param order Highest interaction order.
 * @param coding "coded" | "raw".
 * @param intercept Include a column of ones first.
 * @returns The terms and their columns.
 * @throws DomainError("factors", …) for duplicate names or unequal lengths; see codeFactor.
 * @example
 * modelMatrix(["A", "B"], [[-1, 1, -1, 1], [-1, -1, 1, 1]], 2, "coded", true).columns[3]; // => [1, -1, -1, 1]
 */
export function modelMatrix(
  names: readonly string[],
  columns: readonly (readonly (number | string)[])[],
  order: number,
  coding: FactorCoding,
  intercept: boolean,
): ModelMatrix {
  const coded = codeFactors(names, columns, coding);
  const terms = modelTerms(names, order, intercept);
  return { terms, columns: termColumns(terms, coded) };
}
