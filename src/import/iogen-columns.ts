/**
 * The columns of iogen's CSVs as the reader sees them: which are numbers and which texts (from
 * `iogen/schema/columns.json` through the generated `iogen-schema.ts`), which a file must have, and
 * the header line: its delimiter, its fields, and whether it is an iogen subinterval or summary file.
 */
import type { IogenNumericColumn, IogenTextColumn, NumericSchemaColumn, TextSchemaColumn } from "./iogen-row";
import { IOGEN_SCHEMA_COLUMNS } from "./iogen-schema";
import { CR, LF, QUOTE } from "./csv-bytes";

export type IogenCsvKind = "subinterval" | "summary";

/** The per-subinterval / per-step measurements, in schema order (`iogen/schema/columns.json`). */
export const IOGEN_NUMERIC_COLUMNS: readonly IogenNumericColumn[] = IOGEN_SCHEMA_COLUMNS.filter(
  (c): c is NumericSchemaColumn => c.type !== "text",
).map((c) => c.name);

/** Text columns iogen itself writes (everything else is a label). */
export const IOGEN_TEXT_COLUMNS: readonly IogenTextColumn[] = IOGEN_SCHEMA_COLUMNS.filter(
  (c): c is TextSchemaColumn => c.type === "text",
).map((c) => c.name);

/** The columns of one kind of file, in the order iogen writes them (label columns follow). */
export function iogenColumnsOf(kind: IogenCsvKind): string[] {
  return IOGEN_SCHEMA_COLUMNS.filter((c) => (c.files as readonly string[]).includes(kind)).map((c) => c.name);
}

function requiredIn(kind: IogenCsvKind): readonly string[] {
  return IOGEN_SCHEMA_COLUMNS.filter((c) => (c.required_in as readonly string[]).includes(kind)).map((c) => c.name);
}

/** Columns without which a subinterval file cannot be analysed (schema `required_in`). */
export const IOGEN_SUBINTERVAL_REQUIRED = requiredIn("subinterval");
/** Columns without which a summary file cannot be analysed (schema `required_in`). */
export const IOGEN_SUMMARY_REQUIRED = requiredIn("summary");

export const NUMERIC_SET = new Set<string>(IOGEN_NUMERIC_COLUMNS);
export const TEXT_SET = new Set<string>(IOGEN_TEXT_COLUMNS);

/** True when a header looks like an iogen CSV (enough of iogen's own columns). */
export function looksLikeIogenHeader(header: string[]): boolean {
  let known = 0;
  for (const h of header) if (NUMERIC_SET.has(h) || TEXT_SET.has(h)) known++;
  return known >= 4;
}

/** Which iogen file a header belongs to: subinterval rows carry `phase`/`subinterval`/`start_s`. */
export function iogenKindOf(header: string[]): IogenCsvKind {
  const set = new Set(header);
  if (set.has("measure_seconds") || set.has("seen_enough") || set.has("achieved_pm")) return "summary";
  return set.has("phase") || set.has("subinterval") || set.has("start_s") ? "subinterval" : "summary";
}

/** The delimiter of a CSV from its header line: the most frequent of `,`, `;` and tab (header names contain none). */
export function headerDelimiter(firstLine: string): string {
  const count = (ch: string): number => firstLine.split(ch).length - 1;
  const candidates: [string, number][] = [
    [",", count(",")],
    [";", count(";")],
    ["\t", count("\t")],
  ];
  candidates.sort((a, b) => b[1] - a[1]);
  return candidates[0][1] > 0 ? candidates[0][0] : ",";
}

/** Splits one header line (no line break) at `delimiter`, honouring RFC 4180 quotes. */
export function splitHeaderLine(line: string, delimiter: string): string[] {
  const out: string[] = [];
  let i = 0;
  for (;;) {
    if (line[i] === '"') {
      let j = i + 1;
      let text = "";
      for (;;) {
        const q = line.indexOf('"', j);
        if (q < 0) {
          text += line.slice(j);
          j = line.length;
          break;
        }
        text += line.slice(j, q);
        if (line[q + 1] === '"') {
          text += '"';
          j = q + 2;
        } else {
          j = q + 1;
          break;
        }
      }
      const d = line.indexOf(delimiter, j);
      out.push(text + (d < 0 ? line.slice(j) : line.slice(j, d)));
      if (d < 0) return out;
      i = d + 1;
    } else {
      const d = line.indexOf(delimiter, i);
      out.push(d < 0 ? line.slice(i) : line.slice(i, d));
      if (d < 0) return out;
      i = d + 1;
    }
  }
}

/** The position of the first CR or LF in b[start, limit) outside double quotes, or -1. */
export function firstUnquotedLineBreak(b: Uint8Array, start: number, limit: number): number {
  let inQuote = false;
  for (let i = start; i < limit; i++) {
    const c = b[i];
    if (c === QUOTE) inQuote = !inQuote;
    else if (!inQuote && (c === LF || c === CR)) return i;
  }
  return -1;
}
