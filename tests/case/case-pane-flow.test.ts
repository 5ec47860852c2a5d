/**
 * The pane's path for a business case, end to end in memory: the case plan (for Excel with the
 * add-in) written by the pane's Office.js renderer (src/excel/render-plan.ts), then that workbook
 * — cells, formats, formulas and values as the renderer left them — exported for managers
 * (src/excel/sharing-excel.ts), all against the in-memory Excel of tests/excel/fake-excel.ts.
 * The export evaluates each CAPLAB formula with the add-in's functions and compares it with the
 * value the renderer wrote (the plan's): no mismatch may be reported.
 */
import * as fs from "fs";
import * as path from "path";
import JSZip from "jszip";
import { casePlanFromJson } from "../../src/case/case-plan";
import { renderWorkbookPlan } from "../../src/excel/render-plan";
import { exportForManagers } from "../../src/excel/sharing-excel";
import { hasCaplabFormula } from "../../src/sharing/freeze";
import { createFakeHost, installFakeHost } from "../excel/fake-excel";
import * as wrappers from "../../src/functions/functions";
import { parseA1, planCells } from "./sheet-eval";
import { cellResult } from "../../src/workbook/plan";

const EXAMPLE = path.join(__dirname, "..", "..", "examples", "nfs-vs-fc-70k-iops.json");

it("a new case written by the pane's renderer has CAPLAB formulas; exported for managers it has none, with the same values", async () => {
  const built = casePlanFromJson(JSON.parse(fs.readFileSync(EXAMPLE, "utf8")), { forExcelAddin: true });
  const host = createFakeHost({ functions: wrappers });
  installFakeHost(globalThis as unknown as Record<string, unknown>, host);
  const rendered = await renderWorkbookPlan(built.plan, { functionsRegistered: true });
  expect(rendered.addinFormulas).toBe(true);
  const written = host.workbook.sheet(rendered.sheets[0].written);
  if (!written) throw new Error("the case sheet was not written");
  const addin = [...written.cells.values()].filter((c) => c.formula !== null && hasCaplabFormula(c.formula));
  expect(addin.length).toBe(built.layout.addinFormulas.length);

  const sheet = written;
  const before = [...sheet.cells.entries()].map(([k, c]) => [k, c.formula, c.value]);
  // Every add-in cell holds the value the plan carries (written before its formula).
  const planned = planCells(built.plan.sheets[0]);
  for (const { address } of built.layout.addinFormulas) {
    const { row, col } = parseA1(address);
    expect(sheet.cells.get(`${row},${col}`)?.value).toBe(cellResult(planned.get(`${row},${col}`) ?? null));
  }

  const report = await exportForManagers([rendered.sheets[0].written], "NFS or FC");
  expect(report.mismatches).toEqual([]);
  expect(report.frozen.length).toBe(addin.length);
  // The open workbook gains no sheet and keeps every cell.
  expect(host.workbook.sheets.map((s) => s.name)).toEqual([rendered.sheets[0].written]);
  expect([...sheet.cells.entries()].map(([k, c]) => [k, c.formula, c.value])).toEqual(before);

  const zip = await JSZip.loadAsync(Buffer.from(host.workbook.created[0], "base64"));
  for (const name of Object.keys(zip.files)) {
    expect(name).not.toMatch(/webextension/i);
    if (/\.(xml|rels)$/.test(name)) {
      expect(await (zip.file(name) as JSZip.JSZipObject).async("string")).not.toMatch(/_xldudf_|CAPLAB\./i);
    }
  }
});
