/**
 * The production build in dist/ (made by `npm run build`, which `npm test` runs first): the files
 * Excel loads, the functions' metadata with its descriptions and help links, the help page's
 * anchors, the copied manifest, and the task pane rendering offline in headless Chromium.
 * Fails (never skips) when dist/ is missing.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { checkReferences } from "../scripts/validate-manifest";
import { openOffline } from "../scripts/screenshot";
import { filterFunctions, relativeHelpLink, signature, FunctionSummary } from "../src/taskpane/function-catalog";

const ROOT = path.resolve(__dirname, "..");
const DIST = path.join(ROOT, "dist");
const EXPECTED_FILES = [
  "taskpane.html",
  "taskpane.js",
  "taskpane.css",
  "functions.js",
  "functions.json",
  "commands.html",
  "commands.js",
  "manifest.xml",
  "help.html",
  "assets/icon-16.png",
  "assets/icon-32.png",
  "assets/icon-64.png",
  "assets/icon-80.png",
];
const OFFICE_JS = "https://appsforoffice.microsoft.com/lib/1/hosted/office.js";

interface ParameterMetadata {
  name: string;
  description?: string;
  optional?: boolean;
}
interface FunctionMetadata {
  id: string;
  name: string;
  description?: string;
  helpUrl?: string;
  parameters: ParameterMetadata[];
}

function distFile(name: string): string {
  const file = path.join(DIST, name);
  if (!fs.existsSync(file)) {
    throw new Error(`dist/${name} is missing: run \`npm run build\` first (\`npm test\` does it before Jest).`);
  }
  return file;
}

function readDist(name: string): string {
  return fs.readFileSync(distFile(name), "utf8");
}

function functionsMetadata(): FunctionMetadata[] {
  return (JSON.parse(readDist("functions.json")) as { functions: FunctionMetadata[] }).functions;
}

/** Every id="…" in an HTML document, quoted or not (the production build minifies HTML). */
function htmlIds(html: string): Set<string> {
  const ids = new Set<string>();
  for (const m of html.matchAll(/\sid=(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/g)) ids.add(m[1] ?? m[2] ?? m[3]);
  return ids;
}

/** Number of worksheet functions declared in the metadata input. */
function declaredFunctionCount(): number {
  const source = fs.readFileSync(path.join(ROOT, "src", "functions", "functions.ts"), "utf8");
  return (source.match(/^\s*\*\s*@customfunction\b/gm) ?? []).length;
}

describe("dist/ after npm run build", () => {
  test.each(EXPECTED_FILES)("has %s", (name) => {
    expect(fs.statSync(distFile(name)).size).toBeGreaterThan(0);
  });

  test("HTML pages load no script or stylesheet from outside the add-in except office.js", () => {
    for (const page of ["taskpane.html", "commands.html", "help.html"]) {
      const html = readDist(page);
      const external = [...html.matchAll(/<(?:script|link)\b[^>]*\b(?:src|href)=["']?(https?:[^"'\s>]+)/g)].map(
        (m) => m[1],
      );
      expect({ page, external: external.filter((u) => u !== OFFICE_JS) }).toEqual({ page, external: [] });
    }
    expect(readDist("taskpane.html")).toContain(OFFICE_JS);
  });

  test("the task pane page loads functions.js, taskpane.js and commands.js (one shared runtime)", () => {
    const html = readDist("taskpane.html");
    for (const script of ["functions.js", "taskpane.js", "commands.js"]) {
      expect(html).toMatch(new RegExp(`<script[^>]*src=["']?${script.replace(".", "\\.")}`));
    }
  });
});

describe("dist/functions.json", () => {
  test("lists every @customfunction of src/functions/functions.ts", () => {
    const functions = functionsMetadata();
    expect(functions.length).toBeGreaterThan(0);
    expect(functions.length).toBe(declaredFunctionCount());
    expect(new Set(functions.map((f) => f.id)).size).toBe(functions.length);
  });

  test("every function and every parameter has a description, and every function a help URL", () => {
    const missing: string[] = [];
    for (const f of functionsMetadata()) {
      if (!f.description?.trim()) missing.push(`${f.id}: no description`);
      for (const p of f.parameters) {
        if (!p.description?.trim()) missing.push(`${f.id}(${p.name}): no description`);
      }
      if (!new RegExp(`^https://[^#]+/help\\.html#${f.id}$`).test(f.helpUrl ?? "")) {
        missing.push(`${f.id}: helpUrl is "${f.helpUrl ?? ""}", expected https://…/help.html#${f.id}`);
      }
    }
    expect(missing).toEqual([]);
  });

  test("every help URL's anchor is a section of dist/help.html with Syntax and Example", () => {
    const html = readDist("help.html");
    const ids = htmlIds(html);
    const problems: string[] = [];
    for (const f of functionsMetadata()) {
      const anchor = (f.helpUrl ?? "").split("#")[1] ?? "";
      if (!ids.has(anchor)) {
        problems.push(`${f.id}: help.html has no id "${anchor}" (write docs/functions/${f.id}.md)`);
        continue;
      }
      const start = html.search(new RegExp(`\\sid=["']?${anchor}["'\\s>]`));
      const next = html.indexOf("<section", start + 1);
      const section = html.slice(start, next < 0 ? undefined : next);
      for (const heading of ["Syntax", "Example"]) {
        if (!new RegExp(`<h3[^>]*>\\s*${heading}`).test(section)) problems.push(`${f.id}: no "${heading}" section`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe("help page sources", () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { readFunctionDocs } = require("../scripts/help-page.js") as {
    readFunctionDocs: (dir: string) => { name: string; file: string; body: string }[];
  };

  test("every docs/functions page starts with # NAME matching its file", () => {
    expect(() => readFunctionDocs(path.join(ROOT, "docs", "functions"))).not.toThrow();
  });

  test("a page whose title does not name its file is rejected", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "caplab-help-"));
    try {
      fs.writeFileSync(path.join(dir, "NPV_IT.md"), "# NPV\n\n## Syntax\n");
      expect(() => readFunctionDocs(dir)).toThrow(/first line must be "# NPV_IT"/);
      fs.writeFileSync(path.join(dir, "NPV_IT.md"), "# NPV_IT\n\n## Syntax\n");
      expect(readFunctionDocs(dir)).toEqual([{ name: "NPV_IT", file: "NPV_IT.md", body: "\n## Syntax\n" }]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("dist/manifest.xml", () => {
  test("passes the reference checks against the built files", () => {
    expect(checkReferences(readDist("manifest.xml"), DIST)).toEqual([]);
  });

  test("every URL it names under the add-in's base is a file in dist/", () => {
    const xml = readDist("manifest.xml");
    const base = /<SourceLocation DefaultValue="([^"]*\/)taskpane\.html"/.exec(xml)?.[1];
    expect(base).toBeDefined();
    const missing = [...xml.matchAll(/DefaultValue="([^"]+)"/g)]
      .map((m) => m[1])
      .filter((u) => u.startsWith(base as string))
      .map((u) => u.slice((base as string).length).split("#")[0])
      .filter((file) => !fs.existsSync(path.join(DIST, file)));
    expect(missing).toEqual([]);
  });
});

describe("URL rewriting for production hosts (ADDIN_URL)", () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { rewriteUrls } = require("../webpack.config.js") as { rewriteUrls: (text: string, url: string) => string };

  test("rewrites URLs and the bare origin; leaves dev builds alone", () => {
    const text = '<AppDomain>https://localhost:3000</AppDomain><x DefaultValue="https://localhost:3000/assets/a.png"/>';
    expect(rewriteUrls(text, "https://addin.example.com/caplab/")).toBe(
      '<AppDomain>https://addin.example.com</AppDomain><x DefaultValue="https://addin.example.com/caplab/assets/a.png"/>',
    );
    expect(rewriteUrls(text, "https://localhost:3000/")).toBe(text);
  });
});

describe("task pane", () => {
  const fns: FunctionSummary[] = [
    {
      id: "MMC_STAFF",
      name: "MMC_STAFF",
      description: "Smallest number of servers",
      helpUrl: "https://localhost:3000/help.html#MMC_STAFF",
      parameters: [
        { name: "service_time", optional: false },
        { name: "answer_within", optional: true },
      ],
    },
    { id: "NPV_IT", name: "NPV_IT", description: "Net present value", helpUrl: "", parameters: [] },
  ];

  test("shows formulas with optional arguments in brackets, and page-relative help links", () => {
    expect(signature(fns[0])).toBe("=CAPLAB.MMC_STAFF(service_time, [answer_within])");
    expect(signature(fns[1])).toBe("=CAPLAB.NPV_IT()");
    expect(relativeHelpLink(fns[0])).toBe("help.html#MMC_STAFF");
    expect(relativeHelpLink(fns[1])).toBe("help.html#NPV_IT");
  });

  test("filters by every word, in the name or the description", () => {
    expect(filterFunctions(fns, "servers").map((f) => f.id)).toEqual(["MMC_STAFF"]);
    expect(filterFunctions(fns, "npv present").map((f) => f.id)).toEqual(["NPV_IT"]);
    expect(filterFunctions(fns, "npv servers")).toEqual([]);
    expect(filterFunctions(fns, "  ")).toHaveLength(2);
  });

  test("renders offline in headless Chromium: every function listed with its help link", async () => {
    const functions = functionsMetadata();
    const loaded = await openOffline(distFile("taskpane.html"));
    try {
      const { page } = loaded;
      await page.waitForFunction(() =>
        /Not running inside Excel|Connected/.test(document.getElementById("status")?.textContent ?? ""),
      );
      const items = await page.$$eval("#function-list li", (lis) =>
        lis.map((li) => ({
          code: li.querySelector("code")?.textContent,
          href: li.querySelector("a")?.getAttribute("href"),
        })),
      );
      expect(items).toHaveLength(functions.length);
      for (const f of functions) {
        expect(items).toContainEqual({
          code: expect.stringContaining(`=CAPLAB.${f.name}(`),
          href: `help.html#${f.id}`,
        });
      }
      expect(await page.textContent("#status")).toMatch(/Not running inside Excel/);
      expect(await page.$("#lab-import")).not.toBeNull();
      await page.click("#tab-functions"); // the function list is the second tab
      await page.fill("#function-filter", "zzz-no-such-function");
      expect(await page.$$("#function-list li")).toHaveLength(0);
      expect(await page.isVisible("#function-empty")).toBe(true);
      expect(loaded.externalRequests).toEqual([]);
    } finally {
      await loaded.close();
    }
  });

  test("the help page renders offline with no outside requests", async () => {
    const loaded = await openOffline(distFile("help.html"), 900, 700);
    try {
      const ids = await loaded.page.$$eval("section.fn-doc", (s) => s.map((e) => e.id));
      expect(ids).toEqual(expect.arrayContaining(functionsMetadata().map((f) => f.id)));
      expect(loaded.externalRequests).toEqual([]);
      expect(loaded.consoleErrors).toEqual([]);
    } finally {
      await loaded.close();
    }
  });
});
