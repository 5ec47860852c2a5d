/**
 * The pane's sheet-level actions on sheets it wrote itself: "Go to Summary" after an import, and
 * removing what a cancelled or failed import left behind (only when the planner asks).
 */

/**
 * Makes a sheet the active one (Worksheet.activate, ExcelApi 1.1) and, when `address` is given
 * (e.g. "A12:C12", a warning's row), selects it there (Range.select, ExcelApi 1.1).
 */
export async function activateSheet(name: string, address?: string): Promise<void> {
  await Excel.run(async (context) => {
    const sheet = context.workbook.worksheets.getItem(name);
    sheet.activate();
    if (address) sheet.getRange(address).select();
    await context.sync();
  });
}

/**
 * Deletes the named sheets that still exist (Worksheet.delete, ExcelApi 1.1;
 * getItemOrNullObject, ExcelApi 1.4), in one request.
 *
 * @param names - sheet names exactly as the import wrote them
 * @returns the names deleted (a sheet already gone is left out)
 */
export async function removeSheets(names: string[]): Promise<string[]> {
  return Excel.run(async (context) => {
    const found = names.map((n) => ({ name: n, sheet: context.workbook.worksheets.getItemOrNullObject(n) }));
    await context.sync();
    const present = found.filter((f) => !f.sheet.isNullObject);
    for (const f of present) f.sheet.delete();
    await context.sync();
    return present.map((f) => f.name);
  });
}
