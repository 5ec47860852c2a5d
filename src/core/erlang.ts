/**
 * Erlang B and Erlang C: the blocking and waiting probabilities of a group of `c` identical
 * servers offered `a` erlangs of Poisson traffic with exponential service.
 *
 * Both come from the Erlang B recursion
 *
 *     B(0) = 1,   B(k) = a·B(k−1) / (k + a·B(k−1))
 *
 * which never forms a factorial or a power, so it neither overflows nor loses precision: every
 * step is a ratio of positive numbers (relative rounding error about one ulp per step). Erlang C
 * follows from B in O(1):
 *
 *     C(c, a) = B(c, a) / (1 − ρ·(1 − B(c, a))),   ρ = a / c < 1.
 *
 * References: Jagerman (1974) "Some properties of the Erlang loss function", Bell System Technical
 * Journal 53(3); Kleinrock, Queueing Systems vol. 1 (1975), §3.5–3.6.
 */
import { DomainError } from "./errors";

/** Names the caller's arguments in error messages (the worksheet names by default). */
export interface ErlangArgumentNames {
  servers: string;
  load: string;
}

const DEFAULT_NAMES: ErlangArgumentNames = { servers: "servers", load: "offered_load" };

/** The most servers accepted: the recursion is O(c), and 10⁷ steps take about 50 ms. */
export const MAX_SERVERS = 10_000_000;

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
 * Variant: the forward recursion B(k) = a·B(k−1)/(k + a·B(k−1)) from B(0) = 1 (no factorials).
 * For very small loads B underflows gradually to 0, which is the correctly rounded answer.
 *
 * Cost: O(servers) time, O(1) memory.
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
  let b = 1;
  for (let k = 1; k <= servers; k++) {
    const ab = offeredLoad * b;
    b = ab / (k + ab);
  }
  return b;
}

/**
 * Erlang C: the probability that an arriving customer has to wait in an M/M/c queue (all
 * `servers` busy) when offered `offeredLoad` = λ·S erlangs, with `offeredLoad < servers`.
 *
 * Variant: C = B / (1 − ρ·(1 − B)) with B from {@link erlangB} and ρ = a/c; exact, not an
 * approximation.
 *
 * Cost: O(servers) time, O(1) memory.
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
 * Erlang C from an already computed Erlang B value (O(1)); used by searches that step the B
 * recursion one server at a time.
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
