"use strict";
/**
 * Builds `help.html`, the page every function's `@helpurl` points at, from `docs/functions/*.md`.
 *
 * Each Markdown file documents one function: its first line is `# NAME` (NAME = the file name
 * without `.md`, the function's id), then sections Syntax, Arguments, Returns, Notes, Example.
 * The page gets one `<section id="NAME">` per function (so `help.html#MMC_RESPONSE` lands on it),
 * a table of contents, and the task pane's stylesheet. Markdown is rendered with `marked`; the
 * files are our own, so their HTML is trusted.
 *
 * Used by webpack.config.js (HelpPagePlugin); also runnable on its own:
 *   node scripts/help-page.js [docsDir] [out.html]
 */
const fs = require("fs");
const path = require("path");

const escapeHtml = (s) =>
  String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

/**
 * Reads and checks the function pages.
 * @param {string} docsDir directory of NAME.md files
 * @returns {{ name: string, file: string, body: string }[]} sorted by name; body without the title line
 * @throws {Error} when a file's first line is not `# NAME` matching its file name
 */
function readFunctionDocs(docsDir) {
  if (!fs.existsSync(docsDir)) return [];
  return fs
    .readdirSync(docsDir)
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((file) => {
      const name = file.slice(0, -3);
      const text = fs.readFileSync(path.join(docsDir, file), "utf8").replace(/^\uFEFF/, "");
      const [first, ...rest] = text.split(/\r?\n/);
      if (first.trim() !== `# ${name}`) {
        throw new Error(`${path.join(docsDir, file)}: first line must be "# ${name}", found "${first}"`);
      }
      return { name, file, body: rest.join("\n") };
    });
}

/**
 * Renders the help page.
 * @param {string} docsDir directory of NAME.md files
 * @param {Record<string, string>} [summaries] one-line description per function id (from functions.json)
 * @returns {Promise<string>} the HTML document
 */
async function renderHelpPage(docsDir, summaries = {}) {
  const { Marked } = await import("marked");
  // Each page's "## Syntax" etc. sits under the function's own <h2>, so headings go down a level.
  const marked = new Marked({
    gfm: true,
    walkTokens(token) {
      if (token.type === "heading") token.depth = Math.min(6, token.depth + 1);
    },
  });
  const docs = readFunctionDocs(docsDir);
  const toc = docs
    .map(
      (d) =>
        `<li><a href="#${escapeHtml(d.name)}"><code>${escapeHtml(d.name)}</code></a>` +
        (summaries[d.name] ? ` <span class="muted">${escapeHtml(summaries[d.name])}</span>` : "") +
        `</li>`,
    )
    .join("\n        ");
  const sections = [];
  for (const d of docs) {
    const html = await marked.parse(d.body);
    sections.push(
      `<section class="fn-doc" id="${escapeHtml(d.name)}">\n` +
        `      <h2><a class="anchor" href="#${escapeHtml(d.name)}">CAPLAB.${escapeHtml(d.name)}</a></h2>\n` +
        `      ${html.trim()}\n` +
        `      <p class="back"><a href="#top">Back to the list</a></p>\n` +
        `    </section>`,
    );
  }
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="UTF-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Capacity Lab: function help</title>
    <link rel="stylesheet" href="taskpane.css" />
  </head>
  <body class="help">
    <header class="app-header" id="top">
      <img src="assets/icon-32.png" alt="" width="32" height="32" />
      <div>
        <h1>Capacity Lab functions</h1>
        <p>Type <code>=CAPLAB.</code> in a cell to use them. A bad argument gives an Excel error (#VALUE!, #NUM!) whose message names the argument.</p>
      </div>
    </header>
    <main>
      <nav class="toc" aria-label="Functions">
        <ul>
        ${toc || '<li class="muted">No function pages yet.</li>'}
        </ul>
      </nav>
    ${sections.join("\n    ")}
    </main>
  </body>
</html>
`;
}

const PLUGIN = "HelpPagePlugin";

/**
 * Webpack plugin: emits `help.html` from the function pages, and rebuilds it when they change.
 * @param {{ docsDir: string, filename?: string, summaries?: () => Record<string, string> }} options
 */
class HelpPagePlugin {
  constructor(options) {
    this.options = { filename: "help.html", summaries: () => ({}), ...options };
  }

  apply(compiler) {
    const { webpack } = compiler;
    compiler.hooks.thisCompilation.tap(PLUGIN, (compilation) => {
      compilation.contextDependencies.add(this.options.docsDir);
      compilation.hooks.processAssets.tapPromise(
        { name: PLUGIN, stage: webpack.Compilation.PROCESS_ASSETS_STAGE_ADDITIONAL },
        async () => {
          try {
            const html = await renderHelpPage(this.options.docsDir, this.options.summaries());
            compilation.emitAsset(this.options.filename, new webpack.sources.RawSource(html));
          } catch (e) {
            compilation.errors.push(new webpack.WebpackError(`${PLUGIN}: ${e.message}`));
          }
        },
      );
    });
  }
}

module.exports = { renderHelpPage, readFunctionDocs, HelpPagePlugin };

if (require.main === module) {
  const docsDir = path.resolve(process.argv[2] || path.join(__dirname, "..", "docs", "functions"));
  const out = process.argv[3];
  renderHelpPage(docsDir).then(
    (html) => (out ? fs.writeFileSync(out, html) : process.stdout.write(html)),
    (e) => {
      process.stderr.write(`help-page: ${e.message}\n`);
      process.exit(1);
    },
  );
}
