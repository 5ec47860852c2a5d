/**
 * Text renderer: a plan's table as aligned plain text for a terminal (`caplab lab` prints the
 * Steps table with it). Numbers use the cell's number format (its own, else its column's), as the
 * HTML report shows them.
 */
import { cellNumFmt, cellResult, tableRow, tableRowCount, type TablePlan } from "../workbook/plan";
import { formatNumber } from "./html";

type Shown = ReturnType<typeof cellResult>;

/** One cell as text: a number in the column's format, text on one line, an error as its code. */
function cellText(v: Shown, numFmt: string | undefined): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "number") return formatNumber(v, numFmt);
  if (typeof v === "string") return v.replace(/[\r\n\t]+/g, " ");
  if (typeof v === "boolean") return v ? "TRUE" : "FALSE";
  return v.error;
}

/** The "Same in every row: header: value; …" lines, wrapped at `width`, then a blank line. */
function sameLines(items: string[], width: number): string[] {
  if (items.length === 0) return [];
  const out: string[] = [];
  let line = "Same in every row:";
  for (const item of items) {
    if (line.length + 2 + item.length > width) {
      out.push(line.endsWith(":") ? line : line + ";");
      line = "  " + item;
    } else line += (line.endsWith(":") ? " " : "; ") + item;
  }
  out.push(line, "");
  return out;
}

/** Columns cut into blocks of at most `width` characters, each starting with the `key` column. */
function columnBlocks(key: number, rest: number[], widths: number[], width: number): number[][] {
  const blocks: number[][] = [];
  let block: number[] = [key];
  let used = widths[key];
  for (const c of rest) {
    if (block.length > 1 && used + 2 + widths[c] > width) {
      blocks.push(block);
      block = [key];
      used = widths[key];
    }
    block.push(c);
    used += 2 + widths[c];
  }
  blocks.push(block);
  return blocks;
}

/**
 * A table as aligned text. Columns whose text is the same in every row (when there are at least
 * two rows) are listed once above the grid as `header: value`, unless `keepConstant`. Columns are
 * split into blocks that fit `width` characters, the `step` column (else the first) repeated in
 * each block, like R's print of a wide data frame. Numbers use the column's number format.
 *
 * @param table - a plan's table (row or columnar); formulas show their computed result
 * @param width - the line width to fit
 * @param keepConstant - keep constant columns in the grid
 * @returns the text, ending with a newline
 * @example
 * formatTextTable({ name: "T", at: { row: 0, col: 0 }, columns: [{ key: "step", header: "step" }], rows: [[1]] })
 * // => "step\n   1\n"
 */
export function formatTextTable(table: TablePlan, width = 120, keepConstant = false): string {
  const cols = table.columns;
  const rows = Array.from({ length: tableRowCount(table) }, (_, i) => tableRow(table, i).map(cellResult));
  const texts = rows.map((row, r) => cols.map((_, c) => cellText(row[c], cellNumFmt(table, r, c))));
  const constant = cols.map((_, c) => !keepConstant && texts.length > 1 && texts.every((t) => t[c] === texts[0][c]));
  const shown = cols.map((_, c) => c).filter((c) => !constant[c]);
  const same = cols
    .map((col, c) => (constant[c] && texts[0][c] !== "" ? `${col.header}: ${texts[0][c]}` : ""))
    .filter((x) => x !== "");
  const out = sameLines(same, width);
  if (shown.length === 0) return out.join("\n") + "\n";
  const widths = cols.map((col, c) => Math.max(col.header.length, ...texts.map((t) => t[c].length)));
  const numeric = cols.map((_, c) => rows.every((r) => typeof r[c] !== "string"));
  const pad = (text: string, c: number): string => (numeric[c] ? text.padStart(widths[c]) : text.padEnd(widths[c]));
  const line = (b: number[], text: (c: number) => string): string =>
    b
      .map((c) => pad(text(c), c))
      .join("  ")
      .trimEnd();
  const key = shown.find((c) => cols[c].key === "step") ?? shown[0];
  columnBlocks(
    key,
    shown.filter((c) => c !== key),
    widths,
    width,
  ).forEach((b, i) => {
    if (i > 0) out.push("");
    out.push(line(b, (c) => cols[c].header));
    for (const t of texts) out.push(line(b, (c) => t[c]));
  });
  return out.join("\n") + "\n";
}
