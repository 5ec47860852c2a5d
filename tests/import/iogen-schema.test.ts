/**
 * iogen/schema/columns.json is the one description of iogen's CSV columns. These tests hold the
 * TypeScript side to it: the generated module, the reader's column lists, the column tables of
 * docs/iogen-csv.md and the headers of the analysis fixtures. Renaming a column in the JSON
 * fails here until every one of them follows.
 */
import { readFileSync } from "fs";
import { join } from "path";
import { SCHEMA_JSON, SCHEMA_MODULE, renderSchemaModule } from "../../scripts/generate-iogen-schema";
import {
  IOGEN_NUMERIC_COLUMNS,
  IOGEN_SUBINTERVAL_REQUIRED,
  IOGEN_SUMMARY_REQUIRED,
  IOGEN_TEXT_COLUMNS,
  iogenColumnsOf,
  parseIogenCsv,
} from "../../src/import/iogen-csv";

interface SchemaColumn {
  name: string;
  type: "text" | "integer" | "number" | "number_or_max";
  unit: string;
  files: ("subinterval" | "summary")[];
  required_in: ("subinterval" | "summary")[];
  since: number;
  description: string;
}

const ROOT = join(__dirname, "..", "..");
const schemaText = readFileSync(SCHEMA_JSON, "utf8");
const schema = JSON.parse(schemaText) as { schema_version: number; columns: SchemaColumn[] };
const columnsOf = (file: "subinterval" | "summary"): string[] =>
  schema.columns.filter((c) => c.files.includes(file)).map((c) => c.name);

describe("iogen/schema/columns.json", () => {
  it("is well formed: unique names, known types, files and required_in consistent, since a schema version", () => {
    const names = schema.columns.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    for (const c of schema.columns) {
      expect(c.name).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(["text", "integer", "number", "number_or_max"]).toContain(c.type);
      expect(typeof c.unit).toBe("string");
      expect(c.description.length).toBeGreaterThan(0);
      expect(c.files.length).toBeGreaterThan(0);
      for (const f of c.required_in) expect(c.files).toContain(f);
      expect(Number.isInteger(c.since) && c.since >= 1 && c.since <= schema.schema_version).toBe(true);
      // A column added after the first schema may be missing from older files: never required.
      if (c.since > 1) expect(c.required_in).toEqual([]);
    }
  });

  it("src/import/iogen-schema.ts is generated from it (rerun scripts/generate-iogen-schema.ts)", () => {
    expect(readFileSync(SCHEMA_MODULE, "utf8")).toBe(renderSchemaModule(schemaText));
  });

  it("gives the reader its numeric, text and required columns", () => {
    expect([...IOGEN_NUMERIC_COLUMNS]).toEqual(schema.columns.filter((c) => c.type !== "text").map((c) => c.name));
    expect([...IOGEN_TEXT_COLUMNS]).toEqual(schema.columns.filter((c) => c.type === "text").map((c) => c.name));
    expect([...IOGEN_SUBINTERVAL_REQUIRED]).toEqual(
      schema.columns.filter((c) => c.required_in.includes("subinterval")).map((c) => c.name),
    );
    expect([...IOGEN_SUMMARY_REQUIRED]).toEqual(
      schema.columns.filter((c) => c.required_in.includes("summary")).map((c) => c.name),
    );
    expect(iogenColumnsOf("subinterval")).toEqual(columnsOf("subinterval"));
    expect(iogenColumnsOf("summary")).toEqual(columnsOf("summary"));
  });

  it.each(["subinterval", "summary"] as const)(
    "a %s header of exactly the schema's columns reads with no label",
    (kind) => {
      const header = columnsOf(kind);
      const row = header.map((name) => {
        const c = schema.columns.find((s) => s.name === name)!;
        if (name === "phase") return "measure";
        if (name === "category") return "overall";
        if (name === "seen_enough") return "yes"; // one of iogen's words (any other is refused)
        if (name === "preconditioned") return "yes";
        if (name === "interrupted_by") return "SIGINT"; // with interrupted_at_s (a number, 1)
        return c.type === "text" ? "x" : "1";
      });
      const r = parseIogenCsv(`${header.join(",")}\n${row.join(",")}\n`, `${kind}.csv`);
      expect(r.errors).toEqual([]);
      expect(r.kind).toBe(kind);
      expect(r.labelColumns).toEqual([]);
      expect(r.rows).toHaveLength(1);
    },
  );

  it("a file without the optional columns (as an older iogen wrote) still reads", () => {
    for (const kind of ["subinterval", "summary"] as const) {
      const header = schema.columns.filter((c) => c.required_in.includes(kind)).map((c) => c.name);
      const row = header.map((n) => (n === "phase" ? "measure" : n === "category" ? "overall" : "1"));
      const r = parseIogenCsv(`${header.join(",")}\n${row.join(",")}\n`, "old.csv");
      expect(r.errors).toEqual([]);
      expect(r.rows).toHaveLength(1);
    }
  });
});

/** The markdown table rows of one `## …` section of docs/iogen-csv.md, as arrays of trimmed cells. */
function docsSection(title: string): { text: string; rows: string[][] } {
  const doc = readFileSync(join(ROOT, "docs", "iogen-csv.md"), "utf8");
  const start = doc.indexOf(`\n## ${title}\n`);
  expect(start).toBeGreaterThanOrEqual(0);
  const end = doc.indexOf("\n## ", start + 1);
  const text = doc.slice(start, end < 0 ? undefined : end);
  const rows = text
    .split("\n")
    .filter((l) => l.startsWith("|") && !/^\|\s*-/.test(l))
    .slice(1) // the table's own header
    .map((l) =>
      l
        .slice(1, -1)
        .split("|")
        .map((c) => c.trim()),
    );
  return { text, rows };
}

describe("docs/iogen-csv.md", () => {
  it("lists every subinterval column, in schema order", () => {
    const { rows } = docsSection("Subinterval CSV columns");
    const listed: string[] = [];
    for (const [, names] of rows) {
      if (names === "label columns") continue;
      // `service_ms_avg`, `_p50`, … : a name starting with `_` continues the first name's stem.
      const parts = [...names.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
      const stem = parts[0].slice(0, parts[0].lastIndexOf("_"));
      for (const p of parts) listed.push(p.startsWith("_") ? stem + p : p);
    }
    expect(listed).toEqual(columnsOf("subinterval"));
  });

  it("gives the summary header in schema order and documents each summary-only column", () => {
    const { text } = docsSection("Summary CSV columns");
    const line = /`(host,step,[^`]*)`/.exec(text);
    expect(line).not.toBeNull();
    const [before, after] = line![1].split("…");
    const head = before.split(",").filter((c) => c !== "");
    const tail = after.split(",").filter((c) => c !== "" && !c.startsWith("<"));
    const summary = columnsOf("summary");
    expect(summary.slice(0, head.length)).toEqual(head);
    const labelFree = summary.slice(summary.length - tail.length);
    expect(labelFree).toEqual(tail);
    for (const c of schema.columns.filter((s) => !s.files.includes("subinterval"))) {
      expect(text).toContain(`\`${c.name}\``);
    }
  });
});

describe("lab fixtures", () => {
  const fixtures = join(ROOT, "tests", "lab", "fixtures");
  const headerOf = (path: string): string[] => readFileSync(path, "utf8").split("\n", 1)[0].split(",");

  it("the generated doe2x2 files carry exactly the schema's columns, then the label", () => {
    expect(headerOf(join(fixtures, "doe2x2", "subintervals.csv"))).toEqual([...columnsOf("subinterval"), "protocol"]);
    expect(headerOf(join(fixtures, "doe2x2", "summary.csv"))).toEqual([...columnsOf("summary"), "protocol"]);
  });

  it("the files a real iogen wrote use schema columns in schema order (older files may lack newer ones)", () => {
    for (const [file, kind] of [
      ["subintervals.csv", "subinterval"],
      ["summary.csv", "summary"],
    ] as const) {
      const known = columnsOf(kind);
      const header = headerOf(join(fixtures, "iogen-real", file)).filter((c) => known.includes(c));
      expect(header).toEqual(known.filter((c) => header.includes(c)));
      for (const r of schema.columns.filter((c) => c.required_in.includes(kind))) expect(header).toContain(r.name);
    }
  });
});
