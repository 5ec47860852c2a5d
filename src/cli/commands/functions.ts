/**
 * `caplab functions`: lists the worksheet functions with their one-line descriptions, from the
 * same metadata custom-functions-metadata generates for Excel (see `../function-registry`).
 * `--json` prints the full metadata (parameters with descriptions, help URLs).
 */
import { CliIo } from "../io";
import { loadMetadata } from "../function-registry";
import { parseOptions, UsageError } from "../options";

export const summary = "List the worksheet functions with one-line descriptions (--json: full metadata)";

const HELP = "Usage: caplab functions [--json]\n\nLists the CAPLAB worksheet functions with one-line descriptions.\n";

const OPTIONS = {
  help: { type: "boolean", short: "h" },
  json: { type: "boolean" },
} as const;

/** The first sentence of a description (up to the first ". " or ": "), for a one-line list. */
export function oneLine(description: string | undefined): string {
  const text = (description ?? "").replace(/\s+/g, " ").trim();
  const end = text.search(/[.:](\s|$)/);
  return end > 0 ? text.slice(0, end) : text;
}

/**
 * Runs the command.
 *
 * @param args - `--json` for the full metadata, `--help` for usage
 * @param io - where to print
 * @returns the exit status
 */
export async function run(args: string[], io: CliIo): Promise<number> {
  let json: boolean;
  try {
    const { values } = parseOptions("functions", args, OPTIONS);
    if (values.help) {
      io.out(HELP);
      return 0;
    }
    json = values.json ?? false;
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`caplab functions: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  const { functions } = await loadMetadata();
  if (json) {
    io.out(JSON.stringify(functions, null, 2) + "\n");
    return 0;
  }
  const width = Math.max(...functions.map((f) => f.id.length));
  const lines = functions.map((f) => {
    const params = f.parameters.map((p) => (p.optional ? `[${p.name}]` : p.name)).join(", ");
    return `${f.id.padEnd(width)}  ${oneLine(f.description)}\n${" ".repeat(width)}  =CAPLAB.${f.id}(${params})`;
  });
  io.out(lines.join("\n") + "\n");
  return 0;
}
