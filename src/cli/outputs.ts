/**
 * The one way the command line writes its files: {@link writeOutputs}.
 *
 * Nothing lost, nothing destroyed:
 * - every output is checked before anything is written ({@link checkOutputs}: its extension, not
 *   an input, not named twice, its directory exists, and it does not exist unless `--force`);
 * - each is written to a temporary name in its own directory (same file system), then moved into
 *   place without replacing: `link()` then `unlink()` of the temporary name, so a file that
 *   appeared at the destination while we worked (another program, a second run) is never replaced
 *   without `--force` — `rename()` would replace it silently (rename(2), link(2));
 * - with `--force` an existing file is kept under a temporary name until the whole set is in place;
 * - if any output fails, the ones already moved are taken back (the files they replaced restored)
 *   and every temporary file removed: the set is written whole or not at all.
 *
 * Renderers return bytes, text or a stream; they never open a file.
 */
import * as fs from "fs";
import * as path from "path";
import { Readable } from "stream";
import { pipeline } from "stream/promises";
import { UsageError } from "./options";

/** What an output holds: bytes, text, or a stream of bytes. */
export type OutputContent = Buffer | Uint8Array | string | Readable;

/** One file to write. */
export interface Output {
  /** The option or name that gave the path, for messages (e.g. "-o", "--html"). */
  option: string;
  path: string;
  /** The file name must match this (e.g. /\.xlsx$/i). */
  ext: RegExp;
  /** Makes the contents; called after every output has been checked, once. */
  content: () => OutputContent | Promise<OutputContent>;
}

/** What the set may do. */
export interface OutputOptions {
  /** Replace outputs that exist. */
  force: boolean;
  /** Files read by the command: never written, even with `force`. */
  inputs?: string[];
}

/** A write that failed (after the checks): the message names the file; nothing of the set is left. */
export class OutputError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(message);
    this.name = "OutputError";
  }
}

/** True when two paths name the same file (by real path when both exist). */
export function sameFile(a: string, b: string): boolean {
  try {
    return fs.realpathSync(a) === fs.realpathSync(b);
  } catch {
    return path.resolve(a) === path.resolve(b);
  }
}

/** A temporary file name in the target's directory (same file system, so link and rename stay there). */
export function tempPathFor(target: string, tag = "tmp"): string {
  const dir = path.dirname(path.resolve(target));
  const rand = Math.random().toString(36).slice(2, 8);
  return path.join(dir, `.${path.basename(target)}.${process.pid}.${Date.now()}.${rand}.${tag}`);
}

/** Deletes a file, ignoring errors (cleanup after a failure). */
export function removeQuietly(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch {
    // already gone
  }
}

/** The extensions a pattern such as /\.(html|htm)$/i accepts, in words: ".html or .htm". */
function extensionWords(ext: RegExp): string {
  return ext.source
    .replace(/[\\$()]/g, "")
    .replace("|", " or .")
    .replace(/^\./, ".");
}

/**
 * Checks every output before anything is opened. Throws a {@link UsageError} naming the option and
 * the file: wrong extension, one of the inputs, named twice, directory missing, or existing
 * without `force`.
 */
export function checkOutputs(
  outputs: readonly Pick<Output, "option" | "path" | "ext">[],
  options: OutputOptions,
): void {
  const inputs = options.inputs ?? [];
  outputs.forEach((o, i) => {
    const target = o.path;
    if (!o.ext.test(target))
      throw new UsageError(`${o.option} ${target}: the file name must end in ${extensionWords(o.ext)}`);
    if (inputs.some((f) => sameFile(f, target)))
      throw new UsageError(`${o.option} ${target}: is one of the inputs; refusing to overwrite it`);
    const twice = outputs.slice(0, i).find((p) => sameFile(p.path, target));
    if (twice) throw new UsageError(`${o.option} and ${twice.option} name the same file`);
    const dir = path.dirname(path.resolve(target));
    if (!fs.existsSync(dir)) throw new UsageError(`${o.option} ${target}: directory ${dir} does not exist`);
    if (fs.existsSync(target)) {
      if (fs.statSync(target).isDirectory()) throw new UsageError(`${o.option} ${target}: is a directory`);
      if (!options.force) throw new UsageError(`${o.option} ${target}: exists; pass --force to replace it`);
    }
  });
}

/**
 * A stream by what it does, not its class: the streaming .xlsx writer's archiver is a
 * `readable-stream` Readable, which is not `instanceof` node's (a stream was handed to
 * writeFileSync and every report above 250,000 cells failed).
 */
function isStream(content: OutputContent): content is Readable {
  return typeof (content as Partial<Readable>).pipe === "function";
}

/** Writes contents to a new file (`wx`: never an existing one). */
async function writeNew(file: string, content: OutputContent): Promise<void> {
  if (isStream(content)) {
    await pipeline(content, fs.createWriteStream(file, { flags: "wx" }));
  } else fs.writeFileSync(file, content, { flag: "wx" });
}

/** Error codes of a file system that cannot make hard links. */
const NO_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EXDEV", "EMLINK"]);

/**
 * Puts `tmp` at `target` only if nothing is there: link() fails with EEXIST instead of replacing.
 * On a file system without hard links, an exclusive copy (O_EXCL) does the same, not atomically.
 */
function placeNoReplace(tmp: string, target: string): void {
  try {
    fs.linkSync(tmp, target);
  } catch (e) {
    if (!NO_LINKS.has((e as NodeJS.ErrnoException).code ?? "")) throw e;
    fs.copyFileSync(tmp, target, fs.constants.COPYFILE_EXCL);
  }
  removeQuietly(tmp);
}

/** One output moved into place: what to undo. */
interface Placed {
  target: string;
  /** The file it replaced (with `force`), kept under this name until the set is complete. */
  backup?: string;
}

/** Moves one written output into place; with `force`, keeps what it replaces. */
function place(tmp: string, o: Output, force: boolean): Placed {
  if (force) {
    // Consent to replace: what is there now (checked or appeared since) is kept until the set is in place.
    if (!fs.existsSync(o.path)) {
      fs.renameSync(tmp, o.path);
      return { target: o.path };
    }
    const backup = tempPathFor(o.path, "old");
    fs.linkSync(o.path, backup);
    try {
      fs.renameSync(tmp, o.path);
    } catch (e) {
      removeQuietly(backup);
      throw e;
    }
    return { target: o.path, backup };
  }
  try {
    placeNoReplace(tmp, o.path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST")
      throw new OutputError(
        o.path,
        `${o.path}: a file appeared there while writing; not replaced (pass --force to replace it)`,
      );
    throw e;
  }
  return { target: o.path };
}

/**
 * An output's directory, held open while the set is written: if it is renamed or moved meanwhile,
 * its path no longer leads to the temporary files, but the open directory still does (on Linux
 * through /proc/self/fd), so they can be removed; and nothing is placed in a directory that is no
 * longer the one the path named.
 */
interface HeldDirectory {
  path: string;
  fd: number | null;
  dev: number;
  ino: number;
}

function holdDirectory(dir: string): HeldDirectory {
  try {
    const fd = fs.openSync(dir, fs.constants.O_RDONLY | (fs.constants.O_DIRECTORY ?? 0));
    const st = fs.fstatSync(fd);
    return { path: dir, fd, dev: st.dev, ino: st.ino };
  } catch {
    return { path: dir, fd: null, dev: -1, ino: -1 }; // a system that cannot open directories: by path only
  }
}

/** True while the directory's path still names the directory held open. */
function stillAtItsPath(h: HeldDirectory): boolean {
  if (h.fd === null) return true;
  try {
    const st = fs.statSync(h.path);
    return st.dev === h.dev && st.ino === h.ino;
  } catch {
    return false;
  }
}

/** Removes a temporary file by its path and, if the directory moved, through the held directory. */
function removeTemp(h: HeldDirectory, tmp: string): void {
  removeQuietly(tmp);
  if (h.fd !== null) removeQuietly(`/proc/self/fd/${h.fd}/${path.basename(tmp)}`);
}

function release(held: Map<string, HeldDirectory>): void {
  for (const h of held.values()) if (h.fd !== null) fs.closeSync(h.fd);
}

/** Takes back what was placed, newest first: the replaced files restored, ours removed. */
function rollBack(placed: Placed[]): void {
  for (const p of [...placed].reverse()) {
    try {
      if (p.backup) fs.renameSync(p.backup, p.target);
      else fs.unlinkSync(p.target);
    } catch {
      // best effort: the message already names the failure
    }
  }
}

/**
 * Writes a set of outputs whole or not at all (see the module comment).
 *
 * @param outputs - the files, in the order they are made and placed
 * @param options - `force`, `inputs`
 * @returns the paths written
 * @throws UsageError when a check fails (nothing written); OutputError naming the file when a
 *   write or move fails (nothing of the set left, replaced files restored)
 * @example
 * await writeOutputs([{ option: "-o", path: "r.html", ext: /\.html$/i, content: () => "<p>hi</p>" }], { force: false });
 */
export async function writeOutputs(outputs: readonly Output[], options: OutputOptions): Promise<string[]> {
  checkOutputs(outputs, options);
  const held = new Map<string, HeldDirectory>();
  const dirOf = (o: Output): HeldDirectory => {
    const dir = path.dirname(path.resolve(o.path));
    if (!held.has(dir)) held.set(dir, holdDirectory(dir));
    return held.get(dir) as HeldDirectory;
  };
  const temps: [string, HeldDirectory][] = [];
  const placed: Placed[] = [];
  let current = outputs[0]?.path ?? "";
  try {
    const written: [string, Output][] = [];
    for (const o of outputs) {
      current = o.path;
      const tmp = tempPathFor(o.path);
      temps.push([tmp, dirOf(o)]);
      await writeNew(tmp, await o.content());
      written.push([tmp, o]);
    }
    for (const [tmp, o] of written) {
      current = o.path;
      if (!stillAtItsPath(dirOf(o)))
        throw new OutputError(o.path, `${o.path}: its directory was moved or renamed while writing; nothing written`);
      placed.push(place(tmp, o, options.force));
    }
  } catch (e) {
    rollBack(placed);
    for (const [t, h] of temps) removeTemp(h, t);
    if (e instanceof OutputError) throw e;
    throw new OutputError(current, `cannot write ${current}: ${(e as Error).message}`);
  } finally {
    release(held);
  }
  for (const p of placed) if (p.backup) removeQuietly(p.backup);
  return outputs.map((o) => o.path);
}
