#!/usr/bin/env node
"use strict";
// Runs the compiled CLI in lib/ (built by `npm run build:cli`, which `npm install` runs via `prepare`).
let main;
try {
  ({ main } = require("../lib/cli/main.js"));
} catch (e) {
  if (e && e.code === "MODULE_NOT_FOUND" && /lib[\\/]cli[\\/]main/.test(String(e.message))) {
    process.stderr.write("caplab: the CLI is not compiled yet. Run `npm run build:cli` (or `npm install`) first.\n");
    process.exit(2);
  }
  throw e;
}
// A failed write (a full disk or /dev/full: ENOSPC; a reader that went away: EPIPE) is reported
// as an 'error' event on the stream; the first one is kept so the exit status says the output is
// incomplete instead of 0.
let failedWrite = null;
for (const [name, stream] of [
  ["standard output", process.stdout],
  ["standard error", process.stderr],
]) {
  stream.on("error", (e) => {
    failedWrite ??= { name, e };
  });
}
// Exit only once stdout and stderr are drained: writes to a pipe are asynchronous, and
// process.exit() right after a large write would cut the output at the pipe buffer (64 KiB).
// An empty write's callback runs after every earlier write on that stream has been flushed.
function exitAfterFlush(code) {
  process.exitCode = code;
  // The empty write's callback also gets the stream's error, which can come before the event.
  process.stdout.write("", (outError) =>
    process.stderr.write("", (errError) => {
      if (outError) failedWrite ??= { name: "standard output", e: outError };
      if (errError) failedWrite ??= { name: "standard error", e: errError };
      if (failedWrite === null) process.exit(code);
      const { name, e } = failedWrite;
      try {
        // Straight to the descriptor: the stream may be the one that failed.
        require("fs").writeSync(
          2,
          `caplab: writing to ${name} failed (${e.code || e.message}); the output is incomplete\n`,
        );
      } catch {
        // stderr is gone too; the exit status still says it.
      }
      process.exit(code === 0 ? 1 : code);
    }),
  );
}
main(process.argv.slice(2)).then(exitAfterFlush, (e) => {
  // The message may hold input (a path, a key): written as every message is (no control characters).
  const { terminalText } = require("../lib/text/quote.js");
  process.stderr.write(terminalText(`caplab: ${e && e.message ? e.message : e}\n`));
  exitAfterFlush(1);
});
