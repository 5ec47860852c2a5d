//! Output: rows as plain data ([`Record`]), exporters that turn them into text (CSV, JSON, a
//! table) without doing any I/O, and one [`LineWriter`] that writes whole lines and flushes.
//! The columns are documented in `docs/iogen-csv.md`.

mod exporters;
pub mod file;
mod rows;

pub use exporters::{CsvExporter, Exporter, JsonExporter, TableExporter};
pub use rows::{mark_interrupted, subinterval_records, summary_records, Interruption, StepInfo};

use std::io::Write;

use anyhow::Context;

/// The machine-readable column list, `iogen/schema/columns.json`: the one place that names the
/// columns. The TypeScript reader and the docs are held to the same file.
const SCHEMA_JSON: &str = include_str!("../../schema/columns.json");

/// One column of the schema.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct Column {
    /// Header name.
    pub name: String,
    /// `text`, `integer`, `number` or `number_or_max` (a number or the text `max`).
    #[serde(rename = "type")]
    pub kind: String,
    /// Unit, e.g. `ms`, `IO/s` (empty for counts and text).
    pub unit: String,
    /// What the column holds.
    pub description: String,
    /// The outputs that carry it: `subinterval` (`--csv`) and/or `summary` (`--summary`, `--json`).
    pub files: Vec<String>,
}

#[derive(serde::Deserialize)]
struct Schema {
    columns: Vec<Column>,
}

/// Every column iogen writes, in schema order (parsed once; the file is compiled in).
pub fn schema_columns() -> &'static [Column] {
    static COLUMNS: std::sync::LazyLock<Vec<Column>> = std::sync::LazyLock::new(|| {
        serde_json::from_str::<Schema>(SCHEMA_JSON).expect("iogen/schema/columns.json is a valid schema").columns
    });
    &COLUMNS
}

/// The columns of one output (`subinterval` or `summary`), in order, then one per label key.
fn columns_of(file: &str, label_keys: &[String]) -> Vec<String> {
    schema_columns()
        .iter()
        .filter(|c| c.files.iter().any(|f| f == file))
        .map(|c| c.name.clone())
        .chain(label_keys.iter().cloned())
        .collect()
}

/// Subinterval CSV columns (`--csv`), then one column per label key.
pub fn subinterval_columns(label_keys: &[String]) -> Vec<String> {
    columns_of("subinterval", label_keys)
}

/// Summary columns (`--summary`, `--json`): the subinterval columns without
/// `subinterval,phase,start_s`, then `measure_seconds,seen_enough,achieved_pm,engine`, then one
/// column per label key.
pub fn summary_columns(label_keys: &[String]) -> Vec<String> {
    columns_of("summary", label_keys)
}

/// Whether `name` is a column iogen writes (a label must not be named so).
pub fn is_output_column(name: &str) -> bool {
    schema_columns().iter().any(|c| c.name == name)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_come_from_the_schema() {
        let sub = subinterval_columns(&["protocol".to_string()]);
        assert_eq!(sub.len(), 42);
        assert_eq!(sub[..4], ["host", "step", "step_name", "subinterval"]);
        assert_eq!(sub.last().map(String::as_str), Some("protocol"));
        let sum = summary_columns(&[]);
        assert!(!sum.iter().any(|c| c == "phase" || c == "subinterval" || c == "start_s"));
        assert_eq!(
            sum[sum.len() - 8..],
            [
                "measure_seconds",
                "seen_enough",
                "achieved_pm",
                "engine",
                "steady_from",
                "preconditioned",
                "interrupted_by",
                "interrupted_at_s"
            ]
        );
        assert!(is_output_column("late_ios") && is_output_column("engine") && !is_output_column("protocol"));
        for c in schema_columns() {
            assert!(matches!(c.kind.as_str(), "text" | "integer" | "number" | "number_or_max"), "{}", c.name);
            assert!(!c.files.is_empty() && !c.description.is_empty(), "{}", c.name);
        }
    }

    #[test]
    fn the_format_docs_name_every_column() {
        let docs = include_str!("../../../docs/iogen-csv.md");
        for c in schema_columns() {
            assert!(docs.contains(&format!("`{}`", c.name)), "docs/iogen-csv.md does not name `{}`", c.name);
        }
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
