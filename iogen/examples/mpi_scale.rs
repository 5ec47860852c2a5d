//! What one subinterval costs rank 0 at 10, 100 and 1,000 ranks, without MPI: N ranks' messages
//! (`cluster::wire`) are built from synthetic IOs, then rank 0's work is timed — decode every
//! message, merge (`StepAggregate::combine`) and build the rows. Bytes are what a gather moves
//! into rank 0. `cargo run --release --example mpi_scale` (docs/iogen-mpi.md, "Scale").

use std::time::Instant;

use iogen::cluster::aggregate::StepAggregate;
use iogen::cluster::wire::{decode_into, encode, RankSubinterval};
use iogen::cpu::CpuUsage;
use iogen::engine::OpKind;
use iogen::options::{Iops, Options};
use iogen::output::StepInfo;
use iogen::scheduler::{Phase, SubintervalReport, Verdict};
use iogen::stats::{IntervalStats, IoTimes, Launch};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::{Distribution, LogNormal};

/// `ios` IOs with lognormal service times (median `median_us`, shape `sigma`), 70 % reads.
fn rank_stats(seed: u64, ios: usize, median_us: f64, sigma: f64) -> IntervalStats {
    let mut rng = StdRng::seed_from_u64(seed);
    let service = LogNormal::new((median_us * 1000.0).ln(), sigma).unwrap();
    let lag = LogNormal::new(5_000f64.ln(), 1.0).unwrap();
    let mut s = IntervalStats::default();
    for _ in 0..ios {
        let sv = service.sample(&mut rng) as u64;
        let lg = lag.sample(&mut rng) as u64;
        let kind = if rng.random::<f64>() < 0.7 { OpKind::Read } else { OpKind::Write };
        s.record(kind, 4096, IoTimes { service_ns: sv, response_ns: sv + lg, launch: Launch::OnTime { lag_ns: lg } });
    }
    s
}

fn main() {
    let cpu = CpuUsage { busy_pct: Some(50.0), sys_pct: Some(10.0), iowait_pct: Some(1.0), cores: 16, iogen_pct: 20.0 };
    let opts = Options { target: "/dev/null".into(), iops: Iops::Rate(1e6), ..Options::default() };
    println!(
        "| ranks | IOs per rank | latency | bytes into rank 0 | per rank | rank 0 in all | decode / merge / rows |"
    );
    println!("|---:|---:|---|---:|---:|---:|---:|");
    for (ios, median_us, sigma, what) in [
        (1_000, 200.0, 0.6, "lognormal 200 µs, σ 0.6"),
        (10_000, 200.0, 0.6, "lognormal 200 µs, σ 0.6"),
        (10_000, 5000.0, 2.0, "lognormal 5 ms, σ 2"),
    ] {
        // Build 16 distinct rank messages and reuse them (the merge cost does not depend on which).
        let msgs: Vec<Vec<u8>> = (0..16)
            .map(|r| {
                let st = rank_stats(r, ios, median_us, sigma);
                let rep =
                    SubintervalReport { phase: Phase::Measure, index: 1, start_s: 0.0, seconds: 1.0, stats: &st, cpu };
                encode(&rep, Verdict::default())
            })
            .collect();
        let sizes: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
        let sizes = if sizes.is_empty() { vec![10, 100, 1000] } else { sizes };
        for &n in &sizes {
            let bytes: usize = (0..n).map(|r| msgs[r % msgs.len()].len() + 4).sum();
            let hosts: Vec<String> = (0..n).map(|r| format!("host{r}")).collect();
            let info = StepInfo::new(&opts, 1, "s", &[]);
            let mut agg = StepAggregate::new(&opts, hosts);
            let reps = 3;
            let mut best = [f64::INFINITY; 4];
            // As rank 0 does: one decoded message per rank, reused from subinterval to subinterval.
            let mut subs: Vec<RankSubinterval> = (0..n).map(|_| RankSubinterval::default()).collect();
            for _ in 0..reps {
                let t = Instant::now();
                for (r, out) in subs.iter_mut().enumerate() {
                    decode_into(&msgs[r % msgs.len()], r, out).unwrap();
                }
                let t1 = t.elapsed().as_secs_f64();
                let c = agg.combine(&subs).unwrap();
                let t2 = t.elapsed().as_secs_f64();
                let rows = agg.rows(&info, &subs, &c);
                std::hint::black_box(rows);
                let t3 = t.elapsed().as_secs_f64();
                for (b, x) in best.iter_mut().zip([t3, t1, t2 - t1, t3 - t2]) {
                    *b = b.min(x);
                }
            }
            println!(
                "| {n} | {ios} | {what} | {:.2} MB | {:.1} KB | {:.1} ms | {:.1} / {:.1} / {:.1} ms |",
                bytes as f64 / 1e6,
                bytes as f64 / n as f64 / 1e3,
                best[0] * 1e3,
                best[1] * 1e3,
                best[2] * 1e3,
                best[3] * 1e3
            );
        }
    }
}
