/**
 * `caplab case INPUT.json -o OUT.xlsx [--html OUT.html] [--force]`
 *
 * Reads a business case (options, costs, workloads; see docs/case.md), builds the case sheet
 * (`src/case/case-plan.ts`) and writes it through the headless renderers: an .xlsx that
 * opens in Excel or LibreOffice without Capacity Lab (native formulas stay live; the M/M/c
 * figures, which need the add-in's functions, are values) and optionally an offline HTML page
 * with the chart; the .xlsx gets the chart too, as a native chart over the cells
 * (`src/report/xlsx-charts.ts`). It prints the conclusion line and the confidence; options that cannot carry
 * their load are accepted and left out of the choice, as on the sheet.
 *
 * Same output safety as `caplab report` (`writeOutputs`, `src/cli/outputs.ts`): the input is read
 * and validated before anything is written; outputs go to temporary files moved into place
 * without replacing, the pair whole or not at all; an existing output is replaced only with
 * `--force`; an output that is the input is refused.
 * Exit codes: 0 written; 2 bad usage or a bad input (the message names the file and the input
 * path, e.g. `options[1].capex`); 1 an unexpected failure (e.g. the disk is full).
 */
import * as fs from "fs";
import { planXmlIllegal, xmlIllegalWarning } from "../../report/xml-text";
import { readBounded } from "../bounded-read";
import { CliIo } from "../io";
import { parseOptions, UsageError } from "../options";
import { checkOutputs, Output, OutputError, writeOutputs } from "../outputs";
import { casePlanFromJson } from "../../case/case-plan";
import { linksToLab } from "../case-lab-links";
import { DomainError, isDomainError } from "../../core/errors";
import { CaseInput, parseCaseJson, quoted } from "../../case/input";
import { renderXlsx } from "../../report/xlsx";
import { cellResult, type WorkbookPlan } from "../../workbook/plan";
import { addNativeCharts } from "../../report/xlsx-charts";
import { renderHtml } from "../../report/html";

export const summary = "Build a costed business case (options, NPV, M/M/c sizing) as .xlsx (and HTML) from a JSON file";

/** Largest input accepted: a case is a few kilobytes; this bounds the time and memory spent. */
const MAX_INPUT_BYTES = 1_000_000;

const HELP = `Usage: caplab case INPUT.json -o OUT.xlsx [--html OUT.html] [--force]

Builds a business-case sheet comparing two or more options: capex at year 0, yearly running
costs, optional workloads sized as M/M/c queues (servers, utilization, response time), the net
present cost of each option (first payment now), the difference from the first option, the
break-even capex, and a chart of cumulative discounted cost. The first line of the sheet is the
conclusion ("B saves £X over N years at r%"); it is printed, with the confidence of the choice.
Options that cannot carry their load (or miss the case's serviceTarget) are accepted, marked and
left out of the choice, as the sheet does.

The .xlsx needs no add-in: costs and discounting are live Excel formulas over the input cells;
the M/M/c figures are values. Examples: examples/*.json; format: docs/case.md.

Options:
  -o, --output OUT.xlsx   the workbook to write (required, must end in .xlsx)
  --html OUT.html         also write an offline HTML page with the chart
  --force                 replace OUT.xlsx / OUT.html when they exist
  -h, --help              this help

Nothing is written when the input is invalid. Exit codes: 0 written; 2 a bad input or usage
(the message names the file and the input, e.g. options[1].capex); 1 an unexpected failure.
`;

const OPTIONS = {
  help: { type: "boolean", short: "h" },
  output: { type: "string", short: "o" },
  html: { type: "string" },
  force: { type: "boolean" },
} as const;

/**
 * Reads and parses the input file; problems are UsageErrors naming the file. At most
 * MAX_INPUT_BYTES + 1 bytes are read, whatever the file is (a device, a pipe such as /dev/stdin,
 * a FIFO or a file still growing report no useful size).
 */
export async function readInput(file: string): Promise<unknown> {
  if (!fs.existsSync(file)) throw new UsageError(`${file}: no such file`);
  if (fs.statSync(file).isDirectory()) throw new UsageError(`${file}: is a directory`);
  const { bytes, overLimit } = await readBounded(file, MAX_INPUT_BYTES);
  if (overLimit) {
    throw new UsageError(
      `${file}: more than ${MAX_INPUT_BYTES} bytes; a business case is at most ${MAX_INPUT_BYTES} bytes`,
    );
  }
  const text = bytes.toString("utf8").replace(/^\uFEFF/, "");
  try {
    return parseCaseJson(text);
  } catch (e) {
    if (isDomainError(e)) throw e; // a repeated key: named with its line
    throw new UsageError(`${file}: not valid JSON: ${(e as Error).message}`);
  }
}

/**
 * A service time taken from a cell of another sheet (`serviceTimeRef`, written by the task pane
 * for a case beside an analysis) cannot be resolved here: this command writes a workbook with the
 * case sheet alone, where the reference would recalculate to #REF! or #NAME?. Refused, naming it.
 */
function refuseCellReferences(input: CaseInput): void {
  const kept = { serviceTimeRef: "serviceTime", arrivalRateRef: "arrivalRate", growthRef: "growth" } as const;
  input.options.forEach((o, i) =>
    o.workloads.forEach((w, j) => {
      for (const field of ["serviceTimeRef", "arrivalRateRef", "growthRef"] as const) {
        const value = w[field];
        if (value === undefined) continue;
        const ref = typeof value === "string" ? value : value.join(", ");
        throw new DomainError(
          `options[${i}].workloads[${j}].${field}`,
          `${quoted(ref, 60)} is a cell of another sheet, which only Excel with the analysis workbook can resolve ` +
            `(the task pane's business case); caplab case writes the case sheet alone: ` +
            `remove ${field} and keep ${kept[field]}`,
          "value",
        );
      }
    }),
  );
}

/** A workload linked to the lab (`fromLab`) needs the lab's results: `caplab report INPUTS --case`. */
function refuseLabLinks(json: unknown): void {
  const at = linksToLab(json);
  if (at)
    throw new DomainError(
      at,
      "links the workload to a lab analysis, which caplab case does not have: use caplab report INPUTS... --case FILE -o OUT.xlsx",
      "value",
    );
}

/** The case's outputs: the workbook with its native chart (-o) and, when asked, the HTML page (--html). */
function outputsOf(output: string, html: string | undefined, plan: WorkbookPlan | undefined): Output[] {
  const outputs: Output[] = [
    {
      option: "-o",
      path: output,
      ext: /\.xlsx$/i,
      // A case is a few hundred cells: rendered in memory, then the chart is added to the package.
      content: async () => addNativeCharts(await renderXlsx(plan as WorkbookPlan), plan as WorkbookPlan),
    },
  ];
  if (html !== undefined)
    outputs.push({
      option: "--html",
      path: html,
      ext: /\.(html|htm)$/i,
      content: () => renderHtml(plan as WorkbookPlan),
    });
  return outputs;
}

/** Runs `caplab case`; returns the exit code. */
export async function run(args: string[], io: CliIo): Promise<number> {
  let built;
  let output: string;
  let html: string | undefined;
  let input = "input";
  let force = false;
  try {
    const { values: v, positionals } = parseOptions("case", args, OPTIONS, true);
    if (v.help) {
      io.out(HELP);
      return 0;
    }
    if (positionals.length !== 1) {
      throw new UsageError(
        positionals.length === 0
          ? "no input file (see caplab case --help)"
          : `one input file, got ${positionals.length}`,
      );
    }
    input = positionals[0];
    if (!v.output) throw new UsageError("-o OUT.xlsx is required");
    output = v.output;
    html = v.html;
    force = v.force ?? false;
    checkOutputs(outputsOf(output, html, undefined), { force, inputs: [input] });
    const json = await readInput(input);
    refuseLabLinks(json);
    built = casePlanFromJson(json, { sources: [input] });
    refuseCellReferences(built.input);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`caplab case: ${e.message}\n`);
      return 2;
    }
    if (isDomainError(e)) {
      io.err(`caplab case: ${input}: ${e.message}\nNothing was written.\n`);
      return 2;
    }
    throw e;
  }

  const replaced = xmlIllegalWarning(planXmlIllegal(built.plan));
  if (replaced) io.err(`warning: ${replaced}\n`);
  try {
    const written = await writeOutputs(outputsOf(output, html, built.plan), { force, inputs: [input] });
    for (const f of written) io.out(`wrote ${f}\n`);
  } catch (e) {
    if (!(e instanceof OutputError || e instanceof UsageError)) throw e;
    io.err(`caplab case: ${e.message}\nNothing was written.\n`);
    return e instanceof UsageError ? 2 : 1;
  }
  io.out(`${built.plan.sheets[0].notes[1]}\n`);
  // The verdict's confidence, in the words the sheet's Recommendation shows.
  const verdict = built.plan.sheets[0].tables.find((t) => t.name === "Recommendation");
  const confidence = verdict?.rows.find((r) => r[0] === "Confidence")?.[1];
  if (confidence !== undefined) io.out(`Confidence: ${String(cellResult(confidence ?? null))}\n`);
  return 0;
}
