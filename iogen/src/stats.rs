//! Counters and latency histograms of one subinterval (or, merged, of a whole phase), per
//! category. HdrHistogram with 3 significant digits from 1 ns to 1 hour: memory stays flat
//! however many IOs complete. Averages come from exact sums, percentiles from the histograms.
//!
//! Besides service and response time, each category keeps iogen's own *launch lag*: launch −
//! scheduled time of the IOs that found a free slot at their scheduled time. For them the lag is
//! the generator's lateness alone (timer wake-up, reaping, a thread without a CPU), not queueing;
//! the IOs that found every slot busy are counted in `late_ios` instead, and their wait is real
//! queueing in front of the device.

use hdrhistogram::Histogram;

use crate::engine::OpKind;

/// Highest latency a histogram records exactly (1 hour in ns); longer values are clamped.
const MAX_NS: u64 = 3_600_000_000_000;

/// The three categories every row is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Category {
    /// Reads and writes together.
    Overall,
    /// Reads only.
    Read,
    /// Writes only.
    Write,
}

impl Category {
    /// All categories in output order.
    pub const ALL: [Category; 3] = [Category::Overall, Category::Read, Category::Write];

    /// Name used in the `category` column.
    pub fn name(self) -> &'static str {
        match self {
            Category::Overall => "overall",
            Category::Read => "read",
            Category::Write => "write",
        }
    }
}

/// Counters of one category.
#[derive(Debug, Clone)]
pub struct CategoryStats {
    /// IOs completed without error.
    pub ios: u64,
    /// Bytes they moved.
    pub bytes: u64,
    /// IOs that failed or transferred fewer bytes than asked.
    pub errors: u64,
    /// Completed IOs that found every slot busy at their scheduled time.
    pub late_ios: u64,
    /// Sum of service times, ns.
    pub service_sum_ns: u128,
    /// Sum of response times, ns.
    pub response_sum_ns: u128,
    /// Service time histogram, ns.
    pub service: Histogram<u64>,
    /// Response time histogram, ns.
    pub response: Histogram<u64>,
    /// Completed IOs that had a scheduled time and found a free slot at it (their launch lag is
    /// in `lag_sum_ns` and `lag`).
    pub on_time_ios: u64,
    /// Sum of launch lags (launch − scheduled) of the on-time IOs, ns.
    pub lag_sum_ns: u128,
    /// Launch lag histogram of the on-time IOs, ns (a lag of 0 is recorded as 1 ns).
    pub lag: Histogram<u64>,
}

/// How an IO came to be launched, for the late and lag counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Launch {
    /// `--iops max`: no schedule, launched the moment a slot freed (neither late nor lagging).
    Unscheduled,
    /// A slot was free at the scheduled time; launched `lag_ns` after it.
    OnTime {
        /// Launch − scheduled time, ns.
        lag_ns: u64,
    },
    /// Every slot was busy at the scheduled time: it waited for one (queueing).
    Late,
}

/// Times of one completed IO.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IoTimes {
    /// Completion − launch, ns.
    pub service_ns: u64,
    /// Completion − scheduled time, ns.
    pub response_ns: u64,
    /// Late, on time (with its lag) or unscheduled.
    pub launch: Launch,
}

impl Default for CategoryStats {
    fn default() -> Self {
        CategoryStats {
            ios: 0,
            bytes: 0,
            errors: 0,
            late_ios: 0,
            service_sum_ns: 0,
            response_sum_ns: 0,
            service: Histogram::new_with_bounds(1, MAX_NS, 3).expect("histogram bounds"),
            response: Histogram::new_with_bounds(1, MAX_NS, 3).expect("histogram bounds"),
            on_time_ios: 0,
            lag_sum_ns: 0,
            lag: Histogram::new_with_bounds(1, MAX_NS, 3).expect("histogram bounds"),
        }
    }
}

/// Latency summary in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Latency {
    /// Mean.
    pub avg: f64,
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
    /// 99.9th percentile.
    pub p999: f64,
    /// Largest.
    pub max: f64,
}

impl CategoryStats {
    fn record(&mut self, bytes: u64, t: IoTimes) {
        self.ios += 1;
        self.bytes += bytes;
        self.service_sum_ns += u128::from(t.service_ns);
        self.response_sum_ns += u128::from(t.response_ns);
        self.service.saturating_record(t.service_ns.clamp(1, MAX_NS));
        self.response.saturating_record(t.response_ns.clamp(1, MAX_NS));
        match t.launch {
            Launch::Unscheduled => {}
            Launch::Late => self.late_ios += 1,
            Launch::OnTime { lag_ns } => {
                self.on_time_ios += 1;
                self.lag_sum_ns += u128::from(lag_ns);
                self.lag.saturating_record(lag_ns.clamp(1, MAX_NS));
            }
        }
    }

    /// Add another interval's counts (exact: histograms are merged, not averaged).
    pub fn merge(&mut self, other: &CategoryStats) {
        self.ios += other.ios;
        self.bytes += other.bytes;
        self.errors += other.errors;
        self.late_ios += other.late_ios;
        self.service_sum_ns += other.service_sum_ns;
        self.response_sum_ns += other.response_sum_ns;
        self.service.add(&other.service).expect("same histogram bounds");
        self.response.add(&other.response).expect("same histogram bounds");
        self.on_time_ios += other.on_time_ios;
        self.lag_sum_ns += other.lag_sum_ns;
        self.lag.add(&other.lag).expect("same histogram bounds");
    }

    fn latency(h: &Histogram<u64>, sum_ns: u128, n: u64) -> Option<Latency> {
        if n == 0 {
            return None;
        }
        let ms = |ns: u64| ns as f64 / 1e6;
        Some(Latency {
            avg: sum_ns as f64 / n as f64 / 1e6,
            p50: ms(h.value_at_quantile(0.50)),
            p90: ms(h.value_at_quantile(0.90)),
            p99: ms(h.value_at_quantile(0.99)),
            p999: ms(h.value_at_quantile(0.999)),
            max: ms(h.max()),
        })
    }

    /// Service time summary (None without completed IOs).
    pub fn service_ms(&self) -> Option<Latency> {
        Self::latency(&self.service, self.service_sum_ns, self.ios)
    }

    /// Response time summary (None without completed IOs).
    pub fn response_ms(&self) -> Option<Latency> {
        Self::latency(&self.response, self.response_sum_ns, self.ios)
    }

    /// iogen's launch lag over the on-time IOs (None when there were none, e.g. with `--iops max`).
    pub fn lag_ms(&self) -> Option<Latency> {
        Self::latency(&self.lag, self.lag_sum_ns, self.on_time_ios)
    }

    /// Average IOs in flight over `seconds` by Little's law: Σ service / elapsed.
    pub fn avg_in_flight(&self, seconds: f64) -> f64 {
        if seconds > 0.0 {
            self.service_sum_ns as f64 / 1e9 / seconds
        } else {
            0.0
        }
    }
}

/// Counters of all three categories for one interval.
#[derive(Debug, Clone, Default)]
pub struct IntervalStats {
    /// Reads and writes.
    pub overall: CategoryStats,
    /// Reads.
    pub read: CategoryStats,
    /// Writes.
    pub write: CategoryStats,
}

impl IntervalStats {
    /// Record a completed IO in its category and in `overall`.
    pub fn record(&mut self, kind: OpKind, bytes: u64, times: IoTimes) {
        self.overall.record(bytes, times);
        self.kind_mut(kind).record(bytes, times);
    }

    /// Count a failed IO.
    pub fn record_error(&mut self, kind: OpKind) {
        self.overall.errors += 1;
        self.kind_mut(kind).errors += 1;
    }

    fn kind_mut(&mut self, kind: OpKind) -> &mut CategoryStats {
        match kind {
            OpKind::Read => &mut self.read,
            OpKind::Write => &mut self.write,
        }
    }

    /// The counters of one category.
    pub fn get(&self, c: Category) -> &CategoryStats {
        match c {
            Category::Overall => &self.overall,
            Category::Read => &self.read,
            Category::Write => &self.write,
        }
    }

    /// Add another interval.
    pub fn merge(&mut self, other: &IntervalStats) {
        self.overall.merge(&other.overall);
        self.read.merge(&other.read);
        self.write.merge(&other.write);
    }

    /// Empty the counters, keeping the histogram allocations.
    pub fn reset(&mut self) {
        for c in [&mut self.overall, &mut self.read, &mut self.write] {
            c.ios = 0;
            c.bytes = 0;
            c.errors = 0;
            c.late_ios = 0;
            c.service_sum_ns = 0;
            c.response_sum_ns = 0;
            c.service.reset();
            c.response.reset();
            c.on_time_ios = 0;
            c.lag_sum_ns = 0;
            c.lag.reset();
        }
    }
}

/// One category's counters with its histograms stored sparsely, as (bucket value, count) pairs of
/// the recorded buckets: a few KiB where a full histogram takes ~256 KiB. Adding it back to a
/// [`CategoryStats`] records every value in the same bucket, so the merged percentiles are exact.
#[derive(Debug, Clone, Default)]
struct SparseCategory {
    counters: [u128; 8],
    service: Vec<(u64, u64)>,
    response: Vec<(u64, u64)>,
    lag: Vec<(u64, u64)>,
}

fn sparse(h: &Histogram<u64>) -> Vec<(u64, u64)> {
    h.iter_recorded().map(|v| (v.value_iterated_to(), v.count_at_value())).collect()
}

fn add_sparse(h: &mut Histogram<u64>, v: &[(u64, u64)]) {
    for &(value, count) in v {
        h.saturating_record_n(value.clamp(1, MAX_NS), count);
    }
}

/// The counters of a stretch of subintervals kept compactly, so a step can report any later
/// stretch of its measurement (the steady-state window of `--seen-enough`) without holding full
/// histograms per subinterval.
#[derive(Debug, Clone, Default)]
pub struct CompactStats([SparseCategory; 3]);

impl CompactStats {
    /// A compact copy of `s`.
    pub fn of(s: &IntervalStats) -> Self {
        let one = |c: &CategoryStats| SparseCategory {
            counters: [
                u128::from(c.ios),
                u128::from(c.bytes),
                u128::from(c.errors),
                u128::from(c.late_ios),
                c.service_sum_ns,
                c.response_sum_ns,
                u128::from(c.on_time_ios),
                c.lag_sum_ns,
            ],
            service: sparse(&c.service),
            response: sparse(&c.response),
            lag: sparse(&c.lag),
        };
        CompactStats([one(&s.overall), one(&s.read), one(&s.write)])
    }

    /// Add these counters to `s`.
    pub fn add_to(&self, s: &mut IntervalStats) {
        for (c, v) in [&mut s.overall, &mut s.read, &mut s.write].into_iter().zip(self.0.iter()) {
            let [ios, bytes, errors, late, service, response, on_time, lag] = v.counters;
            c.ios += ios as u64;
            c.bytes += bytes as u64;
            c.errors += errors as u64;
            c.late_ios += late as u64;
            c.service_sum_ns += service;
            c.response_sum_ns += response;
            c.on_time_ios += on_time as u64;
            c.lag_sum_ns += lag;
            add_sparse(&mut c.service, &v.service);
            add_sparse(&mut c.response, &v.response);
            add_sparse(&mut c.lag, &v.lag);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_merges_and_summarises() {
        let mut a = IntervalStats::default();
        for i in 1..=100u64 {
            let launch = if i > 90 { Launch::Late } else { Launch::OnTime { lag_ns: i * 1000 } };
            a.record(OpKind::Read, 4096, IoTimes { service_ns: i * 1_000_000, response_ns: i * 2_000_000, launch });
        }
        a.record_error(OpKind::Write);
        let mut b = IntervalStats::default();
        let unscheduled = IoTimes { service_ns: 500_000_000, response_ns: 500_000_000, launch: Launch::Unscheduled };
        b.record(OpKind::Write, 4096, unscheduled);
        let mut m = IntervalStats::default();
        m.merge(&a);
        m.merge(&b);
        assert_eq!(m.overall.ios, 101);
        assert_eq!(m.read.ios, 100);
        assert_eq!(m.write.ios, 1);
        assert_eq!(m.write.errors, 1);
        assert_eq!(m.overall.late_ios, 10);
        // Lag of the 90 on-time IOs only: 1..=90 µs, mean 45.5 µs; late and unscheduled IOs add none.
        assert_eq!(m.overall.on_time_ios, 90);
        let lag = m.overall.lag_ms().unwrap();
        assert!((lag.avg - 0.0455).abs() < 1e-12, "{}", lag.avg);
        assert!((lag.max - 0.090).abs() < 0.0001, "{}", lag.max);
        assert!((lag.p99 - 0.090).abs() < 0.0001, "{}", lag.p99);
        assert!(b.overall.lag_ms().is_none());
        let s = a.read.service_ms().unwrap();
        assert!((s.avg - 50.5).abs() < 1e-9);
        assert!((s.p50 - 50.0).abs() < 0.1, "{}", s.p50);
        assert!((s.p90 - 90.0).abs() < 0.1);
        assert!((s.max - 100.0).abs() < 0.1);
        assert!((a.read.avg_in_flight(1.0) - 5.05).abs() < 1e-9);
        assert!(m.write.response_ms().unwrap().max > 499.0);
        assert!(IntervalStats::default().overall.service_ms().is_none());
        m.reset();
        assert_eq!(m.overall.ios, 0);
        assert!(m.overall.lag_ms().is_none());
        assert!(m.overall.service_ms().is_none());
    }
}
