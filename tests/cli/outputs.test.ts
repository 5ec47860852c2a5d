/**
 * writeOutputs: a set of files written whole or not at all, never replacing a file without force —
 * not even one that appears while the set is being made.
 */
import * as fs from "fs";
import * as path from "path";
import { Readable } from "stream";
import { Output, OutputError, writeOutputs } from "../../src/cli/outputs";
import { UsageError } from "../../src/cli/options";
import { useTempDir } from "../helpers/cli";
import JSZip from "jszip";
import type { WorkbookPlan } from "../../src/workbook/plan";
import { renderXlsxContent } from "../../src/report/xlsx";

const tempDir = useTempDir("caplab-outputs-");
let dir: string;
beforeEach(() => {
  dir = tempDir();
});

const out = (name: string, content: Output["content"], option = `--${name}`): Output => ({
  option,
  path: path.join(dir, name),
  ext: /\.(xlsx|html)$/i,
  content,
});
const read = (name: string): string => fs.readFileSync(path.join(dir, name), "utf8");

describe("writeOutputs", () => {
  test("writes every output (bytes, text, a stream) and leaves no temporary file", async () => {
    const written = await writeOutputs(
      [
        out("a.xlsx", () => Buffer.from("bytes")),
        out("b.html", () => "text"),
        out("c.html", () => Readable.from(["str", "eam"])),
      ],
      { force: false },
    );
    expect(written).toEqual(["a.xlsx", "b.html", "c.html"].map((f) => path.join(dir, f)));
    expect([read("a.xlsx"), read("b.html"), read("c.html")]).toEqual(["bytes", "text", "stream"]);
    expect(fs.readdirSync(dir).sort()).toEqual(["a.xlsx", "b.html", "c.html"]);
  });

  test("the streaming .xlsx writer's stream (archiver's, not a node:stream Readable) is written whole", async () => {
    // What `caplab report` gives writeOutputs for a plan above 250,000 cells.
    const plan: WorkbookPlan = {
      title: "t",
      sources: [],
      warnings: [],
      sheets: [
        {
          name: "S",
          notes: ["n"],
          tables: [{ name: "T", columns: [{ key: "x", header: "x" }], rows: [[1], [2]], at: { row: 2, col: 0 } }],
          charts: [],
          freezeHeader: false,
        },
      ],
    };
    await writeOutputs([out("big.xlsx", () => renderXlsxContent(plan, { streamAboveCells: 0 }))], { force: false });
    const zip = await JSZip.loadAsync(fs.readFileSync(path.join(dir, "big.xlsx")));
    expect(await zip.file("xl/worksheets/sheet1.xml")?.async("string")).toContain("<v>2</v>");
    expect(fs.readdirSync(dir)).toEqual(["big.xlsx"]);
  });

  test("checks all before making any: an existing output without force, a name twice, a wrong extension", async () => {
    fs.writeFileSync(path.join(dir, "b.html"), "theirs");
    let made = 0;
    const make = (): string => String(++made);
    await expect(writeOutputs([out("a.xlsx", make), out("b.html", make)], { force: false })).rejects.toThrow(
      new UsageError(`--b.html ${path.join(dir, "b.html")}: exists; pass --force to replace it`),
    );
    await expect(writeOutputs([out("a.xlsx", make), out("a.xlsx", make, "-o")], { force: false })).rejects.toThrow(
      "-o and --a.xlsx name the same file",
    );
    await expect(writeOutputs([out("a.txt", make)], { force: false })).rejects.toThrow("must end in .xlsx or .html");
    await expect(
      writeOutputs([out("a.xlsx", make)], { force: true, inputs: [path.join(dir, "a.xlsx")] }),
    ).rejects.toThrow("is one of the inputs");
    expect(made).toBe(0);
    expect(fs.readdirSync(dir)).toEqual(["b.html"]);
  });

  test("a file that appears at an output while the set is made is not replaced, and nothing of the set stays", async () => {
    const late = path.join(dir, "b.html");
    const outputs = [
      out("a.xlsx", () => "ours a"),
      out("b.html", () => {
        fs.writeFileSync(late, "another program's"); // appears after the checks, before the move
        return "ours b";
      }),
    ];
    const e = await writeOutputs(outputs, { force: false }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(OutputError);
    expect((e as OutputError).file).toBe(late);
    expect((e as Error).message).toContain(`${late}: a file appeared there while writing; not replaced`);
    expect(read("b.html")).toBe("another program's");
    expect(fs.readdirSync(dir)).toEqual(["b.html"]); // a.xlsx taken back, no temporary files
  });

  test("with force: what is replaced comes back when a later output fails", async () => {
    fs.writeFileSync(path.join(dir, "a.xlsx"), "old a");
    const outputs = [
      out("a.xlsx", () => "new a"),
      out("b.html", () =>
        Readable.from(
          (function* () {
            yield "half";
            throw new Error("disk full");
          })(),
        ),
      ),
    ];
    const e = await writeOutputs(outputs, { force: true }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(OutputError);
    expect((e as Error).message).toBe(`cannot write ${path.join(dir, "b.html")}: disk full`);
    expect(read("a.xlsx")).toBe("old a");
    expect(fs.readdirSync(dir)).toEqual(["a.xlsx"]);
  });

  test("with force: an existing output is replaced and the old one not kept", async () => {
    fs.writeFileSync(path.join(dir, "a.xlsx"), "old a");
    await writeOutputs([out("a.xlsx", () => "new a")], { force: true });
    expect(read("a.xlsx")).toBe("new a");
    expect(fs.readdirSync(dir)).toEqual(["a.xlsx"]);
  });
});

describe("an output directory renamed while the set is written", () => {
  test("nothing is placed in the moved directory and no temporary file is left in it", async () => {
    const sub = path.join(dir, "out");
    fs.mkdirSync(sub);
    const moved = path.join(dir, "moved");
    const outputs: Output[] = [
      { option: "-o", path: path.join(sub, "a.xlsx"), ext: /\.xlsx$/, content: () => Buffer.from("a") },
      {
        option: "--html",
        path: path.join(sub, "b.html"),
        ext: /\.html$/,
        // The first output's temporary file is written by now: the directory moves under it.
        content: () => {
          fs.renameSync(sub, moved);
          fs.mkdirSync(sub); // and a new, empty directory takes its name
          return "b";
        },
      },
    ];
    const p = writeOutputs(outputs, { force: false });
    await expect(p).rejects.toThrow(OutputError);
    await expect(p).rejects.toThrow(
      `${path.join(sub, "a.xlsx")}: its directory was moved or renamed while writing; nothing written`,
    );
    expect(fs.readdirSync(moved)).toEqual([]);
    expect(fs.readdirSync(sub)).toEqual([]);
  });

  test("the same when the directory is only renamed (its path then leads nowhere)", async () => {
    const sub = path.join(dir, "out");
    fs.mkdirSync(sub);
    const moved = path.join(dir, "moved");
    const outputs: Output[] = [
      { option: "-o", path: path.join(sub, "a.xlsx"), ext: /\.xlsx$/, content: () => Buffer.from("a") },
      {
        option: "--html",
        path: path.join(sub, "b.html"),
        ext: /\.html$/,
        content: () => {
          fs.renameSync(sub, moved);
          return "b";
        },
      },
    ];
    await expect(writeOutputs(outputs, { force: false })).rejects.toThrow(OutputError);
    expect(fs.readdirSync(moved)).toEqual([]);
    expect(fs.existsSync(sub)).toBe(false);
  });
});
