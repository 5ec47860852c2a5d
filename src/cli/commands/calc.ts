/**
 * `caplab calc "<formula>"`: evaluates one formula in Excel syntax over the Capacity Lab
 * worksheet functions and prints the result as JSON.
 *
 * Exit status: 0 with a JSON value (number, string, boolean, 2-D array) or an Excel error as
 * `{"error": "#NUM!", "message": "..."}`; 2 when the formula does not parse, uses something a
 * calculator cannot have (cell references), or calls an unknown function.
 */
import { CliIo } from "../io";
import { evaluateFormula, FormulaError, valueToJson } from "../formula";

export const summary = 'Evaluate a formula, e.g. caplab calc "MMC_RESPONSE(4, 30, 0.08)"; prints JSON';

const HELP = `Usage: caplab calc "<formula>"

Evaluates one formula in Excel syntax over the Capacity Lab functions and prints JSON.
  - a leading "=" and the "CAPLAB." prefix are optional: =CAPLAB.MMC_RESPONSE(4,30,0.08)
  - arithmetic (+ - * / ^ %), text in double quotes, TRUE/FALSE, array constants {1,2;3,4}
  - spilled results print as a 2-D array; Excel errors as {"error": "#NUM!", "message": "..."} (exit 0)
  - a formula that does not parse, or an unknown function, exits with status 2
Run 'caplab functions' for the list of functions.
`;

/**
 * Runs the command.
 *
 * @param args - the formula (several arguments are joined with spaces, so unquoted formulas work)
 * @param io - where to print
 * @returns the exit status
 */
export async function run(args: string[], io: CliIo): Promise<number> {
  if (args.length === 0 || args[0] === "--help" || args[0] === "-h") {
    io.out(HELP);
    return args.length === 0 ? 2 : 0;
  }
  const formula = args.join(" ");
  try {
    const value = await evaluateFormula(formula);
    io.out(valueToJson(value) + "\n");
    return 0;
  } catch (e) {
    if (e instanceof FormulaError) {
      io.err(`caplab calc: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
}
