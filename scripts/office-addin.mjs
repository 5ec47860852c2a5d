#!/usr/bin/env node
/**
 * `npm start` / `npm stop`: sideload manifest.xml into Excel desktop (Windows or macOS) and start
 * the dev server, or undo both, with Microsoft's office-addin-debugging.
 *
 * That tool is not a dependency: it pulls in ~1,000 packages (the Microsoft 365 Agents Toolkit CLI)
 * and keytar, a native module that compiles against libsecret on Linux, none of which building,
 * testing or `npm run lab` needs. It is used from node_modules when present, otherwise fetched
 * once into npm's cache with `npx`.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE = "office-addin-debugging@^7.0.0";
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const command = process.argv[2];
if (command !== "start" && command !== "stop") {
  process.stderr.write("usage: node scripts/office-addin.mjs start|stop\n");
  process.exit(2);
}

// Excel desktop exists only on Windows and macOS; elsewhere the tool would fail deep inside its own
// install or sideload step, so say what to do instead, before fetching anything.
if (process.platform !== "win32" && process.platform !== "darwin") {
  process.stderr.write(
    `npm ${command}: Excel desktop runs only on Windows and macOS, so there is nothing to sideload into on ${process.platform}.\n` +
      "Use Excel on the web instead: `npm run dev-server`, then upload manifest.xml in a workbook on the web " +
      '(README.md, "In Excel on the web").\n',
  );
  process.exit(1);
}

const local = join(
  root,
  "node_modules",
  ".bin",
  process.platform === "win32" ? "office-addin-debugging.cmd" : "office-addin-debugging",
);
let run;
if (existsSync(local)) {
  run = [local, [command, "manifest.xml"]];
} else {
  process.stderr.write(
    `npm ${command}: using ${PACKAGE} through npx (not installed with the project; the first run downloads it).\n` +
      "It sideloads into Excel desktop; for Excel on the web use `npm run dev-server` and upload manifest.xml.\n",
  );
  run = [process.platform === "win32" ? "npx.cmd" : "npx", ["--yes", PACKAGE, command, "manifest.xml"]];
}
const result = spawnSync(run[0], run[1], { cwd: root, stdio: "inherit", shell: process.platform === "win32" });
if (result.error) {
  process.stderr.write(`npm ${command}: could not run ${run[0]}: ${result.error.message}\n`);
  process.exit(1);
}
if (result.status !== 0 && !existsSync(local)) {
  // npx prints nothing when an install script fails (its native keytar module may not compile).
  process.stderr.write(
    `npm ${command}: ${PACKAGE} failed (exit ${result.status ?? result.signal}). If it could not be installed, ` +
      `\`npx --yes --loglevel=verbose ${PACKAGE} --help\` shows why.\n`,
  );
}
process.exit(result.status ?? 1);
