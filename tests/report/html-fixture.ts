/**
 * A hand-made workbook plan for the HTML renderer's tests: the shape a 2×2 lab run produces
 * (Steps, Model, Fit, Charts), with hostile imported text in labels, notes, sources and
 * series names. Numbers are plausible, not computed: the renderer never computes.
 */
import type { WorkbookPlan } from "../../src/workbook/plan";

export const HOSTILE_SCRIPT = `<script>alert("x")</script>`;
export const HOSTILE_FORMULA = `=HYPERLINK("http://x","y")`;
export const HOSTILE_ATTR = `" onmouseover="alert(1)`;

const steps = [
  { read: 100, target: 500, iops: 499.8, resp: 0.21, cpu: 3.1 },
  { read: 100, target: 2000, iops: 1998.7, resp: 0.24, cpu: 9.8 },
  { read: 70, target: 500, iops: 500.4, resp: 0.35, cpu: 3.9 },
  { read: 70, target: 2000, iops: 2001.2, resp: 0.52, cpu: 12.6 },
];

function timeSeries(step: number, iops: number): { x: number[]; y: number[]; lat: number[] } {
  const x: number[] = [];
  const y: number[] = [];
  const lat: number[] = [];
  for (let t = 0; t < 5; t++) {
    x.push(t + 1);
    y.push(iops * (1 + 0.01 * Math.sin(step * 7 + t)));
    lat.push(0.2 + 0.05 * step + 0.01 * Math.cos(t));
  }
  return { x, y, lat };
}

export function fixturePlan(): WorkbookPlan {
  const perStep = steps.map((s, i) => timeSeries(i + 1, s.iops));
  return {
    title: "Capacity Lab report: 2×2 fixture",
    sources: ["/tmp/lab/sub.csv", `/tmp/${HOSTILE_SCRIPT}.csv`],
    warnings: ["sub.csv: 1 truncated last line skipped"],
    sheets: [
      {
        name: "Steps",
        notes: ["One row per step, measure phase only.", `Label seen: ${HOSTILE_SCRIPT}`],
        freezeHeader: true,
        charts: [],
        tables: [
          {
            name: "Steps",
            at: { row: 3, col: 0 },
            columns: [
              { key: "step", header: "step", numFmt: "0" },
              { key: "protocol", header: "protocol", numFmt: "@", description: `label column ${HOSTILE_ATTR}` },
              { key: "read_pct", header: "read_pct", numFmt: "0" },
              { key: "target_iops", header: "target_iops", numFmt: "#,##0" },
              { key: "iops", header: "iops", numFmt: "#,##0.0", description: "Achieved IOPS over the measure window" },
              { key: "response_ms_avg", header: "response_ms_avg", numFmt: "0.000" },
              { key: "cpu_busy", header: "cpu_busy", numFmt: "0.0%" },
              { key: "ok", header: "ok", numFmt: "@" },
            ],
            rows: steps.map((s, i) => [
              i + 1,
              i === 0 ? HOSTILE_FORMULA : i === 1 ? HOSTILE_SCRIPT : i === 2 ? "@SUM(A1)" : "nfs",
              s.read,
              s.target,
              s.iops,
              s.resp,
              s.cpu / 100,
              i !== 3,
            ]),
          },
        ],
      },
      {
        name: "Model",
        notes: ["Utilization law D = U/X; Little's law X·R vs average in flight."],
        freezeHeader: true,
        charts: [],
        tables: [
          {
            name: "Model",
            at: { row: 2, col: 0 },
            columns: [
              { key: "step", header: "step", numFmt: "0" },
              { key: "d_ms", header: "D_ms", numFmt: "0.0000" },
              { key: "x_max", header: "X_max", numFmt: "#,##0" },
              { key: "little_check", header: "little_check" },
            ],
            rows: steps.map((s, i) => [
              i + 1,
              { formula: `C${i + 2}/D${i + 2}`, result: (s.cpu / 100 / s.iops) * 1000 * 2 },
              (2 / ((s.cpu / 100 / s.iops) * 2)) * 1,
              i === 3 ? { error: "#DIV/0!" } : { formula: `E${i + 2}*F${i + 2}`, result: "ok" },
            ]),
          },
        ],
      },
      {
        name: "Charts",
        notes: [],
        freezeHeader: false,
        tables: [],
        charts: [
          {
            id: "response-vs-throughput",
            title: "Response time vs throughput",
            kind: "scatter",
            xTitle: "IOPS",
            yTitle: "Response time (ms)",
            series: [
              { name: "measured", style: "points", x: steps.map((s) => s.iops), y: steps.map((s) => s.resp) },
              {
                name: `M/M/c model ${HOSTILE_SCRIPT}`,
                style: "line",
                x: [0, 1000, 2000, 3000],
                y: [0.2, 0.23, 0.3, 0.45],
              },
            ],
          },
          {
            id: "cpu-vs-iops",
            title: "CPU busy vs IOPS",
            kind: "scatter",
            xTitle: "IOPS",
            yTitle: "CPU busy (%)",
            series: [
              { name: "measured", style: "points", x: steps.map((s) => s.iops), y: steps.map((s) => s.cpu) },
              { name: "fit: 0.0052·X + 0.6", style: "line", x: [0, 2100], y: [0.6, 11.52] },
            ],
          },
          ...perStep.map((t, i) => ({
            id: `ts-${i + 1}`,
            title: `Step ${i + 1}: IOPS per subinterval`,
            kind: "line" as const,
            xTitle: "time (s)",
            yTitle: "IOPS",
            series: [{ name: "iops", style: "points+line" as const, x: t.x, y: t.y }],
          })),
          ...perStep.map((t, i) => ({
            id: `lat-${i + 1}`,
            title: `Step ${i + 1}: response time per subinterval`,
            kind: "line" as const,
            xTitle: "time (s)",
            yTitle: "ms",
            series: [{ name: "response avg", style: "line" as const, x: t.x, y: t.lat }],
          })),
        ],
      },
    ],
  };
}
