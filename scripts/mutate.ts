/**
 * `npm run mutate`: a small mutation check of the input-hygiene and formula-building code.
 *
 * Each mutation below is one small edit (a search string, found exactly once in its file, and its
 * replacement) that a real bug could make: the guard that keeps number-like text as text gone,
 * the duplicate-column rule of the iogen CSV reader undone, the XML filter bypassed, … For each,
 * the file is changed, only the Jest files mapped to it run, and the mutation is *killed* when
 * they fail, *survived* when they pass. The score is killed / all. Not part of `npm test` (a Jest
 * start per mutation); the mutations that matter most are killed by tests that are.
 *
 * Safety: the original is copied to `<file>.mutate-backup` before the edit and put back in a
 * `finally` (also on Ctrl-C or SIGTERM); a backup left by a killed run is restored at the start.
 * Before any mutation the mapped tests run once unmutated and must pass (a kill is meaningless
 * otherwise). Tests run transpile-only (ts-jest `isolatedModules`): a mutation that only breaks
 * types would otherwise "fail" the tests without any test catching it.
 *
 *   npm run mutate [-- --only id1,id2] [--list]
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(__dirname, "..");

interface Mutation {
  id: string;
  /** What the mutation breaks (what a surviving mutation would mean). */
  what: string;
  file: string;
  search: string;
  replace: string;
  /** Jest files (relative to the root) that must kill it. */
  tests: string[];
}

const RENDER = ["tests/excel/render-plan.test.ts"];
const XML = ["tests/report/xml-text.test.ts"];
const QUOTE = ["tests/text/quote.test.ts"];

export const MUTATIONS: Mutation[] = [
  {
    id: "duplicate-column",
    what: "iogen CSV reader: a repeated header column overwrites the first (reads the wrong column)",
    file: "src/import/iogen-csv.ts",
    search: "        return;\n      }\n      seen.add(name);",
    replace: "      }\n      seen.add(name);",
    tests: ["tests/import/iogen-csv.test.ts"],
  },
  {
    id: "number-like-text-guard",
    what: "blocks: number-like text (£100, 1/2, 00123, 1e5, TRUE, Jan 5) written without the text format",
    file: "src/report/blocks.ts",
    search: 'if (numFmt === "@" || needsTextFormat(cell)) out.format = "@";',
    replace: 'if (numFmt === "@") out.format = "@";',
    tests: RENDER,
  },
  {
    id: "currency-guard",
    what: "blocks: text starting with a currency sign ($5, €7, £100) no longer kept as text",
    file: "src/report/blocks.ts",
    search: "/^\\s*[\\d.$€£(]/.test(s) ||",
    replace: "/^\\s*[\\d.(]/.test(s) ||",
    tests: RENDER,
  },
  {
    id: "formula-injection-guard",
    what: "blocks: text starting with + or - (a formula to Excel) no longer kept as text",
    file: "src/report/blocks.ts",
    search: "/^[=+\\-@\\t\\r]/.test(s) ||",
    replace: "/^[=@\\t\\r]/.test(s) ||",
    tests: RENDER,
  },
  {
    id: "boolean-text-guard",
    what: "blocks: the text TRUE/FALSE no longer kept as text (becomes a boolean)",
    file: "src/report/blocks.ts",
    search: "/^\\s*(true|false)\\s*$/i.test(s) ||",
    replace: "",
    tests: RENDER,
  },
  {
    id: "utf8-request-bytes",
    what: "blocks: a 3-byte UTF-8 character (€) counted as 2 bytes (a block can overrun 5 MB)",
    file: "src/report/blocks.ts",
    search: "    } else n += 2;",
    replace: "    } else n += 1;",
    tests: RENDER,
  },
  {
    id: "num-error-formula",
    what: "blocks: a #NUM! cell written as a formula that does not give #NUM!",
    file: "src/report/blocks.ts",
    search: 'return "SQRT(-1)";',
    replace: 'return "SQRT(1)";',
    tests: RENDER,
  },
  {
    id: "header-retry",
    what: "render-plan: after a refused first block, the retry sends the rows without the header",
    file: "src/excel/render-plan.ts",
    search: "          if (pendingBytes > 0) pendingBytes = queueHeader();\n",
    replace: "",
    tests: RENDER,
  },
  {
    id: "quote-sheet",
    what: "plan: a sheet name with an apostrophe quoted without doubling it (a broken formula)",
    file: "src/workbook/plan.ts",
    search: "return `'${name.replace(/'/g, \"''\")}'`;",
    replace: "return `'${name}'`;",
    tests: ["tests/workbook/plan.test.ts"],
  },
  {
    id: "xml-filter",
    what: "xml-text: characters XML cannot hold pass into the parts",
    file: "src/report/xml-text.ts",
    search: "return ILLEGAL.test(text) ? text.replace(ILLEGAL_ALL, REPLACEMENT) : text;",
    replace: "return text;",
    tests: XML,
  },
  {
    id: "xml-filter-surrogates",
    what: "xml-text: an unpaired surrogate not replaced",
    file: "src/report/xml-text.ts",
    search: "|[\\uD800-\\uDBFF](?![\\uDC00-\\uDFFF])|(?<![\\uD800-\\uDBFF])[\\uDC00-\\uDFFF]/;",
    replace: "/;",
    tests: XML,
  },
  {
    id: "xml-filter-title",
    what: "xml-text: the workbook title (docProps/core.xml) not filtered",
    file: "src/report/xml-text.ts",
    search: "    title: xmlText(plan.title),",
    replace: "    title: plan.title,",
    tests: XML,
  },
  {
    id: "quote-shorten",
    what: "quote: input shown in full however long (a 500 KB key)",
    file: "src/text/quote.ts",
    search: "const cut = text.length > max ? head(text, max) : text;",
    replace: "const cut = text;",
    tests: QUOTE,
  },
  {
    id: "terminal-escape",
    what: "quote: ESC reaches the terminal raw",
    file: "src/text/quote.ts",
    search: "/[\\u0000-\\u0008\\u000B-\\u001F",
    replace: "/[\\u0000-\\u0008\\u000B-\\u001A\\u001C-\\u001F",
    tests: QUOTE,
  },
  {
    id: "stderr-unfiltered",
    what: "cli io: stderr written without the terminal filter",
    file: "src/cli/io.ts",
    search: "err: (text) => process.stderr.write(terminalText(text)),",
    replace: "err: (text) => process.stderr.write(text),",
    tests: QUOTE,
  },
  {
    id: "utf16-without-bom",
    what: "detect: UTF-16 little-endian without a BOM read as UTF-8 (missing columns)",
    file: "src/import/detect.ts",
    search: '  if (oddNul >= 0.6 * pairs && evenNul <= 0.05 * pairs) return "utf-16le";\n',
    replace: "",
    tests: ["tests/import/encoding.test.ts"],
  },
  {
    id: "outputs-no-replace",
    what: "outputs: the output moved into place with rename (replaces a file that appeared meanwhile)",
    file: "src/cli/outputs.ts",
    search: "    fs.linkSync(tmp, target);",
    replace: "    fs.renameSync(tmp, target);",
    tests: ["tests/cli/outputs.test.ts", "tests/cli/report.test.ts"],
  },
  {
    id: "doe-fit-scaling",
    what: "DOE_FIT: responses not scaled before squaring (1e200 overflows, 1e-200 underflows)",
    file: "src/core/doe-fit.ts",
    search: "const unit = powerOfTwoScale(keep.map((i) => response[i] as number));",
    replace: "const unit = 1;",
    tests: ["tests/core/doe-fit.test.ts", "tests/core/doe-fit-exact.test.ts"],
  },
  {
    id: "yates-centre",
    what: "Yates: the response not centred (a large offset costs the effects their digits)",
    file: "src/core/yates.ts",
    search: "const centre = mean(y);",
    replace: "const centre = 0;",
    tests: ["tests/core/yates.test.ts", "tests/core/doe-fit-exact.test.ts"],
  },
  {
    id: "yates-compensation",
    what: "Yates: the rounding error of the centring dropped (double-double low part zero)",
    file: "src/core/yates.ts",
    search: "dLo[i] = y[i] - (s - bb) - (centre + bb);",
    replace: "dLo[i] = 0;",
    tests: ["tests/core/yates.test.ts", "tests/core/doe-fit-exact.test.ts"],
  },
];

/** Jest, transpile-only, on the given files: resolves to its exit code. */
function jest(files: string[]): Promise<number> {
  const config = JSON.stringify({
    rootDir: ROOT,
    roots: ["<rootDir>/tests"],
    testEnvironment: "node",
    testTimeout: 60000,
    transform: { "^.+\\.tsx?$": ["ts-jest", { isolatedModules: true, diagnostics: false }] },
  });
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [join(ROOT, "node_modules/jest/bin/jest.js"), "--config", config, "--silent", "--bail", ...files],
      { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] },
    );
    let err = "";
    child.stderr.on("data", (d: Buffer) => {
      if (err.length < 20000) err += d.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (process.env.MUTATE_VERBOSE) process.stderr.write(err);
      resolve(code ?? 1);
    });
  });
}

const backupOf = (file: string): string => `${file}.mutate-backup`;

/** Puts back any original a killed run left as a backup. */
function restoreLeftovers(): void {
  for (const m of MUTATIONS) {
    const path = join(ROOT, m.file);
    if (existsSync(backupOf(path))) {
      renameSync(backupOf(path), path);
      process.stderr.write(`mutate: restored ${m.file} from a backup left by an interrupted run\n`);
    }
  }
}

let active: string | undefined;
function restoreActive(): void {
  if (active && existsSync(backupOf(active))) renameSync(backupOf(active), active);
  active = undefined;
}
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => {
    restoreActive();
    process.stderr.write(`mutate: ${signal}, original restored\n`);
    process.exit(130);
  });
}

/** Applies one mutation, runs its tests, restores the file whatever happens: true when killed. */
async function tryMutation(m: Mutation): Promise<boolean> {
  const path = join(ROOT, m.file);
  const original = readFileSync(path, "utf8");
  const at = original.indexOf(m.search);
  if (at < 0 || original.indexOf(m.search, at + 1) >= 0)
    throw new Error(`${m.id}: the search string is ${at < 0 ? "not in" : "more than once in"} ${m.file}`);
  writeFileSync(backupOf(path), original);
  active = path;
  let killed: boolean;
  try {
    writeFileSync(path, original.slice(0, at) + m.replace + original.slice(at + m.search.length));
    killed = (await jest(m.tests)) !== 0;
  } finally {
    restoreActive();
  }
  if (readFileSync(path, "utf8") !== original) throw new Error(`${m.file} was not restored`);
  return killed;
}

async function main(argv: string[]): Promise<number> {
  restoreLeftovers();
  const only = argv.includes("--only") ? argv[argv.indexOf("--only") + 1].split(",") : undefined;
  const list = MUTATIONS.filter((m) => !only || only.includes(m.id));
  if (argv.includes("--list")) {
    for (const m of list) process.stdout.write(`${m.id}\t${m.file}\t${m.what}\n`);
    return 0;
  }
  const files = [...new Set(list.flatMap((m) => m.tests))];
  process.stderr.write(`mutate: the mapped tests, unmutated (${files.length} files) ...\n`);
  if ((await jest(files)) !== 0) {
    process.stderr.write("mutate: the tests fail without any mutation; fix them first\n");
    return 2;
  }
  const t0 = Date.now();
  let killed = 0;
  const survived: Mutation[] = [];
  for (const m of list) {
    const t = Date.now();
    const k = await tryMutation(m);
    if (k) killed++;
    else survived.push(m);
    process.stdout.write(
      `${k ? "killed  " : "SURVIVED"}  ${m.id.padEnd(24)} ${((Date.now() - t) / 1000).toFixed(0).padStart(3)} s  ${m.what}\n`,
    );
  }
  const score = (100 * killed) / list.length;
  process.stdout.write(
    `\nmutation score: ${killed}/${list.length} killed (${score.toFixed(0)} %) in ${((Date.now() - t0) / 1000).toFixed(0)} s\n`,
  );
  for (const m of survived)
    process.stdout.write(`survived: ${m.id} (${m.file}) — no test in ${m.tests.join(", ")} notices\n`);
  return survived.length === 0 ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    restoreActive();
    process.stderr.write(`mutate: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(2);
  },
);
