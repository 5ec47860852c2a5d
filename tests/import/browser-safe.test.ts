/**
 * The readers run unchanged in a browser Web Worker (the pane) and in Node (caplab): no Node
 * module, no Buffer, no process in src/import — only Uint8Array, TextDecoder and TextEncoder.
 */
import * as fs from "fs";
import * as path from "path";

const DIR = path.join(__dirname, "..", "..", "src", "import");

describe("src/import is browser-safe", () => {
  const files = fs.readdirSync(DIR).filter((f) => f.endsWith(".ts"));

  it.each(files)("%s imports only its siblings and uses no Node global", (file) => {
    const code = fs
      .readFileSync(path.join(DIR, file), "utf8")
      .replace(/\/\*[^]*?\*\//g, "")
      .replace(/\/\/.*$/gm, "");
    const imports = [...code.matchAll(/from\s+"([^"]+)"/g)].map((m) => m[1]);
    for (const source of imports) expect(source).toMatch(/^\.\//);
    expect(code).not.toMatch(/\b(Buffer|process|require|__dirname)\b/);
  });
});
