/**
 * The SEEN_ENOUGH benches' synthetic series, in one place so every bench sees the same runs: level
 * MU × (1 + offset(i)) plus AR(1) noise of standard deviation SD and lag-one correlation ρ, seeded by
 * the class label, ρ and the run number (the seeds of `npm run bench:seen-enough`).
 */
import seedrandom from "seedrandom";

/** The steady level and the noise's standard deviation (8 %). */
export const MU = 1000;
export const SD = 80;

/** Run `rep` of the class `label` (whose level moves by `offset(i)`) at correlation ρ: `length` samples. */
export function seriesOf(
  label: string,
  offset: (i: number) => number,
  rho: number,
  rep: number,
  length: number,
): number[] {
  const rng = seedrandom(`caplab-seen-enough|${label}|${rho}|${rep}`);
  const normal = (): number => {
    const u = 1 - rng();
    const v = rng();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  };
  const sigmaE = SD * Math.sqrt(1 - rho * rho);
  const x: number[] = [];
  let dev = normal() * SD;
  for (let i = 0; i < length; i++) {
    x.push(MU * (1 + offset(i)) + dev);
    dev = rho * dev + sigmaE * normal();
  }
  return x;
}
