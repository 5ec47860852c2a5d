/**
 * `caplab report INPUT... -o OUT.xlsx [--html OUT.html] [--json OUT.json] [--response COL] [--force]`
 *
 * Reads iogen CSV (subinterval and/or summary) and fio JSON files, builds the lab analysis plan
 * (`src/lab/lab-plan.ts`) and writes it as .xlsx (ExcelJS) and optionally as a self-contained
 * HTML report with charts, and optionally the key figures as JSON (`labJson`). All inputs are read and the whole report is rendered in memory before
 * anything is written; if any input fails, nothing is written. Bad input or usage exits 2 with a
 * message naming the file or option; 1 is left for unexpected failures (e.g. the disk is full).
 *
 * With `--case CASE.json` the business case (`caplab case`'s input) goes into the same workbook as a
 * sheet "Business case" after the lab's; a workload with `"fromLab": "LINE"` takes its service
 * time, current load and growth from that What-if line's cells by reference (`case-lab-links.ts`),
 * so editing the growth on What-if moves the case's purchases.
 *
 * Outputs are written by `writeOutputs` (`src/cli/outputs.ts`): temporary files, moved into place
 * without replacing, the pair whole or not at all. An existing output is replaced only with
 * `--force`; an output that is one of the inputs is always refused.
 */
import * as fs from "fs";
import { planXmlIllegal, xmlIllegalWarning } from "../../report/xml-text";
import { CliIo } from "../io";
import { parseOptions, UsageError } from "../options";
import { MAX_LAB_FILE_BYTES, readLabStream, LabFileResult } from "../../import/detect";
import { boundedChunks } from "../bounded-read";
import { checkSteadyFromAcrossFiles } from "../../import/iogen-cross-check";
import { formatProblem } from "../../import/types";
import { buildLabAnalysis, DEFAULT_RESPONSE } from "../../lab/lab-plan";
import { labJson } from "../../lab/json";
import { isDomainError } from "../../core/errors";
import { planCells, renderXlsx, renderXlsxContent } from "../../report/xlsx";
import { checkOutputs, Output, OutputError, writeOutputs } from "../outputs";
import type { WorkbookPlan } from "../../workbook/plan";
import { renderHtml } from "../../report/html";
import { addNativeCharts } from "../../report/xlsx-charts";
import { CASE_SHEET, casePlanFromJson } from "../../case/case-plan";
import { readInput as readCaseInput } from "./case";
import { linkCaseToLab } from "../case-lab-links";

export const summary = "Analyse iogen CSV / fio JSON results into an .xlsx workbook (and an HTML report with charts)";

const HELP = `Usage: caplab report INPUT... -o OUT.xlsx [--case CASE.json] [--html OUT.html] [--json OUT.json] [--response COL] [--force]

Reads lab results and writes the analysis workbook (sheets Summary, Steps, Model, Fit,
Subintervals; see docs/analysis.md).

Inputs (format recognised from the contents):
  iogen subinterval CSV and/or summary CSV (docs/iogen-csv.md; ',' or ';' delimited)
  fio JSON (--output-format=json or json+), several files at once

Options:
  -o, --output OUT.xlsx   the workbook to write (required, must end in .xlsx)
  --html OUT.html         also write an offline HTML report with the charts
  --json OUT.json         also write the key figures as JSON (marginal CPU cost per IO with its
                          95 % interval, background CPU, CPU saturation, knee, saturation, per
                          step response times with intervals and warnings; docs/analysis.md)
  --case CASE.json        also write the business case (caplab case's input, docs/case.md) as a
                          sheet of the same workbook; a workload with "fromLab": "protocol nfs"
                          takes its service time, current load and growth from that What-if line
                          by reference (edit What-if and the case follows)
  --response COL          the response of the DoE fit (default ${DEFAULT_RESPONSE}); any numeric
                          iogen column (e.g. iops, response_ms_avg) or numeric label column
  --force                 replace OUT.xlsx / OUT.html when they exist
  -h, --help              this help

Nothing is written when an input cannot be read. Exit codes: 0 written; 2 an input failed or
bad usage (the message names the file or option); 1 an unexpected failure (e.g. disk full).
`;

interface Args {
  inputs: string[];
  output?: string;
  html?: string;
  json?: string;
  response?: string;
  case?: string;
  force: boolean;
  help: boolean;
}

const OPTIONS = {
  help: { type: "boolean", short: "h" },
  output: { type: "string", short: "o" },
  html: { type: "string" },
  json: { type: "string" },
  response: { type: "string" },
  case: { type: "string" },
  force: { type: "boolean" },
} as const;

function readArgs(args: string[]): Args {
  const { values: v, positionals } = parseOptions("report", args, OPTIONS, true);
  return {
    inputs: positionals,
    output: v.output,
    html: v.html,
    json: v.json,
    response: v.response,
    case: v.case,
    force: v.force ?? false,
    help: v.help ?? false,
  };
}

/** Reads and checks the arguments; a UsageError names the option or file. */
function checkedArgs(args: string[]): Args {
  const a = readArgs(args);
  if (a.help) return a;
  if (a.inputs.length === 0) throw new UsageError("no input files (see caplab report --help)");
  if (!a.output) throw new UsageError("-o OUT.xlsx is required");
  checkOutputs(outputsOf(a), { force: a.force, inputs: allInputs(a) });
  for (const f of allInputs(a)) {
    if (!fs.existsSync(f)) throw new UsageError(`${f}: no such file`);
    if (fs.statSync(f).isDirectory()) throw new UsageError(`${f}: is a directory`);
  }
  return a;
}

/** The lab inputs and the case file. */
function allInputs(a: Args): string[] {
  return a.case === undefined ? a.inputs : [...a.inputs, a.case];
}

/** Reads every input (streamed, 1 MiB chunks, columns sized from the file size); null after printing why not. */
async function readInputs(inputs: string[], io: CliIo): Promise<LabFileResult[] | null> {
  const results: LabFileResult[] = [];
  for (const f of inputs) {
    try {
      const stat = fs.statSync(f);
      const started = Date.now();
      if (stat.size > 16 << 20) io.err(`caplab report: reading ${f} (${(stat.size / 2 ** 20).toFixed(0)} MiB) ...\n`);
      results.push(
        // Counted bytes, not the reported size: a device, pipe or growing file stops at the limit.
        await readLabStream(boundedChunks(f, MAX_LAB_FILE_BYTES), f, stat.isFile() ? stat.size : 0),
      );
      if (Date.now() - started > 1000)
        io.err(`caplab report: read ${f} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    } catch (e) {
      io.err(`caplab report: ${f}: ${(e as Error).message}\nNothing was written.\n`);
      return null;
    }
  }
  checkSteadyFromAcrossFiles(results);
  const failed = results.filter((r) => r.errors.length > 0);
  for (const r of results) for (const w of r.warnings) io.err(`warning: ${formatProblem(w)}\n`);
  if (failed.length > 0) {
    for (const r of failed) for (const p of r.errors) io.err(`error: ${formatProblem(p)}\n`);
    io.err(`caplab report: ${failed.length} input file${failed.length > 1 ? "s" : ""} failed; nothing was written.\n`);
    return null;
  }
  return results;
}

/** A progress callback for the xlsx writer that prints a line on stderr at most once a second. */
function everySecond(started: number, total: number, io: CliIo): (written: number, sheet: string) => void {
  let next = started + 1000;
  return (written, sheet) => {
    const now = Date.now();
    if (now < next) return;
    next = now + 1000;
    const pct = Math.min(100, Math.floor((100 * written) / total));
    io.err(
      `caplab report: writing sheet ${sheet}: ${pct} % (${written.toLocaleString("en-US")} of ${total.toLocaleString("en-US")} cells, ${((now - started) / 1000).toFixed(0)} s)\n`,
    );
  };
}

/**
 * The outputs of a report: the workbook (-o) and, when asked, the HTML page (--html). The
 * contents are made only when written (after every output is checked).
 */
function outputsOf(a: Args, plan?: WorkbookPlan, io?: CliIo, json?: () => string): Output[] {
  const outputs: Output[] = [
    {
      option: "-o",
      path: a.output as string,
      ext: /\.xlsx$/i,
      content: () => {
        const p = plan as WorkbookPlan;
        // The case's native charts (cumulative cost, tornado), as caplab case writes them.
        if (a.case !== undefined) return caseWorkbook(p);
        const cells = planCells(p);
        if (cells > 1_000_000 && io)
          io.err(`caplab report: writing ${a.output} (${cells.toLocaleString("en-US")} cells) ...\n`);
        return renderXlsxContent(p, { progress: io ? everySecond(Date.now(), cells, io) : undefined });
      },
    },
  ];
  if (a.html !== undefined)
    outputs.push({
      option: "--html",
      path: a.html,
      ext: /\.(html|htm)$/i,
      content: () => renderHtml(plan as WorkbookPlan),
    });
  if (a.json !== undefined)
    outputs.push({ option: "--json", path: a.json, ext: /\.json$/i, content: () => (json ? json() : "") });
  return outputs;
}

/** The workbook with the case sheet's charts added as native charts (the lab's sheets as always). */
async function caseWorkbook(plan: WorkbookPlan): Promise<Buffer> {
  const charts = { ...plan, sheets: plan.sheets.map((s) => (s.name === CASE_SHEET ? s : { ...s, charts: [] })) };
  return addNativeCharts(await renderXlsx(plan), charts);
}

/** The lab plan with the case sheet after its sheets, and the case's conclusion. */
async function withCase(plan: WorkbookPlan, file: string): Promise<{ plan: WorkbookPlan; conclusion: string }> {
  const json = linkCaseToLab(await readCaseInput(file), plan);
  const built = casePlanFromJson(json, { sheetName: CASE_SHEET, tablePrefix: "Case", sources: [file] });
  return {
    plan: { ...plan, sources: [...plan.sources, file], sheets: [...plan.sheets, ...built.plan.sheets] },
    conclusion: built.plan.sheets[0].notes[1],
  };
}

/** Runs `caplab report`; returns the exit code. */
export async function run(args: string[], io: CliIo): Promise<number> {
  let a: Args;
  try {
    a = checkedArgs(args);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`caplab report: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  if (a.help) {
    io.out(HELP);
    return 0;
  }
  const results = await readInputs(a.inputs, io);
  if (results === null) return 2;
  let plan: WorkbookPlan;
  let json: (() => string) | undefined;
  let conclusion: string | undefined;
  try {
    const analysis = buildLabAnalysis(results, { response: a.response });
    const lab = analysis.plan;
    const answers = analysis.answers;
    json = () => JSON.stringify(labJson(answers, lab.sources, lab.warnings), null, 2) + "\n";
    plan = lab;
    if (a.case !== undefined) ({ plan, conclusion } = await withCase(lab, a.case));
  } catch (e) {
    if (isDomainError(e) || e instanceof UsageError) {
      const where = isDomainError(e) && a.case !== undefined ? `${a.case}: ` : "";
      io.err(`caplab report: ${where}${e.message}\nNothing was written.\n`);
      return 2;
    }
    throw e;
  }
  const replaced = xmlIllegalWarning(planXmlIllegal(plan));
  if (replaced) io.err(`warning: ${replaced}\n`);
  try {
    for (const f of await writeOutputs(outputsOf(a, plan, io, json), { force: a.force, inputs: allInputs(a) }))
      io.out(`wrote ${f}\n`);
  } catch (e) {
    if (!(e instanceof OutputError || e instanceof UsageError)) throw e;
    io.err(`caplab report: ${e.message}\nNothing was written.\n`);
    return e instanceof UsageError ? 2 : 1;
  }
  if (conclusion !== undefined) io.out(`${conclusion}\n`);
  return 0;
}
