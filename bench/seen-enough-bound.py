#!/usr/bin/env python3
"""An upper bound on the coverage of ONE FAMILY of stopping rules in the slow-drift cells of
SEEN_ENOUGH's acceptance, given the cell's cost limit on the no-transient runs
(`npm run bench:seen-enough-bound`; needs numpy and scipy).

The cells: (a) no-transient series (AR(1) noise, marginal SD 80 around mu = 1000) must stop with a
median <= 3x the precision-only rule's ("today": 30 samples at rho 0, 33 at rho 0.3, 59 at rho 0.6,
for +-5 %), i.e. at least half of them by n_lim = 90 / 99 / 177 samples; (b) series with a linear drift
from +-8 % to 0 over 150 samples, same noise, must be covered (the reported value within +-5 % of mu)
in >= 0.90 (rho <= 0.3) / 0.80 of the stopped runs.

What is bounded, exactly: rules that
  1. decide whether to stop by n_lim with the slope test {|t| < c} on all n_lim samples, c the median
     of |t| on no-transient series (so exactly half of those stop: the least a rule may stop);
  2. report, when they stop there, one of three window means ending at n_lim: the whole series, its
     second half, or the shortest tail whose own t interval could claim +-5 % with the noise SD known
     (the best of the three per cell, chosen after the fact);
  3. are credited with a perfect answer on every drift run they do not stop by n_lim.
So 1 - P_drift(stop by n_lim) * P(miss | stop, best window) is the best coverage such a rule can reach.
It is NOT a bound for every rule: {|t| < c} is the most powerful test against a linear trend among
tests of the slope (Neyman-Pearson, sign unknown), but a rule may report something other than a window
mean -- SEEN_ENOUGH reports the least-squares level at the last sample, which does not lag a drift
the way a window mean does -- and a rule need not decide on the slope alone. The bound is computed
here, not taken from the code under test: only numpy and scipy.

Prints a Markdown table (docs/seen-enough.md quotes it).
"""
import math
import sys

import numpy as np
from scipy.stats import t as student_t

MU, SD, REPS = 1000.0, 80.0, 100_000
TODAY_MEDIAN = {0.0: 30, 0.3: 33, 0.6: 59}  # docs/benchmarks.md, "today", none, +-5 %


def ar1(rng, n, rho, reps):
    e = rng.standard_normal((reps, n)) * math.sqrt(1 - rho * rho)
    x = np.empty((reps, n))
    x[:, 0] = rng.standard_normal(reps)
    for i in range(1, n):
        x[:, i] = rho * x[:, i - 1] + e[:, i]
    return x * SD


def slope_t(x):
    n = x.shape[1]
    c = np.arange(n) - (n - 1) / 2
    b = (x * c).sum(1) / (c * c).sum()
    res = x - x.mean(1, keepdims=True) - b[:, None] * c
    return b / np.sqrt((res**2).sum(1) / (n - 2) / (c * c).sum())


def main():
    rng = np.random.default_rng(20261127)
    acc = 0.05
    rows = []
    for rho, need in ((0.0, 0.90), (0.3, 0.90), (0.6, 0.80)):
        n = 3 * TODAY_MEDIAN[rho]
        # The shortest window whose own t interval could claim the accuracy, noise SD known:
        # t(0.975; L - 1) * SD_eff / sqrt(L) <= acc * MU, SD_eff the long-run SD of AR(1) noise.
        sd_eff = SD * math.sqrt((1 + rho) / (1 - rho))
        shortest = next(L for L in range(3, n) if student_t.ppf(0.975, L - 1) * sd_eff / math.sqrt(L) <= acc * MU)
        noise = ar1(rng, n, rho, REPS)
        c = np.median(np.abs(slope_t(noise)))
        for sign in (+1, -1):
            drift = sign * 0.08 * MU * np.maximum(0.0, 1 - np.arange(n) / 150)
            x = noise + drift
            stop = np.abs(slope_t(x)) < c
            best = 0.0
            for label, window in (("whole", slice(0, n)), ("second half", slice(n // 2, n)),
                                  (f"last {shortest}", slice(n - shortest, n))):
                miss = np.abs(x[stop][:, window].mean(1)) > acc * MU
                bound = 1 - stop.mean() * miss.mean()
                if bound > best:
                    best, best_label = bound, label
            rows.append((sign, rho, n, stop.mean(), best, best_label, need))
    print("| drift | ρ | n_lim | P(drift run stops by n_lim) | best coverage of the family (window reported) | target |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for sign, rho, n, p, best, label, need in rows:
        verdict = "below" if best < need else "above"
        print(f"| {'+' if sign > 0 else '−'}8 % over 150 | {rho} | {n} | {p:.3f} | {best:.3f} ({label}) — {verdict} | {need:.2f} |")
    print(f"\n{REPS:,} replicates per row; numpy {np.__version__}, python {sys.version.split()[0]}.")


if __name__ == "__main__":
    main()
