/**
 * Offline check of the add-in manifest (`npm run validate`).
 *
 * `office-addin-manifest validate` posts the file to an online service; this does the same job
 * offline, in two parts:
 * 1. **Schema**: validates against Microsoft's XSDs in `schemas/office-manifest/` (their source and
 *    repairs are in its README; main schema `OfficeAppManifestV1_1.xsd`, the others preloaded) with
 *    `xmllint-wasm`.
 * 2. **References** (what no schema says, but Office rejects or silently breaks on): every `resid`
 *    names a resource of the right kind (image, URL, short or long string), no resource id is
 *    defined twice, the custom-functions namespace is `CAPLAB`, the shared runtime is one page
 *    (Runtime, CustomFunctions Page, FunctionFile and the ribbon's ShowTaskpane all name the same
 *    URL), ExecuteFunction buttons have a FunctionFile, every URL is https, and every icon the
 *    manifest names exists beside it (`assets/…`) as a PNG of the pixel size it is declared at.
 *
 * Usage: `tsx scripts/validate-manifest.ts [manifest.xml] [--schemas DIR]`. Exit code 0 when both
 * parts pass, 1 otherwise: a missing schema directory or main schema is a failure, never a skip.
 */
import * as fs from "fs";
import * as path from "path";
import { Document, DOMParser, Element } from "@xmldom/xmldom";
import { validateXML } from "xmllint-wasm";

/** The schemas kept in the repository (see `schemas/office-manifest/README.md`). */
export const DEFAULT_SCHEMA_DIR = path.resolve(__dirname, "..", "schemas", "office-manifest");
export const MAIN_SCHEMA = "OfficeAppManifestV1_1.xsd";
export const EXPECTED_NAMESPACE = "CAPLAB";

const BT_NS = "http://schemas.microsoft.com/office/officeappbasictypes/1.0";
const XSI_NS = "http://www.w3.org/2001/XMLSchema-instance";

export interface SchemaResult {
  /** Why the manifest is invalid, or why it could not be checked (missing schemas); empty when valid. */
  errors: string[];
}

export interface ManifestReport {
  schema: SchemaResult;
  /** Problems found by the cross-reference checks; empty when all pass. */
  references: string[];
}

/**
 * Validates manifest XML against the Office add-in XSDs.
 *
 * @param xml the manifest text (UTF-8)
 * @param schemaDir directory holding `OfficeAppManifestV1_1.xsd` and the schemas it imports
 * @returns the xmllint error messages (empty when valid); a missing `schemaDir` or main schema is
 *   an error too, so a broken checkout can never pass as valid
 */
export async function validateSchema(xml: string, schemaDir: string = DEFAULT_SCHEMA_DIR): Promise<SchemaResult> {
  if (!fs.existsSync(schemaDir)) {
    return { errors: [`schema directory ${schemaDir} not found: the XSDs could not be checked`] };
  }
  const xsds = fs.readdirSync(schemaDir).filter((f) => f.endsWith(".xsd"));
  if (!xsds.includes(MAIN_SCHEMA)) {
    return { errors: [`${MAIN_SCHEMA} missing from ${schemaDir}`] };
  }
  const file = (name: string) => ({ fileName: name, contents: fs.readFileSync(path.join(schemaDir, name), "utf8") });
  const result = await validateXML({
    xml: [{ fileName: "manifest.xml", contents: xml }],
    schema: [file(MAIN_SCHEMA)],
    preload: xsds.filter((f) => f !== MAIN_SCHEMA).map(file),
  });
  const errors = result.valid
    ? []
    : result.errors.length > 0
      ? result.errors.map((e) => (e.loc ? `line ${e.loc.lineNumber}: ${e.message}` : e.message))
      : [result.rawOutput.trim() || "xmllint reported the manifest invalid"];
  return { errors };
}

type ResourceKind = "image" | "url" | "short string" | "long string";

/** Which kind of resource a `resid` on each element must name (per the VersionOverrides schema). */
const RESID_KIND: Record<string, ResourceKind> = {
  Image: "image",
  SourceLocation: "url",
  FunctionFile: "url",
  Runtime: "url",
  LearnMoreUrl: "url",
  Label: "short string",
  Title: "short string",
  Namespace: "short string",
  Description: "long string",
};

function elements(root: Element | Document, localName: string): Element[] {
  const found: Element[] = [];
  const all = root.getElementsByTagName("*");
  for (let i = 0; i < all.length; i++) {
    const el = all[i] as unknown as Element;
    if (el.localName === localName) found.push(el);
  }
  return found;
}

function xsiType(el: Element): string | null {
  const t = el.getAttributeNS(XSI_NS, "type");
  return t ? t.replace(/^.*:/, "") : null;
}

/** Width and height of a PNG file, from its IHDR chunk; null when it is not a PNG. */
export function pngSize(file: string): { width: number; height: number } | null {
  const head = Buffer.alloc(24);
  const fd = fs.openSync(file, "r");
  try {
    if (fs.readSync(fd, head, 0, 24, 0) < 24) return null;
  } finally {
    fs.closeSync(fd);
  }
  const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (!signature.every((b, i) => head[i] === b) || head.toString("ascii", 12, 16) !== "IHDR") return null;
  return { width: head.readUInt32BE(16), height: head.readUInt32BE(20) };
}

/**
 * The checks no schema expresses. Icon files are looked up relative to `baseDir` (the manifest's
 * directory): a URL `<base>/assets/icon-16.png` must exist as `<baseDir>/assets/icon-16.png`,
 * where `<base>` is the directory of the DefaultSettings SourceLocation (the task pane URL).
 *
 * @param xml the manifest text
 * @param baseDir directory the manifest's URLs are served from (holds `assets/`)
 * @returns one message per problem; empty when every check passes
 */
export function checkReferences(xml: string, baseDir: string): string[] {
  const problems: string[] = [];
  const parseErrors: string[] = [];
  let doc: Document;
  try {
    doc = new DOMParser({
      onError: (level, message) => {
        if (level !== "warning") parseErrors.push(message);
      },
    }).parseFromString(xml, "text/xml");
  } catch (e) {
    // xmldom throws a ParseError on fatal errors (after reporting them to onError).
    parseErrors.push(e instanceof Error ? e.message : String(e));
    return [`manifest is not well-formed XML: ${[...new Set(parseErrors)].join("; ")}`];
  }
  if (parseErrors.length > 0 || !doc.documentElement) {
    return [`manifest is not well-formed XML: ${parseErrors.join("; ") || "no root element"}`];
  }

  // 1. Resources, by kind. Ids must be unique across all kinds (Office keys them in one table).
  const resources = new Map<string, { kind: ResourceKind; value: string }>();
  const define = (containerName: string, kind: ResourceKind) => {
    for (const container of elements(doc, containerName)) {
      for (const el of elements(container, kind === "image" ? "Image" : kind === "url" ? "Url" : "String")) {
        if (el.namespaceURI !== BT_NS) continue;
        const id = el.getAttribute("id");
        const value = el.getAttribute("DefaultValue") ?? "";
        if (!id) {
          problems.push(`a <bt:${el.localName}> in <bt:${containerName}> has no id`);
        } else if (resources.has(id)) {
          problems.push(`resource id "${id}" is defined more than once`);
        } else {
          resources.set(id, { kind, value });
        }
      }
    }
  };
  define("Images", "image");
  define("Urls", "url");
  define("ShortStrings", "short string");
  define("LongStrings", "long string");

  // 2. Every resid names a defined resource of the kind its element needs.
  const all = doc.getElementsByTagName("*");
  let residCount = 0;
  for (let i = 0; i < all.length; i++) {
    const el = all[i] as unknown as Element;
    const resid = el.getAttribute("resid");
    if (resid === null) continue;
    residCount++;
    const resource = resources.get(resid);
    const want = RESID_KIND[el.localName ?? ""];
    if (!resource) {
      problems.push(`<${el.localName} resid="${resid}">: no resource has the id "${resid}"`);
    } else if (want && resource.kind !== want) {
      problems.push(`<${el.localName} resid="${resid}">: needs a ${want}, but "${resid}" is a ${resource.kind}`);
    } else if (resource.value.trim() === "") {
      problems.push(`resource "${resid}" has an empty DefaultValue`);
    }
  }
  if (residCount === 0) problems.push("no resid references found: VersionOverrides missing?");
  const valueOf = (el: Element | undefined) => (el ? resources.get(el.getAttribute("resid") ?? "")?.value : undefined);
  const residOf = (el: Element | undefined) => el?.getAttribute("resid") ?? undefined;

  // 3. The custom-functions extension point: Script, Page, Metadata, Namespace CAPLAB.
  const cf = elements(doc, "ExtensionPoint").filter((el) => xsiType(el) === "CustomFunctions");
  if (cf.length !== 1) {
    problems.push(`expected one CustomFunctions ExtensionPoint, found ${cf.length}`);
  }
  const page = cf[0] ? elements(cf[0], "Page")[0] : undefined;
  const pageLocation = page ? elements(page, "SourceLocation")[0] : undefined;
  if (cf[0]) {
    for (const part of ["Script", "Page", "Metadata"]) {
      const holder = elements(cf[0], part)[0];
      if (!holder || !elements(holder, "SourceLocation")[0]) {
        problems.push(`CustomFunctions ${part} has no SourceLocation`);
      }
    }
    const ns = elements(cf[0], "Namespace")[0];
    const nsValue = valueOf(ns);
    if (nsValue !== EXPECTED_NAMESPACE) {
      problems.push(`custom-functions namespace is "${nsValue ?? "(none)"}", expected "${EXPECTED_NAMESPACE}"`);
    }
  }

  // 4. One shared runtime: Runtime, CustomFunctions Page, FunctionFile and ShowTaskpane agree.
  const runtimes = elements(doc, "Runtime");
  if (runtimes.length !== 1) problems.push(`expected one <Runtime>, found ${runtimes.length}`);
  const runtime = runtimes[0];
  if (runtime && runtime.getAttribute("lifetime") !== "long") {
    problems.push(`<Runtime resid="${residOf(runtime)}"> needs lifetime="long" for a shared runtime`);
  }
  const runtimeResid = residOf(runtime);
  const mustMatch: [string, Element | undefined][] = [["CustomFunctions Page", pageLocation]];
  for (const ff of elements(doc, "FunctionFile")) mustMatch.push(["FunctionFile", ff]);
  for (const action of elements(doc, "Action").filter((a) => xsiType(a) === "ShowTaskpane")) {
    mustMatch.push(["ShowTaskpane action", elements(action, "SourceLocation")[0]]);
  }
  for (const [what, el] of mustMatch) {
    if (runtimeResid && residOf(el) !== runtimeResid) {
      problems.push(`${what} resid "${residOf(el) ?? "(none)"}" differs from the Runtime resid "${runtimeResid}"`);
    }
  }
  const executeActions = elements(doc, "Action").filter((a) => xsiType(a) === "ExecuteFunction");
  if (executeActions.length > 0 && elements(doc, "FunctionFile").length === 0) {
    problems.push("ExecuteFunction buttons need a <FunctionFile> to run in, and there is none");
  }
  for (const action of executeActions) {
    if (!elements(action, "FunctionName")[0]?.textContent?.trim())
      problems.push("an ExecuteFunction action has no FunctionName");
  }
  const defaultSource = elements(doc, "DefaultSettings")
    .map((d) => elements(d, "SourceLocation")[0]?.getAttribute("DefaultValue"))
    .find(Boolean);
  const runtimeUrl = runtimeResid ? resources.get(runtimeResid)?.value : undefined;
  if (!defaultSource) {
    problems.push("DefaultSettings has no SourceLocation");
  } else if (runtimeUrl && defaultSource !== runtimeUrl) {
    problems.push(`DefaultSettings SourceLocation ${defaultSource} differs from the runtime page ${runtimeUrl}`);
  }

  // 5. URLs are https; icons exist beside the manifest with the declared pixel size.
  const urlValues: [string, string][] = [];
  for (const [id, r] of resources) if (r.kind === "url" || r.kind === "image") urlValues.push([id, r.value]);
  for (const name of ["IconUrl", "HighResolutionIconUrl", "SupportUrl", "SourceLocation"]) {
    for (const el of elements(doc, name)) {
      const v = el.getAttribute("DefaultValue");
      if (v) urlValues.push([name, v]);
    }
  }
  for (const [what, v] of urlValues) {
    if (!/^https:\/\/[^/]+/.test(v)) problems.push(`${what}: URL ${v} is not https`);
  }
  const base = defaultSource ? defaultSource.replace(/[^/]*$/, "") : undefined;
  const checkIcon = (what: string, url: string | undefined, size: number) => {
    if (!url) return;
    if (!base || !url.startsWith(base)) {
      problems.push(`${what}: icon ${url} is not under the add-in's base URL ${base ?? "(unknown)"}`);
      return;
    }
    const file = path.join(baseDir, ...url.slice(base.length).split("/"));
    if (!fs.existsSync(file)) {
      problems.push(`${what}: icon file ${path.relative(process.cwd(), file) || file} does not exist`);
      return;
    }
    const dims = pngSize(file);
    if (!dims) problems.push(`${what}: ${file} is not a PNG`);
    else if (dims.width !== size || dims.height !== size) {
      problems.push(`${what}: ${url} is ${dims.width}×${dims.height} px, declared as ${size}×${size}`);
    }
  };
  const topLevel = (name: string) => elements(doc, name)[0]?.getAttribute("DefaultValue") ?? undefined;
  checkIcon("IconUrl", topLevel("IconUrl"), 32);
  checkIcon("HighResolutionIconUrl", topLevel("HighResolutionIconUrl"), 64);
  for (const icon of elements(doc, "Icon")) {
    for (const img of elements(icon, "Image")) {
      const size = Number(img.getAttribute("size"));
      const resid = img.getAttribute("resid") ?? "";
      const r = resources.get(resid);
      if (r?.kind === "image") checkIcon(`<bt:Image size="${size}" resid="${resid}">`, r.value, size);
    }
  }
  return problems;
}

/** Both checks on one manifest file. */
export async function validateManifest(
  manifestPath: string,
  schemaDir: string = DEFAULT_SCHEMA_DIR,
): Promise<ManifestReport> {
  const xml = fs.readFileSync(manifestPath, "utf8");
  const schema = await validateSchema(xml, schemaDir);
  const references = checkReferences(xml, path.dirname(path.resolve(manifestPath)));
  return { schema, references };
}

async function cli(argv: string[]): Promise<number> {
  let manifest = "manifest.xml";
  let schemaDir = DEFAULT_SCHEMA_DIR;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--schemas") schemaDir = path.resolve(argv[++i] ?? "");
    else if (argv[i] === "--help" || argv[i] === "-h") {
      process.stdout.write("Usage: tsx scripts/validate-manifest.ts [manifest.xml] [--schemas DIR]\n");
      return 0;
    } else manifest = argv[i];
  }
  const report = await validateManifest(manifest, schemaDir);
  const out: string[] = [];
  if (report.schema.errors.length === 0) {
    out.push(`${manifest}: valid against ${path.join(schemaDir, MAIN_SCHEMA)}`);
  } else {
    out.push(`${manifest}: INVALID against the XSD:`, ...report.schema.errors.map((e) => `  ${e}`));
  }
  if (report.references.length === 0) {
    out.push(`${manifest}: resource references, namespace ${EXPECTED_NAMESPACE}, shared runtime and icons OK`);
  } else {
    out.push(`${manifest}: reference problems:`, ...report.references.map((e) => `  ${e}`));
  }
  const ok = report.schema.errors.length === 0 && report.references.length === 0;
  (ok ? process.stdout : process.stderr).write(out.join("\n") + "\n");
  return ok ? 0 : 1;
}

if (require.main === module) {
  cli(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: unknown) => {
      process.stderr.write(`validate-manifest: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    },
  );
}
