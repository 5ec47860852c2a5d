/**
 * Tests that need something a machine may lack (LibreOffice, Chromium) skip there, visibly: the
 * reason goes into the skipped block's title, which tests/helpers/skip-reporter.js lists at the end
 * of every Jest run. On CI (CI=true) nothing skips: the block runs and fails on what is missing.
 *
 * Checks inside a test that cannot be a block of their own are noted with `noteSkipped`.
 */
import * as fs from "fs";

const ON_CI = process.env.CI === "true";

/** The marker the reporter reads a skip's reason from. */
export const SKIP_MARK = "[skipped:";

/**
 * `describe(name, fn)`, or, when `whyNot` is a reason and this is not CI, the same block skipped
 * with the reason in its title.
 */
export function describeUnless(whyNot: string | null, name: string, fn: () => void): void {
  if (whyNot === null || ON_CI) describe(name, fn);
  else describe.skip(`${name} ${SKIP_MARK} ${whyNot}]`, fn);
}

/** Whether a check inside a test must be left out here (not CI and a reason given). */
export function skipsHere(whyNot: string | null): whyNot is string {
  return whyNot !== null && !ON_CI;
}

/**
 * Records that part of a test was not run, and why; the reporter counts it with the skipped tests.
 * Written to the file the reporter named (CAPLAB_SKIP_LOG), as tests run in worker processes.
 */
export function noteSkipped(what: string, why: string): void {
  const log = process.env.CAPLAB_SKIP_LOG;
  const line = JSON.stringify({ what, why }) + "\n";
  if (log) fs.appendFileSync(log, line);
  else console.warn(`skipped: ${what}: ${why}`);
}
