/** Where CLI commands write, so tests can capture output without spawning a process. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

export const defaultIo: CliIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};
