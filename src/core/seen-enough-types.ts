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
}

/** The options with their defaults filled in and checked. */
export type SeenEnoughSettings = Required<SeenEnoughOptions>;

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
}

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
