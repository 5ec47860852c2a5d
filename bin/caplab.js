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
// Exit only once stdout and stderr are drained: writes to a pipe are asynchronous, and
// process.exit() right after a large write would cut the output at the pipe buffer (64 KiB).
// An empty write's callback runs after every earlier write on that stream has been flushed.
function exitAfterFlush(code) {
  process.exitCode = code;
  process.stdout.write("", () => process.stderr.write("", () => process.exit(code)));
}
main(process.argv.slice(2)).then(exitAfterFlush, (e) => {
  process.stderr.write(`caplab: ${e && e.message ? e.message : e}\n`);
  exitAfterFlush(1);
});
