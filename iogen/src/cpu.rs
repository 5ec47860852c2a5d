//! CPU use over an interval: the host's from `/proc/stat` deltas, iogen's own from `getrusage`.

use std::time::Instant;

/// A point-in-time reading.
#[derive(Debug, Clone)]
pub struct CpuSample {
    at: Instant,
    /// Aggregate `cpu` line: user nice system idle iowait irq softirq steal (jiffies).
    host: Option<[u64; 8]>,
    cores: usize,
    /// iogen's user + system CPU time, µs.
    own_us: u64,
}

/// CPU use between two samples.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CpuUsage {
    /// Host busy % of all cores (everything but idle and iowait), 0–100.
    pub busy_pct: Option<f64>,
    /// Host system % (system + irq + softirq) of all cores, 0–100.
    pub sys_pct: Option<f64>,
    /// Host iowait % of all cores, 0–100.
    pub iowait_pct: Option<f64>,
    /// Online cores.
    pub cores: usize,
    /// iogen's own CPU time as % of one core (can exceed 100 with several threads).
    pub iogen_pct: f64,
}

impl CpuSample {
    /// Read `/proc/stat` and `getrusage(RUSAGE_SELF)` now.
    pub fn now() -> Self {
        let (host, cores) = read_proc_stat().map_or((None, 0), |(h, c)| (Some(h), c));
        let cores = if cores > 0 { cores } else { std::thread::available_parallelism().map_or(1, |n| n.get()) };
        CpuSample { at: Instant::now(), host, cores, own_us: own_cpu_us() }
    }

    /// Usage from `self` (earlier) to `later`.
    pub fn usage_until(&self, later: &CpuSample) -> CpuUsage {
        let wall = later.at.saturating_duration_since(self.at).as_secs_f64();
        let iogen_pct =
            if wall > 0.0 { later.own_us.saturating_sub(self.own_us) as f64 / 1e6 / wall * 100.0 } else { 0.0 };
        let (mut busy, mut sys, mut iowait) = (None, None, None);
        if let (Some(a), Some(b)) = (self.host, later.host) {
            let d: Vec<f64> = a.iter().zip(b.iter()).map(|(x, y)| y.saturating_sub(*x) as f64).collect();
            let total: f64 = d.iter().sum();
            if total > 0.0 {
                busy = Some((total - d[3] - d[4]) / total * 100.0);
                sys = Some((d[2] + d[5] + d[6]) / total * 100.0);
                iowait = Some(d[4] / total * 100.0);
            }
        }
        CpuUsage { busy_pct: busy, sys_pct: sys, iowait_pct: iowait, cores: later.cores, iogen_pct }
    }
}

fn read_proc_stat() -> Option<([u64; 8], usize)> {
    let text = std::fs::read_to_string("/proc/stat").ok()?;
    parse_proc_stat(&text)
}

/// Parse the aggregate `cpu` line and count the `cpuN` lines.
pub fn parse_proc_stat(text: &str) -> Option<([u64; 8], usize)> {
    let mut agg = None;
    let mut cores = 0;
    for line in text.lines() {
        let mut it = line.split_whitespace();
        match it.next() {
            Some("cpu") => {
                let mut v = [0u64; 8];
                for (slot, field) in v.iter_mut().zip(it) {
                    *slot = field.parse().ok()?;
                }
                agg = Some(v);
            }
            Some(name) if name.starts_with("cpu") => cores += 1,
            _ => {}
        }
    }
    agg.map(|a| (a, cores))
}

fn own_cpu_us() -> u64 {
    // SAFETY: getrusage only writes into the struct we pass.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
        return 0;
    }
    let us = |t: libc::timeval| t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64;
    us(ru.ru_utime) + us(ru.ru_stime)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_proc_stat() {
        let text =
            "cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 50 0 25 400 25 0 0 0 0 0\ncpu1 50 0 25 400 25 0 0 0 0 0\nintr 1\n";
        let (v, cores) = parse_proc_stat(text).unwrap();
        assert_eq!(cores, 2);
        assert_eq!(v[..5], [100, 0, 50, 800, 50]);
    }

    #[test]
    fn usage_between_samples() {
        let a = CpuSample { at: Instant::now(), host: Some([100, 0, 50, 800, 50, 0, 0, 0]), cores: 2, own_us: 0 };
        let b = CpuSample {
            at: a.at + std::time::Duration::from_secs(1),
            host: Some([200, 0, 100, 1600, 100, 0, 0, 0]),
            cores: 2,
            own_us: 250_000,
        };
        let u = a.usage_until(&b);
        assert!((u.busy_pct.unwrap() - 15.0).abs() < 1e-9);
        assert!((u.sys_pct.unwrap() - 5.0).abs() < 1e-9);
        assert!((u.iowait_pct.unwrap() - 5.0).abs() < 1e-9);
        assert!((u.iogen_pct - 25.0).abs() < 1e-9);
        let live = CpuSample::now();
        assert!(live.cores >= 1);
    }
}
