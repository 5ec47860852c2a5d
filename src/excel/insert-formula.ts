/**
 * Writes a formula into the selected cell (the top-left one of a selected range), never over the
 * planner's work without asking, and reads back what Excel made of it. The only `Excel.run` of the
 * Functions tab's Insert.
 *
 * Why each check:
 * - a cell that holds something is only replaced when the caller says so (`replace`): Insert asks first;
 * - a cell formatted as Text ("@") keeps whatever is typed into it as text, a formula included
 *   (Range.numberFormat, ExcelApi 1.1; office-js notes: "Set the number format to text ('@') …
 *   before writing values" is how text is kept from becoming a formula), so such a target is refused
 *   before writing: a formula written there would be dead text;
 * - after writing, `Range.formulas` is read back: the formula took only if Excel holds it as a formula.
 */

/** Where the formula went and what Excel made of it. */
export type InsertResult =
  /** Written and held as a formula; `value` is what the cell shows (the first of a spill; "#BUSY!" or "" while a custom function has not answered). */
  | { outcome: "inserted"; address: string; value: unknown }
  /** Not written: the cell holds something (`content`: its formula, or its value as text). */
  | { outcome: "occupied"; address: string; content: string }
  /** Not written: the cell is formatted as Text, where a formula stays text. */
  | { outcome: "text-format"; address: string }
  /** Written, but Excel holds it as something other than a formula (`heldAs`: what it reads back). */
  | { outcome: "not-taken"; address: string; heldAs: string };

/**
 * @param formula - an en-US formula ("=CAPLAB.NPV_IT(0.1,B2:B6)"), as `Range.formulas` takes it
 * @param options - `replace`: write even when the cell holds something (the planner said so)
 * @throws Error from Excel (e.g. a formula Excel cannot parse), with its message
 */
export async function insertIntoSelectedCell(
  formula: string,
  options: { replace?: boolean } = {},
): Promise<InsertResult> {
  return Excel.run(async (context) => {
    const selected = context.workbook.getSelectedRange();
    selected.load("rowCount,columnCount");
    await context.sync();
    const cell = selected.rowCount === 1 && selected.columnCount === 1 ? selected : selected.getCell(0, 0);
    cell.load("address,formulas,numberFormat");
    await context.sync();
    const address = oneCell(cell.address);
    if (cell.numberFormat[0]?.[0] === "@") return { outcome: "text-format", address };
    const before = cell.formulas[0]?.[0];
    if (!options.replace && before !== "" && before !== undefined && before !== null)
      return { outcome: "occupied", address, content: String(before) };
    cell.formulas = [[formula]];
    await context.sync();
    // Read in a request of its own, after Excel has calculated the new formula.
    cell.load("formulas,values");
    await context.sync();
    const held = cell.formulas[0]?.[0];
    if (typeof held !== "string" || !held.startsWith("="))
      return { outcome: "not-taken", address, heldAs: String(held ?? "") };
    return { outcome: "inserted", address, value: cell.values[0]?.[0] };
  });
}

/** "Sheet1!B3:B3" → "Sheet1!B3" (a one-cell range written as a range). */
function oneCell(address: string): string {
  return address.replace(/^(.*!)?(\$?[A-Z]+\$?\d+):\2$/, "$1$2");
}
