/**
 * Writes `src/import/iogen-schema.ts` from `iogen/schema/columns.json`, the one machine-readable
 * description of iogen's CSV columns, as a typed `as const` table (so column names are literal
 * types in TypeScript, and the module needs no JSON import from outside `src/`, which the CLI's
 * `rootDir` and a browser worker bundle would both have to special-case).
 *
 * `tests/import/iogen-schema.test.ts` renders the module again and fails when the committed file
 * differs, so a column changed in the JSON cannot be forgotten here.
 *
 * Run: npx tsx scripts/generate-iogen-schema.ts
 */
import { readFileSync, writeFileSync } from "fs";
import { join } from "path";

export const SCHEMA_JSON = join(__dirname, "..", "iogen", "schema", "columns.json");
export const SCHEMA_MODULE = join(__dirname, "..", "src", "import", "iogen-schema.ts");

/**
 * The TypeScript module for a schema file's text: one column per line (a diff shows the column
 * that changed), marked `prettier-ignore` so the formatter keeps that layout.
 */
export function renderSchemaModule(jsonText: string): string {
  const schema = JSON.parse(jsonText) as { schema_version: number; columns: unknown[] };
  return [
    "// Generated from iogen/schema/columns.json by scripts/generate-iogen-schema.ts: edit the JSON and",
    "// run `npx tsx scripts/generate-iogen-schema.ts` (tests/import/iogen-schema.test.ts checks it).",
    "",
    "/** Version of the schema file's layout (not of iogen). */",
    `export const IOGEN_SCHEMA_VERSION = ${JSON.stringify(schema.schema_version)};`,
    "",
    "/** iogen's CSV columns in file order, as in `iogen/schema/columns.json` (see its `$comment`). */",
    "// prettier-ignore",
    "export const IOGEN_SCHEMA_COLUMNS = [",
    ...schema.columns.map((c) => `  ${JSON.stringify(c)},`),
    "] as const;",
    "",
  ].join("\n");
}

function main(): void {
  writeFileSync(SCHEMA_MODULE, renderSchemaModule(readFileSync(SCHEMA_JSON, "utf8")));
  console.log(`wrote ${SCHEMA_MODULE}`);
}

if (require.main === module) {
  main();
}
