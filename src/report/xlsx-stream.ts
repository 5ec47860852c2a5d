/**
 * Streaming .xlsx writer for large plans: SpreadsheetML written as text straight from the plan
 * (ECMA-376 Part 1, §18: worksheet, styles, shared strings), zipped on the fly by archiver.
 *
 * Why not ExcelJS's streaming writer: it builds a model object per row and per cell and looks a
 * style up per cell; it wrote 190,000–245,000 cells/s here whatever its options (shared or
 * inline strings, a number format per cell or per column; 1 M cells, docs/benchmarks.md), so a
 * 1,000,000-row subinterval table (~40 M cells) took minutes. This writer emits each cell as one
 * short string (`<c r="B7" s="3"><v>0.125</v></c>`) and deflates at level 1.
 *
 * What it writes is what the ExcelJS streaming path wrote: per sheet the notes in column A, each
 * table's header row (bold white on blue) and cells with the column's number format, the first
 * table's header frozen, column widths, landscape fit-to-width page setup, and an autofilter on
 * the largest table (no Excel table objects, as before). Strings go to the shared-string table
 * (each distinct text once), formulas with their cached result, errors as error cells. Every
 * string is text, never a formula (the same rule as `xlsx.ts`).
 *
 * Cost: O(cells) time; memory O(distinct strings + one batch of rows).
 */
import archiver from "archiver";
import { Readable } from "stream";
import {
  CellPosition,
  CellValue,
  columnLetter,
  rangeA1,
  SheetPlan,
  TablePlan,
  tableCell,
  tableRowCount,
  WorkbookPlan,
} from "../workbook/plan";
import { cellNumber } from "../core/finite";
import { xmlEscape } from "./xml-text";

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const NS_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
const NS_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const NS_PKG_REL = "http://schemas.openxmlformats.org/package/2006/relationships";

/** XML text: the one filter of characters XML cannot hold (xml-text.ts), then & < > " ' escaped. */
const esc = xmlEscape;

/** Options of {@link writeXlsxStream}: how text cells are made safe, column widths. */
export interface StreamSheetHelpers {
  /** Text as a cell may hold it (XML-invalid characters replaced, Excel's length limit). */
  cellText(text: string): string;
  /** Unique, non-empty table headers. */
  uniqueHeaders(headers: readonly string[]): string[];
  /** Column widths of a sheet (characters). */
  sheetWidths(sheet: SheetPlan): number[];
}

/** The styles: 0 default, 1 header, 2 title note, then one per number format. */
class Styles {
  private readonly formats = new Map<string, number>();
  readonly xfOf = new Map<string, number>();

  constructor(plan: WorkbookPlan) {
    for (const sheet of plan.sheets)
      for (const t of sheet.tables)
        for (const c of t.columns) if (c.numFmt && !this.xfOf.has(c.numFmt)) this.add(c.numFmt);
  }

  private add(numFmt: string): void {
    const builtIn: Record<string, number> = { General: 0, "0": 1, "0.00": 2, "#,##0": 3, "#,##0.00": 4, "@": 49 };
    const id = builtIn[numFmt] ?? 164 + this.formats.size;
    if (builtIn[numFmt] === undefined) this.formats.set(numFmt, id);
    this.xfOf.set(numFmt, 3 + this.xfOf.size);
    this.ids.push(id);
  }

  private readonly ids: number[] = [];

  xml(): string {
    const numFmts = [...this.formats].map(([f, id]) => `<numFmt numFmtId="${id}" formatCode="${esc(f)}"/>`).join("");
    const xfs = this.ids
      .map((id) => `<xf numFmtId="${id}" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>`)
      .join("");
    return (
      `${XML_HEAD}<styleSheet xmlns="${NS_MAIN}">` +
      (this.formats.size > 0 ? `<numFmts count="${this.formats.size}">${numFmts}</numFmts>` : "") +
      '<fonts count="3"><font><sz val="11"/><name val="Calibri"/></font>' +
      '<font><b/><sz val="11"/><color rgb="FFFFFFFF"/><name val="Calibri"/></font>' +
      '<font><b/><sz val="13"/><name val="Calibri"/></font></fonts>' +
      '<fills count="3"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill>' +
      '<fill><patternFill patternType="solid"><fgColor rgb="FF2F5597"/><bgColor indexed="64"/></patternFill></fill></fills>' +
      '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
      '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
      `<cellXfs count="${3 + this.ids.length}"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>` +
      '<xf numFmtId="0" fontId="1" fillId="2" borderId="0" xfId="0" applyFont="1" applyFill="1" applyAlignment="1"><alignment vertical="center"/></xf>' +
      '<xf numFmtId="0" fontId="2" fillId="0" borderId="0" xfId="0" applyFont="1"/>' +
      `${xfs}</cellXfs>` +
      '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>'
    );
  }
}

/** Each distinct text once; cells refer to it by index. */
class SharedStrings {
  private readonly index = new Map<string, number>();
  private readonly texts: string[] = [];
  count = 0;

  of(text: string): number {
    this.count++;
    let i = this.index.get(text);
    if (i === undefined) {
      i = this.texts.length;
      this.texts.push(text);
      this.index.set(text, i);
    }
    return i;
  }

  xml(): string {
    const items = this.texts.map((t) => `<si><t xml:space="preserve">${esc(t)}</t></si>`).join("");
    return `${XML_HEAD}<sst xmlns="${NS_MAIN}" count="${this.count}" uniqueCount="${this.texts.length}">${items}</sst>`;
  }
}

interface Placed {
  table: TablePlan;
  at: CellPosition;
}

/** A sheet's tables with their positions (the plan's `at`). */
function placeTables(sheet: SheetPlan): Placed[] {
  return sheet.tables.map((table) => ({ table, at: table.at }));
}

/** One sheet's XML, produced in pieces of about 64 KiB. */
function* sheetXml(
  sheet: SheetPlan,
  styles: Styles,
  strings: SharedStrings,
  h: StreamSheetHelpers,
  advance: (cells: number) => void,
): Generator<string> {
  const placed = placeTables(sheet);
  const first = placed[0];
  const largest = placed.reduce<Placed | undefined>(
    (a, b) => (a === undefined || tableRowCount(b.table) > tableRowCount(a.table) ? b : a),
    undefined,
  );
  const pane =
    sheet.freezeHeader && first
      ? `<pane ySplit="${first.at.row + 1}" topLeftCell="A${first.at.row + 2}" activePane="bottomLeft" state="frozen"/>`
      : "";
  // Columns of hidden (chart data) tables are written and hidden.
  const hidden = new Set(sheet.tables.filter((t) => t.hidden).flatMap((t) => t.columns.map((_, j) => t.at.col + j)));
  const cols = h
    .sheetWidths(sheet)
    .map(
      (w, j) =>
        `<col min="${j + 1}" max="${j + 1}" width="${w}" customWidth="1"${hidden.has(j) ? ` hidden="1"` : ""}/>`,
    )
    .join("");
  yield (
    `${XML_HEAD}<worksheet xmlns="${NS_MAIN}" xmlns:r="${NS_REL}"><sheetPr><pageSetUpPr fitToPage="1"/></sheetPr>` +
    `<sheetViews><sheetView workbookViewId="0">${pane}</sheetView></sheetViews><sheetFormatPr defaultRowHeight="15"/>` +
    (cols ? `<cols>${cols}</cols>` : "") +
    "<sheetData>"
  );
  const lastRow = Math.max(
    sheet.notes.length - 1,
    ...placed.map((p) => p.at.row + Math.max(tableRowCount(p.table), 1)),
  );
  const letters = Array.from({ length: Math.max(1, ...placed.map((p) => p.at.col + p.table.columns.length)) }, (_, j) =>
    columnLetter(j),
  );
  const headers = placed.map((p) => h.uniqueHeaders(p.table.columns.map((c) => c.header)));
  const xfs = placed.map((p) => p.table.columns.map((c) => (c.numFmt ? (styles.xfOf.get(c.numFmt) ?? 0) : 0)));
  let out = "";
  let cellsOut = 0;
  for (let r = 0; r <= lastRow; r++) {
    const rowNo = r + 1;
    let cells = "";
    if (r < sheet.notes.length) cells += stringCell(`A${rowNo}`, h.cellText(sheet.notes[r]), r === 0 ? 2 : 0, strings);
    for (let k = 0; k < placed.length; k++) {
      const { table, at } = placed[k];
      const n = tableRowCount(table);
      if (r === at.row) {
        for (let j = 0; j < table.columns.length; j++)
          cells += stringCell(`${letters[at.col + j]}${rowNo}`, headers[k][j], 1, strings);
        cellsOut += table.columns.length;
      } else if (r > at.row && r <= at.row + n) {
        cellsOut += table.columns.length;
        const i = r - at.row - 1;
        const rowXfs = xfs[k];
        for (let j = 0; j < table.columns.length; j++) {
          cells += cellXml(`${letters[at.col + j]}${rowNo}`, tableCell(table, i, j), rowXfs[j], strings, h);
        }
      } else if (r === at.row + 1 && n === 0) {
        cells += stringCell(`${letters[at.col]}${rowNo}`, "(no rows)", 0, strings);
      }
    }
    if (cells !== "") out += `<row r="${rowNo}">${cells}</row>`;
    if (out.length > 65536) {
      yield out;
      out = "";
      advance(cellsOut);
      cellsOut = 0;
    }
  }
  out += "</sheetData>";
  if (largest && tableRowCount(largest.table) > 0) {
    const { at, table } = largest;
    out += `<autoFilter ref="${filterRef(at, table)}"/>`;
  }
  out +=
    '<pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/>' +
    '<pageSetup paperSize="9" orientation="landscape" fitToWidth="1" fitToHeight="0"/></worksheet>';
  yield out;
  advance(cellsOut);
}

/** The range of a table with its header, for an autofilter (`sheet`: absolute and on that sheet). */
function filterRef(at: CellPosition, table: TablePlan, sheet?: string): string {
  const last = { row: at.row + tableRowCount(table), col: at.col + table.columns.length - 1 };
  return rangeA1(at, last, sheet === undefined ? {} : { absolute: true, sheet });
}

function stringCell(ref: string, text: string, xf: number, strings: SharedStrings): string {
  return `<c r="${ref}"${xf ? ` s="${xf}"` : ""} t="s"><v>${strings.of(text)}</v></c>`;
}

/** One cell's XML; "" for an empty cell. Strings are always string cells (never formulas). */
function cellXml(ref: string, v: CellValue, xf: number, strings: SharedStrings, h: StreamSheetHelpers): string {
  const s = xf ? ` s="${xf}"` : "";
  if (v === null || v === undefined) return "";
  if (typeof v === "number") {
    const c = cellNumber(v); // never Infinity or NaN in a cell: #NUM! or nothing
    return c === null
      ? ""
      : c === "#NUM!"
        ? `<c r="${ref}"${s} t="e"><v>${c}</v></c>`
        : `<c r="${ref}"${s}><v>${c}</v></c>`;
  }
  if (typeof v === "string") return stringCell(ref, h.cellText(v), xf, strings);
  if (typeof v === "boolean") return `<c r="${ref}"${s} t="b"><v>${v ? 1 : 0}</v></c>`;
  if ("error" in v) return `<c r="${ref}"${s} t="e"><v>${esc(v.error)}</v></c>`;
  // An add-in formula (CAPLAB.*) means nothing outside Excel with the add-in: its value, as xlsx.ts writes it.
  if ("addinFormula" in v) return cellXml(ref, v.result, xf, strings, h);
  const f = `<f>${esc(v.formula.replace(/^=/, ""))}</f>`;
  const result = typeof v.result === "number" ? cellNumber(v.result) : null;
  if (typeof result === "number") return `<c r="${ref}"${s}>${f}<v>${result}</v></c>`;
  if (result === "#NUM!") return `<c r="${ref}"${s} t="e">${f}<v>${result}</v></c>`;
  if (typeof v.result === "string") return `<c r="${ref}"${s} t="str">${f}<v>${esc(h.cellText(v.result))}</v></c>`;
  return `<c r="${ref}"${s}>${f}</c>`;
}

function workbookXml(plan: WorkbookPlan): string {
  const sheets = plan.sheets.map((s, i) => `<sheet name="${esc(s.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`);
  const filters = plan.sheets
    .map((sheet, i) => {
      const placed = placeTables(sheet);
      const largest = placed.reduce<Placed | undefined>(
        (a, b) => (a === undefined || tableRowCount(b.table) > tableRowCount(a.table) ? b : a),
        undefined,
      );
      if (!largest || tableRowCount(largest.table) === 0) return "";
      const ref = filterRef(largest.at, largest.table, sheet.name);
      return `<definedName name="_xlnm._FilterDatabase" localSheetId="${i}" hidden="1">${esc(ref)}</definedName>`;
    })
    .join("");
  return (
    `${XML_HEAD}<workbook xmlns="${NS_MAIN}" xmlns:r="${NS_REL}"><bookViews><workbookView/></bookViews>` +
    `<sheets>${sheets.join("")}</sheets>${filters ? `<definedNames>${filters}</definedNames>` : ""}</workbook>`
  );
}

function packageParts(plan: WorkbookPlan): { types: string; rels: string; workbookRels: string; core: string } {
  const n = plan.sheets.length;
  const sheetTypes = plan.sheets
    .map(
      (_, i) =>
        `<Override PartName="/xl/worksheets/sheet${i + 1}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`,
    )
    .join("");
  const types =
    `${XML_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
    '<Default Extension="xml" ContentType="application/xml"/>' +
    '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
    sheetTypes +
    '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>' +
    '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>' +
    '<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>' +
    "</Types>";
  const rels =
    `${XML_HEAD}<Relationships xmlns="${NS_PKG_REL}">` +
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>' +
    '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/>' +
    "</Relationships>";
  const sheetRels = plan.sheets
    .map(
      (_, i) =>
        `<Relationship Id="rId${i + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`,
    )
    .join("");
  const workbookRels =
    `${XML_HEAD}<Relationships xmlns="${NS_PKG_REL}">${sheetRels}` +
    `<Relationship Id="rId${n + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>` +
    `<Relationship Id="rId${n + 2}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/>` +
    "</Relationships>";
  const core =
    `${XML_HEAD}<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" ` +
    'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" ' +
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">' +
    `<dc:title>${esc(plan.title)}</dc:title><dc:creator>Capacity Lab</dc:creator>` +
    '<dcterms:created xsi:type="dcterms:W3CDTF">1970-01-01T00:00:00Z</dcterms:created></cp:coreProperties>';
  return { types, rels, workbookRels, core };
}

/**
 * The plan as .xlsx, a stream of bytes produced as it is read (the sheets' XML is made lazily,
 * about 64 KiB at a time, so memory stays flat however long the tables are).
 *
 * @param plan - the workbook plan
 * @param helpers - the text, header and width rules shared with the in-memory writer
 * @param progress - called as the sheets are written (about every 64 KiB of XML): the table cells
 *   written so far (header cells included, as {@link planCells} counts them) and the sheet's name
 * @returns the .xlsx bytes as a stream (errors are emitted on it)
 */
export function xlsxStream(
  plan: WorkbookPlan,
  helpers: StreamSheetHelpers,
  progress: (cellsWritten: number, sheet: string) => void = () => undefined,
): Readable {
  const styles = new Styles(plan);
  const strings = new SharedStrings();
  const zip = archiver("zip", { zlib: { level: 1 } });
  const parts = packageParts(plan);
  let written = 0;
  zip.append(parts.types, { name: "[Content_Types].xml" });
  zip.append(parts.rels, { name: "_rels/.rels" });
  zip.append(parts.core, { name: "docProps/core.xml" });
  zip.append(workbookXml(plan), { name: "xl/workbook.xml" });
  zip.append(parts.workbookRels, { name: "xl/_rels/workbook.xml.rels" });
  zip.append(styles.xml(), { name: "xl/styles.xml" });
  plan.sheets.forEach((sheet, i) => {
    const xml = sheetXml(sheet, styles, strings, helpers, (cells) => {
      written += cells;
      progress(written, sheet.name);
    });
    zip.append(Readable.from(xml), { name: `xl/worksheets/sheet${i + 1}.xml` });
  });
  // Read after the sheets (archiver takes the entries in order), so every string is known.
  zip.append(
    Readable.from(
      (function* () {
        yield strings.xml();
      })(),
    ),
    { name: "xl/sharedStrings.xml" },
  );
  // finalize() settles when the archive is read to the end; a failure is also the stream's 'error'.
  zip.finalize().catch(() => undefined);
  return zip;
}
