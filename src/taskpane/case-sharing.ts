/**
 * The Share tab: "Share with managers" in one step. The workbook's sheets with data are listed as
 * checkboxes (Summary, Steps and Business case ticked when there), and **Export for managers**
 * makes the new values-only workbook at once (`exportForManagers`, src/excel/sharing-excel.ts):
 * opened in Excel, and offered as a download too. The user's workbook is only read. The list is
 * read again each time the tab is shown (an import or a case may have added sheets); until it is
 * read, it says so and Export waits.
 */
import { exportForManagers, listShareableSheets, ManagerExport, ShareableSheet } from "../excel/sharing-excel";
import { byId, el } from "./dom";

/**
 * Of sheets named as Excel names a repeat ("Summary", "Summary (2)", "Summary (3)"), the last
 * written of each: the default ticks follow the latest import, not the first.
 */
/** "Summary (2)" → "Summary"; a name without a repeat number is its own base. */
function baseName(name: string): string {
  return name.replace(/ \(\d+\)$/, "");
}

export function latestOfEach(names: string[]): Set<string> {
  const best = new Map<string, { name: string; n: number }>();
  for (const name of names) {
    const m = /^(.*) \((\d+)\)$/.exec(name);
    const base = m ? m[1] : name;
    const n = m ? Number(m[2]) : 1;
    const had = best.get(base);
    if (!had || n > had.n) best.set(base, { name, n });
  }
  return new Set([...best.values()].map((b) => b.name));
}

/** "Summary, Steps and Business case". */
function listed(names: string[]): string {
  return names.length <= 1 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

/** What happened, in words, for the status line. */
export function describeExport(r: ManagerExport): string {
  const what = `${r.sheets.length === 1 ? "the sheet" : "the sheets"} ${listed(r.sheets)}`;
  const charts = r.charts > 0 ? `, ${r.charts} chart${r.charts === 1 ? "" : "s"}` : "";
  const values = r.frozen.length;
  const frozen =
    values > 0
      ? ` ${values} Capacity Lab result${values === 1 ? " is" : "s are"} written as ${values === 1 ? "a number" : "numbers"}.`
      : "";
  const size = `${Math.max(1, Math.round(r.bytes / 1024))} KB`;
  let text =
    r.opened === true
      ? `Opened a new workbook with ${what}${charts} (${size}): save it and send it.${frozen} Your workbook is unchanged.`
      : `Made a workbook with ${what}${charts} (${size}); ${r.opened}: download it below.${frozen} Your workbook is unchanged.`;
  if (r.chartsLeftOut.length > 0) text += ` Charts not carried: ${r.chartsLeftOut.join("; ")}.`;
  if (r.mismatches.length > 0)
    text += ` Check these numbers, which differ from what Excel shows: ${r.mismatches.slice(0, 3).join("; ")}.`;
  return text;
}

interface CheckboxElement extends HTMLElement {
  checked: boolean;
  disabled: boolean;
}

/** Wires the section; call once Office.js reports Excel. */
export function initSharingSection(): void {
  const section = byId<HTMLElement>("case-sharing");
  const exportButton = byId<HTMLButtonElement>("share-export");
  const status = byId<HTMLParagraphElement>("share-status");
  const error = byId<HTMLParagraphElement>("share-error");
  const list = byId<HTMLElement>("share-sheet-list");
  const download = byId<HTMLElement>("share-download");
  const link = byId<HTMLAnchorElement>("share-download-link");
  section.hidden = false;
  let loaded = false;
  let busy = false;
  let url: string | null = null;

  const boxes = (): CheckboxElement[] => Array.from(list.querySelectorAll<CheckboxElement>("fluent-checkbox"));
  const chosen = (): string[] =>
    boxes()
      .filter((b) => b.checked && !b.disabled)
      .map((b) => b.dataset.sheet ?? "");
  const update = (): void => {
    exportButton.disabled = busy || !loaded || chosen().length === 0;
    section.setAttribute("aria-busy", String(busy || !loaded));
  };

  const checkbox = (sheet: ShareableSheet, i: number, ticked: boolean): HTMLElement => {
    const row = el("div", "", "check");
    const box = document.createElement("fluent-checkbox") as CheckboxElement;
    box.id = `share-sheet-${i}`;
    box.dataset.sheet = sheet.name;
    box.checked = ticked;
    box.disabled = sheet.tooLarge;
    box.addEventListener("change", update);
    const label = el("label", sheet.name);
    label.htmlFor = box.id;
    row.append(box, label);
    if (sheet.tooLarge) row.append(el("span", " (too large: more than 100,000 cells)", "muted"));
    return row;
  };

  /** Reads the sheets; keeps what the user ticked or unticked, ticks the defaults of new sheets. */
  const showSheets = async (): Promise<void> => {
    const before = new Map(boxes().map((b) => [b.dataset.sheet ?? "", b.checked] as const));
    loaded = false;
    update();
    if (before.size === 0) list.replaceChildren(el("p", "Reading the workbook's sheets…", "muted"));
    try {
      const sheets = await listShareableSheets();
      // The default sheets' repeats ("Summary (2)") count as defaults too; of each, the latest is ticked.
      const bases = new Set(sheets.filter((x) => x.byDefault).map((x) => baseName(x.name)));
      const latest = latestOfEach(sheets.map((x) => x.name).filter((n) => bases.has(baseName(n))));
      list.replaceChildren(
        ...sheets.map((sheet, i) => checkbox(sheet, i, before.get(sheet.name) ?? latest.has(sheet.name))),
      );
      if (sheets.length === 0)
        list.replaceChildren(el("p", "No sheet has data yet: import lab results or build a case first.", "muted"));
      loaded = true;
    } catch (e) {
      list.replaceChildren(el("p", `Could not read the sheets: ${(e as Error).message}`, "muted"));
    }
    update();
  };
  void showSheets();
  byId("tabs").addEventListener("change", () => {
    if (!byId("panel-share").hidden) void showSheets();
  });

  exportButton.addEventListener("click", async () => {
    if (exportButton.disabled) return;
    busy = true;
    update();
    error.textContent = "";
    download.hidden = true;
    status.textContent = "Making the workbook for managers…";
    // Export is disabled while it works: the focus waits on the line that says what is happening.
    status.tabIndex = -1;
    status.focus();
    try {
      const r = await exportForManagers(chosen(), "Shared from Capacity Lab");
      if (url) URL.revokeObjectURL(url);
      const bytes = Uint8Array.from(atob(r.base64), (c) => c.charCodeAt(0));
      url = URL.createObjectURL(
        new Blob([bytes], { type: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" }),
      );
      link.href = url;
      download.hidden = false;
      status.className = `share-status ${r.mismatches.length === 0 ? "ok" : "error"}`;
      status.textContent = describeExport(r);
      (window as unknown as { caplabShared: ManagerExport }).caplabShared = r;
    } catch (e) {
      status.textContent = "";
      error.textContent = `Could not export: ${(e as Error).message}.`;
    } finally {
      busy = false;
      update();
      // The result (or the error, announced by its alert) gets the focus.
      error.tabIndex = -1;
      (error.textContent ? error : status).focus();
    }
  });
  update();
}
