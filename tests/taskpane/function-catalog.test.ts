/**
 * The Functions tab's search and Insert, on the metadata the add-in is built with (generated here
 * by custom-functions-metadata from src/functions/functions.ts, mapped by the same
 * scripts/function-summaries.js as webpack's build).
 */
import * as path from "path";
import { generateCustomFunctionsMetadata } from "custom-functions-metadata/lib/generate";
import {
  documentedDefault,
  filterFunctions,
  FUNCTION_CONCEPTS,
  FunctionSummary,
  insertFormula,
} from "../../src/taskpane/function-catalog";
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { functionSummaries } = require("../../scripts/function-summaries.js") as {
  functionSummaries: (f: unknown[]) => FunctionSummary[];
};

let all: FunctionSummary[];
beforeAll(async () => {
  const result = await generateCustomFunctionsMetadata(path.join(__dirname, "../../src/functions/functions.ts"), false);
  expect(result.errors).toEqual([]);
  all = functionSummaries(JSON.parse(result.metadataJson).functions);
}, 60_000);

const ids = (query: string): string[] => filterFunctions(all, query).map((f) => f.id);
const fn = (id: string): FunctionSummary => all.find((f) => f.id === id) as FunctionSummary;

describe("search by name, description and idea", () => {
  test.each([
    ["little", "MMC_METRICS"],
    ["Little's law", "MMC_METRICS"],
    ["knee", "MMC_RESPONSE"],
    ["mm1", "MMC_RESPONSE"],
    ["M/M/1", "MMC_STAFF"],
    ["utilization", "LB_MAXUTIL"],
    ["NPV", "NPV_IT"],
    ["net present value", "NPV_IT"],
    ["anova", "DOE_FIT"],
    ["steady state", "SEEN_ENOUGH"],
  ])("%s finds %s", (query, id) => {
    expect(ids(query)).toContain(id);
  });

  test("a word in the name ranks first; every word must match; nothing matches nonsense", () => {
    expect(ids("npv")[0]).toBe("NPV_IT");
    expect(ids("mmc staff")).toEqual(["MMC_STAFF"]);
    expect(ids("zzz-no-such-function")).toEqual([]);
    expect(ids("  ")).toHaveLength(all.length);
  });

  test("every concept list names a function that exists", () => {
    expect(Object.keys(FUNCTION_CONCEPTS).filter((id) => !all.some((f) => f.id === id))).toEqual([]);
  });
});

describe("Insert: the formula from the argument form", () => {
  test("required arguments, a range, optional ones left out at the end", () => {
    expect(insertFormula(fn("NPV_IT"), ["0.1", "B2:B6", ""])).toEqual({ formula: "=CAPLAB.NPV_IT(0.1,B2:B6)" });
    expect(insertFormula(fn("MMC_RESPONSE"), ["4", "=0.2", " 15 "])).toEqual({
      formula: "=CAPLAB.MMC_RESPONSE(4,0.2,15)",
    });
  });

  test("a blank optional argument between two given ones is left empty (the function's default)", () => {
    expect(insertFormula(fn("DOE_FIT"), ["A1:C9", "D1:D9", "", "raw"])).toEqual({
      formula: '=CAPLAB.DOE_FIT(A1:C9,D1:D9,,"raw")',
    });
  });

  test("a documented choice typed bare gets its quotes", () => {
    expect(insertFormula(fn("LB_MAXUTIL"), ["8", "2", "0.3", "0.1", "bound"])).toEqual({
      formula: '=CAPLAB.LB_MAXUTIL(8,2,0.3,0.1,"bound")',
    });
  });

  test("a missing required argument and a broken one are named", () => {
    const r = insertFormula(fn("MMC_RESPONSE"), ["", "0.2", "SUM(A1"]);
    expect(r).toEqual({
      problems: [
        { parameter: "servers", message: "servers: required; enter a value or a cell" },
        { parameter: "arrival_rate", message: "arrival_rate: unbalanced quotes or brackets in SUM(A1" },
      ],
    });
    expect(insertFormula(fn("MMC_RESPONSE"), ["1,2", "0.2", "3"])).toEqual({
      problems: [{ parameter: "servers", message: "servers: unbalanced quotes or brackets in 1,2" }],
    });
  });

  test("the documented defaults are read from the parameter descriptions", () => {
    const defaults = (id: string): (string | undefined)[] =>
      fn(id).parameters.map((p) => (p.optional ? documentedDefault(p.description ?? "") : undefined));
    expect(defaults("DOE_FIT")).toEqual([undefined, undefined, "2", '"coded"', "TRUE"]);
    expect(defaults("LB_MAXUTIL")).toEqual([undefined, undefined, undefined, undefined, '"exact"']);
    // min_samples: 90, the shortest window with the default transient detection (5 only with "off").
    expect(defaults("SEEN_ENOUGH")).toEqual([undefined, '"5%"', '"95%"', "90", '"ar1"', '"detect"']);
    expect(defaults("DOE_DESIGN")).toEqual([undefined, "1", "TRUE", "1"]);
  });
});
