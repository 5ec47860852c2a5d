/**
 * Generates the inputs of tests/vectors/seen_enough.json: SEEN_ENOUGH cases shared by the
 * TypeScript core (Jest, tests/core/seen-enough.test.ts) and the Rust IO generator, which both
 * implement the rule of docs/functions/SEEN_ENOUGH.md. The expected answers are NOT computed here:
 * tests/vectors/expect-seen-enough.py, an independent implementation of the documented rule
 * (Python, SciPy's t quantile, every window recomputed from scratch), fills them in, so neither
 * implementation under test wrote its own reference. Run both:
 *
 *     npx tsx tests/vectors/generate-seen-enough.ts && python3 tests/vectors/expect-seen-enough.py
 *
 * Seeded (seedrandom, one seed string per case), so the file is reproducible. Numbers are written by
 * JSON.stringify, i.e. the shortest decimal that round-trips the double (full precision); samples are
 * rounded to 4 decimals first so every reader parses exactly the same doubles.
 *
 * Tolerances for readers: `from`, `samples`, `seen_enough` exact; floats 1e-9 relative. To make that
 * safe the Python script refuses "knife-edge" cases: every window tried before the answer must miss
 * the accuracy by more than 1e-6 relative, and the passing window must beat it by more than 1e-6 (so
 * a last-bit difference in a t quantile cannot flip a decision).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import seedrandom from "seedrandom";
import type { SeenEnoughMethod, SeenEnoughTransient } from "../../src/core/seen-enough";

interface Case {
  name: string;
  samples: number[];
  accuracy: number;
  confidence: number;
  min_samples: number;
  method: SeenEnoughMethod;
  transient: SeenEnoughTransient;
  subinterval_s?: number;
}

const round4 = (v: number): number => Math.round(v * 1e4) / 1e4;

function normals(seed: string): () => number {
  const rng = seedrandom(seed);
  return () => {
    const u = 1 - rng();
    const v = rng();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  };
}

/** AR(1) around `mean` with innovation SD `sigma`, stationary start. */
function ar1(seed: string, n: number, mean: number, rho: number, sigma: number): number[] {
  const z = normals(seed);
  let d = (z() * sigma) / Math.sqrt(1 - rho * rho);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    out.push(round4(mean + d));
    d = rho * d + sigma * z();
  }
  return out;
}

function noisy(seed: string, base: (i: number) => number, n: number, sigma: number): number[] {
  const z = normals(seed);
  return Array.from({ length: n }, (_, i) => round4(base(i) + sigma * z()));
}

const ISSUE = [100, 102, 98, 101, 99, 100, 101, 99, 100, 100];
const METHODS: SeenEnoughMethod[] = ["iid", "ivy", "ar1"];
const cases: Case[] = [];
/** Every case below runs twice: with the transient check off (the precision rule) and on (default). */
const add = (
  name: string,
  samples: number[],
  method: SeenEnoughMethod,
  accuracy = 0.05,
  confidence = 0.95,
  minSamples = 5,
): void => {
  cases.push({ name, samples, accuracy, confidence, min_samples: minSamples, method, transient: "off" });
  cases.push({
    name: `${name} [detect]`,
    samples,
    accuracy,
    confidence,
    min_samples: minSamples,
    method,
    transient: "detect",
  });
};

// The three worked examples of docs/functions/SEEN_ENOUGH.md, and the same series under "ar1" (too short: whole series, FALSE).
add("issue example 1 (ivy, 5%)", ISSUE, "ivy", 0.05, 0.95, 4);
add("issue example 2 (iid, 1%)", ISSUE, "iid", 0.01, 0.95, 4);
add("issue example 3 (ivy, 1%, no window passes)", ISSUE, "ivy", 0.01, 0.95, 4);
add("issue series, ar1 (shorter than 30: not seen enough)", ISSUE, "ar1", 0.01, 0.95, 4);

// Stationary AR(1) noise, each method.
for (const rho of [0, 0.5, 0.9]) {
  for (const method of METHODS) {
    add(`AR(1) rho ${rho}, 120 samples, ${method}`, ar1(`ar1|${rho}`, 120, 1000, rho, 200 * (1 - rho)), method);
  }
}
add("AR(1) rho 0.3, 200 samples, ar1, 2%", ar1("ar1|0.3|long", 200, 5000, 0.3, 300), "ar1", 0.02);
add("AR(1) rho 0.6, 60 samples, ar1, 99%", ar1("ar1|0.6|short", 60, 250, 0.6, 8), "ar1", 0.05, 0.99);
add("AR(1) rho 0, 40 samples, iid, 90%, min 10", ar1("ar1|0|mid", 40, 80, 0, 10), "iid", 0.05, 0.9, 10);

// Trends: a steady climb never settles (FALSE, smallest h), a warm-up ramp that then levels off.
for (const method of METHODS) {
  add(
    `linear trend, ${method}`,
    noisy("trend", (i) => 100 + 2 * i, 60, 3),
    method,
    0.02,
  );
  add(
    `ramp then plateau, ${method}`,
    noisy("ramp", (i) => (i < 20 ? 500 + 25 * i : 1000), 90, 20),
    method,
  );
}

// Steps: the level jumps; windows reaching back across the step are wide.
for (const method of METHODS) {
  add(
    `step up at 40, ${method}`,
    noisy("step", (i) => (i < 40 ? 800 : 1200), 80, 15),
    method,
    0.02,
  );
}
add(
  "step down at 50, ar1, min 10",
  noisy("stepdown", (i) => (i < 50 ? 3000 : 2000), 90, 40),
  "ar1",
  0.01,
  0.95,
  10,
);

// Constant series: s = 0, h = 0 (the first candidate window passes); "ar1" takes r = 0.
add("constant 40 samples, iid", Array(40).fill(250), "iid");
add("constant 40 samples, ar1", Array(40).fill(250), "ar1");
add("constant 3 samples, ivy (shorter than min_samples)", [7, 7, 7], "ivy");

// Short series.
add("two samples, iid, min 2", [100, 101], "iid", 0.05, 0.95, 2);
add("four samples, iid, min 5 (too short)", [100, 101, 99, 100], "iid");
add(
  "twelve samples, ar1 (too short)",
  noisy("short", () => 40, 12, 1),
  "ar1",
);
add("one sample (error)", [100], "iid");
add("no samples (error)", [], "ar1");

// Zero and negative means.
add("all zero (error)", Array(10).fill(0), "iid");
add("alternating +1/-1: even windows have mean 0", [1, -1, 1, -1, 1, -1, 1, -1, 1], "iid", 0.05, 0.95, 2);
add(
  "negative mean, iid",
  noisy("neg", () => -500, 30, 10),
  "iid",
);
add("negative mean, ar1", ar1("neg|ar1", 60, -500, 0.4, 10), "ar1");

// Options at the edges.
add("min_samples 40 larger than ar1's 30", ar1("min40", 70, 100, 0.2, 5), "ar1", 0.05, 0.95, 40);
add(
  "loose accuracy 20%, confidence 80% (ivy menu)",
  noisy("loose", () => 100, 25, 30),
  "ivy",
  0.2,
  0.8,
  5,
);
add("bad accuracy 0 (error)", ISSUE, "iid", 0);
add("bad confidence 1 (error)", ISSUE, "iid", 0.05, 1);
add("bad min_samples 0 (error)", ISSUE, "iid", 0.05, 0.95, 0);

// Warm-up transients, long enough for the steady-state rule (at least 90 samples after the warm-up).
for (const method of METHODS) {
  add(
    `decay from +30 %, time constant 20, 260 samples, ${method}`,
    ar1(`decay|${method}`, 260, 0, 0.3, 60).map((e, i) => round4(1000 * (1 + 0.3 * Math.exp(-i / 20)) + e)),
    method,
  );
}
add(
  "level +20 % for 60 samples then 200 steady, ar1",
  noisy("level60", (i) => (i < 60 ? 1200 : 1000), 260, 40),
  "ar1",
);
add(
  "ramp from -30 % over 100 samples then 150 steady, ar1, 2%",
  noisy("ramp100", (i) => (i < 100 ? 1000 * (0.7 + 0.003 * i) : 1000), 250, 30),
  "ar1",
  0.02,
);
add(
  "still drifting (+0.1 % per sample), ar1",
  noisy("drift", (i) => 1000 * (1 + 0.001 * i), 200, 10),
  "ar1",
);
add("AR(1) rho 0.6, 300 samples, ar1, 2%", ar1("ar1|0.6|300", 300, 1000, 0.6, 32), "ar1", 0.02);
add("steady 120 samples, min_samples 150 (too short)", ar1("min150", 120, 100, 0.2, 2), "ar1", 0.05, 0.95, 150);
add("steady 200 samples, min_samples 150", ar1("min150b", 200, 100, 0.2, 2), "ar1", 0.05, 0.95, 150);
add("constant 100 samples, ar1", Array(100).fill(250), "ar1");
add("tiny values (1e-200), iid, min 2", [1e-200, 2e-200, 3e-200, 1e-200, 2e-200], "iid", 0.05, 0.95, 2);
add(
  "tiny values (1e-200 scale), 120 samples, ar1",
  ar1("tiny", 120, 1000, 0.3, 40).map((v) => v * 1e-203),
  "ar1",
);
add(
  "huge values (1e300 scale), 120 samples, ar1",
  ar1("huge", 120, 1000, 0.3, 40).map((v) => v * 1e297),
  "ar1",
);
add(
  "negative mean with a warm-up, 200 samples, ar1",
  noisy("negwarm", (i) => (i < 30 ? -700 : -500), 200, 10),
  "ar1",
);

// The look back and the significance test on MSER-5's truncation: one drifting series (+8 % falling
// to the level over 150 samples, noise 8 %) cut at several lengths, judged at ±2 % (some cuts pass
// steps 1–4 but not an earlier point); steady noise cut at 90 samples, where MSER-5 often finds a
// truncation that is not significant.
const drift8 = ar1("drift8c", 160, 0, 0.3, 80).map((e, i) =>
  round4(1000 * (1 + (i < 150 ? 0.08 * (1 - i / 150) : 0)) + e),
);
for (const n of [90, 93, 96, 99, 105, 110, 115, 120, 125, 130, 135, 140, 150, 160]) {
  add(`drift +8 % over 150, cut at ${n}, ar1, 2%`, drift8.slice(0, n), "ar1", 0.02);
}
for (const seed of [1, 2, 3, 4, 5, 6]) {
  add(`steady noise 8 %, 90 samples, seed ${seed}, ar1`, ar1(`steady90|${seed}`, 90, 1000, 0.3, 80), "ar1");
}

// The floor in time, the report and the warnings (detect only): subinterval_s given.
const timed = (name: string, samples: number[], subintervalS: number, accuracy = 0.05, minSamples = 5): void => {
  cases.push({
    name: `${name} [detect, ${subintervalS} s]`,
    samples,
    accuracy,
    confidence: 0.95,
    min_samples: minSamples,
    method: "ar1",
    transient: "detect",
    subinterval_s: subintervalS,
  });
};
// A write warm-up sampled every 100 ms: 30 % low for 65 s, then steady; 90 s are 900 samples.
const warm100 = (n: number): number[] =>
  ar1("warm100", n, 0, 0.5, 40).map((e, i) => round4((i < 650 ? 700 : 1000) + e));
for (const n of [300, 899, 900, 1200, 1600, 2000]) timed(`warm-up 65 s at 100 ms, cut at ${n / 10} s`, warm100(n), 0.1);
timed("warm-up 65 s at 100 ms, 1600 samples, read as 1-s subintervals", warm100(1600), 1);
timed("steady at 100 ms, 950 samples", ar1("steady100", 950, 1000, 0.5, 40), 0.1);
timed("steady, 0.3-s subintervals: 90 s are 300 samples, 310 samples", ar1("steady300", 310, 1000, 0.3, 60), 0.3);
timed("steady, 2-s subintervals: the 90-sample floor binds", ar1("steady2s", 120, 1000, 0.3, 60), 2);
timed("steady, 0.5-s subintervals, min_samples 250 binds", ar1("steady05", 260, 1000, 0.3, 60), 0.5, 0.05, 250);
// Noise that shrinks: ±30 % for 100 s then ±1 %, 0.5-s subintervals.
const shrink = (n: number): number[] =>
  noisy("shrink", () => 0, n, 1).map((z, i) => round4(1000 + (i < 200 ? 300 : 10) * z));
for (const n of [200, 260, 320, 400, 600])
  timed(`noise shrinking after 100 s, 0.5 s, cut at ${n / 2} s`, shrink(n), 0.5);
// Stalls: two subintervals at a tenth of the level in steady ±1 % noise.
timed(
  "steady ±1 % with two stalls, 1 s",
  noisy("stalls", () => 1000, 200, 10).map((v, i) => (i === 120 || i === 170 ? round4(v / 10) : v)),
  1,
);
timed(
  "steady ±1 %, no stall, 1 s",
  noisy("stalls", () => 1000, 200, 10),
  1,
);
timed("bad subinterval_s 0 (error)", ISSUE, 0);
timed("bad subinterval_s -1 (error)", ISSUE, -1);

// Why not: one case a refusal of the detect rule, each made to fail that check (the look-back
// refusals are among the drift cuts above; the "off" twin of each is judged by precision alone).
add("why not: too few samples (60 steady samples)", ar1("whynot|few", 60, 1000, 0.3, 30), "ar1");
add(
  "why not: warm-up not over (30 % high for 130 of 200 samples)",
  noisy("whynot|warm", (i) => (i < 130 ? 1300 : 1000), 200, 20),
  "ar1",
);
add(
  "why not: window too short (a ramp from -30 % over the first 30 of 110 samples)",
  noisy("whynot|short", (i) => (i < 30 ? 700 + 10 * i : 1000), 110, 20),
  "ar1",
);
add(
  "why not: level moving (steady for 150 samples, then +0.1 % a sample for 60; noise 1 %)",
  noisy("whynot|moving", (i) => 1000 * (1 + 0.001 * Math.max(0, i - 150)), 210, 10),
  "ar1",
);
add("why not: not precise enough (steady, noise 40 %, 150 samples)", ar1("whynot|noisy", 150, 1000, 0, 400), "ar1");

// Real series recorded on the development machine (tests/fixtures/steady-state-real/README.md), cut
// at a few lengths and judged with their subinterval length: fio iops logs (time, value, …) and
// iogen's subinterval CSV (the overall rows' iops).
const REAL = join(__dirname, "..", "fixtures", "steady-state-real");
const realSeries = (file: string): number[] => {
  const lines = readFileSync(join(REAL, file), "utf8").trim().split("\n");
  const column = lines[0].startsWith("subinterval") ? 3 : 1;
  return lines.slice(lines[0].startsWith("subinterval") ? 1 : 0).map((l) => Number(l.split(",")[column]));
};
const perSecond = (x: number[]): number[] =>
  Array.from(
    { length: Math.floor(x.length / 10) },
    (_, i) => x.slice(10 * i, 10 * i + 10).reduce((a, b) => a + b, 0) / 10,
  );
for (const [file, cuts] of [
  ["fio-fresh-4g-100ms-a.log", [450, 900, 1500, 2363]],
  ["fio-sparse-2g-100ms-c.log", [900, 1659]],
  ["iogen-2g-100ms.csv", [900, 1500]],
  ["fio-capped-2g-100ms-e.log", [90, 899, 900, 1445]],
  // Quiet machine: a fresh 8 GiB file's warm-up (F), a disturber for the first 100 s (H).
  ["fio-fresh-8g-100ms-f.log", [330, 900, 1200, 1513, 2994]],
  ["fio-disturbed-2g-100ms-h.log", [900, 1300, 1700, 2391]],
] as const) {
  const x = realSeries(file);
  for (const n of cuts) timed(`real: ${file}, first ${n} samples`, x.slice(0, n), 0.1);
  const s = perSecond(x);
  timed(`real: ${file} read at 1 s (means of 10), all ${s.length}`, s.map(round4), 1);
}
for (const file of ["fio-fresh-4g-1s-b.log", "iogen-2g-1s.csv", "fio-fresh-8g-1s-g.log"])
  timed(`real: ${file}, all`, realSeries(file), 1);

// Inputs only; expect-seen-enough.py adds "expected" to every case.
const out = cases;

const doc = {
  description:
    "SEEN_ENOUGH test vectors (docs/functions/SEEN_ENOUGH.md): inputs from tests/vectors/generate-seen-enough.ts " +
    "(seeded), expected answers from tests/vectors/expect-seen-enough.py (an independent implementation of the " +
    "documented rule). Checked by tests/core/seen-enough.test.ts and by the Rust IO generator. seen_enough, from (1-based) " +
    "and samples must match exactly; mean, achieved and required to 1e-9 relative. An expected.error case must " +
    "fail (the message names the argument; its wording need not match).",
  cases: out,
};
const path = join(__dirname, "seen_enough.json");
writeFileSync(path, JSON.stringify(doc, null, 2) + "\n");
console.log(`wrote ${out.length} cases (inputs) to ${path}; now run python3 tests/vectors/expect-seen-enough.py`);
