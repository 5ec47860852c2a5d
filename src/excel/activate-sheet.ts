/** Makes a sheet the active one (Worksheet.activate, ExcelApi 1.1): "Go to Summary" after an import. */
export async function activateSheet(name: string): Promise<void> {
  await Excel.run(async (context) => {
    context.workbook.worksheets.getItem(name).activate();
    await context.sync();
  });
}
