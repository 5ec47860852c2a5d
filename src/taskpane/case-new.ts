/**
 * Task pane section "New business case": a form (src/taskpane/case-form.ts) starting from one of
 * the examples, checked as it is edited by the validator of `caplab case` (messages beside the
 * field they name, and in a live summary), with the case as JSON under "Advanced" (to paste one in
 * or copy it out). When an analysis is in the workbook, a workload's service time can be the
 * analysis's CPU cost per IO by reference (src/excel/case-sources.ts). **Build case sheet** writes
 * the case sheet through the Office.js renderer, with live CAPLAB formulas (MMC_STAFF,
 * MMC_METRICS, NPV_IT) when the add-in's functions are loaded in this runtime.
 */
import { buildCasePlan, CasePlan } from "../case/case-plan";
import { parseCaseInput } from "../case/input";
import { isDomainError } from "../core/errors";
import { renderWorkbookPlan } from "../excel/render-plan";
import { runtimeFunctions } from "../sharing/functions";
import {
  CpuCostChoice,
  readCellValues,
  readCpuCostChoices,
  readWhatIfChoices,
  WhatIfChoice,
} from "../excel/case-sources";
import { CaseForm, Draft, refsOf } from "./case-form";
import { CASE_EXAMPLES, exampleDraft } from "./case-examples";
import { byId, el } from "./dom";
import { allProblems, humanPath } from "./case-check";

const BLANK = "blank";
/** A blank case: two options to name and cost, three years at 10 %. */
export const BLANK_CASE = {
  title: "Business case",
  currency: "£",
  years: 3,
  discountRate: 0.1,
  options: [
    { name: "Option 1", capex: 0, opex: [] },
    { name: "Option 2", capex: 0, opex: [] },
  ],
};

/** The example the form starts with (examples/storage-replacement.json). */
export const STARTING_CASE = exampleDraft(CASE_EXAMPLES[0].id);

function functionsLoaded(): boolean {
  try {
    runtimeFunctions();
    return true;
  } catch {
    return false;
  }
}

/**
 * Checks a draft and builds its plan (for Excel with the add-in).
 *
 * @param draft - the case in the JSON format of `caplab case`
 * @returns `{ plan }`, or `{ error, path }` where path names the input (e.g. `options[1].capex`)
 */
export function caseFromDraft(draft: unknown): { plan: CasePlan } | { error: string; path: string | null } {
  try {
    return { plan: buildCasePlan(parseCaseInput(draft), { forExcelAddin: true }) };
  } catch (e) {
    if (isDomainError(e)) return { error: e.message, path: e.argument };
    return { error: (e as Error).message, path: null };
  }
}

/**
 * Parses and checks a case given as JSON text; returns the plan or the problem in words.
 *
 * @param text - the case as JSON
 * @returns `{ plan }` or `{ error }` (JSON syntax, or the input path and what is wrong)
 */
export function caseFromText(text: string): { plan: CasePlan } | { error: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { error: `Not valid JSON: ${(e as Error).message}` };
  }
  const r = caseFromDraft(json);
  return "plan" in r ? r : { error: r.error };
}

/** The workloads whose service time refers to cells, with those cells and their divisor. */
function references(draft: Draft): { w: Record<string, unknown>; refs: string[]; divisor: number }[] {
  const out: { w: Record<string, unknown>; refs: string[]; divisor: number }[] = [];
  for (const o of Array.isArray(draft.options) ? (draft.options as Record<string, unknown>[]) : [])
    for (const w of Array.isArray(o?.workloads) ? (o.workloads as Record<string, unknown>[]) : []) {
      const refs = w ? refsOf(w) : undefined;
      if (refs)
        out.push({ w, refs, divisor: typeof w.serviceTimeRefDivisor === "number" ? w.serviceTimeRefDivisor : 1 });
    }
  return out;
}

/** The "Start from" choices: a blank case, then the examples. */
function fillExamples(example: HTMLSelectElement): void {
  if (example.options.length > 0) return;
  const blank = el("option", "A blank case (two options)");
  blank.value = BLANK;
  example.append(blank);
  for (const e of CASE_EXAMPLES) {
    const opt = el("option", e.label);
    opt.value = e.id;
    example.append(opt);
  }
}

/**
 * Checks the form's case and shows every problem at once (each a link to its field); Build is
 * enabled only for a case without problems.
 */
function checkAndList(form: CaseForm, errors: HTMLElement, build: HTMLButtonElement): ReturnType<typeof caseFromDraft> {
  const r = caseFromDraft(form.draft);
  const problems = "plan" in r ? [] : allProblems(form.draft);
  if (!("plan" in r) && problems.length === 0) problems.push({ path: r.path, message: r.error });
  const fields = form.showErrors(problems);
  errors.replaceChildren();
  build.disabled = problems.length > 0;
  if (problems.length === 0) return r;
  errors.append(el("span", `${problems.length} problem${problems.length === 1 ? "" : "s"} to fix before building:`));
  const ul = el("ul");
  problems.forEach((p, k) => {
    const where = p.path === null ? "The case" : humanPath(p.path, form.draft);
    const li = el("li");
    const field = fields[k];
    if (field) {
      const a = el("a", `${where}: ${p.message}`);
      a.href = `#${field.id}`;
      a.addEventListener("click", (e) => {
        e.preventDefault();
        field.focus();
      });
      li.append(a);
    } else li.append(`${where}: ${p.message}${p.path === null ? "" : " (in the JSON below)"}`);
    ul.append(li);
  });
  errors.append(ul);
  return r;
}

/**
 * "Start from": choosing another start replaces the form's case; when the planner had edited it,
 * the pane says so and offers Undo (which brings the edited case back), so no typing is lost to a
 * stray ArrowDown on the focused list.
 */
function wireStartFrom(example: HTMLSelectElement, form: CaseForm, load: (d: Draft) => void): () => void {
  const undoLine = byId<HTMLElement>("case-example-undo");
  let baseline = JSON.stringify(form.draft);
  let choice = example.value;
  example.addEventListener("change", () => {
    const edited = JSON.stringify(form.draft) !== baseline;
    const before = { draft: structuredClone(form.draft), choice, baseline };
    load(example.value === BLANK ? structuredClone(BLANK_CASE) : exampleDraft(example.value));
    baseline = JSON.stringify(form.draft);
    choice = example.value;
    undoLine.replaceChildren();
    if (!edited) return;
    const label = example.selectedOptions[0]?.textContent ?? example.value;
    const undo = document.createElement("button");
    undo.type = "button";
    undo.className = "link";
    undo.id = "case-example-undo-button";
    undo.textContent = "Undo";
    undo.addEventListener("click", () => {
      load(before.draft);
      example.value = before.choice;
      choice = before.choice;
      baseline = before.baseline;
      undoLine.textContent = "Your edited case is back.";
      example.focus();
    });
    undoLine.append(`Started from “${label}”: your edits to the previous case were replaced. `, undo);
  });
  // A case loaded another way (JSON) is the new starting point.
  return () => {
    baseline = JSON.stringify(form.draft);
    undoLine.replaceChildren();
  };
}

/** Reads the analysis in the workbook (its CPU cost lines, its What-if lines) now and whenever the Case tab is shown. */
function wireAnalysisRefresh(
  form: CaseForm,
  analysis: HTMLElement,
  setChoices: (c: CpuCostChoice[], w: WhatIfChoice[]) => boolean,
): void {
  const refresh = async (): Promise<void> => {
    try {
      const found = await readCpuCostChoices();
      const changed = setChoices(found, await readWhatIfChoices());
      const lines = found.length;
      analysis.textContent =
        lines > 0
          ? `An analysis is in this workbook: a workload's service time can refer to its fitted CPU cost per IO (${lines} fitted line${lines === 1 ? "" : "s"}).`
          : "";
      if (changed) form.render();
    } catch {
      // Reading is a convenience: without it the form still works with typed service times.
    }
  };
  void refresh();
  // By click, keyboard or ribbon command (the tab list shows its panel by clearing `hidden`).
  const panel = document.getElementById("panel-case");
  if (panel)
    new MutationObserver(() => {
      if (!panel.hidden) void refresh();
    }).observe(panel, { attributes: true, attributeFilter: ["hidden"] });
  byId("tab-case").addEventListener("click", () => void refresh());
}

/** Takes a referenced current load and growth as their cells hold them now (the sheet shows the formulas). */
async function takeWhatIfValues(draft: Draft): Promise<boolean> {
  const linked: Record<string, unknown>[] = [];
  for (const o of Array.isArray(draft.options) ? (draft.options as Record<string, unknown>[]) : [])
    for (const w of Array.isArray(o?.workloads) ? (o.workloads as Record<string, unknown>[]) : [])
      if (w && typeof w.growthRef === "string" && typeof w.arrivalRateRef === "string") linked.push(w);
  if (linked.length === 0) return false;
  const values = await readCellValues(linked.flatMap((w) => [w.arrivalRateRef as string, w.growthRef as string]));
  linked.forEach((w, k) => {
    const [rate, growth] = [values[2 * k], values[2 * k + 1]];
    const divisor = typeof w.growthRefDivisor === "number" ? w.growthRefDivisor : 1;
    if (typeof rate === "number") w.arrivalRate = rate;
    if (typeof growth === "number") w.growth = growth / divisor;
  });
  return true;
}

/** Takes a referenced service time as its cells hold it now (the sheet shows the formula). */
async function takeReferencedValues(draft: Draft): Promise<boolean> {
  const whatIf = await takeWhatIfValues(draft);
  const refs = references(draft);
  if (refs.length === 0) return whatIf;
  const values = await readCellValues(refs.flatMap((r) => r.refs));
  let k = 0;
  for (const r of refs) {
    const mine = values.slice(k, k + r.refs.length);
    k += r.refs.length;
    // As AVERAGE does: the sum in order over the count (a text or empty cell leaves S as it was).
    if (mine.every((v) => typeof v === "number"))
      r.w.serviceTime = (mine as number[]).reduce((a, b) => a + b, 0) / mine.length / r.divisor;
  }
  return true;
}

/** Build case sheet: checks, writes through the renderer, and moves the focus to the result. */
function wireBuild(
  form: CaseForm,
  build: HTMLButtonElement,
  validate: () => ReturnType<typeof caseFromDraft>,
  showJson: () => void,
): void {
  const status = byId<HTMLParagraphElement>("case-status");
  const say = (text: string, kind: "error" | "info" | "ok", focus: boolean): void => {
    status.textContent = text;
    status.className = `share-status ${kind}`;
    if (!focus) return;
    status.tabIndex = -1;
    status.focus();
  };
  build.addEventListener("click", async () => {
    build.disabled = true;
    // Build is disabled while it works: the focus waits on the line that says what is happening.
    say("Writing the case sheet…", "info", true);
    try {
      if (await takeReferencedValues(form.draft)) showJson();
      const parsed = validate();
      if (!("plan" in parsed)) {
        say(`Not built: ${parsed.error}`, "error", false);
        const field = parsed.path === null ? null : form.find(parsed.path);
        (field ?? status).focus();
        return;
      }
      const result = await renderWorkbookPlan(parsed.plan.plan, { functionsRegistered: functionsLoaded() });
      say(`Wrote "${result.sheets[0]?.written}". ${parsed.plan.plan.sheets[0].notes[1]}`, "ok", true);
    } catch (e) {
      say(`Could not write the case: ${(e as Error).message}`, "error", true);
    } finally {
      validate();
    }
  });
}

/** Wires the section; call once Office.js reports Excel. */
export function initNewCaseSection(): void {
  const example = byId<HTMLSelectElement>("case-example");
  const errors = byId<HTMLParagraphElement>("case-errors");
  const editor = byId<HTMLTextAreaElement>("case-json");
  const jsonStatus = byId<HTMLParagraphElement>("case-json-status");
  const build = byId<HTMLButtonElement>("case-build");
  byId<HTMLElement>("case-new").hidden = false;
  let choices: CpuCostChoice[] = [];
  let whatIf: WhatIfChoice[] = [];
  fillExamples(example);
  const validate = (): ReturnType<typeof caseFromDraft> => checkAndList(form, errors, build);
  const showJson = (): void => {
    if (document.activeElement !== editor) editor.value = JSON.stringify(form.draft, null, 2);
  };
  const form = new CaseForm(byId<HTMLElement>("case-form"), structuredClone(STARTING_CASE), {
    changed: () => {
      validate();
      showJson();
    },
    choices: () => choices,
    whatIf: () => whatIf,
  });
  const load = (draft: Draft): void => {
    form.draft = draft;
    form.render();
    validate();
    showJson();
  };
  load(structuredClone(STARTING_CASE));
  example.value = CASE_EXAMPLES[0].id;
  const newStart = wireStartFrom(example, form, load);
  byId<HTMLButtonElement>("case-json-apply").addEventListener("click", () => {
    try {
      const parsed = JSON.parse(editor.value) as unknown;
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
        throw new Error("the case must be a JSON object");
      load(parsed as Draft);
      newStart();
      jsonStatus.textContent = "Loaded into the form.";
    } catch (e) {
      jsonStatus.textContent = `Not loaded: ${(e as Error).message}`;
    }
  });
  wireAnalysisRefresh(form, byId<HTMLParagraphElement>("case-analysis"), (found, lines) => {
    const changed = JSON.stringify([found, lines]) !== JSON.stringify([choices, whatIf]);
    choices = found;
    whatIf = lines;
    return changed;
  });
  wireBuild(form, build, validate, showJson);
}
