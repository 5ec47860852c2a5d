/**
 * Task pane shell: Fluent components and theme, tabs (opened by the ribbon's commands too), the
 * connection status line, and the sections (one module each: import-section.ts, first-run.ts,
 * functions-section.ts, case-sharing.ts, case-new.ts). Works with or without Office.js: outside
 * Excel it says so, previews files and lists the functions, and Import stays disabled.
 */
import { byId } from "./dom";
import { defineFluentComponents, exposeButtonStates } from "./fluent";
import { followOfficeTheme, setupTheme } from "./theme";
import { setupTabs } from "./tabs";
import { addIcons } from "./icons";
import { enableInsert, setupFunctionsSection } from "./functions-section";
import { insertIntoSelectedCell } from "../excel/insert-formula";
import { ImportSection } from "./import-section";
import { setupFirstRun } from "./first-run";
import { functionsRegistered, officeHost } from "./host";
import { missingRequirements } from "../excel/render-plan";
import { initSharingSection } from "./case-sharing";
import { initNewCaseSection } from "./case-new";

function setStatus(text: string, kind: "ok" | "offline"): void {
  const status = byId("status");
  status.textContent = text;
  status.className = `status ${kind}`;
}

async function start(): Promise<void> {
  setupTheme();
  defineFluentComponents();
  exposeButtonStates();
  addIcons();
  setupTabs();
  setupFunctionsSection();
  const section = new ImportSection();
  (window as unknown as { caplabImport: ImportSection }).caplabImport = section;
  setupFirstRun(section);
  setStatus("Connecting to Excel…", "offline");
  const host = await officeHost(3000);
  followOfficeTheme();
  if (host !== "Excel") {
    setStatus("Not running inside Excel: files can be previewed here, but not imported.", "offline");
    section.setHost("Open Capacity Lab in Excel to import.");
    return;
  }
  const missing = missingRequirements();
  if (missing) {
    setStatus(missing, "offline");
    section.setHost(missing);
    return;
  }
  setStatus(
    functionsRegistered()
      ? "Connected to Excel: type =CAPLAB. in a cell, or insert from Functions."
      : "Connected to Excel (the CAPLAB functions are not registered: imports write values in their place).",
    "ok",
  );
  section.setHost(null);
  enableInsert(insertIntoSelectedCell);
  byId("share-unavailable").hidden = true;
  byId("case-unavailable").hidden = true;
  initNewCaseSection();
  initSharingSection();
}

if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", () => void start());
} else {
  void start();
}
