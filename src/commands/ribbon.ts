/**
 * The ribbon's commands as plain data, shared by the commands bundle (which associates them), the
 * task pane (which opens the tab a command names) and the manifest test (which checks that every
 * button's FunctionName is here).
 */

/** The pane's tabs, by the id of their tab element in taskpane.html. */
export type PaneTab = "tab-import" | "tab-functions" | "tab-share" | "tab-case";

/** FunctionName in manifest.xml → the tab of the pane that command opens. */
export const RIBBON_COMMANDS: Readonly<Record<string, PaneTab>> = {
  showImport: "tab-import",
  showCase: "tab-case",
  showShare: "tab-share",
  showFunctions: "tab-functions",
};

/**
 * The window event by which a command asks the pane for a tab (one page holds both in the shared
 * runtime); `detail` is the tab's id.
 */
export const SHOW_TAB_EVENT = "caplab:show-tab";

/**
 * Where a command leaves the tab it asked for, for a pane whose script has not started yet (it
 * reads it once at start).
 */
export const PENDING_TAB = "__caplabPendingTab";

/** Asks the pane in this page to show `tab` (now, or when it starts). */
export function requestTab(target: Window, tab: PaneTab): void {
  (target as unknown as Record<string, unknown>)[PENDING_TAB] = tab;
  target.dispatchEvent(new CustomEvent(SHOW_TAB_EVENT, { detail: tab }));
}

/** The tab a command left for a pane that had not started (and forgets it), or null. */
export function takePendingTab(target: Window): PaneTab | null {
  const record = target as unknown as Record<string, unknown>;
  const tab = record[PENDING_TAB];
  delete record[PENDING_TAB];
  return Object.values(RIBBON_COMMANDS).includes(tab as PaneTab) ? (tab as PaneTab) : null;
}
