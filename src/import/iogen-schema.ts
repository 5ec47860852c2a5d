// Generated from iogen/schema/columns.json by scripts/generate-iogen-schema.ts: edit the JSON and
// run `npx tsx scripts/generate-iogen-schema.ts` (tests/import/iogen-schema.test.ts checks it).

/** Version of the schema file's layout (not of iogen). */
export const IOGEN_SCHEMA_VERSION = 3;

/** iogen's CSV columns in file order, as in `iogen/schema/columns.json` (see its `$comment`). */
// prettier-ignore
export const IOGEN_SCHEMA_COLUMNS = [
  {"name":"host","type":"text","unit":"","description":"--host, default the machine's hostname","files":["subinterval","summary"],"required_in":[],"since":1},
  {"name":"step","type":"integer","unit":"","description":"Step number (plan row order, 1 for iogen run)","files":["subinterval","summary"],"required_in":["subinterval","summary"],"since":1},
  {"name":"step_name","type":"text","unit":"","description":"Plan column step_name/name, else e.g. 4KiB-r70-rand100-qd16-5000iops","files":["subinterval","summary"],"required_in":[],"since":1},
  {"name":"subinterval","type":"integer","unit":"","description":"Index of the subinterval within its phase, from 1","files":["subinterval"],"required_in":["subinterval"],"since":1},
  {"name":"phase","type":"text","unit":"","description":"warmup or measure","files":["subinterval"],"required_in":["subinterval"],"since":1},
  {"name":"start_s","type":"number","unit":"s","description":"Start of the subinterval, seconds since the step started (warm-up start)","files":["subinterval"],"required_in":[],"since":1},
  {"name":"seconds","type":"number","unit":"s","description":"Length of the subinterval (summary: the seconds the row covers, the steady-state window when steady_from is set)","files":["subinterval","summary"],"required_in":["subinterval"],"since":1},
  {"name":"category","type":"text","unit":"","description":"overall, read or write: which IOs the row covers","files":["subinterval","summary"],"required_in":["subinterval","summary"],"since":1},
  {"name":"target_iops","type":"number_or_max","unit":"IO/s","description":"--iops: requested arrival rate over all IOs, or the text max","files":["subinterval","summary"],"required_in":[],"since":1},
  {"name":"iops","type":"number","unit":"IO/s","description":"IOs of this category completed / seconds","files":["subinterval","summary"],"required_in":["subinterval","summary"],"since":1},
  {"name":"mb_s","type":"number","unit":"10^6 B/s","description":"Bytes of those IOs / seconds / 10^6","files":["subinterval","summary"],"required_in":[],"since":1},
  {"name":"block_size","type":"integer","unit":"B","description":"--block-size","files":["subinterval","summary"],"required_in":[],"since":1},
  {"name":"read_pct","type":"number","unit":"%","description":"--read-pct (requested, 0-100)","files":["subinterval","summary"],"required_in":[],"since":1},
  {"name":"random_pct","type":"number","unit":"%","description":"--random-pct (requested, 0-100)","files":["subinterval","summary"],"required_in":[],"since":1},
  {"name":"queue_depth","type":"integer","unit":"IOs","description":"--queue-depth: most IOs in flight","files":["subinterval","summary"],"required_in":[],"since":1},
  {"name":"service_ms_avg","type":"number","unit":"ms","description":"Service time (completion - launch): mean (exact sum)","files":["subinterval","summary"],"required_in":[],"since":1},
  {"name":"service_ms_p50","type":"number","unit":"ms","description":"Service time (completion - launch): median (HdrHistogram, 3 significant digits)","files":["subinterval","summary"],"required_in":[],"since":1},
  {"name":"service_ms_p90","type":"number","unit":"ms","description":"Service time (completion - launch): 90th percentile","files":["subinterval","summary"],"required_in":[],"since":1},
  {"name":"service_ms_p99","type":"number","unit":"ms","description":"Service time (completion - launch): 99th percentile","files":["subinterval","summary"],"required_in":[],"since":1},
  {"name":"service_ms_p999","type":"number","unit":"ms","description":"Service time (completion - launch): 99.9th percentile","files":["subinterval","summary"],"required_in":[],"since":1},
  {"name":"service_ms_max","type":"number","unit":"ms","description":"Service time (completion - launch): largest","files":["subinterval","summary"],"required_in":[],"since":1},
  {"name":"response_ms_avg","type":"number","unit":"ms","description":"Response time (completion - scheduled): mean (exact sum)","files":["subinterval","summary"],"required_in":[],"since":1},
  {"name":"response_ms_p50","type":"number","unit":"ms","description":"Response time (completion - scheduled): median (HdrHistogram, 3 significant digits)","files":["subinterval","summary"],"required_in":[],"since":1},
  {"name":"response_ms_p90","type":"number","unit":"ms","description":"Response time (completion - scheduled): 90th percentile","files":["subinterval","summary"],"required_in":[],"since":1},
  {"name":"response_ms_p99","type":"number","unit":"ms","description":"Response time (completion - scheduled): 99th percentile","files":["subinterval","summary"],"required_in":[],"since":1},
  {"name":"response_ms_p999","type":"number","unit":"ms","description":"Response time (completion - scheduled): 99.9th percentile","files":["subinterval","summary"],"required_in":[],"since":1},
  {"name":"response_ms_max","type":"number","unit":"ms","description":"Response time (completion - scheduled): largest","files":["subinterval","summary"],"required_in":[],"since":1},
  {"name":"avg_in_flight","type":"number","unit":"IOs","description":"Sum of service times / seconds (Little's law: mean IOs outstanding at the engine)","files":["subinterval","summary"],"required_in":[],"since":1},
  {"name":"late_ios","type":"integer","unit":"IOs","description":"Completed IOs that found every slot busy at their scheduled time (queueing)","files":["subinterval","summary"],"required_in":[],"since":1},
  {"name":"errors","type":"integer","unit":"IOs","description":"IOs that failed or moved fewer bytes than asked","files":["subinterval","summary"],"required_in":[],"since":1},
  {"name":"cpu_busy_pct","type":"number","unit":"% of all cores","description":"Host CPU busy (total - idle - iowait) / total, from /proc/stat","files":["subinterval","summary"],"required_in":[],"since":1},
  {"name":"cpu_sys_pct","type":"number","unit":"% of all cores","description":"Host CPU (system + irq + softirq) / total","files":["subinterval","summary"],"required_in":[],"since":1},
  {"name":"cpu_iowait_pct","type":"number","unit":"% of all cores","description":"Host CPU iowait / total","files":["subinterval","summary"],"required_in":[],"since":1},
  {"name":"cpu_cores","type":"integer","unit":"","description":"Online cores","files":["subinterval","summary"],"required_in":[],"since":1},
  {"name":"iogen_cpu_pct","type":"number","unit":"% of one core","description":"iogen's own user + system CPU time / wall time (getrusage, all threads)","files":["subinterval","summary"],"required_in":[],"since":1},
  {"name":"iogen_lag_ms_avg","type":"number","unit":"ms","description":"iogen's own launch lag (launch - scheduled) of the IOs that found a free slot: mean (exact sum)","files":["subinterval","summary"],"required_in":[],"since":2},
  {"name":"iogen_lag_ms_p99","type":"number","unit":"ms","description":"iogen's own launch lag: 99th percentile","files":["subinterval","summary"],"required_in":[],"since":2},
  {"name":"iogen_lag_ms_max","type":"number","unit":"ms","description":"iogen's own launch lag: largest","files":["subinterval","summary"],"required_in":[],"since":2},
  {"name":"measure_seconds","type":"number","unit":"s","description":"Measured seconds (sum of all measured subintervals, warm-up found by --seen-enough included)","files":["summary"],"required_in":[],"since":1},
  {"name":"seen_enough","type":"text","unit":"","description":"yes, no or off: outcome of the --seen-enough rule","files":["summary"],"required_in":[],"since":1},
  {"name":"achieved_pm","type":"number","unit":"fraction","description":"Relative half-width h of the focus metric's mean (0.05 = +-5 %)","files":["summary"],"required_in":[],"since":1},
  {"name":"engine","type":"text","unit":"","description":"Engine that ran the step: sync, io_uring or null (--engine auto shows which one it chose)","files":["summary"],"required_in":[],"since":2},
  {"name":"steady_from","type":"integer","unit":"","description":"Measured subinterval (from 1) where --seen-enough judged steady state to begin; the summary row covers it to the end. Empty without --seen-enough or with --seen-enough-transient off","files":["summary"],"required_in":[],"since":3},
] as const;
