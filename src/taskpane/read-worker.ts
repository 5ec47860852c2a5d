/**
 * The pane's reading worker: reads lab files with the CLI's readers and builds the analysis plan
 * off the pane's thread, so a million-row file never blocks the pane (Office restarts an add-in
 * that holds a core for 5 s; Microsoft's sample Excel-custom-functions/web-worker does the same).
 *
 * Messages in: {@link WorkerRequest}; out: {@link WorkerReply}. The pane cancels by terminating
 * the worker.
 */
import type { LabFileResult } from "../import/detect";
import type { WorkbookPlan } from "../workbook/plan";
import { FilePreview, forTransfer, PlanChoice, planOf, previewOf, readLabBlob } from "./lab-reading";

export type WorkerRequest =
  | { type: "read"; id: number; file: Blob; name: string }
  | { type: "forget"; id: number }
  | ({ type: "plan"; ids: number[] } & PlanChoice);

export type WorkerReply =
  | { type: "progress"; id: number; read: number; total: number }
  | { type: "stage"; stage: string }
  | { type: "preview"; id: number; preview: FilePreview }
  | { type: "plan"; plan: WorkbookPlan }
  | { type: "error"; id?: number; message: string };

interface WorkerScope {
  onmessage: ((e: MessageEvent<WorkerRequest>) => void) | null;
  postMessage(message: WorkerReply, transfer?: Transferable[]): void;
}

const scope = self as unknown as WorkerScope;
const results = new Map<number, LabFileResult>();

async function handle(msg: WorkerRequest): Promise<void> {
  if (msg.type === "forget") {
    results.delete(msg.id);
    return;
  }
  if (msg.type === "read") {
    let last = 0;
    const result = await readLabBlob(msg.file, msg.name, (read) => {
      const now = Date.now();
      // At most ~5 progress messages a second: enough for the bar, no flood for the pane.
      if (now - last > 200 || read === msg.file.size) {
        last = now;
        scope.postMessage({ type: "progress", id: msg.id, read, total: msg.file.size });
      }
    });
    results.set(msg.id, result);
    scope.postMessage({ type: "stage", stage: "grouping the rows into steps" });
    scope.postMessage({ type: "preview", id: msg.id, preview: previewOf(result, msg.file.size) });
    return;
  }
  const chosen = msg.ids.map((id) => results.get(id)).filter((r): r is LabFileResult => r !== undefined);
  const plan = planOf(chosen, { response: msg.response, maxSubintervalRows: msg.maxSubintervalRows }, (stage) =>
    scope.postMessage({ type: "stage", stage }),
  );
  scope.postMessage({ type: "stage", stage: "handing the analysis to the pane" });
  const ready = forTransfer(plan);
  scope.postMessage({ type: "plan", plan: ready.plan }, ready.transfer);
}

scope.onmessage = (e) => {
  handle(e.data).catch((err: unknown) => {
    const id = e.data.type === "read" ? e.data.id : undefined;
    scope.postMessage({ type: "error", id, message: (err as Error)?.message ?? String(err) });
  });
};
