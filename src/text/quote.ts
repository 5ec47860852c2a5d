/**
 * Text from input, as a message may show it: what a file, a cell, a JSON key or an option name
 * held is data, and a message that echoes it must neither act on the terminal (ESC]0;…BEL sets the
 * window title, ESC[2J clears the screen, a NUL or a CR hides what precedes it) nor run to half a
 * megabyte. Browser-safe (the pane shows the same messages).
 *
 * - {@link shown}: control characters (C0 with tab and line breaks, DEL, C1), the bidirectional
 *   overrides and isolates (which reorder what a reader sees, CVE-2021-42574), U+2028/U+2029 and
 *   unpaired surrogates written as escapes (`\x1b`, `\u202e`), a backslash doubled so an escape
 *   is never ambiguous; longer than `max` characters: the start, "…", and the original length.
 * - {@link quote}: the same in double quotes, for a value inside a sentence.
 * - {@link terminalText}: a whole message at the point it is written to a terminal: the same
 *   escapes except tab and line feed (the message's own layout), and each line cut to
 *   {@link MAX_LINE} characters — the backstop for a message built from input without `shown`.
 */

const UNSAFE =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u001F\u007F-\u009F\u200E\u200F\u202A-\u202E\u2066-\u2069\u2028\u2029\\]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
// The same but tab, LF and backslash left as they are (a message's layout, paths on Windows).
const UNSAFE_TERMINAL =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u200E\u200F\u202A-\u202E\u2066-\u2069\u2028\u2029]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Longest line {@link terminalText} writes (characters). */
export const MAX_LINE = 2000;

function escape(c: string): string {
  if (c === "\\") return "\\\\";
  const code = c.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** The first `n` characters of `s`, not splitting a surrogate pair. */
function head(s: string, n: number): string {
  const code = s.charCodeAt(n - 1);
  return s.slice(0, code >= 0xd800 && code <= 0xdbff ? n - 1 : n);
}

/** A line's start and end (a message says what is wrong last), the middle replaced by its length. */
function cutMiddle(line: string, max: number): string {
  const start = head(line, Math.floor(max * 0.7));
  let end = line.slice(line.length - Math.floor(max * 0.3));
  const first = end.charCodeAt(0);
  if (first >= 0xdc00 && first <= 0xdfff) end = end.slice(1);
  return `${start} … (line of ${line.length.toLocaleString("en-US")} characters, middle cut) … ${end}`;
}

/**
 * Input text as a message shows it: escaped ({@link shown}'s rules) and, when longer than `max`
 * characters, its start, "…" and how long it was.
 *
 * @param text - what came from input
 * @param max - most characters of the input shown (default 80)
 * @example shown("a\u001b]0;x\u0007b") // => "a\\x1b]0;x\\x07b"
 * @example shown("k".repeat(500000)) // => "kkk…k… (500,000 characters)" (80 k's)
 */
export function shown(text: string, max = 80): string {
  const cut = text.length > max ? head(text, max) : text;
  const safe = cut.replace(UNSAFE, escape);
  return cut === text ? safe : `${safe}… (${text.length.toLocaleString("en-US")} characters)`;
}

/**
 * {@link shown} in double quotes (a `"` inside is escaped too), for a value inside a sentence.
 *
 * @example quote("£100") // => "\"£100\""
 */
export function quote(text: string, max = 80): string {
  return `"${shown(text, max).replace(/"/g, '\\"')}"`;
}

/**
 * A whole message as it may be written to a terminal: control characters but tab and line feed
 * escaped, and every line longer than `maxLine` characters (default {@link MAX_LINE}) cut in the
 * middle (its start and end kept, with its length).
 *
 * @example terminalText("bad key \u001b[2J\n") // => "bad key \\x1b[2J\n"
 */
export function terminalText(text: string, maxLine = MAX_LINE): string {
  const safe = text.replace(UNSAFE_TERMINAL, escape);
  if (safe.length <= maxLine) return safe;
  return safe
    .split("\n")
    .map((line) => (line.length > maxLine ? cutMiddle(line, maxLine) : line))
    .join("\n");
}
