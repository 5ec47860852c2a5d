/**
 * Ribbon commands: Import lab results, New business case, Share with managers and Function help
 * each show the task pane (`Office.addin.showAsTaskpane`, SharedRuntime 1.1) on their tab. With
 * the shared runtime this file is loaded by taskpane.html (the manifest's FunctionFile), so the
 * pane and the commands are one page: the command asks for the tab with a window event
 * (src/commands/ribbon.ts).
 */
import { PaneTab, requestTab, RIBBON_COMMANDS } from "./ribbon";

async function show(tab: PaneTab, event: Office.AddinCommands.Event): Promise<void> {
  try {
    // Shows the pane if it is closed; the pane is loaded either way (one runtime).
    await Office.addin.showAsTaskpane();
  } catch {
    // Without showAsTaskpane (an older host) the tab is still selected for when the pane opens.
  }
  requestTab(window, tab);
  event.completed();
}

if (typeof Office !== "undefined" && typeof Office.onReady === "function") {
  void Office.onReady(() => {
    for (const [name, tab] of Object.entries(RIBBON_COMMANDS))
      Office.actions.associate(name, (event: Office.AddinCommands.Event) => void show(tab, event));
  });
}
