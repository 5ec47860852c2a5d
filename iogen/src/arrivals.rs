//! Arrival processes: when each IO is scheduled, independent of when earlier IOs complete
//! (open loop). Times are offsets in seconds from the start of the step, accumulated in `f64`
//! (nanosecond resolution for days), so no arrival is ever re-timed.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, Exp};

use crate::options::Arrivals;

/// The subinterval grid of a step, in seconds: warm-up subintervals from 0 (the last one cut at
/// `warmup_s`), then measurement subintervals from `warmup_s`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Grid {
    /// Warm-up length.
    pub warmup_s: f64,
    /// Subinterval length (> 0).
    pub sub_s: f64,
}

impl Grid {
    /// End of the `k`-th subinterval of the step (k ≥ 1; `end(0)` = 0).
    pub fn end(&self, k: u64) -> f64 {
        let warm = if self.warmup_s > 0.0 { (self.warmup_s / self.sub_s - 1e-9).ceil() as u64 } else { 0 };
        if k <= warm {
            (k as f64 * self.sub_s).min(self.warmup_s)
        } else {
            self.warmup_s + (k - warm) as f64 * self.sub_s
        }
    }
}

/// A seeded stream of scheduled arrival offsets.
#[derive(Debug, Clone)]
pub struct ArrivalProcess {
    kind: Kind,
    next_index: u64,
    offset_s: f64,
}

#[derive(Debug, Clone)]
enum Kind {
    Poisson { rng: Box<StdRng>, exp: Exp<f64> },
    Uniform { gap_s: f64 },
    PoissonFixed(Box<Fixed>),
}

/// State of the fixed-count Poisson process: the current subinterval, how many arrivals it still
/// has, and the fraction of an arrival carried to the next subinterval.
#[derive(Debug, Clone)]
struct Fixed {
    rng: StdRng,
    rate: f64,
    grid: Grid,
    chunk: u64,
    end_s: f64,
    left: u64,
    carry: f64,
}

impl Fixed {
    fn next(&mut self, prev: f64) -> f64 {
        let mut at = prev;
        while self.left == 0 {
            self.chunk += 1;
            let start = self.grid.end(self.chunk - 1);
            self.end_s = self.grid.end(self.chunk);
            let expected = self.rate * (self.end_s - start) + self.carry;
            self.left = expected.floor() as u64;
            self.carry = expected - self.left as f64;
            at = start;
        }
        // The smallest of `left` uniform points in (at, end): end − (end − at)·U^(1/left).
        let u: f64 = self.rng.random();
        let next = self.end_s - (self.end_s - at) * u.powf(1.0 / self.left as f64);
        self.left -= 1;
        next
    }
}

impl ArrivalProcess {
    /// Arrivals at `rate` per second (`rate > 0`) from a generator seeded with `seed`:
    /// - Poisson: independent exponential gaps with mean 1/rate (a Poisson process);
    /// - uniform: gaps of exactly 1/rate;
    /// - Poisson with a fixed count: in each subinterval of `grid`, exactly rate × length
    ///   arrivals (the fractions carried over), placed like the points of a Poisson process
    ///   conditioned on that count (sorted uniform points). Same burstiness inside a subinterval,
    ///   but no random drift of the offered rate from run to run.
    pub fn new(arrivals: Arrivals, rate: f64, seed: u64, grid: Grid) -> Self {
        assert!(rate.is_finite() && rate > 0.0, "arrival rate must be positive");
        assert!(grid.sub_s > 0.0, "subinterval must be positive");
        let rng = StdRng::seed_from_u64(seed ^ 0xA55A_0001);
        let kind = match arrivals {
            Arrivals::Poisson => Kind::Poisson { rng: Box::new(rng), exp: Exp::new(rate).expect("positive rate") },
            Arrivals::Uniform => Kind::Uniform { gap_s: 1.0 / rate },
            Arrivals::PoissonFixed => {
                Kind::PoissonFixed(Box::new(Fixed { rng, rate, grid, chunk: 0, end_s: 0.0, left: 0, carry: 0.0 }))
            }
        };
        ArrivalProcess { kind, next_index: 0, offset_s: 0.0 }
    }

    /// Offset in seconds of the next arrival (non-decreasing).
    pub fn next_offset(&mut self) -> f64 {
        self.next_index += 1;
        match &mut self.kind {
            Kind::Poisson { rng, exp } => {
                self.offset_s += exp.sample(rng.as_mut());
            }
            // Multiplying rather than summing keeps uniform arrivals exactly on the grid.
            Kind::Uniform { gap_s } => self.offset_s = self.next_index as f64 * *gap_s,
            Kind::PoissonFixed(f) => self.offset_s = f.next(self.offset_s),
        }
        self.offset_s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GRID: Grid = Grid { warmup_s: 1.0, sub_s: 1.0 };

    /// One-sample Kolmogorov–Smirnov statistic of `xs` against the exponential CDF with `rate`.
    fn ks_exponential(mut xs: Vec<f64>, rate: f64) -> f64 {
        xs.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let n = xs.len() as f64;
        xs.iter()
            .enumerate()
            .map(|(i, &x)| {
                let f = 1.0 - (-rate * x).exp();
                (f - i as f64 / n).max((i as f64 + 1.0) / n - f)
            })
            .fold(0.0, f64::max)
    }

    fn gaps(arrivals: Arrivals, rate: f64, seed: u64, n: usize) -> Vec<f64> {
        let mut p = ArrivalProcess::new(arrivals, rate, seed, GRID);
        let mut prev = 0.0;
        (0..n)
            .map(|_| {
                let t = p.next_offset();
                let g = t - prev;
                prev = t;
                g
            })
            .collect()
    }

    #[test]
    fn poisson_gaps_pass_kolmogorov_smirnov_against_the_exponential() {
        // Critical value at alpha = 0.01 for large n: 1.628 / sqrt(n).
        for seed in [1, 2, 42] {
            let n = 20_000;
            let d = ks_exponential(gaps(Arrivals::Poisson, 5000.0, seed, n), 5000.0);
            assert!(d < 1.628 / (n as f64).sqrt(), "seed {seed}: D = {d}");
        }
    }

    #[test]
    fn the_test_can_fail_uniform_gaps_are_not_exponential() {
        let n = 20_000;
        let d = ks_exponential(gaps(Arrivals::Uniform, 5000.0, 1, n), 5000.0);
        assert!(d > 1.628 / (n as f64).sqrt(), "D = {d}");
        // and a wrong rate is caught too
        let d = ks_exponential(gaps(Arrivals::Poisson, 5000.0, 1, n), 5500.0);
        assert!(d > 1.628 / (n as f64).sqrt(), "D = {d}");
    }

    #[test]
    fn same_seed_same_arrivals_and_uniform_is_exact() {
        assert_eq!(gaps(Arrivals::Poisson, 100.0, 9, 50), gaps(Arrivals::Poisson, 100.0, 9, 50));
        assert_ne!(gaps(Arrivals::Poisson, 100.0, 9, 50), gaps(Arrivals::Poisson, 100.0, 10, 50));
        let mut u = ArrivalProcess::new(Arrivals::Uniform, 1000.0, 0, GRID);
        let last = (0..1000).map(|_| u.next_offset()).last().unwrap();
        assert!((last - 1.0).abs() < 1e-12);
    }

    #[test]
    fn grid_boundaries() {
        let g = Grid { warmup_s: 2.5, sub_s: 1.0 };
        let ends: Vec<f64> = (1..=5).map(|k| g.end(k)).collect();
        assert_eq!(ends, vec![1.0, 2.0, 2.5, 3.5, 4.5]);
        let g = Grid { warmup_s: 0.0, sub_s: 0.5 };
        assert_eq!(g.end(1), 0.5);
        assert_eq!(g.end(4), 2.0);
    }

    #[test]
    fn fixed_count_poisson_has_exact_counts_and_exponential_gaps() {
        let grid = Grid { warmup_s: 0.5, sub_s: 1.0 };
        let rate = 1234.5;
        let mut p = ArrivalProcess::new(Arrivals::PoissonFixed, rate, 7, grid);
        let times: Vec<f64> = (0..20_000).map(|_| p.next_offset()).collect();
        assert!(times.windows(2).all(|w| w[0] <= w[1]), "sorted");
        // Exactly rate × length per subinterval, fractions carried: ⌊1234.5·0.5⌋ = 617 in the
        // warm-up part, then 1234 or 1235 per second.
        let count = |a: f64, b: f64| times.iter().filter(|&&t| t >= a && t < b).count();
        assert_eq!(count(0.0, 0.5), 617);
        let per_sub: Vec<usize> = (0..10).map(|j| count(0.5 + j as f64, 1.5 + j as f64)).collect();
        assert!(per_sub.iter().all(|&c| c == 1234 || c == 1235), "{per_sub:?}");
        assert_eq!(count(0.0, 10.5), (rate * 10.5f64).floor() as usize);
        // Gaps are still exponential with mean 1/rate.
        let gaps: Vec<f64> = times.windows(2).map(|w| w[1] - w[0]).collect();
        let n = gaps.len();
        let d = ks_exponential(gaps, rate);
        assert!(d < 1.628 / (n as f64).sqrt(), "D = {d}");
    }
}
