/**
 * Golden cases: each folder of tests/import/golden/ holds an input (input.csv or input.json) and
 * expected.json, the reader's whole result (format, rows, warnings, errors). A mismatch writes
 * actual.json beside expected.json (git-ignored) so the difference can be inspected with diff.
 * To (re)create expected files after reviewing a deliberate change: UPDATE_GOLDEN=1 npx jest tests/import.
 *
 * fio inputs are real fio 3.33 output (Debian's fio), produced by the job.fio beside them.
 */
import * as fs from "fs";
import * as path from "path";
import { Readable } from "stream";
import { readLabStream, readLabText } from "../../src/import/detect";

const GOLDEN = path.join(__dirname, "golden");
const cases = fs
  .readdirSync(GOLDEN)
  .filter((d) => fs.statSync(path.join(GOLDEN, d)).isDirectory())
  .sort();

function inputOf(dir: string): string {
  const f = fs.readdirSync(dir).find((n) => n.startsWith("input."));
  if (!f) throw new Error(`${dir}: no input file`);
  return f;
}

/** The result as JSON data, the way expected.json stores it. */
function snapshot(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

describe("import golden cases", () => {
  it("has cases", () => {
    expect(cases.length).toBeGreaterThanOrEqual(10);
  });

  for (const name of cases) {
    it(name, async () => {
      const dir = path.join(GOLDEN, name);
      const input = inputOf(dir);
      const text = fs.readFileSync(path.join(dir, input), "utf8");
      const actual = snapshot(readLabText(text, input));
      const expectedPath = path.join(dir, "expected.json");
      const actualPath = path.join(dir, "actual.json");
      if (process.env.UPDATE_GOLDEN === "1") fs.writeFileSync(expectedPath, JSON.stringify(actual, null, 2) + "\n");
      const expected = JSON.parse(fs.readFileSync(expectedPath, "utf8"));
      try {
        expect(actual).toEqual(expected);
        if (fs.existsSync(actualPath)) fs.unlinkSync(actualPath);
      } catch (e) {
        fs.writeFileSync(actualPath, JSON.stringify(actual, null, 2) + "\n");
        throw e;
      }
      // The streaming reader gives the same result, whatever the chunking (7-byte chunks split
      // lines, multi-byte characters and CRLF pairs).
      const bytes = fs.readFileSync(path.join(dir, input));
      const chunks: Buffer[] = [];
      for (let i = 0; i < bytes.length; i += 7) chunks.push(bytes.subarray(i, i + 7));
      const streamed = snapshot(await readLabStream(Readable.from(chunks), input));
      expect(streamed).toEqual(expected);
    });
  }
});
