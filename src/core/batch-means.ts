/**
 * A confidence interval for the mean of a correlated series (per-second samples of a measurement
 * step) by non-overlapping batch means. Pure; throws only DomainError.
 */
import tQuantile from "@stdlib/stats-base-dists-t-quantile";
import { DomainError } from "./errors";

export interface BatchMeansOptions {
  /** Per-sample weights ≥ 0 (e.g. IOs per second for a mean response time); default all 1. */
  weights?: readonly number[];
  /** Number of batches k wanted (2 or more); default {@link DEFAULT_BATCHES}, fewer when there are fewer samples. */
  batches?: number;
  /** Two-sided confidence level in (0, 1); default 0.95. */
  confidence?: number;
  /**
   * The point estimate to centre the interval on, when it is better than the mean of the batch
   * values (sectioning: the pooled p99 of a step, with the spread of the per-batch p99s); default
   * the weighted mean of the samples used.
   */
  center?: number;
}

export interface BatchMeansResult {
  /** The centre of the interval (`center`, or the weighted mean of the samples used). */
  estimate: number;
  lo: number;
  hi: number;
  /** Half-width t·SD(batch means)/√k. */
  halfWidth: number;
  /** Batches k, samples per batch b, samples left out at the start (m − k·b), degrees of freedom k − 1. */
  batches: number;
  batchSize: number;
  dropped: number;
  df: number;
  /** Lag-1 autocorrelation of the batch means: clearly positive (> 0.2) means batches too short, interval too narrow. */
  lag1: number;
}

/** Schmeiser (1982): with a fixed run length, little is gained beyond 10–30 batches. */
export const DEFAULT_BATCHES = 10;

/**
 * Splits m samples into k contiguous batches of b = ⌊m/k⌋ (the m − k·b oldest samples, nearest
 * the warm-up, are left out), takes each batch's (weighted) mean Ȳⱼ and gives
 * estimate ± t(1 − α/2; k − 1)·S/√k, S the standard deviation of the Ȳⱼ. For a stationary series
 * whose batch means are nearly independent and normal (long enough batches) this is a valid
 * interval for the mean although the samples themselves are correlated, where the naive s/√m
 * would be too narrow. With weights (IOs per second), Ȳⱼ = Σwy/Σw over the batch: the
 * IO-weighted mean response time. Cost O(m).
 *
 * References: Schmeiser, "Batch size effects in the analysis of simulation output", Operations
 * Research 30 (1982) 556–568; Law & Kelton, Simulation Modeling and Analysis (3rd ed., 2000)
 * §9.5.3; for sectioning around a pooled quantile, Nakayama, "Confidence intervals for quantiles
 * using sectioning when applying variance-reduction techniques", ACM TOMACS 24(4) (2014).
 *
 * @param values Samples in time order (finite), at least 2·k' where k' = min(k, ⌊m/2⌋) ≥ 2 — i.e. at least 4.
 * @param options `weights`, `batches`, `confidence`, `center`.
 * @returns the interval, the batching used and the batch means' lag-1 autocorrelation.
 * @throws DomainError("values" | "weights" | "batches" | "confidence", …) on bad input, fewer than 4
 *   samples, or a batch whose weights sum to 0.
 * @example
 * batchMeansInterval([1, 2, 3, 4, 5, 6, 7, 8], { batches: 4 });
 * // => { estimate: 4.5, lo: 0.3915, hi: 8.6085, halfWidth: 4.1085 (rounded), batches: 4, batchSize: 2, dropped: 0, df: 3, lag1: 0.25 }
 */
export function batchMeansInterval(values: readonly number[], options: BatchMeansOptions = {}): BatchMeansResult {
  const { confidence, wanted } = checkedInput(values, options);
  const m = values.length;
  const k = Math.min(wanted, Math.floor(m / 2));
  const b = Math.floor(m / k);
  const dropped = m - k * b;
  const { means, sumWy, sumW } = batchMeans(values, options.weights, k, b, dropped);
  const { sd, lag1 } = spreadOfMeans(means);
  const halfWidth = (tQuantile(1 - (1 - confidence) / 2, k - 1) * sd) / Math.sqrt(k);
  const estimate = options.center ?? sumWy / sumW;
  if (!Number.isFinite(estimate)) throw new DomainError("center", "must be a finite number", "value");
  return {
    estimate,
    lo: estimate - halfWidth,
    hi: estimate + halfWidth,
    halfWidth,
    batches: k,
    batchSize: b,
    dropped,
    df: k - 1,
    lag1,
  };
}

/** The confidence level and the number of batches wanted, once every argument is checked (in this order). */
function checkedInput(values: readonly number[], options: BatchMeansOptions): { confidence: number; wanted: number } {
  const m = values.length;
  const confidence = options.confidence ?? 0.95;
  if (!(confidence > 0 && confidence < 1)) throw new DomainError("confidence", `must be in (0, 1), got ${confidence}`);
  const wanted = options.batches ?? DEFAULT_BATCHES;
  if (!Number.isInteger(wanted) || wanted < 2)
    throw new DomainError("batches", `must be a whole number ≥ 2, got ${wanted}`);
  if (m < 4) throw new DomainError("values", `needs at least 4 samples for a batch-means interval, got ${m}`, "value");
  const w = options.weights;
  if (w !== undefined && w.length !== m)
    throw new DomainError("weights", `must have as many values as the samples (${m}), got ${w.length}`, "value");
  for (let i = 0; i < m; i++) {
    if (!Number.isFinite(values[i])) throw new DomainError("values", `value ${i + 1} is not a finite number`, "value");
    if (w !== undefined && !(w[i] >= 0 && Number.isFinite(w[i])))
      throw new DomainError("weights", `value ${i + 1} must be a finite number ≥ 0`, "value");
  }
  return { confidence, wanted };
}

/**
 * The (weighted) mean of each of the k batches of b samples after the `dropped` oldest, and the
 * weighted sums Σwy and Σw over all the samples used.
 */
function batchMeans(
  values: readonly number[],
  w: readonly number[] | undefined,
  k: number,
  b: number,
  dropped: number,
): { means: number[]; sumWy: number; sumW: number } {
  const means = new Array<number>(k);
  let sumWy = 0;
  let sumW = 0;
  for (let j = 0; j < k; j++) {
    let sy = 0;
    let sw = 0;
    for (let i = dropped + j * b; i < dropped + (j + 1) * b; i++) {
      const wi = w === undefined ? 1 : w[i];
      sy += wi * values[i];
      sw += wi;
    }
    if (!(sw > 0)) throw new DomainError("weights", `batch ${j + 1} of ${k} has zero total weight`, "div0");
    means[j] = sy / sw;
    sumWy += sy;
    sumW += sw;
  }
  return { means, sumWy, sumW };
}

/** The standard deviation of the batch means (k − 1 divisor) and their lag-1 autocorrelation (0 when all equal). */
function spreadOfMeans(means: readonly number[]): { sd: number; lag1: number } {
  const k = means.length;
  const grand = means.reduce((s, v) => s + v, 0) / k;
  let ss = 0;
  let lagged = 0;
  for (let j = 0; j < k; j++) {
    ss += (means[j] - grand) ** 2;
    if (j > 0) lagged += (means[j] - grand) * (means[j - 1] - grand);
  }
  return { sd: Math.sqrt(ss / (k - 1)), lag1: ss > 0 ? lagged / ss : 0 };
}
