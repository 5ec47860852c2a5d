/**
 * Tabs: a fluent-tablist (Fluent's tabs pattern: arrow keys move between tabs, the selected tab's
 * panel is shown through each tab's aria-controls). This module selects a tab from code (ribbon
 * commands, "Go to …" buttons) and moves the focus to what the tab is for.
 */
import { PaneTab, RIBBON_COMMANDS, SHOW_TAB_EVENT, takePendingTab } from "../commands/ribbon";
import { byId } from "./dom";

/** The control each tab is for: where the focus goes when a command opens the tab. */
const FIRST_CONTROL: Record<PaneTab, string> = {
  "tab-import": "choose-files",
  "tab-functions": "function-filter",
  "tab-share": "panel-share",
  "tab-case": "case-example",
};

interface TablistElement extends HTMLElement {
  activeid: string;
}

/** Selects `tab` and, with `focus`, moves the focus to the control it is for (else to its panel). */
export function showTab(tab: PaneTab, focus = true): void {
  const list = byId<TablistElement>("tabs");
  list.activeid = tab;
  // The tablist shows the panel; do it here too in case the component is not defined yet.
  for (const t of list.querySelectorAll<HTMLElement>('[role="tab"]')) {
    const panel = document.getElementById(t.getAttribute("aria-controls") ?? "");
    if (panel) panel.hidden = t.id !== tab;
  }
  if (!focus) return;
  const target = document.getElementById(FIRST_CONTROL[tab]);
  const visible = target && !target.closest("[hidden]") ? target : document.getElementById(panelOf(tab));
  visible?.focus();
}

function panelOf(tab: PaneTab): string {
  return document.getElementById(tab)?.getAttribute("aria-controls") ?? "";
}

/** Listens for the ribbon's requests (and takes one made before the pane started). */
export function setupTabs(): void {
  window.addEventListener(SHOW_TAB_EVENT, (e) => {
    const tab = (e as CustomEvent<unknown>).detail;
    if (Object.values(RIBBON_COMMANDS).includes(tab as PaneTab)) {
      takePendingTab(window);
      showTab(tab as PaneTab);
    }
  });
  const pending = takePendingTab(window);
  if (pending) showTab(pending);
}
