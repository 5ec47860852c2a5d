/**
 * Speed of the worksheet functions and of the numerical kernels behind them, old and new side by
 * side in one run, interleaved (old, new, old, new, …) so that a change in machine load hits both.
 *
 *   npm run bench                      # print the tables
 *   npm run bench -- --write           # also replace the "functions" section of docs/benchmarks.md
 *   npm run bench -- --quick           # fewer, shorter runs (a smoke test of the bench itself)
 *
 * Each figure is the median over RUNS runs; a run times as many calls as fit in RUN_MS (at least
 * one) after a warm-up. Tables:
 * 1. MMC_RESPONSE per call at c = 1 … 10⁷ and ρ = 0.5 / 0.9 / 0.99: the Excel wrapper (the O(1)
 *    Poisson form above 40 servers) against the former algorithm, the Erlang B recursion over all c
 *    servers followed by the same Erlang C formula.
 * 2. DOE_FIT on full 2^k factorials to order k: least squares by QR (Householder, Björck refinement)
 *    against Yates' algorithm, on the same model; and doeFit end to end.
 * 3. The extended-precision residual of DOE_FIT's refinement (NIST Filip, 82 × 11): double-double
 *    (what the code uses) against mathjs BigNumber at 34 digits (the alternative considered).
 * 4. SEEN_ENOUGH on 10⁴ … 10⁶ samples where no window passes (every window length is tried).
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { BigNumber as MathBigNumber, create, all } from "mathjs";
import { MERGE_QUEUES, MMC_RESPONSE, SEEN_ENOUGH } from "../src/functions/functions";
import { erlangBRecursion, erlangCFromB } from "../src/core/erlang";
import { doeFit } from "../src/core/doe-fit";
import { leastSquares } from "../src/core/least-squares";
import { codeFactors, modelTerms, termColumns } from "../src/core/model-matrix";
import { balancedFactorialFit } from "../src/core/yates";
import { DoubleDoubleSum } from "../src/core/double-double";
import { parseNist } from "../tests/core/nist-parse";

const QUICK = process.argv.includes("--quick");
const RUNS = QUICK ? 3 : 7;
const RUN_MS = QUICK ? 30 : 150;

/** Seconds per call of each function, measured interleaved; medians over RUNS runs. */
function measure(fns: (() => unknown)[], runMs = RUN_MS): number[] {
  let sink = 0;
  for (const f of fns) {
    const t0 = performance.now();
    do sink += Number(f() !== undefined);
    while (performance.now() - t0 < Math.min(runMs, 50)); // warm-up (JIT)
  }
  const perCall: number[][] = fns.map(() => []);
  for (let run = 0; run < RUNS; run++) {
    fns.forEach((f, k) => {
      let n = 0;
      const start = performance.now();
      let elapsed = 0;
      do {
        sink += Number(f() !== undefined);
        n++;
        elapsed = performance.now() - start;
      } while (elapsed < runMs);
      perCall[k].push(elapsed / 1000 / n);
    });
  }
  if (sink < 0) console.log(sink); // keep the results alive
  return perCall.map((v) => v.sort((a, b) => a - b)[Math.floor(v.length / 2)]);
}

/** The former MMC_RESPONSE: Erlang B by the recursion over all c servers, then the same formulas. */
function mmcResponseByRecursion(servers: number, serviceTime: number, arrivalRate: number): number {
  const load = arrivalRate * serviceTime;
  const c = erlangCFromB(servers, load, erlangBRecursion(servers, load));
  return serviceTime + (c * serviceTime) / (servers - load);
}

function time(seconds: number): string {
  if (seconds >= 1) return `${seconds.toFixed(2)} s`;
  if (seconds >= 1e-3) return `${(seconds * 1e3).toFixed(2)} ms`;
  return `${(seconds * 1e6).toFixed(2)} µs`;
}

function ratio(old: number, now: number): string {
  const r = old / now;
  return r >= 10 ? `${Math.round(r).toLocaleString("en-US")}×` : `${r.toFixed(1)}×`;
}

function mmcTable(): string[] {
  const lines = ["| c | ρ | recursion (before) | O(1) form (now) | ratio |", "| ---: | ---: | ---: | ---: | ---: |"];
  for (const c of [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7]) {
    for (const rho of [0.5, 0.9, 0.99]) {
      const lambda = rho * c;
      const [old, now] = measure([() => mmcResponseByRecursion(c, 1, lambda), () => MMC_RESPONSE(c, 1, lambda)]);
      lines.push(`| ${c.toLocaleString("en-US")} | ${rho} | ${time(old)} | ${time(now)} | ${ratio(old, now)} |`);
      console.log(lines[lines.length - 1]);
    }
  }
  const [m1, m2] = measure([() => MERGE_QUEUES(4, 30, 0.08, 6, 30, 0.18), () => MERGE_QUEUES(200, 2, 90, 300, 3, 80)]);
  lines.push(
    "",
    `MERGE_QUEUES(4, 30, 0.08, 6, 30, 0.18): ${time(m1)}; MERGE_QUEUES(200, 2, 90, 300, 3, 80): ${time(m2)}.`,
  );
  return lines;
}

/** Full 2^k factorial in standard order with a deterministic response. */
function factorial(k: number): { names: string[]; columns: number[][]; y: number[] } {
  const n = 2 ** k;
  const columns = Array.from({ length: k }, (_, f) => Array.from({ length: n }, (_, i) => ((i >> f) & 1 ? 1 : -1)));
  let s = 7;
  const y = Array.from({ length: n }, (_, i) => {
    s = (s * 48271) % 2147483647;
    return 100 + 5 * columns[0][i] + 2 * columns[0][i] * columns[1 % k][i] + (s / 2147483647 - 0.5);
  });
  return { names: columns.map((_, f) => `F${f + 1}`), columns, y };
}

function doeTable(): string[] {
  const lines = [
    "| design, model | terms | QR (Householder + refinement) | Yates (fast Walsh–Hadamard) | ratio | doeFit end to end |",
    "| --- | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const k of [4, 6, 8, 10, 12]) {
    const d = factorial(k);
    const coded = codeFactors(d.names, d.columns, "coded");
    const terms = modelTerms(d.names, k, true);
    const yates = () => balancedFactorialFit(coded, terms, d.y);
    const full = () => doeFit(d.names, d.columns, d.y, { order: k });
    if (k <= 10) {
      const qr = () => leastSquares(termColumns(terms, coded), d.y);
      const [tq, ty, tf] = measure([qr, yates, full], k === 10 ? 1 : RUN_MS);
      lines.push(
        `| 2^${k}, order ${k} | ${terms.length} | ${time(tq)} | ${time(ty)} | ${ratio(tq, ty)} | ${time(tf)} |`,
      );
    } else {
      const [ty, tf] = measure([yates, full], 1);
      lines.push(
        `| 2^${k}, order ${k} | ${terms.length} | not run (462 s before Yates) | ${time(ty)} | | ${time(tf)} |`,
      );
    }
    console.log(lines[lines.length - 1]);
  }
  return lines;
}

function residualTable(): string[] {
  const d = parseNist(path.join(__dirname, "..", "tests", "fixtures", "nist-strd", "Filip.dat"), "Filip");
  const n = d.y.length;
  const x = [new Array<number>(n).fill(1), ...d.columns];
  const b = leastSquares(x, d.y).coefficients as number[];
  const doubleDouble = (): number => {
    let last = 0;
    for (let i = 0; i < n; i++) {
      const acc = new DoubleDoubleSum(d.y[i]);
      for (let k = 0; k < x.length; k++) acc.addProduct(-x[k][i], b[k]);
      last = acc.value();
    }
    return last;
  };
  const math = create(all, { number: "BigNumber", precision: 34 });
  // Exact decimal of the double (toPrecision(100)), rounded to the 34 digits of the context.
  const big = (v: number): MathBigNumber => math.bignumber(v.toPrecision(100));
  const xb = x.map((col) => col.map(big));
  const bb = b.map(big);
  const yb = d.y.map(big);
  const bigNumber = (): number => {
    let last = 0;
    for (let i = 0; i < n; i++) {
      let acc = yb[i];
      for (let k = 0; k < x.length; k++) acc = math.subtract(acc, math.multiply(xb[k][i], bb[k])) as MathBigNumber;
      last = math.number(acc) as number;
    }
    return last;
  };
  const [tdd, tbig] = measure([doubleDouble, bigNumber]);
  const agree = Math.abs(doubleDouble() - bigNumber()) <= 1e-12 * Math.abs(bigNumber());
  return [
    "| residual y − Xb, NIST Filip (82 rows × 11 columns) | time per residual vector |",
    "| --- | ---: |",
    `| double-double (DoubleDoubleSum, ~32 digits) | ${time(tdd)} |`,
    `| mathjs BigNumber, precision 34 | ${time(tbig)} |`,
    "",
    `Ratio ${ratio(tbig, tdd)} in favour of double-double; the two residuals agree to 1e-12: ${agree}.`,
  ];
}

function seenEnoughTable(): string[] {
  const lines = ["| samples | SEEN_ENOUGH (every window tried) |", "| ---: | ---: |"];
  for (const n of [1e4, 1e5, 1e6]) {
    let s = 1;
    const column = Array.from({ length: n }, () => {
      s = (s * 16807) % 2147483647;
      return [100 + (s / 2147483647 - 0.5) * 50];
    });
    const [t] = measure([() => SEEN_ENOUGH(column, 1e-6)], n >= 1e6 ? 1 : RUN_MS);
    lines.push(`| ${n.toLocaleString("en-US")} | ${time(t)} |`);
    console.log(lines[lines.length - 1]);
  }
  return lines;
}

function machine(): string {
  const cpu = os.cpus()[0]?.model ?? "unknown CPU";
  return `${os.cpus().length} CPUs (nproc), ${cpu.trim()}, Node ${process.version}, ${os.platform()} ${os.release()}`;
}

function main(): void {
  const loadAtStart = os.loadavg()[0];
  const started = new Date();
  const mmc = mmcTable();
  const doe = doeTable();
  const residual = residualTable();
  const seen = seenEnoughTable();
  const section = [
    "## Worksheet functions and numerical kernels",
    "",
    "Rerun: `npm run bench` (add `-- --write` to update this section). Single thread; each figure is the",
    `median of ${RUNS} runs of at least ${RUN_MS} ms (or one call, for the slow ones), old and new interleaved`,
    "in the same run. Through the Excel wrappers where a worksheet function is named.",
    "",
    `Machine: ${machine()}. Measured ${started.toISOString().slice(0, 16).replace("T", " ")} UTC with a`,
    `1-minute load average of ${loadAtStart.toFixed(1)} on the 2 cores (other jobs running): absolute figures`,
    "are upper bounds; the ratios, measured interleaved, are the comparison.",
    "",
    "### MMC_RESPONSE per call (S = 1, λ = ρ·c)",
    "",
    "Before: the Erlang B recursion over all c servers (O(c), slowest where B underflows to subnormal",
    "numbers). Now: the recursion up to 40 servers, the Poisson form p(c; a)/P(N ≤ c) above (O(1)).",
    "",
    ...mmc,
    "",
    "### DOE_FIT on full 2^k factorials to order k (coded ±1)",
    "",
    "The same model fitted by least squares through QR and by Yates' algorithm (doeFit picks Yates for",
    "every balanced full 2^k factorial in ±1 coding); doeFit end to end adds t and p values for each term.",
    "",
    ...doe,
    "",
    "### Extended-precision residuals for DOE_FIT's refinement: double-double or mathjs BigNumber",
    "",
    ...residual,
    "",
    "Double-double was chosen: the refinement needs about 32 digits in the residual only (the rest is",
    "double), which two doubles give exactly (error-free TwoSum/TwoProduct) at a small multiple of a plain",
    "dot product; BigNumber allocates a decimal object per operation. mathjs is therefore not used at",
    "run time (only by a test, as a reference for normal-equation solves) and is not in the webpack bundle.",
    "",
    "### SEEN_ENOUGH where no window passes (accuracy 1e-6)",
    "",
    "Before: 5–7 s for 1,000,000 samples (a t quantile per window length, memoised under a string key).",
    "Now: memo keyed by number below 3,000 degrees of freedom, Hill's expansion above.",
    "",
    ...seen,
  ].join("\n");
  console.log("\n" + section);

  if (process.argv.includes("--write")) {
    const file = path.join(__dirname, "..", "docs", "benchmarks.md");
    const text = fs.readFileSync(file, "utf8");
    const begin = "<!-- BEGIN functions -->";
    const end = "<!-- END functions -->";
    const a = text.indexOf(begin);
    const b = text.indexOf(end);
    if (a < 0 || b < a) throw new Error(`${file}: markers ${begin} … ${end} not found`);
    const tmp = `${file}.tmp-${process.pid}`;
    fs.writeFileSync(tmp, text.slice(0, a + begin.length) + "\n" + section + "\n" + text.slice(b));
    fs.renameSync(tmp, file);
    console.log(`\nwrote ${file}`);
  }
}

main();
