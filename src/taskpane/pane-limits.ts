/**
 * How much the pane takes on at once. No imports: the pane's own bundle uses this before it
 * hands a file to the reading worker.
 */

/**
 * Most bytes of lab files the pane holds at once (all chosen files together). The worker keeps
 * every file's table in this tab's memory until the import: a 1,000,000-row iogen CSV (214 MiB)
 * peaked at 1.5 GB of Chromium memory when written in full, and a 5,000,000-row one (1.04 GiB) at
 * 2.1 GB with the default row limit (docs/benchmarks.md, `npm run bench:pane`). Above this a tab
 * risks running out of memory and crashing, so the file is refused with a way out instead.
 */
export const PANE_MAX_BYTES = 1.25 * 2 ** 30;

/**
 * Why a file is not read in the pane (too large next to the files already chosen), or null.
 *
 * @param name - the file's name
 * @param bytes - its size
 * @param heldBytes - the bytes of the files already chosen
 */
export function paneSizeProblem(name: string, bytes: number, heldBytes: number): string | null {
  if (heldBytes + bytes <= PANE_MAX_BYTES) return null;
  const gib = (n: number): string => `${(n / 2 ** 30).toFixed(2)} GiB`;
  const held = heldBytes > 0 ? ` with the ${gib(heldBytes)} already chosen` : "";
  return (
    `${name}: ${gib(bytes)}${held} is more than the pane reads at once (${gib(PANE_MAX_BYTES)}: the files are ` +
    `held in this browser tab's memory, about 2 GB per GiB of CSV). Write the analysis with ` +
    `\`caplab report ${shellWord(name)} -o ${shellWord(name.replace(/\.[^.]*$/, "") + ".xlsx")}\` on the command ` +
    "line, or import fewer files at once."
  );
}

/** A file name as one word for a POSIX shell: as it is when plain, else in single quotes. */
function shellWord(name: string): string {
  return /^[\w.,+@%=:/-]+$/.test(name) ? name : `'${name.replace(/'/g, "'\\''")}'`;
}
