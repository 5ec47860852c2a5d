/**
 * The task pane's weight and first paint in a real browser, run by `npm run bench:paint` (which
 * builds dist/ first).
 *
 * Weight: the bytes of every script and style sheet taskpane.html loads when it opens (what the
 * page's resource timing reports, office.js aside), raw and gzip -9 (what a server that
 * compresses would send), and every .js of the build.
 *
 * Time: the built pane opened in Debian's headless Chromium at 320 × 700 px with the in-memory
 * Excel of the e2e harness (tests/e2e/harness.ts) in place of office.js, a fresh browser per run,
 * from navigation start:
 * - first paint and first contentful paint (the page's `paint` performance entries);
 * - ready: the first animation frame after the status line says "Connected to Excel" (the pane's
 *   controls are drawn and it has heard from Office), recorded in the page by a MutationObserver.
 *
 * Builds can be compared: `--build before=/tmp/old-dist --build after=dist` runs them interleaved
 * (before, after, before, …) so that the machine's load falls on both alike; medians of the runs.
 *
 *   npm run bench:paint [-- --runs 7] [--build label=dir ...] [--write]
 *
 * --write replaces the paint section of docs/benchmarks.md (between its BEGIN/END paint markers).
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { basename, join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { DIST, openPane, ROOT, serveDist } from "../tests/e2e/harness";

/** Records, in the page, when the status line first says the pane is connected (next frame). */
const RECORDER = `(() => {
  const rec = { ready: 0 };
  window.__paint = rec;
  const check = () => {
    const s = document.getElementById("status");
    if (rec.ready || !s || !/Connected to Excel/.test(s.textContent || "")) return;
    rec.ready = -1;
    requestAnimationFrame(() => { rec.ready = performance.now(); });
  };
  new MutationObserver(check).observe(document, { subtree: true, childList: true, characterData: true });
})();`;

interface Run {
  build: string;
  firstPaint: number;
  firstContentfulPaint: number;
  ready: number;
  /** What the page loaded from its own origin: [file, bytes]. */
  loaded: [string, number][];
}

async function run(label: string, url: string): Promise<Run> {
  const s = await openPane(url, { width: 320, height: 700, initScript: RECORDER });
  try {
    const { page } = s;
    await page.waitForFunction(() => ((window as unknown as { __paint: { ready: number } }).__paint?.ready ?? 0) > 0);
    // No named functions inside evaluate: tsx (esbuild keepNames) would wrap them in __name().
    const got = await page.evaluate(() => {
      const paints = performance.getEntriesByType("paint");
      const loaded = (performance.getEntriesByType("resource") as PerformanceResourceTiming[])
        .filter((e) => e.name.startsWith(location.origin) && /\.(js|css)$/.test(new URL(e.name).pathname))
        .map((e) => [new URL(e.name).pathname.slice(1), e.decodedBodySize] as [string, number]);
      return {
        firstPaint: paints.find((e) => e.name === "first-paint")?.startTime ?? NaN,
        firstContentfulPaint: paints.find((e) => e.name === "first-contentful-paint")?.startTime ?? NaN,
        ready: (window as unknown as { __paint: { ready: number } }).__paint.ready,
        loaded,
      };
    });
    if (s.consoleErrors.length > 0) throw new Error(`${label}: the pane logged ${s.consoleErrors.join("; ")}`);
    return { build: label, ...got };
  } finally {
    await s.close();
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmt = (n: number): string => Math.round(n).toLocaleString("en-US");
const kib = (n: number): string => (n / 1024).toFixed(1);
const gz = (file: string): number => gzipSync(readFileSync(file), { level: 9 }).length;

function report(builds: [string, string][], runs: Run[], loads: string[]): string {
  const n = runs.length / builds.length;
  const lines = [
    `Machine: ${cpus().length} CPUs (${cpus()[0]?.model ?? "unknown CPU"}), Node ${process.version}, Chromium ` +
      `(Debian, headless), ${new Date().toISOString().slice(0, 10)}; load average before ${loads[0]}, after ${loads[1]} ` +
      "(the machine is shared: times are upper bounds).",
    `The built pane at 320 × 700 px with the in-memory Excel in place of office.js; ${n} runs per build, ` +
      "interleaved, each in a fresh browser; times from navigation start, median (min–max).",
    "Rerun: `npm run bench:paint` (it builds dist/ first; `-- --build before=DIR --build after=dist` compares builds; " +
      "`-- --write` replaces this section).",
    "",
    "| build | loaded at open: JS + CSS KiB (gzip) | first paint ms | first contentful paint ms | ready ms |",
    "|---|---:|---:|---:|---:|",
  ];
  for (const [label, dir] of builds) {
    const rs = runs.filter((r) => r.build === label);
    const files = rs[0].loaded.map(([f]) => f);
    const raw = files.reduce((a, f) => a + statSync(join(dir, f)).size, 0);
    const zipped = files.reduce((a, f) => a + gz(join(dir, f)), 0);
    const cell = (f: (r: Run) => number): string => {
      const xs = rs.map(f);
      return `${fmt(median(xs))} (${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))})`;
    };
    lines.push(
      `| ${label} | ${kib(raw)} (${kib(zipped)}) | ${cell((r) => r.firstPaint)} | ${cell((r) => r.firstContentfulPaint)} | ` +
        `${cell((r) => r.ready)} |`,
    );
  }
  lines.push("");
  for (const [label, dir] of builds) {
    const loaded = new Set(runs.find((r) => r.build === label)!.loaded.map(([f]) => f));
    const js = readdirSync(dir)
      .filter((f) => f.endsWith(".js"))
      .sort();
    lines.push(
      `- ${label}: ` +
        js
          .map((f) => {
            const size = kib(statSync(join(dir, f)).size);
            return `${f}${loaded.has(f) ? " (at open)" : ""} ${size} KiB (gzip ${kib(gz(join(dir, f)))})`;
          })
          .join(", ") +
        "; taskpane.css " +
        `${kib(statSync(join(dir, "taskpane.css")).size)} KiB.`,
    );
  }
  return lines.join("\n");
}

async function main(argv: string[]): Promise<void> {
  const runs = Number(argv.includes("--runs") ? argv[argv.indexOf("--runs") + 1] : "7");
  const builds: [string, string][] = [];
  argv.forEach((a, i) => {
    if (a !== "--build") return;
    const spec = argv[i + 1] ?? "";
    const eq = spec.indexOf("=");
    if (eq <= 0) throw new Error(`--build wants label=dir, got "${spec}"`);
    builds.push([spec.slice(0, eq), resolve(spec.slice(eq + 1))]);
  });
  if (builds.length === 0) builds.push([basename(DIST), DIST]);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs wants a whole number ≥ 1, got ${runs}`);
  const servers = await Promise.all(builds.map(([, dir]) => serveDist(dir)));
  const loads = [
    loadavg()
      .map((l) => l.toFixed(1))
      .join(" "),
  ];
  const results: Run[] = [];
  try {
    for (let i = 0; i < runs; i++)
      for (const [k, [label]] of builds.entries()) {
        const r = await run(label, servers[k].url);
        process.stderr.write(`run ${i + 1}/${runs} ${label}: ${JSON.stringify({ ...r, loaded: undefined })}\n`);
        results.push(r);
      }
  } finally {
    await Promise.all(servers.map((s) => s.close()));
  }
  loads.push(
    loadavg()
      .map((l) => l.toFixed(1))
      .join(" "),
  );
  const text = report(builds, results, loads);
  process.stdout.write(text + "\n");
  if (argv.includes("--write")) {
    const docs = join(ROOT, "docs", "benchmarks.md");
    const md = readFileSync(docs, "utf8");
    const re = /(<!-- BEGIN paint -->\n## [^\n]*\n\n)[^]*?(<!-- END paint -->)/;
    if (!re.test(md))
      throw new Error("docs/benchmarks.md has no paint section (<!-- BEGIN paint --> … <!-- END paint -->)");
    writeFileSync(
      docs,
      md.replace(re, (_, head: string, end: string) => `${head}${text}\n${end}`),
    );
    process.stderr.write("docs/benchmarks.md updated\n");
  }
}

main(process.argv.slice(2)).catch((e: unknown) => {
  process.stderr.write(`bench:paint: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
