/**
 * The types and defaults of "seen enough & stop" (SEEN_ENOUGH, docs/functions/SEEN_ENOUGH.md), shared
 * by the rule's files: seen-enough.ts (the entry point), seen-enough-precision.ts (the half-width and
 * the precision-only rule), seen-enough-steady.ts (the steady-state rule).
 */
export type SeenEnoughMethod = "iid" | "ivy" | "ar1";

/**
 * Whether the rule first finds where steady state begins ("detect", the default) or judges
 * precision alone on windows ending at the last sample ("off", the rule before transients were
 * considered; for comparison).
 */
export type SeenEnoughTransient = "detect" | "off";

export interface SeenEnoughOptions {
  /** Required relative half-width, a fraction > 0 (default 0.05). */
  accuracy?: number;
  /** Two-sided confidence level in (0, 1) (default 0.95). */
  confidence?: number;
  /** Shortest window considered, a whole number ≥ 1 (default 5). */
  minSamples?: number;
  /** How the half-width is inflated for correlation (default "ar1"). */
  method?: SeenEnoughMethod;
  /** Find the warm-up transient first ("detect", default) or not ("off"). */
  transient?: SeenEnoughTransient;
  /**
   * Length of one subinterval in seconds (> 0), when known. With "detect" the shortest steady-state
   * window is then the longer of 90 samples (or `minSamples`) and {@link STEADY_MIN_SECONDS} seconds;
   * omitted, it counts samples only.
   */
  subintervalSeconds?: number;
}

/** The options with their defaults filled in and checked (`subintervalSeconds` stays optional). */
export type SeenEnoughSettings = Required<Omit<SeenEnoughOptions, "subintervalSeconds">> & {
  subintervalSeconds?: number;
};

/**
 * Seconds of the shortest steady-state window when the subinterval length is known (T). 90 s: the
 * 90-sample floor the Monte Carlo study chose, at iogen's default 1-s subinterval, so a run sampled
 * every 100 ms waits as long as the same run sampled every second (docs/seen-enough.md, "A floor in
 * time"); longer than the write warm-ups recorded on real disks (tests/fixtures/steady-state-real/),
 * 1.5 of SNIA PTS's one-minute rounds, three of fio's `ss_dur=30s` example windows.
 */
export const STEADY_MIN_SECONDS = 90;

/**
 * Why the data may not be steady, whatever the verdict (docs/functions/SEEN_ENOUGH.md, "Warnings"):
 * - "cut moving": where steady state begins moved later by at least ⌈n/10⌉ samples over the last
 *   2⌈n/10⌉ (the warm-up estimate advances at half the rate data arrive or faster);
 * - "variance changing": the noise (mean square successive difference over the mean squared) of the
 *   retained window's two halves differs by more than a factor 4 (2 in standard deviation);
 * - "bursts": the ⌈L/50⌉ samples farthest from the retained window's median hold more than half of
 *   its squared deviations from the median.
 */
export type SeenEnoughWarning = "cut moving" | "variance changing" | "bursts";

/**
 * The check that refused a FALSE answer (docs/functions/SEEN_ENOUGH.md, "Why not"), with the figure it
 * judged (`value`) and the limit that figure had to meet:
 * - "too few samples": fewer samples than the shortest window (value n; limit W, or Lmin with "off");
 * - "warm-up not over": the start found lies past the middle of the series (value D, the samples
 *   judged warm-up; limit n/2);
 * - "window too short": fewer than W samples after the warm-up (value L; limit W);
 * - "level moving": the trend of the retained window is over the limit (value t, signed; limit c(n));
 * - "not precise enough": the relative half-width with the drift allowance is over the accuracy
 *   (value h + 2·|m − m₂|/|m|, "off": the smallest h; limit the accuracy).
 */
export type SeenEnoughRefusal =
  "too few samples" | "warm-up not over" | "window too short" | "level moving" | "not precise enough";

/** Why the answer is FALSE: the first check, in the rule's order, that refused (see {@link SeenEnoughRefusal}). */
export interface SeenEnoughWhyNot {
  refusal: SeenEnoughRefusal;
  /** The figure the check judged (samples, t, or a fraction). */
  value: number;
  /** The limit it had to meet. */
  limit: number;
  /**
   * Samples judged when it refused: n, or n′ = n − j⌈n/10⌉ when the window passed at n but the series'
   * first n′ samples did not look steady (the look back, step 5).
   */
  at: number;
}

export interface SeenEnoughResult {
  /** True when a window passed. */
  seenEnough: boolean;
  /** 1-based index (in `samples`) of the window's first sample. */
  from: number;
  /** Window length. */
  samples: number;
  /** Window mean, in the unit of the samples. */
  mean: number;
  /** The window's relative half-width h (a fraction). */
  achieved: number;
  /** The accuracy asked for (a fraction). */
  required: number;
  /** What set the shortest steady-state window: "samples" (max(90, minSamples)) or "seconds" (T / subintervalSeconds). */
  boundBy: "samples" | "seconds";
  /** The shortest steady-state window, in samples ("off": the shortest window tried). */
  minWindow: number;
  /**
   * Where steady state may have begun: the earliest and latest 1-based sample consistent with the
   * data (fromLow ≤ from ≤ fromHigh; see {@link warmupInterval}); "off": both equal `from`.
   */
  fromLow: number;
  fromHigh: number;
  /**
   * The level to report, unit of the samples: the window mean, or — when the window's trend |t|
   * is at least {@link LEVEL_TREND_T} — the least-squares level at its last sample (a drift not yet over
   * leaves the mean behind the level it is heading to).
   */
  level: number;
  /** The relative half-width of `level` (a fraction): `achieved` for the mean, h_ℓ for the fitted level. */
  levelAchieved: number;
  /** Which level: "mean" or "trend end". */
  levelKind: "mean" | "trend end";
  /** Non-stationarity warnings, empty when none (always empty with "off"). */
  warnings: SeenEnoughWarning[];
  /** Why the answer is FALSE; null when TRUE. */
  whyNot: SeenEnoughWhyNot | null;
}

/** The verdict and window alone, as the precision-only rule ("off") computes them. */
export type SeenEnoughWindow = Pick<
  SeenEnoughResult,
  "seenEnough" | "from" | "samples" | "mean" | "achieved" | "required"
>;

/**
 * The defaults of SEEN_ENOUGH (and of iogen's `--seen-enough`, whose Rust constants a test holds to
 * the same values through tests/vectors/seen_enough_defaults.json): ±5 % at 95 % confidence (Hitachi
 * ivy's measure=on defaults), windows of at least 5 samples, the AR(1) correction.
 */
export const SEEN_ENOUGH_DEFAULTS: Readonly<SeenEnoughSettings> = Object.freeze({
  accuracy: 0.05,
  confidence: 0.95,
  minSamples: 5,
  method: "ar1",
  transient: "detect",
});

/** The methods, in the order the docs list them. */
export const SEEN_ENOUGH_METHODS: readonly SeenEnoughMethod[] = ["iid", "ivy", "ar1"];
