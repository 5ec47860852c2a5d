/**
 * The pane's words for what it shows: metric names in a picker, an import's warnings grouped by
 * kind, and which of repeated sheets ("Summary", "Summary (2)") Share ticks by default.
 */
import { metricLabel } from "../../src/taskpane/metric-labels";
import { groupWarnings } from "../../src/taskpane/import-warnings";
import { latestOfEach } from "../../src/taskpane/case-sharing";

describe("metric labels", () => {
  test.each([
    ["service_ms_p999", "Service time, 99.9th percentile (ms)"],
    ["response_ms_avg", "Response time, mean (ms)"],
    ["iogen_lag_ms_max", "iogen's scheduling lag, maximum (ms)"],
    ["cpu_busy_pct", "Host CPU busy (%)"],
    ["iops", "IOPS achieved"],
    ["something_new", "something_new"],
  ])("%s → %s", (metric, label) => {
    expect(metricLabel(metric)).toBe(label);
  });
});

describe("warnings grouped by what they say", () => {
  test("the same warning about two steps is one group naming both; chosen saturation steps are info", () => {
    const w = [
      "step 7 nfs-max: ran as fast as possible (target max): a saturation step; its response time is set by the queue depth.",
      "step 1 r100-500: only 4 measured subintervals (4 s): too short a window.",
      "step 14 fc-max: ran as fast as possible (target max): a saturation step; its response time is set by the queue depth.",
      "Subintervals: the first 100,000 rows are written; steps 9-50 are left out.",
    ];
    const groups = groupWarnings(w);
    expect(groups.map((g) => [g.kind, g.intent, g.members.map((m) => m.index)])).toEqual([
      ["ran as fast as possible (target max)", "info", [0, 2]],
      ["only 4 measured subintervals (4 s)", "warning", [1]],
      ["Subintervals: the first 100,000 rows are written; steps 9-50 are left out", "info", [3]],
    ]);
    expect(groups[0].members.map((m) => m.subject)).toEqual(["step 7 nfs-max", "step 14 fc-max"]);
  });
});

test("a warning whose subject names the file and host before the step is grouped by what it says", () => {
  const groups = groupWarnings([
    "summary.csv labhost step 1 r100-500: only 4 measured subintervals (4 s): too short.",
    "summary.csv labhost step 2 r100-2000: only 4 measured subintervals (4 s): too short.",
  ]);
  expect(groups.map((g) => [g.kind, g.members.map((m) => m.subject)])).toEqual([
    [
      "only 4 measured subintervals (4 s)",
      ["summary.csv labhost step 1 r100-500", "summary.csv labhost step 2 r100-2000"],
    ],
  ]);
});

describe("Share's default ticks follow the latest import", () => {
  test("of Summary, Summary (2) and Summary (3), the last; a sheet never repeated stays", () => {
    expect([...latestOfEach(["Summary", "Steps", "Summary (2)", "Steps (2)", "Summary (3)", "Business case"])]).toEqual(
      ["Summary (3)", "Steps (2)", "Business case"],
    );
  });
});
