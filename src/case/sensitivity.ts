/** The case's Sensitivity table (the tornado: the recommended option's NPV saving with one driver at a time low or high) and its bar chart. */
import { CaseResult, TornadoRow, VsBaseline } from "./model";
import { percentFormat } from "./money-text";
import { CaseSheet, makeTable, native, opt, savKey, yearKey } from "./sheet-context";
import { cellResult, CellValue, ChartPlan, TablePlan } from "../workbook/plan";
import { CaseInput } from "./input";
import { CANNOT_CARRY, CANNOT_CARRY_BOTH, cannotCarryAt, cannotCarryFormula } from "./carry";
import { GROWTH_DRIVER_TEXT, growthSavingFormula } from "./purchase-sensitivity";

const DRIVER_TEXT: Record<TornadoRow["driver"], string> = {
  load: "Load (× every arrival rate)",
  discountRate: "Discount rate",
  capex: "Capex (× every option's)",
  serverCost: "Per-server costs (×)",
  ...GROWTH_DRIVER_TEXT,
};

/** The Sensitivity table's columns. */
export const SENSITIVITY_COLUMNS = [
  "driver",
  "low",
  "high",
  "saving_low",
  "saving_high",
  "swing",
  "rank",
  "change_low",
  "change_high",
];

/**
 * The Sensitivity table's rows: the drivers, largest swing first (the tornado's widest bar on top);
 * a load at which the baseline or the compared option cannot carry its load comes first (the choice
 * depends on it more than on any cost).
 */
export function sensitivityRows(input: CaseInput, result: CaseResult): string[] {
  const swing = (r: TornadoRow): number =>
    r.driver === "load" && (carried(input, result, "low") !== "" || carried(input, result, "high") !== "")
      ? Infinity
      : Math.abs(r.savingHigh - r.savingLow);
  return [...result.tornado].sort((a, b) => swing(b) - swing(a)).map((r) => r.driver);
}

/**
 * Who cannot carry the load at the load factor `side`, of the baseline and the option the tornado
 * compares with it: "" when both can, else the words the load row shows instead of a saving.
 */
function carried(input: CaseInput, result: CaseResult, side: "low" | "high"): string {
  const k = result.recommended;
  const who = [0, k].filter((i) => cannotCarryAt(input, result, i, side)).map((i) => input.options[i].name);
  if (who.length === 0) return "";
  return who.length === 1 ? `${who[0]} ${CANNOT_CARRY}` : `${who.join(" and ")} ${CANNOT_CARRY_BOTH}`;
}

/** {@link carried} as a live formula around the load row's `saving` (names from the Costs header). */
function carriedFormula(ctx: CaseSheet, side: "low" | "high", saving: string): string {
  const k = ctx.result.recommended;
  const [base, other] = [cannotCarryFormula(ctx, 0, side), cannotCarryFormula(ctx, k, side)];
  const name = (i: number): string => ctx.sheet.cell(ctx.costs, "header", opt(i), true);
  const words = (who: string, what = CANNOT_CARRY): string => `${who}&" ${what}"`;
  if (base === null && other === null) return saving;
  if (base === null) return `IF(${other},${words(name(k))},${saving})`;
  if (other === null) return `IF(${base},${words(name(0))},${saving})`;
  return (
    `IF(AND(${base},${other}),${words(`${name(0)}&" and "&${name(k)}`, CANNOT_CARRY_BOTH)},` +
    `IF(${base},${words(name(0))},IF(${other},${words(name(k))},${saving})))`
  );
}

/** A load row's saving at `side`: the saving, or who cannot carry the load there. */
function loadCell(ctx: CaseSheet, side: "low" | "high", value: number): CellValue {
  const formula = carriedFormula(ctx, side, savingFormula(ctx, "load", side));
  const words = carried(ctx.input, ctx.result, side);
  return native(formula, words === "" ? value : words);
}

/** The NPV saving of the recommended option with `driver` at its low or high value, the others at base. */
function savingFormula(ctx: CaseSheet, driver: TornadoRow["driver"], side: "low" | "high"): string {
  const { result, sheet, sensitivity, costs, returns, scenarios, savings } = ctx;
  const k = result.recommended;
  const base = sheet.cell(returns, opt(k), "npv_saving");
  const at = sheet.cell(sensitivity, driver, side);
  const sc = (i: number, col: string): string => sheet.cell(scenarios, opt(i), col);
  if (ctx.purchasePv && (driver === "load" || driver === "growth")) return growthSavingFormula(ctx, driver, side);
  switch (driver) {
    case "discountRate": {
      const sav = sheet.span(savings, [yearKey(0), savKey(k)], [yearKey(result.periods - 1), savKey(k)]);
      const years = sheet.span(savings, [yearKey(0), "year"], [yearKey(result.periods - 1), "year"]);
      return `SUMPRODUCT(${sav}/(1+${at})^${years})`;
    }
    case "capex":
      return `${base}+(${at}-1)*(${sheet.cell(costs, "capex", opt(0))}-${sheet.cell(costs, "capex", opt(k))})`;
    case "serverCost":
      return `${base}+(${at}-1)*(${sc(0, "pv_base")}-${sc(k, "pv_base")})`;
    default:
      return `${base}+(${sc(0, `pv_${side}`)}-${sc(0, "pv_base")})-(${sc(k, `pv_${side}`)}-${sc(k, "pv_base")})`;
  }
}

/**
 * A row's rank by swing (1 = largest, on whole currency units; "n/a", a load an option cannot
 * carry, above any number), live: 1 + the rows whose rounded swing is larger.
 */
function rankCell(ctx: CaseSheet, driver: string, swings: number[], r: number): CellValue {
  const { sheet, sensitivity } = ctx;
  const all = sheet.span(
    sensitivity,
    [sensitivity.rows[0], "swing"],
    [sensitivity.rows[sensitivity.rows.length - 1], "swing"],
  );
  const key = (x: string): string => `IFERROR(ROUND(${x},0),1E+300)`;
  return native(
    `1+SUMPRODUCT(--(${key(all)}>${key(sheet.cell(sensitivity, driver, "swing"))}))`,
    1 + swings.filter((x) => x > swings[r]).length,
  );
}

/**
 * The tornado: the recommended option's NPV saving over the baseline with one driver at its low or
 * high value (inputs), the others at base, as closed forms over the sheet's cells (the saving is
 * linear in capex and per-server cost; the load acts through the servers at low and high load;
 * the rate through the yearly savings).
 */
export function sensitivityTable(ctx: CaseSheet): TablePlan {
  const { input, result, sheet, sensitivity } = ctx;
  const k = result.recommended;
  const swings: number[] = [];
  const rows = sensitivity.rows.map((driver): CellValue[] => {
    const row = result.tornado.find((r) => r.driver === driver) as TornadoRow;
    const lo = sheet.cell(sensitivity, row.driver, "saving_low");
    const hi = sheet.cell(sensitivity, row.driver, "saving_high");
    const load = row.driver === "load";
    const low = load
      ? loadCell(ctx, "low", row.savingLow)
      : native(savingFormula(ctx, row.driver, "low"), row.savingLow);
    const high = load
      ? loadCell(ctx, "high", row.savingHigh)
      : native(savingFormula(ctx, row.driver, "high"), row.savingHigh);
    const numbers = typeof cellResult(low) === "number" && typeof cellResult(high) === "number";
    swings.push(numbers ? Math.round(Math.abs(row.savingHigh - row.savingLow)) : Infinity);
    return [
      DRIVER_TEXT[row.driver],
      row.low,
      row.high,
      low,
      high,
      // A side that cannot be costed has no swing: "n/a" (the live test: both sides numbers).
      native(
        load ? `IF(AND(ISNUMBER(${lo}),ISNUMBER(${hi})),ABS(${hi}-${lo}),"n/a")` : `ABS(${hi}-${lo})`,
        numbers ? Math.abs(row.savingHigh - row.savingLow) : "n/a",
      ),
    ];
  });
  // The tornado's bars: each side's change from the base case's saving, live, so the bars keep
  // starting at the base after an edit (a chart's axis crossing is a number fixed when built, a
  // cell is not); a side that cannot be costed is "n/a" (no bar).
  const baseSaving = sheet.cell(ctx.returns, opt(k), "npv_saving");
  const baseValue = (result.options[k].vsBaseline as VsBaseline).npvSaving;
  const change = (saving: string, cached: CellValue): CellValue => {
    const v = cellResult(cached);
    return native(
      `IF(ISNUMBER(${saving}),${saving}-${baseSaving},"n/a")`,
      typeof v === "number" ? v - baseValue : "n/a",
    );
  };
  rows.forEach((row, r) => {
    const driver = sensitivity.rows[r];
    row.push(
      rankCell(ctx, driver, swings, r),
      change(sheet.cell(sensitivity, driver, "saving_low"), row[3]),
      change(sheet.cell(sensitivity, driver, "saving_high"), row[4]),
    );
  });
  const vs = `${input.options[k].name} vs ${input.options[0].name}`;
  return makeTable(
    ctx,
    sensitivity,
    [
      { key: "driver", header: "Driver" },
      {
        key: "low",
        header: "Low (input)",
        numFmt: "0.00",
        description:
          "A factor on the case's values (a rate for the discount rate, points added to every year's rate for growth); the Scenarios table uses the same",
      },
      { key: "high", header: "High (input)", numFmt: "0.00" },
      // "X cannot carry its load" wraps in its cell rather than widening columns the printed page 1 shares.
      { key: "saving_low", header: `NPV saving, ${vs}, at low`, numFmt: ctx.cur, width: 20, wrap: true },
      { key: "saving_high", header: `NPV saving at high`, numFmt: ctx.cur, width: 20, wrap: true },
      {
        key: "swing",
        header: "Swing",
        numFmt: ctx.cur,
        description: "|saving at high − saving at low|: the longer the bar, the more the decision depends on it",
      },
      {
        key: "rank",
        header: "Rank",
        numFmt: "0",
        description:
          "1 = the largest swing (whole currency units; a load no option here can carry first), live: the rows keep the order they were built in",
      },
      {
        key: "change_low",
        header: "Change from base, at low",
        numFmt: ctx.cur,
        description: "NPV saving at low − the base case's (the tornado's bar; n/a: a load an option cannot carry)",
      },
      { key: "change_high", header: "Change from base, at high", numFmt: ctx.cur },
    ],
    rows,
    {
      // The discount rate's low and high are rates (5.00%), the growth's points added to every
      // year's rate (−10.0%), the others factors (0.70).
      cellFormats: sensitivity.rows.flatMap((d, r) =>
        d === "discountRate" || d === "growth"
          ? [1, 2].map((col) => ({ row: r, col, numFmt: percentFormat(d === "growth" ? 1 : 2) }))
          : [],
      ),
    },
  );
}

/**
 * The tornado chart: one horizontal bar per driver (largest swing on top, the Sensitivity table's
 * order), from the base NPV saving to the saving at the driver's low and at its high value.
 */
export function tornadoChart(ctx: CaseSheet): ChartPlan {
  const { input, result, sensitivity } = ctx;
  const k = result.recommended;
  const rows = sensitivity.rows.map((d) => result.tornado.find((r) => r.driver === d) as TornadoRow);
  // A side where an option cannot carry the load is a gap in its bar (text in the cell), not a cost.
  const at = (r: TornadoRow, side: "low" | "high"): number =>
    r.driver === "load" && carried(input, result, side) !== "" ? NaN : side === "low" ? r.savingLow : r.savingHigh;
  const base = (result.options[k].vsBaseline as VsBaseline).npvSaving;
  const change = (r: TornadoRow, side: "low" | "high"): number => at(r, side) - base;
  const bars = (name: string, y: number[]): ChartPlan["series"][number] => ({
    name,
    x: rows.map((_, j) => j),
    y,
    style: "points",
  });
  return {
    id: ctx.names("tornado"),
    title: `Sensitivity: NPV saving of ${input.options[k].name} vs ${input.options[0].name}`,
    kind: "bar",
    categories: rows.map((r) => DRIVER_TEXT[r.driver]),
    base: 0,
    xTitle: "Driver",
    yTitle: `Change in NPV saving from the base case (${input.currency})`,
    series: [
      bars(
        "Driver at its low value",
        rows.map((r) => change(r, "low")),
      ),
      bars(
        "Driver at its high value",
        rows.map((r) => change(r, "high")),
      ),
    ],
    source: { table: sensitivity.name, xColumn: "driver", yColumns: ["change_low", "change_high"] },
  };
}
