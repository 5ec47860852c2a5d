/**
 * The one filter for text that goes into the XML parts of an .xlsx we write (worksheets, shared
 * strings, tables, workbook.xml, docProps/core.xml, charts), by ExcelJS or by hand.
 *
 * XML 1.0 (§2.2, production [2] Char) allows #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] |
 * [#x10000-#x10FFFF]. Anything else in a part (a C0 control, U+FFFE, U+FFFF, a surrogate without
 * its pair) makes the part not well-formed: Excel "repairs" the file by dropping the part, and
 * strict readers refuse it. Neither ExcelJS nor an escape of & < > " ' removes them, so every
 * string from input (a title, an option name, a sheet name, a label, a header, a note, a number
 * format, a formula's text) passes through {@link xmlText} — the illegal characters become U+FFFD
 * (�), visibly — and the commands say so ({@link planXmlIllegal}).
 *
 * Browser-safe (the pane's values-only export uses it too).
 */
import type { CellValue, ChartPlan, SheetPlan, TablePlan, WorkbookPlan } from "../workbook/plan";

const ILLEGAL =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const ILLEGAL_ALL = new RegExp(ILLEGAL.source, "g");

/** The replacement character written in place of each character XML cannot hold. */
export const REPLACEMENT = "\uFFFD";

/** True when `text` holds a character XML 1.0 cannot hold. */
export function hasXmlIllegal(text: string): boolean {
  return ILLEGAL.test(text);
}

/**
 * Text as an XML part can hold it: each character XML 1.0 does not allow becomes U+FFFD.
 *
 * @example xmlText("a\uFFFFb\u0007") // => "a\uFFFDb\uFFFD"
 */
export function xmlText(text: string): string {
  return ILLEGAL.test(text) ? text.replace(ILLEGAL_ALL, REPLACEMENT) : text;
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };

/**
 * Text for an XML element or a (double- or single-quoted) attribute value: {@link xmlText}, then
 * & < > " ' as entities.
 *
 * @example xmlEscape('<a & "b"\uFFFE>') // => "&lt;a &amp; &quot;b&quot;\uFFFD&gt;"
 */
export function xmlEscape(text: string): string {
  return xmlText(text).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** Excel's limit on the characters in a cell. */
export const MAX_CELL_TEXT = 32767;

/** Text as a cell can hold it: {@link xmlText}, cut at Excel's 32,767 characters (ending "…"). */
export function cellText(text: string): string {
  const clean = xmlText(text);
  return clean.length > MAX_CELL_TEXT ? clean.slice(0, MAX_CELL_TEXT - 1) + "…" : clean;
}

/** A plan cell with its text (strings, formulas and their results) filtered. */
function cellXmlText(v: CellValue): CellValue {
  if (typeof v === "string") return xmlText(v);
  if (v === null || typeof v !== "object" || "error" in v) return v;
  const result = typeof v.result === "string" ? xmlText(v.result) : v.result;
  if ("formula" in v) return { ...v, formula: xmlText(v.formula), result };
  return { ...v, addinFormula: xmlText(v.addinFormula), result };
}

function tableXmlText(t: TablePlan): TablePlan {
  return {
    ...t,
    name: xmlText(t.name),
    columns: t.columns.map((c) => ({
      ...c,
      header: xmlText(c.header),
      ...(c.numFmt !== undefined ? { numFmt: xmlText(c.numFmt) } : {}),
      ...(c.description !== undefined ? { description: xmlText(c.description) } : {}),
    })),
    // Row-wise tables are the small ones (columnar data is filtered cell by cell as it is written).
    rows: t.rows.map((row) => row.map(cellXmlText)),
    ...(t.arrayFormula !== undefined ? { arrayFormula: xmlText(t.arrayFormula) } : {}),
  };
}

function chartXmlText(c: ChartPlan): ChartPlan {
  return {
    ...c,
    title: xmlText(c.title),
    xTitle: xmlText(c.xTitle),
    yTitle: xmlText(c.yTitle),
    series: c.series.map((s) => ({ ...s, name: xmlText(s.name) })),
  };
}

function sheetXmlText(s: SheetPlan): SheetPlan {
  return {
    ...s,
    name: xmlText(s.name),
    notes: s.notes.map(xmlText),
    ...(s.noteFormulas ? { noteFormulas: s.noteFormulas.map((f) => ({ ...f, formula: xmlText(f.formula) })) } : {}),
    tables: s.tables.map(tableXmlText),
    charts: s.charts.map(chartXmlText),
  };
}

/**
 * The plan with every text a writer puts into XML filtered by {@link xmlText} (a copy; the plan is
 * not modified). Columnar table data is left as it is: the writers pass each of its cells through
 * {@link cellText}.
 */
export function planXmlText(plan: WorkbookPlan): WorkbookPlan {
  return {
    ...plan,
    title: xmlText(plan.title),
    sources: plan.sources.map(xmlText),
    warnings: plan.warnings.map(xmlText),
    sheets: plan.sheets.map(sheetXmlText),
  };
}

function cellHasIllegal(v: CellValue): boolean {
  if (typeof v === "string") return hasXmlIllegal(v);
  if (v === null || typeof v !== "object" || "error" in v) return false;
  return (
    hasXmlIllegal("formula" in v ? v.formula : v.addinFormula) ||
    (typeof v.result === "string" && hasXmlIllegal(v.result))
  );
}

function columnarHasIllegal(t: TablePlan): boolean {
  // Distinct texts only: a million-row column of a few labels is a few tests.
  return (t.columnar?.data ?? []).some((column) => column.kind === "text" && column.texts.some(hasXmlIllegal));
}

function tablePlaces(sheet: string, t: TablePlan): string[] {
  const out: string[] = [];
  if (hasXmlIllegal(t.name)) out.push(`the name of a table on sheet ${sheet}`);
  const texts = t.columns.flatMap((c) => [c.header, c.numFmt ?? "", c.description ?? ""]);
  if (texts.some(hasXmlIllegal)) out.push(`a column header of table ${t.name}`);
  if (t.rows.some((row) => row.some(cellHasIllegal)) || columnarHasIllegal(t)) out.push(`cells of table ${t.name}`);
  return out;
}

/**
 * Where a plan holds characters XML cannot hold (each written as U+FFFD): "the title", "the sheet
 * name …", "the notes of sheet …", "chart titles or series names on sheet …", "cells of table …";
 * empty when there are none. For a message, so a replaced character is never silent.
 */
export function planXmlIllegal(plan: WorkbookPlan): string[] {
  const out: string[] = [];
  if (hasXmlIllegal(plan.title)) out.push("the title");
  for (const s of plan.sheets) {
    if (hasXmlIllegal(s.name)) out.push(`the sheet name ${JSON.stringify(xmlText(s.name))}`);
    const name = xmlText(s.name);
    if (s.notes.some(hasXmlIllegal)) out.push(`the notes of sheet ${name}`);
    const chartTexts = s.charts.flatMap((c) => [c.title, c.xTitle, c.yTitle, ...c.series.map((x) => x.name)]);
    if (chartTexts.some(hasXmlIllegal)) out.push(`chart titles or series names on sheet ${name}`);
    for (const t of s.tables) out.push(...tablePlaces(name, t));
  }
  return out;
}

/** The warning for {@link planXmlIllegal}'s places, or undefined when there are none. */
export function xmlIllegalWarning(places: string[]): string | undefined {
  if (places.length === 0) return undefined;
  return (
    `characters an .xlsx cannot hold (control characters, U+FFFE, U+FFFF or unpaired surrogates) in ` +
    `${places.join(", ")} are written as \uFFFD (U+FFFD)`
  );
}
