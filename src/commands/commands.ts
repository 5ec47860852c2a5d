/**
 * Ribbon commands. The "Open Capacity Lab" button needs no code (its action is ShowTaskpane);
 * the "Function help" button runs `openHelp`, which shows help.html in an Office dialog.
 * With the shared runtime this file is loaded by taskpane.html (the manifest's FunctionFile).
 */

/** help.html beside the page that runs this code (dev server or production host). */
export function helpPageUrl(pageUrl: string): string {
  return new URL("help.html", pageUrl).toString();
}

function openHelp(event: Office.AddinCommands.Event): void {
  Office.context.ui.displayDialogAsync(
    helpPageUrl(window.location.href),
    { height: 70, width: 50, displayInIframe: true },
    () => event.completed(),
  );
}

if (typeof Office !== "undefined" && typeof Office.onReady === "function") {
  void Office.onReady(() => {
    Office.actions.associate("openHelp", openHelp);
  });
}
