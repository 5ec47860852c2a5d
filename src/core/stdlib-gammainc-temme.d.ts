/**
 * Boost's Temme uniform asymptotic expansion for the regularized incomplete gamma function, as
 * ported by @stdlib/math-base-special-gammainc (lib/igamma_temme_large.js, pinned to 0.3.1 in
 * package.json because this file is not part of the package's public entry point). Returns the
 * smaller tail: P(a, x) when x < a, Q(a, x) when x ≥ a; accurate to double precision for
 * a > 200 and ((x − a)/a)² < 20/a (Boost's own condition for using it).
 */
declare module "@stdlib/math-base-special-gammainc/lib/igamma_temme_large.js" {
  function igammaTemmeLarge(a: number, x: number): number;
  export = igammaTemmeLarge;
}
