/**
 * The offline HTML report: structure, escaping of hostile imported text, no URLs or external
 * resources, number formats, and the chart data layout. The page is parsed with xmldom's HTML
 * mode (no script execution); the browser side is in html-screenshot.test.ts.
 */
import { DOMParser } from "@xmldom/xmldom";
import type { Document as XDocument, Element as XElement } from "@xmldom/xmldom";
import type { WorkbookPlan } from "../../src/workbook/plan";
import { alignSeries, escapeHtml, formatNumber, jsonForScript, renderHtml } from "../../src/report/html";
import { fixturePlan, HOSTILE_ATTR, HOSTILE_FORMULA, HOSTILE_SCRIPT } from "./html-fixture";

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    Object.values(value as object).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

/** A small query layer over xmldom (which has no querySelector): tag, then optional class. */
function all(root: XDocument | XElement, tag: string, cls?: string): XElement[] {
  const found = Array.from(root.getElementsByTagName(tag)) as XElement[];
  return cls ? found.filter((e) => (e.getAttribute("class") ?? "").split(" ").includes(cls)) : found;
}
function one(root: XDocument | XElement, tag: string, cls?: string): XElement {
  const [first] = all(root, tag, cls);
  if (!first) throw new Error(`no <${tag}${cls ? "." + cls : ""}>`);
  return first;
}
const text = (e: XElement) => e.textContent ?? "";
const cellsOf = (tr: XElement) => all(tr, "td");
const bodyRows = (table: XElement) => all(one(table, "tbody"), "tr");

function parse(page: string): XDocument {
  const errors: string[] = [];
  const doc = new DOMParser({ onError: (level, msg) => errors.push(`${level}: ${msg}`) }).parseFromString(
    page,
    "text/html",
  );
  if (errors.length > 0) throw new Error(`HTML parse errors: ${errors.join("; ")}`);
  return doc;
}

const plan = deepFreeze(fixturePlan());
const html = renderHtml(plan);
const document = parse(html);

describe("renderHtml structure", () => {
  test("is a complete UTF-8 document titled by the plan", () => {
    expect(html.startsWith("<!DOCTYPE html>\n")).toBe(true);
    expect(one(document, "meta").getAttribute("charset")).toBe("utf-8");
    expect(text(one(document, "title"))).toBe(plan.title);
    expect(text(one(document, "h1"))).toBe(plan.title);
  });

  test("one section per sheet, in order, with notes, and a table of contents", () => {
    const sections = all(document, "section", "sheet");
    expect(sections.map((s) => text(one(s, "h2")))).toEqual(["Steps", "Model", "Charts"]);
    expect(all(one(document, "nav", "toc"), "a").map((a) => a.getAttribute("href"))).toEqual([
      "#sheet-1",
      "#sheet-2",
      "#sheet-3",
    ]);
    expect(all(one(sections[0], "div", "notes"), "p").map(text)).toEqual(plan.sheets[0].notes);
  });

  test("sources and warnings are listed", () => {
    expect(all(one(document, "section", "sources"), "li").map(text)).toEqual(plan.sources);
    expect(all(one(document, "section", "warnings"), "li").map(text)).toEqual(plan.warnings);
  });

  test("tables have the plan's headers, descriptions as tooltips, and one row per plan row", () => {
    const tables = all(document, "table");
    expect(tables).toHaveLength(2);
    const steps = tables[0];
    expect(text(one(steps, "caption"))).toBe("Steps");
    const ths = all(steps, "th");
    expect(ths.map(text)).toEqual(plan.sheets[0].tables[0].columns.map((c) => c.header));
    expect(ths[4].getAttribute("title")).toBe("Achieved IOPS over the measure window");
    expect(bodyRows(steps)).toHaveLength(4);
  });

  test("cells are formatted with the column's number format", () => {
    const cells = cellsOf(bodyRows(all(document, "table")[0])[1]);
    expect(cells.map(text)).toEqual(["2", HOSTILE_SCRIPT, "100", "2,000", "1,998.7", "0.240", "9.8%", "TRUE"]);
    expect(cells[4].getAttribute("class")).toBe("num");
    const model = bodyRows(all(document, "table")[1]);
    // A formula cell shows its computed result and the formula as a tooltip; an error cell its code.
    expect(cellsOf(model[0])[1].getAttribute("title")).toBe("=C2/D2");
    expect(text(cellsOf(model[0])[1])).toBe(formatNumber((0.031 / 499.8) * 2000, "0.0000"));
    expect(text(cellsOf(model[3])[3])).toBe("#DIV/0!");
    expect(cellsOf(model[3])[3].getAttribute("class")).toBe("err");
  });

  test("one figure per chart, each with a drawing area and a caption", () => {
    const figures = all(document, "figure", "chart");
    const charts = plan.sheets[2].charts;
    expect(figures).toHaveLength(charts.length);
    expect(figures.map((f) => text(one(f, "figcaption")))).toEqual(charts.map((c) => c.title));
    const data = JSON.parse(text(document.getElementById("caplab-chart-data")!)) as {
      el: string;
      series: { name: string }[];
      data: number[][];
    }[];
    expect(data.map((d) => d.el)).toEqual(figures.map((f) => one(f, "div", "chart-area").getAttribute("id")));
    expect(data[0].series.map((s) => s.name)).toEqual(charts[0].series.map((s) => s.name));
    expect(data[0].data[0]).toEqual([0, 499.8, 500.4, 1000, 1998.7, 2000, 2001.2, 3000]);
    expect(data[0].data[1]).toEqual([null, 0.21, 0.35, null, 0.24, null, 0.52, null]);
  });

  test("rows beyond maxTableRows are left out with a note", () => {
    const d = parse(renderHtml(plan, { maxTableRows: 3 }));
    expect(bodyRows(all(d, "table")[0])).toHaveLength(3);
    expect(text(one(d, "p", "truncated"))).toBe("Showing the first 3 of 4 rows; the workbook has them all.");
  });

  test("a columnar table renders like the same rows (empty cells blank, texts escaped, truncation noted)", () => {
    const columnar: WorkbookPlan = {
      title: "Columnar",
      sources: [],
      warnings: [],
      sheets: [
        {
          name: "Subintervals",
          notes: [],
          charts: [],
          freezeHeader: true,
          tables: [
            {
              name: "Subintervals",
              at: { row: 0, col: 0 },
              columns: [
                { key: "label", header: "label", numFmt: "@" },
                { key: "iops", header: "IOPS", numFmt: "0.0" },
              ],
              rows: [],
              columnar: {
                length: 3,
                data: [
                  { kind: "text", codes: [0, 1, 0], texts: ["a", HOSTILE_SCRIPT] },
                  { kind: "number", values: [1.5, 0, 3.25], empty: [1] },
                ],
              },
            },
          ],
        },
      ],
    };
    const d = parse(renderHtml(columnar, { maxTableRows: 2 }));
    const rows = bodyRows(one(d, "table")).map((tr) => cellsOf(tr).map(text));
    expect(rows).toEqual([
      ["a", "1.5"],
      [HOSTILE_SCRIPT, ""],
    ]);
    expect(text(one(d, "p", "truncated"))).toBe("Showing the first 2 of 3 rows; the workbook has them all.");
  });

  test("an empty plan renders", () => {
    const empty: WorkbookPlan = { title: "Empty", sources: [], warnings: [], sheets: [] };
    const d = parse(renderHtml(empty));
    expect(text(one(d, "h1"))).toBe("Empty");
    expect(all(d, "section")).toHaveLength(0);
  });

  test("the plan is not modified and the output is deterministic", () => {
    expect(renderHtml(plan)).toBe(html);
  });
});

describe("renderHtml safety", () => {
  test("hostile text is escaped everywhere it appears, never markup", () => {
    // The only <script> elements are ours: the JSON data block, uPlot, and the chart script.
    expect(all(document, "script").map((s) => s.getAttribute("type"))).toEqual(["application/json", null, null]);
    expect(html).not.toContain(HOSTILE_SCRIPT);
    expect(html).toContain(escapeHtml(HOSTILE_SCRIPT));
    expect(html).not.toContain(HOSTILE_ATTR);
    expect(all(document, "*").filter((e) => e.hasAttribute("onmouseover"))).toHaveLength(0);
    // Still shown to the reader as the text it is.
    expect(text(all(one(document, "div", "notes"), "p")[1])).toBe(`Label seen: ${HOSTILE_SCRIPT}`);
    expect(all(all(document, "table")[0], "th")[1].getAttribute("title")).toBe(`label column ${HOSTILE_ATTR}`);
  });

  test("a formula-like label is plain text, not a link or formula", () => {
    const td = cellsOf(bodyRows(all(document, "table")[0])[0])[1];
    expect(text(td)).toBe(HOSTILE_FORMULA);
    expect(td.childNodes).toHaveLength(1); // one text node, no element
    expect(td.firstChild?.nodeType).toBe(3);
    expect(all(document, "a").filter((a) => /^http/i.test(a.getAttribute("href") ?? ""))).toHaveLength(0);
  });

  test("series names reach the chart script only as JSON data", () => {
    const block = text(document.getElementById("caplab-chart-data")!);
    expect(block).not.toMatch(/<\/?script/i);
    const data = JSON.parse(block) as { series: { name: string }[] }[];
    expect(data[0].series[1].name).toBe(`M/M/c model ${HOSTILE_SCRIPT}`);
  });

  test("no URL, external resource, inline handler, eval or innerHTML anywhere in the page", () => {
    // The hostile label holds "http://x" as text; apart from that data, no URL at all.
    const page = html.split(escapeHtml(HOSTILE_FORMULA)).join("");
    expect(html.split(escapeHtml(HOSTILE_FORMULA))).toHaveLength(2);
    expect(page).not.toMatch(/https?:\/\//i);
    expect(page).not.toMatch(/\/\/[a-z0-9.-]+\.[a-z]{2,}\//i); // protocol-relative
    expect(html).not.toMatch(/\burl\s*\(/i);
    expect(html).not.toMatch(/@import/i);
    expect(html).not.toMatch(/\beval\s*\(|new Function\s*\(|\.innerHTML\b|document\.write/);
    const elements = all(document, "*");
    expect(
      elements.filter((e) => e.hasAttribute("src") || e.hasAttribute("srcset") || e.hasAttribute("action")),
    ).toEqual([]);
    const external = ["link", "iframe", "object", "embed", "img", "base", "form", "video", "audio", "source"];
    expect(elements.filter((e) => external.includes(e.tagName.toLowerCase())).map((e) => e.tagName)).toEqual([]);
    expect(elements.filter((e) => Array.from(e.attributes).some((a) => /^on/i.test(a.name)))).toEqual([]);
    for (const a of all(document, "a")) expect(a.getAttribute("href")).toMatch(/^#sheet-\d+$/);
  });

  test("a Content-Security-Policy forbids every request and allows only the page's own blocks", () => {
    const meta = all(document, "meta").find((m) => m.getAttribute("http-equiv") === "Content-Security-Policy");
    const csp = meta!.getAttribute("content")!;
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*|http/);
    expect(csp.match(/script-src ([^;]*)/)![1].split(" ")).toHaveLength(2);
    expect(csp.match(/style-src ([^;]*)/)![1].split(" ")).toHaveLength(2);
  });

  test("uPlot's MIT licence notice is carried in the page", () => {
    expect(html).toContain("Copyright (c) 2022 Leon Sorokin");
    expect(html).toContain("Permission is hereby granted, free of charge");
  });
});

describe("escapeHtml and jsonForScript", () => {
  test("escapeHtml replaces the five markup characters", () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;",
    );
    expect(escapeHtml("plain")).toBe("plain");
  });

  test("jsonForScript round-trips and cannot close a script block", () => {
    const value = { a: "</script><!-- &", b: "\u2028\u2029", c: [1, 2.5, null] };
    const text = jsonForScript(value);
    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(text)).toEqual(value);
  });
});

describe("formatNumber", () => {
  test.each([
    [1234.5678, undefined, "1234.57"],
    [42, undefined, "42"],
    [1.5e15, undefined, "1.5E+15"],
    [1.5e12, undefined, "1500000000000"],
    [0.00001234, "General", "1.234E-5"],
    [1234.5678, "0", "1235"],
    // Digits inside quotes are literal text (ECMA-376 Part 1, §18.8.31: quoted strings are shown as is).
    [-5, '"£"#,##0;"not reachable (< 0)";"£"0', "not reachable (< 0)"],
    [7, '0" of 10"', "7 of 10"],
    [1234.5678, "0.00", "1234.57"],
    [1234.5678, "#,##0", "1,235"],
    [1234.5, "#,##0.0", "1,234.5"],
    [0.5, "0.###", "0.5"],
    [0.1234, "0.0%", "12.3%"],
    [0.1234, "0%", "12%"],
    [12345, "0.00E+00", "1.23E+04"],
    [0.00012345, "0.0E+0", "1.2E-4"],
    [2.5, '0.0" ms"', "2.5 ms"],
    // A negative section is used unsigned, as in Excel; a value that rounds to 0 there is shown as zero.
    [-3.25, "0.0;(0.0)", "(3.3)"],
    [-22066.4, '"£"#,##0;"\u2212£"#,##0;"£"0', "\u2212£22,066"],
    [-1e-10, '"£"#,##0;"\u2212£"#,##0;"£"0', "£0"],
    [-3.25, "0.0", "-3.3"],
    [7, "@", "7"],
    [45000, "yyyy-mm-dd", "45000"],
    // As the .xlsx writes them: NaN is no value (an empty cell), ±Infinity Excel's #NUM!.
    [NaN, "0.0", ""],
    [Infinity, "0.0", "#NUM!"],
    [-Infinity, "0.0", "#NUM!"],
    // Excel's third section is for zero; a section of quoted text only shows that text.
    [0, '"yes";"yes";"no"', "no"],
    [1, '"yes";"yes";"no"', "yes"],
    [0, '"£"#,##0;"\u2212£"#,##0;"£"0', "£0"],
    [-0.3, '"£"#,##0;"not reachable";"£"0', "not reachable"],
    [-136777, '"£"#,##0;"not reachable";"£"0', "not reachable"],
    [8115.2, '"£"#,##0;"not reachable";"£"0', "£8,115"],
    // A percentage with a true minus, as money has.
    [-0.052, '0.0%;"\u2212"0.0%', "\u22125.2%"],
    [0.6177, '0.0%;"\u2212"0.0%', "61.8%"],
  ])("formatNumber(%p, %p) = %p", (value, fmt, expected) => {
    expect(formatNumber(value, fmt)).toBe(expected);
  });
});

describe("alignSeries", () => {
  test("merges series onto ascending x, sharing rows at equal x, dropping non-finite points", () => {
    const aligned = alignSeries({
      series: [
        { x: [3, 1, 2], y: [30, 10, 20] },
        { x: [2, NaN, 5], y: [200, 1, 500] },
      ],
    });
    expect(aligned).toEqual({
      x: [1, 2, 3, 5],
      y: [
        [10, 20, 30, null],
        [null, 200, null, 500],
      ],
    });
  });

  test("time series of several steps on one grid take one row per time", () => {
    const t = [0, 1, 2, 3];
    const aligned = alignSeries({ series: [1, 2, 3].map((k) => ({ x: t, y: t.map((v) => v * k) })) });
    expect(aligned.x).toEqual(t);
    expect(aligned.y[2]).toEqual([0, 3, 6, 9]);
  });

  test("keeps two points at the same x in one series", () => {
    expect(alignSeries({ series: [{ x: [500, 500], y: [1, 2] }] })).toEqual({ x: [500, 500], y: [[1, 2]] });
    expect(
      alignSeries({
        series: [
          { x: [500, 500, 700], y: [1, 2, 3] },
          { x: [500], y: [9] },
        ],
      }),
    ).toEqual({
      x: [500, 500, 700],
      y: [
        [1, 2, 3],
        [9, null, null],
      ],
    });
  });
});
