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

/** How Insert writes (set once Excel is connected; null outside Excel). */
type Writer = (formula: string) => Promise<{ address: string; value: unknown }>;
let writer: Writer | null = null;

/** Lets Insert write into the workbook (call once Excel is connected). */
export function enableInsert(write: Writer): void {
  writer = write;
}

function shown(value: unknown): string {
  if (typeof value === "number") return value.toLocaleString("en-US", { maximumSignificantDigits: 6 });
  return String(value);
}

/** The argument form under a function: one field per parameter, then Insert / Cancel. */
function insertForm(fn: FunctionSummary, li: HTMLLIElement, opener: HTMLElement): HTMLElement {
  const form = el("form", "", "insert-form");
  form.id = `insert-form-${fn.id}`;
  form.setAttribute("aria-label", `Arguments of ${fn.name}`);
  form.noValidate = true;
  const inputs = fn.parameters.map((p, i) => {
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
    form.append(label, input, help, error);
    return { input, error };
  });
  const preview = el("p", "", "preview");
  preview.id = `insert-preview-${fn.id}`;
  preview.setAttribute("aria-live", "polite");
  const buttons = el("div", "", "actions");
  const go = document.createElement("fluent-button");
  go.setAttribute("appearance", "primary");
  go.setAttribute("size", "small");
  go.setAttribute("type", "submit");
  go.id = `insert-go-${fn.id}`;
  go.textContent = "Insert into the selected cell";
  const cancel = document.createElement("fluent-button");
  cancel.setAttribute("size", "small");
  cancel.textContent = "Cancel";
  buttons.append(go, cancel);
  form.append(preview, buttons);

  const texts = (): string[] => inputs.map(({ input }) => input.value);
  const refresh = (): void => {
    const r = insertFormula(fn, texts());
    preview.textContent = "formula" in r ? r.formula : "";
  };
  const status = li.querySelector<HTMLElement>(".insert-status") as HTMLElement;
  for (const { input, error } of inputs)
    input.addEventListener("input", () => {
      error.textContent = "";
      input.removeAttribute("aria-invalid");
      refresh();
    });
  refresh();
  const close = (): void => {
    form.remove();
    opener.setAttribute("aria-expanded", "false");
    opener.focus();
  };
  cancel.addEventListener("click", close);
  form.addEventListener("keydown", (e) => {
    if (e.key === "Escape") close();
  });
  const submit = async (): Promise<void> => {
    const r = insertFormula(fn, texts());
    for (const { input, error } of inputs) {
      error.textContent = "";
      error.removeAttribute("role");
      input.removeAttribute("aria-invalid");
    }
    if ("problems" in r) {
      // Each error beside its field, announced (role=alert); the focus goes to the first.
      for (const p of r.problems) {
        const field = inputs[fn.parameters.findIndex((x) => x.name === p.parameter)];
        field.error.setAttribute("role", "alert");
        field.error.textContent = p.message;
        field.input.setAttribute("aria-invalid", "true");
      }
      inputs[fn.parameters.findIndex((x) => x.name === r.problems[0].parameter)].input.focus();
      return;
    }
    status.className = "insert-status";
    status.removeAttribute("role");
    if (!writer) {
      status.className = "insert-status error";
      status.setAttribute("role", "alert");
      status.textContent = `Open Capacity Lab in Excel to insert. The formula: ${r.formula}`;
      status.focus();
      return;
    }
    try {
      const done = await writer(r.formula);
      status.className = "insert-status ok";
      status.setAttribute("role", "status");
      const calculated = done.value !== "" && done.value !== "#BUSY!" && done.value !== undefined;
      status.textContent = `Inserted ${r.formula} into ${done.address}${calculated ? `; it shows ${shown(done.value)}` : ""}.`;
    } catch (e) {
      status.className = "insert-status error";
      status.setAttribute("role", "alert");
      status.textContent = `Could not insert ${r.formula}: ${(e as Error).message}. Select a cell and try again.`;
    }
    form.remove();
    opener.setAttribute("aria-expanded", "false");
    status.focus();
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
