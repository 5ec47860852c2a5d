/**
 * The Capacity Lab core: pure TypeScript math, no Office types, no I/O. One concept per file;
 * this index re-exports them, grouped by topic. Every function throws only `DomainError`.
 */

// Errors
export { DomainError, isDomainError } from "./errors";
export type { DomainErrorKind } from "./errors";

// Queueing
export { erlangB, erlangC, erlangCFromB } from "./erlang";
export type { ErlangArgumentNames } from "./erlang";
export { mmcMetrics, mmcResponse, mmcServiceLevel, mmcStaff, MMC_ARGUMENT_NAMES, MMC_STAFF_LIMIT } from "./mmc";
export type { MmcMetrics, MmcArgumentNames } from "./mmc";
export { mergeQueues } from "./merge-queues";
export type { SiteInput, SiteResult, MergeResult } from "./merge-queues";

// Finance
export { npv, npvLevel } from "./npv";

// Load balancing
export { expectedMaximumNormal, integrate, EXPECTED_MAXIMUM_LIMIT } from "./expected-maximum";
export { lbMaxUtil } from "./load-balancing";
export type { LbMethod } from "./load-balancing";

// Statistics
