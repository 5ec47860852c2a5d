/**
 * Text from input in messages: escaped (no control character reaches a terminal) and shortened
 * (a 500 KB key is not printed in full), at the message and again where the CLI writes.
 */
import * as fs from "fs";
import * as path from "path";
import { MAX_LINE, quote, shown, terminalText } from "../../src/text/quote";
import { defaultIo } from "../../src/cli/io";
import { main } from "../../src/cli/main";
import { readLabText } from "../../src/import/detect";
import { formatProblem } from "../../src/import/types";
import { useTempDir } from "../helpers/cli";

const ATTACK = "x\u001b]0;owned\u0007\u001b[2J\u0000\r\u009b\u202e";
/** Every byte a terminal acts on: C0 (but tab and LF in whole messages), DEL, C1. */
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E]/;

describe("shown / quote", () => {
  test("escapes ESC, BEL, NUL, CR, C1 and bidi overrides; doubles a backslash", () => {
    expect(shown(ATTACK)).toBe("x\\x1b]0;owned\\x07\\x1b[2J\\x00\\x0d\\x9b\\u202e");
    expect(shown("a\\x1b")).toBe("a\\\\x1b");
    expect(shown("tab\there\nline")).toBe("tab\\x09here\\x0aline");
    expect(shown("£100 é 😀")).toBe("£100 é 😀");
    expect(shown("\uD800")).toBe("\\ud800");
  });

  test("shortens to max characters with an ellipsis and the original length, never splitting a pair", () => {
    const key = "k".repeat(500_000);
    expect(shown(key)).toBe(`${"k".repeat(80)}… (500,000 characters)`);
    expect(shown("é".repeat(10), 4)).toBe("éééé… (10 characters)");
    expect(shown("a😀b", 2)).toBe("a… (4 characters)");
    expect(quote('say "hi"\u001b')).toBe('"say \\"hi\\"\\x1b"');
  });

  test("terminalText keeps a message's tabs and line breaks, escapes the rest, cuts long lines", () => {
    expect(terminalText(`error: ${ATTACK}\n\tnext\n`)).toBe(
      "error: x\\x1b]0;owned\\x07\\x1b[2J\\x00\\x0d\\x9b\\u202e\n\tnext\n",
    );
    const long = terminalText(`bad key ${"k".repeat(500_000)}: unknown field\nnext line\n`);
    expect(long.length).toBeLessThan(MAX_LINE + 100);
    expect(long).toMatch(/^bad key k+ … \(line of 500,023 characters, middle cut\) … k+: unknown field\nnext line\n$/);
    expect(terminalText("C:\\Users\\x.csv")).toBe("C:\\Users\\x.csv");
  });
});

describe("messages that echo input", () => {
  test("import problems: a duplicate column, a bad number", () => {
    const ATTACK = "x\u001b]0;owned\u0007\u001b[2J\u0000\u009b\u202e"; // no CR: a line break in a CSV
    const csv =
      `step,phase,subinterval,seconds,category,iops,iops,${ATTACK}\n` +
      `1,measure,1,1,overall,${"9".repeat(100)}x${ATTACK},1,a\n`;
    const r = readLabText(csv.replace(`iops,iops`, `iops,${ATTACK},${ATTACK}`), "f.csv");
    const all = [...r.warnings, ...r.errors].map(formatProblem).join("\n");
    expect(all).toMatch(/duplicate column 'x\\x1b\]0;owned\\x07\\x1b\[2J\\x00\\x9b\\u202e'/);
    expect(all).not.toMatch(RAW_CONTROL);
    const bad = readLabText(csv, "g.csv");
    const text = bad.errors.map(formatProblem).join("\n");
    expect(text).toMatch(/column iops: '9{40}… \(119 characters\)' is not a number/);
    expect(text).not.toMatch(RAW_CONTROL);
  });

  test("defaultIo writes no raw control character and no 500 KB line to the terminal", () => {
    const written: string[] = [];
    const spy = jest.spyOn(process.stderr, "write").mockImplementation((t: string | Uint8Array) => {
      written.push(String(t));
      return true;
    });
    const out = jest.spyOn(process.stdout, "write").mockImplementation((t: string | Uint8Array) => {
      written.push(String(t));
      return true;
    });
    try {
      defaultIo.err(`caplab case: options.${"k".repeat(500_000)}${ATTACK}: unknown field\n`);
      defaultIo.out(`B saves £5 ${ATTACK}\n`);
    } finally {
      spy.mockRestore();
      out.mockRestore();
    }
    expect(written.join("")).not.toMatch(RAW_CONTROL);
    expect(written[0].length).toBeLessThan(MAX_LINE + 100);
    expect(written[1]).toBe("B saves £5 x\\x1b]0;owned\\x07\\x1b[2J\\x00\\x0d\\x9b\\u202e\n");
  });

  const tempDir = useTempDir("caplab-quote-");
  test("caplab case with a 500 KB key and an escape sequence in a name: the message is short and inert", async () => {
    const dir = tempDir();
    const input = path.join(dir, "case.json");
    const json = JSON.parse(fs.readFileSync(path.join(__dirname, "../../examples/storage-replacement.json"), "utf8"));
    json.options[0][`k${"k".repeat(500_000)}${ATTACK}`] = 1;
    fs.writeFileSync(input, JSON.stringify(json));
    const written: string[] = [];
    const spy = jest.spyOn(process.stderr, "write").mockImplementation((t: string | Uint8Array) => {
      written.push(String(t));
      return true;
    });
    let code: number;
    try {
      code = await main(["case", input, "-o", path.join(dir, "o.xlsx")]);
    } finally {
      spy.mockRestore();
    }
    expect(code).toBe(2);
    const text = written.join("");
    expect(text).toMatch(/unknown field/);
    expect(text).not.toMatch(RAW_CONTROL);
    expect(text.length).toBeLessThan(3 * MAX_LINE);
  });

  test("an unknown command is shown escaped", async () => {
    const err: string[] = [];
    expect(await main([`x${ATTACK}`], { out: () => undefined, err: (t) => err.push(t) })).toBe(2);
    expect(err.join("")).toMatch(/unknown command 'xx\\x1b\]0;owned/);
  });
});
