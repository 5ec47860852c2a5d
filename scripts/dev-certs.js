/**
 * The HTTPS certificate `npm run dev-server` serves https://localhost:3000 with.
 *
 * Office loads an add-in only from a trusted https origin, so office-addin-dev-certs makes a
 * developer CA and a localhost certificate in ~/.office-addin-dev-certs and installs the CA in the
 * system's trust store. On Linux that install runs `sudo`, which a root shell in a container or a
 * CI runner does not have, and a failed install used to stop the server before port 3000 opened.
 *
 * Here the install is attempted only where it can work (Windows and macOS install for the current
 * user; Linux needs `sudo` on PATH) and never stops the server: when the CA is not trusted, the
 * certificates are still made (or reused while valid) and served, and one line says how to trust
 * the CA by hand. A browser or Excel refuses the page until the CA is trusted; curl -k, a test or a
 * reverse proxy do not care.
 *
 * CAPLAB_DEV_CERTS=no-install skips the install attempt (the dev-server test uses it so that it never
 * touches the machine's trust store).
 */
const { X509Certificate, createPrivateKey } = require("crypto");
const fs = require("fs");
const path = require("path");

/** Whether the system trust store can be changed without a human typing a root password into nothing. */
function canInstallCa(env = process.env, platform = process.platform) {
  if (env.CAPLAB_DEV_CERTS === "no-install") return false;
  if (platform === "win32" || platform === "darwin") return true;
  if (platform !== "linux") return false;
  return (env.PATH || "").split(path.delimiter).some((dir) => dir && fs.existsSync(path.join(dir, "sudo")));
}

/** The command that trusts `caPath` on this platform, for the user to run. */
function trustCommand(caPath, platform = process.platform) {
  if (platform === "win32") return `certutil -user -addstore Root "${caPath}"`;
  if (platform === "darwin")
    return `security add-trusted-cert -d -r trustRoot -k ~/Library/Keychains/login.keychain-db '${caPath}'`;
  // Debian/Ubuntu; Fedora/Arch use /etc/pki/ca-trust/source/anchors and update-ca-trust instead.
  return (
    `(as root) mkdir -p /usr/local/share/ca-certificates/office-addin-dev-certs && ` +
    `cp '${caPath}' /usr/local/share/ca-certificates/office-addin-dev-certs/ && update-ca-certificates`
  );
}

/**
 * Whether the localhost certificate and key in the given paths exist, belong together, are signed
 * by the CA there and stay valid for at least another day.
 */
function certificatesUsable(paths, now = Date.now()) {
  try {
    const ca = new X509Certificate(fs.readFileSync(paths.ca));
    const cert = new X509Certificate(fs.readFileSync(paths.cert));
    const key = createPrivateKey(fs.readFileSync(paths.key));
    const day = 24 * 3600 * 1000;
    return (
      cert.checkPrivateKey(key) &&
      cert.verify(ca.publicKey) &&
      Date.parse(cert.validTo) - now > day &&
      Date.parse(ca.validTo) - now > day
    );
  } catch {
    return false;
  }
}

/** Makes a fresh CA and localhost certificate in the default directory (replacing unusable ones). */
async function generate(devCerts, defaults) {
  for (const file of [defaults.caCertificatePath, defaults.localhostCertificatePath, defaults.localhostKeyPath]) {
    fs.rmSync(file, { force: true });
  }
  // generateCertificates only writes the files when ca.crt is absent, hence the removal above.
  await devCerts.generateCertificates();
}

/** `{ ca, cert, key }` for webpack-dev-server's https server; prints how to trust the CA when it is not. */
async function devServerHttpsOptions(log = (line) => process.stderr.write(`${line}\n`)) {
  // Loaded here, not at the top: the defaults read the home directory when first required.
  const devCerts = require("office-addin-dev-certs");
  const defaults = require("office-addin-dev-certs/lib/defaults");
  const paths = {
    ca: defaults.caCertificatePath,
    cert: defaults.localhostCertificatePath,
    key: defaults.localhostKeyPath,
  };
  if (canInstallCa()) {
    try {
      return await devCerts.getHttpsServerOptions();
    } catch (err) {
      log(`dev-server: could not install the developer CA (${String(err.message || err).split("\n")[0]}).`);
    }
  }
  if (!certificatesUsable(paths)) await generate(devCerts, defaults);
  log(
    `dev-server: serving with an untrusted developer CA, ${paths.ca}; browsers and Excel refuse ` +
      `https://localhost:3000 until it is trusted: ${trustCommand(paths.ca)}`,
  );
  return {
    ca: fs.readFileSync(paths.ca),
    cert: fs.readFileSync(paths.cert),
    key: fs.readFileSync(paths.key),
  };
}

module.exports = { devServerHttpsOptions, canInstallCa, trustCommand, certificatesUsable };
