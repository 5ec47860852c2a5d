/**
 * The case's Break-even moves table: for every driver (`robustness.ts`), how far it can move before
 * a different qualifying option is the choice — its value there, the move as a share of its value
 * and in words, which option it makes the choice, whether that is within the move judged plausible
 * for it (an input: ±10 % by default, or the case's `plausibleMove`), and its rank by closeness
 * (ties to the driver listed first). Sorted by closeness when built; every cell, the rank too,
 * follows edits.
 *
 * Drivers in which the costs are linear (capex, yearly lines, one-offs, residual values, per-server
 * costs) are solved: with s the slope of the option's net present cost per unit of the driver (a
 * formula over the sheet: 1, Σ_t (1 + e)^t/(1 + r)^t, (1 + r)^−year, −(1 + r)^−years, the servers
 * and the servers × Σ_t (1 + r)^−t — with growth the present values of the servers bought and in
 * service), the chosen option's own driver breaks even at (next best cost − its cost)/s, another
 * qualifying option's at −(its cost − the chosen cost)/s. The others (the discount rate,
 * escalations, loads, service times, sizing targets, growth) are read from the Probes table
 * (`probe-table.ts`), which asks the choice live at a grid of moves (p, 2p, 5p up and down):
 * the break-even is the first point, on the nearer side, where the choice differs, said as the
 * bracket it lies in ("between +10.00% and +20.00%"; "within +10.00%" when the first point already
 * changes it).
 */
import { Crossing, distanceOf, DriverRobustness, PROBE_MULTIPLES } from "./robustness";
import { lineKey, oneOffKey, CaseSheet, makeTable, native, opt, rateCell, serversTerm, yearKey } from "./sheet-context";
import { MINUS } from "./money-text";
import { round12 } from "../core/sheet-sizing";
import { round12Formula } from "./mmc-cells";
import { baseTerm, driverInput } from "./probe-table";
import { probeKey } from "./probe-plan";
import { planKey } from "./purchase-plan";
import { PlacedTable } from "../workbook/sheet-builder";
import { CellValue, ColumnPlan, TablePlan } from "../workbook/plan";
import { choiceRanges } from "./choice";

/** The Break-even table's column keys. */
export const BREAK_EVEN_COLUMNS = [
  "driver",
  "order",
  "base",
  "plausible",
  "break_even",
  "move",
  "distance",
  "said",
  "rival",
  "within",
  "rank",
  "method",
  "probe",
];

/**
 * A move as the sheet words it: "+1.35%", "−8.61%". The percentage is rounded to 12 significant
 * digits first (`round12`, the sheet's ROUND(x, 11 − INT(LOG10(x)))), so a figure a hair apart in
 * the two programs is the same decimal in both, then to two decimals half away from zero on that
 * decimal, as the sheet's TEXT(x, "0.00") rounds it (12.345 reads 12.35 in both).
 */
export function signedPercent(share: number): string {
  const pct = round12(Math.abs(share) * 100);
  const hundredths = Math.round(Number((pct * 100).toPrecision(12)));
  return `${share > 0 ? "+" : "\u2212"}${(hundredths / 100).toFixed(2)}%`;
}

/** The number format of a driver's values (the Break-even and Probes tables). */
export function formatOf(ctx: CaseSheet, d: DriverRobustness): string {
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
        slope: purchasedPv(ctx, i, "bought") ?? serversTerm(ctx, i) ?? "0",
      };
    case "pscy":
      return {
        input: sheet.cell(costs, "per_server_year", col, true),
        slope: purchasedPv(ctx, i, "in_service") ?? `${serversTerm(ctx, i) ?? "0"}*${annuity("0")}`,
      };
    default:
      return null;
  }
}

/**
 * With growth, the present value of option i's servers bought (or in service) year by year, Σ_t
 * n_t/(1 + r)^t over its PurchasePlan rows: the slope of its cost per server (per server-year);
 * null without a purchase plan or workloads.
 */
function purchasedPv(ctx: CaseSheet, i: number, col: "bought" | "in_service"): string | null {
  const plan = ctx.purchases;
  const n = ctx.input.options[i].workloads.length;
  if (!plan || n === 0) return null;
  const span = (c: string): string =>
    ctx.sheet.span(plan, [planKey(i, 0, 0), c], [planKey(i, n - 1, ctx.input.years - 1), c], true);
  return `SUMPRODUCT(${span(col)}/(1+${rateCell(ctx)})^${span("year")})`;
}

/** Whether a driver's value must stay ≥ 0 (a capex, a per-server cost, a residual value). */
function nonNegative(d: DriverRobustness): boolean {
  return /^(capex|psc|pscy|residual):/.test(d.driver.key);
}

/** A move as the sheet words it, or a grid crossing as the bracket it lies in. */
export function saidMove(d: DriverRobustness): string {
  const c = d.nearest;
  const base = d.driver.base;
  if (!c || base === 0) return "";
  const move = signedPercent((c.value - base) / Math.abs(base));
  if (c.previous === null) return move;
  if (c.previous === base) return `within ${move}`;
  return `between ${signedPercent((c.previous - base) / Math.abs(base))} and ${move}`;
}

/** The index (1-based) in the driver's Probes rows of its nearest crossing, "" without one. */
function probeIndex(d: DriverRobustness): number | string {
  return d.nearest?.point === null || d.nearest?.point === undefined ? "" : d.nearest.point + 1;
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
    said: saidMove(d),
    rival: c ? (c.rival < 0 ? "no option qualifying" : names[c.rival]) : "no other option",
    within: d.reverses ? "yes" : "no",
    probe: probeIndex(d),
  };
}

/** "+1.35%" / "−8.61%" of a share in a cell, as {@link signedPercent}. */
function percentFormula(x: string): string {
  return `IF(${x}>0,"+","${MINUS}")&TEXT(${round12Formula(`ABS(${x})*100`)},"0.00")&"%"`;
}

/** The live cells of a driver solved exactly (linear in the costs). */
function solvedCells(
  ctx: CaseSheet,
  d: DriverRobustness,
  live: { input: string; slope: string },
  cached: Record<string, CellValue>,
  at: (col: string) => string,
): Record<string, CellValue> {
  const { sheet } = ctx;
  const { npvs, names } = choiceRanges(ctx);
  const n = ctx.input.options.length;
  const flags = (row: string): string => sheet.span(ctx.choice, [row, opt(0)], [row, opt(n - 1)], true);
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
  const be = at("break_even");
  return {
    break_even: native(`IFERROR(IF(${s}=0,"none",${guarded}),"none")`, cached.break_even as number | string),
    move: native(
      `IF(ISNUMBER(${be}),IF(${live.input}=0,"n/a (base 0)",(${be}-${live.input})/ABS(${live.input})),"")`,
      cached.move as number | string,
    ),
    said: native(`IF(ISNUMBER(${at("move")}),${percentFormula(at("move"))},"")`, cached.said as string),
    rival: native(
      `IF(ISNUMBER(${be}),IF(${chosenHere},INDEX(${names},MATCH(1,${flags("next_best")},0)),${sheet.cell(ctx.costs, "header", col, true)}),"no other option")`,
      cached.rival as string,
    ),
    probe: "",
  };
}

/** The live cells of a driver asked at the Probes table's grid. */
function gridCells(
  ctx: CaseSheet,
  d: DriverRobustness,
  cached: Record<string, CellValue>,
  at: (col: string) => string,
): Record<string, CellValue> {
  const { sheet } = ctx;
  const { names } = choiceRanges(ctx);
  const probes = ctx.probes as PlacedTable;
  const key = d.driver.key;
  const half = PROBE_MULTIPLES.length / 2;
  const span = (col: string, from: number, to: number): string =>
    sheet.span(probes, [probeKey(key, from), col], [probeKey(key, to), col], true);
  const up = `IFERROR(MATCH(1,${span("changed", 0, half - 1)},0),0)`;
  const down = `IFERROR(MATCH(1,${span("changed", half, 2 * half - 1)},0),0)`;
  const gapUp = `INDEX(${span("gap", 0, half - 1)},${up})`;
  const gapDown = `INDEX(${span("gap", half, 2 * half - 1)},${down})`;
  const probe = at("probe");
  const all = (col: string): string => span(col, 0, 2 * half - 1);
  const base = baseTerm(ctx, d);
  const be = at("break_even");
  const previous = `INDEX(${all("previous")},${probe})`;
  return {
    probe: native(
      `IF(${up}=0,IF(${down}=0,"",${half}+${down}),IF(${down}=0,${up},IF(${gapDown}<${gapUp},${half}+${down},${up})))`,
      cached.probe as number | string,
    ),
    break_even: native(
      `IF(ISNUMBER(${probe}),INDEX(${all("value")},${probe}),"none")`,
      cached.break_even as number | string,
    ),
    move: native(
      `IF(ISNUMBER(${be}),IF(${base}=0,"n/a (base 0)",(${be}-${base})/ABS(${base})),"")`,
      cached.move as number | string,
    ),
    said: native(
      `IF(ISNUMBER(${at("move")}),IF(${previous}=${base},"within ","between "&${percentFormula(`(${previous}-${base})/ABS(${base})`)}&" and ")&${percentFormula(at("move"))},"")`,
      cached.said as string,
    ),
    rival: native(
      `IF(ISNUMBER(${probe}),IF(INDEX(${all("choice")},${probe})=0,"no option qualifying",INDEX(${names},INDEX(${all("choice")},${probe}))),"no other option")`,
      cached.rival as string,
    ),
  };
}

/** The Break-even moves table. */
export function breakEvenTable(ctx: CaseSheet): TablePlan {
  const { sheet, breakEven, robustness } = ctx;
  const cellFormats: NonNullable<TablePlan["cellFormats"]> = [];
  const col = (key: string): string =>
    sheet.span(breakEven, [breakEven.rows[0], key], [breakEven.rows[breakEven.rows.length - 1], key], true);
  const [distances, orders] = [col("distance"), col("order")];
  const rows = breakEven.rows.map((key, r): CellValue[] => {
    const d = robustness.drivers.find((x) => x.driver.key === key) as DriverRobustness;
    const at = (c: string): string => sheet.cell(breakEven, key, c);
    const fmt = formatOf(ctx, d);
    for (const c of ["base", "break_even"])
      cellFormats.push({ row: r, col: BREAK_EVEN_COLUMNS.indexOf(c), numFmt: fmt });
    const cached = cachedRow(ctx, d);
    const live = liveDriver(ctx, d);
    const input = live ? live.input : driverInput(ctx, key);
    const dist = at("distance");
    const cells: Record<string, CellValue> = {
      driver: d.driver.label,
      order: d.order + 1,
      base: input ? native(input, d.driver.base) : d.driver.base,
      plausible: d.plausible,
      ...cached,
      // SUMPRODUCT, not COUNTIF("<"&x): COUNTIF compares with x written out as text (15 digits); ISNUMBER
      // because Calc compares a text "" in an array as 0. A tie goes to the driver defined first.
      rank: native(
        `IF(ISNUMBER(${dist}),SUMPRODUCT(ISNUMBER(${distances})*(${distances}<${dist}))+SUMPRODUCT(ISNUMBER(${distances})*(${distances}=${dist})*(${orders}<${at("order")}))+1,"")`,
        rankOf(robustness.drivers, d),
      ),
      method: live ? "solved (live)" : d.probes ? "grid (live)" : "",
      ...(live ? solvedCells(ctx, d, live, cached, at) : d.probes ? gridCells(ctx, d, cached, at) : {}),
    };
    cells.distance = native(
      `IF(ISNUMBER(${at("move")}),ROUND(ABS(${at("move")}),9),"")`,
      cached.distance as number | string,
    );
    cells.within = native(
      `IF(ISNUMBER(${dist}),IF(${dist}<=${at("plausible")}*(1+1E-9),"yes","no"),"no")`,
      cached.within as string,
    );
    return BREAK_EVEN_COLUMNS.map((c) => cells[c]);
  });
  return makeTable(ctx, breakEven, breakEvenColumns(), rows, { cellFormats });
}

/** 1 + the drivers strictly closer + those as close defined before it (the sheet's rank); "" without a crossing. */
export function rankOf(all: readonly DriverRobustness[], d: DriverRobustness): number | string {
  const dist = (x: DriverRobustness): number | null =>
    x.nearest && x.driver.base !== 0 ? distanceOf(x.nearest.value, x.driver.base) : null;
  const mine = dist(d);
  if (mine === null) return "";
  return (
    1 +
    all.filter((x) => {
      const o = dist(x);
      return o !== null && (o < mine || (o === mine && x.order < d.order));
    }).length
  );
}

function breakEvenColumns(): ColumnPlan[] {
  return [
    { key: "driver", header: "Driver", width: 28, wrap: true },
    {
      key: "order",
      header: "#",
      numFmt: "0",
      description: "The order drivers are listed in: a tie in distance goes to the first",
    },
    {
      key: "base",
      header: "Value now",
      description: "The driver's value in the case",
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
      description:
        "Solved rows: where a different option becomes the choice. Grid rows: the first point of the Probes table's grid where it has",
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
    {
      key: "said",
      header: "Break-even move",
      width: 18,
      wrap: true,
      description:
        "Solved rows: the move exactly. Grid rows: the bracket it lies in, between the last point that keeps the choice and the first that does not",
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
    {
      key: "probe",
      header: "Probe row",
      numFmt: "0",
      description: "Grid rows: which of the driver's rows of the Probes table (1–6) holds the break-even",
    },
  ];
}
