/**
 * The readers run unchanged in a browser Web Worker (the pane) and in Node (caplab): no Node
 * module, no Buffer, no process in src/import or in src/text (the message helpers they use) —
 * only Uint8Array, TextDecoder and TextEncoder.
 */
import * as fs from "fs";
import * as path from "path";

const SRC = path.join(__dirname, "..", "..", "src");

describe.each(["import", "text"])("src/%s is browser-safe", (dir) => {
  const files = fs.readdirSync(path.join(SRC, dir)).filter((f) => f.endsWith(".ts"));

  it.each(files)("%s imports only its siblings (or src/text) and uses no Node global", (file) => {
    const code = fs
      .readFileSync(path.join(SRC, dir, file), "utf8")
      .replace(/\/\*[^]*?\*\//g, "")
      .replace(/\/\/.*$/gm, "");
    const imports = [...code.matchAll(/from\s+"([^"]+)"/g)].map((m) => m[1]);
    for (const source of imports) expect(source).toMatch(/^\.\/|^\.\.\/text\//);
    expect(code).not.toMatch(/\b(Buffer|process|require|__dirname)\b/);
  });
});
