/**
 * The worksheet functions as the CLI sees them: the metadata that custom-functions-metadata
 * generates from the JSDoc in `src/functions/functions.ts` (the same metadata Excel gets), joined
 * to the exported wrapper functions by the generator's id → function-name association. A function
 * added to `functions.ts` with a `@customfunction` tag therefore appears in `caplab functions` and
 * works in `caplab calc` with no change here.
 *
 * Where the metadata comes from:
 * - compiled CLI (`lib/cli/…`): `lib/functions.json`, written by `scripts/cli-metadata.js` as the
 *   last step of `npm run build:cli`;
 * - from source (Jest, tsx): generated on the fly from `src/functions/functions.ts` with
 *   custom-functions-metadata (a dev dependency), so tests never read a stale file.
 */
import * as fs from "fs";
import * as path from "path";
import * as wrappers from "../functions/functions";

/** One parameter as custom-functions-metadata describes it. */
export interface ParameterMetadata {
  name: string;
  description?: string;
  type?: string;
  dimensionality?: "scalar" | "matrix";
  optional?: boolean;
}

/** One function as custom-functions-metadata describes it (the subset the CLI uses). */
export interface FunctionMetadata {
  id: string;
  name: string;
  description?: string;
  helpUrl?: string;
  parameters: ParameterMetadata[];
  result?: { dimensionality?: "scalar" | "matrix"; type?: string };
}

/** The file the CLI build writes: the Excel metadata plus the id → exported-function association. */
export interface CliMetadata {
  functions: FunctionMetadata[];
  associate: { id: string; functionName: string }[];
}

/** A callable worksheet function. */
export interface WorksheetFunction {
  metadata: FunctionMetadata;
  impl: (...args: unknown[]) => unknown;
}

/** The package root: the nearest ancestor of this file with a package.json. */
function packageRoot(): string {
  let dir = __dirname;
  for (;;) {
    if (fs.existsSync(path.join(dir, "package.json"))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error("cannot find the package root (package.json) above " + __dirname);
    dir = parent;
  }
}

/**
 * Generates the CLI metadata from a functions source file with custom-functions-metadata.
 *
 * @param sourceFile - path of `functions.ts`
 * @returns the metadata and association
 * @throws Error listing the generator's errors (e.g. an unsupported parameter type)
 */
export async function generateCliMetadata(sourceFile: string): Promise<CliMetadata> {
  // A dev dependency: only needed when running from source or at build time.
  const { generateCustomFunctionsMetadata } = require("custom-functions-metadata/lib/generate") as {
    generateCustomFunctionsMetadata(
      input: string,
      wantConsoleOutput?: boolean,
    ): Promise<{ metadataJson: string; associate: { id: string; functionName: string }[]; errors: string[] }>;
  };
  const result = await generateCustomFunctionsMetadata(sourceFile, false);
  if (result.errors.length > 0) throw new Error(`${sourceFile}: ${result.errors.join("; ")}`);
  const metadata = JSON.parse(result.metadataJson || '{"functions":[]}') as { functions: FunctionMetadata[] };
  return {
    functions: metadata.functions,
    associate: result.associate.map(({ id, functionName }) => ({ id, functionName })),
  };
}

let cached: Promise<CliMetadata> | undefined;

/** The metadata: `lib/functions.json` for the compiled CLI, generated from source otherwise. */
export function loadMetadata(): Promise<CliMetadata> {
  if (!cached) {
    const root = packageRoot();
    const runningFromSource = __filename.endsWith(".ts");
    cached = runningFromSource
      ? generateCliMetadata(path.join(root, "src", "functions", "functions.ts"))
      : fs.promises
          .readFile(path.join(root, "lib", "functions.json"), "utf8")
          .then((text) => JSON.parse(text) as CliMetadata)
          .catch((e: NodeJS.ErrnoException) => {
            if (e.code === "ENOENT") {
              throw new Error("lib/functions.json is missing: run `npm run build:cli` to generate it");
            }
            throw e;
          });
  }
  return cached;
}

/** Upper-cases a function name and drops an optional `CAPLAB.` namespace prefix. */
export function normalizeFunctionName(name: string): string {
  const upper = name.trim().toUpperCase();
  return upper.startsWith("CAPLAB.") ? upper.slice("CAPLAB.".length) : upper;
}

/**
 * All worksheet functions by id (upper case), each with its metadata and wrapper.
 *
 * @returns the registry
 * @throws Error when the metadata names a function that `functions.ts` does not export
 */
export async function loadRegistry(): Promise<Map<string, WorksheetFunction>> {
  const meta = await loadMetadata();
  const byId = new Map(meta.associate.map((a) => [a.id, a.functionName]));
  const exported = wrappers as unknown as Record<string, unknown>;
  const registry = new Map<string, WorksheetFunction>();
  for (const f of meta.functions) {
    const impl = exported[byId.get(f.id) ?? f.id];
    if (typeof impl !== "function") {
      throw new Error(`function ${f.id} is in the metadata but not exported by src/functions/functions.ts`);
    }
    registry.set(f.id.toUpperCase(), { metadata: f, impl: impl as (...args: unknown[]) => unknown });
  }
  return registry;
}
