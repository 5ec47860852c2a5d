/**
 * Whole-server sizing on 12 significant digits (src/core/sheet-sizing.ts). The reference is exact
 * rational arithmetic on the decimal inputs (BigInt numerators over powers of ten), which no
 * binary rounding touches: round inputs must give exactly the exact answer.
 */
import { round12, serversForUtilization, staffForTarget } from "../../src/core/sheet-sizing";
import { isDomainError } from "../../src/core/errors";

/** A decimal string as an exact fraction n / 10^k. */
function exact(text: string): { n: bigint; k: number } {
  const [whole, frac = ""] = text.split(".");
  return { n: BigInt(whole + frac), k: frac.length };
}

/** ⌈λ·S/u⌉ and ⌊λ·S⌋ + 1 in exact arithmetic, for decimal inputs. */
function exactServers(lambda: string, s: string, u: string): number {
  const l = exact(lambda);
  const sv = exact(s);
  const uv = exact(u);
  // λ·S/u = (l.n·sv.n·10^uk) / (uv.n·10^(lk+sk))
  const num = l.n * sv.n * 10n ** BigInt(uv.k);
  const den = uv.n * 10n ** BigInt(l.k + sv.k);
  const ceil = (num + den - 1n) / den;
  const loadNum = l.n * sv.n;
  const loadDen = 10n ** BigInt(l.k + sv.k);
  const stable = loadNum / loadDen + 1n;
  return Number(ceil > stable ? ceil : stable);
}

const SERVICE = [
  "0.001",
  "0.002",
  "0.003",
  "0.005",
  "0.01",
  "0.02",
  "0.025",
  "0.03",
  "0.05",
  "0.1",
  "0.2",
  "0.25",
  "0.3",
  "0.5",
  "1",
];
const UTILIZATION = ["0.5", "0.6", "0.65", "0.7", "0.75", "0.8", "0.85", "0.9", "0.95", "1"];
const LOAD_FACTORS = ["0.5", "0.8", "0.9", "1", "1.1", "1.2", "1.25", "1.5"];

describe("serversForUtilization", () => {
  it("is the exact answer on 15,000 round inputs (λ 1–100, common S and u), where Math.ceil misses 136", () => {
    let misses = 0;
    let ceilMisses = 0;
    for (let l = 1; l <= 100; l++) {
      for (const s of SERVICE) {
        for (const u of UTILIZATION) {
          const want = exactServers(String(l), s, u);
          const load = l * Number(s);
          if (serversForUtilization(load, Number(u)) !== want) misses++;
          if (Math.max(Math.ceil(load / Number(u)), Math.floor(load) + 1) !== want) ceilMisses++;
        }
      }
    }
    expect(misses).toBe(0);
    expect(ceilMisses).toBe(136);
  });

  it("is the exact answer with the sensitivity's load factors (rate × factor, as the sheet multiplies)", () => {
    let n = 0;
    let misses = 0;
    for (let l = 1; l <= 100; l += 3) {
      for (const s of SERVICE) {
        for (const u of UTILIZATION) {
          for (const f of LOAD_FACTORS) {
            const rate = l * Number(f);
            const lambda = exact(f);
            const lambdaText = `${BigInt(l) * lambda.n}`.padStart(lambda.k + 1, "0");
            const decimal =
              lambda.k > 0 ? `${lambdaText.slice(0, -lambda.k)}.${lambdaText.slice(-lambda.k)}` : lambdaText;
            if (serversForUtilization(rate * Number(s), Number(u)) !== exactServers(decimal, s, u)) misses++;
            n++;
          }
        }
      }
    }
    expect(n).toBeGreaterThanOrEqual(10_000);
    expect(misses).toBe(0);
  });

  it("7/s × 0.1 s at 70 % is 1 server (binary 1.0000000000000002)", () => {
    expect((7 * 0.1) / 0.7).toBe(1.0000000000000002);
    expect(serversForUtilization(7 * 0.1, 0.7)).toBe(1);
  });

  it("refuses a ratio half a 12th-digit unit from a whole number, naming the field", () => {
    const ratio = 3 + 0.5e-11; // 3.000000000005: ROUND to 12 digits is a tie
    let caught: unknown;
    try {
      serversForUtilization(ratio * 0.8, 0.8, "options[0].workloads[0].sizing.utilization");
    } catch (e) {
      caught = e;
    }
    expect(isDomainError(caught)).toBe(true);
    expect((caught as Error).message).toMatch(
      /^options\[0\]\.workloads\[0\]\.sizing\.utilization: .* at the limit of double precision/,
    );
  });
});

describe("round12", () => {
  it.each([
    [1.0000000000000002, 1],
    [0.30000000000000004, 0.3],
    [2.9999999999999996, 3],
    [123456.7890123456, 123456.789012],
    [0, 0],
  ])("round12(%p) = %p", (x, want) => expect(round12(x)).toBe(want));
});

describe("staffForTarget", () => {
  it("an exact tie (M/M/1 at ρ = 0.5: mean wait S·ρ/(1 − ρ) = 0.1 s) meets the target", () => {
    expect(staffForTarget(0.1, 5, { kind: "wait", wait: 0.2 - 0.1 }, "response")).toBe(1);
  });

  it("agrees with the M/M/c figures away from ties (Erlang C wait, mpmath-free: monotone in c)", () => {
    // 100 calls/h of 180 s wanting 85 % answered within 15 s: 8 agents (the mmcStaff example).
    expect(staffForTarget(180, 100 / 3600, { kind: "serviceLevel", level: 0.85, answerWithin: 15 }, "sl")).toBe(8);
  });
});
