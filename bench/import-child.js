/**
 * The measured side of `npm run bench:import`, run in a fresh plain `node` process per measurement:
 * the reader and the plan compiled into lib/ (`npm run build:cli`), loaded the way `caplab` loads
 * them. Not run through tsx: its module hooks cost the same reader 10–15 % CPU, which `caplab`
 * users never pay.
 *
 *   node bench/import-child.js reader <caplab|papaparse> FILE   → one ReaderResult as JSON
 *   node bench/import-child.js plan LIST.json                 → one ChildResult as JSON
 */
const { createReadStream, readFileSync, statSync } = require("node:fs");
const { join } = require("node:path");

const LIB = join(__dirname, "..", "lib");
const { readLabStream } = require(join(LIB, "import", "detect.js"));

/** Reads one file with one JS reader and prints rows, wall and CPU seconds of the read alone, memory. */
async function reader(which, file) {
  const Papa = which === "papaparse" ? require("papaparse") : null;
  const baselineRss = process.memoryUsage().rss;
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  let rows = 0;
  if (Papa === null) {
    const r = await readLabStream(createReadStream(file, { highWaterMark: 1 << 20 }), file, statSync(file).size);
    if (r.errors.length > 0 || r.format === "unknown" || r.format === "fio-json") throw new Error("not read");
    rows = r.iogen.table.length;
  } else {
    // The way a browser app would use PapaParse: the text, typed cells, one row at a time.
    let header = true;
    Papa.parse(readFileSync(file, "utf8"), {
      dynamicTyping: true,
      skipEmptyLines: true,
      step: () => {
        if (header) header = false;
        else rows++;
      },
    });
  }
  const cpu = process.cpuUsage(c0);
  return {
    rows,
    wall: Number(process.hrtime.bigint() - t0) / 1e9,
    cpu: (cpu.user + cpu.system) / 1e6,
    peakRss: process.resourceUsage().maxRSS * 1024,
    baselineRss,
  };
}

/** Reads every file, builds the workbook plan, and reports times and memory. */
async function plan(files) {
  const { buildLabPlan } = require(join(LIB, "analysis", "lab-plan.js"));
  const { formatProblem } = require(join(LIB, "import", "types.js"));
  const baselineRss = process.memoryUsage().rss;
  let peakHeap = 0;
  const sampler = setInterval(() => (peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)), 20);
  const t0 = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  const results = [];
  let rows = 0;
  for (const file of files) {
    const r = await readLabStream(createReadStream(file, { highWaterMark: 1 << 20 }), file, statSync(file).size);
    if (r.errors.length > 0) throw new Error(r.errors.map(formatProblem).join("\n"));
    rows += r.format === "fio-json" ? r.fio.rows.length : r.format === "unknown" ? 0 : r.iogen.table.length;
    results.push(r);
  }
  const t1 = process.hrtime.bigint();
  const built = buildLabPlan(results);
  const t2 = process.hrtime.bigint();
  const cpu = process.cpuUsage(cpu0);
  const stepsTable = built.sheets.find((s) => s.name === "Steps")?.tables[0];
  clearInterval(sampler);
  peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  return {
    rows,
    steps: stepsTable?.rows.length ?? 0,
    readSeconds: Number(t1 - t0) / 1e9,
    planSeconds: Number(t2 - t1) / 1e9,
    totalSeconds: Number(t2 - t0) / 1e9,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    baselineRss,
    peakRss: process.resourceUsage().maxRSS * 1024,
    peakHeap,
  };
}

const [mode, a, b] = process.argv.slice(2);
(mode === "reader" ? reader(a, b) : plan(JSON.parse(readFileSync(a, "utf8"))))
  .then((out) => process.stdout.write(JSON.stringify(out) + "\n"))
  .catch((e) => {
    process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  });
