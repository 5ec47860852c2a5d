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
main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`caplab: ${e && e.message ? e.message : e}\n`);
    process.exit(1);
  },
);
