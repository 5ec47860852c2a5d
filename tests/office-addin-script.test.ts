/**
 * `npm start` / `npm stop` (scripts/office-addin.mjs) where there is no Excel desktop: one plain
 * message that points to Excel on the web, a non-zero exit, no stack trace and nothing fetched.
 */
import { spawnSync } from "child_process";
import * as path from "path";
import { describeUnless } from "./helpers/skip";

const SCRIPT = path.join(__dirname, "..", "scripts", "office-addin.mjs");
const desktop = process.platform === "win32" || process.platform === "darwin";

describeUnless(
  desktop ? `Excel desktop exists on ${process.platform}` : null,
  "scripts/office-addin.mjs without Excel desktop",
  () => {
    it.each(["start", "stop"])("%s says Excel desktop is missing and points to Excel on the web", (command) => {
      const result = spawnSync(process.execPath, [SCRIPT, command], { encoding: "utf8", timeout: 30000 });
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(`Excel desktop runs only on Windows and macOS`);
      expect(result.stderr).toContain("npm run dev-server");
      expect(result.stderr).toContain('README.md, "In Excel on the web"');
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(result.stdout).toBe("");
    });
  },
);
