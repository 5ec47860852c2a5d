import { terminalText } from "../text/quote";

/** Where CLI commands write, so tests can capture output without spawning a process. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

/**
 * The process's stdout and stderr. Nothing from input reaches the terminal raw: control characters
 * (ESC sequences, BEL, NUL, CR) are written as escapes (`\x1b`) on both; a message line on stderr
 * longer than 2,000 characters is cut (a 500 KB key in an error), results on stdout are not.
 */
export const defaultIo: CliIo = {
  out: (text) => process.stdout.write(terminalText(text, Infinity)),
  err: (text) => process.stderr.write(terminalText(text)),
};
