//! Output: rows as plain data ([`Record`]), exporters that turn them into text (CSV, JSON, a
//! table) without doing any I/O, and one [`LineWriter`] that writes whole lines and flushes.
//! The columns are documented in `docs/iogen-csv.md`.

mod exporters;
pub mod file;
mod rows;

pub use exporters::{CsvExporter, Exporter, JsonExporter, TableExporter};
pub use rows::{subinterval_records, summary_records, StepInfo};

use std::io::Write;

use anyhow::Context;

/// Subinterval CSV columns, in order (label columns follow).
pub const SUBINTERVAL_COLUMNS: [&str; 38] = [
    "host",
    "step",
    "step_name",
    "subinterval",
    "phase",
    "start_s",
    "seconds",
    "category",
    "target_iops",
    "iops",
    "mb_s",
    "block_size",
    "read_pct",
    "random_pct",
    "queue_depth",
    "service_ms_avg",
    "service_ms_p50",
    "service_ms_p90",
    "service_ms_p99",
    "service_ms_p999",
    "service_ms_max",
    "response_ms_avg",
    "response_ms_p50",
    "response_ms_p90",
    "response_ms_p99",
    "response_ms_p999",
    "response_ms_max",
    "avg_in_flight",
    "late_ios",
    "errors",
    "cpu_busy_pct",
    "cpu_sys_pct",
    "cpu_iowait_pct",
    "cpu_cores",
    "iogen_cpu_pct",
    "iogen_lag_ms_avg",
    "iogen_lag_ms_p99",
    "iogen_lag_ms_max",
];

/// Columns only the summary has (after the shared ones, before the labels).
pub const SUMMARY_EXTRA_COLUMNS: [&str; 4] = ["measure_seconds", "seen_enough", "achieved_pm", "engine"];

/// Subinterval columns followed by one column per label key.
pub fn subinterval_columns(label_keys: &[String]) -> Vec<String> {
    SUBINTERVAL_COLUMNS.iter().map(|s| s.to_string()).chain(label_keys.iter().cloned()).collect()
}

/// Summary columns: the subinterval columns without `subinterval,phase,start_s`, then
/// `measure_seconds,seen_enough,achieved_pm,engine`, then one column per label key.
pub fn summary_columns(label_keys: &[String]) -> Vec<String> {
    SUBINTERVAL_COLUMNS
        .iter()
        .filter(|c| !matches!(**c, "subinterval" | "phase" | "start_s"))
        .chain(SUMMARY_EXTRA_COLUMNS.iter())
        .map(|s| s.to_string())
        .chain(label_keys.iter().cloned())
        .collect()
}

/// One cell.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// Text.
    Text(String),
    /// A whole number.
    Int(u64),
    /// A real number (written with at most 6 decimals).
    Float(f64),
    /// No value (e.g. latency of a category without IOs).
    Empty,
}

impl Value {
    /// `Float` when present, else `Empty`.
    pub fn opt(v: Option<f64>) -> Value {
        v.filter(|x| x.is_finite()).map_or(Value::Empty, Value::Float)
    }

    /// Text form used by CSV and the table.
    pub fn to_text(&self) -> String {
        match self {
            Value::Text(s) => s.clone(),
            Value::Int(i) => i.to_string(),
            Value::Float(f) => format_float(*f),
            Value::Empty => String::new(),
        }
    }
}

/// At most 6 decimals, trailing zeros dropped: 5000, 0.123457, 12.5.
pub fn format_float(f: f64) -> String {
    if !f.is_finite() {
        return String::new();
    }
    let s = format!("{f:.6}");
    let s = if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s };
    if s == "-0" {
        "0".into()
    } else {
        s
    }
}

/// One row: values in the order of the columns given to the exporter.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// Cells.
    pub values: Vec<Value>,
}

/// Writes an exporter's text to a sink: the header when created, whole records at a time, and a
/// flush after every batch, so a reader (or an interrupted run) only ever sees complete lines.
pub struct LineWriter {
    out: Box<dyn Write>,
    exporter: Box<dyn Exporter>,
    what: String,
}

impl LineWriter {
    /// Start writing `columns` with `exporter` to `out`; `what` names the sink in errors.
    pub fn new(
        mut out: Box<dyn Write>,
        mut exporter: Box<dyn Exporter>,
        columns: &[String],
        what: &str,
    ) -> anyhow::Result<Self> {
        let head = exporter.begin(columns);
        out.write_all(head.as_bytes()).and_then(|_| out.flush()).with_context(|| format!("writing {what}"))?;
        Ok(LineWriter { out, exporter, what: what.to_string() })
    }

    /// Write a batch of records as one write, then flush.
    pub fn write(&mut self, records: &[Record]) -> anyhow::Result<()> {
        let text: String = records.iter().map(|r| self.exporter.record(r)).collect();
        self.out
            .write_all(text.as_bytes())
            .and_then(|_| self.out.flush())
            .with_context(|| format!("writing {}", self.what))
    }

    /// Write the exporter's closing text (e.g. JSON's `]`) and flush.
    pub fn finish(mut self) -> anyhow::Result<()> {
        let tail = self.exporter.finish();
        self.out
            .write_all(tail.as_bytes())
            .and_then(|_| self.out.flush())
            .with_context(|| format!("writing {}", self.what))
    }
}

/// The machine-readable column list (`iogen/schema/columns.json`), for tests that hold the writer
/// to it: the TypeScript reader and the docs are checked against the same file.
#[cfg(test)]
pub(crate) mod schema {
    /// `(name, type)` of the columns `file` (`subinterval` or `summary`) carries, in order.
    pub fn columns(file: &str) -> Vec<(String, String)> {
        let doc: serde_json::Value =
            serde_json::from_str(include_str!("../../schema/columns.json")).expect("columns.json is JSON");
        doc["columns"]
            .as_array()
            .expect("a columns array")
            .iter()
            .filter(|c| c["files"].as_array().expect("files").iter().any(|f| f == file))
            .map(|c| (c["name"].as_str().unwrap().to_string(), c["type"].as_str().unwrap().to_string()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_the_schema_columns_in_order() {
        let names = |file: &str| -> Vec<String> { schema::columns(file).into_iter().map(|(n, _)| n).collect() };
        assert_eq!(subinterval_columns(&[]), names("subinterval"));
        assert_eq!(summary_columns(&[]), names("summary"));
        let labelled = subinterval_columns(&["protocol".to_string()]);
        assert_eq!(labelled.last().map(String::as_str), Some("protocol"));
    }

    #[test]
    fn floats() {
        assert_eq!(format_float(5000.0), "5000");
        assert_eq!(format_float(0.1234567), "0.123457");
        assert_eq!(format_float(-0.0000001), "0");
        assert_eq!(format_float(f64::NAN), "");
    }

    #[test]
    fn writer_writes_whole_lines() {
        use std::sync::{Arc, Mutex};
        #[derive(Clone)]
        struct Shared(Arc<Mutex<Vec<u8>>>);
        impl Write for Shared {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let buf = Shared(Arc::new(Mutex::new(Vec::new())));
        let cols = vec!["a".to_string(), "b".to_string()];
        let mut w = LineWriter::new(Box::new(buf.clone()), Box::new(CsvExporter), &cols, "test").unwrap();
        w.write(&[Record { values: vec![Value::Text("x,y".into()), Value::Float(1.5)] }]).unwrap();
        w.finish().unwrap();
        assert_eq!(String::from_utf8(buf.0.lock().unwrap().clone()).unwrap(), "a,b\n\"x,y\",1.5\n");
    }
}
