/**
 * Replays the real series of tests/fixtures/steady-state-real/ through SEEN_ENOUGH, one subinterval at
 * a time as iogen asks it, at 100 ms and at 1 s (the same run's means of 10), with the floor in time
 * (the subinterval length known) and with the floor in samples only. Prints a Markdown table
 * (docs/seen-enough.md quotes it) and writes docs/seen-enough/real-replay.json, which
 * bench/seen-enough-plots.py draws. Run: `npx tsx bench/seen-enough-real.ts`.
 */
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { seenEnough, type SeenEnoughOptions, type SeenEnoughWhyNot } from "../src/core/seen-enough";

const DIR = join(__dirname, "..", "tests", "fixtures", "steady-state-real");
const OUT = join(__dirname, "..", "docs", "seen-enough");

function realSeries(file: string): number[] {
  const lines = readFileSync(join(DIR, file), "utf8").trim().split("\n");
  if (lines[0].startsWith("subinterval")) return lines.slice(1).map((l) => Number(l.split(",")[3]));
  return lines.map((l) => Number(l.split(",")[1]));
}

function perSecond(x: readonly number[]): number[] {
  return Array.from(
    { length: Math.floor(x.length / 10) },
    (_, i) => x.slice(10 * i, 10 * i + 10).reduce((a, b) => a + b, 0) / 10,
  );
}

interface Outcome {
  stopSample: number | null;
  stopSeconds: number | null;
  fromSeconds: number;
  fromLowSeconds: number;
  fromHighSeconds: number;
  level: number;
  levelAchieved: number;
  mean: number;
  achieved: number;
  minWindow: number;
  /** First time (s) each warning was raised. */
  warnings: Record<string, number>;
  finalWarnings: string[];
  /** Why the last answer is FALSE (null when it stopped). */
  whyNot: SeenEnoughWhyNot | null;
}

/** A FALSE answer's reason, short, for the table: the refusal, its figure and limit. */
function shortWhyNot(w: SeenEnoughWhyNot | null, n: number): string {
  if (w === null) return "";
  const p = (v: number): string => `${(100 * v).toFixed(1)} %`;
  const figures: Record<SeenEnoughWhyNot["refusal"], string> = {
    "too few samples": `${w.value} < ${w.limit}`,
    "warm-up not over": `start at ${w.value + 1}, past the middle ${w.limit}`,
    "window too short": `${w.value} < ${w.limit}`,
    "level moving": `t = ${w.value.toFixed(2)}, limit ${w.limit.toFixed(2)}`,
    "not precise enough": `±${p(w.value)} > ±${p(w.limit)}`,
  };
  return `${w.refusal} (${figures[w.refusal]}${w.at < n ? `, on the first ${w.at}` : ""})`;
}

function replay(x: readonly number[], dt: number, options: SeenEnoughOptions): Outcome {
  const warnings: Record<string, number> = {};
  let last = seenEnough(x.slice(0, 2), options);
  let stop: number | null = null;
  for (let n = 2; n <= x.length; n++) {
    last = seenEnough(x.slice(0, n), options);
    for (const w of last.warnings) warnings[w] ??= n * dt;
    if (last.seenEnough) {
      stop = n;
      break;
    }
  }
  return {
    stopSample: stop,
    stopSeconds: stop === null ? null : stop * dt,
    fromSeconds: (last.from - 1) * dt,
    fromLowSeconds: (last.fromLow - 1) * dt,
    fromHighSeconds: (last.fromHigh - 1) * dt,
    level: last.level,
    levelAchieved: last.levelAchieved,
    mean: last.mean,
    achieved: last.achieved,
    minWindow: last.minWindow,
    warnings,
    finalWarnings: last.warnings,
    whyNot: last.whyNot,
  };
}

const SERIES: { file: string; dt: number; label: string }[] = [
  { file: "fio-fresh-4g-100ms-a.log", dt: 0.1, label: "A: fio, fresh 4 GiB file" },
  { file: "fio-fresh-4g-100ms-d.log", dt: 0.1, label: "D: fio, fresh 4 GiB file (A repeated)" },
  { file: "fio-sparse-2g-100ms-c.log", dt: 0.1, label: "C: fio, sparse 2 GiB file" },
  { file: "fio-capped-2g-100ms-e.log", dt: 0.1, label: "E: fio, fresh 2 GiB file, capped at 3,000 IOPS" },
  { file: "iogen-2g-100ms.csv", dt: 0.1, label: "iogen, new 2 GiB file" },
  { file: "fio-fresh-8g-100ms-f.log", dt: 0.1, label: "F: fio, fresh 8 GiB file, quiet machine" },
  { file: "fio-disturbed-2g-100ms-h.log", dt: 0.1, label: "H: fio, a disturber for the first 100 s (noise shrinks)" },
  { file: "fio-fresh-4g-1s-b.log", dt: 1, label: "B: fio, fresh 4 GiB file, 1-s log" },
  { file: "iogen-2g-1s.csv", dt: 1, label: "iogen, new 2 GiB file, 1-s subintervals" },
  { file: "fio-fresh-8g-1s-g.log", dt: 1, label: "G: fio, fresh 8 GiB file, 1-s log, quiet machine" },
];

function main(): void {
  const results: Record<string, unknown>[] = [];
  const rows: string[] = [
    "| series | read at | samples | stops (floor in time) | window from (earliest–latest) | level ± | stops with the floor in samples only | warnings (first raised) | why not, at the end |",
    "| --- | --- | ---: | --- | --- | --- | --- | --- | --- |",
  ];
  for (const s of SERIES) {
    const x = realSeries(s.file);
    const readings =
      s.dt === 0.1
        ? [
            { dt: 0.1, y: x },
            { dt: 1, y: perSecond(x) },
          ]
        : [{ dt: s.dt, y: x }];
    for (const { dt, y } of readings) {
      const timed = replay(y, dt, { subintervalSeconds: dt });
      const samplesOnly = replay(y, dt, {});
      results.push({ ...s, readAt: dt, samples: y.length, timed, samplesOnly });
      const stop = (o: Outcome): string => (o.stopSeconds === null ? "never" : `at ${o.stopSeconds.toFixed(1)} s`);
      const warned = Object.entries(timed.warnings)
        .map(([w, t]) => `${w} (${t.toFixed(1)} s)`)
        .join(", ");
      rows.push(
        `| ${s.label} | ${dt === 0.1 ? "100 ms" : "1 s"}${dt !== s.dt ? " (means of 10)" : ""} | ${y.length} | ${stop(timed)} | ` +
          `${timed.fromSeconds.toFixed(1)} s (${timed.fromLowSeconds.toFixed(1)}–${timed.fromHighSeconds.toFixed(1)}) | ` +
          `${timed.level.toFixed(0)} ± ${(100 * timed.levelAchieved).toFixed(1)} % | ${stop(samplesOnly)} | ${warned || "none"} | ` +
          `${shortWhyNot(timed.whyNot, y.length) || "(stopped)"} |`,
      );
    }
  }
  mkdirSync(OUT, { recursive: true });
  writeFileSync(join(OUT, "real-replay.json"), JSON.stringify(results, null, 1) + "\n");
  console.log(rows.join("\n"));
}

main();
