/**
 * NIST StRD linear regression datasets (certified values: NIST/ITL StRD, in each file's header),
 * fitted through the public doeFit API with coding "raw" and polynomial columns x, x², … supplied as
 * factors. Reports the log relative error (correct significant digits) of the estimates,
 * their standard deviations and the residual SD; where a certified value is exactly 0 (Wampler1's SDs)
 * the absolute error is used: digits = −log10|error|.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { doeFit } from "../../src/core/doe-fit";
import { parseNist } from "./nist-parse";

/** The datasets, unchanged from NIST (provenance in its README). */
const DIR = join(__dirname, "..", "fixtures", "nist-strd");
const REQUIRED: Record<string, number> = {
  Norris: 9,
  Pontius: 9,
  NoInt1: 9,
  NoInt2: 9,
  Longley: 9,
  Wampler1: 9,
  Wampler2: 9,
  Wampler3: 9,
  Filip: 7,
  Wampler4: 7,
  Wampler5: 5.5,
};

function digits(actual: number | null, certified: number): number {
  if (actual === null || !Number.isFinite(actual)) return 0;
  const err = certified === 0 ? Math.abs(actual) : Math.abs(actual - certified) / Math.abs(certified);
  return err === 0 ? 15 : Math.min(15, -Math.log10(err));
}

describe("NIST StRD linear regression", () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith(".dat"));
  const rows: string[] = [];
  afterAll(() => {
    console.log(["dataset    estimates  SDs     residual SD", ...rows].join("\n"));
  });
  it("has all eleven linear datasets", () => {
    for (const name of Object.keys(REQUIRED)) expect(files).toContain(`${name}.dat`);
  });
  it.each(Object.keys(REQUIRED))("%s reaches the required digits", (name) => {
    const d = parseNist(join(DIR, `${name}.dat`), name);
    const names = d.columns.map((_, j) => `x${j + 1}`);
    const fit = doeFit(names, d.columns, d.y, { order: 1, coding: "raw", intercept: d.intercept });
    expect(fit.terms.every((t) => !t.aliased)).toBe(true);
    const est = Math.min(...d.estimates.map((c, j) => digits(fit.terms[j].estimate, c)));
    const sds = Math.min(...d.sds.map((c, j) => digits(fit.terms[j].stdError, c)));
    const rsd = digits(fit.residualStandardError, d.residualSd);
    rows.push(
      `${name.padEnd(10)} ${est.toFixed(2).padStart(9)} ${sds.toFixed(2).padStart(5)} ${rsd.toFixed(2).padStart(8)}`,
    );
    const need = REQUIRED[name];
    expect(est).toBeGreaterThanOrEqual(need);
    expect(sds).toBeGreaterThanOrEqual(need);
    expect(rsd).toBeGreaterThanOrEqual(need);
    expect(digits(fit.rSquared, d.rSquared)).toBeGreaterThanOrEqual(need);
  });
});
