/**
 * Option parsing shared by the `caplab` commands: Node's `util.parseArgs` (strict) behind one
 * function whose errors are {@link UsageError}s in the commands' style, e.g.
 * `unknown option '--bogus' (see caplab lab --help)`, so every command exits 2 on bad usage.
 *
 * Accepted forms are parseArgs': `--name value`, `--name=value`, `-n value`, grouped short
 * booleans (`-hv`), `--` ending the options. A value that starts with `-` must be given inline
 * (`--name=-x`); the last of a repeated option wins. Each command still checks its values
 * (ranges, file names) itself.
 */
import { parseArgs } from "node:util";

/** Bad usage: the message names the option or argument; the command prints it and exits 2. */
export class UsageError extends Error {}

/** One option: a string that takes a value, or a boolean flag; `short` is a one-letter alias. */
export interface OptionDef {
  type: "string" | "boolean";
  short?: string;
}

/** The options a command accepts, by long name (without the leading `--`). */
export type OptionSpec = Record<string, OptionDef>;

/** The parsed values: a string or `true` for each option given, `undefined` for the others. */
export type OptionValues<S extends OptionSpec> = {
  [K in keyof S]?: S[K]["type"] extends "string" ? string : boolean;
};

/** What {@link parseOptions} returns. */
export interface ParsedOptions<S extends OptionSpec> {
  values: OptionValues<S>;
  positionals: string[];
}

/**
 * Parses a command's arguments with `util.parseArgs` in strict mode.
 *
 * Cost O(number of arguments); on an error the arguments are scanned once more to name the
 * offending one.
 *
 * @param command - the command's name, for the `(see caplab <command> --help)` pointer
 * @param args - the arguments after the command name
 * @param spec - the options the command accepts
 * @param allowPositionals - whether arguments that are not options (e.g. input files) are accepted
 * @returns the option values and the positional arguments in order
 * @throws UsageError for an unknown option, a missing value, a value given to a flag, or a
 *   positional argument the command does not take
 * @example
 * parseOptions("lab", ["--out=x", "-h"], { out: { type: "string" }, help: { type: "boolean", short: "h" } })
 * // => { values: { out: "x", help: true }, positionals: [] }
 */
export function parseOptions<S extends OptionSpec>(
  command: string,
  args: readonly string[],
  spec: S,
  allowPositionals = false,
): ParsedOptions<S> {
  try {
    const { values, positionals } = parseArgs({ args: [...args], options: spec, strict: true, allowPositionals });
    return { values: { ...values } as OptionValues<S>, positionals };
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (typeof code !== "string" || !code.startsWith("ERR_PARSE_ARGS_")) throw e;
    const problem = describeProblem(args, spec, allowPositionals) ?? (e as Error).message.split("\n")[0];
    throw new UsageError(`${problem} (see caplab ${command} --help)`);
  }
}

/**
 * The first argument strict parsing rejects, in words, found from parseArgs' tokens (non-strict
 * mode reads the same arguments without throwing); undefined when none is found.
 */
function describeProblem(args: readonly string[], spec: OptionSpec, allowPositionals: boolean): string | undefined {
  const { tokens } = parseArgs({ args: [...args], options: spec, strict: false, allowPositionals: true, tokens: true });
  for (const t of tokens) {
    if (t.kind === "positional" && !allowPositionals) return `unexpected argument '${t.value}'`;
    if (t.kind !== "option") continue;
    const def = Object.prototype.hasOwnProperty.call(spec, t.name) ? spec[t.name] : undefined;
    if (!def) return `unknown option '${t.rawName}'`;
    if (def.type === "boolean" && t.value !== undefined) return `${t.rawName} takes no value`;
    if (def.type === "string" && t.value === undefined) return `${t.rawName} needs a value`;
    if (def.type === "string" && !t.inlineValue && t.value !== undefined && /^-./.test(t.value)) {
      return `${t.rawName} needs a value (for a value starting with '-', write --${t.name}=VALUE)`;
    }
  }
  return undefined;
}
