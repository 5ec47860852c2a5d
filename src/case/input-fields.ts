/** Readers of the fields of a case's untrusted JSON: each checks one value and fails with a DomainError naming its input path. */
import { DomainError } from "../core/errors";
import { parseReference } from "../workbook/plan";

/** A free-text note (an assumption, a risk, a source): a paragraph at most. */
export const MAX_NOTE = 1000;
const MAX_NOTES = 30;

export type Json = Record<string, unknown>;

export function fail(path: string, problem: string): never {
  throw new DomainError(path, problem, "value");
}

/**
 * Text from the input, quoted for a message: JSON-escaped (no raw control characters or
 * terminal escapes reach the terminal) and shortened to `max` characters.
 *
 * @example quoted("a\u001b[2Jb") // => '"a\\u001b[2Jb"'
 */
export function quoted(text: string, max = 40): string {
  return JSON.stringify(text.length > max ? text.slice(0, max) + "…" : text);
}

/** A key from the input for a path in a message: as is when it is a plain name, else quoted. */
export function keyText(key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]{0,39}$/.test(key) ? key : quoted(key);
}

export function describe(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v.length > 40 ? v.slice(0, 40) + "…" : v);
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "an object";
  return String(v);
}

export function object(v: unknown, path: string, allowed: readonly string[]): Json {
  if (typeof v !== "object" || v === null || Array.isArray(v)) fail(path, `must be an object, got ${describe(v)}`);
  for (const key of Object.keys(v)) {
    if (!allowed.includes(key))
      fail(`${path ? path + "." : ""}${keyText(key)}`, `unknown field (expected one of ${allowed.join(", ")})`);
  }
  return v as Json;
}

export function number(v: unknown, path: string, check: (x: number) => boolean, wanted: string): number {
  if (typeof v !== "number" || !Number.isFinite(v) || !check(v)) fail(path, `must be ${wanted}, got ${describe(v)}`);
  return v;
}

export function optionalNumber(
  v: unknown,
  path: string,
  fallback: number,
  check: (x: number) => boolean,
  wanted: string,
): number {
  return v === undefined ? fallback : number(v, path, check, wanted);
}

export function text(v: unknown, path: string, max: number, fallback?: string): string {
  if (v === undefined && fallback !== undefined) return fallback;
  if (typeof v !== "string") fail(path, `must be text, got ${describe(v)}`);
  const t = v.trim();
  if (t === "") fail(path, "must not be empty");
  if (t.length > max) fail(path, `must be at most ${max} characters, got ${t.length}`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001F\u007F]/.test(t)) fail(path, "must not contain control characters (line breaks, tabs)");
  return t;
}

/** An optional free-text `source` (at most {@link MAX_NOTE} characters, no control characters). */
export function sourceOf(v: unknown, path: string): { source?: string } {
  return v === undefined ? {} : { source: text(v, path, MAX_NOTE) };
}

/** A list of free-text notes, or [] when absent. */
export function notesOf(v: unknown, path: string): string[] {
  if (v === undefined) return [];
  return list(v, path, 0, MAX_NOTES).map((t, i) => text(t, `${path}[${i}]`, MAX_NOTE));
}

export function list(v: unknown, path: string, min: number, max: number): unknown[] {
  if (!Array.isArray(v)) fail(path, `must be a list, got ${describe(v)}`);
  if (v.length < min || v.length > max) fail(path, `must have ${min} to ${max} entries, got ${v.length}`);
  return v;
}

export const nonNegative = (x: number): boolean => x >= 0;
export const positive = (x: number): boolean => x > 0;

/**
 * A cell reference a case may point to for a service time: a sheet name (quoted when needed)
 * and an absolute or relative A1 cell address. Nothing else (no functions, no ranges), so the
 * reference cannot smuggle a formula into the sheet.
 */
export function isCellRef(ref: string): boolean {
  const r = parseReference(ref);
  return r !== null && r.single && r.sheet !== undefined;
}
