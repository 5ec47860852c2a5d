/**
 * Reading and analysing lab files, the same way `caplab report` does (`readLabStream`, then
 * `buildLabPlan`), on a browser `File` read in 1 MiB `File.slice` chunks. Runs inside the Web
 * Worker (`read-worker.ts`); also usable directly (tests, a page without workers).
 */
import { LabFileResult, readLabStream } from "../import/detect";
import { formatProblem } from "../import/types";
import { collectLabData } from "../lab/data";
import { buildLabPlan } from "../lab/lab-plan";
import { MAX_CHART_POINTS, samplePoints, type WorkbookPlan } from "../workbook/plan";

/** Chunk size of File.slice reads (as `caplab report` reads 1 MiB chunks). */
export const CHUNK_BYTES = 1 << 20;

/** What the pane shows for one file before anything is written. */
export interface FilePreview {
  file: string;
  bytes: number;
  format: LabFileResult["format"];
  /** Rows read (subinterval, summary or fio job × direction rows). */
  rows: number;
  steps: number;
  subintervals: number;
  /** Label columns found (candidate responses). */
  labels: string[];
  warnings: string[];
  errors: string[];
}

/** The bytes of a Blob, chunk by chunk, reporting how many bytes were read so far. */
export async function* blobChunks(blob: Blob, onBytes?: (read: number) => void): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < blob.size; at += CHUNK_BYTES) {
    const chunk = new Uint8Array(await blob.slice(at, Math.min(blob.size, at + CHUNK_BYTES)).arrayBuffer());
    onBytes?.(Math.min(blob.size, at + CHUNK_BYTES));
    yield chunk;
  }
}

/**
 * Reads one file with the CLI's readers.
 *
 * @param blob - the file (a File, or any Blob)
 * @param name - its name, used in every problem message
 * @param onBytes - progress: bytes read so far
 * @returns the reader's result
 */
export function readLabBlob(blob: Blob, name: string, onBytes?: (read: number) => void): Promise<LabFileResult> {
  return readLabStream(blobChunks(blob, onBytes), name, blob.size);
}

/** The preview of a file that has been read. */
export function previewOf(result: LabFileResult, bytes: number): FilePreview {
  const base = {
    file: result.file,
    bytes,
    format: result.format,
    warnings: result.warnings.map(formatProblem),
    errors: result.errors.map(formatProblem),
  };
  if (result.format === "unknown" || result.errors.length > 0)
    return { ...base, rows: 0, steps: 0, subintervals: 0, labels: [] };
  const rows = result.format === "fio-json" ? result.fio.rows.length : result.iogen.table.line.length;
  try {
    const data = collectLabData([result]);
    return {
      ...base,
      rows,
      // Steps as the Steps sheet counts them: host × step (categories such as read/write apart).
      steps: new Set(data.steps.map((s) => `${s.host}\u0000${s.step}`)).size,
      subintervals: data.subintervals.reduce((a, s) => a + s.length, 0),
      labels: data.labelColumns,
    };
  } catch (e) {
    return {
      ...base,
      rows,
      steps: 0,
      subintervals: 0,
      labels: [],
      errors: [`${result.file}: ${(e as Error).message}`],
    };
  }
}

/** What the pane chose for the analysis. */
export interface PlanChoice {
  /** The fitted response (as `caplab report --response`); the default when undefined. */
  response?: string;
  /** Most rows on the Subintervals sheet (the pane's "Subinterval rows to write"). */
  maxSubintervalRows?: number;
}

/** The analysis of every file read, with the pane's choices; `onStage` hears each stage start. */
export function planOf(results: LabFileResult[], choice: PlanChoice, onStage?: (stage: string) => void): WorkbookPlan {
  return buildLabPlan(results, { ...choice, onStage });
}

/**
 * Readies a plan for `postMessage` from the worker, in place: the columnar tables' numbers and
 * text codes become typed arrays whose buffers are transferred (a structured clone of a
 * million-row Subintervals table as plain arrays took ~4 s on the pane's thread to unpack), and
 * chart series longer than the renderer draws are sampled here as the renderer would sample them
 * (`samplePoints`, same points).
 *
 * @returns the plan and the buffers to transfer
 */
export function forTransfer(plan: WorkbookPlan): { plan: WorkbookPlan; transfer: ArrayBuffer[] } {
  const transfer: ArrayBuffer[] = [];
  for (const sheet of plan.sheets) {
    for (const table of sheet.tables) {
      for (const d of table.columnar?.data ?? []) {
        if (d.kind === "number") {
          const values = Float64Array.from(d.values);
          d.values = values;
          transfer.push(values.buffer as ArrayBuffer);
        } else {
          const codes = Uint32Array.from(d.codes);
          d.codes = codes;
          transfer.push(codes.buffer as ArrayBuffer);
        }
      }
    }
    for (const chart of sheet.charts)
      for (const series of chart.series)
        if (series.x.length > MAX_CHART_POINTS) Object.assign(series, samplePoints(series.x, series.y));
  }
  return { plan, transfer };
}
