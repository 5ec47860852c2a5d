/**
 * manifest.xml: valid against Microsoft's XSDs (schemas/office-manifest/, repaired copies) and
 * consistent where no schema looks (resids, namespace, shared runtime, icon files and sizes).
 * Broken copies of the manifest prove that each check can fail.
 */
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { checkReferences, DEFAULT_SCHEMA_DIR, pngSize, validateSchema } from "../scripts/validate-manifest";
import { allIcons, encodePng, render, SIZES } from "../scripts/make-icons";
import { RIBBON_COMMANDS } from "../src/commands/ribbon";

const ROOT = path.resolve(__dirname, "..");
const MANIFEST = fs.readFileSync(path.join(ROOT, "manifest.xml"), "utf8");

/** The real manifest with one substring replaced; fails loudly if the substring is not there. */
function broken(find: string, replace: string): string {
  expect(MANIFEST).toContain(find);
  return MANIFEST.replace(find, replace);
}

describe("manifest.xml against the XSDs", () => {
  test("validates against OfficeAppManifestV1_1.xsd", async () => {
    const result = await validateSchema(MANIFEST, DEFAULT_SCHEMA_DIR);
    expect(result.errors).toEqual([]);
  });

  test("an element out of order is rejected", async () => {
    const xml = broken(
      "<Version>0.1.0.0</Version>\n  <ProviderName>Capacity Lab</ProviderName>",
      "<ProviderName>Capacity Lab</ProviderName>\n  <Version>0.1.0.0</Version>",
    );
    const result = await validateSchema(xml, DEFAULT_SCHEMA_DIR);
    expect(result.errors.join("\n")).toMatch(/ProviderName|Version/);
  });

  test("an unknown element and a bad lifetime are rejected", async () => {
    const unknown = await validateSchema(broken("<Runtimes>", "<Runtimes><Bogus/>"), DEFAULT_SCHEMA_DIR);
    expect(unknown.errors.join("\n")).toMatch(/Bogus/);
    const lifetime = await validateSchema(broken('lifetime="long"', 'lifetime="forever"'), DEFAULT_SCHEMA_DIR);
    expect(lifetime.errors.join("\n")).toMatch(/lifetime/);
  });

  test("the schemas are in the repository, not beside it", () => {
    expect(DEFAULT_SCHEMA_DIR).toBe(path.join(ROOT, "schemas", "office-manifest"));
    expect(fs.existsSync(path.join(DEFAULT_SCHEMA_DIR, "OfficeAppManifestV1_1.xsd"))).toBe(true);
  });

  test("a missing schema directory is an error, never a skip or a pass", async () => {
    const result = await validateSchema(MANIFEST, path.join(os.tmpdir(), "no-such-schema-dir-caplab"));
    expect(result.errors.join("\n")).toMatch(/not found/);
  });
});

describe("manifest.xml cross-references", () => {
  test("every resid, the namespace, the shared runtime and the icons check out", () => {
    expect(checkReferences(MANIFEST, ROOT)).toEqual([]);
  });

  test("the namespace is CAPLAB and the runtime is the task pane page", () => {
    expect(MANIFEST).toMatch(/<bt:String id="Functions.Namespace" DefaultValue="CAPLAB"\/>/);
    expect(MANIFEST).toMatch(/<Runtime resid="Taskpane.Url" lifetime="long"\/>/);
  });

  test("a resid that names no resource fails", () => {
    const problems = checkReferences(
      broken('<Label resid="ImportButton.Label"/>', '<Label resid="Nope.Label"/>'),
      ROOT,
    );
    expect(problems).toEqual([expect.stringMatching(/no resource has the id "Nope.Label"/)]);
  });

  test("a resid naming the wrong kind of resource fails", () => {
    const problems = checkReferences(
      broken('<Label resid="CapLab.Tab.Label"/>', '<Label resid="Taskpane.Url"/>'),
      ROOT,
    );
    expect(problems.join("\n")).toMatch(/needs a short string, but "Taskpane.Url" is a url/);
  });

  test("a resource id defined twice fails", () => {
    const xml = broken('<bt:String id="CapLab.Tab.Label"', '<bt:String id="CapLab.Group.Label"');
    expect(checkReferences(xml, ROOT).join("\n")).toMatch(/"CapLab.Group.Label" is defined more than once/);
  });

  test("another namespace fails", () => {
    const xml = broken(
      'id="Functions.Namespace" DefaultValue="CAPLAB"',
      'id="Functions.Namespace" DefaultValue="CONTOSO"',
    );
    expect(checkReferences(xml, ROOT)).toEqual([expect.stringMatching(/namespace is "CONTOSO", expected "CAPLAB"/)]);
  });

  test("a runtime page that differs from the custom-functions page fails", () => {
    const xml = broken(
      '<Page>\n              <SourceLocation resid="Taskpane.Url"/>',
      '<Page>\n              <SourceLocation resid="GetStarted.LearnMoreUrl"/>',
    );
    expect(checkReferences(xml, ROOT).join("\n")).toMatch(
      /CustomFunctions Page resid "GetStarted.LearnMoreUrl" differs/,
    );
  });

  test("a command button without a FunctionFile fails", () => {
    const xml = broken('<FunctionFile resid="Taskpane.Url"/>', "");
    expect(checkReferences(xml, ROOT)).toEqual([
      expect.stringMatching(/ExecuteFunction buttons need a <FunctionFile>/),
    ]);
  });

  test("an icon declared at the wrong size fails", () => {
    const xml = broken('<bt:Image size="16" resid="Icon.16x16"/>', '<bt:Image size="16" resid="Icon.32x32"/>');
    expect(checkReferences(xml, ROOT).join("\n")).toMatch(/is 32×32 px, declared as 16×16/);
  });

  test("a missing icon file fails, and so does plain http", () => {
    const missing = checkReferences(broken("assets/icon-80.png", "assets/icon-81.png"), ROOT);
    expect(missing.join("\n")).toMatch(/icon-81.png does not exist/);
    const http = checkReferences(
      broken("https://localhost:3000/functions.js", "http://localhost:3000/functions.js"),
      ROOT,
    );
    expect(http.join("\n")).toMatch(/not https/);
  });

  test("malformed XML fails", () => {
    expect(checkReferences(MANIFEST.replace("</OfficeApp>", ""), ROOT)[0]).toMatch(/not well-formed/);
  });
});

describe("icons", () => {
  test.each(SIZES)("assets/icon-%i.png has its size and is what scripts/make-icons.ts draws", (size) => {
    const file = path.join(ROOT, "assets", `icon-${size}.png`);
    expect(pngSize(file)).toEqual({ width: size, height: size });
    expect(fs.readFileSync(file).equals(encodePng(size, render(size)))).toBe(true);
  });

  test("every icon file in assets/ is what scripts/make-icons.ts draws, and it draws nothing else", () => {
    const drawn = allIcons();
    const files = fs.readdirSync(path.join(ROOT, "assets")).filter((f) => f.endsWith(".png"));
    expect(files.sort()).toEqual([...drawn.keys()].sort());
    for (const [name, bytes] of drawn)
      expect([name, fs.readFileSync(path.join(ROOT, "assets", name)).equals(bytes)]).toEqual([name, true]);
  });
});

describe("ribbon commands", () => {
  /** Each button of the manifest: its FunctionName and the image resids of its icon. */
  const buttons = [...MANIFEST.matchAll(/<Control xsi:type="Button" id="([^"]+)">([^]*?)<\/Control>/g)].map((m) => ({
    id: m[1],
    fn: /<FunctionName>([^<]+)<\/FunctionName>/.exec(m[2])?.[1],
    images: [...m[2].matchAll(/<bt:Image size="\d+" resid="([^"]+)"\/>/g)].map((i) => i[1]),
  }));

  test("the four commands, each running a function the commands bundle associates", () => {
    expect(buttons.map((b) => b.fn)).toEqual(["showImport", "showCase", "showShare", "showFunctions"]);
    expect(buttons.map((b) => b.fn).sort()).toEqual(Object.keys(RIBBON_COMMANDS).sort());
  });

  test("each command has its own icon (no image shared between two buttons)", () => {
    const all = buttons.flatMap((b) => b.images);
    expect(all.length).toBe(4 * 3);
    expect(new Set(all).size).toBe(all.length);
  });
});
