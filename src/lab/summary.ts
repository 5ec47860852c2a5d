/** The Summary sheet: what is where, the sources, the headline figures and every warning. */
import { LabFileResult } from "../import/detect";
import { SheetPlan } from "../workbook/plan";
import { ColumnSpec, F, SheetBuilder } from "../workbook/sheet-builder";

/** What the Summary says; the sheets decide which lines it has. */
export interface SummaryInput {
  title: string;
  inputs: readonly LabFileResult[];
  steps: number;
  headline: string;
  /** The knee and saturation headline. */
  kneeHeadline: string;
  fitSummary: string;
  hasFit: boolean;
  hasWhatIf: boolean;
  hasSubintervals: boolean;
  hasCategories: boolean;
  /** A multi-host iogen run: the Hosts sheet. */
  hasHosts: boolean;
  warnings: string[];
}

/** The Summary sheet. */
export function summarySheet(s: SummaryInput): SheetPlan {
  const { inputs, headline, fitSummary, warnings } = s;
  const sheetsText: [string, string][] = [
    [
      "Steps",
      "one row per step and host: factors, labels, target and achieved IOPS, MB/s, service and response times, CPU, measure window",
    ],
    [
      "Model",
      "CpuFit: CPU cost per IO, background, CPU saturation (95 % intervals); ResponseFit: knee, saturation; ModelInputs: storage servers c; per step: U/X, Little's law, launch lag, M/M/c",
    ],
  ];
  if (s.hasWhatIf)
    sheetsText.push([
      "What-if",
      "type current load, growth, target CPU and response SLA: headroom, when it is crossed, cores and units needed per year (live formulas)",
    ]);
  if (s.hasFit) sheetsText.push(["Fit", "DOE_FIT of the response on the factors that take two levels"]);
  if (s.hasSubintervals)
    sheetsText.push(["Subintervals", "the subinterval time series (warm-up rows included, marked by phase)"]);
  if (s.hasCategories) sheetsText.push(["Categories", "read and write rows of the iogen steps"]);
  if (s.hasHosts)
    sheetsText.push([
      "Hosts",
      "multi-host iogen run: each host's rows per step (IOPS, share, response, CPU) and the imbalance max/mean host IOPS",
    ]);
  const summary = new SheetBuilder("Summary", [
    s.title,
    `${s.steps} steps from ${inputs.length} file${inputs.length > 1 ? "s" : ""}. Documentation: docs/analysis.md.`,
    headline,
    s.kneeHeadline,
    warnings.length === 0
      ? "Warnings: none."
      : `Warnings: ${warnings.length} about the measurement (table Warnings below): read them before using the figures.`,
    `Fit: ${fitSummary}`,
    `Charts: response time vs throughput and CPU vs IOPS (Model)${s.hasSubintervals ? ", IOPS and response time per subinterval (Subintervals)" : ""}.`,
  ]);
  summary.table(
    "Sheets",
    [
      { key: "s", header: "sheet", numFmt: F.text, get: (r) => r[0], keep: true },
      { key: "d", header: "contents", numFmt: F.text, get: (r) => r[1], keep: true },
    ] as ColumnSpec<[string, string]>[],
    sheetsText,
  );
  summary.table(
    "Sources",
    [
      { key: "f", header: "file", numFmt: F.text, get: (r) => r.file, keep: true },
      { key: "t", header: "format", numFmt: F.text, get: (r) => r.format, keep: true },
      {
        key: "n",
        header: "rows read",
        numFmt: F.int,
        get: (r) => (r.format === "fio-json" ? r.fio.rows.length : r.format === "unknown" ? 0 : r.iogen.table.length),
        keep: true,
      },
      { key: "w", header: "warnings", numFmt: F.int, get: (r) => r.warnings.length, keep: true },
    ] as ColumnSpec<LabFileResult>[],
    inputs,
  );
  summary.table(
    "Warnings",
    [{ key: "w", header: "warning", numFmt: F.text, get: (r) => r, keep: true }] as ColumnSpec<string>[],
    warnings.length > 0 ? warnings : ["none"],
  );

  return summary.sheet(false);
}
