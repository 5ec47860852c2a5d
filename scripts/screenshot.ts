/**
 * Screenshots a built page (default dist/taskpane.html) in headless Chromium, offline: office.js
 * is blocked, as it is on a machine without the internet, so this shows the degraded mode.
 *
 * Usage: tsx scripts/screenshot.ts [page.html] [out.png] [--width 350] [--height 900]
 *   `npm run screenshot` → /tmp/caplab-taskpane.png. Needs /usr/bin/chromium (apt-get install chromium).
 */
import * as path from "path";
import { chromium, Page } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
export const OFFICE_JS = "https://appsforoffice.microsoft.com/lib/1/hosted/office.js";

/** What a page asked for from outside its own files (other than the blocked office.js). */
export interface LoadedPage {
  page: Page;
  externalRequests: string[];
  consoleErrors: string[];
  close(): Promise<void>;
}

/** Opens a local HTML file in headless Chromium with office.js blocked and outside requests recorded. */
export async function openOffline(file: string, width = 350, height = 900): Promise<LoadedPage> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  const page = await browser.newPage({ viewport: { width, height } });
  const externalRequests: string[] = [];
  const consoleErrors: string[] = [];
  page.on("console", (msg) => {
    if (msg.type() === "error") consoleErrors.push(msg.text());
  });
  page.on("pageerror", (e) => consoleErrors.push(e.message));
  await page.route(/^(https?|wss?):/, (route) => {
    const url = route.request().url();
    if (url !== OFFICE_JS) externalRequests.push(url);
    return route.abort();
  });
  await page.goto(`file://${path.resolve(file)}`, { waitUntil: "load" });
  return { page, externalRequests, consoleErrors, close: () => browser.close() };
}

async function cli(argv: string[]): Promise<void> {
  const positional: string[] = [];
  let width = 350;
  let height = 900;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--width") width = Number(argv[++i]);
    else if (argv[i] === "--height") height = Number(argv[++i]);
    else positional.push(argv[i]);
  }
  const [file = "dist/taskpane.html", out = "/tmp/caplab-taskpane.png"] = positional;
  const loaded = await openOffline(file, width, height);
  try {
    await loaded.page.waitForTimeout(500);
    await loaded.page.screenshot({ path: out, fullPage: true });
    console.log(`wrote ${out}`);
    if (loaded.externalRequests.length)
      console.log(`external requests (blocked): ${loaded.externalRequests.join(", ")}`);
    if (loaded.consoleErrors.length) console.log(`console errors:\n  ${loaded.consoleErrors.join("\n  ")}`);
  } finally {
    await loaded.close();
  }
}

if (require.main === module) {
  cli(process.argv.slice(2)).catch((e: unknown) => {
    console.error(`screenshot: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  });
}
