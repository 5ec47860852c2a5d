/**
 * Encodings: an iogen CSV or fio JSON saved as UTF-16 (Excel's "Unicode Text", PowerShell 5's
 * Out-File) — with a byte-order mark, little- or big-endian, or without one — reads exactly as its
 * UTF-8 original; UTF-32, and UTF-16 text already misread as UTF-8, are refused naming the encoding
 * and how to convert, never "missing columns".
 */
import * as fs from "fs";
import * as path from "path";
import { LabFileResult, readLabStream, readLabText, sniffEncoding } from "../../src/import/detect";

const IOGEN = path.join(__dirname, "../lab/fixtures/doe2x2/subintervals.csv");
const FIO = path.join(__dirname, "golden/fio-randread-json/input.json");

function utf16(text: string, endian: "le" | "be", bom: boolean): Uint8Array {
  const le = Buffer.from((bom ? "\uFEFF" : "") + text, "utf16le");
  if (endian === "le") return le;
  const be = Buffer.from(le);
  be.swap16();
  return be;
}

function utf32le(text: string): Uint8Array {
  const cps = Array.from("\uFEFF" + text, (c) => c.codePointAt(0) as number);
  return new Uint8Array(Uint32Array.from(cps).buffer);
}

/** The bytes as a stream of `size`-byte chunks (odd sizes split characters between chunks). */
async function* chunks(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

const read = (bytes: Uint8Array, size: number): Promise<LabFileResult> =>
  readLabStream(chunks(bytes, size), "input", bytes.length);

describe.each([
  ["iogen subinterval CSV", IOGEN, "iogen-subinterval"],
  ["fio JSON", FIO, "fio-json"],
])("%s in UTF-16", (_name, file, format) => {
  const text = fs.readFileSync(file, "utf8");
  let expected: LabFileResult;
  beforeAll(async () => {
    expected = await read(Buffer.from(text, "utf8"), 65536);
    expect(expected.format).toBe(format);
    expect(expected.errors).toEqual([]);
  });

  test.each([
    ["little-endian with BOM", "le", true],
    ["big-endian with BOM", "be", true],
    ["little-endian without BOM", "le", false],
    ["big-endian without BOM", "be", false],
  ] as const)("%s reads as its UTF-8 original", async (_label, endian, bom) => {
    const bytes = utf16(text, endian, bom);
    // 4097: chunks end in the middle of a character; 65536: the usual.
    for (const size of [4097, 65536]) expect(await read(bytes, size)).toEqual(expected);
  });
});

test("non-ASCII text in UTF-16 (a label with é, €, 😀) survives the transcoding", async () => {
  const csv = fs.readFileSync(IOGEN, "utf8").replace(/r100-i1000/g, "r100 é€😀");
  const expected = await read(Buffer.from(csv, "utf8"), 65536);
  expect(JSON.stringify(expected)).toContain("r100 é€😀");
  expect(await read(utf16(csv, "le", true), 999)).toEqual(expected);
});

test("UTF-32 is refused naming the encoding and how to convert", async () => {
  const r = await read(utf32le(fs.readFileSync(IOGEN, "utf8")), 65536);
  expect(r.format).toBe("unknown");
  expect(r.errors[0].message).toMatch(/UTF-32 \(little-endian\).*save it as UTF-8/);
  expect(r.errors[0].message).not.toMatch(/missing columns/);
});

test("UTF-16 already decoded as UTF-8 (NULs between the letters) is refused naming UTF-16", () => {
  const misread = new TextDecoder("utf-8").decode(utf16(fs.readFileSync(IOGEN, "utf8"), "le", true));
  const r = readLabText(misread, "input.csv");
  expect(r.errors).toEqual([
    {
      file: "input.csv",
      message: expect.stringMatching(/^the file is UTF-16 \(little-endian\) text read as UTF-8; save it as UTF-8/),
    },
  ]);
});

test("sniffEncoding: BOMs, NUL patterns, and UTF-8 (with NULs elsewhere) left alone", () => {
  expect(sniffEncoding(new Uint8Array([0xef, 0xbb, 0xbf, 0x61]))).toBe("utf-8");
  expect(sniffEncoding(new Uint8Array([0xff, 0xfe, 0x61, 0]))).toBe("utf-16le");
  expect(sniffEncoding(new Uint8Array([0xfe, 0xff, 0, 0x61]))).toBe("utf-16be");
  expect(sniffEncoding(new Uint8Array([0xff, 0xfe, 0, 0]))).toBe("utf-32le");
  expect(sniffEncoding(Buffer.from("step,phase\n".repeat(10), "utf16le"))).toBe("utf-16le");
  expect(sniffEncoding(Buffer.from("step,phase\n".repeat(10), "utf8"))).toBe("utf-8");
  // A binary file with scattered NULs is not UTF-16.
  expect(sniffEncoding(Uint8Array.from({ length: 512 }, (_, i) => (i % 7 === 0 ? 0 : 65 + (i % 26))))).toBe("utf-8");
});
