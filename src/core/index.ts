/**
 * The Capacity Lab core: pure TypeScript math, no Office types, no I/O. One concept per file;
 * this index re-exports them, grouped by topic. Every function throws only `DomainError`.
 */

// Errors
export { DomainError, isDomainError } from "./errors";
export type { DomainErrorKind } from "./errors";

export { ensureFinite } from "./finite";

// Queueing
export {
  erlangB,
  erlangC,
  erlangCFromB,
  erlangBUnchecked,
  erlangBRecursion,
  checkServerCount,
  MAX_SERVERS,
  ERLANG_RECURSION_MAX_SERVERS,
} from "./erlang";
export { poissonPmf } from "./poisson";
export type { ErlangArgumentNames } from "./erlang";
export { mmcMetrics, mmcResponse, mmcServiceLevel, mmcStaff, MMC_ARGUMENT_NAMES, MMC_STAFF_LIMIT } from "./mmc";
export type { MmcMetrics, MmcArgumentNames } from "./mmc";
export { mergeQueues } from "./merge-queues";
export type { SiteInput, SiteResult, MergeResult } from "./merge-queues";

// Finance
export { npv, npvLevel } from "./npv";
export { irr, signChanges } from "./irr";
export { payback } from "./payback";
export { fractionalPayback } from "./payback-fraction";
export { returnMeasure, MEANINGFUL_RATES } from "./return-measure";
export type { ReturnMeasure, ReturnShape } from "./return-measure";
export { levelizedCost } from "./levelized-cost";
export { linearBreakEven, probedBreakEven } from "./break-even";
export type { BreakEven, Switch } from "./break-even";
export { confidenceGrade, CLOSE_LEAD_SHARE } from "./confidence-grade";
export type { ConfidenceGrade, DriverMove } from "./confidence-grade";

// Capacity planning over the years
export { poolPlan, yearlyLoads } from "./capacity-plan";
export type { GrowthRates, PurchasePolicy, PoolPlanInput, PoolPlan, PoolYear, PoolState } from "./capacity-plan";

// Load balancing
export { expectedMaximumNormal, integrate, EXPECTED_MAXIMUM_LIMIT } from "./expected-maximum";
export { lbMaxUtil } from "./load-balancing";
export type { LbMethod } from "./load-balancing";

// Statistics
export { leastSquares } from "./least-squares";
export type { LeastSquaresOptions, LeastSquaresResult } from "./least-squares";
export { linearFit, inverseEstimate } from "./linear-fit-ci";
export type { LinearFitOptions, LinearFitResult, InverseEstimate } from "./linear-fit-ci";
export { batchMeansInterval, DEFAULT_BATCHES } from "./batch-means";
export type { BatchMeansOptions, BatchMeansResult } from "./batch-means";
export { kneeFit, kneeRule } from "./knee-fit";
export type { KneeFitResult } from "./knee-fit";
export { modelTerms, codeFactor, modelMatrix } from "./model-matrix";
export type { FactorCoding, ModelTerm, ModelMatrix } from "./model-matrix";
export { lenthPse } from "./lenth";
export { doeFit } from "./doe-fit";
export type { DoeFitOptions, DoeFitTerm, DoeFitResult } from "./doe-fit";
export { doeFitTable, isMissingValue } from "./doe-fit-table";
export type { DoeFitTableCell, MissingValue } from "./doe-fit-table";
export { doeDesign, DOE_DESIGN_MAX_RUNS } from "./doe-design";
export type { DoeFactor, DoeDesignOptions, DoeRun } from "./doe-design";
export {
  seenEnough,
  windowHalfWidth,
  lag1Autocorrelation,
  ar1Rho,
  ar1Inflation,
  shortestWindow,
  tQuantileCached,
  SEEN_ENOUGH_METHODS,
  SEEN_ENOUGH_DEFAULTS,
  T_EXPANSION_MIN_DF,
  AR1_MAX_RHO,
  AR1_RHO_Z,
  AR1_MIN_WINDOW,
  mserTruncation,
  significantTruncation,
  trendT,
  powerOfTwoScale,
  STEADY_MIN_WINDOW,
  TREND_T_LIMIT,
  DRIFT_WEIGHT,
  RECHECK_FRACTION,
  RECHECK_POINTS,
  TRUNCATION_Z,
  STEADY_STATE_TUNING,
  STEADY_MIN_SECONDS,
  FIRST_CHANCE_TREND_T,
  FIRST_CHANCE_RAMP,
  LEVEL_TREND_T,
  trendLimitAt,
  trendEndLevel,
  warmupInterval,
  seenEnoughWarningText,
} from "./seen-enough";
export type {
  SeenEnoughMethod,
  SeenEnoughOptions,
  SeenEnoughResult,
  SeenEnoughTransient,
  SeenEnoughWarning,
} from "./seen-enough";
