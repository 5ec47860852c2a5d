/**
 * Task pane section "New business case": the planner edits a case as JSON (the format of
 * `caplab case`, docs/case.md; a starting example is filled in) and **Build case sheet** writes
 * the case sheet into the workbook through the Office.js renderer, with live CAPLAB formulas
 * (MMC_STAFF, MMC_METRICS, NPV_IT) when the add-in's functions are loaded in this runtime.
 * Problems are reported with the input's path (e.g. `options[1].capex: must be an amount ≥ 0`).
 */
import { buildCasePlan } from "../analysis/case-plan";
import { parseCaseInput } from "../analysis/case-input";
import { renderWorkbookPlan } from "../excel/render-plan";
import { runtimeFunctions } from "../excel/sharing-functions";

/** The example the editor starts with (examples/storage-replacement.json). */
export const STARTING_CASE = {
  title: "Keep the storage array on support, or replace it",
  currency: "£",
  years: 3,
  discountRate: 0.1,
  options: [
    { name: "Keep current array", opex: [{ label: "Support contract", perYear: 100000 }] },
    { name: "Replace", capex: 250000, opex: [{ label: "Support contract", perYear: 0 }] },
  ],
};

function byId<T extends HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`taskpane.html has no #${id}`);
  return el as T;
}

function functionsLoaded(): boolean {
  try {
    runtimeFunctions();
    return true;
  } catch {
    return false;
  }
}

/**
 * Parses and checks the editor's text; returns the plan or the problem in words.
 *
 * @param text - the case as JSON
 * @returns `{ plan }` or `{ error }` (JSON syntax, or the input path and what is wrong)
 */
export function caseFromText(text: string): { plan: ReturnType<typeof buildCasePlan> } | { error: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { error: `Not valid JSON: ${(e as Error).message}` };
  }
  try {
    return { plan: buildCasePlan(parseCaseInput(json), { forExcelAddin: true }) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** Wires the section; call once Office.js reports Excel. */
export function initNewCaseSection(): void {
  const section = byId<HTMLElement>("case-new");
  const editor = byId<HTMLTextAreaElement>("case-json");
  const build = byId<HTMLButtonElement>("case-build");
  const status = byId<HTMLParagraphElement>("case-status");
  section.hidden = false;
  if (editor.value.trim() === "") editor.value = JSON.stringify(STARTING_CASE, null, 2);
  build.addEventListener("click", async () => {
    const parsed = caseFromText(editor.value);
    if ("error" in parsed) {
      status.textContent = parsed.error;
      status.className = "share-status error";
      return;
    }
    build.disabled = true;
    status.textContent = "Writing the case sheet…";
    status.className = "share-status info";
    try {
      const result = await renderWorkbookPlan(parsed.plan.plan, { functionsRegistered: functionsLoaded() });
      status.textContent = `Wrote "${result.sheets[0]?.written}". ${parsed.plan.plan.sheets[0].notes[1]}`;
      status.className = "share-status ok";
    } catch (e) {
      status.textContent = `Could not write the case: ${(e as Error).message}`;
      status.className = "share-status error";
    } finally {
      build.disabled = false;
    }
  });
}
