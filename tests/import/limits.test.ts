/**
 * Bounded work on hostile input: every case ends with an error naming the file (and line), after
 * reading a bounded amount, instead of running for minutes, growing without end or crashing.
 */
import * as fs from "fs";
import { Readable } from "stream";
import { readLabStream, readLabText } from "../../src/import/detect";
import { parseIogenCsv, parseIogenCsvStream } from "../../src/import/iogen-csv";
import { MAX_COLUMNS, MAX_LINE_BYTES } from "../../src/import/csv-bytes";

const HEADER = "host,step,step_name,subinterval,phase,start_s,seconds,category,iops,service_ms_avg";

/** A stream of `count` chunks of `size` bytes of `byte`, counting how many were pulled. */
function endless(byte: number, size: number, count: number): { stream: Readable; pulled: () => number } {
  let pulled = 0;
  const chunk = Buffer.alloc(size, byte);
  const stream = new Readable({
    read() {
      pulled++;
      this.push(pulled > count ? null : chunk);
    },
  });
  return { stream, pulled: () => pulled };
}

describe("reader limits", () => {
  it(`a header of 17,036 columns is one clear error (at most ${MAX_COLUMNS})`, () => {
    const names = Array.from({ length: 17036 }, (_, i) => `c${i}`);
    const text = `${HEADER},${names.slice(10).join(",")}\n${Array.from({ length: 17036 }, () => "1").join(",")}\n`;
    const r = readLabText(text, "wide.csv");
    expect(r.errors).toEqual([
      {
        file: "wide.csv",
        line: 1,
        message: `the header has 17036 columns; more than ${MAX_COLUMNS} is not an iogen CSV`,
      },
    ]);
  });

  it("a first line longer than the limit is an error after reading about the limit, not the whole input", async () => {
    const { stream, pulled } = endless(0x61, 1 << 16, 1 << 14); // up to 1 GiB of 'a'
    const r = await readLabStream(stream, "long.csv");
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0].message).toMatch(/no line break in the first 1048576 bytes/);
    expect(pulled() * (1 << 16)).toBeLessThan(4 * MAX_LINE_BYTES);
  });

  it("/dev/zero ends with an error", async () => {
    const r = await readLabStream(fs.createReadStream("/dev/zero"), "/dev/zero");
    expect(r.format).toBe("unknown");
    expect(r.errors[0]).toEqual({ file: "/dev/zero", message: expect.stringMatching(/no line break in the first/) });
  });

  it("a header line longer than the limit, even with a valid start, is an error", async () => {
    const r = await parseIogenCsvStream(
      Readable.from([Buffer.from(HEADER), Buffer.alloc(MAX_LINE_BYTES + 10, 0x61)]),
      "h.csv",
    );
    expect(r.errors).toEqual([
      {
        file: "h.csv",
        line: 1,
        message: `the first line is longer than ${MAX_LINE_BYTES} bytes: not an iogen CSV header`,
      },
    ]);
  });

  it("a record that never ends (no line break after a valid header) stops the stream at the limit", async () => {
    const { stream, pulled } = endless(0, 1 << 16, 1 << 14);
    const chunks = (async function* () {
      yield Buffer.from(`${HEADER}\nh,1,a,1,measure,0,1,overall,10,0.1\n`);
      yield* stream;
    })();
    const r = await parseIogenCsvStream(chunks, "z.csv");
    expect(r.errors).toEqual([
      {
        file: "z.csv",
        line: 3,
        message: `line longer than ${MAX_LINE_BYTES} bytes (no line break, or a quote never closed)`,
      },
    ]);
    expect(r.rows).toHaveLength(1);
    expect(pulled() * (1 << 16)).toBeLessThan(4 * MAX_LINE_BYTES);
  });

  it("a quoted field longer than the limit in one piece of text is an error naming its line", () => {
    const big = "x".repeat(MAX_LINE_BYTES + 1);
    const r = parseIogenCsv(`${HEADER},note\nh,1,a,1,measure,0,1,overall,10,0.1,"${big}"\n`, "q.csv");
    expect(r.errors).toEqual([{ file: "q.csv", line: 2, message: `line longer than ${MAX_LINE_BYTES} bytes` }]);
  });

  it("a one-line fio JSON of several MB after fio's warning lines reads in 64 KiB chunks", async () => {
    const template = JSON.parse(fs.readFileSync(`${__dirname}/../../bench/fixtures/fio-3.33-template.json`, "utf8"));
    template.padding = "p".repeat(8 << 20); // one 8 MB line
    const text = `fio: this platform does not support process shared mutexes\nnote: both iodepth >= 1 and synchronous I/O engine are selected\n${JSON.stringify(template)}`;
    const bytes = Buffer.from(text);
    const chunks: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += 1 << 16) chunks.push(bytes.subarray(i, i + (1 << 16)));
    const r = await readLabStream(Readable.from(chunks), "one-line.json");
    expect(r.format).toBe("fio-json");
    expect(r.errors).toEqual([]);
    expect(r.format === "fio-json" && r.fio.rows.length).toBeGreaterThan(0);
  });
});
