/**
 * What a rate of return says about a flow of yearly savings (baseline cost − option cost), and
 * whether it says anything: the internal rate of return is only a decision measure for some
 * shapes of flow (Brealey, Myers & Allen, Principles of Corporate Finance, ch. 5, "pitfalls" 1–2).
 *
 * - **Invest, then save** (the first non-zero saving negative, one sign change): the IRR, the rate
 *   below which the option pays; compare it with the discount rate (higher is better).
 * - **Save now, pay later** (the first non-zero saving positive, one sign change): the same
 *   equation has one root, but it is a borrowing rate — the option is a loan taken at that rate,
 *   worth taking when the rate is *below* the discount rate. Showing it as "IRR 17.5 %" beside a
 *   negative NPV saving misleads; it is labelled as a borrowing rate.
 * - **Several sign changes** (a refresh in a later year): the NPV of the savings is a polynomial
 *   in v = 1/(1 + r) with up to that many positive roots (Descartes). The roots are found by a
 *   scan of r over (−99 %, 9,900 %) in 4,000 steps of log v, each sign change bisected. The one
 *   *meaningful* root is the one inside the band of discount rates a case accepts (−50 % to 100 %):
 *   when exactly one root lies there, it decides as an IRR when the NPV falls through it as the
 *   rate rises (invest-like) and as a borrowing rate when the NPV rises through it; with none there
 *   ("at every plausible rate the saving keeps its sign") or two or more ("no single rate: judge by
 *   the NPV saving") no rate is given. A root where the NPV only touches zero (a double root) is
 *   not seen by the scan.
 * - **No sign change**: no rate makes the NPV zero ("saves every year", "costs more every year").
 *
 * The guess: spreadsheets' IRR is Newton's method from a guess (10 % by default, 20 steps in
 * Excel) and fails or finds another root from far away (LibreOffice at −15 %; IRR({−100, 230,
 * −132}) is 10 % from 0 and 20 % from 0.5). {@link returnMeasure} gives the chosen root itself as
 * the guess: Newton starts at it and stays (a rounded guess fails near −100 %: −0.999999996 to six
 * digits is −1, where the NPV divides by zero).
 *
 * Cost: O(N) per NPV evaluation; one sign change ~100 evaluations; several ~4,000 + 60 per root.
 */
import { DomainError } from "./errors";
import { irr, signChanges } from "./irr";

/** The shape of a flow of savings and the rate it has, if any. */
export type ReturnShape = "invest-then-save" | "save-then-pay" | "always-saves" | "never-saves" | "no-rate";

export interface ReturnMeasure {
  /** invest-then-save: an IRR; save-then-pay: a borrowing rate; otherwise no rate. */
  shape: ReturnShape;
  /** The meaningful rate (a fraction per period), or null. */
  rate: number | null;
  /** A guess from which a spreadsheet's IRR converges to `rate` (null with no rate). */
  guess: number | null;
  /** Sign changes between the non-zero savings. */
  signChanges: number;
  /** Every root found in (−99 %, 9,900 %), ascending (several only with several sign changes). */
  roots: number[];
}

/** The band of rates in which a root of a flow with several sign changes is meaningful. */
export const MEANINGFUL_RATES = { low: -0.5, high: 1 } as const;

function npvAtV(flows: readonly number[], v: number): number {
  let s = 0;
  for (let t = flows.length - 1; t >= 0; t--) s = s * v + flows[t];
  return s;
}

/** Roots r of Σ f_t/(1 + r)^t in (−0.99, 99), ascending, by a scan of log v and bisection. */
function scanRoots(flows: readonly number[]): number[] {
  const steps = 4000;
  const [lv0, lv1] = [Math.log(1 / 100), Math.log(1 / 0.01)];
  const vs: number[] = [];
  let prevV = Math.exp(lv0);
  let prevF = npvAtV(flows, prevV);
  for (let k = 1; k <= steps; k++) {
    const v = Math.exp(lv0 + ((lv1 - lv0) * k) / steps);
    const f = npvAtV(flows, v);
    if (f === 0) vs.push(v);
    else if (prevF !== 0 && Math.sign(f) !== Math.sign(prevF)) {
      let [lo, hi, flo] = [prevV, v, prevF];
      for (let i = 0; i < 200 && hi - lo > 4 * Number.EPSILON * hi; i++) {
        const mid = (lo + hi) / 2;
        const fm = npvAtV(flows, mid);
        if (fm === 0) [lo, hi] = [mid, mid];
        else if (Math.sign(fm) === Math.sign(flo)) [lo, flo] = [mid, fm];
        else hi = mid;
      }
      vs.push((lo + hi) / 2);
    }
    [prevV, prevF] = [v, f];
  }
  return vs.map((v) => 1 / v - 1).sort((a, b) => a - b);
}

/** The spreadsheet IRR's guess: the root itself. */
function guessOf(rate: number): number {
  return rate;
}

/**
 * The rate of return of a flow of savings, classified (see the module comment).
 *
 * @param savings - the saving in each period, the first at t = 0 (currency), finite, at least one
 * @returns its shape, the meaningful rate (a fraction per period) or null, a spreadsheet guess, the roots
 * @throws DomainError (`#NUM!`) for a non-finite saving; (`#VALUE!`) for none
 * @example
 * returnMeasure([-150000, 100000, 100000]).rate; // => 0.21525043702153024 (invest, then save)
 * returnMeasure([100000, -60000, -60000]).shape; // => "save-then-pay" (a borrowing rate of 13.07 %)
 */
export function returnMeasure(savings: readonly number[]): ReturnMeasure {
  if (savings.length === 0) throw new DomainError("savings", "needs at least one saving", "value");
  savings.forEach((s, t) => {
    if (!Number.isFinite(s)) throw new DomainError("savings", `the saving at t = ${t} is not finite: ${s}`, "num");
  });
  const changes = signChanges(savings);
  const first = savings.find((s) => s !== 0) ?? 0;
  if (changes === 0) {
    const shape: ReturnShape = first > 0 ? "always-saves" : "never-saves";
    return { shape, rate: null, guess: null, signChanges: 0, roots: [] };
  }
  if (changes === 1) {
    const rate = irr(savings);
    return {
      shape: first < 0 ? "invest-then-save" : "save-then-pay",
      rate,
      guess: guessOf(rate),
      signChanges: 1,
      roots: [rate],
    };
  }
  const roots = scanRoots(savings);
  const inBand = roots.filter((r) => r > MEANINGFUL_RATES.low && r < MEANINGFUL_RATES.high);
  if (inBand.length !== 1) return { shape: "no-rate", rate: null, guess: null, signChanges: changes, roots };
  const rate = inBand[0];
  // The NPV in r falls through the root (invest-like) when it is positive just below it.
  const v = 1 / (1 + rate);
  const below = npvAtV(savings, v * (1 + 1e-6));
  return {
    shape: below > 0 ? "invest-then-save" : "save-then-pay",
    rate,
    guess: guessOf(rate),
    signChanges: changes,
    roots,
  };
}
