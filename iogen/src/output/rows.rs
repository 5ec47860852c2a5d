//! Building records from measurements, in the column order of `iogen/schema/columns.json`
//! (`subinterval_columns`, `summary_columns`); the tests hold every cell to its column's type.

use super::{Record, Value};
use crate::cpu::CpuUsage;
use crate::options::{Iops, Options};
use crate::scheduler::{SeenEnoughStatus, StepOutcome, SubintervalReport};
use crate::stats::{Category, CategoryStats, IntervalStats};

/// What identifies a step in every row.
#[derive(Debug, Clone)]
pub struct StepInfo {
    /// Host name.
    pub host: String,
    /// 1-based step number.
    pub step: usize,
    /// Step name.
    pub step_name: String,
    /// Requested IOPS (`None`: max).
    pub target_iops: Option<f64>,
    /// Bytes per IO.
    pub block_size: u64,
    /// Read share, 0–100.
    pub read_pct: f64,
    /// Random share, 0–100.
    pub random_pct: f64,
    /// Most IOs in flight.
    pub queue_depth: usize,
    /// One value per label key, in the order of the label columns (empty when absent).
    pub labels: Vec<String>,
    /// `preconditioned`: `Some(true)` when `--precondition` wrote the step's IO range earlier in
    /// this run, `Some(false)` when the step writes to space the run did not precondition, `None`
    /// for a read-only step without `--precondition`.
    pub preconditioned: Option<bool>,
}

impl StepInfo {
    /// What identifies step `step` (1-based) run with `opts`.
    pub fn new(opts: &Options, step: usize, step_name: &str, labels: &[String]) -> Self {
        StepInfo {
            host: opts.host.clone(),
            step,
            step_name: step_name.to_string(),
            target_iops: match opts.iops {
                Iops::Rate(r) => Some(r),
                Iops::Max => None,
            },
            block_size: opts.block_size,
            read_pct: opts.read_pct,
            random_pct: opts.random_pct,
            queue_depth: opts.queue_depth,
            labels: labels.to_vec(),
            preconditioned: opts.workload_writes().then_some(false),
        }
    }

    fn target(&self) -> Value {
        self.target_iops.map_or(Value::Text("max".into()), Value::Float)
    }

    fn workload(&self) -> [Value; 4] {
        [
            Value::Int(self.block_size),
            Value::Float(self.read_pct),
            Value::Float(self.random_pct),
            Value::Int(self.queue_depth as u64),
        ]
    }
}

/// `iops` … `errors` for one category over `seconds`.
fn metrics(info: &StepInfo, c: &CategoryStats, seconds: f64) -> Vec<Value> {
    let per_s = |x: f64| if seconds > 0.0 { Value::Float(x / seconds) } else { Value::Empty };
    let mut v = vec![info.target(), per_s(c.ios as f64), per_s(c.bytes as f64 / 1e6)];
    v.extend(info.workload());
    for lat in [c.service_ms(), c.response_ms()] {
        match lat {
            Some(l) => v.extend([l.avg, l.p50, l.p90, l.p99, l.p999, l.max].map(Value::Float)),
            None => v.extend(std::iter::repeat_n(Value::Empty, 6)),
        }
    }
    v.push(Value::Float(c.avg_in_flight(seconds)));
    v.push(Value::Int(c.late_ios));
    v.push(Value::Int(c.errors));
    v
}

fn cpu(u: &CpuUsage) -> [Value; 5] {
    [
        Value::opt(u.busy_pct),
        Value::opt(u.sys_pct),
        Value::opt(u.iowait_pct),
        Value::Int(u.cores as u64),
        Value::Float(u.iogen_pct),
    ]
}

/// iogen's own launch lag over the IOs that found a free slot (empty without such IOs).
fn lag(c: &CategoryStats) -> [Value; 3] {
    match c.lag_ms() {
        Some(l) => [l.avg, l.p99, l.max].map(Value::Float),
        None => [Value::Empty, Value::Empty, Value::Empty],
    }
}

/// `preconditioned`, `interrupted_by`, `interrupted_at_s`. The interruption is not known when a
/// record is built: the writer fills it in ([`mark_interrupted`]).
fn run_notes(info: &StepInfo) -> [Value; 3] {
    let preconditioned = match info.preconditioned {
        Some(true) => Value::Text("yes".into()),
        Some(false) => Value::Text("no".into()),
        None => Value::Empty,
    };
    [preconditioned, Value::Empty, Value::Empty]
}

/// A signal that cut the run: its name (`SIGINT`, `SIGTERM`, or `signal` when only another MPI
/// rank caught it) and when it arrived, seconds since the step started (None: not known).
#[derive(Debug, Clone, PartialEq)]
pub struct Interruption {
    /// `interrupted_by`.
    pub by: String,
    /// `interrupted_at_s`.
    pub at_s: Option<f64>,
}

/// Write `cut` into the `interrupted_by` and `interrupted_at_s` cells of `records`, whose columns
/// are `columns` (either file's).
pub fn mark_interrupted(columns: &[String], records: &mut [Record], cut: &Interruption) {
    let by = columns.iter().position(|c| c == "interrupted_by");
    let at = columns.iter().position(|c| c == "interrupted_at_s");
    for r in records {
        if let Some(v) = by.and_then(|i| r.values.get_mut(i)) {
            *v = Value::Text(cut.by.clone());
        }
        if let Some(v) = at.and_then(|i| r.values.get_mut(i)) {
            *v = Value::opt(cut.at_s);
        }
    }
}

fn labels(info: &StepInfo) -> impl Iterator<Item = Value> + '_ {
    info.labels.iter().map(|l| Value::Text(l.clone()))
}

/// The three rows (overall, read, write) of one subinterval.
pub fn subinterval_records(info: &StepInfo, r: &SubintervalReport) -> Vec<Record> {
    per_category(r.stats, |cat, c| {
        let mut v = vec![
            Value::Text(info.host.clone()),
            Value::Int(info.step as u64),
            Value::Text(info.step_name.clone()),
            Value::Int(r.index as u64),
            Value::Text(r.phase.name().into()),
            Value::Float(r.start_s),
            Value::Float(r.seconds),
            Value::Text(cat.name().into()),
        ];
        v.extend(metrics(info, c, r.seconds));
        v.extend(cpu(&r.cpu));
        v.extend(lag(c));
        v.extend(run_notes(info));
        v.extend(labels(info));
        Record { values: v }
    })
}

/// The three summary rows (overall, read, write) of a step, from the merged measurement.
pub fn summary_records(info: &StepInfo, o: &StepOutcome) -> Vec<Record> {
    let (seen, achieved) = match o.seen_enough {
        SeenEnoughStatus::Off { achieved } => ("off", achieved),
        SeenEnoughStatus::On { result: Some(r) } => (if r.seen_enough { "yes" } else { "no" }, Some(r.achieved)),
        SeenEnoughStatus::On { result: None } => ("no", None),
    };
    per_category(&o.measure, |cat, c| {
        let mut v = vec![
            Value::Text(info.host.clone()),
            Value::Int(info.step as u64),
            Value::Text(info.step_name.clone()),
            Value::Float(o.measure_seconds),
            Value::Text(cat.name().into()),
        ];
        v.extend(metrics(info, c, o.measure_seconds));
        v.extend(cpu(&o.cpu));
        v.extend(lag(c));
        v.push(Value::Float(o.measured_seconds));
        v.push(Value::Text(seen.into()));
        v.push(Value::opt(achieved));
        v.push(Value::Text(o.engine.into()));
        v.push(o.steady_from.map_or(Value::Empty, |f| Value::Int(f as u64)));
        v.extend(run_notes(info));
        v.extend(labels(info));
        Record { values: v }
    })
}

fn per_category(s: &IntervalStats, mut f: impl FnMut(Category, &CategoryStats) -> Record) -> Vec<Record> {
    Category::ALL.iter().map(|&cat| f(cat, s.get(cat))).collect()
}

#[cfg(test)]
mod tests {
    use super::super::{subinterval_columns, summary_columns};
    use super::*;
    use crate::engine::OpKind;
    use crate::scheduler::Phase;
    use crate::stats::{IoTimes, Launch};

    fn info() -> StepInfo {
        StepInfo {
            host: "h".into(),
            step: 1,
            step_name: "s".into(),
            target_iops: Some(100.0),
            block_size: 4096,
            read_pct: 70.0,
            random_pct: 100.0,
            queue_depth: 4,
            labels: vec!["nfs".into()],
            preconditioned: Some(false),
        }
    }

    #[test]
    fn rows_match_the_columns() {
        let mut st = IntervalStats::default();
        let on_time =
            IoTimes { service_ns: 1_000_000, response_ns: 2_000_000, launch: Launch::OnTime { lag_ns: 50_000 } };
        for _ in 0..70 {
            st.record(OpKind::Read, 4096, on_time);
        }
        let late = IoTimes { service_ns: 3_000_000, response_ns: 3_000_000, launch: Launch::Late };
        for _ in 0..30 {
            st.record(OpKind::Write, 4096, late);
        }
        let cpu = CpuUsage { busy_pct: Some(10.0), sys_pct: Some(2.0), iowait_pct: None, cores: 2, iogen_pct: 5.0 };
        let rep = SubintervalReport { phase: Phase::Measure, index: 3, start_s: 2.0, seconds: 1.0, stats: &st, cpu };
        let rows = subinterval_records(&info(), &rep);
        let cols = subinterval_columns(&["protocol".into()]);
        assert_eq!(rows.len(), 3);
        for r in &rows {
            assert_eq!(r.values.len(), cols.len());
        }
        let get = |row: usize, name: &str| rows[row].values[cols.iter().position(|c| c == name).unwrap()].clone();
        assert_eq!(get(0, "iops"), Value::Float(100.0));
        assert_eq!(get(1, "category"), Value::Text("read".into()));
        assert_eq!(get(2, "late_ios"), Value::Int(30));
        assert_eq!(get(0, "service_ms_avg"), Value::Float(1.6));
        assert_eq!(get(0, "cpu_iowait_pct"), Value::Empty);
        assert_eq!(get(0, "protocol"), Value::Text("nfs".into()));
        // Lag only over the 70 on-time reads; the late writes have none.
        assert_eq!(get(1, "iogen_lag_ms_avg"), Value::Float(0.05));
        assert_eq!(get(0, "iogen_lag_ms_avg"), Value::Float(0.05));
        assert_eq!(get(2, "iogen_lag_ms_max"), Value::Empty);
        let out = StepOutcome {
            measure: st,
            measure_seconds: 2.0,
            measured_seconds: 2.0,
            steady_from: None,
            cpu,
            seen_enough: SeenEnoughStatus::Off { achieved: Some(0.01) },
            interrupted: false,
            disk_full: false,
            behind_s: 0.0,
            engine: "null",
            raw: Vec::new(),
        };
        let sum = summary_records(&info(), &out);
        let scols = summary_columns(&["protocol".into()]);
        assert!(sum.iter().all(|r| r.values.len() == scols.len()));
        let gets = |name: &str| sum[0].values[scols.iter().position(|c| c == name).unwrap()].clone();
        assert_eq!(gets("iops"), Value::Float(50.0));
        assert_eq!(gets("seen_enough"), Value::Text("off".into()));
        assert_eq!(gets("measure_seconds"), Value::Float(2.0));
        assert_eq!(gets("engine"), Value::Text("null".into()));
        assert_types(&sum, "summary");
        assert_types(&rows, "subinterval");
        // The run notes: a writing step not preconditioned says so; no interruption until marked.
        assert_eq!(gets("preconditioned"), Value::Text("no".into()));
        assert_eq!(get(0, "preconditioned"), Value::Text("no".into()));
        assert_eq!(gets("interrupted_by"), Value::Empty);
        let mut marked = rows.clone();
        let cut = Interruption { by: "SIGTERM".into(), at_s: Some(2.25) };
        mark_interrupted(&cols, &mut marked, &cut);
        let at = |name: &str| cols.iter().position(|c| c == name).unwrap();
        for r in &marked {
            assert_eq!(r.values[at("interrupted_by")], Value::Text("SIGTERM".into()));
            assert_eq!(r.values[at("interrupted_at_s")], Value::Float(2.25));
            assert_eq!(r.values[at("protocol")], Value::Text("nfs".into()), "labels untouched");
        }
        assert_types(&marked, "subinterval");
        let read_only = StepInfo { preconditioned: None, ..info() };
        let quiet = summary_records(&read_only, &out);
        assert_eq!(quiet[0].values[scols.iter().position(|c| c == "preconditioned").unwrap()], Value::Empty);
    }

    /// Every cell has the type `iogen/schema/columns.json` gives its column (labels are text).
    fn assert_types(records: &[Record], file: &str) {
        let schema: Vec<_> =
            super::super::schema_columns().iter().filter(|c| c.files.iter().any(|f| f == file)).collect();
        for r in records {
            for (k, v) in r.values.iter().enumerate() {
                let (name, ty) = schema.get(k).map_or(("label", "text"), |c| (c.name.as_str(), c.kind.as_str()));
                // Text columns that may have no value (`preconditioned`, `interrupted_by`) are empty
                // then, like numbers: an empty CSV cell, `null` in JSON.
                let may_be_empty = matches!(name, "preconditioned" | "interrupted_by");
                let ok = match (ty, v) {
                    ("text", Value::Text(_)) | ("integer", Value::Int(_) | Value::Empty) => true,
                    ("text", Value::Empty) => may_be_empty,
                    ("number", Value::Float(_) | Value::Empty) => true,
                    ("number_or_max", Value::Float(_)) => true,
                    ("number_or_max", Value::Text(t)) => t == "max",
                    _ => false,
                };
                assert!(ok, "{file} column {name} ({ty}) holds {v:?}");
            }
        }
    }
}
