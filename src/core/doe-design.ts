/**
 * DOE_DESIGN: full factorial run sheets. Pure; throws only DomainError.
 */
import seedrandom from "seedrandom";
import { DomainError } from "./errors";

export interface DoeFactor {
  /** Column name (the IO generator's plan files read the same names). */
  name: string;
  /** Its levels (2 or more, distinct). */
  levels: readonly (string | number)[];
}

export interface DoeDesignOptions {
  /** Number of replicates of the full factorial, a whole number ≥ 1 (default 1). */
  replications?: number;
  /** Shuffle each replicate's runs (default true). */
  randomize?: boolean;
  /** PRNG seed, a whole number (default 1); the same seed gives the same run order. */
  seed?: number;
}

export interface DoeRun {
  /** 1-based run number (row order of the sheet). */
  run: number;
  /** 1-based position in standard order (first factor varying fastest). */
  stdOrder: number;
  /** 1-based replicate. */
  replicate: number;
  /** One level per factor, in the factors' order. */
  levels: (string | number)[];
}

/** Largest design generated (runs), to keep a worksheet responsive. */
export const DOE_DESIGN_MAX_RUNS = 100_000;

/**
 * Full factorial run sheet like DoE.base's `fac.design`: every combination of the factors' levels,
 * in standard order with the FIRST factor varying fastest (stdOrder 1 … N, N = Π levels), repeated
 * for each replicate. With `randomize`, each replicate's runs are shuffled separately (Fisher–Yates
 * driven by seedrandom's ARC4 generator seeded with "caplab-doe|<seed>|<replicate>"), so a seed
 * reproduces the sheet exactly. R's run order cannot be reproduced (R uses its own generator and
 * DoE.base its own shuffling); only the set of runs matches. Cost O(N · replications · factors).
 *
 * @param factors Factors with names (unique, non-empty) and ≥ 2 distinct levels each.
 * @param options.replications Whole number ≥ 1 (default 1). options.randomize (default true).
 *   options.seed whole number (default 1).
 * @returns The runs, in run order.
 * @throws DomainError("factors_and_levels", …) for no factors, a bad name, < 2 or repeated levels, or
 *   more than 100 000 runs; DomainError("replications" | "seed", …).
 * @example
 * doeDesign([{ name: "A", levels: [0, 100] }, { name: "B", levels: ["fc", "nfs"] }], { randomize: false })
 *   .map((r) => r.levels); // => [[0, "fc"], [100, "fc"], [0, "nfs"], [100, "nfs"]]
 */
export function doeDesign(factors: readonly DoeFactor[], options: DoeDesignOptions = {}): DoeRun[] {
  const replications = options.replications ?? 1;
  const randomize = options.randomize ?? true;
  const seed = options.seed ?? 1;
  const arg = "factors_and_levels";
  if (factors.length === 0) throw new DomainError(arg, "needs at least one factor (a column with a name)", "value");
  const names = new Set<string>();
  for (const f of factors) {
    if (f.name.trim() === "")
      throw new DomainError(arg, "a factor has an empty name (first row holds the names)", "value");
    if (names.has(f.name)) throw new DomainError(arg, `factor name "${f.name}" appears twice`, "value");
    names.add(f.name);
    if (f.levels.length < 2) {
      throw new DomainError(arg, `factor "${f.name}" needs 2 or more levels, got ${f.levels.length}`, "value");
    }
    const seen = new Set(f.levels.map((v) => `${typeof v}:${v}`));
    if (seen.size !== f.levels.length) throw new DomainError(arg, `factor "${f.name}" repeats a level`, "value");
  }
  if (!Number.isInteger(replications) || replications < 1) {
    throw new DomainError("replications", `must be a whole number ≥ 1, got ${replications}`, "num");
  }
  if (!Number.isInteger(seed)) throw new DomainError("seed", `must be a whole number, got ${seed}`, "num");
  const perReplicate = factors.reduce((p, f) => p * f.levels.length, 1);
  if (perReplicate * replications > DOE_DESIGN_MAX_RUNS) {
    throw new DomainError(arg, `gives ${perReplicate * replications} runs, more than ${DOE_DESIGN_MAX_RUNS}`, "num");
  }
  const runs: DoeRun[] = [];
  for (let rep = 1; rep <= replications; rep++) {
    const order = Array.from({ length: perReplicate }, (_, i) => i);
    if (randomize) {
      const rng = seedrandom(`caplab-doe|${seed}|${rep}`);
      for (let i = order.length - 1; i > 0; i--) {
        const j = Math.floor(rng() * (i + 1));
        [order[i], order[j]] = [order[j], order[i]];
      }
    }
    for (const idx of order) {
      const levels: (string | number)[] = [];
      let rest = idx;
      for (const f of factors) {
        levels.push(f.levels[rest % f.levels.length]);
        rest = Math.floor(rest / f.levels.length);
      }
      runs.push({ run: runs.length + 1, stdOrder: idx + 1, replicate: rep, levels });
    }
  }
  return runs;
}
