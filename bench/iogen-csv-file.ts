/**
 * The deterministic iogen subinterval CSV the benchmarks read (`bench:import`, `bench:pane`):
 * 50 steps × overall/read × 10,000 one-second subintervals (5 of them warm-up), every column of
 * iogen/schema/columns.json plus one label (`protocol`), values from a seeded generator, so the
 * file is byte-identical on every machine.
 */
import { createWriteStream, statSync } from "node:fs";
import { iogenColumnsOf } from "../src/import/iogen-csv";

/** Subinterval CSV columns in iogen's order (iogen/schema/columns.json), then one label column. */
export const COLUMNS = [...iogenColumnsOf("subinterval"), "protocol"];
/** mulberry32: a small seeded generator, so the file is the same on every machine. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Writes the subinterval CSV; returns its size in bytes.
 *
 * @param rows - data rows (steps × overall/read × subintervals, cut at this many)
 * @param perStep - subintervals per step (10,000 for the benchmarks; tests take fewer for more steps)
 */
export async function writeIogenCsv(path: string, rows: number, perStep = 10_000): Promise<number> {
  const categories = ["overall", "read"];
  const steps = Math.ceil(rows / (perStep * categories.length));
  const rnd = prng(20261122);
  const out = createWriteStream(path);
  const write = (s: string): Promise<void> =>
    out.write(s) ? Promise.resolve() : new Promise((resolve) => out.once("drain", () => resolve()));
  await write(COLUMNS.join(",") + "\n");
  let written = 0;
  let batch: string[] = [];
  for (let step = 1; step <= steps && written < rows; step++) {
    const target = 500 * step;
    const readPct = step % 2 === 0 ? 70 : 100;
    for (let sub = 1; sub <= perStep && written < rows; sub++) {
      for (const category of categories) {
        if (written >= rows) break;
        const share = category === "overall" ? 1 : readPct / 100;
        const iops = target * share * (1 + 0.02 * (rnd() - 0.5));
        const svc = 0.08 + 0.04 * rnd();
        const resp = svc * (1 + 0.3 * rnd());
        const cpu = 2 + target / 1000 + rnd();
        const lag = 0.002 + 0.01 * rnd();
        const value: Record<string, string | number> = {
          host: "lab1", step, step_name: `step-${step}`, subinterval: sub, phase: sub <= 5 ? "warmup" : "measure",
          start_s: sub - 1, seconds: 1, category, target_iops: (target * share).toFixed(0), iops: iops.toFixed(3),
          mb_s: ((iops * 4096) / 1e6).toFixed(3), block_size: 4096, read_pct: readPct, random_pct: 100, queue_depth: 16,
          service_ms_avg: svc.toFixed(4), service_ms_p50: (svc * 0.9).toFixed(4), service_ms_p90: (svc * 1.6).toFixed(4),
          service_ms_p99: (svc * 3).toFixed(4), service_ms_p999: (svc * 6).toFixed(4), service_ms_max: (svc * 20).toFixed(4),
          response_ms_avg: resp.toFixed(4), response_ms_p50: (resp * 0.9).toFixed(4), response_ms_p90: (resp * 1.6).toFixed(4),
          response_ms_p99: (resp * 3).toFixed(4), response_ms_p999: (resp * 6).toFixed(4), response_ms_max: (resp * 20).toFixed(4),
          avg_in_flight: ((iops * resp) / 1000).toFixed(4), late_ios: 0, errors: 0, cpu_busy_pct: cpu.toFixed(2),
          cpu_sys_pct: (cpu * 0.6).toFixed(2), cpu_iowait_pct: (rnd() * 2).toFixed(2), cpu_cores: 2,
          iogen_cpu_pct: (cpu / 4).toFixed(2), iogen_lag_ms_avg: lag.toFixed(4), iogen_lag_ms_p99: (lag * 4).toFixed(4),
          iogen_lag_ms_max: (lag * 10).toFixed(4), protocol: step % 3 === 0 ? "nfs" : "iscsi",
        }; // prettier-ignore
        // A schema column this generator does not know is written empty ("no value").
        batch.push(COLUMNS.map((c) => value[c] ?? "").join(","));
        written++;
        if (batch.length === 5000) {
          await write(batch.join("\n") + "\n");
          batch = [];
        }
      }
    }
  }
  if (batch.length > 0) await write(batch.join("\n") + "\n");
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  return statSync(path).size;
}
