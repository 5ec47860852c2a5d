/**
 * The offline HTML report: a {@link WorkbookPlan} rendered as one self-contained page.
 *
 * What it draws: the plan's title, sources and warnings, then every sheet in order with its
 * notes, its charts (uPlot, MIT licence, read from `node_modules/uplot` at render time and
 * inlined) and its tables (number formats applied, column descriptions as tooltips).
 *
 * Safety: every string from the plan is data. Text goes through {@link escapeHtml}; chart data
 * goes into a `<script type="application/json">` block with `<`, `>`, `&`, U+2028 and U+2029
 * escaped, is read with `JSON.parse`, and reaches the page only through uPlot, which sets text
 * with `textContent`. No `innerHTML`, no `eval`, no URL of any kind: a Content-Security-Policy
 * with `default-src 'none'` and SHA-256 hashes of the inline script and style blocks makes the
 * browser refuse any request or injected script even if a bug slipped one in.
 *
 * Renderers never compute numbers: the page shows what the plan holds. The only work done here
 * is presentation: number formatting, ordering chart points by x for uPlot, and a row cap per
 * table (the .xlsx written next to the page has the full tables).
 */
import { createHash } from "crypto";
import { readFileSync } from "fs";
import type { CellValue, ChartPlan, ColumnPlan, SheetPlan, TablePlan, WorkbookPlan } from "../workbook/plan";
import { cellNumFmt, rangeA1, tableRow, tableRowCount } from "../workbook/plan";
import { cellNumber } from "../core/finite";

/** Options of {@link renderHtml}. */
export interface HtmlOptions {
  /**
   * Most rows shown per table (default 2000). Longer tables show their first rows and a note
   * giving the full count; the workbook has them all. A page with a million-row table would be
   * hundreds of megabytes and unusable in a browser.
   */
  maxTableRows?: number;
}

const DEFAULT_MAX_TABLE_ROWS = 2000;

/**
 * Escapes text for HTML element content and double- or single-quoted attribute values.
 *
 * @param text - any text, typically imported data (labels, file names).
 * @returns the text with `&`, `<`, `>`, `"` and `'` replaced by character references.
 * @example escapeHtml('<script>"x"') // => "&lt;script&gt;&quot;x&quot;"
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/**
 * Serialises a value as JSON that is safe inside a `<script type="application/json">` block:
 * `<`, `>` and `&` become `\u003c`, `\u003e`, `\u0026` (so `</script>` cannot close the block),
 * and U+2028/U+2029 are escaped too. `JSON.parse` of the result gives the original value back.
 * Non-finite numbers become `null`, as in `JSON.stringify`.
 *
 * @param value - any JSON-serialisable value.
 * @returns the JSON text.
 * @example jsonForScript({ a: "</script>" }) // => '{"a":"\\u003c/script\\u003e"}'
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"),
  );
}

/**
 * Formats a number for display the way an Excel number format would, for the formats a
 * workbook plan uses: `0`, `0.00`, `#,##0.0`, `0.0%`, `0.00E+00`, literal text in quotes
 * (`0.0" ms"`), `@` (text) and General (absent format: up to 6 significant digits).
 * A negative number uses the second section of a `pos;neg;zero` format when there is one (unsigned,
 * as Excel does), unless it rounds to zero there; otherwise the first, with its minus sign. Date/time formats are shown as General: plans hold durations as numbers.
 *
 * @param value - the number.
 * @param numFmt - the Excel number format, or undefined for General.
 * @returns the text shown in the cell.
 * @example formatNumber(1234.5, "#,##0.0") // => "1,234.5"
 * @example formatNumber(0.1234, "0.0%") // => "12.3%"
 */
export function formatNumber(value: number, numFmt?: string): string {
  if (!Number.isFinite(value)) return String(cellNumber(value) ?? ""); // as the .xlsx: #NUM!, or nothing for NaN
  const sections = (numFmt ?? "").split(";");
  const other = otherSection(value, sections);
  if (other !== undefined) return other;
  const section = sections[0].trim();
  if (section === "" || /^general$/i.test(section)) return formatGeneral(value);
  if (section === "@") return String(value);
  // Literal text: "quoted", \x escapes; other layout characters (_x, *x) are dropped.
  const plain = section.replace(/"([^"]*)"|\\(.)|[_*]./g, (_m, quoted?: string, escaped?: string) =>
    quoted !== undefined ? quoted : escaped !== undefined ? escaped : "",
  );
  const unquoted = section.replace(/"[^"]*"|\\./g, "");
  // Digits inside quotes are text ("not reachable (< 0)"): without a placeholder outside them, text only.
  if (!/[#0?]/.test(unquoted)) return textOnly(plain, unquoted) ?? formatGeneral(value);
  const m = /^(.*?)([#0?][#0?,]*(?:\.[#0?]*)?(?:[eE][+-][#0]+)?)(.*)$/.exec(plain);
  if (!m) return textOnly(plain, unquoted) ?? formatGeneral(value);
  if (/[ymdhs]/i.test(unquoted.replace(/[eE][+-]/, ""))) return formatGeneral(value);
  const [, prefix, pattern, suffix] = m;
  const percent = (prefix + suffix).includes("%");
  const v = percent ? value * 100 : value;
  const [mantissa, exponent] = pattern.split(/[eE][+-]/);
  const decimals = (mantissa.split(".")[1] ?? "").replace(/[^#0?]/g, "").length;
  let body: string;
  if (exponent !== undefined) {
    const [digits, exp] = v.toExponential(decimals).split("e");
    const e = Number(exp);
    body = `${digits}E${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(exponent.length, "0")}`;
  } else {
    const minDecimals = (mantissa.split(".")[1] ?? "").replace(/[^0]/g, "").length;
    const grouping = mantissa.split(".")[0].includes(",");
    body = v.toLocaleString("en-US", {
      minimumFractionDigits: minDecimals,
      maximumFractionDigits: decimals,
      useGrouping: grouping,
    });
    if (body === "-0") body = "0";
  }
  return prefix + body + suffix;
}

/** A zero or negative number in a format with a section for it (Excel's: positive; negative; zero), else undefined. */
function otherSection(value: number, sections: string[]): string | undefined {
  if (value === 0 && sections.length > 2 && sections[2].trim() !== "") return formatNumber(0, sections[2]);
  if (value < 0 && sections.length > 1 && sections[1].trim() !== "") return formatNegative(value, sections);
  return undefined;
}

/** A section of quoted text only ("none"): its text, as Excel shows it for any number in that section. */
function textOnly(plain: string, unquoted: string): string | undefined {
  return unquoted.trim() === "" && plain !== "" ? plain : undefined;
}

/**
 * A negative number in a format with a negative section: shown by that section, unsigned
 * ("£#,##0;−£#,##0" → "−£22,066"), unless it rounds to zero there ("£0", never "−£0").
 */
function formatNegative(value: number, sections: string[]): string {
  const shown = formatNumber(-value, sections[1]);
  if (!/[#0?]/.test(sections[1].replace(/"[^"]*"|\\./g, ""))) return shown; // text only: no number to round
  if (/[1-9]/.test(shown)) return shown;
  return formatNumber(0, sections.length > 2 && sections[2].trim() !== "" ? sections[2] : sections[0]);
}

function formatGeneral(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < 1e15) return String(value);
  const abs = Math.abs(value);
  if (abs !== 0 && (abs < 1e-4 || abs >= 1e11)) {
    const [mantissa, exp] = value.toExponential(5).split("e");
    return `${mantissa.replace(/\.?0+$/, "")}E${exp}`;
  }
  return String(Number(value.toPrecision(6)));
}

/** A chart's series merged onto one ascending x array, as uPlot's aligned data needs. */
export interface AlignedChartData {
  /** Ascending x values: one entry per finite point of any series (duplicates kept). */
  x: number[];
  /** One array per series, same length as `x`: the point's y, or null where another series' point sits. */
  y: (number | null)[][];
}

/**
 * Merges a chart's series (each with its own x values, in any order) onto one ascending x
 * array with one column per series, the layout uPlot draws. Series that share x values share
 * rows (time series of several steps on one time grid cost one row per time, not one per
 * point); two points of one series at the same x (two steps at the same IOPS) get a row each,
 * so both show. Points whose x or y is not finite are left out. Cost O(n log n + r·s) for n
 * points, r rows and s series.
 *
 * @param chart - the chart plan.
 * @returns the aligned data.
 * @example alignSeries({ series: [{ x: [2, 1], y: [20, 10] }, { x: [1], y: [5] }] }) // => { x: [1, 2], y: [[10, 20], [5, null]] }
 */
export function alignSeries(
  chart: Pick<ChartPlan, "series"> | { series: { x: number[]; y: number[] }[] },
): AlignedChartData {
  const points: [number, number, number][] = [];
  chart.series.forEach((s, i) => {
    const n = Math.min(s.x.length, s.y.length);
    for (let j = 0; j < n; j++) {
      if (Number.isFinite(s.x[j]) && Number.isFinite(s.y[j])) points.push([s.x[j], i, s.y[j]]);
    }
  });
  points.sort((a, b) => a[0] - b[0] || a[1] - b[1]); // stable: a series' points at one x keep their order
  const x: number[] = [];
  const y: (number | null)[][] = chart.series.map(() => []);
  for (let start = 0; start < points.length;) {
    let end = start;
    while (end < points.length && points[end][0] === points[start][0]) end++;
    // Rows for this x: as many as the series with the most points here.
    const base = x.length;
    let rows = 0;
    for (let k = start; k < end;) {
      let m = k;
      while (m < end && points[m][1] === points[k][1]) m++;
      rows = Math.max(rows, m - k);
      k = m;
    }
    for (let r = 0; r < rows; r++) {
      x.push(points[start][0]);
      for (const col of y) col.push(null);
    }
    for (let k = start; k < end;) {
      let m = k;
      while (m < end && points[m][1] === points[k][1]) {
        y[points[m][1]][base + (m - k)] = points[m][2];
        m++;
      }
      k = m;
    }
    start = end;
  }
  return { x, y };
}

/** What the page's chart script receives for one chart. */
interface ChartData {
  el: string;
  xTitle: string;
  yTitle: string;
  /** A log-scale x axis (the plan's `xLog`). */
  xLog?: boolean;
  series: { name: string; style: "points" | "line" | "points+line" }[];
  data: [number[], ...(number | null)[][]];
}

/**
 * Renders a workbook plan as one self-contained offline HTML page.
 *
 * @param plan - the workbook plan (not modified).
 * @param options - see {@link HtmlOptions}.
 * @returns the HTML document text (UTF-8).
 * @throws Error when the bundled charting library (npm package `uplot`) is not installed.
 * @example renderHtml({ title: "Lab", sources: [], warnings: [], sheets: [] }).startsWith("<!DOCTYPE html>") // => true
 */
export function renderHtml(plan: WorkbookPlan, options: HtmlOptions = {}): string {
  const maxRows = options.maxTableRows ?? DEFAULT_MAX_TABLE_ROWS;
  const charts: ChartData[] = [];
  const body: string[] = [];

  body.push(`<header>`, `<h1>${escapeHtml(plan.title)}</h1>`);
  if (plan.sources.length > 0) {
    body.push(`<section class="sources"><h2>Sources</h2><ul>`);
    for (const s of plan.sources) body.push(`<li><code>${escapeHtml(s)}</code></li>`);
    body.push(`</ul></section>`);
  }
  if (plan.warnings.length > 0) {
    body.push(`<section class="warnings" role="note"><h2>Warnings</h2><ul>`);
    for (const w of plan.warnings) body.push(`<li>${escapeHtml(w)}</li>`);
    body.push(`</ul></section>`);
  }
  if (plan.sheets.length > 1) {
    body.push(`<nav class="toc"><h2>Contents</h2><ol>`);
    plan.sheets.forEach((s, i) => body.push(`<li><a href="#sheet-${i + 1}">${escapeHtml(s.name)}</a></li>`));
    body.push(`</ol></nav>`);
  }
  body.push(`</header>`, `<main>`);
  plan.sheets.forEach((sheet, i) => body.push(renderSheet(sheet, i + 1, maxRows, charts)));
  body.push(`</main>`);
  body.push(
    `<footer>Written by Capacity Lab. Charts drawn with uPlot ${escapeHtml(uplot().version)} (MIT License), ` +
      `bundled in this page: it needs no network.</footer>`,
  );

  const lib = uplot();
  const scripts = [`/* uPlot ${lib.version}\n${lib.license.replace(/\*\//g, "* /")}\n*/\n${lib.js}`, CHART_SCRIPT];
  const styles = [lib.css, PAGE_STYLE];
  const csp = [
    "default-src 'none'",
    `script-src ${scripts.map(sha256Source).join(" ")}`,
    `style-src ${styles.map(sha256Source).join(" ")}`,
    "img-src data:",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");

  return [
    `<!DOCTYPE html>`,
    `<html lang="en">`,
    `<head>`,
    `<meta charset="utf-8">`,
    `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<meta name="generator" content="Capacity Lab">`,
    `<title>${escapeHtml(plan.title)}</title>`,
    ...styles.map((s) => `<style>${s}</style>`),
    `</head>`,
    `<body>`,
    ...body,
    `<script type="application/json" id="caplab-chart-data">${jsonForScript(charts)}</script>`,
    ...scripts.map((s) => `<script>${s}</script>`),
    `</body>`,
    `</html>`,
    ``,
  ].join("\n");
}

function renderSheet(sheet: SheetPlan, index: number, maxRows: number, charts: ChartData[]): string {
  const out: string[] = [`<section class="sheet" id="sheet-${index}">`, `<h2>${escapeHtml(sheet.name)}</h2>`];
  if (sheet.notes.length > 0) {
    out.push(`<div class="notes">`);
    for (const note of sheet.notes) out.push(`<p>${escapeHtml(note)}</p>`);
    out.push(`</div>`);
  }
  // The verdict comes before the charts and the other tables.
  for (const table of sheet.tables) if (table.callout) out.push(renderTable(table, maxRows));
  if (sheet.charts.length > 0) {
    out.push(`<div class="charts">`);
    sheet.charts.forEach((chart, j) => {
      if (chart.kind === "bar") {
        out.push(barChartFigure(chart, moneyFormatOf(sheet, chart)));
        return;
      }
      const el = `chart-${index}-${j + 1}`;
      const aligned = alignSeries(chart);
      charts.push({
        el,
        xTitle: chart.xTitle,
        yTitle: chart.yTitle,
        ...(chart.xLog ? { xLog: true } : {}),
        series: chart.series.map((s) => ({ name: s.name, style: s.style })),
        data: [aligned.x, ...aligned.y],
      });
      const points = aligned.x.length;
      out.push(
        `<figure class="chart">`,
        `<figcaption>${escapeHtml(chart.title)}</figcaption>`,
        `<div class="chart-area" id="${el}" data-points="${points}"></div>`,
        points === 0 ? `<p class="empty">No data points to draw.</p>` : "",
        `<noscript><p class="empty">This chart needs JavaScript.</p></noscript>`,
        `</figure>`,
      );
    });
    out.push(`</div>`);
  }
  // A hidden table is chart data: the charts above draw it from the plan's series; a callout came first.
  for (const table of sheet.tables) if (!table.hidden && !table.callout) out.push(renderTable(table, maxRows));
  out.push(`</section>`);
  return out.filter((s) => s !== "").join("\n");
}

/** The number format of a chart's values: its source table's first value column's. */
function moneyFormatOf(sheet: SheetPlan, chart: ChartPlan): string | undefined {
  const table = sheet.tables.find((t) => t.name === chart.source?.table);
  const key = chart.source?.yColumns[0];
  return table?.columns.find((c) => c.key === key)?.numFmt;
}

/** A "nice" step for about `n` ticks over `span` (1, 2 or 5 × a power of ten). */
function niceStep(span: number, n: number): number {
  const raw = span / Math.max(1, n);
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  const m = raw / p;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

/**
 * A horizontal bar chart (a tornado) as inline SVG, drawn here rather than by the chart script:
 * one row per category (top to bottom), each series a bar from the plan's `base` to its value,
 * a vertical line at the base, value ticks in the source's number format. Scales with the page
 * (viewBox), readable without JavaScript.
 */
function barChartFigure(chart: ChartPlan, numFmt: string | undefined): string {
  const cats = chart.categories ?? [];
  const base = chart.base ?? 0;
  const values = chart.series.flatMap((s) => s.y).filter(Number.isFinite);
  let lo = Math.min(base, ...values);
  let hi = Math.max(base, ...values);
  if (hi === lo) hi = lo + 1;
  const step = niceStep(hi - lo, 6);
  lo = Math.floor(lo / step) * step;
  hi = Math.ceil(hi / step) * step;
  const W = 900;
  const left = 230;
  const right = 30;
  const rowH = 34;
  const top = 10;
  const plotH = cats.length * rowH;
  const x = (v: number): number => left + ((v - lo) / (hi - lo)) * (W - left - right);
  const colours = ["#2f5597", "#c55a11", "#548235", "#7030a0"];
  const parts: string[] = [];
  for (let v = lo; v <= hi + step / 2; v += step) {
    const px = x(v).toFixed(1);
    parts.push(
      `<line x1="${px}" y1="${top}" x2="${px}" y2="${top + plotH}" stroke="#e6e9ed"/>`,
      `<text x="${px}" y="${top + plotH + 16}" text-anchor="middle" font-size="12">${escapeHtml(formatNumber(v, numFmt))}</text>`,
    );
  }
  const barH = (rowH - 10) / Math.max(1, chart.series.length);
  cats.forEach((cat, i) => {
    const y0 = top + i * rowH;
    parts.push(
      `<text x="${left - 8}" y="${y0 + rowH / 2 + 4}" text-anchor="end" font-size="12">${escapeHtml(cat)}</text>`,
    );
    chart.series.forEach((s, k) => {
      const v = s.y[i];
      if (!Number.isFinite(v)) return;
      const a = Math.min(x(base), x(v));
      const w = Math.max(1, Math.abs(x(v) - x(base)));
      parts.push(
        `<rect x="${a.toFixed(1)}" y="${(y0 + 5 + k * barH).toFixed(1)}" width="${w.toFixed(1)}" height="${(barH - 1).toFixed(1)}" fill="${colours[k % colours.length]}">` +
          `<title>${escapeHtml(`${cat}, ${s.name}: ${formatNumber(v, numFmt)}`)}</title></rect>`,
      );
    });
  });
  const bx = x(base).toFixed(1);
  parts.push(`<line x1="${bx}" y1="${top}" x2="${bx}" y2="${top + plotH}" stroke="#1f2328" stroke-width="1.5"/>`);
  const H = top + plotH + 40;
  parts.push(
    `<text x="${(left + (W - right)) / 2}" y="${H - 4}" text-anchor="middle" font-size="12" font-weight="600">${escapeHtml(chart.yTitle)}</text>`,
  );
  const legend = chart.series
    .map(
      (s, k) =>
        `<span class="key"><svg width="12" height="12" aria-hidden="true"><rect width="12" height="12" fill="${colours[k % colours.length]}"/></svg> ${escapeHtml(s.name)}</span>`,
    )
    .join(" ");
  return [
    `<figure class="chart bar-chart">`,
    `<figcaption>${escapeHtml(chart.title)}</figcaption>`,
    `<svg viewBox="0 0 ${W} ${H}" width="100%" role="img" aria-label="${escapeHtml(chart.title)}" font-family="system-ui, sans-serif" fill="#1f2328">`,
    ...parts,
    `</svg>`,
    `<p class="legend">${legend}</p>`,
    `</figure>`,
  ].join("\n");
}

function renderTable(table: TablePlan, maxRows: number): string {
  // Where the table is in the workbook (header and rows), the address its formulas use.
  const last = { row: table.at.row + tableRowCount(table), col: table.at.col + table.columns.length - 1 };
  const out: string[] = [
    `<div class="table-wrap${table.callout ? " callout" : ""}${table.columns.length > 9 ? " wide" : ""}">`,
    `<table data-range="${rangeA1(table.at, last)}">`,
    `<caption>${escapeHtml(table.title ?? table.name)}</caption>`,
    `<thead><tr>`,
  ];
  for (const col of table.columns) {
    const title = col.description ? ` title="${escapeHtml(col.description)}"` : "";
    out.push(`<th scope="col"${title}>${escapeHtml(col.header)}</th>`);
  }
  out.push(`</tr></thead>`, `<tbody>`);
  const total = tableRowCount(table);
  const shown = Math.min(total, maxRows);
  for (let r = 0; r < shown; r++) {
    const row = tableRow(table, r);
    const cells: string[] = [];
    for (let c = 0; c < Math.max(row.length, table.columns.length); c++)
      cells.push(renderCell(row[c], table.columns[c], cellNumFmt(table, r, c)));
    out.push(`<tr>${cells.join("")}</tr>`);
  }
  out.push(`</tbody>`, `</table>`);
  if (shown < total) {
    out.push(
      `<p class="truncated">Showing the first ${shown.toLocaleString("en-US")} of ` +
        `${total.toLocaleString("en-US")} rows; the workbook has them all.</p>`,
    );
  }
  out.push(`</div>`);
  return out.join("\n");
}

function renderCell(
  value: CellValue | undefined,
  column: ColumnPlan | undefined,
  fmt: string | undefined = column?.numFmt,
): string {
  if (value === null || value === undefined) return `<td></td>`;
  if (typeof value === "number") return `<td class="num">${escapeHtml(formatNumber(value, fmt))}</td>`;
  if (typeof value === "string") {
    // Short text stays on one line; long text (notes, file paths) wraps.
    return value.length > 40 || /[\r\n]/.test(value)
      ? `<td class="wrap">${escapeHtml(value)}</td>`
      : `<td>${escapeHtml(value)}</td>`;
  }
  if (typeof value === "boolean") return `<td class="bool">${value ? "TRUE" : "FALSE"}</td>`;
  if ("error" in value) return `<td class="err">${escapeHtml(value.error)}</td>`;
  // An add-in formula shows its computed value (this page has no CAPLAB functions), with the formula as its title.
  if ("addinFormula" in value) {
    const shown = value.result === null ? null : value.result;
    const cell = renderCell(shown, column, fmt);
    return cell.replace(
      /^<td( class="[^"]*")?>/,
      (_m, cls: string | undefined) => `<td${cls ?? ""} title="${escapeHtml("=" + value.addinFormula)}">`,
    );
  }
  const title = ` title="${escapeHtml("=" + value.formula)}"`;
  const r = value.result;
  if (typeof r === "number") return `<td class="num formula"${title}>${escapeHtml(formatNumber(r, fmt))}</td>`;
  return `<td class="formula"${title}>${r === null ? "" : escapeHtml(r)}</td>`;
}

function sha256Source(text: string): string {
  return `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
}

interface UplotAssets {
  version: string;
  license: string;
  js: string;
  css: string;
}

let cachedUplot: UplotAssets | undefined;

/** Reads uPlot's browser build, stylesheet and licence from node_modules once per process. */
function uplot(): UplotAssets {
  if (cachedUplot) return cachedUplot;
  let pkgPath: string;
  try {
    pkgPath = require.resolve("uplot/package.json");
  } catch {
    throw new Error("the HTML report needs the npm package 'uplot' (run `npm install`)");
  }
  const dir = pkgPath.slice(0, -"package.json".length);
  const version = (JSON.parse(readFileSync(pkgPath, "utf8")) as { version: string }).version;
  // The build opens with a banner comment holding the project's web address; the licence
  // text below replaces it, so the page carries no URL at all.
  const js = readFileSync(dir + "dist/uPlot.iife.min.js", "utf8").replace(/^\/\*![^]*?\*\/\s*/, "");
  if (/<\/script|<!--/i.test(js)) throw new Error("uplot build contains a script terminator; cannot inline it");
  cachedUplot = {
    version,
    license: readFileSync(dir + "LICENSE", "utf8").trim(),
    js,
    css: readFileSync(dir + "dist/uPlot.min.css", "utf8"),
  };
  return cachedUplot;
}

/** The page's own stylesheet: readable on screen, compact and colour-safe on paper. */
const PAGE_STYLE = `
:root { --ink: #1f2328; --muted: #59636e; --line: #d1d9e0; --head: #f0f3f6; --zebra: #f8fafc; --accent: #1f6feb; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--ink); background: #fff;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif; }
header, main, footer { max-width: 1100px; margin: 0 auto; padding: 0 24px; }
header { padding-top: 20px; }
h1 { font-size: 24px; margin: 0 0 12px; }
h2 { font-size: 18px; margin: 28px 0 8px; padding-bottom: 4px; border-bottom: 2px solid var(--line); }
header h2 { font-size: 14px; margin: 12px 0 4px; border: 0; padding: 0; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
header ul, header ol { margin: 0; padding-left: 20px; }
code { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; word-break: break-all; }
.warnings { margin-top: 12px; padding: 8px 12px; border-left: 4px solid #d4a72c; background: #fff8c5; }
.warnings h2 { color: #7d4e00; margin-top: 0; }
.toc ol { display: flex; flex-wrap: wrap; gap: 4px 20px; list-style: none; padding: 0; }
.toc a { color: var(--accent); text-decoration: none; }
.notes p { margin: 4px 0; color: var(--muted); max-width: 80ch; }
.charts { display: flex; flex-wrap: wrap; gap: 16px; margin: 12px 0; }
figure.chart { margin: 0; padding: 12px; border: 1px solid var(--line); border-radius: 6px; flex: 1 1 480px; min-width: 0; break-inside: avoid; }
figure.chart figcaption { font-weight: 600; margin-bottom: 6px; }
.chart-area { width: 100%; min-height: 40px; }
.chart-area .u-legend { font-size: 12px; }
.empty, .truncated { color: var(--muted); font-style: italic; margin: 6px 0; }
.chart-error { color: #cf222e; }
.table-wrap { overflow-x: auto; margin: 12px 0 20px; }
.table-wrap table { border-collapse: collapse; font-size: 13px; }
.table-wrap caption { caption-side: top; text-align: left; font-weight: 600; padding: 4px 0; color: var(--muted); }
.table-wrap th, .table-wrap td { border: 1px solid var(--line); padding: 3px 8px; vertical-align: top; }
.table-wrap th { background: var(--head); text-align: left; font-weight: 600; white-space: normal; min-width: 6ch; max-width: 22ch; overflow-wrap: break-word; }
.table-wrap caption { font-size: 15px; color: var(--ink); }
.callout { border: 2px solid var(--accent); border-radius: 6px; padding: 8px 14px; background: #f3f8ff; }
.callout table { font-size: 15px; }
.callout caption { font-size: 18px; }
.callout th, .callout td { border: 0; background: none !important; }
.table-wrap.callout td, .table-wrap.callout td.num { white-space: normal; text-align: left; }
.callout td + td { font-weight: 600; }
.table-wrap.wide table { font-size: 11px; }
.table-wrap.wide th, .table-wrap.wide td { padding: 2px 4px; }
.table-wrap.wide th { max-width: 10ch; min-width: 0; }
.table-wrap.wide td { white-space: normal; max-width: 18ch; }
.table-wrap.wide td.num { white-space: nowrap; }
.bar-chart > svg { display: block; max-width: 100%; height: auto; }
.bar-chart .legend { font-size: 12px; margin: 4px 0 0; text-align: center; }
.bar-chart .key { margin: 0 8px; }
.table-wrap th[title] { text-decoration: underline dotted var(--muted); cursor: help; }
.table-wrap tbody tr:nth-child(even) td { background: var(--zebra); }
.table-wrap td { white-space: nowrap; }
.table-wrap th, .table-wrap td { padding: 3px 6px; }
.table-wrap td.wrap { white-space: pre-wrap; min-width: 24ch; max-width: 60ch; overflow-wrap: anywhere; }
.table-wrap td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.table-wrap td.bool { text-align: center; }
.table-wrap td.err { color: #cf222e; text-align: center; }
footer { margin: 32px auto 24px; color: var(--muted); font-size: 12px; border-top: 1px solid var(--line); padding-top: 8px; }
@media print {
  @page { size: A4 landscape; margin: 10mm; }
  body { font-size: 10pt; }
  header, main, footer { max-width: none; padding: 0; }
  .toc { display: none; }
  h2 { break-after: avoid; }
  .sheet { break-before: page; }
  .sheet:first-child { break-before: auto; }
  figure.chart { flex-basis: 100%; }
  .table-wrap { overflow: visible; }
  .table-wrap table { font-size: 7pt; }
  .table-wrap th { white-space: normal; }
  .table-wrap th, .table-wrap td { padding: 1px 4px; }
  .table-wrap thead { display: table-header-group; }
  .table-wrap tr { break-inside: avoid; }
  .table-wrap tbody tr:nth-child(even) td { background: none; }
  .warnings { background: none; }
}
`;

/**
 * The page's chart script (plain ES5, runs in the browser): reads the JSON block and draws
 * each chart with uPlot. On failure it writes the reason into the chart's box with textContent
 * and logs it to the console (the screenshot test treats console errors as failures).
 */
const CHART_SCRIPT = `
(function () {
  "use strict";
  var palette = ["#1f6feb", "#d1242f", "#1a7f37", "#9a6700", "#8250df", "#bf3989", "#0a7ea4", "#57606a"];
  var block = document.getElementById("caplab-chart-data");
  var charts = JSON.parse(block.textContent);
  var plots = [];
  function axisSize(u, values, axisIdx, cycleNum) {
    var longest = 0;
    if (values) for (var i = 0; i < values.length; i++) longest = Math.max(longest, String(values[i]).length);
    return Math.max(40, Math.ceil(longest * 7.2) + 18);
  }
  function noPath() { return null; }
  // Whole-number x values (years) get whole-number ticks: 0, 1, 2 rather than 0, 0.2 … 2.
  function xAxis(c) {
    var axis = { label: c.xTitle, stroke: "#1f2328", grid: { stroke: "#e6e9ed", width: 1 }, ticks: { stroke: "#d1d9e0" } };
    var xs = c.data[0];
    var whole = xs.length > 0 && xs.every(function (v) { return Math.floor(v) === v; });
    if (whole && !c.xLog) axis.incrs = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];
    return axis;
  }
  function widthOf(el) { return Math.max(280, Math.min(1040, Math.floor(el.clientWidth || 640))); }
  charts.forEach(function (c) {
    var el = document.getElementById(c.el);
    if (!c.data[0].length) return;
    try {
      var series = [{ label: c.xTitle }];
      c.series.forEach(function (s, i) {
        var colour = palette[i % palette.length];
        var line = s.style !== "points";
        var cycle = Math.floor(i / palette.length) % 3;
        series.push({
          label: s.name,
          stroke: colour,
          width: line ? 2 : 0,
          spanGaps: true,
          dash: cycle === 1 ? [8, 4] : cycle === 2 ? [2, 3] : undefined,
          paths: line ? undefined : noPath,
          points: { show: s.style !== "line", size: 7, width: 1, stroke: colour, fill: colour }
        });
      });
      var opts = {
        width: widthOf(el),
        height: 300,
        scales: { x: c.xLog ? { time: false, distr: 3, log: 10 } : { time: false } },
        legend: { live: false },
        cursor: { drag: { x: false, y: false } },
        axes: [
          xAxis(c),
          { label: c.yTitle, stroke: "#1f2328", grid: { stroke: "#e6e9ed", width: 1 }, ticks: { stroke: "#d1d9e0" }, size: axisSize }
        ],
        series: series
      };
      plots.push({ plot: new uPlot(opts, c.data, el), el: el });
      el.setAttribute("data-drawn", "true");
    } catch (e) {
      var p = document.createElement("p");
      p.className = "chart-error";
      p.textContent = "This chart could not be drawn: " + (e && e.message ? e.message : String(e));
      el.appendChild(p);
      console.error("caplab chart " + c.el + ": " + (e && e.stack ? e.stack : e));
    }
  });
  function resize(width) {
    plots.forEach(function (p) { p.plot.setSize({ width: width || widthOf(p.el), height: 300 }); });
  }
  var timer = 0;
  window.addEventListener("resize", function () { clearTimeout(timer); timer = setTimeout(function () { resize(); }, 150); });
  window.addEventListener("beforeprint", function () { resize(640); });
  window.addEventListener("afterprint", function () { resize(); });
  document.body.setAttribute("data-charts-drawn", String(plots.length));
})();
`;
