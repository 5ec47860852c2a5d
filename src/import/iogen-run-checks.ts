/**
 * What an iogen CSV (schema 4, docs/iogen-csv.md "Preconditioning and interrupted runs") says about
 * the run itself, checked and turned into warnings:
 *
 * - `interrupted_by` (`SIGINT`, `SIGTERM`, `signal` on another MPI rank) with `interrupted_at_s`
 *   (seconds into the step): the run was cut — a warning saying by what, when, in which step, and
 *   what that leaves (the summary covers only what was measured before; a step cut in its warm-up
 *   or before it started has no figures; later steps did not run).
 * - `preconditioned` `no`: a step wrote to space the run did not precondition — a warning naming
 *   the steps (their first subintervals may show a fresh file's or device's speed).
 *
 * Anything iogen never writes is an error naming the line and column: `preconditioned` other than
 * `yes`/`no`/empty, `interrupted_by` other than `SIGINT`/`SIGTERM`/`signal`/empty, and an
 * `interrupted_at_s` given without `SIGINT`/`SIGTERM` or missing with them. Files from before
 * schema 4 have none of the columns: nothing is said.
 */
import { shown } from "../text/quote";
import type { IogenCsvKind } from "./iogen-columns";
import type { IogenRow } from "./iogen-row";
import type { IogenTable } from "./iogen-table";
import type { ImportProblem } from "./types";

const PRECONDITIONED = ["yes", "no", ""];
const CUT_BY = ["SIGINT", "SIGTERM", "signal", ""];
const MAX_LISTED = 10;

/**
 * Checks the run columns of a file's rows (and of rows not stored for lack of iops that record an
 * interruption) and adds the errors and warnings. Works on the columns (a million-row file makes no
 * row objects): words by their distinct texts, rows only where a signal is recorded.
 *
 * @param table - the rows read
 * @param kind - subinterval or summary file
 * @param file - the name for the problems
 * @param cutRows - rows left out (empty iops: a step cut in its warm-up) with `interrupted_by` set
 * @param out - where the problems go
 */
export function checkRunColumns(
  table: IogenTable,
  kind: IogenCsvKind,
  file: string,
  cutRows: readonly IogenRow[],
  out: { warnings: ImportProblem[]; errors: ImportProblem[] },
): void {
  const pre = table.text.preconditioned;
  const by = table.text.interrupted_by;
  const errors: ImportProblem[] = [];
  for (const [column, words] of [
    [pre, PRECONDITIONED],
    [by, CUT_BY],
  ] as const) {
    const bad = column.texts.findIndex((t) => !words.includes(t));
    if (bad < 0) continue;
    const i = firstWithCode(table, column.codes, bad);
    const name = column === pre ? "preconditioned" : "interrupted_by";
    const allowed = column === pre ? "yes, no" : "SIGINT, SIGTERM, signal";
    errors.push({
      file,
      line: table.line.get(i),
      message: `column ${name}: '${shown(column.texts[bad], 40)}' is not one of iogen's words ${allowed} (or empty)`,
    });
  }
  if (errors.length > 0) {
    out.errors.push(...errors); // a word iogen never writes: the times are not judged on top
    return;
  }
  const marked: IogenRow[] = [...cutRows];
  const at = table.column("interrupted_at_s");
  for (let i = 0; i < table.length && errors.length < MAX_LISTED; i++) {
    if (by.get(i) !== "") marked.push(table.row(i));
    else if (at !== null && at.value(i) !== null)
      errors.push({ file, line: table.line.get(i), message: timeProblem(table.row(i)) as string });
  }
  for (const r of marked) {
    const problem = errors.length < MAX_LISTED ? timeProblem(r) : null;
    if (problem !== null) errors.push({ file, line: r.line, message: problem });
  }
  out.errors.push(...errors);
  if (errors.length > 0) return;
  marked.sort((a, b) => a.line - b.line);
  if (marked.length > 0) out.warnings.push({ file, line: marked[0].line, message: interruptedWarning(marked, kind) });
  const fresh = notPreconditioned(table, cutRows);
  if (fresh !== null) out.warnings.push({ file, message: fresh });
}

/** The first row whose code is `code`. */
function firstWithCode(table: IogenTable, codes: { get(i: number): number }, code: number): number {
  for (let i = 0; i < table.length; i++) if (codes.get(i) === code) return i;
  return 0;
}

/** What is wrong with a row's `interrupted_at_s` against its `interrupted_by`, or null. */
function timeProblem(r: IogenRow): string | null {
  const at = r.values.interrupted_at_s ?? null;
  const named = r.interrupted_by === "SIGINT" || r.interrupted_by === "SIGTERM";
  if (named && at === null)
    return `column interrupted_at_s: empty, but interrupted_by says ${r.interrupted_by} (iogen writes when it arrived)`;
  if (!named && at !== null)
    return `column interrupted_at_s: ${at} without SIGINT or SIGTERM in interrupted_by (iogen writes a time only with them)`;
  return null;
}

/** `step 2 (writes)`. */
function stepOf(r: IogenRow): string {
  return `step ${r.values.step ?? "?"}${r.step_name ? ` (${shown(r.step_name, 60)})` : ""}`;
}

/** The warning of a cut run, from its marked rows (in line order). */
function interruptedWarning(cut: IogenRow[], kind: IogenCsvKind): string {
  const r = cut[cut.length - 1];
  const by = r.interrupted_by;
  const when = r.values.interrupted_at_s;
  const head =
    by === "signal"
      ? `The run was cut by a signal another host (MPI rank) caught, in ${stepOf(r)}`
      : `The run was cut by ${by} ${when} s into ${stepOf(r)}`;
  const later = " Steps after it did not run (iogen exits with code 130).";
  if (kind === "subinterval") {
    const where = r.phase ? `${r.phase} subinterval ${r.values.subinterval ?? "?"}` : "its last subinterval";
    const what =
      r.phase === "warmup" ? "nothing of the step was measured" : "the step's measurement is shorter than planned";
    return `${head}: the rows end with ${where}; ${what}.${later}`;
  }
  const measured = r.values.measure_seconds;
  if (measured === 0 && r.engine === "")
    return `${head}, before it started (while its target was prepared): nothing of it was measured.${later}`;
  if (measured === 0 || r.values.iops === null)
    return `${head}, during its warm-up: nothing of it was measured.${later}`;
  return `${head}: its summary covers only the ${measured} s measured before the signal, not the planned duration.${later}`;
}

/** The warning naming the steps that wrote to space the run did not precondition, or null. */
function notPreconditioned(table: IogenTable, cutRows: readonly IogenRow[]): string | null {
  const no = table.text.preconditioned.texts.indexOf("no");
  const steps = new Map<string, string>();
  if (no >= 0)
    for (let i = 0; i < table.length; i++) {
      if (table.text.preconditioned.codes.get(i) !== no) continue;
      const step = `${table.value("step", i)}`;
      if (!steps.has(step)) steps.set(step, stepOf(table.row(i)));
    }
  for (const r of cutRows)
    if (r.preconditioned === "no" && !steps.has(`${r.values.step}`)) steps.set(`${r.values.step}`, stepOf(r));
  if (steps.size === 0) return null;
  const names = [...steps.values()];
  const list =
    names.length > MAX_LISTED
      ? `${names.slice(0, MAX_LISTED).join(", ")} and ${names.length - MAX_LISTED} more`
      : names.join(", ");
  return (
    `${names.length === 1 ? "A step" : `${names.length} steps`} wrote to space this run did not precondition (${list}): ` +
    `${names.length === 1 ? "its" : "their"} first subintervals may show a fresh file's or device's speed rather than the steady state (iogen --precondition)`
  );
}
