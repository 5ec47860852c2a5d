/**
 * The "Import lab results" section: pick files (input, the primary path; drop zone as an extra),
 * preview each before anything is written, choose the fitted response, Import with progress and
 * Cancel. Reading and analysis run in a Web Worker (read-worker.ts) with the CLI's readers and
 * plan builder; writing goes through src/excel/render-plan.ts.
 */
import { DEFAULT_RESPONSE, EXCEL_MAX_TABLE_ROWS } from "../lab/lab-plan";
import { RESULT_METRICS } from "../lab/data";
import type { WorkbookPlan } from "../workbook/plan";
import { RenderCancelled, RenderResult, missingRequirements, renderWorkbookPlan } from "../excel/render-plan";
import { activateSheet, removeSheets } from "../excel/activate-sheet";
import { showWarnings } from "./import-warnings";
import type { FilePreview } from "./lab-reading";
import { paneSizeProblem } from "./pane-limits";
import type { WorkerReply, WorkerRequest } from "./read-worker";
import { byId, el } from "./dom";
import { functionsRegistered } from "./host";
import { metricLabel } from "./metric-labels";
import { addIcons } from "./icons";

/** The worker bundle (webpack entry "read-worker"), beside taskpane.html. */
const READ_WORKER_URL = "read-worker.js";

/**
 * Subinterval rows the pane writes unless the user raises it: every step's figures come from every
 * row whatever this is. 100,000 rows are ~12 requests of ~3.4 MB; a million are ~120, ~15 s against
 * the in-memory Excel of the benchmark (docs/benchmarks.md, "Pane import in Chromium") and longer in
 * a real Excel, which stores, calculates and (on the web) uploads each request.
 */
export const PANE_DEFAULT_SUBINTERVAL_ROWS = 100_000;
/** How often the progress line is refreshed while waiting (elapsed time), so a long step still shows life. */
const TICK_MS = 250;

interface Entry {
  id: number;
  file: File;
  read: number;
  preview?: FilePreview;
  failed?: string;
}

const FORMAT_NAMES: Record<FilePreview["format"], string> = {
  "iogen-subinterval": "iogen subinterval CSV",
  "iogen-summary": "iogen summary CSV",
  "fio-json": "fio JSON",
  unknown: "not recognised",
};

/**
 * A reader's message as the pane shows it: a pointer into the repository's docs ("see
 * docs/iogen-csv.md") means nothing inside Excel, so it becomes the format's name.
 */
export function inPane(message: string): string {
  return message.replace(/see docs\/iogen-csv\.md/g, "see “iogen CSV files” in Capacity Lab's documentation");
}

/** The section's state and behaviour; one instance per pane. */
export class ImportSection {
  private entries: Entry[] = [];
  private nextId = 1;
  private worker: Worker | null = null;
  private busy: "idle" | "reading" | "analysing" | "writing" = "idle";
  private abort: AbortController | null = null;
  private planWaiter: { resolve: (p: WorkbookPlan) => void; reject: (e: Error) => void } | null = null;
  private autoImport = false;
  /** Why Import is unavailable (null inside a suitable Excel). */
  private hostProblem: string | null = "Connecting to Excel…";
  /** The last import's result (plain data; the e2e test reads it). */
  lastResult: RenderResult | null = null;

  private readonly input = byId<HTMLInputElement>("file-input");
  private readonly list = byId<HTMLUListElement>("file-list");
  private readonly response = byId<HTMLSelectElement>("response");
  private readonly maxRows = byId<HTMLInputElement>("max-rows");
  private readonly importButton = byId<HTMLButtonElement>("import");
  private readonly cancelButton = byId<HTMLButtonElement>("cancel");
  private readonly clearButton = byId<HTMLButtonElement>("clear");
  private readonly progressBlock = byId("progress-block");
  /** A fluent-progress-bar (value from 0 to its max, 100). */
  private readonly progress = byId<HTMLElement & { value: number }>("progress");
  private readonly progressLabel = byId("progress-label");
  private readonly elapsed = byId("progress-elapsed");
  private readonly status = byId("import-status");
  private readonly error = byId("import-error");
  private readonly next = byId("import-next");
  private readonly fitNote = byId("import-fit-note");
  /** The sheet "Go to Summary" opens (the first sheet the last import wrote). */
  private summarySheet = "";
  /** When the current operation (reading, or analysing and writing) started. */
  private startedAt = 0;
  private ticker: ReturnType<typeof setInterval> | null = null;
  /** What the worker said it is doing (analysis stages, the check after reading). */
  private stage = "";
  /**
   * Where the files held came from: "sample" (the first-run sample), "imported" (a set already
   * imported) or "choosing" (files being gathered for an import). A new choice after "sample" or
   * "imported" starts a new set, so the sample never mixes with the planner's files and a second
   * import never silently re-imports the first one's files.
   */
  private setState: "choosing" | "sample" | "imported" = "choosing";
  /** Sheets the running (or last, cancelled or failed) import started writing, in order. */
  private startedSheets: string[] = [];
  private readonly removeBlock = byId("import-remove");
  private readonly rowsError = byId("max-rows-error");

  constructor() {
    this.input.addEventListener("change", () => {
      if (this.input.files) this.addFiles(Array.from(this.input.files));
      this.input.value = "";
    });
    byId("choose-files").addEventListener("click", () => this.input.click());
    byId("goto-summary").addEventListener("click", () => void this.goToSummary());
    const drop = byId("drop-zone");
    drop.addEventListener("dragover", (e) => {
      e.preventDefault();
      drop.classList.add("over");
    });
    drop.addEventListener("dragleave", () => drop.classList.remove("over"));
    drop.addEventListener("drop", (e) => {
      e.preventDefault();
      drop.classList.remove("over");
      if (e.dataTransfer?.files) this.addFiles(Array.from(e.dataTransfer.files));
    });
    this.importButton.addEventListener("click", () => void this.runImport());
    this.cancelButton.addEventListener("click", () => this.cancel());
    byId("import-remove-sheets").addEventListener("click", () => void this.removeStarted());
    byId("import-keep-sheets").addEventListener("click", () => {
      this.hideRemoval();
      this.say(`Kept ${this.startedSheets.map((n) => `“${n}”`).join(", ")}.`);
      this.startedSheets = [];
      this.status.focus();
    });
    this.clearButton.addEventListener("click", () => this.clear());
    this.maxRows.max = String(EXCEL_MAX_TABLE_ROWS);
    this.maxRows.value = String(PANE_DEFAULT_SUBINTERVAL_ROWS);
    this.fillResponses();
  }

  /**
   * The "Subinterval rows to write" field as a number, or a message saying what is wrong with it.
   */
  private subintervalLimit(): number | string {
    const text = this.maxRows.value.trim();
    const n = Number(text);
    if (text === "" || !Number.isInteger(n) || n < 0 || n > EXCEL_MAX_TABLE_ROWS)
      return (
        `Subinterval rows to write: enter a whole number from 0 to ${EXCEL_MAX_TABLE_ROWS.toLocaleString("en-US")} ` +
        `(an Excel sheet's rows below the header); it holds "${this.maxRows.value}". Nothing was written.`
      );
    return n;
  }

  /** Redraws the section's actions (e.g. after the first-run card is dismissed: Choose files becomes primary). */
  refresh(): void {
    this.update();
  }

  /** Tells the section whether Import can write (null) or why not. */
  setHost(problem: string | null): void {
    this.hostProblem = problem;
    this.update();
  }

  /**
   * Adds files; each is read in the worker and previewed. `autoImport` imports once all are read.
   * The sample, and any choice after the sample or after an import, starts a new set (said in the
   * status line), so files are only imported together when they were chosen together.
   */
  addFiles(files: File[], autoImport = false, source: "user" | "sample" = "user"): void {
    if (this.busy === "writing" || this.busy === "analysing") return;
    let setAside = "";
    if (this.entries.length > 0 && (source === "sample" || this.setState !== "choosing")) {
      const names = this.entries.map((e) => e.file.name);
      setAside = ` A new set: ${names.join(", ")} ${names.length === 1 ? "is" : "are"} not part of it.`;
      this.forgetAll();
    }
    this.setState = source === "sample" ? "sample" : "choosing";
    this.autoImport = autoImport;
    this.hideRemoval();
    byId("import-warnings").replaceChildren();
    this.clearError();
    this.next.hidden = true;
    this.fitNote.hidden = true;
    let reading = 0;
    for (const file of files) {
      const entry: Entry = { id: this.nextId++, file, read: 0 };
      const held = this.entries.filter((e) => !e.failed).reduce((sum, e) => sum + e.file.size, 0);
      entry.failed = paneSizeProblem(file.name, file.size, held) ?? undefined;
      this.entries.push(entry);
      if (entry.failed) continue;
      this.post({ type: "read", id: entry.id, file, name: file.name });
      reading++;
    }
    if (reading === 0) {
      // Nothing for the worker (every file refused): say so now, no reply will come.
      this.say(this.summaryLine() + setAside);
      this.update();
      return;
    }
    this.busy = "reading";
    this.stage = "";
    this.startTicker();
    this.say(`Reading ${files.length} file${files.length === 1 ? "" : "s"}…${setAside}`);
    this.update();
    this.keepFocus();
  }

  /** Tells the worker to drop every file held, and empties the list. */
  private forgetAll(): void {
    for (const e of this.entries) if (this.worker) this.post({ type: "forget", id: e.id });
    this.entries = [];
  }

  /**
   * During work the focus stays on something visible and meaningful: when the control that had it
   * (Import, Choose files, the sample's button) is disabled or hidden, it goes to Cancel.
   */
  private keepFocus(): void {
    const active = document.activeElement as HTMLElement | null;
    const lost =
      !active ||
      active === document.body ||
      active.closest("[hidden]") !== null ||
      (active as HTMLButtonElement).disabled === true;
    if (lost && !this.cancelButton.hidden) this.cancelButton.focus();
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(READ_WORKER_URL, { name: "caplab-reader" });
    worker.onmessage = (e: MessageEvent<WorkerReply>) => this.onReply(e.data);
    worker.onerror = (e) =>
      this.fail(`The reading worker stopped: ${e.message || "unknown error"}. Reload the pane and try again.`);
    this.worker = worker;
    return worker;
  }

  private post(msg: WorkerRequest): void {
    this.ensureWorker().postMessage(msg);
  }

  private entry(id: number | undefined): Entry | undefined {
    return this.entries.find((e) => e.id === id);
  }

  private onReply(msg: WorkerReply): void {
    if (msg.type === "stage") {
      this.stage = msg.stage;
      if (this.busy === "analysing") this.showProgress(`Analysing: ${msg.stage}…`, null);
      else this.update();
      return;
    } else if (msg.type === "progress") {
      const e = this.entry(msg.id);
      if (e) e.read = msg.read;
    } else if (msg.type === "preview") {
      const e = this.entry(msg.id);
      if (e) e.preview = msg.preview;
    } else if (msg.type === "plan") {
      this.planWaiter?.resolve(msg.plan);
      this.planWaiter = null;
      return;
    } else {
      const e = this.entry(msg.id);
      if (e)
        e.failed = `${e.file.name}: ${inPane(msg.message)}. Check that it is an iogen CSV or fio JSON, or remove it (Clear files).`;
      else if (this.planWaiter) {
        this.planWaiter.reject(new Error(msg.message));
        this.planWaiter = null;
        return;
      }
    }
    if (this.busy === "reading" && this.entries.every((e) => e.preview || e.failed)) {
      this.busy = "idle";
      this.stopTicker();
      this.progressBlock.hidden = true;
      const aside = / A new set: .*$/.exec(this.status.textContent ?? "")?.[0] ?? "";
      this.say(this.summaryLine() + aside);
      this.update();
      if (this.autoImport && !this.importButton.disabled) void this.runImport();
      // Cancel has gone: the focus goes to the result of reading, the status line ("2 files ready").
      // (Not to Import: a fluent-button just enabled takes the focus only after its next render.)
      else if (!this.focusIsVisible()) this.status.focus();
      return;
    }
    this.update();
  }

  private summaryLine(): string {
    const ok = this.entries.filter((e) => e.preview && e.preview.errors.length === 0).length;
    const bad = this.entries.length - ok;
    return `${ok} file${ok === 1 ? "" : "s"} ready${bad > 0 ? `, ${bad} with errors` : ""}.`;
  }

  /** The response choices: results only (the factors and labels are what a fit explains it by). */
  private fillResponses(): void {
    const current = this.response.value || DEFAULT_RESPONSE;
    const names = [DEFAULT_RESPONSE, ...RESULT_METRICS.filter((m) => m !== DEFAULT_RESPONSE)];
    const unique = Array.from(new Set(names));
    if (unique.join() === Array.from(this.response.options, (o) => o.value).join()) return;
    this.response.replaceChildren(
      ...unique.map((n) => {
        const o = el("option", n === DEFAULT_RESPONSE ? `${metricLabel(n)} (default)` : metricLabel(n));
        o.value = n;
        return o;
      }),
    );
    this.response.value = unique.includes(current) ? current : DEFAULT_RESPONSE;
  }

  private renderList(): void {
    this.list.replaceChildren(
      ...this.entries.map((e) => {
        const li = el("li");
        li.append(el("div", e.file.name, "name"));
        if (e.failed) li.append(el("p", e.failed, "failed"));
        else if (!e.preview) {
          const pct = e.file.size > 0 ? Math.round((100 * e.read) / e.file.size) : 0;
          li.append(el("div", `reading… ${pct} %`));
        } else {
          const p = e.preview;
          li.append(
            el(
              "div",
              `${FORMAT_NAMES[p.format]} · ${p.rows.toLocaleString("en-US")} rows · ${p.steps} steps · ` +
                `${p.subintervals.toLocaleString("en-US")} subintervals`,
            ),
          );
          for (const w of p.warnings.slice(0, 5)) li.append(el("p", `warning: ${w}`, "problem"));
          if (p.warnings.length > 5) li.append(el("p", `… and ${p.warnings.length - 5} more warnings`, "problem"));
          for (const x of p.errors.slice(0, 5)) li.append(el("p", `error: ${inPane(x)}`, "failed"));
        }
        return li;
      }),
    );
  }

  private update(): void {
    this.renderList();
    this.fillResponses();
    const ready = this.entries.length > 0 && this.entries.every((e) => e.preview && e.preview.errors.length === 0);
    const idle = this.busy === "idle";
    this.importButton.disabled = !idle || !ready || this.hostProblem !== null;
    this.importButton.title = this.hostProblem ?? "";
    this.cancelButton.hidden = idle;
    this.clearButton.hidden = !idle || this.entries.length === 0;
    this.input.disabled = this.busy === "analysing" || this.busy === "writing";
    const choose = byId<HTMLButtonElement>("choose-files");
    choose.disabled = this.input.disabled;
    // One primary action at a time: Go to Summary after an import, else Import when ready, else Choose
    // files — unless the first-run card shows, whose "Import the sample" is the primary one then.
    const card = document.getElementById("first-run");
    const primary = !this.next.hidden
      ? "goto-summary"
      : ready && !this.importButton.disabled
        ? "import"
        : card && !card.hidden
          ? ""
          : "choose-files";
    for (const id of ["choose-files", "import", "goto-summary"])
      if (id === primary) byId(id).setAttribute("appearance", "primary");
      else byId(id).removeAttribute("appearance");
    this.maxRows.disabled = !idle;
    if (this.busy === "reading") {
      const total = this.entries.reduce((a, e) => a + e.file.size, 0) || 1;
      const read = this.entries.reduce((a, e) => a + (e.preview || e.failed ? e.file.size : e.read), 0);
      // After the last byte the worker groups the rows into steps for the preview: say so.
      const after = read >= total && this.stage ? `: ${this.stage}` : "";
      const pct = Math.round((100 * read) / total);
      this.showProgress(`Reading files: ${pct} %${after}`, pct);
    }
    if (idle && this.entries.some((e) => e.failed || (e.preview?.errors.length ?? 0) > 0)) {
      this.error.textContent =
        "Some files cannot be imported (see the errors above). Fix or replace them, or press Clear files and choose again; nothing was written.";
    }
  }

  /**
   * The progress line and bar: the bar shows the same stage's percent as the label (null: a stage
   * of unknown length, an indeterminate bar).
   */
  private showProgress(label: string, percent: number | null): void {
    this.progressBlock.hidden = false;
    if (this.progressLabel.textContent !== label) this.progressLabel.textContent = label;
    this.showElapsed();
    if (percent === null) this.progress.removeAttribute("value");
    else this.progress.value = Math.max(0, Math.min(100, percent));
  }

  /** The time since the operation began, beside the progress line (refreshed by the ticker). */
  private showElapsed(): void {
    const seconds = (performance.now() - this.startedAt) / 1000;
    const text = this.ticker !== null && seconds >= 1 ? `${seconds.toFixed(1)} s` : "";
    if (this.elapsed.textContent !== text) this.elapsed.textContent = text;
  }

  /**
   * Refreshes the elapsed time every {@link TICK_MS} while the pane waits for the worker or for
   * Excel, so a long stage (grouping a million rows, the plan's transfer, one large request) still
   * shows that the pane is alive — and it stops moving if the pane ever freezes.
   */
  private startTicker(): void {
    this.startedAt = performance.now();
    this.stopTicker();
    this.ticker = setInterval(() => this.showElapsed(), TICK_MS);
  }

  private stopTicker(): void {
    if (this.ticker !== null) clearInterval(this.ticker);
    this.ticker = null;
    this.elapsed.textContent = "";
  }

  private say(text: string): void {
    this.status.textContent = text;
  }

  /** Empties the error lines and unlinks them from the field they named. */
  private clearError(): void {
    this.error.textContent = "";
    this.rowsError.textContent = "";
    this.maxRows.removeAttribute("aria-invalid");
    this.maxRows.setAttribute("aria-describedby", "max-rows-help");
  }

  /**
   * Shows an error: a field's own under that field (in view when it gets the focus), the others in
   * the section's alert line, which then gets the focus (the control that had it may be gone).
   */
  private fail(message: string, field?: HTMLElement): void {
    this.busy = "idle";
    this.stopTicker();
    this.progressBlock.hidden = true;
    this.update();
    if (field) {
      // The alert under the field names it; the field points at the alert (read again when it has the focus).
      this.rowsError.textContent = message;
      field.setAttribute("aria-invalid", "true");
      field.setAttribute("aria-describedby", "max-rows-error max-rows-help");
      field.focus();
      return;
    }
    this.error.textContent = message;
    if (!this.focusIsVisible()) this.error.focus();
  }

  /** Whether the focus is on a visible, enabled control (not the page, nor something hidden). */
  private focusIsVisible(): boolean {
    const a = document.activeElement as HTMLElement | null;
    return !!a && a !== document.body && a.closest("[hidden]") === null && (a as HTMLButtonElement).disabled !== true;
  }

  private requestPlan(maxSubintervalRows: number): Promise<WorkbookPlan> {
    return new Promise((resolve, reject) => {
      this.planWaiter = { resolve, reject };
      this.post({
        type: "plan",
        ids: this.entries.map((e) => e.id),
        response: this.response.value || undefined,
        maxSubintervalRows,
      });
    });
  }

  /** Analyses the files and writes the sheets. */
  async runImport(): Promise<void> {
    if (this.importButton.disabled) return;
    const missing = missingRequirements();
    if (missing) return this.fail(missing);
    const limit = this.subintervalLimit();
    if (typeof limit === "string") return this.fail(limit, this.maxRows);
    this.clearError();
    this.hideRemoval();
    this.next.hidden = true;
    this.fitNote.hidden = true;
    byId("import-warnings").replaceChildren();
    this.busy = "analysing";
    this.stage = "";
    this.startedSheets = [];
    this.startTicker();
    this.update();
    this.keepFocus();
    this.showProgress("Analysing…", null);
    this.say("Analysing the results…");
    let plan: WorkbookPlan;
    try {
      plan = await this.requestPlan(limit);
    } catch (e) {
      if ((this.busy as string) === "idle") return; // cancelled
      return this.fail(`Analysis failed: ${(e as Error).message}. Choose another response or check the files.`);
    }
    this.busy = "writing";
    this.abort = new AbortController();
    this.update();
    try {
      const result = await renderWorkbookPlan(plan, {
        functionsRegistered: functionsRegistered(),
        signal: this.abort.signal,
        onProgress: (p) => {
          if (!this.startedSheets.includes(p.name)) this.startedSheets.push(p.name);
          const within = p.rowsTotal > 0 ? p.rows / p.rowsTotal : 1;
          this.showProgress(
            `Writing sheet ${p.sheet} of ${p.sheets}: ${p.name}` +
              (p.rowsTotal > 1000
                ? ` (${p.rows.toLocaleString("en-US")} of ${p.rowsTotal.toLocaleString("en-US")} rows)`
                : ""),
            (100 * (p.sheet - 1 + within)) / p.sheets,
          );
        },
      });
      this.lastResult = result;
      this.busy = "idle";
      this.setState = "imported";
      this.stopTicker();
      this.showProgress("Done", 100);
      const formulas = result.addinFormulas ? "with live CAPLAB formulas" : "with values in place of CAPLAB formulas";
      this.say(
        `Imported: ${result.sheets.map((s) => s.written).join(", ")} — ${result.tables.length} tables, ` +
          `${result.charts} charts, ${formulas}.`,
      );
      const summary = result.sheets[0]?.written ?? "";
      showWarnings(byId("import-warnings"), plan, summary, (address) => void this.goToSummary(address));
      this.next.hidden = summary === "";
      this.update();
      this.showNext(plan);
    } catch (e) {
      this.busy = "idle";
      this.stopTicker();
      this.progressBlock.hidden = true;
      this.update();
      if (e instanceof RenderCancelled) this.offerRemoval("Import cancelled", this.status);
      else
        this.offerRemoval(
          `Writing to the workbook failed: ${(e as Error).message}. Nothing already in the workbook was changed`,
          this.error,
          " Try again, or use caplab report to write an .xlsx file.",
        );
    } finally {
      this.abort = null;
    }
  }

  /**
   * After a cancel or a failure: names every sheet this import started (the one cut short included)
   * and offers to remove them; the message gets the focus.
   */
  private offerRemoval(what: string, line: HTMLElement, after = ""): void {
    const sheets = [...this.startedSheets];
    if (sheets.length === 0) {
      line.textContent = `${what}; no sheet was written.${after}`;
    } else {
      const list = sheets.map((n) => `“${n}”`).join(", ");
      line.textContent =
        `${what}; this import wrote ${sheets.length === 1 ? "the sheet" : `${sheets.length} sheets`} ${list}` +
        ` (the last one cut short). Remove ${sheets.length === 1 ? "it" : "them"}, or keep ${sheets.length === 1 ? "it" : "them"} to look at.${after}`;
      const remove = byId("import-remove-sheets");
      remove.textContent = sheets.length === 1 ? `Remove “${sheets[0]}”` : `Remove these ${sheets.length} sheets`;
      addIcons();
      this.removeBlock.hidden = false;
    }
    line.tabIndex = -1;
    line.focus();
  }

  private hideRemoval(): void {
    this.removeBlock.hidden = true;
  }

  /** Removes the sheets the cancelled or failed import wrote (the planner asked). */
  private async removeStarted(): Promise<void> {
    const names = [...this.startedSheets];
    try {
      const removed = await removeSheets(names);
      this.startedSheets = [];
      this.hideRemoval();
      this.say(
        removed.length > 0
          ? `Removed ${removed.map((n) => `“${n}”`).join(", ")}: the workbook is as it was before the import.`
          : "Those sheets are already gone.",
      );
      this.status.focus();
    } catch (e) {
      this.fail(
        `Could not remove ${names.join(", ")}: ${(e as Error).message}. Delete them in Excel (right-click the tab › Delete).`,
      );
    }
  }

  /**
   * After an import: "Go to Summary" (which gets the focus: the result of the action), and why
   * there is no Fit sheet when there is none (the Summary sheet's own explanation).
   */
  private showNext(plan: WorkbookPlan): void {
    this.summarySheet = this.lastResult?.sheets[0]?.written ?? plan.sheets[0]?.name ?? "";
    const gotoButton = byId("goto-summary");
    gotoButton.textContent = `Go to ${this.summarySheet}`;
    addIcons();
    if (!plan.sheets.some((sh) => sh.name === "Fit")) {
      // The Summary sheet's "Fit: no fit (the steps do not vary …)" line, in the pane's words.
      const why = plan.sheets[0]?.notes
        .find((n) => /^Fit: /.test(n))
        ?.slice("Fit: ".length)
        .replace(/^no fit \((.*)\)$/, "$1");
      this.fitNote.textContent =
        `No Fit sheet: ${why ?? "the steps do not vary two or more factors at two levels"}. ` +
        "A fit needs a designed experiment (e.g. an iogen plan over two factors at two levels each).";
      this.fitNote.hidden = false;
    }
    if (!this.next.hidden) gotoButton.focus();
    else this.status.focus();
  }

  /** Shows the Summary sheet in Excel (at `address`, e.g. a warning's row, when given). */
  private async goToSummary(address?: string): Promise<void> {
    try {
      await activateSheet(this.summarySheet, address);
      this.say(`${this.summarySheet} is the active sheet${address ? `, at ${address}` : ""}.`);
    } catch (e) {
      this.fail(`Could not open ${this.summarySheet}: ${(e as Error).message}.`);
    }
  }

  /** Cancel: stops reading/analysis (the worker is ended) or writing (between requests). */
  cancel(): void {
    if (this.busy === "writing") {
      this.abort?.abort();
      this.say("Cancelling after the current request…");
      return;
    }
    this.worker?.terminate();
    this.worker = null;
    this.planWaiter?.reject(new Error("cancelled"));
    this.planWaiter = null;
    const unread = this.entries.filter((e) => !e.preview);
    this.entries = this.entries.filter((e) => e.preview);
    // The new worker has none of the files read so far: read again when needed.
    const kept = this.entries.map((e) => e.file);
    const state = this.setState;
    this.entries = [];
    this.busy = "idle";
    this.stopTicker();
    this.progressBlock.hidden = true;
    const said = `Cancelled${unread.length > 0 ? `; not read: ${unread.map((e) => e.file.name).join(", ")}` : ""}. Nothing was written.`;
    this.say(said);
    if (kept.length > 0) {
      this.addFiles(kept, false, state === "sample" ? "sample" : "user");
      this.say(`${said} Reading ${kept.map((f) => f.name).join(", ")} again…`);
    } else this.update();
    // Cancel is gone: the focus goes to what happened.
    this.status.focus();
  }

  /** Removes every file. */
  clear(): void {
    this.forgetAll();
    this.setState = "choosing";
    this.hideRemoval();
    byId("import-warnings").replaceChildren();
    this.clearError();
    this.next.hidden = true;
    this.fitNote.hidden = true;
    this.progressBlock.hidden = true;
    this.say("");
    this.update();
    // Clear files is gone with the files: the focus goes to where new ones are chosen.
    byId("choose-files").focus();
  }
}
