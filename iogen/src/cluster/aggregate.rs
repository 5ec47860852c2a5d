//! Rank 0's view of a step run by many ranks: each subinterval's per-rank counters merged exactly
//! into the `all` row (counts and sums added, histograms merged bucket by bucket), the stop rule
//! applied to the aggregate, and the measured totals of every rank for the summary.

use anyhow::bail;

use super::wire::RankSubinterval;
use crate::cpu::CpuUsage;
use crate::options::Options;
use crate::output::{subinterval_records, summary_records, Record, StepInfo};
use crate::scheduler::{Decision, Measurement, Phase, StepOutcome, SubintervalReport};
use crate::stats::IntervalStats;

/// The `host` value of the rows that sum every rank.
pub const ALL_HOST: &str = "all";

/// The `host` of each rank's rows: its host name, numbered `name#1`, `name#2`, … when several
/// ranks share it, so every rank has its own rows; a host named `all` is numbered too, so no
/// rank's rows are mistaken for the sum.
pub fn host_labels(hosts: &[String]) -> Vec<String> {
    let mut seen = std::collections::HashMap::<&str, usize>::new();
    hosts
        .iter()
        .map(|h| {
            let k = seen.entry(h.as_str()).or_insert(0);
            *k += 1;
            let shared = hosts.iter().filter(|x| *x == h).count() > 1;
            if shared || h == ALL_HOST {
                format!("{h}#{k}")
            } else {
                h.clone()
            }
        })
        .collect()
}

/// Time-weighted CPU of one rank over the measurement.
#[derive(Debug, Default, Clone)]
struct CpuTotals {
    /// (Σ value × seconds, Σ seconds) of busy, sys and iowait over subintervals that had a value.
    host: [(f64, f64); 3],
    cores: usize,
    /// (Σ iogen % × seconds, Σ seconds).
    own: (f64, f64),
}

impl CpuTotals {
    fn add(&mut self, u: &CpuUsage, seconds: f64) {
        for (acc, v) in self.host.iter_mut().zip([u.busy_pct, u.sys_pct, u.iowait_pct]) {
            if let Some(v) = v {
                acc.0 += v * seconds;
                acc.1 += seconds;
            }
        }
        self.cores = u.cores;
        self.own.0 += u.iogen_pct * seconds;
        self.own.1 += seconds;
    }

    fn usage(&self) -> CpuUsage {
        let mean = |(s, w): (f64, f64)| (w > 0.0).then(|| s / w);
        CpuUsage {
            busy_pct: mean(self.host[0]),
            sys_pct: mean(self.host[1]),
            iowait_pct: mean(self.host[2]),
            cores: self.cores,
            iogen_pct: mean(self.own).unwrap_or(0.0),
        }
    }
}

/// Host CPU of the whole cluster: each host counted once (the mean of its ranks' readings),
/// busy/sys/iowait weighted by the hosts' cores (so it stays "% of all cores"), cores summed over
/// hosts, iogen's own CPU summed over ranks (% of one core).
pub fn cluster_cpu(hosts: &[String], cpu: &[CpuUsage]) -> CpuUsage {
    let mut names: Vec<&str> = hosts.iter().map(String::as_str).collect();
    names.sort_unstable();
    names.dedup();
    let mut out = CpuUsage { busy_pct: None, sys_pct: None, iowait_pct: None, cores: 0, iogen_pct: 0.0 };
    let mut acc = [(0.0, 0.0); 3];
    for name in names {
        let on: Vec<&CpuUsage> = hosts.iter().zip(cpu).filter(|(h, _)| *h == name).map(|(_, c)| c).collect();
        let cores = on.iter().map(|c| c.cores).max().unwrap_or(0);
        out.cores += cores;
        for (k, get) in
            [|c: &CpuUsage| c.busy_pct, |c: &CpuUsage| c.sys_pct, |c: &CpuUsage| c.iowait_pct].iter().enumerate()
        {
            let vals: Vec<f64> = on.iter().filter_map(|c| get(c)).collect();
            if !vals.is_empty() {
                acc[k].0 += vals.iter().sum::<f64>() / vals.len() as f64 * cores as f64;
                acc[k].1 += cores as f64;
            }
        }
    }
    let mean = |(s, w): (f64, f64)| (w > 0.0).then(|| s / w);
    out.busy_pct = mean(acc[0]);
    out.sys_pct = mean(acc[1]);
    out.iowait_pct = mean(acc[2]);
    out.iogen_pct = cpu.iter().map(|c| c.iogen_pct).sum();
    out
}

/// One step across the ranks, on rank 0.
pub struct StepAggregate {
    /// The step's options as the user gave them (`--iops` is the total).
    opts: Options,
    /// Host name of each rank, and the row label of each rank.
    hosts: Vec<String>,
    labels: Vec<String>,
    /// Each rank's measured counters and CPU.
    ranks: Vec<(IntervalStats, CpuTotals)>,
    /// The sum of all ranks' measurement, and the stop rule's series over it.
    all: Measurement,
    all_cpu: CpuTotals,
    /// The last subinterval's sum over the ranks (reused: a fresh set of histograms is 2.4 MB).
    current: IntervalStats,
    interrupted: bool,
    disk_full: bool,
}

/// One subinterval combined over the ranks.
pub struct Combined {
    /// What every rank is told.
    pub decision: Decision,
    /// The cluster's CPU ([`cluster_cpu`]).
    pub cpu: CpuUsage,
}

impl StepAggregate {
    /// A step with `opts` (the total rate) run by ranks on `hosts` (one name per rank).
    pub fn new(opts: &Options, hosts: Vec<String>) -> Self {
        let labels = host_labels(&hosts);
        let ranks = hosts.iter().map(|_| (IntervalStats::default(), CpuTotals::default())).collect();
        StepAggregate {
            opts: opts.clone(),
            hosts,
            labels,
            ranks,
            all: Measurement::default(),
            all_cpu: CpuTotals::default(),
            current: IntervalStats::default(),
            interrupted: false,
            disk_full: false,
        }
    }

    /// Row label of each rank.
    pub fn labels(&self) -> &[String] {
        &self.labels
    }

    /// Combine one subinterval of every rank (in rank order). The step ends when the stop rule
    /// holds on the merged series, or when any rank's measurement is full, it was interrupted or
    /// its target is full. Fails when the ranks are not in the same subinterval.
    pub fn combine(&mut self, subs: &[RankSubinterval]) -> anyhow::Result<Combined> {
        if subs.len() != self.ranks.len() {
            bail!("{} subinterval messages for {} ranks", subs.len(), self.ranks.len());
        }
        let first = &subs[0];
        for (r, s) in subs.iter().enumerate() {
            if (s.phase, s.index) != (first.phase, first.index) {
                bail!(
                    "rank {r} closed {} subinterval {} while rank 0 closed {} subinterval {}: the ranks are out of step",
                    s.phase.name(),
                    s.index,
                    first.phase.name(),
                    first.index
                );
            }
        }
        self.current.reset();
        for s in subs {
            super::wire::add_to(&mut self.current, s);
        }
        let stats = &self.current;
        let cpus: Vec<CpuUsage> = subs.iter().map(|s| s.cpu).collect();
        let cpu = cluster_cpu(&self.hosts, &cpus);
        // Seconds of the slowest-closing rank: equal on every rank unless a signal cut one short.
        let seconds = subs.iter().map(|s| s.seconds).fold(0.0, f64::max);
        let mut seen = false;
        if first.phase == Phase::Measure {
            for ((total, cpu_total), s) in self.ranks.iter_mut().zip(subs) {
                super::wire::add_to(total, s);
                cpu_total.add(&s.cpu, s.seconds);
            }
            self.all_cpu.add(&cpu, seconds);
            seen = self.all.add(&self.opts, stats, seconds);
            self.all.stats.merge(stats);
        }
        let interrupted = subs.iter().any(|s| s.verdict.interrupted);
        self.interrupted |= interrupted;
        self.disk_full |= subs.iter().any(|s| s.verdict.disk_full);
        let end = seen || subs.iter().any(|s| s.verdict.full || s.verdict.interrupted || s.verdict.disk_full);
        Ok(Combined { decision: Decision { end, interrupted }, cpu })
    }

    /// The subinterval's rows: each rank's (overall, read, write), then the `all` rows.
    pub fn rows(&self, info: &StepInfo, subs: &[RankSubinterval], combined: &Combined) -> Vec<Record> {
        let mut out = Vec::with_capacity(3 * (subs.len() + 1));
        let first = &subs[0];
        for (label, s) in self.labels.iter().zip(subs) {
            let report = SubintervalReport {
                phase: s.phase,
                index: s.index,
                start_s: s.start_s,
                seconds: s.seconds,
                stats: &s.stats,
                cpu: s.cpu,
            };
            out.extend(subinterval_records(&StepInfo { host: label.clone(), ..info.clone() }, &report));
        }
        let report = SubintervalReport {
            phase: first.phase,
            index: first.index,
            start_s: first.start_s,
            seconds: subs.iter().map(|s| s.seconds).fold(0.0, f64::max),
            stats: &self.current,
            cpu: combined.cpu,
        };
        out.extend(subinterval_records(&StepInfo { host: ALL_HOST.into(), ..info.clone() }, &report));
        out
    }

    /// The step's summary rows: each rank's, then `all`; `engine` is the engine rank 0 ran.
    pub fn summary(&self, info: &StepInfo, engine: &'static str) -> Vec<Record> {
        let outcome = |measure: &IntervalStats, cpu: CpuUsage| StepOutcome {
            measure: measure.clone(),
            measure_seconds: self.all.seconds,
            // Across ranks the summary covers the whole measurement (no steady-state window yet).
            measured_seconds: self.all.seconds,
            steady_from: None,
            cpu,
            seen_enough: self.all.seen_enough_status(&self.opts),
            interrupted: self.interrupted,
            disk_full: self.disk_full,
            behind_s: 0.0,
            engine,
            raw: Vec::new(),
        };
        let mut out = Vec::new();
        for (label, (stats, cpu)) in self.labels.iter().zip(&self.ranks) {
            let info = StepInfo { host: label.clone(), ..info.clone() };
            out.extend(summary_records(&info, &outcome(stats, cpu.usage())));
        }
        let info = StepInfo { host: ALL_HOST.into(), ..info.clone() };
        out.extend(summary_records(&info, &outcome(&self.all.stats, self.all_cpu.usage())));
        out
    }

    /// The last subinterval combined, all ranks merged.
    pub fn current(&self) -> &IntervalStats {
        &self.current
    }

    /// The merged measurement (all ranks).
    pub fn measured(&self) -> &IntervalStats {
        &self.all.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::OpKind;
    use crate::options::{Iops, SeenEnoughMethod, SeenEnoughSpec, Transient};
    use crate::output::subinterval_columns;
    use crate::output::Value;
    use crate::scheduler::Verdict;
    use crate::stats::{IoTimes, Launch};

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn ranks_sharing_a_host_are_numbered() {
        assert_eq!(host_labels(&names(&["a", "b"])), names(&["a", "b"]));
        assert_eq!(host_labels(&names(&["lab1", "lab2", "lab1"])), names(&["lab1#1", "lab2", "lab1#2"]));
        assert_eq!(host_labels(&names(&["all"])), names(&["all#1"]));
    }

    #[test]
    fn cluster_cpu_counts_each_host_once() {
        let u = |busy: f64, cores: usize, own: f64| CpuUsage {
            busy_pct: Some(busy),
            sys_pct: None,
            iowait_pct: Some(0.0),
            cores,
            iogen_pct: own,
        };
        // Two ranks on a (2 cores, ~50 % busy), one on b (6 cores, 10 % busy).
        let c = cluster_cpu(&names(&["a", "a", "b"]), &[u(49.0, 2, 30.0), u(51.0, 2, 20.0), u(10.0, 6, 5.0)]);
        assert_eq!(c.cores, 8);
        assert!((c.busy_pct.unwrap() - (50.0 * 2.0 + 10.0 * 6.0) / 8.0).abs() < 1e-12);
        assert_eq!(c.sys_pct, None);
        assert!((c.iogen_pct - 55.0).abs() < 1e-12);
    }

    fn sub(phase: Phase, index: usize, ios: &[u64], verdict: Verdict) -> RankSubinterval {
        let mut stats = IntervalStats::default();
        for &ns in ios {
            stats.record(OpKind::Read, 4096, IoTimes { service_ns: ns, response_ns: ns, launch: Launch::Unscheduled });
        }
        let cpu = CpuUsage { busy_pct: Some(10.0), sys_pct: Some(1.0), iowait_pct: None, cores: 2, iogen_pct: 3.0 };
        // Through the wire, as rank 0 gets it.
        let report = SubintervalReport { phase, index, start_s: 0.0, seconds: 1.0, stats: &stats, cpu };
        super::super::wire::decode(&super::super::wire::encode(&report, verdict), 0).unwrap()
    }

    fn opts() -> Options {
        Options { target: "/tmp/x".into(), iops: Iops::Rate(300.0), ..Options::default() }
    }

    #[test]
    fn the_all_row_sums_counts_and_merges_latencies() {
        let mut agg = StepAggregate::new(&opts(), names(&["h", "h", "g"]));
        // Rank latencies 1..=100 µs, 101..=200 µs, 201..=300 µs: the union's p99 is 297 µs,
        // which no rank's own p99 (99, 198, 297) averages to.
        let lat = |r: u64| (1..=100).map(|i| (r * 100 + i) * 1000).collect::<Vec<u64>>();
        let subs: Vec<_> = (0..3).map(|r| sub(Phase::Measure, 1, &lat(r), Verdict::default())).collect();
        let c = agg.combine(&subs).unwrap();
        assert!(!c.decision.end);
        assert_eq!(agg.current().overall.ios, 300);
        let p99 = agg.current().overall.response_ms().unwrap().p99;
        assert!((p99 - 0.297).abs() < 0.0005, "{p99}");
        let info = StepInfo::new(&opts(), 1, "s", &[]);
        let rows = agg.rows(&info, &subs, &c);
        let cols = subinterval_columns(&[]);
        let at = |row: usize, name: &str| rows[row].values[cols.iter().position(|c| c == name).unwrap()].clone();
        assert_eq!(rows.len(), 12);
        let hosts: Vec<Value> = (0..4).map(|k| at(3 * k, "host")).collect();
        assert_eq!(hosts, ["h#1", "h#2", "g", "all"].map(|h| Value::Text(h.into())));
        assert_eq!(at(9, "iops"), Value::Float(300.0));
        assert_eq!(at(0, "iops"), Value::Float(100.0));
        assert_eq!(at(9, "cpu_cores"), Value::Int(4));
        let summary = agg.summary(&info, "null");
        assert_eq!(summary.len(), 12);
        assert_eq!(agg.measured().overall.ios, 300);
    }

    #[test]
    fn any_ranks_reason_ends_the_step_on_every_rank() {
        let mut agg = StepAggregate::new(&opts(), names(&["a", "b"]));
        let go = Verdict::default();
        let c = agg.combine(&[sub(Phase::Warmup, 1, &[1000], go), sub(Phase::Warmup, 1, &[1000], go)]).unwrap();
        assert_eq!(c.decision, Decision { end: false, interrupted: false });
        let stop = Verdict { interrupted: true, ..go };
        let c = agg.combine(&[sub(Phase::Measure, 1, &[1000], go), sub(Phase::Measure, 1, &[1000], stop)]).unwrap();
        assert_eq!(c.decision, Decision { end: true, interrupted: true });
        // A rank's own seen-enough does not end the step: only the aggregate's does.
        let mut agg = StepAggregate::new(&opts(), names(&["a", "b"]));
        let own = Verdict { seen_enough: true, ..go };
        let c = agg.combine(&[sub(Phase::Measure, 1, &[1000], own), sub(Phase::Measure, 1, &[1000], go)]).unwrap();
        assert!(!c.decision.end);
    }

    #[test]
    fn the_stop_rule_sees_the_aggregate() {
        // Rank IOPS swing 50/150 and 150/50 in turn: each rank's series is far from steady,
        // their sum is exactly 200 every subinterval, so the rule holds on the aggregate at once.
        // The precision rule alone (transient check off): the point is which series it sees.
        let spec = SeenEnoughSpec {
            accuracy: 0.05,
            confidence: 0.95,
            min_samples: 3,
            method: SeenEnoughMethod::Iid,
            transient: Transient::Off,
        };
        let o = Options { seen_enough: Some(spec), ..opts() };
        let mut agg = StepAggregate::new(&o, names(&["a", "b"]));
        let n = |k: u64| vec![1000; k as usize];
        let mut ended_at = None;
        for i in 1..=10 {
            let (x, y) = if i % 2 == 0 { (50, 150) } else { (150, 50) };
            let c = agg
                .combine(&[
                    sub(Phase::Measure, i, &n(x), Verdict::default()),
                    sub(Phase::Measure, i, &n(y), Verdict::default()),
                ])
                .unwrap();
            if c.decision.end {
                ended_at = Some(i);
                break;
            }
        }
        assert_eq!(ended_at, Some(3));
    }

    #[test]
    fn ranks_out_of_step_are_an_error() {
        let mut agg = StepAggregate::new(&opts(), names(&["a", "b"]));
        let go = Verdict::default();
        let e = agg.combine(&[sub(Phase::Measure, 2, &[], go), sub(Phase::Measure, 3, &[], go)]).err().unwrap();
        assert!(e.to_string().contains("rank 1 closed measure subinterval 3"), "{e}");
    }
}
