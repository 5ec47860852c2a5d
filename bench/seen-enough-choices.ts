/**
 * The choices of this round of SEEN_ENOUGH's steady-state rule, measured where they matter: which level
 * to report (the window mean or the least-squares level at the last sample, and from which |t|), and the
 * first stopping chance (the trend limit at the floor). Same series generator, seeds and cells as
 * `npm run bench:seen-enough` (200 runs a cell, ±5 %): the slow drifts, the held-out −12 % drift, the
 * +10 % drift and a level (the edge cells), and "none" (the cost). Run:
 * `npx tsx bench/seen-enough-choices.ts` (a few minutes; `--reps N`, `--choice TEXT`, `--cell TEXT` to
 * re-run a few cells with more runs); docs/seen-enough.md quotes the table.
 */
import { MU, seriesOf } from "./seen-enough-series";
import {
  SEEN_ENOUGH_DEFAULTS,
  STEADY_STATE_TUNING,
  steadyStateRule,
  type SteadyStateTuning,
} from "../src/core/seen-enough";

const CAP = 1200;
const args = process.argv.slice(2);
const arg = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
/** `--reps N` (default 200), `--choice TEXT` and `--cell TEXT` keep the rows and columns whose label contains TEXT. */
const REPS = Number(arg("--reps") ?? 200);
const ACCURACY = 0.05;

interface Shape {
  label: string;
  offset(i: number): number;
}

const drift = (a: number, over: number): Shape => ({
  label: `drift ${a > 0 ? "+" : "−"}${Math.abs(a * 100)} % over ${over}`,
  offset: (i) => (i < over ? a * (1 - i / over) : 0),
});
const NONE: Shape = { label: "none", offset: () => 0 };
const LEVEL: Shape = { label: "level +20 % until 80", offset: (i) => (i < 80 ? 0.2 : 0) };

/** The bench's series: the same seeds, so the same runs as `npm run bench:seen-enough`. */
function series(shape: Shape, rho: number, rep: number): number[] {
  return seriesOf(shape.label, shape.offset, rho, rep, CAP);
}

const CHOICES: { label: string; tuning: SteadyStateTuning }[] = [
  {
    label: "previous default (mean, limit 1.5 from the floor)",
    tuning: { ...STEADY_STATE_TUNING, levelTrendT: Infinity, firstRamp: 0 },
  },
  { label: "fitted level from abs(t) ≥ 1", tuning: { ...STEADY_STATE_TUNING, levelTrendT: 1, firstRamp: 0 } },
  { label: "fitted level from abs(t) ≥ 0.5", tuning: { ...STEADY_STATE_TUNING, levelTrendT: 0.5, firstRamp: 0 } },
  { label: "fitted level always", tuning: { ...STEADY_STATE_TUNING, firstRamp: 0 } },
  { label: "default: fitted level always + first chance 0.8 over 20 %", tuning: { ...STEADY_STATE_TUNING } },
  {
    label: "fitted level always + first chance 0.67 over 30 %",
    tuning: { ...STEADY_STATE_TUNING, firstTrendLimit: 0.67, firstRamp: 0.3 },
  },
  { label: "mean + first chance 0.8 over 20 %", tuning: { ...STEADY_STATE_TUNING, levelTrendT: Infinity } },
];

const CELLS: [Shape, number][] = [
  [drift(0.08, 150), 0],
  [drift(-0.08, 150), 0],
  [drift(0.08, 150), 0.3],
  [drift(-0.08, 150), 0.3],
  [drift(-0.12, 150), 0.3],
  [drift(0.1, 100), 0.3],
  [LEVEL, 0],
  [NONE, 0],
  [NONE, 0.3],
  [NONE, 0.6],
];

function cell(shape: Shape, rho: number, tuning: SteadyStateTuning): string {
  let covered = 0;
  let stopped = 0;
  let atFloor = 0;
  const stops: number[] = [];
  const reps = REPS;
  const opts = { ...SEEN_ENOUGH_DEFAULTS, accuracy: ACCURACY };
  for (let rep = 0; rep < reps; rep++) {
    const x = series(shape, rho, rep);
    let at = CAP;
    let level: number | undefined;
    for (let n = tuning.minWindow; n <= CAP; n++) {
      const v = steadyStateRule(x.slice(0, n), 1, opts, tuning);
      if (v.seenEnough) {
        at = n;
        level = v.level;
        break;
      }
    }
    stops.push(at);
    if (at === tuning.minWindow) atFloor++;
    if (level === undefined) continue;
    stopped++;
    if (Math.abs(level - MU) <= ACCURACY * MU) covered++;
  }
  stops.sort((a, b) => a - b);
  const median = reps % 2 === 1 ? stops[(reps - 1) / 2] : (stops[reps / 2 - 1] + stops[reps / 2]) / 2;
  return shape === NONE
    ? `${(covered / stopped).toFixed(REPS > 200 ? 3 : 2)} / ${median} / ${(atFloor / reps).toFixed(2)}`
    : `${(covered / stopped).toFixed(REPS > 200 ? 3 : 2)} / ${median}`;
}

function main(): void {
  const t0 = Date.now();
  const cellText = arg("--cell");
  const choiceText = arg("--choice");
  const cells = CELLS.filter(([s, rho]) => cellText === undefined || `${s.label}, ρ ${rho}`.includes(cellText));
  const choices = CHOICES.filter((c) => choiceText === undefined || c.label.includes(choiceText));
  const head = ["choice", ...cells.map(([s, rho]) => `${s.label}, ρ ${rho}`)];
  console.log(`| ${head.join(" | ")} |`);
  console.log(`| ${head.map((_, i) => (i === 0 ? "---" : "---:")).join(" | ")} |`);
  for (const c of choices) {
    const row = [c.label, ...cells.map(([s, rho]) => cell(s, rho, c.tuning))];
    console.log(`| ${row.join(" | ")} |`);
  }
  console.log(
    `\nEach cell: coverage / median stop (samples); for "none" also the share of runs stopped at the floor (90). ` +
      `${REPS} runs a cell, ±${ACCURACY * 100} %, ${((Date.now() - t0) / 1000).toFixed(0)} s.`,
  );
}

main();
