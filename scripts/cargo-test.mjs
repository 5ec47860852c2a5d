#!/usr/bin/env node
/**
 * `npm run test:iogen`: iogen's Rust tests (`cargo test`, then the MPI ones, `--features mpi --test
 * mpi`), followed by one line that counts the checks this machine could not make and why.
 *
 * A test that cannot run here (no loop device, no tmpfs mount, io_uring forbidden) returns early
 * and passes, and cargo shows a passing test's stderr to nobody. Those tests append a line to the
 * file named by IOGEN_SKIP_LOG; this script reads it back and lists them. They do not fail the run,
 * even on CI: what they lack is a privilege (root with CAP_SYS_ADMIN, to mount a tmpfs or attach a
 * loop device; io_uring allowed by the container's seccomp profile), which no package can give.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const manifest = join(dirname(fileURLToPath(import.meta.url)), "..", "iogen", "Cargo.toml");
const dir = mkdtempSync(join(tmpdir(), "iogen-skips-"));
const log = join(dir, "skipped.txt");
const env = { ...process.env, IOGEN_SKIP_LOG: log };

let status = 0;
for (const args of [
  ["test", "--manifest-path", manifest],
  ["test", "--manifest-path", manifest, "--features", "mpi", "--test", "mpi"],
]) {
  const result = spawnSync("cargo", args, { stdio: "inherit", env });
  if (result.error) {
    process.stderr.write(`could not run cargo: ${result.error.message}\n`);
    status = 1;
    break;
  }
  if (result.status !== 0) {
    status = result.status ?? 1;
    break;
  }
}

const skips = existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : [];
rmSync(dir, { recursive: true, force: true });
process.stdout.write(`\niogen: ${skips.length} test${skips.length === 1 ? "" : "s"} skipped\n`);
for (const line of skips) process.stdout.write(`  - ${line}\n`);
process.exit(status);
