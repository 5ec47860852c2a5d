/**
 * A step metric (an iogen CSV column name, docs/iogen-csv.md) in words for the pane's pickers:
 * "service_ms_p999" → "Service time, 99.9th percentile (ms)". The column name stays the option's
 * value; only what the planner reads changes. A name this does not know is shown as it is.
 */

const FIXED: Record<string, string> = {
  iops: "IOPS achieved",
  mb_s: "Throughput (MB/s)",
  avg_in_flight: "IOs in flight, mean",
  late_ios: "Late IOs (count)",
  errors: "IO errors (count)",
  cpu_busy_pct: "Host CPU busy (%)",
  cpu_sys_pct: "Host CPU, system (%)",
  cpu_iowait_pct: "Host CPU, IO wait (%)",
  tool_cpu_pct: "iogen's own CPU (%)",
};

const STATISTIC: Record<string, string> = {
  avg: "mean",
  p50: "median",
  p90: "90th percentile",
  p99: "99th percentile",
  p999: "99.9th percentile",
  max: "maximum",
};

const QUANTITY: Record<string, string> = {
  service: "Service time",
  response: "Response time",
  iogen_lag: "iogen's scheduling lag",
};

/**
 * @param metric - an iogen column name, e.g. "response_ms_p99"
 * @returns its label, e.g. "Response time, 99th percentile (ms)"
 */
export function metricLabel(metric: string): string {
  if (FIXED[metric]) return FIXED[metric];
  const m = /^(service|response|iogen_lag)_ms_(avg|p50|p90|p99|p999|max)$/.exec(metric);
  if (m) return `${QUANTITY[m[1]]}, ${STATISTIC[m[2]]} (ms)`;
  return metric;
}
