//! The output files of a run and the summary rows kept for the table on stderr and `--json`.

use std::path::Path;

use crate::cli::RunArgs;
use crate::output::file::{create_output, PendingRename};
use crate::output::{
    mark_interrupted, subinterval_columns, subinterval_records, summary_columns, CsvExporter, Interruption,
    JsonExporter, LineWriter, Record, StepInfo, TableExporter, Value,
};
use crate::scheduler::SubintervalReport;

/// An output file being written, and the rename that puts it in place at the end.
struct OutputFile {
    writer: LineWriter,
    rename: PendingRename,
}

impl OutputFile {
    fn create(option: &str, path: &Path, force: bool, columns: &[String]) -> anyhow::Result<Self> {
        let (sink, rename) = create_output(option, path, force)?;
        let writer = LineWriter::new(Box::new(sink), Box::new(CsvExporter), columns, &path.display().to_string())?;
        Ok(OutputFile { writer, rename })
    }
}

/// Where rows go: the subinterval CSV, the summary CSV, and the summary rows kept for the table
/// on stderr and the JSON on stdout.
pub(super) struct Outputs {
    csv: Option<OutputFile>,
    summary: Option<OutputFile>,
    subinterval_columns: Vec<String>,
    summary_columns: Vec<String>,
    summary_rows: Vec<Record>,
}

impl Outputs {
    pub(super) fn create(args: &RunArgs, label_keys: &[String]) -> anyhow::Result<Self> {
        let summary_columns = summary_columns(label_keys);
        let subinterval_columns = subinterval_columns(label_keys);
        let csv = match &args.csv {
            Some(p) => Some(OutputFile::create("--csv", p, args.force, &subinterval_columns)?),
            None => None,
        };
        let summary = match &args.summary {
            Some(p) => Some(OutputFile::create("--summary", p, args.force, &summary_columns)?),
            None => None,
        };
        Ok(Outputs { csv, summary, subinterval_columns, summary_columns, summary_rows: Vec::new() })
    }

    /// The rows of a subinterval that closed; `cut`: the signal that had arrived when it closed.
    pub(super) fn subinterval(
        &mut self,
        info: &StepInfo,
        report: &SubintervalReport,
        cut: Option<&Interruption>,
    ) -> anyhow::Result<()> {
        self.rows(subinterval_records(info, report), cut)
    }

    /// Subinterval rows (of every rank and `all`, from a cluster); `cut` as for [`Self::subinterval`].
    pub(super) fn rows(&mut self, mut records: Vec<Record>, cut: Option<&Interruption>) -> anyhow::Result<()> {
        if let Some(cut) = cut {
            mark_interrupted(&self.subinterval_columns, &mut records, cut);
        }
        match self.csv.as_mut() {
            Some(f) => f.writer.write(&records),
            None => Ok(()),
        }
    }

    /// The summary rows of a step; `cut`: the signal that cut the run in this step.
    pub(super) fn step(&mut self, mut records: Vec<Record>, cut: Option<&Interruption>) -> anyhow::Result<()> {
        if let Some(cut) = cut {
            mark_interrupted(&self.summary_columns, &mut records, cut);
        }
        if let Some(f) = self.summary.as_mut() {
            f.writer.write(&records)?;
        }
        self.summary_rows.extend(records);
        Ok(())
    }

    /// Close the files and put them in place, then the table on stderr and (with `--json`) the
    /// summary on stdout.
    pub(super) fn finish(self, json: bool) -> anyhow::Result<()> {
        let files: Vec<OutputFile> = self.csv.into_iter().chain(self.summary).collect();
        let mut renames = Vec::new();
        for f in files {
            f.writer.finish()?;
            renames.push(f.rename);
        }
        for rename in renames {
            rename.commit()?;
        }
        let cols = &self.summary_columns;
        let mut table =
            LineWriter::new(Box::new(std::io::stderr()), Box::new(TableExporter::default()), cols, "stderr")?;
        table.write(&self.summary_rows)?;
        table.finish()?;
        for note in notes(cols, &self.summary_rows) {
            eprintln!("{note}");
        }
        if json {
            let mut out =
                LineWriter::new(Box::new(std::io::stdout()), Box::new(JsonExporter::default()), cols, "stdout")?;
            out.write(&self.summary_rows)?;
            out.finish()?;
        }
        Ok(())
    }
}

/// What the table leaves out but a reader must know, one line per step (its `overall` row, or
/// `all` in a cluster): a step that wrote to space this run did not precondition, and the step a
/// signal cut.
fn notes(columns: &[String], rows: &[Record]) -> Vec<String> {
    let at = |name: &str| columns.iter().position(|c| c == name);
    let text = |r: &Record, name: &str| match at(name).and_then(|i| r.values.get(i)) {
        Some(Value::Text(t)) => t.clone(),
        Some(v) => v.to_text(),
        None => String::new(),
    };
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for r in rows.iter().filter(|r| text(r, "category") == "overall") {
        let step = text(r, "step");
        if seen.contains(&step) {
            continue;
        }
        seen.push(step.clone());
        if text(r, "preconditioned") == "no" {
            out.push(format!(
                "iogen: step {step}: not preconditioned: it wrote to space this run did not precondition (--precondition)"
            ));
        }
        let by = text(r, "interrupted_by");
        if !by.is_empty() {
            let at_s = text(r, "interrupted_at_s");
            let when =
                if at_s.is_empty() { String::new() } else { format!(" at {at_s} s of the step (0: before it began)") };
            out.push(format!(
                "iogen: step {step}: interrupted by {by}{when}; its summary covers only what was measured before"
            ));
        }
    }
    out
}
