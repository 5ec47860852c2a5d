/**
 * `caplab` command-line entry: dispatches a subcommand to its module in `./commands/`.
 *
 * Each command module exports `run(args: string[], io: CliIo): Promise<number>` (the exit
 * code) and `summary` (one line for `caplab --help`). Modules are loaded lazily so that
 * `caplab calc` does not pay for ExcelJS.
 */
import { CliIo, defaultIo } from "./io";
import { shown } from "../text/quote";

interface CommandModule {
  run(args: string[], io: CliIo): Promise<number>;
  summary: string;
}

const COMMANDS: Record<string, () => CommandModule> = {
  calc: () => require("./commands/calc") as CommandModule,
  functions: () => require("./commands/functions") as CommandModule,
  report: () => require("./commands/report") as CommandModule,
  case: () => require("./commands/case") as CommandModule,
  lab: () => require("./commands/lab") as CommandModule,
};

function usage(io: CliIo): void {
  const lines = ["Usage: caplab <command> [options]", "", "Commands:"];
  for (const [name, load] of Object.entries(COMMANDS)) {
    let summary = "";
    try {
      summary = load().summary;
    } catch {
      summary = "(not available in this build)";
    }
    lines.push(`  ${name.padEnd(10)} ${summary}`);
  }
  lines.push("", "Run 'caplab <command> --help' for a command's options.");
  io.out(lines.join("\n") + "\n");
}

export async function main(argv: string[], io: CliIo = defaultIo): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === "--help" || command === "-h" || command === "help") {
    usage(io);
    return command ? 0 : 2;
  }
  if (command === "--version" || command === "-v") {
    io.out(`${(require("../../package.json") as { version: string }).version}\n`);
    return 0;
  }
  const load = COMMANDS[command];
  if (!load) {
    io.err(`caplab: unknown command '${shown(command)}'. Commands: ${Object.keys(COMMANDS).join(", ")}.\n`);
    return 2;
  }
  return load().run(rest, io);
}
