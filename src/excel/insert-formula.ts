/**
 * Writes a formula into the selected cell (the top-left one of a selected range) and reads back
 * where it went and what it shows. The only `Excel.run` of the Functions tab's Insert.
 */

/**
 * Where the formula went and its value after calculation (the first of a spill). A custom function
 * that has not answered yet shows "#BUSY!" (or nothing) here.
 */
export interface InsertResult {
  /** The cell's address with its sheet, e.g. "Sheet1!B3". */
  address: string;
  value: unknown;
}

/**
 * @param formula - an en-US formula ("=CAPLAB.NPV_IT(0.1,B2:B6)"), as `Range.formulas` takes it
 * @throws Error from Excel (e.g. a formula Excel cannot parse), with its message
 */
export async function insertIntoSelectedCell(formula: string): Promise<InsertResult> {
  return Excel.run(async (context) => {
    const selected = context.workbook.getSelectedRange();
    selected.load("rowCount,columnCount,address");
    await context.sync();
    const cell = selected.rowCount === 1 && selected.columnCount === 1 ? selected : selected.getCell(0, 0);
    cell.formulas = [[formula]];
    cell.load("address");
    await context.sync();
    // Read in a request of its own, after Excel has calculated the new formula.
    cell.load("values");
    await context.sync();
    return { address: oneCell(cell.address), value: cell.values[0]?.[0] };
  });
}

/** "Sheet1!B3:B3" → "Sheet1!B3" (a one-cell range written as a range). */
function oneCell(address: string): string {
  return address.replace(/^(.*!)?(\$?[A-Z]+\$?\d+):\2$/, "$1$2");
}
