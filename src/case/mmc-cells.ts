/**
 * M/M/c figures as native spreadsheet formulas, so a case sheet opened without Capacity Lab
 * stays live: change an arrival rate or a service time and the servers, response, wait and
 * P(wait) follow.
 *
 * Erlang C from the Poisson distribution: with a = λ·S erlangs, P(c) = e^−a·a^c/c! (`POISSON(c,
 * a, FALSE)`) and F(c − 1) = Σ_{k<c} e^−a·a^k/k! (`POISSON(c − 1, a, TRUE)`), multiplying the
 * textbook form (a^c/c!·c/(c − a)) / (Σ_{k<c} a^k/k! + a^c/c!·c/(c − a)) above and below by
 * e^−a·(1 − a/c) gives
 *
 *     C(c, a) = P(c) / (P(c) + (1 − a/c)·F(c − 1)),
 *
 * a sum of positive terms (no cancellation). Wq = C·S/(c − a), R = S + Wq, service level
 * P(Wq ≤ t) = 1 − C·e^{−(c − a)·t/S} (Kleinrock, Queueing Systems vol. 1, 1975, §3.5).
 * `POISSON` is the compatibility name of `POISSON.DIST` in Excel (same function) and needs no
 * `_xlfn.` prefix in a file, so LibreOffice reads it too.
 *
 * Fewest servers for a target, natively: the target's metric falls as c grows, so the servers
 * are c0 + the number of candidates c0, c0 + 1, …, c0 + K that miss it, counted with SUMPRODUCT
 * over an array constant {0,1,…,K}, c0 = ⌊a⌋ + 1 (the least stable count). K is chosen when the
 * sheet is built with room for the load to grow (see {@link searchWidth}); a target not met
 * within the window gives #N/A rather than a wrong count.
 *
 * Where the native form is not used ({@link nativeMmc} false: loads above
 * {@link NATIVE_MAX_LOAD} erlangs, or a search window wider than {@link NATIVE_MAX_WINDOW}), the
 * case keeps Capacity Lab's `CAPLAB.MMC_*` formulas: live with the add-in, values in a file
 * written for people without it; the sheet says so. Why the limit: e^−a underflows below the
 * smallest double for a ≳ 745, so a spreadsheet that computes POISSON directly gives 0/0 there;
 * LibreOffice switches to a log-gamma path above a = 712 and stays accurate, Excel's algorithm
 * is undocumented. tests/case/case-recalc.test.ts measures the native form in LibreOffice against
 * `src/core/erlang.ts` over 0.05 ≤ a ≤ {@link NATIVE_MAX_LOAD}.
 */

/** Largest offered load (erlangs) written as native formulas. */
export const NATIVE_MAX_LOAD = 500;
/** Widest search window (candidates) written as a native SUMPRODUCT. */
export const NATIVE_MAX_WINDOW = 200;

/**
 * Cell references (A1) of one workload's row: rate λ, service time S, servers c, P(wait).
 *
 * Times may be shown in a smaller unit than the case's (81 µs rather than 0.000081 s): then
 * `shown` is the service-time cell in the shown unit and `service` is S in the case's unit (an
 * expression such as `(D12/1000000)`), used where S meets the rate (the load a = λ·S). The wait,
 * response and time targets are in the shown unit: Wq = C·S/(c − a) and the targets' tests are
 * linear in S, so writing S in the shown unit gives them in that unit.
 */
export interface MmcCells {
  rate: string;
  service: string;
  /** The service-time cell in the unit times are shown in (default: `service`). */
  shown?: string;
  servers: string;
  pWait: string;
  wait: string;
}

const load = (c: MmcCells): string => `${c.rate}*${c.service}`;
const shownS = (c: MmcCells): string => c.shown ?? c.service;

/** Erlang C for server count `c` (a cell or an array expression) at load `a`, natively. */
function erlangC(c: string, a: string): string {
  const p = `POISSON(${c},${a},FALSE)`;
  return `${p}/(${p}+(1-${a}/${c})*POISSON(${c}-1,${a},TRUE))`;
}

/** P(wait) = C(c, a); 1 when the queue is unstable (c ≤ a: every arrival waits). */
export function pWaitFormula(c: MmcCells): string {
  const a = `(${load(c)})`;
  return `IF(${c.servers}<=${a},1,${erlangC(c.servers, a)})`;
}

/** Mean wait Wq = C·S/(c − a); #N/A when the queue is unstable (the wait grows without bound). */
export function waitFormula(c: MmcCells): string {
  const a = `(${load(c)})`;
  return `IF(${c.servers}<=${a},NA(),${c.pWait}*${shownS(c)}/(${c.servers}-${a}))`;
}

/** Mean response R = S + Wq. */
export function responseFormula(c: MmcCells): string {
  return `${shownS(c)}+${c.wait}`;
}

/** Utilization λ·S/c. */
export function utilizationFormula(c: MmcCells): string {
  return `${load(c)}/${c.servers}`;
}

/**
 * Candidates a native search should cover for a workload that needs `servers` at load `a`: twice
 * the distance from c0 (so the load can grow by well over 30 % before the window runs out) plus
 * room proportional to √a (square-root staffing: c* − a grows like √a; Halfin & Whitt, Operations
 * Research 29(3), 1981).
 *
 * @example searchWidth(8, 7.8) // => 14
 */
export function searchWidth(servers: number, a: number): number {
  const c0 = Math.floor(a) + 1;
  return Math.max(2 * (servers - c0) + 8, Math.ceil(2 * Math.sqrt(a)) + 8);
}

/** Whether a workload's M/M/c figures are written natively (see the module comment). */
export function nativeMmc(a: number, width: number): boolean {
  return a <= NATIVE_MAX_LOAD && width <= NATIVE_MAX_WINDOW;
}

/**
 * `x` rounded to 12 significant digits, as `round12` in src/core/sheet-sizing.ts: the core and the
 * sheet decide server counts on these digits, so a value a hair off a whole number in binary
 * (7 × 0.1 / 0.7 = 1.0000000000000002) is the whole number in both. `+1E-300` keeps LOG10 defined
 * for a zero (ROUND then leaves it 0); `x` may be an array inside SUMPRODUCT.
 */
export function round12Formula(x: string): string {
  return `ROUND(${x},11-INT(LOG10(ABS(${x})+1E-300)))`;
}

/**
 * Fewest servers with utilization λ·S/c ≤ `target` (a cell) and λ·S < c, on 12 significant digits
 * (`serversForUtilization` in src/core/sheet-sizing.ts): MAX(ROUNDUP(R(λ·S/u)), INT(R(λ·S)) + 1).
 */
export function serversForUtilizationFormula(c: MmcCells, target: string): string {
  const ratio = round12Formula(`${load(c)}/${target}`);
  return `MAX(ROUNDUP(${ratio},0),INT(${round12Formula(load(c))})+1)`;
}

/** The fewest servers whose candidates `miss` says are failing, over c0 + {0..K}. */
function search(c: MmcCells, width: number, miss: (cc: string, a: string) => string): string {
  const a = `(${load(c)})`;
  const c0 = `(INT(${round12Formula(a)})+1)`;
  const offsets = `{${Array.from({ length: width + 1 }, (_, k) => k).join(",")}}`;
  const cc = `(${c0}+${offsets})`;
  const count = `SUMPRODUCT(--(${miss(cc, a)}))`;
  return `IF(${count}>${width},NA(),${c0}+${count})`;
}

/**
 * Fewest servers with mean response S + Wq ≤ `target` (a cell), natively: the mean-wait test of
 * `mmcStaff`, C·S/(c − a) ≤ R − S, both sides on 12 significant digits (`staffForTarget`).
 */
export function staffForResponseFormula(c: MmcCells, target: string, width: number): string {
  const s = shownS(c);
  const wait = (cc: string, a: string): string => round12Formula(`${erlangC(cc, a)}*${s}/(${cc}-${a})`);
  return search(c, width, (cc, a) => `${wait(cc, a)}>${round12Formula(`${target}-${s}`)}`);
}

/**
 * Fewest servers answering a fraction ≥ `level` within `within` (cells), natively: the test of
 * `mmcStaff`, 1 − C·e^{−(c − a)·t/S} ≥ level, both sides on 12 significant digits (`staffForTarget`).
 */
export function staffForServiceLevelFormula(c: MmcCells, level: string, within: string, width: number): string {
  const answered = (cc: string, a: string): string =>
    round12Formula(`1-${erlangC(cc, a)}*EXP(-(${cc}-${a})*${within}/${shownS(c)})`);
  return search(c, width, (cc, a) => `${answered(cc, a)}<${round12Formula(level)}`);
}
