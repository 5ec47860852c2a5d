/**
 * The pane's path for a business case, end to end in memory: the case plan (for Excel with the
 * add-in) written by the pane's Office.js renderer (src/excel/render-plan.ts, against its
 * in-memory host tests/excel/fake-excel.ts), then that workbook — cells, formats, formulas as the
 * renderer left them — prepared for sharing and exported (src/excel/sharing-excel.ts, against the
 * calculating in-memory Excel of tests/case/fake-excel.ts, which adds Worksheet.copy, copyFrom,
 * used ranges and recalculation).
 */
import * as fs from "fs";
import * as path from "path";
import JSZip from "jszip";
import { casePlanFromJson } from "../../src/analysis/case-plan";
import { renderWorkbookPlan } from "../../src/excel/render-plan";
import { exportValuesOnlyWorkbook, prepareForSharing } from "../../src/excel/sharing-excel";
import { hasCaplabFormula } from "../../src/excel/sharing";
import { createFakeHost, installFakeHost } from "../excel/fake-excel";
import { FakeWorkbook } from "./fake-excel";
import { parseA1, planCells } from "./sheet-eval";
import { cellResult } from "../../src/analysis/plan";

const EXAMPLE = path.join(__dirname, "..", "..", "examples", "nfs-vs-fc-70k-iops.json");

it("a new case written by the pane's renderer has CAPLAB formulas; prepared for sharing it has none, with the same values", async () => {
  const built = casePlanFromJson(JSON.parse(fs.readFileSync(EXAMPLE, "utf8")), { forExcelAddin: true });
  const host = createFakeHost();
  installFakeHost(globalThis as unknown as Record<string, unknown>, host);
  const rendered = await renderWorkbookPlan(built.plan, { functionsRegistered: true });
  expect(rendered.addinFormulas).toBe(true);
  const written = host.workbook.sheet(rendered.sheets[0].written);
  if (!written) throw new Error("the case sheet was not written");
  const addin = [...written.cells.values()].filter((c) => c.formula !== null && hasCaplabFormula(c.formula));
  expect(addin.length).toBe(built.layout.addinFormulas.length);

  // The same workbook in the calculating fake: what Excel with the add-in would hold.
  const wb = new FakeWorkbook();
  const sheet = wb.addSheet(written.name);
  for (const [key, c] of written.cells) {
    const [r, col] = key.split(",").map(Number);
    const cell = sheet.cell(r, col);
    cell.numberFormat = c.format;
    if (c.formula !== null) cell.formula = c.formula;
    else cell.value = c.value === "" ? null : c.value;
  }
  wb.recalc();
  wb.install();
  const before = [...sheet.cells.entries()].map(([k, c]) => [k, c.formula, c.value]);
  // Every add-in cell computes the value the plan carries.
  const planned = planCells(built.plan.sheets[0]);
  for (const { address } of built.layout.addinFormulas) {
    const { row, col } = parseA1(address);
    const want = cellResult(planned.get(`${row},${col}`) ?? null) as number;
    const got = sheet.cells.get(`${row},${col}`)?.value as number;
    expect(Math.abs(got - want)).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(want)));
  }

  const report = await prepareForSharing();
  expect(report.remainingCaplab).toBe(0);
  expect(report.mismatches).toEqual([]);
  expect(report.frozen.length).toBe(addin.length);
  const copy = wb.sheet(report.copies[0].copy);
  expect([...copy.cells.values()].filter((c) => c.formula !== undefined && hasCaplabFormula(c.formula))).toEqual([]);
  for (const [k, c] of sheet.cells) expect(copy.cells.get(k)?.value).toEqual(c.value);
  expect([...sheet.cells.entries()].map(([k, c]) => [k, c.formula, c.value])).toEqual(before);

  await exportValuesOnlyWorkbook([report.copies[0].copy], "NFS or FC");
  const zip = await JSZip.loadAsync(Buffer.from(wb.created[0], "base64"));
  for (const name of Object.keys(zip.files)) {
    expect(name).not.toMatch(/webextension/i);
    if (/\.(xml|rels)$/.test(name)) {
      expect(await (zip.file(name) as JSZip.JSZipObject).async("string")).not.toMatch(/_xldudf_|CAPLAB\./i);
    }
  }
});
