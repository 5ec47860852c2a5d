/**
 * The Functions tab: the worksheet functions with their one-line help and the ideas they are about,
 * a search over name, description and ideas, and Insert: a form with the function's documented
 * parameters (defaults shown) that writes the formula into the selected cell.
 */
import {
  bundledFunctions,
  documentedDefault,
  filterFunctions,
  FUNCTION_CONCEPTS,
  FunctionSummary,
  insertFormula,
  relativeHelpLink,
  signature,
} from "./function-catalog";
import { byId, el } from "./dom";
import type { InsertResult } from "../excel/insert-formula";

/** How Insert writes (set once Excel is connected; null outside Excel). */
type Writer = (formula: string, options: { replace?: boolean }) => Promise<InsertResult>;
let writer: Writer | null = null;

/** Lets Insert write into the workbook (call once Excel is connected). */
export function enableInsert(write: Writer): void {
  writer = write;
}

function shown(value: unknown): string {
  if (typeof value === "number") return value.toLocaleString("en-US", { maximumSignificantDigits: 6 });
  return String(value);
}

/** A cell's content for a sentence: quoted, at most 60 characters, control characters as spaces. */
function quoted(text: string): string {
  const flat = Array.from(text, (c) => (c < " " || c === "\u007f" ? " " : c)).join("");
  return `“${flat.length > 60 ? `${flat.slice(0, 59)}…` : flat}”`;
}

/** A small fluent-button. */
function smallButton(text: string, primary = false): HTMLElement {
  const b = document.createElement("fluent-button");
  b.setAttribute("size", "small");
  if (primary) b.setAttribute("appearance", "primary");
  b.textContent = text;
  return b;
}

/** One labelled field per parameter (label, input, help, error line), appended to `form`. */
function parameterFields(
  fn: FunctionSummary,
  form: HTMLFormElement,
): { input: HTMLInputElement; error: HTMLElement }[] {
  return fn.parameters.map((p, i) => {
    const id = `arg-${fn.id}-${i}`;
    const label = el("label", p.name, "field");
    label.htmlFor = id;
    if (p.optional) label.append(el("span", " (optional)", "optional"));
    const input = el("input", "", "fluent-input");
    input.id = id;
    input.type = "text";
    input.autocomplete = "off";
    input.spellcheck = false;
    input.dataset.parameter = p.name;
    const fallback = p.optional ? documentedDefault(p.description ?? "") : undefined;
    input.placeholder = fallback !== undefined ? `default ${fallback}` : p.range ? "e.g. B2:B6" : "";
    const help = el("p", p.description ?? "", "hint muted");
    help.id = `${id}-help`;
    const error = el("p", "", "arg-error");
    error.id = `${id}-error`;
    input.setAttribute("aria-describedby", `${help.id} ${error.id}`);
    input.addEventListener("input", () => {
      error.textContent = "";
      input.removeAttribute("aria-invalid");
    });
    form.append(label, input, help, error);
    return { input, error };
  });
}

/**
 * What the pane says after Excel answered: the truth about the cell. Returns null when the form
 * stays open for the planner to answer (the cell holds something: replace it?).
 */
function insertMessage(formula: string, done: InsertResult): { text: string; ok: boolean } | null {
  switch (done.outcome) {
    case "inserted": {
      const calculated = done.value !== "" && done.value !== "#BUSY!" && done.value !== undefined;
      return {
        ok: true,
        text: `Inserted ${formula} into ${done.address}${calculated ? `; it shows ${shown(done.value)}` : ""}.`,
      };
    }
    case "text-format":
      return {
        ok: false,
        text:
          `Nothing inserted: ${done.address} is formatted as Text, where Excel keeps a formula as text. ` +
          "Select another cell, or set this one's format to General, and press Insert again.",
      };
    case "not-taken":
      return {
        ok: false,
        text:
          `Excel holds ${done.address} as ${quoted(done.heldAs)}, not as the formula ${formula}: it will not calculate. ` +
          "Check the cell's format (Text keeps formulas as text) and insert again.",
      };
    case "occupied":
      return null;
  }
}

/** Each problem beside its field, announced (role=alert); the focus goes to the first. */
function showProblems(
  fn: FunctionSummary,
  inputs: { input: HTMLInputElement; error: HTMLElement }[],
  problems: { parameter: string; message: string }[],
): void {
  for (const p of problems) {
    const field = inputs[fn.parameters.findIndex((x) => x.name === p.parameter)];
    field.error.setAttribute("role", "alert");
    field.error.textContent = p.message;
    field.input.setAttribute("aria-invalid", "true");
  }
  inputs[fn.parameters.findIndex((x) => x.name === problems[0].parameter)].input.focus();
}

/**
 * Asks, inside the form, whether to replace what the selected cell holds: the question gets the
 * focus; Replace it / Keep it answer (Insert is hidden meanwhile, so one primary action shows).
 */
function askToReplace(
  fn: FunctionSummary,
  parts: { confirm: HTMLElement; go: HTMLElement },
  text: string,
  answer: { replace: () => void; keep: () => void },
): void {
  const { confirm, go } = parts;
  const replace = smallButton("Replace it", true);
  replace.id = `insert-replace-${fn.id}`;
  const keep = smallButton("Keep it");
  const question = el("p", text);
  question.id = `insert-question-${fn.id}`;
  question.tabIndex = -1;
  const actions = el("div", "", "actions");
  actions.append(replace, keep);
  confirm.replaceChildren(question, actions);
  confirm.setAttribute("role", "alert");
  confirm.hidden = false;
  go.hidden = true;
  replace.addEventListener("click", answer.replace);
  keep.addEventListener("click", () => {
    confirm.hidden = true;
    confirm.replaceChildren();
    go.hidden = false;
    answer.keep();
  });
  question.focus();
}

/** The argument form under a function: one field per parameter, then Insert / Cancel. */
function insertForm(fn: FunctionSummary, li: HTMLLIElement, opener: HTMLElement): HTMLElement {
  const form = el("form", "", "insert-form");
  form.id = `insert-form-${fn.id}`;
  form.setAttribute("aria-label", `Arguments of ${fn.name}`);
  form.noValidate = true;
  const inputs = parameterFields(fn, form);
  const preview = el("p", "", "preview");
  preview.id = `insert-preview-${fn.id}`;
  preview.setAttribute("aria-live", "polite");
  // Asked when the selected cell holds something: Replace it, or keep it.
  const confirm = el("div", "", "insert-confirm");
  confirm.id = `insert-confirm-${fn.id}`;
  confirm.hidden = true;
  const buttons = el("div", "", "actions");
  const go = smallButton("Insert into the selected cell", true);
  go.setAttribute("type", "submit");
  go.id = `insert-go-${fn.id}`;
  const cancel = smallButton("Cancel");
  buttons.append(go, cancel);
  form.append(preview, confirm, buttons);

  const texts = (): string[] => inputs.map(({ input }) => input.value);
  const refresh = (): void => {
    const r = insertFormula(fn, texts());
    preview.textContent = "formula" in r ? r.formula : "";
  };
  form.addEventListener("input", refresh);
  refresh();
  const status = li.querySelector<HTMLElement>(".insert-status") as HTMLElement;
  const close = (): void => {
    form.remove();
    opener.setAttribute("aria-expanded", "false");
    opener.focus();
  };
  cancel.addEventListener("click", close);
  form.addEventListener("keydown", (e) => {
    if (e.key === "Escape") close();
  });
  const say = (text: string, ok: boolean): void => {
    status.className = `insert-status ${ok ? "ok" : "error"}`;
    status.setAttribute("role", ok ? "status" : "alert");
    status.textContent = text;
    status.focus();
  };
  const ask = (formula: string, address: string, content: string): void =>
    askToReplace(fn, { confirm, go }, `${address} holds ${quoted(content)}. Replace it with ${formula}?`, {
      replace: () => void submit(true),
      keep: () =>
        say(`Nothing inserted: ${address} keeps its content. Select an empty cell and press Insert again.`, false),
    });
  const submit = async (replace = false): Promise<void> => {
    const r = insertFormula(fn, texts());
    for (const { input, error } of inputs) {
      error.textContent = "";
      error.removeAttribute("role");
      input.removeAttribute("aria-invalid");
    }
    if ("problems" in r) return showProblems(fn, inputs, r.problems);
    // The question goes; the focus, if it was there (Replace it), stays in the form on Insert while Excel writes.
    const answered = confirm.contains(document.activeElement);
    go.hidden = false;
    if (answered) go.focus();
    confirm.hidden = true;
    confirm.replaceChildren();
    if (!writer) return say(`Open Capacity Lab in Excel to insert. The formula: ${r.formula}`, false);
    try {
      const done = await writer(r.formula, { replace });
      const message = insertMessage(r.formula, done);
      if (message === null && done.outcome === "occupied") return ask(r.formula, done.address, done.content);
      if (message?.ok) {
        form.remove();
        opener.setAttribute("aria-expanded", "false");
      }
      if (message) say(message.text, message.ok);
    } catch (e) {
      say(`Could not insert ${r.formula}: ${(e as Error).message}. Select a cell and try again.`, false);
    }
  };
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    void submit();
  });
  // fluent-button type=submit submits through ElementInternals; a click does it too where not.
  go.addEventListener("click", (e) => {
    e.preventDefault();
    void submit();
  });
  form.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && e.target instanceof HTMLInputElement) {
      e.preventDefault();
      void submit();
    }
  });
  return form;
}

function functionItem(fn: FunctionSummary): HTMLLIElement {
  const li = el("li", "", "function");
  li.id = `function-${fn.id}`;
  const code = el("code", signature(fn));
  const help = el("a", "Help");
  help.href = relativeHelpLink(fn);
  help.target = "_blank";
  help.rel = "noopener";
  help.setAttribute("aria-label", `Help for ${fn.name}`);
  const insert = document.createElement("fluent-button");
  insert.setAttribute("size", "small");
  insert.id = `insert-${fn.id}`;
  insert.textContent = "Insert";
  insert.setAttribute("aria-label", `Insert ${fn.name}`);
  insert.setAttribute("aria-expanded", "false");
  insert.setAttribute("aria-controls", `insert-form-${fn.id}`);
  const description = el("p", fn.description);
  const concepts = FUNCTION_CONCEPTS[fn.id];
  const about = concepts ? el("p", `About: ${concepts.join(", ")}.`, "concepts") : null;
  const status = el("p", "", "insert-status");
  status.id = `insert-status-${fn.id}`;
  status.tabIndex = -1;
  li.append(code, help, insert, description);
  if (about) li.append(about);
  li.append(status);
  insert.addEventListener("click", () => {
    const open = li.querySelector("form");
    if (open) {
      open.remove();
      insert.setAttribute("aria-expanded", "false");
      return;
    }
    status.textContent = "";
    const form = insertForm(fn, li, insert);
    status.before(form);
    insert.setAttribute("aria-expanded", "true");
    form.querySelector("input")?.focus();
  });
  return li;
}

function renderFunctions(all: FunctionSummary[], query: string): void {
  const shownList = filterFunctions(all, query);
  byId("function-list").replaceChildren(...shownList.map(functionItem));
  byId("function-count").textContent = `(${all.length})`;
  byId("function-empty").hidden = shownList.length > 0;
  byId("function-search-count").textContent =
    query.trim() === ""
      ? ""
      : `${shownList.length} of ${all.length} function${all.length === 1 ? "" : "s"} match “${query.trim()}”.`;
}

/** Fills the function list and wires its search. */
export function setupFunctionsSection(): void {
  const all = bundledFunctions();
  const filter = byId<HTMLInputElement>("function-filter");
  renderFunctions(all, "");
  filter.addEventListener("input", () => renderFunctions(all, filter.value));
}
