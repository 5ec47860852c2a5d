/**
 * Task pane section "Share with people who do not have the add-in": the workbook's sheets as
 * checkboxes (those that use Capacity Lab functions ticked), **Prepare for sharing** makes
 * values-only copies of the ticked sheets (with a `Frozen formulas` listing), and **Export values-only workbook** opens those copies as a new workbook
 * without any add-in part. The work is done by `src/excel/sharing-excel.ts`; this file only wires
 * the buttons and reports the outcome in words (an `aria-live` status line).
 */
import { exportValuesOnlyWorkbook, listShareableSheets, prepareForSharing, ShareReport } from "../excel/sharing-excel";
import { el } from "./dom";

function byId<T extends HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`taskpane.html has no #${id}`);
  return el as T;
}

/** One line that says what happened, for the status area. */
export function describeReport(r: ShareReport): string {
  const copies = r.copies.map((c) => `"${c.copy}"`).join(", ");
  const values = r.frozen.filter((f) => f.replacement.kind === "values").length;
  const natives = r.frozen.filter((f) => f.replacement.kind === "formula").length;
  const copied = r.frozen.filter((f) => f.replacement.kind === "copy").length;
  const parts = [
    `${values} formula${values === 1 ? "" : "s"} replaced by ${values === 1 ? "its value" : "their values"}`,
  ];
  if (natives > 0) parts.push(`${natives} kept live as native Excel formulas`);
  if (copied > 0) parts.push(`${copied} copied as Excel calculated ${copied === 1 ? "it" : "them"}`);
  let text = `Made ${copies}: ${parts.join(", ")}; listed on "${r.listing}".`;
  if (r.remainingCaplab > 0) text += ` Warning: ${r.remainingCaplab} Capacity Lab formula(s) are still in the copies.`;
  if (r.mismatches.length > 0)
    text += ` Warning: values differ from the originals at ${r.mismatches.slice(0, 3).join("; ")}.`;
  if (r.skipped.length > 0) text += ` Not read (too large): ${r.skipped.join(", ")}.`;
  return text;
}

/** Wires the section's buttons; call once Office.js reports Excel. */
export function initSharingSection(): void {
  const section = byId<HTMLElement>("case-sharing");
  const prepare = byId<HTMLButtonElement>("share-prepare");
  const exportButton = byId<HTMLButtonElement>("share-export");
  const native = byId<HTMLInputElement>("share-native");
  const status = byId<HTMLParagraphElement>("share-status");
  const list = byId<HTMLElement>("share-sheet-list");
  let copies: string[] = [];
  section.hidden = false;

  /** One checkbox per sheet with data; those with a Capacity Lab formula are ticked. */
  const showSheets = async (): Promise<void> => {
    try {
      const sheets = await listShareableSheets();
      const ticked = new Set([...list.querySelectorAll<HTMLInputElement>("input:checked")].map((i) => i.value));
      const first = list.querySelector("input") === null;
      list.replaceChildren(
        ...sheets.map((sheet, i) => {
          const label = el("label", "", "check");
          const box = el("input");
          box.type = "checkbox";
          box.id = `share-sheet-${i}`;
          box.value = sheet.name;
          box.checked = !sheet.tooLarge && (first ? sheet.caplab : ticked.has(sheet.name) || sheet.caplab);
          box.disabled = sheet.tooLarge;
          const note = sheet.tooLarge ? " (too large to copy)" : sheet.caplab ? " (Capacity Lab formulas)" : "";
          label.append(box, ` ${sheet.name}${note}`);
          return label;
        }),
      );
      if (sheets.length === 0) list.replaceChildren(el("p", "No sheet has data yet.", "muted"));
    } catch (e) {
      list.replaceChildren(el("p", `Could not read the sheets: ${(e as Error).message}`, "muted"));
    }
  };
  void showSheets();
  byId("tab-share").addEventListener("click", () => void showSheets());

  const busy = (on: boolean): void => {
    prepare.disabled = on;
    exportButton.disabled = on || copies.length === 0;
    section.setAttribute("aria-busy", String(on));
  };
  const say = (text: string, kind: "ok" | "error" | "info"): void => {
    status.textContent = text;
    status.className = `share-status ${kind}`;
  };

  prepare.addEventListener("click", async () => {
    busy(true);
    say("Preparing copies…", "info");
    try {
      const chosen = [...list.querySelectorAll<HTMLInputElement>("input:checked")].map((i) => i.value);
      if (chosen.length === 0) {
        say("Choose at least one sheet to copy.", "error");
        return;
      }
      const report = await prepareForSharing({ nativeEquivalents: native.checked, sheets: chosen });
      void showSheets();
      copies = report.copies.map((c) => c.copy);
      say(describeReport(report), report.remainingCaplab === 0 && report.mismatches.length === 0 ? "ok" : "error");
    } catch (e) {
      say(`Could not prepare for sharing: ${(e as Error).message}`, "error");
    } finally {
      busy(false);
    }
  });

  exportButton.addEventListener("click", async () => {
    busy(true);
    say("Writing the values-only workbook…", "info");
    try {
      const r = await exportValuesOnlyWorkbook(copies, "Shared from Capacity Lab");
      const charts = r.charts > 0 ? ` and ${r.charts} chart${r.charts === 1 ? "" : "s"}` : "";
      const left = r.chartsLeftOut.length > 0 ? ` Not carried: ${r.chartsLeftOut.join("; ")}.` : "";
      say(
        `Opened a new workbook with ${copies.length} sheet(s)${charts} (${Math.round(r.bytes / 1024)} KB): save it and send it.${left}`,
        "ok",
      );
    } catch (e) {
      say(`Could not export: ${(e as Error).message}`, "error");
    } finally {
      busy(false);
    }
  });
  busy(false);
}
