/**
 * `npm run dev-server` on a machine where the developer CA cannot be installed (root without sudo,
 * a container, CI): it must still make certificates and serve the pane over https, and say how to
 * trust the CA. Run here with an empty home directory (no certificates yet) and the install attempt
 * switched off, so the test never touches the machine's trust store; the page is fetched with the
 * generated CA as the only trusted root, which checks that the certificate is valid for localhost.
 */
import { ChildProcess, spawn } from "child_process";
import * as fs from "fs";
import * as https from "https";
import * as net from "net";
import * as os from "os";
import * as path from "path";

// eslint-disable-next-line @typescript-eslint/no-require-imports
const devCerts = require("../scripts/dev-certs.js");

const ROOT = path.join(__dirname, "..");

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

/** GET https://localhost:port/file trusting only `ca`; the status and body, or null while the port is closed. */
function get(port: number, file: string, ca: Buffer): Promise<{ status: number; body: string } | null> {
  return new Promise((resolve, reject) => {
    const req = https.get({ host: "localhost", port, path: file, ca, timeout: 60000 }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", (err: NodeJS.ErrnoException) => (err.code === "ECONNREFUSED" ? resolve(null) : reject(err)));
  });
}

describe("scripts/dev-certs", () => {
  it("does not try to install the CA on Linux without sudo, nor when told not to", () => {
    expect(devCerts.canInstallCa({ PATH: "/nonexistent-dir" }, "linux")).toBe(false);
    expect(devCerts.canInstallCa({ PATH: "", CAPLAB_DEV_CERTS: "no-install" }, "darwin")).toBe(false);
    expect(devCerts.canInstallCa({ PATH: "" }, "win32")).toBe(true);
  });

  it("names a trust command for each platform, with the CA's path in it", () => {
    for (const platform of ["linux", "darwin", "win32"]) {
      expect(devCerts.trustCommand("/h/ca.crt", platform)).toContain("/h/ca.crt");
    }
    expect(devCerts.trustCommand("/h/ca.crt", "linux")).toContain("update-ca-certificates");
  });

  it("finds missing certificates unusable", () => {
    expect(
      devCerts.certificatesUsable({ ca: "/nonexistent/ca.crt", cert: "/nonexistent/l.crt", key: "/nonexistent/l.key" }),
    ).toBe(false);
  });
});

describe("npm run dev-server with no certificates and no way to install a CA", () => {
  let home = "";
  let server: ChildProcess | undefined;
  let output = "";

  beforeAll(() => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), "caplab-dev-server-home-"));
  });

  afterAll(async () => {
    if (server?.pid !== undefined && server.exitCode === null) {
      const exited = new Promise((resolve) => server!.once("exit", resolve));
      // The server runs in its own process group (detached), so this ends webpack and its children.
      process.kill(-server.pid, "SIGTERM");
      await exited;
    }
    fs.rmSync(home, { recursive: true, force: true });
  });

  it("serves taskpane.html over https within 60 s and says how to trust the CA", async () => {
    const port = await freePort();
    const started = Date.now();
    server = spawn(
      process.execPath,
      [path.join(ROOT, "node_modules", "webpack", "bin", "webpack.js"), "serve", "--mode", "development"],
      {
        cwd: ROOT,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
        env: {
          ...process.env,
          HOME: home,
          USERPROFILE: home,
          CAPLAB_DEV_CERTS: "no-install",
          npm_package_config_dev_server_port: String(port),
        },
      },
    );
    server.stdout!.on("data", (d) => (output += d));
    server.stderr!.on("data", (d) => (output += d));

    const caPath = path.join(home, ".office-addin-dev-certs", "ca.crt");
    let page: { status: number; body: string } | null = null;
    while (page === null && Date.now() - started < 60000 && server.exitCode === null) {
      await new Promise((r) => setTimeout(r, 500));
      if (fs.existsSync(caPath)) page = await get(port, "/taskpane.html", fs.readFileSync(caPath));
    }
    if (page === null) throw new Error(`no answer on port ${port} within 60 s; the server printed:\n${output}`);
    expect(Date.now() - started).toBeLessThan(60000);
    expect(page.status).toBe(200);
    expect(page.body).toContain("<html");
    expect(page.body).toContain("taskpane.js");
    expect(output).toContain(`untrusted developer CA, ${caPath}`);
    expect(output).toContain("update-ca-certificates");
    // The server only transpiles; a type re-exported as a value would be a warning (and undefined).
    expect(output).not.toContain("WARNING in");
  }, 120000);
});
