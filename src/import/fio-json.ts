/**
 * Reader for fio 3.x results written with `--output-format=json` or `json+`.
 *
 * Each job, and within it each direction (read, write, trim) that did any IO, becomes one step.
 * Job options are the job's own options merged over the file's `global options`; from them the
 * reader takes `rw`, `bs`, `iodepth`, `rate_iops` and `numjobs` (per-direction lists such as
 * `bs=4k,8k` or `rate_iops=700,300` are split by direction, as fio does; a single value applies
 * to every direction). Latencies are converted from ns to ms: `clat_ns` is reported as the service
 * time and `lat_ns` (submission + completion) as the response time. fio measures both from the
 * moment it issues an IO, not from a schedule, so under `rate_iops` its "response" does not
 * include the wait of IOs it fell behind on (coordinated omission) — iogen's does.
 *
 * `usr_cpu` and `sys_cpu` are fio's own CPU use for the job in % of one CPU. `json+` adds
 * latency histograms (`bins`), which this reader ignores. Text before the JSON (fio warnings when
 * stderr was captured too) is skipped.
 *
 * Cost: O(size of the JSON) — fio documents are small; the whole text is parsed at once.
 */
import { shown } from "../text/quote";
import { ImportProblem, ImportResult } from "./types";
import { figureProblem } from "./csv-bytes";

export type FioDirection = "read" | "write" | "trim";

/** One job × direction of a fio run. Times in ms, sizes in bytes, rates per second. */
export interface FioStep {
  file: string;
  /** `jobname` as fio wrote it (jobs created by numjobs share a name). */
  job: string;
  /** Position of the job in `jobs[]`, 0-based (tells numjobs clones apart). */
  jobIndex: number;
  groupid: number;
  direction: FioDirection;
  rw: string;
  /** Block size of this direction in bytes, or null when fio's option could not be read. */
  bs: number | null;
  iodepth: number;
  /** The rate_iops cap of this direction, or null when the job was not rate-limited. */
  rate_iops: number | null;
  numjobs: number;
  runtime_ms: number;
  total_ios: number;
  io_bytes: number;
  /** fio's `iops` for the direction, unchanged. */
  iops: number;
  /** `bw_bytes` / 10^6. */
  mb_s: number;
  clat_ms_avg: number | null;
  clat_ms_p50: number | null;
  clat_ms_p90: number | null;
  clat_ms_p99: number | null;
  clat_ms_p999: number | null;
  clat_ms_max: number | null;
  lat_ms_avg: number | null;
  lat_ms_p50: number | null;
  lat_ms_p90: number | null;
  lat_ms_p99: number | null;
  lat_ms_p999: number | null;
  lat_ms_max: number | null;
  /** fio's CPU for the whole job (all directions), % of one CPU. */
  usr_cpu: number | null;
  sys_cpu: number | null;
  /** The job's total IOPS over all directions (the throughput its CPU figures belong to). */
  job_iops: number;
  /** Merged global + job options, as fio wrote them. */
  options: Record<string, string>;
  fioVersion: string;
}

export interface FioJsonResult extends ImportResult<FioStep> {
  fioVersion: string;
}

type Json = Record<string, unknown>;

/**
 * Largest fio JSON read (bytes): 64 MiB, about 900 jobs with json+ histograms (the golden
 * `fio-randrw-jsonplus` job is 69 KB). The document is held as text before it is parsed, so this
 * bounds the memory a device or an endless pipe can take (the bytes are counted as they arrive).
 */
export const MAX_FIO_JSON_BYTES = 64 * 2 ** 20;

const DIRECTIONS: FioDirection[] = ["read", "write", "trim"];

const SIZE_UNITS: Record<string, number> = {
  "": 1,
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
};

/**
 * A fio size such as `4k`, `8KiB`, `1m` or `4096` in bytes (fio's default kb_base=1024), or null.
 *
 * @example
 * fioSize("4k") // => 4096
 */
export function fioSize(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text);
  if (!m) return null;
  const unit = SIZE_UNITS[m[2].toLowerCase()];
  return unit === undefined ? null : Number(m[1]) * unit;
}

/** The value of a per-direction option (`a,b,c` = read,write,trim; one value = all). */
function perDirection(value: string | undefined, direction: FioDirection): string | undefined {
  if (value === undefined) return undefined;
  const parts = value.split(",");
  if (parts.length === 1) return parts[0];
  const v = parts[DIRECTIONS.indexOf(direction)];
  return v === undefined || v === "" ? parts[0] : v;
}

function num(x: unknown): number | null {
  return typeof x === "number" && Number.isFinite(x) ? x : null;
}

function obj(x: unknown): Json | null {
  return typeof x === "object" && x !== null && !Array.isArray(x) ? (x as Json) : null;
}

function stringOptions(x: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  const o = obj(x);
  if (o) for (const [k, v] of Object.entries(o)) out[k] = String(v);
  return out;
}

/** Mean, percentiles and max of a fio latency block in ms; `scale` converts its unit to ms. */
function latency(block: Json | null, scale: number) {
  const nothing = { avg: null, p50: null, p90: null, p99: null, p999: null, max: null };
  if (!block || !num(block.N)) return nothing;
  const pct = obj(block.percentile);
  const p = (key: string): number | null => {
    if (!pct) return null;
    const v = num(pct[key]);
    return v === null ? null : v * scale;
  };
  const mean = num(block.mean);
  const max = num(block.max);
  return {
    avg: mean === null ? null : mean * scale,
    p50: p("50.000000"),
    p90: p("90.000000"),
    p99: p("99.000000"),
    p999: p("99.900000"),
    max: max === null ? null : max * scale,
  };
}

/** fio 3.x writes `clat_ns`; fio 2.x wrote `clat` in µs. */
function latencyOf(dir: Json, name: "clat" | "lat") {
  const ns = obj(dir[`${name}_ns`]);
  if (ns) return latency(ns, 1e-6);
  return latency(obj(dir[name]), 1e-3);
}

/** What a job's directions share when they become steps. */
interface JobContext {
  file: string;
  job: Json;
  jobIndex: number;
  name: string;
  options: Record<string, string>;
  jobIops: number;
  fioVersion: string;
}

/** The job options a step reports for one direction (fio's defaults when an option is not given). */
function jobSettings(
  options: Record<string, string>,
  direction: FioDirection,
): Pick<FioStep, "rw" | "bs" | "iodepth" | "rate_iops" | "numjobs"> {
  const bsText = perDirection(options.bs ?? options.blocksize ?? "4k", direction) ?? "4k";
  const rateText = perDirection(options.rate_iops, direction);
  const rate = rateText === undefined ? null : Number(rateText);
  return {
    rw: options.rw ?? options.readwrite ?? "read",
    bs: fioSize(bsText),
    iodepth: Number(options.iodepth ?? "1") || 1,
    rate_iops: rate !== null && Number.isFinite(rate) && rate > 0 ? rate : null,
    numjobs: Number(options.numjobs ?? "1") || 1,
  };
}

/** One direction (read, write, trim) of a job as a step; `d` is fio's block for the direction. */
function directionStep(c: JobContext, direction: FioDirection, d: Json, iops: number): FioStep {
  const { options, job } = c;
  const clat = latencyOf(d, "clat");
  const lat = latencyOf(d, "lat");
  return {
    file: c.file,
    job: c.name,
    jobIndex: c.jobIndex,
    groupid: num(job.groupid) ?? 0,
    direction,
    ...jobSettings(options, direction),
    runtime_ms: num(d.runtime) ?? num(job.job_runtime) ?? 0,
    total_ios: num(d.total_ios) ?? 0,
    io_bytes: num(d.io_bytes) ?? 0,
    iops,
    mb_s: (num(d.bw_bytes) ?? (num(d.bw) ?? 0) * 1024) / 1e6,
    clat_ms_avg: clat.avg,
    clat_ms_p50: clat.p50,
    clat_ms_p90: clat.p90,
    clat_ms_p99: clat.p99,
    clat_ms_p999: clat.p999,
    clat_ms_max: clat.max,
    lat_ms_avg: lat.avg,
    lat_ms_p50: lat.p50,
    lat_ms_p90: lat.p90,
    lat_ms_p99: lat.p99,
    lat_ms_p999: lat.p999,
    lat_ms_max: lat.max,
    usr_cpu: num(job.usr_cpu),
    sys_cpu: num(job.sys_cpu),
    job_iops: c.jobIops,
    options,
    fioVersion: c.fioVersion,
  };
}

/** The figures of a direction block checked at import, as paths into it (latencies: fio 3.x's `_ns` or 2.x's µs blocks). */
const FIO_FIGURES: string[][] = [
  ["iops"],
  ["bw_bytes"],
  ["bw"],
  ["runtime"],
  ["total_ios"],
  ["io_bytes"],
  ...["clat_ns", "lat_ns", "clat", "lat"].flatMap((l) => [
    [l, "mean"],
    [l, "max"],
    ...["50.000000", "90.000000", "99.000000", "99.900000"].map((q) => [l, "percentile", q]),
  ]),
];

/** The number at `path` in `block`, or null. */
function numberAt(block: Json, path: string[]): number | null {
  let at: unknown = block;
  for (const key of path) at = obj(at)?.[key];
  return num(at);
}

/**
 * The figures fio cannot have written (negative, or beyond any measurement), each an error naming
 * its field in fio's words: `jobs[0].read.clat_ns.mean: -5 is negative (fio writes no negative value)`.
 */
function figureErrors(job: Json, d: Json, jobIndex: number, direction: FioDirection): string[] {
  const out: string[] = [];
  const check = (value: number | null, field: string): void => {
    const problem = value === null ? null : figureProblem(value, "fio");
    if (problem) out.push(`${field}: ${value} ${problem}`);
  };
  for (const path of FIO_FIGURES) {
    const field = path.map((k, i) => (i === 2 ? `["${k}"]` : `${i > 0 ? "." : ""}${k}`)).join("");
    check(numberAt(d, path), `jobs[${jobIndex}].${direction}.${field}`);
  }
  for (const key of ["usr_cpu", "sys_cpu"]) check(num(job[key]), `jobs[${jobIndex}].${key}`);
  return out;
}

/**
 * Reads one fio JSON document.
 *
 * @param text - fio's JSON output (json or json+); leading non-JSON lines are skipped
 * @param file - the file name kept on every step and used in problems
 * @returns one step per job and direction with IO; errors when the text is not fio JSON
 * @example
 * parseFioJson(fs.readFileSync("run.json", "utf8"), "run.json").rows[0].iops
 * // => 5509.490509
 */
export function parseFioJson(text: string, file: string): FioJsonResult {
  const warnings: ImportProblem[] = [];
  const errors: ImportProblem[] = [];
  const result = (rows: FioStep[], fioVersion = ""): FioJsonResult => ({
    file,
    format: "fio-json",
    fioVersion,
    rows,
    warnings,
    errors,
  });
  const start = text.search(/^\s*\{/m);
  if (start < 0) {
    errors.push({ file, message: "not fio JSON (no '{' found)" });
    return result([]);
  }
  if (text.slice(0, start).trim() !== "") {
    warnings.push({ file, message: "text before the JSON document was skipped" });
  }
  let doc: Json | null;
  try {
    doc = obj(JSON.parse(text.slice(start)));
  } catch {
    // JSON.parse's message differs between Node versions: keep ours stable.
    errors.push({ file, message: "not valid JSON: a truncated or damaged fio output cannot be read" });
    return result([]);
  }
  const jobs = doc?.jobs;
  if (!doc || !Array.isArray(jobs)) {
    errors.push({ file, message: "not fio JSON: missing 'jobs' array" });
    return result([]);
  }
  const fioVersion = typeof doc["fio version"] === "string" ? (doc["fio version"] as string) : "";
  const global = stringOptions(doc["global options"]);
  const rows: FioStep[] = [];
  jobs.forEach((jobValue, jobIndex) => {
    const job = obj(jobValue);
    if (!job) {
      errors.push({ file, message: `jobs[${jobIndex}] is not an object` });
      return;
    }
    const name = typeof job.jobname === "string" ? job.jobname : `job${jobIndex}`;
    const options = { ...global, ...stringOptions(job["job options"]) };
    if (!obj(job.read) && !obj(job.write)) {
      errors.push({ file, message: `jobs[${jobIndex}] (${shown(name)}): missing 'read' and 'write' results` });
      return;
    }
    const dirs = DIRECTIONS.map((d) => [d, obj(job[d])] as const).filter(([, x]) => x && (num(x.total_ios) ?? 0) > 0);
    const jobIops = dirs.reduce((s, [, x]) => s + (num(x!.iops) ?? 0), 0);
    for (const [direction, x] of dirs) {
      const d = x!;
      const iops = num(d.iops);
      if (iops === null) {
        errors.push({ file, message: `jobs[${jobIndex}].${direction}.iops is missing or not a number` });
        continue;
      }
      const bad = figureErrors(job, d, jobIndex, direction);
      for (const message of bad) errors.push({ file, message });
      if (bad.length === 0)
        rows.push(directionStep({ file, job, jobIndex, name, options, jobIops, fioVersion }, direction, d, iops));
    }
  });
  if (rows.length === 0 && errors.length === 0) {
    warnings.push({ file, message: "no job did any IO" });
  }
  return result(rows, fioVersion);
}

/**
 * Reads fio JSON from a stream (collected, then parsed: fio documents are small; more than
 * {@link MAX_FIO_JSON_BYTES} bytes is an error, found as the bytes arrive, so an endless input ends).
 *
 * @param stream - the file's bytes or text
 * @param file - the file name
 * @returns the same as {@link parseFioJson}
 */
export async function parseFioJsonStream(
  stream: AsyncIterable<Uint8Array | string>,
  file: string,
): Promise<FioJsonResult> {
  const decoder = new TextDecoder("utf-8");
  let text = "";
  let bytes = 0;
  for await (const chunk of stream) {
    bytes += chunk.length;
    if (bytes > MAX_FIO_JSON_BYTES) {
      const message = `larger than ${MAX_FIO_JSON_BYTES / 2 ** 20} MiB: not a fio result (fio writes a few MB at most)`;
      return { file, format: "fio-json", fioVersion: "", rows: [], warnings: [], errors: [{ file, message }] };
    }
    text += typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
  }
  text += decoder.decode();
  return parseFioJson(text, file);
}
