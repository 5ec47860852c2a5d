/**
 * Checks between an iogen summary CSV and the subinterval CSV of the same run, once both are read:
 * a summary row's `steady_from` must be one of the step's measured subintervals in the subinterval
 * file (the window from it to the last is what the summary row covers, docs/iogen-csv.md). A
 * `steady_from` past the step's last measured subinterval is an error naming the summary file, its
 * line, and the last subinterval the other file has; it is added to the summary file's errors, so
 * nothing is written from it.
 *
 * Cost: O(rows of both files).
 */
import type { LabFileResult } from "./detect";
import type { IogenCsvResult } from "./iogen-reader";

/** host, step, category: the rows of one step in both files. */
const keyOf = (host: string, step: number | null, category: string): string => `${host}\u0000${step}\u0000${category}`;

/** The last measured subinterval of each host × step × category of a subinterval file. */
function lastMeasured(sub: IogenCsvResult): Map<string, number> {
  const t = sub.table;
  const last = new Map<string, number>();
  const measure = t.text.phase.texts.indexOf("measure");
  if (measure < 0) return last;
  for (let i = 0; i < t.length; i++) {
    if (t.text.phase.codes.get(i) !== measure) continue;
    const k = keyOf(t.text.host.get(i), t.value("step", i), t.text.category.get(i));
    const s = t.value("subinterval", i) ?? 0;
    if (s > (last.get(k) ?? 0)) last.set(k, s);
  }
  return last;
}

/**
 * Adds to each summary file's errors the rows whose `steady_from` is past the last measured
 * subinterval the subinterval files give for the same host, step and category.
 *
 * @param results - every file read (the results are changed in place: errors appended)
 * @example checkSteadyFromAcrossFiles([subResult, summaryResult]) // summaryResult.errors may grow
 */
export function checkSteadyFromAcrossFiles(results: readonly LabFileResult[]): void {
  const subs = results.flatMap((r) => (r.format === "iogen-subinterval" && r.errors.length === 0 ? [r] : []));
  if (subs.length === 0) return;
  const last = new Map<string, { file: string; last: number }>();
  for (const s of subs)
    for (const [k, v] of lastMeasured(s.iogen)) if (!last.has(k)) last.set(k, { file: s.file, last: v });
  for (const r of results) {
    if (r.format !== "iogen-summary") continue;
    const t = r.iogen.table;
    const steady = t.column("steady_from");
    if (steady === null) continue;
    for (let i = 0; i < t.length; i++) {
      const from = steady.value(i);
      if (from === null || t.text.seen_enough.get(i) === "off") continue;
      const found = last.get(keyOf(t.text.host.get(i), t.value("step", i), t.text.category.get(i)));
      if (found === undefined || from <= found.last) continue;
      const message =
        `column steady_from: ${from} is past the step's last measured subinterval (${found.last} in ${found.file}); ` +
        "the summary and subinterval files are not of the same run, or one was edited";
      const line = t.line.get(i);
      // Called again on the same results (the CLI, then the analysis): said once.
      if (!r.errors.some((e) => e.line === line && e.message === message))
        r.errors.push({ file: r.file, line, message });
    }
  }
}
