/**
 * Browser harness for the task pane: serves dist/ on localhost, opens taskpane.html in Debian's
 * headless Chromium (playwright-core, no browser download) and replaces office.js by the
 * in-memory host of tests/excel/fake-excel.ts (compiled with TypeScript and served at office.js's
 * URL through page.route). Every other outside request is refused and recorded.
 */
import * as fs from "fs";
import * as http from "http";
import * as path from "path";
import * as esbuild from "esbuild";
import { AddressInfo } from "net";
import { Browser, chromium, Page } from "playwright-core";

export const ROOT = path.resolve(__dirname, "../..");
/** The built pane: dist/, or CAPLAB_DIST (a build of one's own, e.g. `webpack --output-path DIR`, beside others' builds). */
export const DIST = process.env.CAPLAB_DIST ? path.resolve(process.env.CAPLAB_DIST) : path.join(ROOT, "dist");
const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
const OFFICE_JS = "https://appsforoffice.microsoft.com/lib/1/hosted/office.js";

const TYPES: Record<string, string> = {
  ".html": "text/html",
  ".js": "text/javascript",
  ".css": "text/css",
  ".json": "application/json",
  ".png": "image/png",
  ".csv": "text/csv",
  ".md": "text/markdown",
  ".map": "application/json",
  ".xml": "application/xml",
};

/** The fake host as a browser script: installs Office/Excel/CustomFunctions on window. */
export function fakeOfficeScript(options: Record<string, unknown> = {}): string {
  // Bundled with its imports (the project's formula evaluator calculates the fake's formulas).
  const bundled = esbuild.buildSync({
    entryPoints: [path.join(ROOT, "tests/excel/fake-excel.ts")],
    bundle: true,
    format: "iife",
    globalName: "FakeExcel",
    platform: "browser",
    target: "es2020",
    write: false,
    logLevel: "silent",
  });
  return (
    `${bundled.outputFiles[0].text}\n` +
    `(function(){var host=FakeExcel.createFakeHost(${JSON.stringify(options)});FakeExcel.installFakeHost(window,host);})();`
  );
}

/**
 * Serves dist/ for the test file ({@link serveDist}) from its beforeAll to its afterAll; the
 * returned handle's `url` is the server's once the tests run.
 */
export function distServer(dir: string = DIST): { readonly url: string } {
  let server: { url: string; close: () => Promise<void> } | undefined;
  beforeAll(async () => {
    server = await serveDist(dir);
  });
  afterAll(async () => {
    await server?.close();
  });
  return {
    get url(): string {
      if (!server) throw new Error("the dist server is not started: use server.url inside a test");
      return server.url;
    },
  };
}

/** Serves dist/ (or another build's directory, e.g. a saved earlier build) on 127.0.0.1 (an ephemeral port). */
export async function serveDist(dir: string = DIST): Promise<{ url: string; close: () => Promise<void> }> {
  const root = path.resolve(dir);
  if (!fs.existsSync(path.join(root, "taskpane.html")))
    throw new Error(`${root}/taskpane.html is missing: run npm run build first`);
  const server = http.createServer((req, res) => {
    const rel = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname).replace(/^\/+/, "");
    const file = path.resolve(root, rel);
    if (!file.startsWith(root + path.sep) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404).end("not found");
      return;
    }
    res.writeHead(200, { "Content-Type": TYPES[path.extname(file)] ?? "application/octet-stream" });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface PaneSession {
  browser: Browser;
  page: Page;
  consoleErrors: string[];
  externalRequests: string[];
  close(): Promise<void>;
}

/** Opens the built pane with the fake host (or with office.js refused when `fakeHost` is false). */
export async function openPane(
  baseUrl: string,
  options: {
    fakeHost?: boolean;
    width?: number;
    height?: number;
    hostOptions?: Record<string, unknown>;
    /** Extra Chromium switches (the benchmark adds --enable-precise-memory-info). */
    args?: string[];
    /** A script run in the page before any of its own (page.addInitScript), e.g. a recorder. */
    initScript?: string;
    /** prefers-color-scheme the page sees (default light). */
    colorScheme?: "light" | "dark";
  } = {},
): Promise<PaneSession> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", ...(options.args ?? [])],
  });
  const page = await browser.newPage({
    viewport: { width: options.width ?? 340, height: options.height ?? 800 },
    colorScheme: options.colorScheme ?? "light",
  });
  if (options.initScript) await page.addInitScript(options.initScript);
  page.setDefaultTimeout(60_000);
  const consoleErrors: string[] = [];
  const externalRequests: string[] = [];
  page.on("console", (msg) => {
    if (msg.type() === "error") consoleErrors.push(msg.text());
  });
  page.on("pageerror", (e) => consoleErrors.push(e.message));
  const script = fakeOfficeScript(options.hostOptions);
  await page.route(
    (url) => !url.href.startsWith(baseUrl),
    (route) => {
      const url = route.request().url();
      if (url === OFFICE_JS && options.fakeHost !== false)
        return route.fulfill({ status: 200, contentType: "text/javascript", body: script });
      if (url !== OFFICE_JS) externalRequests.push(url);
      return route.abort();
    },
  );
  await page.goto(`${baseUrl}taskpane.html`, { waitUntil: "load" });
  return { browser, page, consoleErrors, externalRequests, close: () => browser.close() };
}

/** Text of an element by id, for waitForFunction predicates. */
function statusMatches([id, source]: [string, string]): boolean {
  return new RegExp(source).test(document.getElementById(id)?.textContent ?? "");
}

/** Resolves once the text of element `id` matches `pattern` (`timeout` ms, Playwright's default 30 s). */
export async function waitForText(page: Page, id: string, pattern: RegExp, timeout?: number): Promise<void> {
  await page.waitForFunction(statusMatches, [id, pattern.source] as [string, string], { timeout });
}

/**
 * The start of most pane tests: waits until the pane is connected to the in-memory Excel, skips
 * the first-run sample, chooses `files` in the file input and waits until the import status
 * matches `ready` (e.g. /2 files ready/).
 */
export async function chooseFiles(page: Page, files: string | string[], ready: RegExp): Promise<void> {
  await waitForText(page, "status", /Connected to Excel/);
  await page.click("#sample-skip");
  await page.setInputFiles("#file-input", files);
  await waitForText(page, "import-status", ready);
}

/** Presses Import and waits until the import status starts with `done` (default "Imported:"). */
export async function pressImport(page: Page, done = /^Imported:/): Promise<void> {
  await page.click("#import");
  await waitForText(page, "import-status", done, 120_000);
}

/**
 * Whether a control can be used. Playwright's `isEnabled` sees the disabled state of native
 * controls and of `aria-disabled` attributes only; a fluent-button keeps its state in its
 * `disabled` property and ElementInternals, so the pane's buttons are asked directly.
 */
export async function isEnabled(page: Page, selector: string): Promise<boolean> {
  return page.$eval(selector, (e) => !(e as HTMLButtonElement).disabled && e.getAttribute("aria-disabled") !== "true");
}

/**
 * Resolves once the page shows its last state: two animation frames drawn (Fluent components
 * reflect a state change in a later update) and no finite animation running (a button fading from
 * disabled to enabled takes ~100 ms). For screenshots and contrast checks.
 */
export async function settled(page: Page): Promise<void> {
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  await page.waitForFunction(() =>
    document
      .getAnimations()
      .every(
        (a) => a.playState !== "running" || (a.effect as KeyframeEffect | null)?.getTiming().iterations === Infinity,
      ),
  );
}
