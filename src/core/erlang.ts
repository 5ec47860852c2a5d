/**
 * Erlang B and Erlang C: the blocking and waiting probabilities of a group of `c` identical
 * servers offered `a` erlangs of Poisson traffic with exponential service.
 *
 * Two exact routes, each used where it is cheapest and accurate:
 *
 * - up to {@link ERLANG_RECURSION_MAX_SERVERS} servers, the Erlang B recursion
 *
 *       B(0) = 1,   B(k) = a·B(k−1) / (k + a·B(k−1))
 *
 *   which never forms a factorial or a power (relative rounding error about one ulp per step);
 * - above it, the Poisson form (B is the Poisson pmf at c divided by the Poisson cdf at c):
 *
 *       B(c, a) = p(c; a) / (1 − T),   T = P(N > c) = P(c + 1, a),   N ~ Poisson(a)
 *
 *   with p(c; a) by Loader's saddle-point formula ({@link poissonPmf}) and T, the lower
 *   regularized incomplete gamma function, by Temme's uniform asymptotic expansion (Boost's, via
 *   @stdlib) within √20 standard deviations of c, else by the continued fraction DLMF 8.9.2 — O(1)
 *   either way (at most ~60 terms there). Only T's small relative size matters: 1 − T ≥ ½ when a < c.
 *   For a ≥ c (overload, Erlang B only) 1/B = Σⱼ Πᵢ<ⱼ (c − i)/a, a series with ratio ≤ c/a.
 *
 * Erlang C follows from B in O(1):
 *
 *     C(c, a) = B(c, a) / (1 − ρ·(1 − B(c, a))),   ρ = a / c < 1.
 *
 * Accuracy: relative error ≤ 1e-12 against 60-digit mpmath for every c ≤ 10⁷ and ρ ≤ 0.9999
 * (tests/core/fixtures/gen-reference.py, tests/core/erlang-reference.test.ts).
 *
 * References: Jagerman (1974) "Some properties of the Erlang loss function", Bell System Technical
 * Journal 53(3); Kleinrock, Queueing Systems vol. 1 (1975), §3.5–3.6; Temme (1979) "The asymptotic
 * expansion of the incomplete gamma functions", SIAM J. Math. Anal. 10; DLMF §8.9 and §8.12.
 */
import igammaTemmeLarge from "@stdlib/math-base-special-gammainc/lib/igamma_temme_large.js";
import { DomainError } from "./errors";
import { STIRLING_SERIES_MIN, poissonPmf } from "./poisson";

/** Names the caller's arguments in error messages (the worksheet names by default). */
export interface ErlangArgumentNames {
  servers: string;
  load: string;
}

const DEFAULT_NAMES: ErlangArgumentNames = { servers: "servers", load: "offered_load" };

/** The most servers accepted: as far as the accuracy is shown against the mpmath reference. */
export const MAX_SERVERS = 10_000_000;

/**
 * Up to this many servers the recursion is used; above it the O(1) Poisson form. Chosen from
 * measurements (bench/functions.ts, docs/benchmarks.md): the recursion costs ~2–5 ns per server,
 * the Poisson form 0.1–0.9 µs whatever c, so they cross between 32 and 64 servers. Both routes are
 * within 1e-12 of mpmath on either side (the recursion ≤ 5e-15 up to c = 2000). Must be ≥ 15: the
 * Poisson form needs c ≥ 16 (Loader's Stirling series).
 */
export const ERLANG_RECURSION_MAX_SERVERS = 40;

/**
 * Checks a server count: a whole number from 1 to {@link MAX_SERVERS}.
 *
 * @param servers - the count to check
 * @param name - the argument name for the message
 * @throws DomainError (`#NUM!`) naming `name`
 * @example
 * checkServerCount(4, "servers"); // => undefined (no error)
 */
export function checkServerCount(servers: number, name: string): void {
  if (!Number.isInteger(servers) || servers < 1) {
    throw new DomainError(name, `must be a whole number ≥ 1, got ${servers}`, "num");
  }
  if (servers > MAX_SERVERS) {
    throw new DomainError(name, `at most ${MAX_SERVERS} servers are supported, got ${servers}`, "num");
  }
}

function checkServers(servers: number, names: ErlangArgumentNames): void {
  checkServerCount(servers, names.servers);
}

function checkLoad(load: number, names: ErlangArgumentNames): void {
  if (!Number.isFinite(load) || load < 0) {
    throw new DomainError(names.load, `must be a finite number ≥ 0 (erlangs), got ${load}`, "num");
  }
}

/**
 * Erlang B: the probability that an arriving call finds all `servers` busy in an M/M/c/c loss
 * system offered `offeredLoad` = λ·S erlangs.
 *
 * Variant: the recursion B(k) = a·B(k−1)/(k + a·B(k−1)) up to
 * {@link ERLANG_RECURSION_MAX_SERVERS} servers, the Poisson form above (file comment). For very
 * small loads B underflows gradually to 0, which is the correctly rounded answer.
 *
 * Cost: O(1) time for a < c (at most ~0.5 µs), O(1) memory.
 *
 * @param servers - number of servers c, a whole number from 1 to {@link MAX_SERVERS}
 * @param offeredLoad - offered load a = λ·S in erlangs, finite and ≥ 0
 * @param names - argument names used in error messages
 * @returns B(c, a), a probability in [0, 1]
 * @throws DomainError (`#NUM!`) when servers is not a whole number ≥ 1 or the load is negative or not finite
 * @example
 * erlangB(4, 2.4); // => 0.13870605233584843
 */
export function erlangB(servers: number, offeredLoad: number, names: ErlangArgumentNames = DEFAULT_NAMES): number {
  checkServers(servers, names);
  checkLoad(offeredLoad, names);
  return erlangBUnchecked(servers, offeredLoad);
}

/**
 * Erlang B without argument checks, for callers that have checked already (M/M/c, staffing).
 * Dispatches to the recursion (small c) or the Poisson form (large c); see the file comment.
 *
 * @param servers - a whole number from 1 to {@link MAX_SERVERS}
 * @param load - a finite load ≥ 0 in erlangs
 * @returns B(c, a)
 * @example
 * erlangBUnchecked(4, 2.4); // => 0.13870605233584843
 */
export function erlangBUnchecked(servers: number, load: number): number {
  if (load === 0) return 0;
  if (servers <= RECURSION_LIMIT) return erlangBRecursion(servers, load);
  return load < servers ? erlangBPoisson(servers, load) : erlangBOverload(servers, load);
}

/** The Erlang B recursion from B(0) = 1; O(servers). */
export function erlangBRecursion(servers: number, load: number): number {
  let b = 1;
  for (let k = 1; k <= servers; k++) {
    const ab = load * b;
    b = ab / (k + ab);
  }
  return b;
}

/** The Poisson form needs c ≥ 16 (Loader's Stirling series); the recursion covers everything below. */
const RECURSION_LIMIT = Math.max(ERLANG_RECURSION_MAX_SERVERS, STIRLING_SERIES_MIN - 1);

/** Temme's expansion is accurate for a > 200 within this many (squared) relative deviations × a (Boost). */
const TEMME_MIN_SHAPE = 200;
const TEMME_SPREAD = 20;
/** Continued-fraction terms allowed: outside Temme's range it needs fewer than ~60 (measured). */
const CF_MAX_TERMS = 10_000;

/**
 * B(c, a) = p(c; a) / (1 − T) for a < c and c ≥ 16 (see the file comment); O(1).
 *
 * @param servers - c ≥ {@link STIRLING_SERIES_MIN}
 * @param load - 0 < a < c
 */
function erlangBPoisson(servers: number, load: number): number {
  const pmf = poissonPmf(servers, load);
  if (pmf === 0) return 0;
  const shape = servers + 1;
  const sigma = (shape - load) / shape;
  const tail =
    shape > TEMME_MIN_SHAPE && sigma * sigma < TEMME_SPREAD / shape
      ? igammaTemmeLarge(shape, load)
      : load * pmf * lowerGammaFraction(shape, load);
  return pmf / (1 - tail);
}

/**
 * K(s, x) = γ(s, x)·x⁻ˢ·eˣ = Σₙ xⁿ / (s(s+1)…(s+n)) by the continued fraction (DLMF 8.9.2)
 *
 *     K = 1/(s − s·x/(s+1 + x/(s+2 − (s+1)·x/(s+3 + 2x/(s+4 − …)))))
 *
 * evaluated with the modified Lentz method to a relative change below 2⁻⁵³. For x < s it converges
 * in a few terms far from x ≈ s (6 at s = 10⁷, x = s/2) and in O(√s) close to it — where the
 * caller uses Temme's expansion instead.
 */
function lowerGammaFraction(s: number, x: number): number {
  const tiny = 1e-300;
  let f = s;
  let c = s;
  let d = 0;
  for (let n = 1; n <= CF_MAX_TERMS; n++) {
    const an = n % 2 === 1 ? -(s + (n - 1) / 2) * x : (n / 2) * x;
    const bn = s + n;
    d = bn + an * d;
    if (d === 0) d = tiny;
    d = 1 / d;
    c = bn + an / c;
    if (c === 0) c = tiny;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < Number.EPSILON) break;
  }
  return 1 / f;
}

/**
 * B(c, a) for a ≥ c (overload, c ≥ 16): 1/B = Σⱼ₌₀..c tⱼ, t₀ = 1, tⱼ = tⱼ₋₁·(c − j + 1)/a, summed
 * until a term no longer changes the sum; the ratio is ≤ c/a ≤ 1 and falls with j, so it stops
 * after O(min(c, √c·log(1/ε))) terms.
 */
function erlangBOverload(servers: number, load: number): number {
  let term = 1;
  let sum = 1;
  for (let j = 1; j <= servers; j++) {
    term *= (servers - j + 1) / load;
    const next = sum + term;
    if (next === sum) break;
    sum = next;
  }
  return 1 / sum;
}

/**
 * Erlang C: the probability that an arriving customer has to wait in an M/M/c queue (all
 * `servers` busy) when offered `offeredLoad` = λ·S erlangs, with `offeredLoad < servers`.
 *
 * Variant: C = B / (1 − ρ·(1 − B)) with B from {@link erlangB} and ρ = a/c; exact, not an
 * approximation.
 *
 * Cost: O(1) time and memory (see {@link erlangB}).
 *
 * @param servers - number of servers c, a whole number from 1 to {@link MAX_SERVERS}
 * @param offeredLoad - offered load a = λ·S in erlangs, 0 ≤ a < c
 * @param names - argument names used in error messages
 * @returns C(c, a), a probability in [0, 1)
 * @throws DomainError (`#NUM!`) for bad servers or load, or when a ≥ c (the queue is unstable)
 * @example
 * erlangC(4, 2.4); // => 0.2870431893687707
 */
export function erlangC(servers: number, offeredLoad: number, names: ErlangArgumentNames = DEFAULT_NAMES): number {
  const b = erlangB(servers, offeredLoad, names);
  return erlangCFromB(servers, offeredLoad, b, names);
}

/**
 * Erlang C from an already computed Erlang B value (O(1)).
 *
 * @param servers - number of servers c, a whole number from 1 to {@link MAX_SERVERS}
 * @param offeredLoad - offered load a in erlangs, 0 ≤ a < c
 * @param b - B(c, a) from {@link erlangB}
 * @param names - argument names used in error messages
 * @returns C(c, a)
 * @throws DomainError (`#NUM!`) when a ≥ c
 * @example
 * erlangCFromB(4, 2.4, erlangB(4, 2.4)); // => 0.2870431893687707
 */
export function erlangCFromB(
  servers: number,
  offeredLoad: number,
  b: number,
  names: ErlangArgumentNames = DEFAULT_NAMES,
): number {
  const rho = offeredLoad / servers;
  if (!(rho < 1)) {
    throw new DomainError(
      names.load,
      `the queue is unstable: utilization ${formatShort(rho)} ≥ 1 (offered load ${formatShort(offeredLoad)} erlangs on ${servers} servers)`,
      "num",
    );
  }
  return b / (1 - rho * (1 - b));
}

/** Up to 6 significant digits, for messages. */
export function formatShort(x: number): string {
  return Number.isFinite(x) ? String(Number(x.toPrecision(6))) : String(x);
}
