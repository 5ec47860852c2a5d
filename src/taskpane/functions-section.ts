/** The Functions tab: the worksheet functions with their one-line help, from build-time data. */
import { bundledFunctions, filterFunctions, FunctionSummary, relativeHelpLink, signature } from "./function-catalog";
import { byId } from "./dom";

function functionItem(fn: FunctionSummary): HTMLLIElement {
  const li = document.createElement("li");
  li.className = "function";
  const code = document.createElement("code");
  code.textContent = signature(fn);
  const description = document.createElement("p");
  description.textContent = fn.description;
  const help = document.createElement("a");
  help.href = relativeHelpLink(fn);
  help.target = "_blank";
  help.rel = "noopener";
  help.textContent = "Help";
  help.setAttribute("aria-label", `Help for ${fn.name}`);
  li.append(code, help, description);
  return li;
}

function renderFunctions(all: FunctionSummary[], query: string): void {
  const shown = filterFunctions(all, query);
  byId("function-list").replaceChildren(...shown.map(functionItem));
  byId("function-count").textContent = `(${all.length})`;
  byId("function-empty").hidden = shown.length > 0;
}

/** Fills the function list and wires its filter. */
export function setupFunctionsSection(): void {
  const all = bundledFunctions();
  const filter = byId<HTMLInputElement>("function-filter");
  renderFunctions(all, "");
  filter.addEventListener("input", () => renderFunctions(all, filter.value));
}
