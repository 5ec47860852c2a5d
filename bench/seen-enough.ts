/**
 * Monte Carlo study of SEEN_ENOUGH's stopping rule with warm-up transients, run by
 * `npm run bench:seen-enough`.
 *
 * Model: x_t = μ·(1 + f(t)) + e_t, μ = 1000, e_t AR(1) with coefficient ρ ∈ {0, 0.3, 0.6, 0.9} and
 * marginal standard deviation 80 (started in its stationary distribution), f a transient in the mean
 * (the classes below; "none" is f = 0). Each replicate feeds the series one sample at a time, as a
 * generator would, and asks the rule after every new sample; it stops at the first "seen enough"
 * (or at CAP samples: "capped"). All rules see the same series (common random numbers, seeded per
 * class, ρ and replicate).
 *
 * Printed per cell (class × ρ × accuracy), per rule:
 * - cov: share of stopped runs whose reported mean lies within ±accuracy·μ of μ (the steady-state mean);
 * - in-tr: share of all runs that stopped before the transient ended;
 * - med: median samples at stop (capped runs count as CAP), and med/oracle, where
 *   oracle = transient end + ⌈(1.96·σ_eff/(accuracy·μ))²⌉, σ_eff² = 80²(1 + ρ)/(1 − ρ): what a rule
 *   that knew the transient and ρ would need;
 * - stop: share of runs that stopped before CAP.
 * The transient "ends" when its offset is within 1 % of μ for good (exponential decays never end).
 *
 * Rules: the default ("detect"), today's rule ("off": precision only, windows ending at the last
 * sample), and fio's steady-state rules reimplemented from its documentation (HOWTO, "Steady state"):
 * `--steadystate=iops:10%` (every value of the rolling window within ±10 % of the window mean;
 * ss_dur = 30 samples, ss_ramp = 10, as in fio's examples/steadystate.fio) and
 * `--steadystate=iops_slope:0.1%` (least-squares slope of the rolling window below 0.1 % of its mean
 * per sample; ss_dur = 60, ss_ramp = 10). fio's reported mean is taken as the window's mean (its JSON
 * `steadystate` mean), the most favourable reading for fio.
 *
 * Cells whose oracle exceeds CAP (±2 % at ρ = 0.9) are not run.
 *
 * Options: --reps N (default 200), --quick (fewer classes, for development), --candidates (compare
 * candidate rules on the acceptance classes instead; --only TEXT keeps the candidates whose label
 * contains TEXT), --class TEXT (the main table for the classes whose label contains TEXT only, every
 * ρ and accuracy, no frontier: to re-run a few cells with more --reps), --write (replace the
 * seen-enough section of docs/benchmarks.md; not with --candidates or --class).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import seedrandom from "seedrandom";
import {
  ar1Rho,
  lag1Autocorrelation,
  mserTruncation,
  seenEnough,
  significantTruncation,
  steadyStateRule,
  trendT,
  windowHalfWidth,
  SEEN_ENOUGH_DEFAULTS,
  STEADY_STATE_TUNING,
  type SteadyStateTuning,
} from "../src/core/seen-enough";

const MU = 1000;
const SD = 80;
const CONFIDENCE = 0.95;
const CAP = 1200;
const RHOS = [0, 0.3, 0.6, 0.9];
const ACCURACIES = [0.05, 0.02];

/** A transient in the mean: offset f(i) (fraction of μ) of sample i (0-based), and where it ends. */
interface Transient {
  label: string;
  /** In the acceptance set (a transient the default is meant to see) or the frontier. */
  group: "accept" | "frontier";
  offset(i: number): number;
  end: number;
}

function decay(a: number, tau: number, group: Transient["group"]): Transient {
  return {
    label: `decay ${a > 0 ? "+" : "−"}${Math.abs(a * 100)} %, τ ${tau}`,
    group,
    offset: (i) => a * Math.exp(-i / tau),
    end: Math.ceil(tau * Math.log(Math.abs(a) / 0.01)),
  };
}
function ramp(kind: string, a: number, over: number, group: Transient["group"]): Transient {
  return {
    label: `${kind} ${a > 0 ? "+" : "−"}${Math.abs(a * 100)} % over ${over}`,
    group,
    offset: (i) => (i < over ? a * (1 - i / over) : 0),
    end: Math.ceil(over * (1 - 0.01 / Math.abs(a))),
  };
}
function level(a: number, until: number): Transient {
  return {
    label: `level ${a > 0 ? "+" : "−"}${Math.abs(a * 100)} % until ${until}`,
    group: "accept",
    offset: (i) => (i < until ? a : 0),
    end: until,
  };
}
const NONE: Transient = { label: "none", group: "accept", offset: () => 0, end: 0 };

const CLASSES: Transient[] = [
  NONE,
  decay(0.3, 20, "accept"),
  decay(-0.3, 20, "accept"),
  decay(0.2, 40, "accept"),
  decay(0.3, 40, "accept"),
  decay(-0.2, 40, "accept"),
  decay(-0.3, 40, "accept"),
  ramp("ramp", -0.3, 60, "accept"),
  ramp("ramp", 0.3, 60, "accept"),
  ramp("ramp", -0.3, 120, "accept"),
  ramp("ramp", 0.3, 120, "accept"),
  level(0.2, 40),
  level(-0.2, 80),
  level(0.2, 80),
  ramp("drift", 0.1, 100, "accept"),
  ramp("drift", 0.08, 150, "accept"),
  ramp("drift", -0.08, 150, "accept"),
  ramp("drift", -0.12, 150, "accept"),
  decay(0.3, 60, "frontier"),
  decay(-0.3, 60, "frontier"),
  decay(0.3, 200, "frontier"),
  decay(-0.2, 200, "frontier"),
  ramp("drift", 0.1, 300, "frontier"),
  ramp("drift", -0.08, 400, "frontier"),
];

/** The series of one replicate: transient + AR(1) noise with marginal SD 80, seeded. */
function series(tr: Transient, rho: number, rep: number, length: number): number[] {
  const rng = seedrandom(`caplab-seen-enough|${tr.label}|${rho}|${rep}`);
  const normal = (): number => {
    // Box–Muller; 1 − u keeps the log argument in (0, 1].
    const u = 1 - rng();
    const v = rng();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  };
  const sigmaE = SD * Math.sqrt(1 - rho * rho);
  const x: number[] = [];
  let dev = normal() * SD;
  for (let i = 0; i < length; i++) {
    x.push(MU * (1 + tr.offset(i)) + dev);
    dev = rho * dev + sigmaE * normal();
  }
  return x;
}

/** Samples a rule that knew ρ would need for ±accuracy at 95 %. */
function oracleSamples(rho: number, accuracy: number): number {
  const sEff2 = (SD * SD * (1 + rho)) / (1 - rho);
  return Math.ceil((1.96 * 1.96 * sEff2) / (accuracy * MU) ** 2);
}

interface Rule {
  label: string;
  /** Fewest samples at which the rule can stop. */
  first: number;
  /** The stopped window's mean, or undefined to go on. */
  decide(x: readonly number[], accuracy: number): number | undefined;
}

function detectRule(label: string, tuning: SteadyStateTuning): Rule {
  return {
    label,
    first: tuning.minWindow,
    decide(x, accuracy) {
      // Values near 1000 need no scaling (seenEnough divides by a power of two: exact, same answer).
      const v = steadyStateRule(x, 1, { ...SEEN_ENOUGH_DEFAULTS, accuracy, confidence: CONFIDENCE }, tuning);
      // The level the rule reports: the least-squares level at the last sample, or the mean (tuning).
      return v.seenEnough ? v.level : undefined;
    },
  };
}

const DEFAULT_RULE = detectRule("default", { ...STEADY_STATE_TUNING });

/**
 * A "detect" variant whose trend check is replaced: MSER-5 truncation, the minimum window and the
 * precision check as in the default, then `flat(x, d, n)` on the retained window instead of |t| ≤ 1.5.
 */
function variantRule(
  label: string,
  tuning: SteadyStateTuning,
  flat: (x: readonly number[], d: number) => boolean,
): Rule {
  return {
    label,
    first: tuning.minWindow,
    decide(x, accuracy) {
      const opts = { ...SEEN_ENOUGH_DEFAULTS, accuracy, confidence: CONFIDENCE };
      const v = steadyStateRule(x, 1, opts, { ...tuning, trendLimit: Infinity });
      return v.seenEnough && flat(x, v.dropped) ? v.mean : undefined;
    },
  };
}

/** Long-run variance of x[d …] from its detrended residuals (AR(1), bias-corrected ρ) — as trendT. */
function longRunVariance(x: readonly number[], d: number): number {
  const n = x.length;
  const L = n - d;
  let sum = 0;
  for (let i = d; i < n; i++) sum += x[i];
  const mean = sum / L;
  const c = (L - 1) / 2;
  let sxy = 0;
  for (let i = d; i < n; i++) sxy += (i - d - c) * (x[i] - mean);
  const b = sxy / ((L * (L * L - 1)) / 12);
  let sse = 0;
  let lag = 0;
  let prev = 0;
  for (let i = d; i < n; i++) {
    const e = x[i] - mean - b * (i - d - c);
    sse += e * e;
    if (i > d) lag += prev * e;
    prev = e;
  }
  const r = sse > 0 ? lag / sse : 0;
  const rho = Math.min(0.95, Math.max(0, r + (1 + 4 * r) / L));
  return ((sse / (L - 2)) * (1 + rho)) / (1 - rho);
}

/**
 * Schruben, Singh & Tierney's (1983) test for initial bias: T = √45·Σ_k k(1 − k/L)(x̄_L − x̄_k)/(σ̂·L^{3/2}),
 * ≈ N(0, 1) without bias; passes when |T| ≤ limit.
 */
function sstFlat(limit: number) {
  return (x: readonly number[], d: number): boolean => {
    const L = x.length - d;
    let total = 0;
    for (let i = d; i < x.length; i++) total += x[i];
    const mean = total / L;
    let b = 0;
    let acc = 0;
    for (let k = 1; k <= L; k++) {
      b += x[d + k - 1] - mean;
      acc -= b * (1 - k / L); // k(x̄_L − x̄_k) = −B_k
    }
    return Math.abs((Math.sqrt(45) * acc) / (Math.sqrt(longRunVariance(x, d)) * L ** 1.5)) <= limit;
  };
}

/**
 * Heidelberger & Welch's (1983) stationarity test as R coda's heidel.diag computes it on the retained
 * window: Cramér–von Mises statistic of the Brownian bridge B_k = Σ_{i≤k}(Y_i − Ȳ),
 * I = Σ_k B_k² / (L²·S₀), S₀ the spectral density at 0 from the window's second half (here an AR(1)
 * fit); passes when I < 0.461 (5 %).
 */
function cvmFlat(x: readonly number[], d: number): boolean {
  const n = x.length;
  const L = n - d;
  let total = 0;
  for (let i = d; i < n; i++) total += x[i];
  const mean = total / L;
  let b = 0;
  let ss = 0;
  for (let i = d; i < n; i++) {
    b += x[i] - mean;
    ss += b * b;
  }
  const s0 = longRunVariance(x, n - Math.floor(L / 2));
  return ss / (L * L * s0) < 0.461;
}

/**
 * Steps 1–4 with plain MSER-5 and no look back, as the candidates below were first compared (the
 * default's significance test on the truncation came later).
 */
const NO_LOOK_BACK: SteadyStateTuning = {
  ...STEADY_STATE_TUNING,
  recheckFraction: 0,
  truncationZ: 0,
  levelTrendT: Infinity,
  firstRamp: 0,
};

/** A rule that also needs a pass at n − j·⌈n/10⌉ for j = 1 … points (where that is ≥ the rule's first). */
function lookBack(label: string, base: Rule, points: number): Rule {
  return {
    label,
    first: base.first,
    decide(x, accuracy) {
      const mean = base.decide(x, accuracy);
      if (mean === undefined) return undefined;
      const k = Math.ceil(x.length / 10);
      for (let j = 1; j <= points; j++) {
        const n = x.length - j * k;
        if (n < base.first) break;
        if (base.decide(x.slice(0, n), accuracy) === undefined) return undefined;
      }
      return mean;
    },
  };
}

interface LookBackVariant {
  /** z of {@link significantTruncation}; 0 keeps MSER-5's truncation as it is. */
  truncationZ: number;
  /** Look back fraction f. */
  fraction: number;
  /** Look-back points n − j·⌈n·f⌉, j = 1 … points. */
  points: number;
}

/** Steps 1–4 of the default at n samples; below the floor (window < 90) the trend is not judged. */
function stepsAt(
  x: readonly number[],
  n: number,
  accuracy: number,
  floor: number,
  judgeTrend: boolean,
  z: number,
): boolean {
  if (n < floor) return false;
  let d = mserTruncation(x, 0, n);
  d = significantTruncation(x, n, d, "ar1", z);
  if (2 * d > n || n - d < floor) return false;
  if (judgeTrend && Math.abs(trendT(x, d, n, "ar1")) > STEADY_STATE_TUNING.trendLimit) return false;
  const rho = ar1Rho(lag1Autocorrelation(x, d, n), n - d);
  const { mean, h } = windowHalfWidth(x, d, n, CONFIDENCE, "ar1", rho);
  const half = Math.floor((n - d) / 2);
  let sum2 = 0;
  for (let i = n - half; i < n; i++) sum2 += x[i];
  return h + (STEADY_STATE_TUNING.driftWeight * Math.abs(mean - sum2 / half)) / Math.abs(mean) <= accuracy;
}

/**
 * The default with two changes tried against its failing cells: MSER-5's truncation only when
 * significant, and a look back at every stop, also below the 90-sample floor (there, the precision
 * with its drift allowance on the first n′ samples, the trend not judged).
 */
function lookBackVariantRule(label: string, v: LookBackVariant): Rule {
  const floor = STEADY_STATE_TUNING.minWindow;
  return {
    label,
    first: floor,
    decide(x, accuracy) {
      const n = x.length;
      if (!stepsAt(x, n, accuracy, floor, true, v.truncationZ)) return undefined;
      const step = Math.ceil(n * v.fraction);
      for (let j = 1; j <= v.points; j++) {
        const earlier = n - j * step;
        if (earlier < 30) break;
        const ok =
          earlier >= floor
            ? stepsAt(x, earlier, accuracy, floor, true, v.truncationZ)
            : stepsAt(x, earlier, accuracy, 3, false, v.truncationZ);
        if (!ok) return undefined;
      }
      // The reported mean: the retained window's, as the default reports it.
      let d = mserTruncation(x, 0, n);
      d = significantTruncation(x, n, d, "ar1", v.truncationZ);
      let sum = 0;
      for (let i = d; i < n; i++) sum += x[i];
      return sum / (n - d);
    },
  };
}

const CANDIDATES: Rule[] = [
  variantRule("MSER-5 only (W 90)", { ...NO_LOOK_BACK, driftWeight: 0 }, () => true),
  variantRule("MSER-5 + Heidelberger–Welch (W 90)", { ...NO_LOOK_BACK, driftWeight: 0 }, cvmFlat),
  variantRule(
    "MSER-5 + Schruben–Singh–Tierney, abs(T) ≤ 1.5 (W 90)",
    { ...NO_LOOK_BACK, driftWeight: 0 },
    sstFlat(1.5),
  ),
  detectRule("MSER-5 + slope, abs(t) ≤ 1.5 (W 90)", { ...NO_LOOK_BACK, driftWeight: 0 }),
  detectRule("MSER-5 + slope + drift allowance 1× (W 90)", { ...NO_LOOK_BACK, driftWeight: 1 }),
  detectRule("MSER-5 + slope + drift allowance 2× (W 90)", NO_LOOK_BACK),
  detectRule("MSER-5 + slope + drift allowance 3× (W 90)", { ...NO_LOOK_BACK, driftWeight: 3 }),
  lookBack(
    "previous default: MSER-5 + slope + drift allowance 2× + look back 1/10 where ≥ W (W 90)",
    detectRule("steps 1–4", NO_LOOK_BACK),
    1,
  ),
  lookBack(
    "drift allowance 2× + look back 1/10 at two points where ≥ W (W 90)",
    detectRule("steps 1–4", NO_LOOK_BACK),
    2,
  ),
  lookBack(
    "drift allowance 3× + look back 1/10 where ≥ W (W 90)",
    detectRule("steps 1–4", { ...NO_LOOK_BACK, driftWeight: 3 }),
    1,
  ),
  lookBackVariantRule("significant MSER-5 (z 2) + look back 1/10 also below the floor", {
    truncationZ: 2,
    fraction: 0.1,
    points: 1,
  }),
  lookBackVariantRule("significant MSER-5 (z 2) + look back 15 % also below the floor", {
    truncationZ: 2,
    fraction: 0.15,
    points: 1,
  }),
  lookBackVariantRule("significant MSER-5 (z 2) + look back 1/10 at two points, also below the floor", {
    truncationZ: 2,
    fraction: 0.1,
    points: 2,
  }),
  detectRule(
    "default: significant MSER-5 + slope (limit 0.8 at the floor, 1.5 from 1.2× it) + drift allowance 2× + look back at 1/10 and 2/10 of n + fitted level at the last sample (W 90)",
    { ...STEADY_STATE_TUNING },
  ),
  detectRule("previous default (window mean reported, trend limit 1.5 from the floor)", {
    ...STEADY_STATE_TUNING,
    levelTrendT: Infinity,
    firstRamp: 0,
  }),
  detectRule("default reporting the window mean", { ...STEADY_STATE_TUNING, levelTrendT: Infinity }),
  detectRule("default reporting the fitted level only where abs(t) ≥ 1", { ...STEADY_STATE_TUNING, levelTrendT: 1 }),
  detectRule("default reporting the fitted level only where abs(t) ≥ 0.5", {
    ...STEADY_STATE_TUNING,
    levelTrendT: 0.5,
  }),
  detectRule("default without the first-chance calibration (limit 1.5 from the floor)", {
    ...STEADY_STATE_TUNING,
    firstRamp: 0,
  }),
  detectRule("default with first-chance limit 0.67 over 30 %", {
    ...STEADY_STATE_TUNING,
    firstTrendLimit: 0.67,
    firstRamp: 0.3,
  }),
  detectRule("default with plain MSER-5 (no significance test)", { ...STEADY_STATE_TUNING, truncationZ: 0 }),
  detectRule("default with one look-back point", { ...STEADY_STATE_TUNING, recheckPoints: 1 }),
  detectRule("default with W 60", { ...STEADY_STATE_TUNING, minWindow: 60 }),
  detectRule("default with W 120", { ...STEADY_STATE_TUNING, minWindow: 120 }),
  detectRule("default with W 200", { ...STEADY_STATE_TUNING, minWindow: 200 }),
];

const TODAY_RULE: Rule = {
  label: "today",
  first: 30,
  decide(x, accuracy) {
    const r = seenEnough(x, { accuracy, confidence: CONFIDENCE, transient: "off" });
    return r.seenEnough ? r.mean : undefined;
  },
};

/** fio `--steadystate=iops:<limit>%`: max |y − m| over the rolling window, as % of m, below the limit. */
function fioDeviation(limitPct: number, dur: number, ramp: number): Rule {
  return {
    label: `fio iops:${limitPct}%`,
    first: ramp + dur,
    decide(x) {
      const n = x.length;
      if (n < ramp + dur) return undefined;
      let m = 0;
      for (let i = n - dur; i < n; i++) m += x[i];
      m /= dur;
      let dev = 0;
      for (let i = n - dur; i < n; i++) dev = Math.max(dev, Math.abs(x[i] - m));
      return (100 * dev) / m < limitPct ? m : undefined;
    },
  };
}

/** fio `--steadystate=iops_slope:<limit>%`: |least-squares slope| per sample, as % of the window mean. */
function fioSlope(limitPct: number, dur: number, ramp: number): Rule {
  return {
    label: `fio iops_slope:${limitPct}%`,
    first: ramp + dur,
    decide(x) {
      const n = x.length;
      if (n < ramp + dur) return undefined;
      let sy = 0;
      let sxy = 0;
      for (let j = 0; j < dur; j++) {
        sy += x[n - dur + j];
        sxy += j * x[n - dur + j];
      }
      const sx = (dur * (dur - 1)) / 2;
      const sxx = ((dur - 1) * dur * (2 * dur - 1)) / 6;
      const b = (sxy - (sx * sy) / dur) / (sxx - (sx * sx) / dur);
      const m = sy / dur;
      return (100 * Math.abs(b)) / m < limitPct ? m : undefined;
    },
  };
}

const FIO_RULES = [fioDeviation(10, 30, 10), fioSlope(0.1, 60, 10)];

interface Cell {
  coverage: number;
  inTransient: number;
  median: number;
  stopped: number;
}

function runCell(rule: Rule, tr: Transient, rho: number, accuracy: number, reps: number): Cell {
  let covered = 0;
  let stopped = 0;
  let inTransient = 0;
  const stops: number[] = [];
  for (let rep = 0; rep < reps; rep++) {
    const x = series(tr, rho, rep, CAP);
    let stopAt = CAP;
    let mean: number | undefined;
    for (let n = Math.max(2, rule.first); n <= CAP; n++) {
      mean = rule.decide(x.slice(0, n), accuracy);
      if (mean !== undefined) {
        stopAt = n;
        break;
      }
    }
    stops.push(stopAt);
    if (mean === undefined) continue;
    stopped++;
    if (stopAt < tr.end) inTransient++;
    if (Math.abs(mean - MU) <= accuracy * MU) covered++;
  }
  stops.sort((a, b) => a - b);
  const median = reps % 2 === 1 ? stops[(reps - 1) / 2] : (stops[reps / 2 - 1] + stops[reps / 2]) / 2;
  return {
    coverage: stopped > 0 ? covered / stopped : NaN,
    inTransient: inTransient / reps,
    median,
    stopped: stopped / reps,
  };
}

const pct = (v: number): string => (Number.isNaN(v) ? "–" : v.toFixed(2));

function table(
  rules: Rule[],
  classes: Transient[],
  rhos: number[],
  accuracies: number[],
  reps: number,
  lines: string[],
): void {
  const head = ["class", "ρ", "±", "oracle", ...rules.map((r) => `${r.label}: cov / in-tr / med (×or) / stop`)];
  lines.push(`| ${head.join(" | ")} |`);
  lines.push(`| ${head.map((_, i) => (i < 1 ? "---" : "---:")).join(" | ")} |`);
  for (const accuracy of accuracies) {
    for (const tr of classes) {
      for (const rho of rhos) {
        const oracle = tr.end + oracleSamples(rho, accuracy);
        // At ±2 % and ρ = 0.9 a rule that knew ρ would need ~1,170 samples: beyond the cap, not run.
        if (oracle > CAP) continue;
        const cells = rules.map((r) => runCell(r, tr, rho, accuracy, reps));
        const row = [
          tr.label,
          String(rho),
          `${accuracy * 100} %`,
          String(oracle),
          ...cells.map(
            (c) =>
              `${pct(c.coverage)} / ${pct(c.inTransient)} / ${c.median} (${(c.median / oracle).toFixed(1)}) / ${pct(c.stopped)}`,
          ),
        ];
        const line = `| ${row.join(" | ")} |`;
        lines.push(line);
        console.log(line);
      }
    }
  }
}

/** Per rule: worst coverage and cost over the acceptance cells, and the cells that fail. */
function summary(
  rules: Rule[],
  classes: Transient[],
  rhos: number[],
  accuracies: number[],
  reps: number,
  lines: string[],
): void {
  lines.push(
    "| candidate | failing cells | worst coverage | worst cost ratio | failing cells (coverage, median stop, ratio) |",
  );
  lines.push("| --- | ---: | ---: | ---: | --- |");
  for (const rule of rules) {
    const fails: string[] = [];
    let worstRatio = 0;
    let worstCoverage = 1;
    for (const accuracy of accuracies) {
      for (const rho of rhos) {
        const today = classes.some((c) => c === NONE) ? runCell(TODAY_RULE, NONE, rho, accuracy, reps).median : NaN;
        for (const tr of classes) {
          const c = runCell(rule, tr, rho, accuracy, reps);
          const oracle = tr.end + oracleSamples(rho, accuracy);
          const need = rho <= 0.3 ? 0.9 : 0.8;
          const ratio = tr === NONE ? c.median / today : c.median / oracle;
          worstRatio = Math.max(worstRatio, ratio);
          worstCoverage = Math.min(worstCoverage, c.coverage);
          if (c.coverage < need || ratio > 3) {
            fails.push(
              `${tr.label} ρ ${rho} ±${accuracy * 100} %: ${pct(c.coverage)}, ${c.median} (×${ratio.toFixed(1)})`,
            );
          }
        }
      }
    }
    const line = `| ${rule.label} | ${fails.length} | ${pct(worstCoverage)} | ${worstRatio.toFixed(2)} | ${fails.join("; ")} |`;
    lines.push(line);
    console.log(line);
  }
}

function main(): void {
  const args = process.argv.slice(2);
  const repsArg = args.indexOf("--reps");
  const reps = repsArg >= 0 ? Number(args[repsArg + 1]) : 200;
  const write = args.includes("--write");
  const quick = args.includes("--quick");
  const t0 = Date.now();
  const lines: string[] = [];
  const onlyArg = args.indexOf("--only");
  const only = onlyArg >= 0 ? args[onlyArg + 1] : undefined;
  if (args.includes("--candidates")) {
    summary(
      only === undefined ? CANDIDATES : CANDIDATES.filter((r) => r.label.includes(only)),
      CLASSES.filter((c) => c.group === "accept"),
      [0, 0.3, 0.6],
      ACCURACIES,
      reps,
      lines,
    );
  } else {
    const rules = [DEFAULT_RULE, TODAY_RULE, ...FIO_RULES];
    const classArg = args.indexOf("--class");
    const onlyClass = classArg >= 0 ? args[classArg + 1] : undefined;
    const accept = CLASSES.filter((c) =>
      onlyClass === undefined ? c.group === "accept" : c.label.includes(onlyClass),
    );
    lines.push("### Transients the default is meant to see", "");
    table(rules, accept, quick ? [0, 0.3, 0.6] : RHOS, ACCURACIES, reps, lines);
    if (!quick && onlyClass === undefined) {
      lines.push("", "### The frontier: slower transients, and longer minimum windows (min_samples)", "");
      const frontier = [
        DEFAULT_RULE,
        detectRule("min_samples 200", { ...STEADY_STATE_TUNING, minWindow: 200 }),
        detectRule("min_samples 400", { ...STEADY_STATE_TUNING, minWindow: 400 }),
        TODAY_RULE,
      ];
      table(frontier, [NONE, ...CLASSES.filter((c) => c.group === "frontier")], [0, 0.3, 0.6], ACCURACIES, reps, lines);
    }
  }
  const seconds = ((Date.now() - t0) / 1000).toFixed(0);
  console.log(`\n${seconds} s`);
  if (write && !args.includes("--candidates") && !args.includes("--class")) {
    const section = [
      "<!-- BEGIN seen-enough -->",
      "## SEEN_ENOUGH stopping rule with warm-up transients (Monte Carlo)",
      "",
      `Command: \`npm run bench:seen-enough -- --reps ${reps} --write\` (${seconds} s). Machine: ${cpus().length} CPUs, ` +
        `${cpus()[0]?.model ?? "unknown CPU"}, node ${process.version}.`,
      "",
      `Series: μ·(1 + transient) + AR(1) noise (μ = ${MU}, marginal SD ${SD}, ρ as shown), the rule asked after every ` +
        `new sample up to ${CAP} samples; ${reps} seeded runs per cell, the same series for every rule. Each cell: ` +
        "coverage (share of stopped runs whose mean is within ±accuracy of μ) / share of runs stopped before the " +
        "transient ended / median samples at stop (capped runs count as the cap) and, in brackets, that median over the " +
        "oracle (transient end + the AR(1) sample size for the accuracy at known ρ) / share of runs that stopped. " +
        '"default" = SEEN_ENOUGH with the transient check (docs/seen-enough.md); "today" = transient "off"; fio rules ' +
        "reimplemented from fio's HOWTO (iops:10% with ss_dur 30, ss_ramp 10; iops_slope:0.1% with ss_dur 60, ss_ramp 10; " +
        "fio's steady-state window mean). ±2 % at ρ = 0.9 is not run (the oracle alone exceeds the cap).",
      "",
      ...lines,
      "<!-- END seen-enough -->",
    ].join("\n");
    const path = join(__dirname, "..", "docs", "benchmarks.md");
    const text = readFileSync(path, "utf8");
    const re = /<!-- BEGIN seen-enough -->[\s\S]*?<!-- END seen-enough -->/;
    if (!re.test(text)) throw new Error(`${path}: no seen-enough section markers`);
    writeFileSync(path, text.replace(re, section));
    console.log(`wrote ${path}`);
  }
}

main();
