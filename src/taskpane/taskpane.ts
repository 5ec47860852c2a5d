/**
 * Task pane shell: lists the worksheet functions with their one-line help. Works with or without
 * Office.js (outside Excel, office.js may be missing or never call back): the list is rendered
 * from build-time data, and the status line says whether Excel is connected.
 */
import { bundledFunctions, filterFunctions, FunctionSummary, relativeHelpLink, signature } from "./function-catalog";
import { initSharingSection } from "./case-sharing";
import { initNewCaseSection } from "./case-new";

function byId<T extends HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`taskpane.html has no #${id}`);
  return el as T;
}

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

function setStatus(text: string, kind: "ok" | "offline"): void {
  const status = byId("status");
  status.textContent = text;
  status.className = `status ${kind}`;
}

/** Waits for Office.js; resolves with the host, or null when Office.js is absent or silent. */
function officeHost(timeoutMs: number): Promise<string | null> {
  if (typeof Office === "undefined" || typeof Office.onReady !== "function") return Promise.resolve(null);
  return Promise.race([
    Office.onReady().then((info) => (info.host ? String(info.host) : null)),
    new Promise<null>((resolve) => setTimeout(() => resolve(null), timeoutMs)),
  ]);
}

async function start(): Promise<void> {
  const all = bundledFunctions();
  const filter = byId<HTMLInputElement>("function-filter");
  renderFunctions(all, "");
  filter.addEventListener("input", () => renderFunctions(all, filter.value));
  setStatus("Connecting to Excel…", "offline");
  const host = await officeHost(3000);
  if (host) {
    setStatus(`Connected to ${host}. Type =CAPLAB. in a cell to use the functions.`, "ok");
    if (host === String(Office.HostType.Excel)) {
      initNewCaseSection();
      initSharingSection();
    }
  } else {
    setStatus("Not running inside Excel: showing the function list only.", "offline");
  }
}

if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", () => void start());
} else {
  void start();
}
