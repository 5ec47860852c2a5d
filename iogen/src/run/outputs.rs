//! The output files of a run and the summary rows kept for the table on stderr and `--json`.

use std::path::Path;

use crate::cli::RunArgs;
use crate::output::file::{create_output, PendingRename};
use crate::output::{
    subinterval_columns, subinterval_records, summary_columns, CsvExporter, JsonExporter, LineWriter, Record, StepInfo,
    TableExporter,
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
    summary_columns: Vec<String>,
    summary_rows: Vec<Record>,
}

impl Outputs {
    pub(super) fn create(args: &RunArgs, label_keys: &[String]) -> anyhow::Result<Self> {
        let summary_columns = summary_columns(label_keys);
        let csv = match &args.csv {
            Some(p) => Some(OutputFile::create("--csv", p, args.force, &subinterval_columns(label_keys))?),
            None => None,
        };
        let summary = match &args.summary {
            Some(p) => Some(OutputFile::create("--summary", p, args.force, &summary_columns)?),
            None => None,
        };
        Ok(Outputs { csv, summary, summary_columns, summary_rows: Vec::new() })
    }

    pub(super) fn subinterval(&mut self, info: &StepInfo, report: &SubintervalReport) -> anyhow::Result<()> {
        self.rows(&subinterval_records(info, report))
    }

    /// Subinterval rows (of every rank and `all`, from a cluster).
    pub(super) fn rows(&mut self, records: &[Record]) -> anyhow::Result<()> {
        match self.csv.as_mut() {
            Some(f) => f.writer.write(records),
            None => Ok(()),
        }
    }

    pub(super) fn step(&mut self, records: Vec<Record>) -> anyhow::Result<()> {
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
        if json {
            let mut out =
                LineWriter::new(Box::new(std::io::stdout()), Box::new(JsonExporter::default()), cols, "stdout")?;
            out.write(&self.summary_rows)?;
            out.finish()?;
        }
        Ok(())
    }
}
