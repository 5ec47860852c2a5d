//! Arrival processes: when each IO is scheduled, independent of when earlier IOs complete
//! (open loop). Times are offsets in seconds from the start of the step, accumulated in `f64`
//! (nanosecond resolution for days), so no arrival is ever re-timed.

use rand::rngs::StdRng;
use rand::SeedableRng;
use rand_distr::{Distribution, Exp};

use crate::options::Arrivals;

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
}

impl ArrivalProcess {
    /// Arrivals at `rate` per second (`rate > 0`). Poisson: exponential gaps with mean 1/rate
    /// from a generator seeded with `seed`; uniform: gaps of exactly 1/rate.
    pub fn new(arrivals: Arrivals, rate: f64, seed: u64) -> Self {
        assert!(rate.is_finite() && rate > 0.0, "arrival rate must be positive");
        let kind = match arrivals {
            Arrivals::Poisson => Kind::Poisson {
                rng: Box::new(StdRng::seed_from_u64(seed ^ 0xA55A_0001)),
                exp: Exp::new(rate).expect("positive rate"),
            },
            Arrivals::Uniform => Kind::Uniform { gap_s: 1.0 / rate },
        };
        ArrivalProcess { kind, next_index: 0, offset_s: 0.0 }
    }

    /// Offset in seconds of the next arrival. The first arrival comes one gap after 0.
    pub fn next_offset(&mut self) -> f64 {
        self.next_index += 1;
        match &mut self.kind {
            Kind::Poisson { rng, exp } => {
                self.offset_s += exp.sample(rng.as_mut());
                self.offset_s
            }
            // Multiplying rather than summing keeps uniform arrivals exactly on the grid.
            Kind::Uniform { gap_s } => self.next_index as f64 * *gap_s,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let mut p = ArrivalProcess::new(arrivals, rate, seed);
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
        let mut u = ArrivalProcess::new(Arrivals::Uniform, 1000.0, 0);
        let last = (0..1000).map(|_| u.next_offset()).last().unwrap();
        assert!((last - 1.0).abs() < 1e-12);
    }
}
