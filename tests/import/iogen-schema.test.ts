/**
 * The reader's iogen column lists against the machine-readable schema iogen's writer derives its
 * headers from (iogen/schema/columns.json): a column renamed, added or dropped there fails here
 * until the reader follows.
 */
import * as fs from "fs";
import * as path from "path";
import { IOGEN_NUMERIC_COLUMNS, IOGEN_TEXT_COLUMNS } from "../../src/import/iogen-csv";

interface SchemaColumn {
  name: string;
  type: "text" | "integer" | "number" | "number_or_max";
  unit: string;
  description: string;
  files: ("subinterval" | "summary")[];
}

const schema = JSON.parse(
  fs.readFileSync(path.join(__dirname, "..", "..", "iogen", "schema", "columns.json"), "utf8"),
) as { columns: SchemaColumn[] };

describe("iogen CSV schema", () => {
  it("names every column the reader knows, and the reader knows every column", () => {
    const names = schema.columns.map((c) => c.name).sort();
    expect([...IOGEN_NUMERIC_COLUMNS, ...IOGEN_TEXT_COLUMNS].sort()).toEqual(names);
  });

  it("text columns are the reader's text columns; every other column is read as a number", () => {
    const text = schema.columns.filter((c) => c.type === "text").map((c) => c.name);
    expect([...IOGEN_TEXT_COLUMNS].sort()).toEqual(text.sort());
  });
});
