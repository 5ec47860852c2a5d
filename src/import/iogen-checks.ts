/**
 * Checks on an iogen CSV once every row is read, where one row alone cannot tell (docs/iogen-csv.md,
 * docs/analysis.md "Errors and warnings"):
 *
 * - **Duplicates**: two rows for the same host, step, category and (subinterval files) phase and
 *   subinterval are an error naming both lines — the step would be counted twice.
 * - **iogen's words**: `seen_enough` is `yes`, `no` or `off`; `steady_from` is a measured
 *   subinterval (a whole number from 1, and not past the measurement the row's own `seconds` and
 *   `measure_seconds` describe: iogen's subintervals are at least 10 ms). Anything else is an error
 *   naming the line and column; a `steady_from` with `seen_enough` `off` is ignored, with a warning.
 * - **Several hosts** (a file with `all` rows, iogen under MPI): every step, subinterval and
 *   category that has host rows has its `all` row (else an error naming the step and the hosts'
 *   lines; a warning only for the last subinterval of a file cut mid-write), and that row's counts
 *   (`iops`, `mb_s`, `late_ios`, `errors`) are the hosts' sum within the file's printed precision
 *   (each value rounded to its printed decimals, at most 6: else a warning naming the step, the
 *   column and both figures). The host must be exactly `all`: ` all` is a host name.
 *
 * Cost: O(rows) time and one map entry per distinct key.
 */
import { shown } from "../text/quote";
import type { IogenCsvKind } from "./iogen-columns";
import type { IogenNumericColumn, IogenRow } from "./iogen-row";
import { checkRunColumns } from "./iogen-run-checks";
import type { IogenTable } from "./iogen-table";
import type { ImportProblem } from "./types";

/** The `host` of the rows that sum every rank of an MPI run. */
export const ALL_HOST = "all";

/** iogen's words for `seen_enough` (docs/iogen-csv.md). */
export const SEEN_ENOUGH_WORDS = ["yes", "no", "off"] as const;

/** The shortest subinterval iogen accepts (`--subinterval`, iogen/src/options.rs): 10 ms. */
const MIN_SUBINTERVAL_S = 0.01;

/** Columns of an `all` row that are the exact sum of its hosts' rows. */
const SUMMED: readonly IogenNumericColumn[] = ["iops", "mb_s", "late_ios", "errors"];

/** Most problems of one kind listed per file (then a count). */
const MAX_LISTED = 10;

/** What the checks found. */
export interface IogenCheckResult {
  warnings: ImportProblem[];
  errors: ImportProblem[];
}

/**
 * Runs every check on a file's table.
 *
 * @param table - the rows read
 * @param kind - subinterval or summary file
 * @param file - the name for the problems
 * @param cutAtEnd - the file's last line was cut (a run killed mid-write): its last group may lack rows
 * @param cutRows - rows not stored (no iops) that record an interruption (`iogen-run-checks.ts`)
 * @returns the warnings and errors, each naming lines
 */
export function checkIogenTable(
  table: IogenTable,
  kind: IogenCsvKind,
  file: string,
  cutAtEnd: boolean,
  cutRows: readonly IogenRow[] = [],
): IogenCheckResult {
  const out: IogenCheckResult = { warnings: [], errors: [] };
  checkWords(table, kind, file, out);
  checkDuplicates(table, kind, file, out);
  checkHosts(table, kind, file, cutAtEnd, out);
  checkRunColumns(table, kind, file, cutRows, out);
  return out;
}

/** A step as a message names it: `step 2 (low)`. */
function stepName(table: IogenTable, i: number): string {
  const step = table.value("step", i);
  const name = table.text.step_name.get(i);
  return `step ${step ?? "(empty)"}${name ? ` (${shown(name, 60)})` : ""}`;
}

/** seen_enough and steady_from of summary rows (only schema-3 files have them). */
function checkWords(table: IogenTable, kind: IogenCsvKind, file: string, out: IogenCheckResult): void {
  if (kind !== "summary") return;
  const seen = table.text.seen_enough;
  const hasSeen = seen.texts.some((t) => t !== "");
  const steady = table.column("steady_from");
  let listed = 0;
  const error = (line: number, message: string): void => {
    if (listed++ < MAX_LISTED) out.errors.push({ file, line, message });
  };
  for (let i = 0; i < table.length; i++) {
    const line = table.line.get(i);
    const word = seen.get(i);
    if (hasSeen && !(SEEN_ENOUGH_WORDS as readonly string[]).includes(word)) {
      error(line, `column seen_enough: '${shown(word, 40)}' is not one of iogen's words yes, no, off`);
    }
    const from = steady?.value(i) ?? null;
    if (from === null) continue;
    const problem = steadyFromProblem(from, table.value("seconds", i), table.value("measure_seconds", i));
    if (problem !== null) error(line, `column steady_from: ${problem}`);
    else if (word === "off") {
      out.warnings.push({
        file,
        line,
        message: `column steady_from: ${from} with seen_enough off (iogen writes none without --seen-enough): ignored, the row covers the whole measurement`,
      });
    }
  }
  if (listed > MAX_LISTED)
    out.errors.push({ file, message: `${listed - MAX_LISTED} more rows with such values not listed` });
}

/**
 * Why `steady_from` cannot be a measured subinterval of its row, or null. The window from
 * subinterval k to the last leaves (k − 1) whole subintervals of at least 10 ms out of the
 * `measure_seconds`, so (k − 1) × 0.01 ≤ measure_seconds − seconds (1 µs allowed for the printing).
 */
export function steadyFromProblem(from: number, seconds: number | null, measureSeconds: number | null): string | null {
  if (!Number.isInteger(from) || from < 1) return `${from} is not a subinterval number (a whole number from 1)`;
  if (seconds === null || measureSeconds === null) return null;
  const before = measureSeconds - seconds;
  if ((from - 1) * MIN_SUBINTERVAL_S > before + 1e-6) {
    return (
      `${from} is past the last measured subinterval: the row covers ${seconds} of its ${measureSeconds} measured ` +
      `seconds, which leaves room for at most ${Math.floor(Math.max(0, before + 1e-6) / MIN_SUBINTERVAL_S) + 1} (subintervals are at least 10 ms)`
    );
  }
  return null;
}

/** The key of a row's group: host, step, category and, in subinterval files, phase and subinterval. */
function rowKey(table: IogenTable, kind: IogenCsvKind, i: number, withHost: boolean): string {
  const t = table.text;
  const step = table.value("step", i);
  const head = withHost ? `${t.host.codes.get(i)}|` : "";
  if (kind === "summary") return `${head}${step}|${t.category.codes.get(i)}`;
  return `${head}${step}|${t.phase.codes.get(i)}|${table.value("subinterval", i)}|${t.category.codes.get(i)}`;
}

/** Where a row belongs, in words: `step 2 (low), measure subinterval 3, read`. */
function where(table: IogenTable, kind: IogenCsvKind, i: number): string {
  const t = table.text;
  const sub =
    kind === "summary" ? "" : `, ${t.phase.get(i) || "(no phase)"} subinterval ${table.value("subinterval", i)}`;
  return `${stepName(table, i)}${sub}, ${t.category.get(i)}`;
}

/**
 * Each row's group as one number, when every part is a small whole number (iogen's step and
 * subinterval numbers, the text codes) and the product of their ranges stays below 2^53: a
 * million-row file is then checked with number keys (string keys made a string per row and took
 * seconds). Null when a part is not a whole number or the ranges are too wide (then strings).
 */
function numericKeys(table: IogenTable, kind: IogenCsvKind): ((i: number) => number) | null {
  const t = table.text;
  const step = table.column("step");
  const sub = kind === "summary" ? null : table.column("subinterval");
  let maxStep = 0;
  let maxSub = 0;
  for (let i = 0; i < table.length; i++) {
    const a = step === null ? 0 : step.get(i);
    const b = sub === null ? 0 : sub.get(i);
    if (!(Number.isInteger(a) && a >= 0 && Number.isInteger(b) && b >= 0)) return null;
    if (a > maxStep) maxStep = a;
    if (b > maxSub) maxSub = b;
  }
  const [nh, np, nc] = [t.host.texts.length, t.phase.texts.length, t.category.texts.length].map((n) => Math.max(n, 1));
  if ((maxStep + 1) * (maxSub + 1) * nh * np * nc >= 2 ** 53) return null;
  const [hc, pc, cc] = [t.host.codes, t.phase.codes, t.category.codes];
  return (i) => {
    const a = step === null ? 0 : step.get(i);
    const b = sub === null ? 0 : sub.get(i);
    return (((a * (maxSub + 1) + b) * np + pc.get(i)) * nc + cc.get(i)) * nh + hc.get(i);
  };
}

/**
 * The number keys that occur more than once (by sorting a copy: a typed-array sort of a million
 * doubles takes a tenth of the time a Map of them does); an empty set in the usual case.
 */
function repeatedKeys(n: number, key: (i: number) => number): Set<number> {
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) keys[i] = key(i);
  keys.sort();
  const repeated = new Set<number>();
  for (let i = 1; i < n; i++) if (keys[i] === keys[i - 1]) repeated.add(keys[i]);
  return repeated;
}

function checkDuplicates(table: IogenTable, kind: IogenCsvKind, file: string, out: IogenCheckResult): void {
  const numeric = numericKeys(table, kind);
  const repeated = numeric !== null ? repeatedKeys(table.length, numeric) : null;
  if (repeated !== null && repeated.size === 0) return;
  const first = new Map<string | number, number>();
  let found = 0;
  for (let i = 0; i < table.length; i++) {
    const key = numeric !== null ? numeric(i) : rowKey(table, kind, i, true);
    if (repeated !== null && !repeated.has(key as number)) continue;
    const before = first.get(key);
    if (before === undefined) {
      first.set(key, i);
      continue;
    }
    if (found++ >= MAX_LISTED) continue;
    const host = table.text.host.get(i);
    out.errors.push({
      file,
      line: table.line.get(i),
      message:
        `duplicate row: host '${shown(host, 60)}', ${where(table, kind, i)} is already on line ${table.line.get(before)} ` +
        `(each host has one row per step${kind === "summary" ? "" : ", subinterval"} and category; the step would count twice)`,
    });
  }
  if (found > MAX_LISTED) out.errors.push({ file, message: `${found - MAX_LISTED} more duplicate rows not listed` });
}

/** One step × (phase × subinterval) × category of a multi-host file. */
interface Slot {
  all: number;
  hosts: number[];
}

/** Decimals a value was printed with (0–6, iogen's most), as far as the double tells. */
function printedDecimals(v: number): number {
  for (let d = 0; d < 6; d++) {
    const p = 10 ** d;
    if (Math.round(v * p) / p === v) return d;
  }
  return 6;
}

function checkHosts(
  table: IogenTable,
  kind: IogenCsvKind,
  file: string,
  cutAtEnd: boolean,
  out: IogenCheckResult,
): void {
  const host = table.text.host;
  const allCode = host.texts.indexOf(ALL_HOST);
  if (allCode < 0) return;
  const slots = new Map<string, Slot>();
  for (let i = 0; i < table.length; i++) {
    const key = rowKey(table, kind, i, false);
    let slot = slots.get(key);
    if (slot === undefined) slots.set(key, (slot = { all: -1, hosts: [] }));
    if (host.codes.get(i) === allCode) {
      if (slot.all < 0) slot.all = i; // a second one is a duplicate, already an error
    } else slot.hosts.push(i);
  }
  const tail = cutAtEnd ? lastGroupStart(table, kind) : table.length;
  const contradicted = new Map<string, { first: string; more: number }>();
  let missing = 0;
  for (const slot of slots.values()) {
    if (slot.hosts.length === 0) continue;
    if (slot.all < 0) {
      missing++;
      missingAll(table, kind, file, slot, slot.hosts[slot.hosts.length - 1] >= tail, missing, out);
      continue;
    }
    for (const column of SUMMED) {
      const problem = sumProblem(table, column, slot);
      if (problem === null) continue;
      const step = stepName(table, slot.all);
      const seen = contradicted.get(step);
      if (seen) seen.more++;
      else
        contradicted.set(step, {
          first: `line ${table.line.get(slot.all)}: ${where(table, kind, slot.all)}: ${problem}`,
          more: 0,
        });
      break;
    }
  }
  if (missing > MAX_LISTED)
    out.errors.push({ file, message: `${missing - MAX_LISTED} more groups without their all rows not listed` });
  for (const [step, c] of contradicted) {
    out.warnings.push({
      file,
      message:
        `${step}: the all row is not the sum of its hosts' rows (${c.first})` +
        `${c.more > 0 ? `; and ${c.more} more row${c.more > 1 ? "s" : ""} of this step` : ""}. ` +
        "iogen writes the exact sum: the file was edited or mixed; the Steps sheet uses the all row as it stands",
    });
  }
}

/**
 * The first row of the file's last group (its last step, or step × phase × subinterval in a
 * subinterval file): rows iogen writes in one batch, of which a cut file may have only some.
 */
function lastGroupStart(table: IogenTable, kind: IogenCsvKind): number {
  const group = (i: number): string => {
    const step = `${table.value("step", i)}`;
    return kind === "summary" ? step : `${step}|${table.text.phase.codes.get(i)}|${table.value("subinterval", i)}`;
  };
  let i = table.length - 1;
  if (i < 0) return 0;
  const last = group(i);
  while (i > 0 && group(i - 1) === last) i--;
  return i;
}

/** The problem with an `all` row's `column` against its hosts' sum, or null when it agrees. */
function sumProblem(table: IogenTable, column: IogenNumericColumn, slot: Slot): string | null {
  const all = table.value(column, slot.all);
  if (all === null) return null;
  let sum = 0;
  let tolerance = 0.5 * 10 ** -printedDecimals(all);
  for (const i of slot.hosts) {
    const v = table.value(column, i);
    if (v === null) return null; // a host without the figure: nothing to compare
    sum += v;
    tolerance += 0.5 * 10 ** -printedDecimals(v);
  }
  // Beyond the printing: the additions themselves round (relative 2^-52 a step).
  tolerance += 1e-12 * Math.max(Math.abs(all), Math.abs(sum));
  if (Math.abs(all - sum) <= tolerance) return null;
  const hostLines = slot.hosts.map((i) => table.line.get(i)).join(", ");
  return `${column} ${all} on the all row, ${+sum.toPrecision(15)} summed over its ${slot.hosts.length} hosts (lines ${hostLines})`;
}

function missingAll(
  table: IogenTable,
  kind: IogenCsvKind,
  file: string,
  slot: Slot,
  cutTail: boolean,
  count: number,
  out: IogenCheckResult,
): void {
  const lines = slot.hosts.map((i) => table.line.get(i)).join(", ");
  const i = slot.hosts[0];
  if (cutTail) {
    out.warnings.push({
      file,
      line: table.line.get(i),
      message: `${where(table, kind, i)}: no all row after its hosts' rows (lines ${lines}): the file ends there, cut mid-write; these host rows are on the Hosts sheet only`,
    });
    return;
  }
  if (count > MAX_LISTED) return;
  out.errors.push({
    file,
    line: table.line.get(i),
    message:
      `${where(table, kind, i)}: host rows (lines ${lines}) without the all row iogen writes after them ` +
      "(a multi-host run has one per step, subinterval and category): the step's total cannot be known; was the file edited?",
  });
}
