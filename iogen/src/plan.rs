//! Plan files: a CSV with one step per row. Columns named like the long options
//! ([`STEP_OPTIONS`], e.g. `read_pct`, `block_size`, `iops`, `queue_depth`, `duration`) override
//! the command line's options for that row (an empty cell keeps them); `step_name` (or `name`)
//! names the step; every other column (e.g. `protocol`, or `Run`, `StdOrder`, `Replicate` of a
//! `DOE_DESIGN` sheet saved as CSV) is a label copied to the output. Every row is checked before
//! any IO; a bad value names the row and column. Refused as a whole: a column given twice (also
//! under an alias, e.g. `bs` and `block_size`), a quoted field whose closing quote is missing
//! (which would swallow the rest of the file into one cell), and a row with fewer cells than the
//! header (a cut-off or misaligned row).

use std::path::Path;

use thiserror::Error;

use crate::options::{normalize_name, OptionError, Options, RUN_OPTIONS, STEP_OPTIONS};

/// A plan that cannot be used.
#[derive(Debug, Error)]
pub enum PlanError {
    /// The file cannot be read or is not CSV.
    #[error("plan {path}: {problem}")]
    File {
        /// Plan path.
        path: String,
        /// What is wrong.
        problem: String,
    },
    /// A bad value in a cell.
    #[error("plan {path}, row {row}, column {column}: {problem}")]
    Cell {
        /// Plan path.
        path: String,
        /// 1-based data row (the header is row 0).
        row: usize,
        /// Column name as written in the plan.
        column: String,
        /// What is wrong.
        problem: String,
    },
}

/// One step of a plan.
#[derive(Debug, Clone)]
pub struct PlanStep {
    /// Options for the step (command line, overridden by the row).
    pub opts: Options,
    /// From the `step_name`/`name` column, if any.
    pub name: Option<String>,
    /// Label values, one per plan label column (in `Plan::label_keys` order).
    pub labels: Vec<String>,
}

/// A parsed plan.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Label columns in plan order.
    pub label_keys: Vec<String>,
    /// Steps in row order.
    pub steps: Vec<PlanStep>,
}

enum Col {
    Option(String),
    Name,
    Label(usize),
}

/// Whether `key` would clash with an output column.
pub fn is_output_column(key: &str) -> bool {
    crate::output::is_output_column(key)
}

/// Read and check a plan file.
pub fn read_plan(path: &Path, base: &Options) -> Result<Plan, PlanError> {
    let p = path.display().to_string();
    let text =
        std::fs::read_to_string(path).map_err(|e| PlanError::File { path: p.clone(), problem: e.to_string() })?;
    parse_plan(&text, &p, base)
}

/// Parse plan text (`path` only names it in messages). Accepts a UTF-8 BOM, CRLF, and `;` as the
/// separator when the header has no comma (as some Excel locales save CSV).
pub fn parse_plan(text: &str, path: &str, base: &Options) -> Result<Plan, PlanError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let first = text.lines().next().unwrap_or("");
    let delim = if !first.contains(',') && first.contains(';') { b';' } else { b',' };
    let file_err = |problem: String| PlanError::File { path: path.to_string(), problem };
    if let Some(line) = unterminated_quote(text.as_bytes(), delim) {
        return Err(file_err(format!(
            "line {line}: a quoted field is never closed (a \" without its closing \"), so the rest of the file \
             would be read as one cell"
        )));
    }
    let mut rdr =
        csv::ReaderBuilder::new().delimiter(delim).flexible(true).trim(csv::Trim::All).from_reader(text.as_bytes());
    let headers = rdr.headers().map_err(|e| file_err(e.to_string()))?.clone();
    let mut cols = Vec::new();
    let mut label_keys: Vec<String> = Vec::new();
    let mut seen: Vec<(String, &str)> = Vec::new();
    for h in headers.iter() {
        let key = normalize_name(h);
        if h.is_empty() {
            return Err(file_err("a column has no name".into()));
        }
        let meaning = column_meaning(&key, h);
        if let Some((_, first)) = seen.iter().find(|(m, _)| *m == meaning) {
            return Err(file_err(if *first == h {
                format!("column {h} appears twice")
            } else {
                format!("columns {first} and {h} set the same thing; keep one")
            }));
        }
        seen.push((meaning, h));
        if STEP_OPTIONS.contains(&key.as_str()) {
            cols.push(Col::Option(key));
        } else if key == "step_name" || key == "name" {
            cols.push(Col::Name);
        } else if RUN_OPTIONS.contains(&key.as_str()) {
            return Err(file_err(format!(
                "column {h}: --{} holds for the whole run; give it on the command line, not per step",
                key.replace('_', "-")
            )));
        } else if is_output_column(h) {
            return Err(file_err(format!("column {h}: a label cannot be named like an output column")));
        } else {
            cols.push(Col::Label(label_keys.len()));
            label_keys.push(h.to_string());
        }
    }
    let mut steps = Vec::new();
    for (i, rec) in rdr.records().enumerate() {
        let row = i + 1;
        let rec = rec.map_err(|e| file_err(format!("row {row}: {e}")))?;
        if rec.iter().all(str::is_empty) {
            continue;
        }
        if rec.len() < headers.len() {
            return Err(file_err(format!(
                "row {row} (line {}) has {} cells, the header has {} columns",
                rec.position().map_or(0, |p| p.line()),
                rec.len(),
                headers.len()
            )));
        }
        let mut step = PlanStep { opts: base.clone(), name: None, labels: vec![String::new(); label_keys.len()] };
        for (j, value) in rec.iter().enumerate() {
            let column = headers.get(j).unwrap_or("").to_string();
            let cell =
                |problem: String| PlanError::Cell { path: path.to_string(), row, column: column.clone(), problem };
            match cols.get(j) {
                None if value.is_empty() => {}
                None => return Err(cell("more cells than the header has columns".into())),
                Some(Col::Option(key)) => {
                    if !value.is_empty() {
                        step.opts.apply(key, value).map_err(|OptionError::Invalid { problem, .. }| cell(problem))?;
                    }
                }
                Some(Col::Name) => step.name = (!value.is_empty()).then(|| value.to_string()),
                Some(Col::Label(k)) => step.labels[*k] = value.to_string(),
            }
        }
        step.opts.validate().map_err(|OptionError::Invalid { option, problem }| PlanError::Cell {
            path: path.to_string(),
            row,
            column: option.replace('-', "_"),
            problem,
        })?;
        steps.push(step);
    }
    if steps.is_empty() {
        return Err(file_err("no steps (the plan has a header but no rows)".into()));
    }
    Ok(Plan { label_keys, steps })
}

/// What a header column sets: the option (aliases folded: `bs` is `block_size`, `iodepth` is
/// `queue_depth`), the step name (`step_name` or `name`), or the label of that exact name.
fn column_meaning(key: &str, header: &str) -> String {
    match key {
        "bs" => "option:block_size".into(),
        "iodepth" => "option:queue_depth".into(),
        "step_name" | "name" => "name".into(),
        k if STEP_OPTIONS.contains(&k) || RUN_OPTIONS.contains(&k) => format!("option:{k}"),
        _ => format!("label:{header}"),
    }
}

/// The 1-based line on which a quoted field opens that is still open at the end of `text`, read
/// the way the `csv` crate reads it (RFC 4180: a quote opens a field only as its first byte, `""`
/// inside is a literal quote, CR or LF ends a record).
fn unterminated_quote(text: &[u8], delim: u8) -> Option<usize> {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        FieldStart,
        Unquoted,
        Quoted,
        QuoteInQuoted,
    }
    let (mut state, mut line, mut opened_on) = (State::FieldStart, 1usize, 0usize);
    for &b in text {
        state = match (state, b) {
            (State::FieldStart, b'"') => {
                opened_on = line;
                State::Quoted
            }
            (State::Quoted, b'"') => State::QuoteInQuoted,
            (State::Quoted, _) => State::Quoted,
            (State::QuoteInQuoted, b'"') => State::Quoted,
            (_, b) if b == delim || b == b'\n' || b == b'\r' => State::FieldStart,
            _ => State::Unquoted,
        };
        if b == b'\n' {
            line += 1;
        }
    }
    (state == State::Quoted).then_some(opened_on)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::Iops;

    fn base() -> Options {
        Options { target: "/tmp/t".into(), ..Options::default() }
    }

    #[test]
    fn doe_design_sheet_is_a_plan() {
        let text = "\u{feff}Run,StdOrder,Replicate,read_pct,block_size,protocol,iops\r\n1,2,1,70,8KiB,nfs,max\r\n2,1,1,100,4096,iscsi,5000\r\n";
        let plan = parse_plan(text, "p.csv", &base()).unwrap();
        assert_eq!(plan.label_keys, vec!["Run", "StdOrder", "Replicate", "protocol"]);
        assert_eq!(plan.steps.len(), 2);
        assert_eq!(plan.steps[0].opts.read_pct, 70.0);
        assert_eq!(plan.steps[0].opts.block_size, 8192);
        assert_eq!(plan.steps[0].opts.iops, Iops::Max);
        assert_eq!(plan.steps[1].opts.iops, Iops::Rate(5000.0));
        assert_eq!(plan.steps[1].labels, vec!["2", "1", "1", "iscsi"]);
    }

    #[test]
    fn semicolons_names_and_empty_cells() {
        let text = "step_name;read_pct;duration\nwarm;;10s\n";
        let plan = parse_plan(text, "p.csv", &base()).unwrap();
        assert_eq!(plan.steps[0].name.as_deref(), Some("warm"));
        assert_eq!(plan.steps[0].opts.read_pct, 100.0);
        assert_eq!(plan.steps[0].opts.duration.as_secs(), 10);
    }

    #[test]
    fn bad_values_name_row_and_column() {
        let e = parse_plan("read_pct,iops\n50,100\n150,100\n", "p.csv", &base()).unwrap_err().to_string();
        assert!(e.contains("row 2") && e.contains("column read_pct"), "{e}");
        let e = parse_plan("block_size\nbig\n", "p.csv", &base()).unwrap_err().to_string();
        assert!(e.contains("column block_size"), "{e}");
        let e = parse_plan("block_size,size\n8K,4K\n", "p.csv", &base()).unwrap_err().to_string();
        assert!(e.contains("column size"), "{e}");
        let e = parse_plan("target\n/dev/sda\n", "p.csv", &base()).unwrap_err().to_string();
        assert!(e.contains("whole run"), "{e}");
        let e = parse_plan("iops_ms,category\n1,2\n", "p.csv", &base()).unwrap_err().to_string();
        assert!(e.contains("output column"), "{e}");
        assert!(parse_plan("read_pct\n", "p.csv", &base()).is_err());
    }

    #[test]
    fn duplicated_columns_unclosed_quotes_and_short_rows_are_refused() {
        let e = parse_plan("read_pct,read_pct\n50,60\n", "p.csv", &base()).unwrap_err().to_string();
        assert!(e.contains("column read_pct appears twice"), "{e}");
        let e = parse_plan("bs,block_size\n4K,8K\n", "p.csv", &base()).unwrap_err().to_string();
        assert!(e.contains("columns bs and block_size"), "{e}");
        let e = parse_plan("step_name,name\na,b\n", "p.csv", &base()).unwrap_err().to_string();
        assert!(e.contains("columns step_name and name"), "{e}");
        let e = parse_plan("protocol,protocol\nnfs,smb\n", "p.csv", &base()).unwrap_err().to_string();
        assert!(e.contains("appears twice"), "{e}");
        let e =
            parse_plan("read_pct,protocol\n50,nfs\n60,\"smb\n70,iscsi\n", "p.csv", &base()).unwrap_err().to_string();
        assert!(e.contains("line 3") && e.contains("never closed"), "{e}");
        let e = parse_plan("read_pct,protocol,iops\n50,nfs,10\n60,smb\n", "p.csv", &base()).unwrap_err().to_string();
        assert!(e.contains("row 2") && e.contains("2 cells"), "{e}");
        // Quotes that are closed, doubled, or not at a field's start are fine.
        let plan =
            parse_plan("read_pct,protocol,note\n50,\"n,f\"\"s\",5\"disk\n60,\"two\nlines\",x\n", "p.csv", &base())
                .unwrap();
        assert_eq!(plan.steps[0].labels, vec!["n,f\"s", "5\"disk"]);
        assert_eq!(plan.steps[1].labels, vec!["two\nlines", "x"]);
    }
}
