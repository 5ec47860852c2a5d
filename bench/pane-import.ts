/**
 * A 1,000,000-row iogen subinterval CSV through the pane's path, in Node: the import readers on
 * 1 MiB chunks (as the pane's worker reads File.slice pieces), buildLabPlan, then the Office.js
 * renderer into the in-memory Excel of the renderer tests (tests/excel/fake-excel.ts, which
 * enforces the request-size limit). Prints time per phase, requests, the largest request, the
 * longest gap between progress updates while writing, and peak RSS, for docs/benchmarks.md.
 *
 * Not a browser measurement: the browser run goes through the e2e harness (tests/e2e).
 *
 *   npx tsx bench/pane-import.ts [--rows 1000000] [--file existing.csv] [--plan-only]
 *
 * The fake Excel keeps one Map entry per cell, and a JavaScript Map holds at most 2^24 entries:
 * a 1,000,000-row Subintervals table (23 columns) exceeds it, so full writes are measured up to
 * 600,000 rows; --plan-only measures reading and analysis alone.
 *
 * The generated file repeats the real 2×2 iogen result of tests/analysis/fixtures/iogen-real
 * (same 4 steps × 3 categories), each repetition continuing the subinterval numbers and start
 * times as the measure phase, so the Steps, Model and Fit sheets stay those of a real run.
 */
import { createReadStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "fs";
import * as os from "os";
import * as path from "path";
import { readLabStream } from "../src/import/detect";
import { buildLabPlan } from "../src/analysis/lab-plan";
import { tableRowCount } from "../src/analysis/plan";
import { renderWorkbookPlan } from "../src/excel/render-plan";
import { createFakeHost, installFakeHost } from "../tests/excel/fake-excel";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}

/** Writes `rows` data rows by repeating the real fixture's rows; returns the path. */
function generate(dir: string, rows: number): string {
  const src = readFileSync(
    path.join(__dirname, "..", "tests", "analysis", "fixtures", "iogen-real", "subintervals.csv"),
    "utf8",
  );
  const [header, ...lines] = src.trimEnd().split("\n");
  const h = header.split(",");
  const [iSub, iStart, iPhase] = ["subinterval", "start_s", "phase"].map((c) => h.indexOf(c));
  const fields = lines.map((l) => l.split(","));
  const span = Math.max(...fields.map((f) => Number(f[iSub]))) + 1;
  const out: string[] = [header];
  let n = 0;
  for (let rep = 0; n < rows; rep++) {
    for (const f of fields) {
      if (n >= rows) break;
      const g = f.slice();
      g[iSub] = String(Number(f[iSub]) + rep * span);
      g[iStart] = String(Number(f[iStart]) + rep * span);
      if (rep > 0) g[iPhase] = "measure";
      out.push(g.join(","));
      n++;
    }
  }
  const file = path.join(dir, "subintervals-1m.csv");
  writeFileSync(file, out.join("\n") + "\n");
  return file;
}

async function main(): Promise<void> {
  const rows = Number(arg("--rows", "1000000"));
  const dir = mkdtempSync(path.join(os.tmpdir(), "caplab-pane-import-"));
  try {
    const file = arg("--file", "") || generate(dir, rows);
    const bytes = statSync(file).size;
    const t0 = performance.now();
    const input = await readLabStream(createReadStream(file, { highWaterMark: 1 << 20 }), path.basename(file), bytes);
    const t1 = performance.now();
    if (input.errors.length > 0) throw new Error(input.errors.map((e) => e.message).join("; "));
    const plan = buildLabPlan([input]);
    const t2 = performance.now();
    if (process.argv.includes("--plan-only")) {
      const sub = plan.sheets.find((x) => x.name === "Subintervals")?.tables[0];
      console.log(
        `read ${((t1 - t0) / 1000).toFixed(1)} s, analyse ${((t2 - t1) / 1000).toFixed(1)} s; Subintervals rows ${sub ? tableRowCount(sub) : 0}`,
      );
      console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
      return;
    }
    const host = createFakeHost({});
    installFakeHost(globalThis as unknown as Record<string, unknown>, host);
    const updates: number[] = [];
    const result = await renderWorkbookPlan(plan, {
      functionsRegistered: true,
      onProgress: () => void updates.push(performance.now()),
    });
    const t3 = performance.now();
    let gap = 0;
    for (let i = 1; i < updates.length; i++) gap = Math.max(gap, updates[i] - updates[i - 1]);
    const requests = host.workbook.requests;
    const largest = Math.max(...requests.map((r) => r.bytes));
    const sub = plan.sheets.find((s) => s.name === "Subintervals")?.tables[0];
    const s = (ms: number): string => (ms / 1000).toFixed(1);
    console.log(`file: ${file} (${(bytes / 2 ** 20).toFixed(0)} MiB, ${input.format})`);
    console.log(
      `Subintervals rows in the plan: ${sub ? tableRowCount(sub) : 0}; warnings: ${plan.warnings.join(" | ") || "none"}`,
    );
    console.log(`read ${s(t1 - t0)} s, analyse ${s(t2 - t1)} s, write ${s(t3 - t2)} s, total ${s(t3 - t0)} s`);
    console.log(
      `requests ${requests.length} (retried ${result.retries}), largest ${largest} bytes, sheets ${result.sheets.map((x) => x.written).join(", ")}, charts ${result.charts}`,
    );
    console.log(`progress updates while writing: ${updates.length}, longest gap ${gap.toFixed(0)} ms`);
    console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`bench:pane-import: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
