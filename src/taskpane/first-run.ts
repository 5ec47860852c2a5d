/**
 * First run: offers the bundled sample (two protocols drawn from a documented model with a CPU line,
 * background work and a visible knee, tests/lab/fixtures/lab-sample, copied to dist/samples/ by
 * webpack), imported in one click as a set of its own (never mixed with the planner's files);
 * skippable; "Import the sample again" brings it back. The card names the sheets the sample
 * writes and the two notes it gives (its saturation steps), and that there is no Fit sheet. The "seen" flag is kept in partitioned localStorage (Office.context.partitionKey).
 */
import { byId } from "./dom";
import { storageKey } from "./host";
import type { ImportSection } from "./import-section";

export const SAMPLE_FILES = ["lab-sample-subintervals.csv", "lab-sample-summary.csv"];
const SEEN = "caplab.firstRunSeen";

function seen(): boolean {
  try {
    return localStorage.getItem(storageKey(SEEN)) === "1";
  } catch {
    return false;
  }
}

function markSeen(): void {
  try {
    localStorage.setItem(storageKey(SEEN), "1");
  } catch {
    // Storage blocked (private mode): the card simply shows again next time.
  }
}

/** Fetches the bundled sample files (same origin as the pane). */
export async function sampleFiles(): Promise<File[]> {
  return Promise.all(
    SAMPLE_FILES.map(async (name) => {
      const response = await fetch(`samples/${name}`);
      if (!response.ok) throw new Error(`samples/${name}: HTTP ${response.status}`);
      return new File([await response.blob()], name, { type: "text/csv" });
    }),
  );
}

/** Shows the first-run card unless dismissed, and wires the sample buttons. */
export function setupFirstRun(section: ImportSection): void {
  const card = byId("first-run");
  card.hidden = seen();
  section.refresh();
  const load = async (): Promise<void> => {
    markSeen();
    const status = byId("import-status");
    status.textContent = "Loading the sample…";
    // The card goes (and its button with it): the focus moves to the line saying what happens, then
    // (once reading starts) to Cancel, then to the result.
    if (!card.hidden) {
      card.hidden = true;
      status.focus();
    }
    try {
      section.addFiles(await sampleFiles(), true, "sample");
      byId("cancel").focus();
    } catch (e) {
      status.textContent = "";
      const error = byId("import-error");
      error.textContent = `The sample could not be loaded (${(e as Error).message}). Reload the pane.`;
      error.focus();
    }
  };
  byId("sample-import").addEventListener("click", () => void load());
  byId("sample-again").addEventListener("click", () => void load());
  byId("sample-skip").addEventListener("click", () => {
    markSeen();
    card.hidden = true;
    section.refresh();
    byId("choose-files").focus();
  });
}
