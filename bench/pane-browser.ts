/**
 * The pane's import in a real browser, run by `npm run bench:pane` (which builds dist/ first).
 *
 * The built pane (dist/) in Debian's headless Chromium with the in-memory Excel of the e2e
 * harness (tests/e2e/harness.ts, tests/excel/fake-excel.ts) in place of office.js. A deterministic
 * 1,000,000-row iogen subinterval CSV (bench/iogen-csv-file.ts, the file `bench:import` reads) is
 * given to the pane's file input (Playwright setInputFiles), the "Subinterval rows to write" field
 * is set, Import is pressed, and the page records:
 * - every change of the progress display (timestamps): the longest gap between changes of the
 *   label or of the elapsed time beside it (what the user sees move), and between changes of the
 *   label alone (worker and renderer progress);
 * - the main thread's responsiveness: a 50 ms setInterval heartbeat's longest gap, the longest
 *   `longtask` entry (PerformanceObserver), the longest gap between animation frames;
 * - the main thread's JS heap (performance.memory, --enable-precise-memory-info);
 * while Node samples the resident memory of every Chromium process (/proc/<pid>/status VmRSS and
 * smaps_rollup Pss) every 250 ms: the peak of their sum (Pss counts shared pages once) and the
 * peak of the largest process (the renderer, which runs the pane, the worker and the fake Excel).
 *
 * Configurations (row limit × round-trip latency: the fake Excel's `latencyMs`, what each
 * `context.sync()` waits, as a request to Excel on the web does) are interleaved run by run with
 * `caplab report` on the same file (limit A at 0 ms, at 20 ms, at 100 ms, report, limit A at 0 ms,
 * …), each pane run in a fresh browser; medians of times, maxima of gaps and memory, and each
 * configuration's median over the report's median. The fake Excel runs in the pane's page: its
 * apply work and its cell store count in the pane's main thread and memory, which a real Excel
 * would carry in its own process.
 *
 *   npm run bench:pane [-- --rows 1000000] [--runs 3] [--limits 1048575] [--latencies 0,20,100]
 *                      [--baseline DIR] [--write]
 *
 * --baseline DIR also runs every configuration with an earlier build of the pane (a copy of its
 * dist/), interleaved with this one: a before/after on the same machine under the same load.
 *
 * --write replaces the pane section of docs/benchmarks.md (between its BEGIN/END pane markers).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { openPane, serveDist, ROOT } from "../tests/e2e/harness";
import { writeIogenCsv } from "./iogen-csv-file";

function arg(argv: string[], name: string, fallback: string): string {
  const i = argv.indexOf(name);
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : fallback;
}

/** Every process below `root` (Chromium's browser, renderer, GPU, utility processes). */
function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(name));
      children.set(ppid, list);
    } catch {
      // the process ended while listing
    }
  }
  const out: number[] = [];
  const todo = [...(children.get(root) ?? [])];
  while (todo.length > 0) {
    const pid = todo.pop() as number;
    out.push(pid);
    todo.push(...(children.get(pid) ?? []));
  }
  return out;
}

function kb(text: string, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text);
  return m ? Number(m[1]) * 1024 : 0;
}

interface MemoryPeaks {
  rssSum: number;
  pssSum: number;
  largestRss: number;
}

/** Samples the Chromium processes' memory every 250 ms until stopped; `now` is one sample. */
function memorySampler(): { stop: () => MemoryPeaks; now: () => MemoryPeaks } {
  const peaks: MemoryPeaks = { rssSum: 0, pssSum: 0, largestRss: 0 };
  const sample = (): MemoryPeaks => {
    const current: MemoryPeaks = { rssSum: 0, pssSum: 0, largestRss: 0 };
    let rss = 0;
    let pss = 0;
    for (const pid of descendants(process.pid)) {
      try {
        const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
        if (!/chrom/i.test(cmd)) continue;
        const r = kb(readFileSync(`/proc/${pid}/status`, "utf8"), "VmRSS");
        rss += r;
        pss += kb(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"), "Pss");
        current.largestRss = Math.max(current.largestRss, r);
      } catch {
        // the process ended between listing and reading
      }
    }
    current.rssSum = rss;
    current.pssSum = pss;
    peaks.rssSum = Math.max(peaks.rssSum, rss);
    peaks.pssSum = Math.max(peaks.pssSum, pss);
    peaks.largestRss = Math.max(peaks.largestRss, current.largestRss);
    return current;
  };
  const timer = setInterval(sample, 250);
  sample();
  return {
    now: sample,
    stop: () => {
      clearInterval(timer);
      sample();
      return peaks;
    },
  };
}

/** What the page records (installed before the files are given). */
interface PageRecord {
  labels: [number, string][];
  ticks: number[];
  maxBeatGap: number;
  maxFrameGap: number;
  /** [start, duration] of each task over 50 ms. */
  longTasks: [number, number][];
  heap: number;
}

/**
 * The recorder, as page script text: a function handed to page.evaluate would carry the helpers
 * tsx's transform adds to named functions (`__name`), which the page does not have.
 */
const RECORDER = `(() => {
  const b = { labels: [], ticks: [], maxBeatGap: 0, maxFrameGap: 0, longTasks: [], heap: 0 };
  window.__bench = b;
  const watch = { childList: true, characterData: true, subtree: true };
  const label = document.getElementById("progress-label");
  new MutationObserver(() => b.labels.push([performance.now(), label.textContent || ""])).observe(label, watch);
  const elapsed = document.getElementById("progress-elapsed");
  new MutationObserver(() => b.ticks.push(performance.now())).observe(elapsed, watch);
  let lastBeat = performance.now();
  setInterval(() => {
    const now = performance.now();
    b.maxBeatGap = Math.max(b.maxBeatGap, now - lastBeat);
    lastBeat = now;
    if (performance.memory) b.heap = Math.max(b.heap, performance.memory.usedJSHeapSize);
  }, 50);
  let lastFrame = -1;
  const frame = (t) => {
    if (lastFrame >= 0) b.maxFrameGap = Math.max(b.maxFrameGap, t - lastFrame);
    lastFrame = t;
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) b.longTasks.push([e.startTime, e.duration]);
    }).observe({ type: "longtask" });
  } catch (e) {
    // longtask entries not supported: the heartbeat still measures
  }
})();`;

interface RunResult {
  /** "this build" or "baseline". */
  build: string;
  limit: number;
  /** Milliseconds each sync waited (the round trip). */
  latency: number;
  readSeconds: number;
  importSeconds: number;
  writeSeconds: number;
  totalSeconds: number;
  maxLabelGap: number;
  maxProgressGap: number;
  maxBeatGap: number;
  maxFrameGap: number;
  longestTask: number;
  /** What the progress label said when the longest task began. */
  longestTaskDuring: string;
  heap: number;
  memory: MemoryPeaks;
  /** The same figures for the pane loaded and idle, before the file is given. */
  idle: MemoryPeaks;
  sheets: string[];
  subintervalRows: number;
  stepsRows: number;
  charts: number;
  requests: number;
  largestRequest: number;
  refused: number;
  warningsShown: string[];
  summaryWarning: string;
}

/** Longest gap between consecutive timestamps within [from, to], the ends included. */
function longestGap(times: number[], from: number, to: number): number {
  const t = [from, ...times.filter((x) => x >= from && x <= to), to];
  let gap = 0;
  for (let i = 1; i < t.length; i++) gap = Math.max(gap, t[i] - t[i - 1]);
  return gap;
}

async function run(build: string, url: string, file: string, limit: number, latency: number): Promise<RunResult> {
  const memory = memorySampler();
  const s = await openPane(url, { args: ["--enable-precise-memory-info"], hostOptions: { latencyMs: latency } });
  try {
    const { page } = s;
    page.setDefaultTimeout(30 * 60_000);
    await page.waitForFunction(() => /Connected to Excel/.test(document.getElementById("status")?.textContent ?? ""));
    if (await page.isVisible("#first-run")) await page.click("#sample-skip");
    await page.fill("#max-rows", String(limit));
    await page.evaluate(RECORDER);
    const idle = memory.now();
    const t0 = await page.evaluate(() => performance.now());
    await page.setInputFiles("#file-input", file);
    await page.waitForFunction(() => /1 file ready/.test(document.getElementById("import-status")?.textContent ?? ""));
    const t1 = await page.evaluate(() => performance.now());
    await page.click("#import");
    await page.waitForFunction(() => {
      const t = document.getElementById("import-status")?.textContent ?? "";
      return /^Imported:/.test(t) || (document.getElementById("import-error")?.textContent ?? "") !== "";
    });
    const t2 = await page.evaluate(() => performance.now());
    const error = await page.textContent("#import-error");
    if (error) throw new Error(`the pane reported: ${error}`);
    const rec = await page.evaluate(() => (window as unknown as { __bench: PageRecord }).__bench);
    const peaks = memory.stop();
    const book = await page.evaluate(() => {
      type Wb = import("../tests/excel/fake-excel").FakeWorkbook;
      const wb = (window as unknown as { __fakeExcel: { workbook: Wb } }).__fakeExcel.workbook;
      const summary = wb.sheet("Summary");
      let summaryWarning = "";
      if (summary)
        for (let r = 0; r < 200; r++)
          for (let c = 0; c < 4; c++) {
            const v = summary.valueAt(r, c);
            if (typeof v === "string" && v.startsWith("Subintervals:")) summaryWarning = v;
          }
      return {
        sheets: wb.sheets.map((x) => x.name),
        tables: wb.tables.map((t) => ({ name: t.name, rows: t.rows - 1 })),
        charts: wb.sheets.reduce((a, x) => a + x.charts.length, 0),
        requests: wb.requests.length,
        largest: Math.max(...wb.requests.map((r) => r.bytes)),
        refused: wb.requests.filter((r) => r.refused).length,
        warnings: Array.from(document.querySelectorAll("#import-status .import-warning"), (e) => e.textContent ?? ""),
        summaryWarning,
      };
    });
    const base = rec.labels.map(([t]) => t);
    const times = [...base, ...rec.ticks].sort((a, b) => a - b);
    const longest = rec.longTasks.reduce((a, b) => (b[1] > a[1] ? b : a), [0, 0]);
    const firstWrite = rec.labels.find(([, text]) => text.startsWith("Writing sheet"))?.[0] ?? t2;
    return {
      build,
      limit,
      latency,
      readSeconds: (t1 - t0) / 1000,
      importSeconds: (t2 - t1) / 1000,
      writeSeconds: (t2 - firstWrite) / 1000,
      totalSeconds: (t2 - t0) / 1000,
      maxLabelGap: longestGap(times, t0, t2),
      maxProgressGap: longestGap(base, t0, t2),
      maxBeatGap: rec.maxBeatGap,
      maxFrameGap: rec.maxFrameGap,
      longestTask: longest[1],
      longestTaskDuring: rec.labels.filter(([t]) => t <= longest[0]).at(-1)?.[1] ?? "",
      heap: rec.heap,
      memory: peaks,
      idle,
      sheets: book.sheets,
      subintervalRows: book.tables.find((t) => t.name === "Subintervals")?.rows ?? 0,
      stepsRows: book.tables.find((t) => t.name === "Steps")?.rows ?? 0,
      charts: book.charts,
      requests: book.requests,
      largestRequest: book.largest,
      refused: book.refused,
      warningsShown: book.warnings,
      summaryWarning: book.summaryWarning,
    };
  } finally {
    memory.stop();
    await s.close();
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmt = (n: number): string => Math.round(n).toLocaleString("en-US");
const sec = (n: number): string => n.toFixed(1);
const ms = (n: number): string => fmt(n);
const mib = (n: number): string => fmt(n / 1048576);

type Config = { build: string; limit: number; latency: number };

/** `caplab report FILE -o OUT.xlsx` as a user runs it (compiled CLI, plain node): wall seconds. */
function headlessReport(file: string, dir: string, index: number): number {
  const out = join(dir, `report-${index}.xlsx`);
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [join(ROOT, "bin", "caplab.js"), "report", file, "-o", out], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`caplab report exited ${String(r.status)}: ${r.stderr.slice(0, 500)}`);
  rmSync(out, { force: true });
  return seconds;
}

function report(
  rows: number,
  bytes: number,
  results: RunResult[],
  configs: Config[],
  reportSeconds: number[],
  loads: string[],
): string {
  const headless = median(reportSeconds);
  const lines = [
    `Machine: ${cpus().length} CPUs (${cpus()[0]?.model ?? "unknown CPU"}), Node ${process.version}, Chromium ` +
      `(Debian, headless), ${new Date().toISOString().slice(0, 10)}; load average (1, 5, 15 min) before ${loads[0]}, ` +
      `after ${loads[1]} (the machine is shared with other agents: times are upper bounds, the ratios are what to read).`,
    `Input: the ${fmt(rows)}-row iogen subinterval CSV of \`bench:import\` (${mib(bytes)} MiB, 50 steps × overall/read, ` +
      "seeded values; `bench/iogen-csv-file.ts`) given to the pane's file input. " +
      `${reportSeconds.length} runs, interleaved (each configuration, then \`caplab report\` on the same file), each pane ` +
      "run in a fresh browser: medians of times, largest gaps and memory of the runs. *Round trip*: what the fake " +
      "Excel's every `context.sync()` waits (`latencyMs`), as a request to Excel on the web does.",
    `\`caplab report\` on the same file (\`node bin/caplab.js report FILE -o OUT.xlsx\`): median ${sec(headless)} s ` +
      `(runs: ${reportSeconds.map(sec).join(", ")} s).`,
    "Rerun: `npm run bench:pane` (it builds dist/ and lib/ first; add `-- --write` to replace this section).",
    "",
    "| build | Subinterval rows to write | round trip | round trips (largest request bytes) | read + preview s | analyse + write s | of it writing s | total s | total ÷ `caplab report` | longest gap, progress display | heartbeat gap (50 ms timer) | longest task, median of runs (largest) | Chromium PSS (sum) MiB, peak (idle) | largest process RSS MiB, peak (idle) | main-thread JS heap MiB |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const c of configs) {
    const rs = results.filter((r) => r.build === c.build && r.limit === c.limit && r.latency === c.latency);
    const max = (f: (r: RunResult) => number): number => Math.max(...rs.map(f));
    const med = (f: (r: RunResult) => number): number => median(rs.map(f));
    lines.push(
      `| ${c.build} | ${fmt(c.limit)} | ${c.latency} ms | ${fmt(med((r) => r.requests))} (${fmt(max((r) => r.largestRequest))}) | ` +
        `${sec(med((r) => r.readSeconds))} | ${sec(med((r) => r.importSeconds))} | ` +
        `${sec(med((r) => r.writeSeconds))} | ${sec(med((r) => r.totalSeconds))} | ` +
        `**${(med((r) => r.totalSeconds) / headless).toFixed(2)}×** | ${ms(max((r) => r.maxLabelGap))} ms | ` +
        `${ms(max((r) => r.maxBeatGap))} ms | ${ms(med((r) => r.longestTask))} (${ms(max((r) => r.longestTask))}) ms | ` +
        `${mib(max((r) => r.memory.pssSum))} (${mib(med((r) => r.idle.pssSum))}) | ` +
        `${mib(max((r) => r.memory.largestRss))} (${mib(med((r) => r.idle.largestRss))}) | ` +
        `${mib(max((r) => r.heap))} |`,
    );
  }
  lines.push("");
  for (const c of configs) {
    const rs = results.filter((x) => x.build === c.build && x.limit === c.limit && x.latency === c.latency);
    const r = rs[0];
    const worst = rs.reduce((a, b) => (b.longestTask > a.longestTask ? b : a));
    lines.push(
      `- ${c.build}, ${fmt(c.limit)} at ${c.latency} ms: sheets ${r.sheets.join(", ")}; Steps ${fmt(r.stepsRows)} rows, ` +
        `Subintervals ${fmt(r.subintervalRows)} rows; ${r.charts} charts; requests refused ${r.refused}; the longest ` +
        `task (${ms(worst.longestTask)} ms) began during “${worst.longestTaskDuring}”. ` +
        (r.summaryWarning
          ? `Summary sheet warning: “${r.summaryWarning.slice(0, 160)}…”`
          : "No rows left out (no warning)."),
    );
  }
  return lines.join("\n");
}

async function main(argv: string[]): Promise<void> {
  const rows = Number(arg(argv, "--rows", "1000000"));
  const runs = Number(arg(argv, "--runs", "3"));
  const limits = arg(argv, "--limits", "1048575").split(",").map(Number);
  const latencies = arg(argv, "--latencies", "0,20,100").split(",").map(Number);
  const baseline = argv.includes("--baseline") ? arg(argv, "--baseline", "") : undefined;
  const builds = baseline ? ["this build", "baseline"] : ["this build"];
  const configs: Config[] = limits.flatMap((limit) =>
    latencies.flatMap((latency) => builds.map((build) => ({ build, limit, latency }))),
  );
  const dir = mkdtempSync(join(tmpdir(), "caplab-bench-pane-"));
  const server = await serveDist();
  const baselineServer = baseline ? await serveDist(baseline) : undefined;
  try {
    const file = join(dir, "subintervals.csv");
    process.stderr.write(`writing ${fmt(rows)}-row iogen subinterval CSV in ${dir} ...\n`);
    const bytes = await writeIogenCsv(file, rows);
    const loads = [
      loadavg()
        .map((l) => l.toFixed(1))
        .join(" "),
    ];
    const results: RunResult[] = [];
    const reportSeconds: number[] = [];
    for (let i = 0; i < runs; i++) {
      for (const c of configs) {
        process.stderr.write(
          `run ${i + 1}/${runs}, ${c.build}, limit ${fmt(c.limit)}, ${c.latency} ms per round trip ...\n`,
        );
        const url = c.build === "baseline" && baselineServer ? baselineServer.url : server.url;
        const r = await run(c.build, url, file, c.limit, c.latency);
        process.stderr.write(`${JSON.stringify({ ...r, warningsShown: r.warningsShown.length })}\n`);
        results.push(r);
      }
      process.stderr.write(`run ${i + 1}/${runs}, caplab report ...\n`);
      reportSeconds.push(headlessReport(file, dir, i));
      process.stderr.write(`caplab report: ${sec(reportSeconds[i])} s\n`);
    }
    loads.push(
      loadavg()
        .map((l) => l.toFixed(1))
        .join(" "),
    );
    const text = report(rows, bytes, results, configs, reportSeconds, loads);
    process.stdout.write(text + "\n");
    if (argv.includes("--write")) {
      const docs = join(ROOT, "docs", "benchmarks.md");
      const md = readFileSync(docs, "utf8");
      const re = /(<!-- BEGIN pane -->\n## [^\n]*\n\n)[^]*?(<!-- END pane -->)/;
      if (!re.test(md))
        throw new Error("docs/benchmarks.md has no pane section (<!-- BEGIN pane --> … <!-- END pane -->)");
      writeFileSync(
        docs,
        md.replace(re, (_, head: string, end: string) => `${head}${text}\n${end}`),
      );
      process.stderr.write("docs/benchmarks.md updated\n");
    }
  } finally {
    await server.close();
    await baselineServer?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main(process.argv.slice(2)).catch((e: unknown) => {
  process.stderr.write(`bench:pane: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
