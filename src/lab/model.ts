/**
 * The Model sheet: utilization law, Little's law, saturation and M/M/c per step, the CPU line
 * fitted over the steps, and the response-vs-throughput and CPU-vs-IOPS charts. This file
 * assembles the sheet and writes the Summary's headlines; the per-step table is in
 * `model-steps.ts`, the fit tables in `model-fits.ts`, the charts in `model-charts.ts`.
 */
import { CPU_CENSOR_PCT, CpuFitGroup, cpuFits, CpuFits } from "./cpu-fit";
import { LabStep } from "./data";
import { chartDataTable, cpuChart, MODEL_CHART_DATA_TABLE, responseChart } from "./model-charts";
import { CPU_FIT_TABLE, cpuFitColumns, responseFitColumns } from "./model-fits";
import { MODEL_INPUTS_TABLE, modelColumns, modelInputColumns, modelRow } from "./model-steps";
import { KNEE_FACTOR, ResponseFit } from "./response-fit";
import { cellA1, SheetPlan, TableLayout, workbookLayout } from "../workbook/plan";
import { fmt, SheetBuilder } from "../workbook/sheet-builder";

/** The Model sheet's notes. */
function modelNotes(): string[] {
  return [
    "Marginal CPU cost per IO (table CpuFit): CPU % = a + b·IOPS fitted by least squares over each protocol/option level's steps below " +
      `${CPU_CENSOR_PCT} % CPU, with 95 % intervals. b is the cost of one more IO (CPU-ms per IO = b/100 × cores × 1000 = cores per 1000 IOPS); ` +
      "a is the background CPU at zero IOPS; the CPU saturation IOPS is where the line reaches 100 % (Fieller's interval). This, not U/X per step, is the CPU time per IO a business case should use.",
    `Knee and saturation (table ResponseFit): R = S/(1 − X/X_max) fitted to the rated steps at their target (weighted least squares on 1/R), for the mean and the p99 response; the knee is where R = ${KNEE_FACTOR} × S, X = X_max/2; ` +
      `the model-free knee is the largest measured IOPS whose R is at most ${KNEE_FACTOR} × the lightest step's.`,
    "Per step (table Model): U/X = all busy CPU over the step's IOPS, background work included; cores ÷ (U/X) is the pessimistic IOPS bound it implies. Little's law: N = X·R.",
    "Before launch: R − S is the time from an IO's scheduled time to its launch (waiting for a generator slot plus iogen's own launch lag, shown apart): generator time, not storage queueing.",
    "M/M/c (table ModelInputs): type the storage's servers c (e.g. the array's front-end ports or controllers that serve IOs in parallel) to see each step's M/M/c prediction with S = its measured mean service time and λ = its IOPS; blank (the default) shows none. " +
      "The generator's queue depth is not c: it counts iogen's slots, and waiting for them is generator time.",
  ];
}

/** The Summary's headline on the CPU cost: one sentence per fitted level. */
export function cpuHeadline(groups: CpuFitGroup[]): string {
  if (groups.length === 0) return "CPU cost per IO: no step has CPU figures.";
  return groups
    .map((g) => {
      const who = groups.length > 1 || g.label ? ` (${g.group})` : "";
      if (!g.marginalMs || !g.backgroundPct) return `CPU cost per IO${who}: ${g.verdict}`;
      const d = g.marginalMs;
      const sat = g.saturationIops;
      const satText = !sat
        ? ""
        : `; the CPU would reach 100 % near ${fmtIops(sat.estimate)} IOPS${sat.lo !== null && sat.hi !== null ? ` (95 % CI ${fmtIops(sat.lo)}–${fmtIops(sat.hi)})` : " (no finite interval)"}`;
      return (
        `CPU cost per IO${who}: ${fmt(d.estimate, 3)} CPU-ms (95 % CI ${fmt(d.lo, 3)}–${fmt(d.hi, 3)}), ` +
        `background ${fmt(g.backgroundPct.estimate, 3)} % CPU${satText}. ${g.verdict}`
      );
    })
    .join(" ");
}

const fmtIops = (x: number): string => Math.round(x).toLocaleString("en-US");

/** The Summary's headline on the knee and saturation: one sentence per level (mean response). */
export function responseHeadline(curves: ResponseFit[]): string {
  const mean = curves.filter((c) => c.metric === "mean");
  if (mean.length === 0) return "Knee and saturation: no response times.";
  return mean
    .map((c) => {
      const who = mean.length > 1 || c.group !== "all steps" ? ` (${c.group})` : "";
      const rule = c.rule
        ? ` Measured: the largest step with R ≤ ${KNEE_FACTOR} × light load is ${fmtIops(c.rule.x)} IOPS (R ${fmt(c.rule.r, 3)} ms).`
        : "";
      if (!c.fit) return `Knee${who}: ${c.note}${rule}`;
      const k = c.fit.knee;
      const sat = c.fit.saturation;
      const ci = (lo: number | null, hi: number | null): string =>
        lo !== null && hi !== null ? ` (95 % CI ${fmtIops(lo)}–${fmtIops(hi)})` : " (no finite interval)";
      return (
        `Knee${who}: the mean response doubles from ${fmt(c.fit.serviceTime?.estimate ?? 1 / c.fit.fit.intercept, 3)} ms near ${fmtIops(k.estimate)} IOPS${ci(k.lo, k.hi)}; ` +
        `it saturates near ${fmtIops(sat.estimate)} IOPS${ci(sat.lo, sat.hi)}.${rule}`
      );
    })
    .join(" ");
}

/**
 * Where the plan puts the CpuFit table's columns, from {@link workbookLayout} over a Model sheet
 * built by the same builder (every CpuFit column is always present, so the layout does not depend
 * on the data): what the case form reads a workbook's CpuFit table by.
 */
export function cpuFitTableLayout(): TableLayout {
  const b = new SheetBuilder("Model", modelNotes());
  b.table(CPU_FIT_TABLE, cpuFitColumns(), []);
  return workbookLayout({ title: "", sources: [], warnings: [], sheets: [b.sheet()] })[CPU_FIT_TABLE];
}

/**
 * The Model sheet over the main steps.
 *
 * @returns the sheet, the CPU fits (the Summary and the JSON answer use them) and the Summary's headline
 */
export function modelSheet(
  main: LabStep[],
  cpu: CpuFits = cpuFits(main),
  curves: ResponseFit[] = [],
  servers: number | null = null,
): { sheet: SheetPlan; headline: string } {
  const rows = main.map((s) => modelRow(s, cpu, servers));
  const model = new SheetBuilder("Model", modelNotes());
  model.table(CPU_FIT_TABLE, cpuFitColumns(), cpu.groups);
  if (curves.length > 0) model.table("ResponseFit", responseFitColumns(), curves);
  const inputs = model.table(MODEL_INPUTS_TABLE, modelInputColumns(), [{ name: "storage servers c", value: servers }]);
  const serversCell = cellA1({ row: inputs.at.row + 1, col: inputs.at.col + 1 }, { absolute: true });
  model.table("Model", modelColumns({ servers: serversCell }, rows), rows);
  for (const chart of [
    responseChart(rows, curves, "mean"),
    responseChart(rows, curves, "p99"),
    cpuChart(rows, cpu.groups),
  ])
    if (chart) model.charts.push(chart);
  chartDataTable(MODEL_CHART_DATA_TABLE, model, model.charts);
  return { sheet: model.sheet(), headline: cpuHeadline(cpu.groups) };
}
