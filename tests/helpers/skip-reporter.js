/**
 * Jest reporter: after every run, how many tests were skipped and why.
 *
 * A skipped block made with tests/helpers/skip.ts carries its reason in its title
 * ("… [skipped: soffice not installed]"); a skip written any other way is listed as having no
 * reason. Parts of tests left out (`noteSkipped`) arrive through the file named by CAPLAB_SKIP_LOG,
 * set here before Jest starts its workers. Under CI=true any skip fails the run.
 */
const fs = require("fs");
const os = require("os");
const path = require("path");

const SKIPPED = new Set(["pending", "skipped", "todo", "disabled"]);
const MARK = /\[skipped: (.*)\]/;

class SkipReporter {
  constructor(globalConfig) {
    this.globalConfig = globalConfig;
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), "caplab-skips-"));
    this.log = path.join(this.dir, "skipped.jsonl");
    process.env.CAPLAB_SKIP_LOG = this.log;
    this.error = undefined;
  }

  onRunComplete(_contexts, results) {
    const root = this.globalConfig.rootDir;
    const skipped = [];
    for (const file of results.testResults) {
      for (const test of file.testResults) {
        if (!SKIPPED.has(test.status)) continue;
        const reason = [...test.ancestorTitles, test.title].map((t) => MARK.exec(t)).find(Boolean);
        skipped.push({
          where: `${path.relative(root, file.testFilePath)}: ${test.fullName.replace(/ \[skipped: .*?\]/, "")}`,
          why: reason ? reason[1] : test.status === "todo" ? "a todo" : "no reason given",
        });
      }
    }
    const parts = fs.existsSync(this.log)
      ? fs
          .readFileSync(this.log, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line))
      : [];
    fs.rmSync(this.dir, { recursive: true, force: true });

    const lines = [
      `Skipped: ${skipped.length} test${skipped.length === 1 ? "" : "s"}, ${parts.length} part${parts.length === 1 ? "" : "s"} of tests`,
    ];
    if (this.globalConfig.testNamePattern) lines.push("  (with -t, the tests it does not match count as skipped)");
    // One line per reason, with the tests it applies to, so that 60 skipped tests read as one cause.
    const byReason = new Map();
    for (const s of skipped) byReason.set(s.why, [...(byReason.get(s.why) || []), s.where]);
    for (const [why, where] of byReason) {
      lines.push(`  - ${why}: ${where.length} test${where.length === 1 ? "" : "s"}, e.g. ${where[0]}`);
    }
    for (const p of parts) lines.push(`  - ${p.why}: part of ${p.what}`);
    process.stdout.write(`\n${lines.join("\n")}\n`);
    if (process.env.CI === "true" && skipped.length + parts.length > 0 && !this.globalConfig.testNamePattern) {
      this.error = new Error("CI=true and tests were skipped: CI must be able to run every check");
      process.stderr.write(`${this.error.message}\n`);
    }
  }

  getLastError() {
    return this.error;
  }
}

module.exports = SkipReporter;
