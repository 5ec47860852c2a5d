/** A lab step from each source: aggregated from an iogen subinterval group, read from an iogen summary row (with its steady state), or from a fio job and direction. */
import { seenEnough, seenEnoughWarningText, seenEnoughWhyNotText } from "../core/seen-enough";
import { IogenRow } from "../import/iogen-csv";
import { NumberColumn } from "../import/iogen-table";
import { FioStep } from "../import/fio-json";
import type { LabStep, MeasureWindow, SteadyState, SubintervalGroup } from "./data";
import { iogenColumnOf, STEP_METRICS, StepMetric } from "./data-metrics";
import { Col, measureRowsOf, stepId, valueAt } from "./data-subintervals";

function emptyMetrics(): Record<StepMetric, number | null> {
  const v = {} as Record<StepMetric, number | null>;
  for (const m of STEP_METRICS) v[m] = null;
  return v;
}

/**
 * Weighted mean of column `c` over rows `idx`, row `idx[k]` weighing `w[k]` (`w` null: 1 each),
 * skipping empty cells and weights that are not positive; null when nothing is left.
 */
function weighted(idx: ArrayLike<number>, c: Col, w: Float64Array | null): number | null {
  if (c === null) return null;
  let s = 0;
  let ws = 0;
  for (let k = 0; k < idx.length; k++) {
    const v = c.get(idx[k]);
    const wt = w === null ? 1 : w[k];
    if (v !== v || !(wt > 0)) continue;
    s += v * wt;
    ws += wt;
  }
  return ws > 0 ? s / ws : null;
}

function sumOrNull(idx: ArrayLike<number>, c: Col): number | null {
  if (c === null) return null;
  let s = 0;
  let any = false;
  for (let k = 0; k < idx.length; k++) {
    const v = c.get(idx[k]);
    if (v === v) {
      s += v;
      any = true;
    }
  }
  return any ? s : null;
}

function maxOrNull(idx: ArrayLike<number>, c: Col): number | null {
  if (c === null) return null;
  let m: number | null = null;
  for (let k = 0; k < idx.length; k++) {
    const v = c.get(idx[k]);
    if (v === v) m = m === null ? v : Math.max(m, v);
  }
  return m;
}

function firstValue(idx: ArrayLike<number>, c: Col): number | null {
  if (c === null) return null;
  for (let k = 0; k < idx.length; k++) {
    const v = c.get(idx[k]);
    if (v === v) return v;
  }
  return null;
}

/**
 * SEEN_ENOUGH with its defaults (±5 % at 95 %) on a group's measured IOPS, with the subinterval length
 * of its first row (the floor in time), its warnings and why it is FALSE ("" when TRUE), in words;
 * null when it cannot judge.
 */
function seenEnoughHere(
  g: SubintervalGroup,
  measure: Uint32Array,
): (MeasureWindow["seenEnough"] & { warnings: string[]; whyNot: string }) | null {
  const t = g.table;
  const subCol = t.column("subinterval");
  const iopsCol = t.column("iops") as NumberColumn; // required column; rows without iops were skipped
  const iops = Array.from(measure, (i) => iopsCol.get(i));
  if (iops.length < 5) return null;
  const dt = valueAt(t.column("seconds"), measure[0]);
  try {
    const res = seenEnough(iops, {
      accuracy: 0.05,
      confidence: 0.95,
      ...(dt !== null && dt > 0 ? { subintervalSeconds: dt } : {}),
    });
    return {
      accepted: res.seenEnough,
      fromSubinterval: valueAt(subCol, measure[res.from - 1]) ?? 0,
      samples: res.samples,
      achieved: res.achieved,
      mean: res.mean,
      warnings: res.warnings.map(seenEnoughWarningText),
      whyNot: seenEnoughWhyNotText(res),
    };
  } catch {
    return null; // e.g. all-zero IOPS: no relative accuracy exists
  }
}

/**
 * The measure window of one host × step × category group of subinterval rows (`measure`: its
 * measure-phase rows); SEEN_ENOUGH is run here only when `judge` (iogen did not say).
 */
function windowOf(g: SubintervalGroup, measure: Uint32Array = measureRowsOf(g), judge = true): MeasureWindow | null {
  if (measure.length === 0) return null;
  const t = g.table;
  const subCol = t.column("subinterval");
  const sub = (i: number): number => valueAt(subCol, i) ?? 0;
  const rule = seenEnoughHere(g, measure);
  const se = judge && rule !== null ? (({ warnings: _w, whyNot: _y, ...window }) => window)(rule) : null;
  const secCol = t.column("seconds");
  let seconds = 0;
  for (let k = 0; k < measure.length; k++) seconds += valueAt(secCol, measure[k]) ?? 0;
  return {
    first: sub(measure[0]),
    last: sub(measure[measure.length - 1]),
    subintervals: measure.length,
    seconds,
    warmupSubintervals: g.rows.length - measure.length,
    seenEnough: se,
    steadyWarnings: rule?.warnings ?? [],
    steadyWhyNot: rule?.whyNot ?? "",
  };
}

/** A step aggregated from its measure-phase subintervals. */
export function stepFromSubintervals(g: SubintervalGroup): LabStep {
  const t = g.table;
  const measure = measureRowsOf(g);
  const window = windowOf(g, measure);
  const use = measure.length > 0 ? measure : g.rows;
  const secCol = t.column("seconds");
  const iopsCol = t.column("iops");
  // Per row used: its seconds and its IOs (IOPS × seconds), the weights of the means below.
  const secs = new Float64Array(use.length);
  const ios = new Float64Array(use.length);
  let totalSeconds = 0;
  let totalIos = 0;
  for (let k = 0; k < use.length; k++) {
    const sec = secCol === null ? 0 : (secCol.value(use[k]) ?? 0);
    const x = iopsCol === null ? 0 : (iopsCol.value(use[k]) ?? 0);
    secs[k] = sec;
    ios[k] = x * sec;
    totalSeconds += sec;
    totalIos += x * sec;
  }
  const v = emptyMetrics();
  const first = g.rows[0];
  for (const c of ["target_iops", "block_size", "read_pct", "random_pct", "queue_depth", "cpu_cores"] as const) {
    v[c] = firstValue(use, t.column(c));
  }
  v.iops = totalSeconds > 0 ? totalIos / totalSeconds : weighted(use, iopsCol, null);
  for (const c of ["mb_s", "avg_in_flight", "cpu_busy_pct", "cpu_sys_pct", "cpu_iowait_pct"] as const) {
    v[c] = weighted(use, t.column(c), secs);
  }
  v.tool_cpu_pct = weighted(use, t.column("iogen_cpu_pct"), secs);
  v.service_ms_avg = weighted(use, t.column("service_ms_avg"), ios);
  v.response_ms_avg = weighted(use, t.column("response_ms_avg"), ios);
  v.service_ms_max = maxOrNull(use, t.column("service_ms_max"));
  v.response_ms_max = maxOrNull(use, t.column("response_ms_max"));
  v.late_ios = sumOrNull(use, t.column("late_ios"));
  v.iogen_lag_ms_avg = weighted(use, t.column("iogen_lag_ms_avg"), ios);
  v.iogen_lag_ms_max = maxOrNull(use, t.column("iogen_lag_ms_max"));
  v.errors = sumOrNull(use, t.column("errors"));
  v.measure_seconds = totalSeconds;
  const labels: Record<string, string> = {};
  for (const l of t.labels) labels[l.name] = l.column.get(first);
  return {
    source: g.source,
    tool: "iogen",
    host: g.host,
    step: g.step,
    order: t.value("step", first) ?? 0,
    stepName: g.stepName,
    category: g.category,
    basis: "subintervals",
    values: v,
    seenEnoughFlag: "",
    labels,
    window,
    steady: recomputedSteady(window, "no summary CSV row for this step"),
  };
}

/**
 * The steady state SEEN_ENOUGH found here on the window, when iogen's CSV does not say (`why`); when
 * it is not seen enough, the note says which check refused.
 */
function recomputedSteady(window: MeasureWindow | null, why: string): SteadyState | null {
  const se = window?.seenEnough;
  if (!se) return null;
  const whyNot = window?.steadyWhyNot ?? "";
  return {
    basis: "recomputed",
    reached: se.accepted,
    from: se.fromSubinterval,
    subintervals: se.samples,
    meanIops: se.mean,
    note: `re-computed here (${why}): SEEN_ENOUGH ±5 % at 95 % on the measured IOPS${whyNot ? `; not seen enough: ${whyNot}` : ""}`,
  };
}

/** iogen's "never held" note with why SEEN_ENOUGH (±5 % at 95 %) on the measured IOPS is not satisfied, when known. */
function withWhyNot(note: string, window: MeasureWindow | null): string {
  const whyNot = window?.steadyWhyNot ?? "";
  return whyNot ? `${note}; SEEN_ENOUGH ±5 % at 95 % on the measured IOPS: ${whyNot}` : note;
}

/**
 * iogen's own steady-state judgement from a schema-3 summary row (docs/iogen-csv.md): `steady_from`
 * and `seen_enough` (yes: the rule held; no: it never did before --max-duration; off: not asked).
 */
function iogenSteady(
  r: IogenRow,
  window: MeasureWindow | null,
  measure: Uint32Array | null,
  g?: SubintervalGroup,
): SteadyState {
  const from = r.values.steady_from;
  const flag = r.seen_enough;
  const base = { basis: "iogen" as const, meanIops: r.values.iops, subintervals: window?.subintervals ?? null };
  if (flag === "off" || flag === "")
    return {
      ...base,
      reached: null,
      from: null,
      note: "not judged: iogen ran without --seen-enough; the row covers the whole measurement",
    };
  if (from === null)
    return flag === "no"
      ? {
          ...base,
          reached: false,
          from: null,
          note: withWhyNot(
            "iogen: --seen-enough never held before --max-duration; no steady state found, the row covers the whole measurement",
            window,
          ),
        }
      : {
          ...base,
          reached: null,
          from: null,
          note: "iogen judged precision only (transient check off, or an MPI all row): the row covers the whole measurement",
        };
  let inWindow: number | null = null;
  if (g && measure) {
    const subCol = g.table.column("subinterval");
    inWindow = 0;
    for (let k = 0; k < measure.length; k++) if ((valueAt(subCol, measure[k]) ?? 0) >= from) inWindow++;
  }
  return {
    ...base,
    reached: flag !== "no",
    from,
    subintervals: inWindow,
    note:
      flag === "no"
        ? withWhyNot(
            `iogen: steady from subinterval ${from}, but --seen-enough never held before --max-duration`,
            window,
          )
        : `iogen's steady_from: the summary row covers subintervals ${from} to the last`,
  };
}

/**
 * A step from an iogen summary row; `g` its subinterval group, if given. `steadyColumn`: the file
 * has iogen's `steady_from` column (schema 3), so iogen's judgement is used and SEEN_ENOUGH is not
 * run again here.
 */
export function stepFromSummary(
  r: IogenRow,
  source: string,
  g: SubintervalGroup | undefined,
  steadyColumn: boolean,
): LabStep {
  const measure = g ? measureRowsOf(g) : null;
  const window = g && measure ? windowOf(g, measure, !steadyColumn) : null;
  const steady = steadyColumn
    ? iogenSteady(r, window, measure, g)
    : recomputedSteady(window, "the summary CSV has no steady_from: iogen before CSV schema 3");
  const v = emptyMetrics();
  for (const m of STEP_METRICS) v[m] = r.values[iogenColumnOf(m)];
  return {
    source,
    tool: "iogen",
    host: r.host,
    step: stepId(r.values.step),
    order: r.values.step ?? 0,
    stepName: r.step_name,
    category: r.category,
    basis: "summary",
    values: v,
    seenEnoughFlag: r.seen_enough,
    labels: { ...r.labels },
    window,
    steady,
  };
}

/** fio option names that become labels when they differ between steps (plus rw, numjobs, job). */
const FIO_LABEL_OPTIONS = ["ioengine", "direct", "rwmixread", "numjobs", "rw"];

export function stepFromFio(s: FioStep, duplicateName: boolean): LabStep {
  const v = emptyMetrics();
  v.target_iops = s.rate_iops;
  v.iops = s.iops;
  v.mb_s = s.mb_s;
  v.block_size = s.bs;
  v.queue_depth = s.iodepth;
  v.read_pct = s.direction === "read" ? 100 : 0;
  v.service_ms_avg = s.clat_ms_avg;
  v.service_ms_p50 = s.clat_ms_p50;
  v.service_ms_p90 = s.clat_ms_p90;
  v.service_ms_p99 = s.clat_ms_p99;
  v.service_ms_p999 = s.clat_ms_p999;
  v.service_ms_max = s.clat_ms_max;
  v.response_ms_avg = s.lat_ms_avg;
  v.response_ms_p50 = s.lat_ms_p50;
  v.response_ms_p90 = s.lat_ms_p90;
  v.response_ms_p99 = s.lat_ms_p99;
  v.response_ms_p999 = s.lat_ms_p999;
  v.response_ms_max = s.lat_ms_max;
  if (s.usr_cpu !== null && s.sys_cpu !== null && s.job_iops > 0) {
    v.tool_cpu_pct = ((s.usr_cpu + s.sys_cpu) * s.iops) / s.job_iops;
  }
  v.measure_seconds = s.runtime_ms / 1000;
  const labels: Record<string, string> = { job: s.job };
  for (const o of FIO_LABEL_OPTIONS) if (s.options[o] !== undefined) labels[o] = s.options[o];
  labels.rw = s.rw;
  labels.numjobs = String(s.numjobs);
  return {
    source: s.file,
    tool: "fio",
    host: "",
    step: duplicateName ? `${s.job}#${s.jobIndex}` : s.job,
    order: s.jobIndex,
    stepName: s.job,
    category: s.direction,
    basis: "fio",
    values: v,
    seenEnoughFlag: "",
    labels,
    window: null,
    steady: null,
  };
}
