import fc from "fast-check";
import { Readable } from "stream";
import { IogenCsvReader, parseIogenCsv, parseIogenCsvStream } from "../../src/import/iogen-csv";
import { detectFormat, readLabText } from "../../src/import/detect";

const HEADER = "host,step,step_name,subinterval,phase,start_s,seconds,category,iops,service_ms_avg";

describe("parseIogenCsv", () => {
  it("matches columns by name in any order and keeps unknown columns as text labels", () => {
    const text = "iops,protocol,step,category,phase,subinterval,seconds,Run\n1234.5,nfs,3,overall,measure,7,1,12\n";
    const r = parseIogenCsv(text, "x.csv");
    expect(r.errors).toEqual([]);
    expect(r.rows).toHaveLength(1);
    expect(r.rows[0].values.iops).toBe(1234.5);
    expect(r.rows[0].values.step).toBe(3);
    expect(r.rows[0].values.subinterval).toBe(7);
    expect(r.rows[0].labels).toEqual({ protocol: "nfs", Run: "12" });
    expect(r.labelColumns).toEqual(["protocol", "Run"]);
  });

  it("reads European Excel CSV: BOM, CRLF, ';' delimiter, decimal commas", () => {
    const text =
      "\uFEFFstep;category;phase;subinterval;seconds;iops;service_ms_avg\r\n1;overall;measure;1;1;1999,75;0,125\r\n";
    const r = parseIogenCsv(text, "eu.csv");
    expect(r.errors).toEqual([]);
    expect(r.delimiter).toBe(";");
    expect(r.header[0]).toBe("step");
    expect(r.rows[0].values.iops).toBe(1999.75);
    expect(r.rows[0].values.service_ms_avg).toBe(0.125);
  });

  it("keeps a hostile label as the text it is", () => {
    const text = `${HEADER},note\nh,1,a,1,measure,0,1,overall,10,0.1,"=HYPERLINK(""http://x"",""y"")"\n`;
    const r = parseIogenCsv(text, "h.csv");
    expect(r.rows[0].labels.note).toBe('=HYPERLINK("http://x","y")');
  });

  it("skips a truncated last line and says so in a warning", () => {
    const text = `${HEADER}\nh,1,a,1,measure,0,1,overall,10,0.1\nh,1,a,2,meas`;
    const r = parseIogenCsv(text, "t.csv");
    expect(r.errors).toEqual([]);
    expect(r.rows).toHaveLength(1);
    expect(r.warnings).toEqual([
      { file: "t.csv", line: 3, message: expect.stringContaining("truncated last line skipped") },
    ]);
  });

  it("reports a short line in the middle as an error with its line number", () => {
    const text = `${HEADER}\nh,1,a,1,measure\nh,1,a,2,measure,1,1,overall,10,0.1\n`;
    const r = parseIogenCsv(text, "m.csv");
    expect(r.errors).toEqual([{ file: "m.csv", line: 2, message: "5 fields, the header has 10" }]);
  });

  it("names every missing required column", () => {
    const r = parseIogenCsv(
      "host,step,subinterval,phase,seconds,category,mb_s\nh,1,1,measure,1,overall,4\n",
      "no-iops.csv",
    );
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0].message).toMatch(/missing required column iops\b/);
    const r2 = parseIogenCsv("host,category,phase,subinterval,mb_s,cpu_busy_pct\n", "two.csv");
    expect(r2.errors[0].message).toMatch(/missing required columns step, seconds, iops/);
  });

  it("tells subinterval from summary files", () => {
    expect(detectFormat(HEADER)).toBe("iogen-subinterval");
    expect(detectFormat("host,step,category,iops,measure_seconds,seen_enough,achieved_pm")).toBe("iogen-summary");
    expect(detectFormat("a,b,c")).toBe("unknown");
    expect(detectFormat('{\n "fio version": "fio-3.33"')).toBe("fio-json");
  });

  it("reads a stream like the text, in any chunking", async () => {
    const text =
      "\uFEFFstep;category;phase;subinterval;seconds;iops\r\n1;overall;measure;1;1;10,5\r\n1;overall;measure;2;1;11,5\r\n1;over";
    const whole = parseIogenCsv(text, "s.csv");
    for (const size of [1, 2, 3, 5, 64]) {
      const bytes = Buffer.from(text, "utf8");
      const chunks: Buffer[] = [];
      for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
      expect(await parseIogenCsvStream(Readable.from(chunks), "s.csv")).toEqual(whole);
    }
    expect(whole.rows.map((r) => r.values.iops)).toEqual([10.5, 11.5]);
    expect(whole.warnings).toHaveLength(1);
  });

  it("does not modify a frozen input; a last line without its line break is dropped and said (it may be cut off)", () => {
    const text = Object.freeze(
      `${HEADER}\nh,1,a,1,measure,0,1,overall,10,0.1\nh,1,a,2,measure,0,1,overall,10,0.1`,
    ) as string;
    const r = readLabText(text, "f.csv");
    expect(r.errors).toEqual([]);
    expect(r.format).toBe("iogen-subinterval");
    expect(r.format === "iogen-subinterval" && r.iogen.rows.length).toBe(1);
    expect(r.warnings).toEqual([
      {
        file: "f.csv",
        line: 3,
        message: "1 truncated last line skipped (no line break at its end, so its last value '0.1' may be cut off)",
      },
    ]);
  });

  it("reads the first of a repeated column, as its warning says, on every path", async () => {
    // Plain records (the fast path), a quoted record (the general path), and a stream; the
    // repeated column comes after the first, before it among labels, and as the last field.
    for (const [header, row] of [
      ["host,step,subinterval,phase,seconds,category,iops,iops", "h,1,1,measure,1,overall,5000,7"],
      ["iops,host,step,note,subinterval,phase,seconds,category,iops,note", "5000,h,1,a,1,measure,1,overall,7,b"],
    ]) {
      // Subintervals 1, 2, 3 (the same subinterval twice would be a duplicate row, an error).
      const sub = (k: number): string => row.replace(",1,measure", `,${k},measure`).replace(/,1,a,1,/, `,1,a,${k},`);
      const text = `${header}\n${sub(1)}\n${sub(2).replace("5000", '"5000"')}\n${sub(3)}\n`;
      for (const r of [
        parseIogenCsv(text, "dup.csv"),
        await parseIogenCsvStream(Readable.from([Buffer.from(text)]), "dup.csv"),
      ]) {
        expect(r.errors).toEqual([]);
        expect(r.rows.map((x) => x.values.iops)).toEqual([5000, 5000, 5000]);
        expect(r.warnings[0]).toEqual({
          file: "dup.csv",
          line: 1,
          message: "duplicate column 'iops': the first one is used",
        });
        if (header.includes("note")) expect(r.rows.map((x) => x.labels.note)).toEqual(["a", "a", "a"]);
      }
    }
  });

  it("refuses a negative number: iogen writes none", () => {
    const r = parseIogenCsv(`${HEADER}\nh,1,a,1,measure,0,1,overall,-10,0.1\n`, "n.csv");
    expect(r.errors).toEqual([
      { file: "n.csv", line: 2, message: "column iops: -10 is negative (iogen writes no negative value)" },
    ]);
  });
});

describe("rows without iops", () => {
  it("are skipped with a warning (iogen writes an empty iops for a step interrupted in warm-up)", () => {
    const text = `${HEADER}\nh,1,a,1,measure,0,1,overall,10,0.1\nh,2,b,1,measure,0,0,overall,,\nh,3,c,1,measure,0,0,overall,,\n`;
    const r = parseIogenCsv(text, "e.csv");
    expect(r.errors).toEqual([]);
    expect(r.rows.map((x) => x.values.step)).toEqual([1]);
    expect(r.warnings.map((w) => w.message)).toEqual([
      "row without iops skipped (a step interrupted during warm-up?)",
      "2 rows without iops skipped in all",
    ]);
  });
});

describe("column storage and number parsing", () => {
  /** Decimal texts as iogen and Excel write them: up to 20 digits, a decimal point anywhere (iogen writes no negative value). */
  const decimal = fc
    .tuple(fc.constant(false), fc.stringMatching(/^[0-9]{1,20}$/), fc.nat({ max: 21 }))
    .map(([neg, digits, dot]) => {
      const p = Math.min(dot, digits.length);
      const body = p === 0 || p === digits.length ? digits : `${digits.slice(0, p)}.${digits.slice(p)}`;
      return `${neg ? "-" : ""}${body}`;
    });

  it("reads every plain decimal as exactly the double Number() gives, in both dialects", () => {
    fc.assert(
      fc.property(fc.array(decimal, { minLength: 1, maxLength: 30 }), (texts) => {
        const dot = parseIogenCsv(
          `step,category,phase,subinterval,seconds,iops\n${texts.map((t) => `1,overall,measure,1,1,${t}`).join("\n")}\n`,
          "d.csv",
        );
        const comma = parseIogenCsv(
          `step;category;phase;subinterval;seconds;iops\n${texts.map((t) => `1;overall;measure;1;1;${t.replace(".", ",")}`).join("\n")}\n`,
          "c.csv",
        );
        const expected = texts.map((t) => Number(t));
        expect(dot.rows.map((r) => r.values.iops)).toEqual(expected);
        expect(comma.rows.map((r) => r.values.iops)).toEqual(expected);
      }),
      { numRuns: 200 },
    );
  });

  it("keeps every row of a file larger than the initial column capacity, in order", () => {
    const lines = Array.from(
      { length: 5000 },
      (_, i) => `h${i % 3},${1 + (i % 7)},s,${i},measure,${i},1,overall,${i}.5,`,
    );
    const r = parseIogenCsv(`${HEADER}\n${lines.join("\n")}\n`, "big.csv");
    expect(r.errors).toEqual([]);
    expect(r.table.length).toBe(5000);
    expect(r.table.column("iops")?.values()[4999]).toBe(4999.5);
    expect(r.table.value("service_ms_avg", 10)).toBeNull();
    expect(r.table.value("mb_s", 10)).toBeNull(); // a column the file lacks
    expect(r.table.text.host.texts).toEqual(["h0", "h1", "h2"]);
    const row = r.table.row(4001);
    expect([row.line, row.host, row.values.step, row.values.subinterval]).toEqual([4003, "h2", (4001 % 7) + 1, 4001]);
  });

  it("keeps 130,000 distinct label texts (compacting the dictionary must not spread it onto the stack)", () => {
    // The empty text is interned for every label column but no row holds it, so the dictionary is
    // compacted; a spread of 130,000 arguments overflowed the call stack there.
    const n = 130_000;
    const lines = Array.from({ length: n }, (_, i) => `h,1,a,${i + 1},measure,${i},1,overall,10,0.1,n${i}`);
    const r = parseIogenCsv(`${HEADER},note\n${lines.join("\n")}\n`, "labels.csv");
    expect(r.errors).toEqual([]);
    expect(r.table.length).toBe(n);
    const note = r.table.labels[0].column;
    expect(note.texts.length).toBe(n);
    expect([note.get(0), note.get(77_777), note.get(n - 1)]).toEqual(["n0", "n77777", `n${n - 1}`]);
  });

  it("leaves no partial row behind when a number in the middle of a row is bad", () => {
    const r = parseIogenCsv(
      `${HEADER}\nh,1,a,1,measure,0,1,overall,x,0.1\nh,1,a,2,measure,1,1,overall,10,0.1\n`,
      "b.csv",
    );
    expect(r.errors).toEqual([{ file: "b.csv", line: 2, message: "column iops: 'x' is not a number" }]);
    expect(r.table.length).toBe(1);
    expect(r.table.column("step")?.values().length).toBe(1);
    expect(r.rows.map((x) => x.values.subinterval)).toEqual([2]);
  });
});

describe("the fast path for plain records", () => {
  const HEAD = "host,step,phase,subinterval,seconds,category,iops,service_ms_avg,note";
  /** Cells that are plain (fast path) and cells that are not (empty, quoted, signed, blank, too long, bad). */
  const numberCell = fc.oneof(
    fc.stringMatching(/^[0-9]{1,12}(\.[0-9]{0,6})?$/),
    fc.constantFrom("", ".", "-1", " 2", "2 ", "1e3", "12345678901234567", "0.1234567890123456", '"7"', "x", "5."),
  );
  const textCell = fc.oneof(
    fc.constantFrom("h1", "h2", "measure", "warmup", "read", "overall", ""),
    fc.constantFrom('"q,uoted"', '"multi\nline"', '"say ""hi"""', " spaced ", "=1+1"),
  );
  const record = fc.tuple(
    textCell,
    numberCell,
    textCell,
    numberCell,
    numberCell,
    textCell,
    numberCell,
    numberCell,
    textCell,
  );
  const file = fc.record({
    records: fc.array(record, { maxLength: 40 }),
    crlf: fc.boolean(),
    extraField: fc.nat({ max: 60 }),
    /** Without the text column "note", so a number ends each line (before a CR in CRLF files too). */
    numberLast: fc.boolean(),
    tail: fc.constantFrom("", "h1,1,measure"),
  });

  it("stores, rejects and reports exactly what the general path does, in any chunking", async () => {
    await fc.assert(
      fc.asyncProperty(
        file,
        fc.array(fc.integer({ min: 1, max: 97 }), { minLength: 1, maxLength: 6 }),
        async (f, sizes) => {
          const nl = f.crlf ? "\r\n" : "\n";
          const cells = f.records.map((r) => (f.numberLast ? r.slice(0, -1) : r));
          const lines = cells.map((r, i) => (i === f.extraField ? [...r, "extra"] : r).join(","));
          const head = f.numberLast ? HEAD.replace(/,note$/, "") : HEAD;
          const text = `${head}${nl}${lines.map((l) => l + nl).join("")}${f.tail}`;
          const bytes = Buffer.from(text, "utf8");
          const general = new IogenCsvReader("f.csv", 0, { plainPath: false });
          general.push(bytes);
          const expected = general.finish();
          const whole = new IogenCsvReader("f.csv");
          whole.push(bytes);
          expect(whole.finish()).toEqual(expected);
          const chunks: Uint8Array[] = [];
          for (let i = 0, k = 0; i < bytes.length; k++) {
            const size = sizes[k % sizes.length];
            chunks.push(bytes.subarray(i, i + size));
            i += size;
          }
          expect(await parseIogenCsvStream(Readable.from(chunks), "f.csv")).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("a fatal record finished across a chunk boundary", () => {
  it("is reported once, and reading stops", () => {
    const head = "step,category,phase,subinterval,seconds,iops\n1,overall,measure,1,1,5\n";
    // A record longer than MAX_LINE_BYTES, cut so its end (and line break) arrive in the next chunk.
    const long = `1,overall,measure,2,1,${"9".repeat((1 << 20) + 5000)}`;
    const bytes = Buffer.from(`${head}${long}\n${"1,overall,measure,3,1,7\n".repeat(60_000)}`, "utf8");
    const reader = new IogenCsvReader("long.csv");
    // The first chunk leaves a partial record under the limit; the next one completes it past it.
    const cut = head.length + (1 << 20) - 100;
    expect(reader.push(bytes.subarray(0, cut))).toBe(true);
    expect(reader.push(bytes.subarray(cut))).toBe(false);
    const r = reader.finish();
    expect(r.errors).toEqual([{ file: "long.csv", line: 3, message: "line longer than 1048576 bytes" }]);
    expect(r.table.length).toBe(1);
  });
});
