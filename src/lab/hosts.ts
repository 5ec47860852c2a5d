/**
 * Multi-host iogen runs (iogen under MPI, `docs/iogen-mpi.md`): one CSV holds each host's rows and
 * an `all` row per subinterval and step, the exact sum over the hosts (counts added, latency
 * histograms merged). The Steps sheet uses the `all` rows; the Hosts sheet shows each host's
 * rows per step and the imbalance between hosts, max/mean host IOPS (1 = perfectly even).
 */
import { LabStep } from "./data";
import { SheetPlan } from "../workbook/plan";
import { ColumnSpec, F, fmt, formula, num, SheetBuilder } from "../workbook/sheet-builder";

/** The `host` of the rows that sum every host of a multi-host iogen run. */
export const ALL_HOST = "all";

/** Imbalance (max/mean host IOPS) above which the Summary lists it among the warnings. */
export const IMBALANCE_FINDING = 1.1;

/** Steps split into what the Steps sheet shows and the per-host rows of multi-host runs. */
export interface HostSplit {
  /** Every step except the per-host rows of a source that has `all` rows. */
  aggregate: LabStep[];
  /** The per-host rows of sources that have `all` rows. */
  perHost: LabStep[];
}

/**
 * Splits steps: in a source with `all` rows (a multi-host iogen run) the `all` rows stand for
 * the step and the other hosts' rows go to the Hosts sheet; other sources are unchanged.
 *
 * Cost: O(steps).
 *
 * @example
 * splitHosts(steps).aggregate.every((s) => s.host === "all" || !multiHost.has(s.source))
 */
export function splitHosts(steps: readonly LabStep[]): HostSplit {
  const multi = new Set(steps.filter((s) => s.tool === "iogen" && s.host === ALL_HOST).map((s) => s.source));
  const aggregate: LabStep[] = [];
  const perHost: LabStep[] = [];
  for (const s of steps) {
    if (multi.has(s.source) && s.host !== ALL_HOST) perHost.push(s);
    else aggregate.push(s);
  }
  return { aggregate, perHost };
}

/** One step of a multi-host run: its hosts' IOPS and the imbalance between them. */
export interface HostBalance {
  source: string;
  step: string;
  stepName: string;
  hosts: number;
  meanIops: number;
  maxIops: number;
  maxHost: string;
  minIops: number;
  minHost: string;
  /** The `all` row's IOPS (null when the step has no `all` row). */
  allIops: number | null;
  /** max / mean host IOPS; null when the mean is 0. */
  imbalance: number | null;
}

const stepKey = (s: LabStep): string => `${s.source}\u0000${s.step}`;

/**
 * Per step of each multi-host source: mean, max and min host IOPS and max/mean.
 *
 * @param perHost - overall rows of the hosts ({@link splitHosts}'s `perHost`, category overall)
 * @param aggregate - the `all` rows (and any other steps; only `all` rows are used)
 */
export function hostBalance(perHost: readonly LabStep[], aggregate: readonly LabStep[]): HostBalance[] {
  const groups = new Map<string, LabStep[]>();
  for (const s of perHost) {
    const g = groups.get(stepKey(s)) ?? [];
    g.push(s);
    groups.set(stepKey(s), g);
  }
  const all = new Map(aggregate.filter((s) => s.host === ALL_HOST).map((s) => [stepKey(s), s] as const));
  const out: HostBalance[] = [];
  for (const [k, g] of groups) {
    const iops = g.map((s) => s.values.iops ?? 0);
    const mean = iops.reduce((a, b) => a + b, 0) / iops.length;
    let hi = 0;
    let lo = 0;
    iops.forEach((x, i) => {
      if (x > iops[hi]) hi = i;
      if (x < iops[lo]) lo = i;
    });
    out.push({
      source: g[0].source,
      step: g[0].step,
      stepName: g[0].stepName,
      hosts: g.length,
      meanIops: mean,
      maxIops: iops[hi],
      maxHost: g[hi].host,
      minIops: iops[lo],
      minHost: g[lo].host,
      allIops: all.get(k)?.values.iops ?? null,
      imbalance: mean > 0 ? iops[hi] / mean : null,
    });
  }
  return out;
}

/** The findings the Summary lists: steps whose imbalance exceeds {@link IMBALANCE_FINDING}. */
export function imbalanceFindings(balance: readonly HostBalance[]): string[] {
  return balance
    .filter((b) => b.imbalance !== null && b.imbalance > IMBALANCE_FINDING)
    .map(
      (b) =>
        `Step ${b.step} of ${b.source}: host IOPS imbalance ${fmt(b.imbalance)} (max/mean over ${b.hosts} hosts): ` +
        `${b.maxHost} ${fmt(b.maxIops)} IOPS, ${b.minHost} ${fmt(b.minIops)} IOPS (Hosts sheet).`,
    );
}

/** The Hosts table's columns: each host's IOPS, its share of the step (`allIops`: the step's all-row IOPS by source and step), response, service and CPU. */
function hostColumns(allIops: Map<string, number | null>): ColumnSpec<LabStep>[] {
  return [
    { key: "source", header: "source", numFmt: F.text, get: (s) => s.source, keep: true, description: "Input file" },
    { key: "step", header: "step", numFmt: F.text, get: (s) => s.step, keep: true, description: "iogen step number" },
    { key: "step_name", header: "step name", numFmt: F.text, get: (s) => s.stepName },
    {
      key: "host",
      header: "host",
      numFmt: F.text,
      get: (s) => s.host,
      keep: true,
      description: "Host (name#k when k ranks ran on one host)",
    },
    {
      key: "iops",
      header: "IOPS",
      numFmt: F.iops,
      get: (s) => num(s.values.iops),
      keep: true,
      description: "IOs per second of this host",
    },
    {
      key: "share",
      header: "share of step %",
      numFmt: F.pct,
      description: "This host's IOPS / the step's all-row IOPS × 100",
      get: (s) => {
        const all = allIops.get(`${s.source}\u0000${s.step}`);
        return num(all && s.values.iops !== null ? (s.values.iops / all) * 100 : null);
      },
    },
    {
      key: "response_ms_avg",
      header: "response avg ms",
      numFmt: F.ms,
      get: (s) => num(s.values.response_ms_avg),
      keep: true,
      description: "Mean response time (completion − scheduled) on this host",
    },
    {
      key: "response_ms_p99",
      header: "response p99 ms",
      numFmt: F.ms,
      get: (s) => num(s.values.response_ms_p99),
      description: "99th percentile of this host's response time",
    },
    {
      key: "service_ms_avg",
      header: "service avg ms",
      numFmt: F.ms,
      get: (s) => num(s.values.service_ms_avg),
      description: "Mean service time (completion − launch) on this host",
    },
    {
      key: "cpu_busy_pct",
      header: "CPU busy %",
      numFmt: F.pct,
      get: (s) => num(s.values.cpu_busy_pct),
      description: "Host CPU busy % over all cores",
    },
  ];
}

/** The Imbalance table's columns: per step, the mean, busiest and least busy host, and max/mean as a live formula. */
const BALANCE_COLUMNS: ColumnSpec<HostBalance>[] = [
  { key: "source", header: "source", numFmt: F.text, get: (b) => b.source, keep: true },
  { key: "step", header: "step", numFmt: F.text, get: (b) => b.step, keep: true },
  { key: "hosts", header: "hosts", numFmt: F.int, get: (b) => b.hosts, keep: true },
  {
    key: "all",
    header: "all IOPS",
    numFmt: F.iops,
    get: (b) => num(b.allIops),
    keep: true,
    description: "The step's all row",
  },
  { key: "mean", header: "mean host IOPS", numFmt: F.iops, get: (b) => num(b.meanIops), keep: true },
  { key: "max", header: "max host IOPS", numFmt: F.iops, get: (b) => num(b.maxIops), keep: true },
  { key: "max_host", header: "busiest host", numFmt: F.text, get: (b) => b.maxHost, keep: true },
  { key: "min", header: "min host IOPS", numFmt: F.iops, get: (b) => num(b.minIops), keep: true },
  { key: "min_host", header: "least busy host", numFmt: F.text, get: (b) => b.minHost, keep: true },
  {
    key: "imbalance",
    header: "imbalance max/mean",
    numFmt: F.ratio,
    keep: true,
    description: "max host IOPS / mean host IOPS (1 = even)",
    get: (b, ref) => formula(`${ref("max")}/${ref("mean")}`, b.imbalance),
  },
];

/**
 * The Hosts sheet: each host's overall row per step (IOPS, its share of the step, response and
 * service times, CPU), then per step the imbalance max/mean host IOPS as a live formula over the
 * mean and max cells of its row. Null when no source is a multi-host run.
 */
export function hostsSheet(perHost: readonly LabStep[], aggregate: readonly LabStep[]): SheetPlan | null {
  if (perHost.length === 0) return null;
  // Step by step, each step's hosts together (the steps come sorted by host first).
  const sources = [...new Set(perHost.map((s) => s.source))];
  const rows = [...perHost].sort(
    (a, b) =>
      sources.indexOf(a.source) - sources.indexOf(b.source) ||
      a.order - b.order ||
      a.step.localeCompare(b.step) ||
      a.host.localeCompare(b.host),
  );
  const balance = hostBalance(rows, aggregate);
  const allIops = new Map(balance.map((b) => [`${b.source}\u0000${b.step}`, b.allIops] as const));
  const sheet = new SheetBuilder("Hosts", [
    "Multi-host iogen runs (iogen under MPI): each host's rows per step; the Steps sheet shows their sum, the all rows.",
    "Imbalance = max / mean host IOPS over a step's hosts (1 = even); above 1.1 it is listed on the Summary.",
  ]);
  sheet.table("Hosts", hostColumns(allIops), rows);
  sheet.table("Imbalance", BALANCE_COLUMNS, balance);
  return sheet.sheet();
}
