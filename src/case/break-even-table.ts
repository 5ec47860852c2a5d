/**
 * The case's Break-even moves table: for every driver (`robustness.ts`), how far it can move before
 * a different qualifying option is the choice — its value there, the move as a share of its value,
 * which option it makes the choice, whether that is within the move judged plausible for it (an
 * input, ±10 % by default), and its rank by closeness. Sorted by closeness when built; the Rank
 * column follows edits.
 *
 * Drivers in which the costs are linear (capex, yearly lines, one-offs, residual values, per-server
 * costs) are live formulas: with s the slope of the option's net present cost per unit of the driver
 * (a formula over the sheet: 1, Σ_t (1 + e)^t/(1 + r)^t, (1 + r)^−year, −(1 + r)^−years, the
 * servers, the servers × Σ_t (1 + r)^−t), the chosen option's own driver breaks even at
 * (next best cost − its cost)/s, another qualifying option's at −(its cost − the chosen cost)/s. The
 * others (the discount rate, escalations, loads, service times, sizing targets) were found by
 * probing and bisection when the case was built: their values are fixed ("probed when built").
 */
import { Crossing, DriverRobustness } from "./robustness";
import { lineKey, oneOffKey, CaseSheet, makeTable, native, opt, rateCell, serversTerm, yearKey } from "./sheet-context";
import { CellValue, ColumnPlan, TablePlan } from "../workbook/plan";
import { choiceRanges } from "./choice";

/** The Break-even table's column keys. */
export const BREAK_EVEN_COLUMNS = [
  "driver",
  "base",
  "plausible",
  "break_even",
  "move",
  "distance",
  "rival",
  "within",
  "rank",
  "method",
];

/** A move as the sheet words it: "+1.35%", "−8.61%". */
export function signedPercent(share: number): string {
  return `${share > 0 ? "+" : "\u2212"}${(Math.abs(share) * 100).toFixed(2)}%`;
}

/** The number format of a driver's values. */
function formatOf(ctx: CaseSheet, d: DriverRobustness): string {
  switch (d.driver.unit) {
    case "money":
    case "moneyPerYear":
      return ctx.cur;
    case "rate":
    case "fraction":
      return "0.00%";
    case "servers":
      return "0";
    case "factor":
      return "0.00";
    default:
      return "#,##0.########";
  }
}

/** The sheet cell holding a linear driver's input, and its slope as a formula (null: not a live row). */
function liveDriver(ctx: CaseSheet, d: DriverRobustness): { input: string; slope: string } | null {
  const { sheet, costs, input } = ctx;
  if (!d.driver.linear) return null;
  const [kind, a, b] = d.driver.key.split(":");
  const i = Number(a);
  const col = opt(i);
  const rate = rateCell(ctx);
  const years = sheet.span(ctx.perYear, [yearKey(0), "year"], [yearKey(input.years - 1), "year"], true);
  const annuity = (esc: string): string => `SUMPRODUCT((1+${esc})^${years}/(1+${rate})^${years})`;
  switch (kind) {
    case "capex":
      return { input: sheet.cell(costs, "capex", col, true), slope: "1" };
    case "opex": {
      const label = input.options[i].opex[Number(b)].label.toLowerCase();
      const m = ctx.lineLabels.findIndex((l) => l.toLowerCase() === label);
      const esc = ctx.escalation ? sheet.cell(ctx.escalation, lineKey(m), col, true) : "0";
      return {
        input: sheet.cell(costs, lineKey(m), col, true),
        slope: annuity(esc),
      };
    }
    case "oneoff": {
      const label = input.options[i].oneOff[Number(b)].label.toLowerCase();
      const m = ctx.oneOffLabels.findIndex((l) => l.toLowerCase() === label);
      if (!ctx.oneOffs || !ctx.oneOffYears) return null;
      const year = sheet.cell(ctx.oneOffYears, oneOffKey(m), col, true);
      return {
        input: sheet.cell(ctx.oneOffs, oneOffKey(m), col, true),
        slope: `1/(1+${rate})^${year}`,
      };
    }
    case "residual":
      return {
        input: sheet.cell(costs, "residual", col, true),
        slope: `-1/(1+${rate})^${input.years}`,
      };
    case "psc":
      return {
        input: sheet.cell(costs, "per_server", col, true),
        slope: serversTerm(ctx, i) ?? "0",
      };
    case "pscy":
      return {
        input: sheet.cell(costs, "per_server_year", col, true),
        slope: `${serversTerm(ctx, i) ?? "0"}*${annuity("0")}`,
      };
    default:
      return null;
  }
}

/** Whether a driver's value must stay ≥ 0 (a capex, a per-server cost, a residual value). */
function nonNegative(d: DriverRobustness): boolean {
  return /^(capex|psc|pscy|residual):/.test(d.driver.key);
}

/**
 * |move| / |value now| to 9 decimals, as the sheet's ROUND(ABS(move), 9): the rank compares
 * distances, and the sheet's and this one can differ in the last bits (ties must stay ties).
 */
function distanceOf(value: number, base: number): number {
  return Math.round(Math.abs((value - base) / base) * 1e9) / 1e9;
}

/** The cached cells of a row from the crossing found when built. */
function cachedRow(ctx: CaseSheet, d: DriverRobustness): Record<string, CellValue> {
  const c: Crossing | null = d.nearest;
  const base = d.driver.base;
  const names = ctx.input.options.map((o) => o.name);
  return {
    break_even: c ? c.value : "none",
    move: c ? (base === 0 ? "n/a (base 0)" : (c.value - base) / Math.abs(base)) : "",
    distance: c && base !== 0 ? distanceOf(c.value, base) : "",
    rival: c ? (c.rival < 0 ? "no option qualifying" : names[c.rival]) : "no other option",
    within: d.reverses ? "yes" : "no",
  };
}

/** The Break-even moves table. */
export function breakEvenTable(ctx: CaseSheet): TablePlan {
  const { sheet, breakEven, robustness } = ctx;
  const { npvs, names } = choiceRanges(ctx);
  const n = ctx.input.options.length;
  const flags = (row: string): string => sheet.span(ctx.choice, [row, opt(0)], [row, opt(n - 1)], true);
  const cellFormats: NonNullable<TablePlan["cellFormats"]> = [];
  const distances = sheet.span(
    breakEven,
    [breakEven.rows[0], "distance"],
    [breakEven.rows[breakEven.rows.length - 1], "distance"],
    true,
  );
  const rows = breakEven.rows.map((key, r): CellValue[] => {
    const d = robustness.drivers.find((x) => x.driver.key === key) as DriverRobustness;
    const at = (col: string): string => sheet.cell(breakEven, key, col);
    const fmt = formatOf(ctx, d);
    cellFormats.push({ row: r, col: 1, numFmt: fmt }, { row: r, col: 3, numFmt: fmt });
    const cached = cachedRow(ctx, d);
    const live = liveDriver(ctx, d);
    const cells: Record<string, CellValue> = {
      driver: d.driver.label,
      base: live ? native(live.input, d.driver.base) : d.driver.base,
      plausible: d.plausible,
      ...cached,
      // SUMPRODUCT, not COUNTIF("<"&x): COUNTIF compares with x written out as text (15 digits); ISNUMBER
      // because Calc compares a text "" in an array as 0.
      rank: native(
        `IF(ISNUMBER(${at("distance")}),SUMPRODUCT(ISNUMBER(${distances})*(${distances}<${at("distance")}))+1,"")`,
        rankOf(robustness.drivers, d),
      ),
      method: live ? "solved (live)" : "probed when built",
    };
    if (live) {
      const i = d.driver.option as number;
      const col = opt(i);
      const chosenHere = `${sheet.cell(ctx.choice, "chosen", col, true)}=1`;
      const cost = (row: string): string => `SUMPRODUCT(${flags(row)},${npvs})`;
      const own = sheet.cell(ctx.costs, "npv", col, true);
      const s = `(${live.slope})`;
      const move =
        `IF(${chosenHere},IF(SUM(${flags("next_best")})=1,(${cost("next_best")}-${own})/${s},NA()),` +
        `IF(AND(${sheet.cell(ctx.choice, "qualifies", col, true)}=1,SUM(${flags("chosen")})=1),-(${own}-${cost("chosen")})/${s},NA()))`;
      const value = `${live.input}+${move}`;
      const guarded = nonNegative(d) ? `IF(${value}<0,"none",${value})` : value;
      cells.break_even = native(`IFERROR(IF(${s}=0,"none",${guarded}),"none")`, cached.break_even as number | string);
      const be = at("break_even");
      cells.move = native(
        `IF(ISNUMBER(${be}),IF(${live.input}=0,"n/a (base 0)",(${be}-${live.input})/ABS(${live.input})),"")`,
        cached.move as number | string,
      );
      cells.distance = native(
        `IF(ISNUMBER(${at("move")}),ROUND(ABS(${at("move")}),9),"")`,
        cached.distance as number | string,
      );
      cells.rival = native(
        `IF(ISNUMBER(${be}),IF(${chosenHere},INDEX(${names},MATCH(1,${flags("next_best")},0)),${sheet.cell(ctx.costs, "header", col, true)}),"no other option")`,
        cached.rival as string,
      );
    }
    cells.within = native(
      `IF(ISNUMBER(${at("distance")}),IF(${at("distance")}<=${at("plausible")}*(1+1E-9),"yes","no"),"no")`,
      cached.within as string,
    );
    return BREAK_EVEN_COLUMNS.map((c) => cells[c]);
  });
  return makeTable(ctx, breakEven, breakEvenColumns(), rows, { cellFormats });
}

/** 1 + the number of drivers strictly closer (the sheet's COUNTIF rank); "" without a crossing. */
function rankOf(all: readonly DriverRobustness[], d: DriverRobustness): number | string {
  const dist = (x: DriverRobustness): number | null =>
    x.nearest && x.driver.base !== 0 ? distanceOf(x.nearest.value, x.driver.base) : null;
  const mine = dist(d);
  if (mine === null) return "";
  return (
    1 +
    all.filter((x) => {
      const o = dist(x);
      return o !== null && o < mine;
    }).length
  );
}

function breakEvenColumns(): ColumnPlan[] {
  return [
    { key: "driver", header: "Driver", width: 28, wrap: true },
    {
      key: "base",
      header: "Value now",
      description: "The driver's value in the case (live for the solved rows)",
    },
    {
      key: "plausible",
      header: "Plausible move ± (input)",
      numFmt: "0%",
      description: "A move this large is judged plausible; within it, a reversal keeps the confidence below High",
    },
    {
      key: "break_even",
      header: "Break-even value",
      description: "Where a different option becomes the choice",
    },
    {
      key: "move",
      header: "Move",
      numFmt: "+0.00%;\u22120.00%;0.00%",
      description: "(break-even − now) / |now|",
    },
    {
      key: "distance",
      header: "Distance",
      numFmt: "0.00%",
      description: "|Move|: the smaller, the closer the choice is to changing",
    },
    { key: "rival", header: "Makes the choice", width: 18, wrap: true },
    { key: "within", header: "Within plausible" },
    {
      key: "rank",
      header: "Rank",
      numFmt: "0",
      description: "1 = the closest (follows edits)",
    },
    { key: "method", header: "How found", width: 12, wrap: true },
  ];
}
