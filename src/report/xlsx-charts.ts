/**
 * Native Excel charts for an .xlsx written by ExcelJS, which writes none (exceljs#141): each
 * {@link ChartPlan} with a `source` (a table and its columns) becomes a DrawingML scatter chart
 * with lines whose series refer to the sheet's cells, so the chart follows the numbers when an
 * input changes (in Excel and in LibreOffice) and shows the cached values before any
 * recalculation.
 *
 * What is added to the package (ECMA-376 Part 1, §21.2 charts, §20.5 spreadsheet drawing):
 * `xl/charts/chartN.xml`, `xl/drawings/drawingN.xml` with its relationships, a relationship from
 * the worksheet to its drawing and a `<drawing>` element placed where CT_Worksheet expects it
 * (before legacyDrawing / tableParts), and the two content types. Each chart is anchored below
 * the sheet's lowest table, 16.5 × 9 cm (18 default rows high), one below the other. A series is drawn over its `cells`
 * (a hidden helper table: `plotVisOnly` is off so hidden columns are drawn) or its chart's `source`
 * columns; series with neither, and charts with no such series, are skipped (the HTML report still
 * draws them).
 */
import JSZip from "jszip";
import {
  cellA1,
  ChartPlan,
  rangeA1,
  rowBelow,
  rowBelowTable,
  SheetPlan,
  tableRowCount,
  WorkbookPlan,
} from "../workbook/plan";
import { xmlEscape, xmlText } from "./xml-text";

const NS_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const CT_CHART = "application/vnd.openxmlformats-officedocument.drawingml.chart+xml";
const CT_DRAWING = "application/vnd.openxmlformats-officedocument.drawing+xml";

/** Text for the chart XML: the one filter of characters XML cannot hold, then entities. */
const xml = xmlEscape;

/** `'Sheet name'!$C$5:$C$9` with the sheet name quoted as Excel requires. */
function ref(sheet: string, row0: number, col: number, row1 = row0): string {
  const options = { absolute: true, sheet };
  return row1 === row0 ? cellA1({ row: row0, col }, options) : rangeA1({ row: row0, col }, { row: row1, col }, options);
}

function numCache(values: number[], format: string): string {
  const pts = values.map((v, i) => (Number.isFinite(v) ? `<c:pt idx="${i}"><c:v>${v}</c:v></c:pt>` : "")).join("");
  return `<c:numCache><c:formatCode>${xml(format)}</c:formatCode><c:ptCount val="${values.length}"/>${pts}</c:numCache>`;
}

function title(text: string): string {
  return `<c:title><c:tx><c:rich><a:bodyPr/><a:lstStyle/><a:p><a:pPr><a:defRPr b="1"/></a:pPr><a:r><a:rPr lang="en-GB" b="1"/><a:t>${xml(text)}</a:t></a:r></a:p></c:rich></c:tx><c:overlay val="0"/></c:title>`;
}

/** One chart as DrawingML needs it: titles, the y format, and each series' cell ranges with cached values. */
export interface ChartSpec {
  title: string;
  xTitle: string;
  yTitle: string;
  /** Number format of the y values and axis ("General" when unknown). */
  yFormat: string;
  /** A base-10 logarithmic x axis. */
  xLog?: boolean;
  series: {
    name: string;
    /** The cell holding the name (`'Sheet'!$C$5`), when there is one. */
    nameRef?: string;
    /** `'Sheet'!$B$6:$B$9`: what the series draws, live. */
    xRef: string;
    yRef: string;
    /** The values now (the cache shown before any recalculation). */
    x: number[];
    y: number[];
    /** Lines between the markers (false: markers only). */
    lines: boolean;
    /** Markers at the points (false: a line alone, e.g. a fitted curve of many points). */
    markers?: boolean;
  }[];
}

/** Series colours (Office theme accents, with red and purple for the knees after the curves), so every renderer tells series apart. */
const PALETTE = ["4472C4", "ED7D31", "C00000", "70AD47", "7030A0", "FFC000", "264478", "A5A5A5"];

/** An axis' number format: the values' own, or General when it has more than two decimals (axis labels need fewer). */
function axisFormat(format: string): string {
  return /\.0{3,}/.test(format) ? "General" : format;
}

/** The chart part (a scatter chart with markers and lines) for a spec. */
export function scatterChartXml(spec: ChartSpec): string {
  const xs = spec.series[0]?.x ?? [];
  const wholeX = !spec.xLog && xs.length > 0 && xs.every(Number.isInteger) && Math.max(...xs) - Math.min(...xs) <= 60;
  const series = spec.series
    .map((s, i) => {
      const name = s.nameRef
        ? `<c:tx><c:strRef><c:f>${xml(s.nameRef)}</c:f><c:strCache><c:ptCount val="1"/><c:pt idx="0"><c:v>${xml(s.name)}</c:v></c:pt></c:strCache></c:strRef></c:tx>`
        : `<c:tx><c:v>${xml(s.name)}</c:v></c:tx>`;
      // Explicit colours: LibreOffice gives every marker of a scatter chart the same default colour.
      const color = `<a:solidFill><a:srgbClr val="${PALETTE[i % PALETTE.length]}"/></a:solidFill>`;
      return (
        `<c:ser><c:idx val="${i}"/><c:order val="${i}"/>${name}` +
        `<c:spPr><a:ln w="19050">${s.lines ? color : "<a:noFill/>"}</a:ln></c:spPr>` +
        (s.markers === false
          ? `<c:marker><c:symbol val="none"/></c:marker>`
          : `<c:marker><c:symbol val="${i === 0 ? "circle" : "diamond"}"/><c:size val="${i === 0 ? 6 : 9}"/><c:spPr>${color}<a:ln>${color}</a:ln></c:spPr></c:marker>`) +
        `<c:xVal><c:numRef><c:f>${xml(s.xRef)}</c:f>${numCache(s.x, "General")}</c:numRef></c:xVal>` +
        `<c:yVal><c:numRef><c:f>${xml(s.yRef)}</c:f>${numCache(s.y, spec.yFormat)}</c:numRef></c:yVal>` +
        `<c:smooth val="0"/></c:ser>`
      );
    })
    .join("");
  const axis = (
    id: number,
    cross: number,
    pos: "b" | "l",
    name: string,
    format: string,
    extra: string,
    range = "",
    log = false,
  ): string =>
    `<c:valAx><c:axId val="${id}"/><c:scaling>${log ? `<c:logBase val="10"/>` : ""}<c:orientation val="minMax"/>${range}</c:scaling><c:delete val="0"/>` +
    `<c:axPos val="${pos}"/>${pos === "l" ? "<c:majorGridlines/>" : ""}${title(name)}` +
    `<c:numFmt formatCode="${xml(format)}" sourceLinked="0"/><c:majorTickMark val="out"/><c:minorTickMark val="none"/>` +
    `<c:tickLblPos val="nextTo"/><c:crossAx val="${cross}"/><c:crosses val="autoZero"/><c:crossBetween val="midCat"/>${extra}</c:valAx>`;
  return (
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n` +
    `<c:chartSpace xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="${NS_REL}">` +
    `<c:roundedCorners val="0"/><c:chart>${title(spec.title)}<c:autoTitleDeleted val="0"/><c:plotArea><c:layout/>` +
    `<c:scatterChart><c:scatterStyle val="lineMarker"/><c:varyColors val="0"/>${series}<c:axId val="500100"/><c:axId val="500200"/></c:scatterChart>` +
    axis(
      500100,
      500200,
      "b",
      spec.xTitle,
      wholeX ? "0" : "General",
      wholeX ? `<c:majorUnit val="1"/>` : "",
      wholeX ? `<c:max val="${Math.max(...xs)}"/><c:min val="${Math.min(...xs)}"/>` : "",
      spec.xLog === true,
    ) +
    axis(500200, 500100, "l", spec.yTitle, axisFormat(spec.yFormat), "") +
    `</c:plotArea><c:legend><c:legendPos val="b"/><c:overlay val="0"/></c:legend><c:plotVisOnly val="0"/><c:dispBlanksAs val="gap"/></c:chart></c:chartSpace>`
  );
}

/** A horizontal bar chart (a tornado): categories top to bottom, bars drawn from `base`. */
export interface BarChartSpec {
  title: string;
  /** Title of the value axis. */
  valueTitle: string;
  valueFormat: string;
  /** The cells holding the category names, and the names now. */
  categoriesRef: string;
  categories: string[];
  /** The value the bars start from: the category axis crosses the value axis there. */
  base: number;
  series: { name: string; nameRef?: string; valuesRef: string; values: number[] }[];
}

const BAR_COLOURS = ["2F5597", "C55A11", "548235", "7030A0"];

/**
 * The chart part of a horizontal bar chart (DrawingML `barChart` with `barDir="bar"`, ECMA-376
 * §21.2.2.16): bars of each category side by side, drawn from where the category axis crosses
 * the value axis (`crossesAt` = base on the category axis, §21.2.2.34), the first category on
 * top (`orientation maxMin`), its labels at the left edge (`tickLblPos low`).
 */
export function barChartXml(spec: BarChartSpec): string {
  const cats = spec.categories.map((c, i) => `<c:pt idx="${i}"><c:v>${xml(c)}</c:v></c:pt>`).join("");
  const series = spec.series
    .map((s, i) => {
      const name = s.nameRef
        ? `<c:tx><c:strRef><c:f>${xml(s.nameRef)}</c:f><c:strCache><c:ptCount val="1"/><c:pt idx="0"><c:v>${xml(s.name)}</c:v></c:pt></c:strCache></c:strRef></c:tx>`
        : `<c:tx><c:v>${xml(s.name)}</c:v></c:tx>`;
      return (
        `<c:ser><c:idx val="${i}"/><c:order val="${i}"/>${name}` +
        `<c:spPr><a:solidFill><a:srgbClr val="${BAR_COLOURS[i % BAR_COLOURS.length]}"/></a:solidFill></c:spPr>` +
        `<c:invertIfNegative val="0"/>` +
        `<c:cat><c:strRef><c:f>${xml(spec.categoriesRef)}</c:f><c:strCache><c:ptCount val="${spec.categories.length}"/>${cats}</c:strCache></c:strRef></c:cat>` +
        `<c:val><c:numRef><c:f>${xml(s.valuesRef)}</c:f>${numCache(s.values, spec.valueFormat)}</c:numRef></c:val></c:ser>`
      );
    })
    .join("");
  return (
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n` +
    `<c:chartSpace xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="${NS_REL}">` +
    `<c:roundedCorners val="0"/><c:chart>${title(spec.title)}<c:autoTitleDeleted val="0"/><c:plotArea><c:layout/>` +
    `<c:barChart><c:barDir val="bar"/><c:grouping val="clustered"/><c:varyColors val="0"/>${series}` +
    `<c:gapWidth val="60"/><c:overlap val="100"/><c:axId val="500100"/><c:axId val="500200"/></c:barChart>` +
    `<c:catAx><c:axId val="500100"/><c:scaling><c:orientation val="maxMin"/></c:scaling><c:delete val="0"/>` +
    `<c:axPos val="l"/><c:numFmt formatCode="General" sourceLinked="0"/><c:majorTickMark val="none"/><c:minorTickMark val="none"/>` +
    `<c:tickLblPos val="low"/><c:crossAx val="500200"/><c:crossesAt val="${spec.base}"/><c:auto val="1"/><c:lblAlgn val="ctr"/>` +
    `<c:lblOffset val="100"/><c:noMultiLvlLbl val="0"/></c:catAx>` +
    `<c:valAx><c:axId val="500200"/><c:scaling><c:orientation val="minMax"/></c:scaling><c:delete val="0"/>` +
    `<c:axPos val="b"/><c:majorGridlines/>${title(spec.valueTitle)}` +
    `<c:numFmt formatCode="${xml(spec.valueFormat)}" sourceLinked="0"/><c:majorTickMark val="out"/><c:minorTickMark val="none"/>` +
    `<c:tickLblPos val="nextTo"/><c:crossAx val="500100"/><c:crosses val="max"/><c:crossBetween val="between"/></c:valAx>` +
    `</c:plotArea><c:legend><c:legendPos val="b"/><c:overlay val="0"/></c:legend><c:plotVisOnly val="1"/><c:dispBlanksAs val="gap"/></c:chart></c:chartSpace>`
  );
}

/** A bar chart plan (a tornado) over its source table: categories from `xColumn`, one series per y column. */
function barXmlOf(
  chart: ChartPlan,
  sheet: SheetPlan,
  table: SheetPlan["tables"][number],
  source: NonNullable<ChartPlan["source"]>,
): string | undefined {
  const at = table.at;
  const col = (key: string): number => table.columns.findIndex((c) => c.key === key);
  const xCol = col(source.xColumn);
  const yCols = source.yColumns.map(col);
  const n = tableRowCount(table);
  if (xCol < 0 || yCols.some((c) => c < 0) || n === 0) return undefined;
  const first = at.row + 1;
  const last = at.row + n;
  return barChartXml({
    title: chart.title,
    valueTitle: chart.yTitle,
    valueFormat: table.columns[yCols[0]]?.numFmt ?? "General",
    categoriesRef: ref(sheet.name, first, at.col + xCol, last),
    categories: chart.categories ?? [],
    base: chart.base ?? 0,
    series: yCols.map((c, i) => ({
      name: chart.series[i]?.name ?? table.columns[c].header,
      valuesRef: ref(sheet.name, first, at.col + c, last),
      values: chart.series[i]?.y ?? [],
    })),
  });
}

/** A series' cells as the chart refers to them: the table's x and y ranges over `n` rows, and the name cell. */
function seriesCells(
  sheet: SheetPlan,
  tableName: string,
  xKey: string,
  yKey: string,
  n: number,
): { nameRef: string; xRef: string; yRef: string; numFmt?: string } | undefined {
  const table = sheet.tables.find((t) => t.name === tableName);
  if (!table || n === 0) return undefined;
  const xCol = table.columns.findIndex((c) => c.key === xKey);
  const yCol = table.columns.findIndex((c) => c.key === yKey);
  if (xCol < 0 || yCol < 0) return undefined;
  const at = table.at;
  return {
    nameRef: ref(sheet.name, at.row, at.col + yCol),
    xRef: ref(sheet.name, at.row + 1, at.col + xCol, at.row + n),
    yRef: ref(sheet.name, at.row + 1, at.col + yCol, at.row + n),
    numFmt: table.columns[yCol].numFmt,
  };
}

/**
 * The chart part for one chart plan on `sheet`; undefined when none of its series can be drawn
 * over cells. A series is drawn over its `cells` (a helper table) when it has them, else over the
 * chart's `source` columns (all rows of the source table); a series with neither is left out.
 */
export function chartXml(chart: ChartPlan, sheet: SheetPlan): string | undefined {
  const source = chart.source;
  const sourceTable = source ? sheet.tables.find((t) => t.name === source.table) : undefined;
  if (chart.kind === "bar") return sourceTable && source ? barXmlOf(chart, sheet, sourceTable, source) : undefined;
  const series: ChartSpec["series"] = [];
  let yFormat: string | undefined;
  chart.series.forEach((s, i) => {
    const yKey = source?.yColumns[i];
    const cells = s.cells
      ? seriesCells(sheet, s.cells.table, s.cells.x, s.cells.y, s.x.length)
      : source && sourceTable && yKey !== undefined
        ? seriesCells(sheet, source.table, source.xColumn, yKey, tableRowCount(sourceTable))
        : undefined;
    if (!cells) return;
    // A series over its own cells is named by the plan (the helper table's header is for people
    // reading the hidden columns); one over a result table's column by that column's header cell.
    series.push({
      name: s.cells ? s.name : (sourceTable?.columns.find((c) => c.key === yKey)?.header ?? s.name),
      ...(s.cells ? {} : { nameRef: cells.nameRef }),
      xRef: cells.xRef,
      yRef: cells.yRef,
      x: s.x,
      y: s.y,
      lines: s.style !== "points",
      markers: s.style !== "line",
    });
    if (!s.cells) yFormat ??= cells.numFmt;
  });
  if (series.length === 0) return undefined;
  return scatterChartXml({
    title: chart.title,
    xTitle: chart.xTitle,
    yTitle: chart.yTitle,
    yFormat: yFormat ?? "General",
    xLog: chart.xLog === true,
    series,
  });
}

/** The first sheet row below every table (and the notes). */
function belowTables(sheet: SheetPlan): number {
  // Hidden (chart data) tables sit to the right and are not seen: the charts go below the others.
  return Math.max(rowBelow(0, sheet.notes.length), ...sheet.tables.filter((t) => !t.hidden).map(rowBelowTable));
}

/** A chart's size in EMU (16.5 × 9 cm: 18 default rows high), whatever the widths of the columns under it. */
const CHART_WIDTH_EMU = 5_940_000;
const CHART_HEIGHT_EMU = 3_240_000;

function anchor(index: number, row: number, rId: string, col = 0): string {
  const at = (c: number, r: number): string =>
    `<xdr:col>${c}</xdr:col><xdr:colOff>0</xdr:colOff><xdr:row>${r}</xdr:row><xdr:rowOff>0</xdr:rowOff>`;
  // One cell anchor with a fixed size: a two-cell anchor over 8 columns grew as wide as the
  // tables' columns above it (a Model sheet's chart ran off the page).
  return (
    `<xdr:oneCellAnchor><xdr:from>${at(col, row)}</xdr:from><xdr:ext cx="${CHART_WIDTH_EMU}" cy="${CHART_HEIGHT_EMU}"/>` +
    `<xdr:graphicFrame macro=""><xdr:nvGraphicFramePr><xdr:cNvPr id="${index + 2}" name="Chart ${index + 1}"/><xdr:cNvGraphicFramePr/></xdr:nvGraphicFramePr>` +
    `<xdr:xfrm><a:off x="0" y="0"/><a:ext cx="0" cy="0"/></xdr:xfrm><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/chart">` +
    `<c:chart xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" r:id="${rId}"/></a:graphicData></a:graphic></xdr:graphicFrame><xdr:clientData/></xdr:oneCellAnchor>`
  );
}

/** Reads a part as text; throws naming the part when it is missing. */
async function part(zip: JSZip, name: string): Promise<string> {
  const f = zip.file(name);
  if (!f) throw new Error(`the .xlsx has no ${name}`);
  return f.async("string");
}

/** The worksheet part of each sheet name, from workbook.xml and its relationships. */
async function sheetParts(zip: JSZip): Promise<Map<string, string>> {
  const workbook = await part(zip, "xl/workbook.xml");
  const rels = await part(zip, "xl/_rels/workbook.xml.rels");
  const target = new Map<string, string>();
  for (const m of rels.matchAll(/<Relationship [^>]*Id="([^"]+)"[^>]*Target="([^"]+)"/g)) target.set(m[1], m[2]);
  const out = new Map<string, string>();
  for (const m of workbook.matchAll(/<sheet [^>]*name="([^"]*)"[^>]*r:id="([^"]+)"/g)) {
    const name = m[1]
      .replace(/&quot;/g, '"')
      .replace(/&apos;/g, "'")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&amp;/g, "&");
    const t = target.get(m[2]);
    if (t) out.set(name, "xl/" + t.replace(/^\/?xl\//, "").replace(/^\//, ""));
  }
  return out;
}

/** Charts to add to one worksheet of a package, anchored from a cell down (one below the other). */
export interface ChartPlacement {
  sheet: string;
  /** Chart parts, from {@link scatterChartXml} or {@link chartXml}. */
  charts: string[];
  /** 0-based row and column of the first chart's top-left corner. */
  row: number;
  col: number;
  /** Per chart (same order), its own top-left corner; charts without one follow the stack from `row`. */
  at?: ({ row: number; col: number } | undefined)[];
}

/**
 * Adds charts to an .xlsx package (works in Node and in the browser: bytes in, bytes out).
 *
 * @param bytes - the .xlsx
 * @param placements - which charts go on which sheet, and where
 * @returns the new .xlsx bytes (the input when there is nothing to add)
 * @throws Error when the file lacks a part every .xlsx has, a sheet is missing, or a sheet that
 *   would get a chart already has drawings
 */
export async function insertCharts(bytes: Uint8Array, placements: ChartPlacement[]): Promise<Uint8Array> {
  const todo = placements.filter((p) => p.charts.length > 0);
  if (todo.length === 0) return bytes;
  const zip = await JSZip.loadAsync(bytes);
  const parts = await sheetParts(zip);
  let types = await part(zip, "[Content_Types].xml");
  let chartNo = Object.keys(zip.files).filter((n) => /^xl\/charts\/chart\d+\.xml$/.test(n)).length;
  let drawingNo = Object.keys(zip.files).filter((n) => /^xl\/drawings\/drawing\d+\.xml$/.test(n)).length;
  for (const placement of todo) {
    // The workbook's sheet names went through the same filter (xml-text.ts).
    const sheetPath = parts.get(xmlText(placement.sheet));
    if (!sheetPath) throw new Error(`the .xlsx has no sheet named ${placement.sheet}`);
    let sheetXml = await part(zip, sheetPath);
    if (/<drawing /.test(sheetXml)) throw new Error(`${placement.sheet} already has a drawing`);
    drawingNo++;
    const drawingPath = `xl/drawings/drawing${drawingNo}.xml`;
    const anchors: string[] = [];
    const drawingRels: string[] = [];
    placement.charts.forEach((body, i) => {
      chartNo++;
      zip.file(`xl/charts/chart${chartNo}.xml`, body);
      types = types.replace(
        "</Types>",
        `<Override PartName="/xl/charts/chart${chartNo}.xml" ContentType="${CT_CHART}"/></Types>`,
      );
      drawingRels.push(
        `<Relationship Id="rId${i + 1}" Type="${NS_REL}/chart" Target="../charts/chart${chartNo}.xml"/>`,
      );
      const own = placement.at?.[i];
      anchors.push(anchor(i, own ? own.row : placement.row + i * 19, `rId${i + 1}`, own ? own.col : placement.col));
    });
    zip.file(
      drawingPath,
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<xdr:wsDr xmlns:xdr="http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="${NS_REL}">${anchors.join("")}</xdr:wsDr>`,
    );
    zip.file(
      drawingPath.replace("drawings/", "drawings/_rels/") + ".rels",
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${drawingRels.join("")}</Relationships>`,
    );
    types = types.replace("</Types>", `<Override PartName="/${drawingPath}" ContentType="${CT_DRAWING}"/></Types>`);

    // The worksheet's relationship to its drawing, and the <drawing> element in schema order.
    const relsPath = sheetPath.replace(/worksheets\/([^/]+)$/, "worksheets/_rels/$1.rels");
    let rels = zip.file(relsPath)
      ? await part(zip, relsPath)
      : `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"></Relationships>`;
    const used = new Set([...rels.matchAll(/Id="([^"]+)"/g)].map((m) => m[1]));
    let k = used.size + 1;
    while (used.has(`rId${k}`)) k++;
    const rId = `rId${k}`;
    rels = rels.replace(
      "</Relationships>",
      `<Relationship Id="${rId}" Type="${NS_REL}/drawing" Target="../drawings/drawing${drawingNo}.xml"/></Relationships>`,
    );
    zip.file(relsPath, rels);
    const before =
      /<(?:legacyDrawing|legacyDrawingHF|picture|oleObjects|controls|webPublishItems|tableParts|extLst)\b|<\/worksheet>/.exec(
        sheetXml,
      );
    if (!before) throw new Error(`${sheetPath} has no closing </worksheet>`);
    sheetXml = sheetXml.slice(0, before.index) + `<drawing r:id="${rId}"/>` + sheetXml.slice(before.index);
    if (!/xmlns:r=/.test(sheetXml.slice(0, sheetXml.indexOf(">", sheetXml.indexOf("<worksheet"))))) {
      sheetXml = sheetXml.replace("<worksheet ", `<worksheet xmlns:r="${NS_REL}" `);
    }
    zip.file(sheetPath, sheetXml);
  }
  zip.file("[Content_Types].xml", types);
  return zip.generateAsync({ type: "uint8array", compression: "DEFLATE" });
}

/**
 * Adds the plan's charts (those with a `source`) to an .xlsx written from the same plan, each
 * sheet's below its lowest table.
 *
 * @param bytes - the .xlsx from `renderXlsx(plan)`
 * @param plan - the plan it was written from
 * @returns the new .xlsx bytes (the input when no chart applies)
 * @throws Error when the file lacks a part every .xlsx has, or already has drawings on a sheet
 *   that would get a chart
 */
export async function addNativeCharts(bytes: Buffer | Uint8Array, plan: WorkbookPlan): Promise<Buffer> {
  const placements = plan.sheets.map((sheet) => {
    const drawn = sheet.charts.filter((c) => chartXml(c, sheet) !== undefined);
    // Charts anchored by the plan go there; the others stack below the tables.
    let k = 0;
    const at = drawn.map((c) => c.anchor ?? { row: belowTables(sheet) + 19 * k++, col: 0 });
    return {
      sheet: sheet.name,
      charts: drawn.map((c) => chartXml(c, sheet) as string),
      row: belowTables(sheet),
      col: 0,
      at,
    };
  });
  return Buffer.from(await insertCharts(bytes, placements));
}
