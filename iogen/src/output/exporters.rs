//! Exporters: text for a header, each record and the end. No I/O here.

use super::{Record, Value};

/// Turns records into text. `begin` is called once with the columns, then `record` per row,
/// then `finish`.
pub trait Exporter {
    /// Text before the first record (e.g. the CSV header line).
    fn begin(&mut self, columns: &[String]) -> String;
    /// Text of one record, ending with a newline.
    fn record(&mut self, record: &Record) -> String;
    /// Text after the last record.
    fn finish(&mut self) -> String;
}

/// RFC 4180 CSV (comma, `\n`, quoting where needed) via the `csv` crate.
pub struct CsvExporter;

fn csv_line<I: IntoIterator<Item = String>>(cells: I) -> String {
    let mut w = csv::WriterBuilder::new().terminator(csv::Terminator::Any(b'\n')).from_writer(Vec::new());
    let cells: Vec<String> = cells.into_iter().collect();
    w.write_record(&cells).expect("writing to memory");
    String::from_utf8(w.into_inner().expect("flushing to memory")).expect("UTF-8 in, UTF-8 out")
}

impl Exporter for CsvExporter {
    fn begin(&mut self, columns: &[String]) -> String {
        csv_line(columns.iter().cloned())
    }
    fn record(&mut self, record: &Record) -> String {
        csv_line(record.values.iter().map(Value::to_text))
    }
    fn finish(&mut self) -> String {
        String::new()
    }
}

/// A JSON array of objects keyed by column name, one object per line.
#[derive(Default)]
pub struct JsonExporter {
    columns: Vec<String>,
    count: usize,
}

impl Exporter for JsonExporter {
    fn begin(&mut self, columns: &[String]) -> String {
        self.columns = columns.to_vec();
        "[\n".into()
    }
    fn record(&mut self, record: &Record) -> String {
        let mut map = serde_json::Map::new();
        for (c, v) in self.columns.iter().zip(&record.values) {
            let j = match v {
                Value::Text(s) => serde_json::Value::String(s.clone()),
                Value::Int(i) => serde_json::Value::from(*i),
                Value::Float(f) => {
                    serde_json::Number::from_f64(*f).map_or(serde_json::Value::Null, serde_json::Value::Number)
                }
                Value::Empty => serde_json::Value::Null,
            };
            map.insert(c.clone(), j);
        }
        let sep = if self.count == 0 { "  " } else { ", " };
        self.count += 1;
        format!("{sep}{}\n", serde_json::Value::Object(map))
    }
    fn finish(&mut self) -> String {
        "]\n".into()
    }
}

/// A fixed-width table for people: a chosen subset of the columns, right-aligned numbers.
#[derive(Default)]
pub struct TableExporter {
    picks: Vec<(usize, usize)>,
}

/// Columns the table shows (when present) and their widths.
const TABLE_COLUMNS: [(&str, &str, usize); 16] = [
    ("step", "step", 4),
    ("category", "category", 8),
    ("target_iops", "target", 9),
    ("iops", "IOPS", 10),
    ("mb_s", "MB/s", 9),
    ("service_ms_avg", "svc avg ms", 10),
    ("service_ms_p99", "svc p99", 9),
    ("response_ms_avg", "resp avg ms", 11),
    ("response_ms_p99", "resp p99", 9),
    ("response_ms_max", "resp max", 9),
    ("late_ios", "late", 8),
    ("errors", "errors", 6),
    ("iogen_cpu_pct", "iogen CPU%", 10),
    ("iogen_lag_ms_avg", "lag avg ms", 10),
    ("seen_enough", "seen", 4),
    ("engine", "engine", 8),
];

impl TableExporter {
    fn line(&self, cells: Vec<String>) -> String {
        let mut s = String::new();
        for (cell, (_, w)) in cells.iter().zip(&self.picks) {
            if !s.is_empty() {
                s.push_str("  ");
            }
            s.push_str(&format!("{cell:>w$}", w = *w));
        }
        s.push('\n');
        s
    }
}

fn short(v: &Value) -> String {
    match v {
        Value::Float(f) if f.abs() >= 100.0 => format!("{f:.0}"),
        Value::Float(f) if f.abs() >= 1.0 => format!("{f:.2}"),
        Value::Float(f) => format!("{f:.3}"),
        other => other.to_text(),
    }
}

impl Exporter for TableExporter {
    fn begin(&mut self, columns: &[String]) -> String {
        let mut heads = Vec::new();
        self.picks = TABLE_COLUMNS
            .iter()
            .filter_map(|(name, head, w)| {
                let i = columns.iter().position(|c| c == name)?;
                heads.push(head.to_string());
                Some((i, (*w).max(head.len())))
            })
            .collect();
        self.line(heads)
    }
    fn record(&mut self, record: &Record) -> String {
        let cells = self.picks.iter().map(|(i, _)| record.values.get(*i).map_or(String::new(), short)).collect();
        self.line(cells)
    }
    fn finish(&mut self) -> String {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec() -> Record {
        Record { values: vec![Value::Int(1), Value::Text("overall".into()), Value::Float(5000.25), Value::Empty] }
    }

    fn cols() -> Vec<String> {
        ["step", "category", "iops", "service_ms_avg"].iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn csv() {
        let mut e = CsvExporter;
        assert_eq!(e.begin(&cols()), "step,category,iops,service_ms_avg\n");
        assert_eq!(e.record(&rec()), "1,overall,5000.25,\n");
    }

    #[test]
    fn json_is_one_valid_document() {
        let mut e = JsonExporter::default();
        let text = format!("{}{}{}{}", e.begin(&cols()), e.record(&rec()), e.record(&rec()), e.finish());
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v[1]["iops"], 5000.25);
        assert!(v[0]["service_ms_avg"].is_null());
    }

    #[test]
    fn table() {
        let mut e = TableExporter::default();
        let head = e.begin(&cols());
        assert!(head.contains("IOPS") && head.contains("svc avg ms"));
        let row = e.record(&rec());
        assert!(row.contains("overall") && row.contains("5000"));
        assert_eq!(head.len(), row.len());
    }
}
