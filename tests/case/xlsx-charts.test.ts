/**
 * Native charts added to the .xlsx of a case (src/report/xlsx-charts.ts), read back from the
 * package: the chart part, its series' cell references and cached values, the drawing and its
 * anchor, the worksheet's <drawing> element in schema order, the relationships and content types.
 * (LibreOffice reading the chart back is in case-libreoffice.test.ts.)
 */
import * as fs from "fs";
import * as path from "path";
import JSZip from "jszip";
import { casePlanFromJson } from "../../src/case/case-plan";
import { TablePlan } from "../../src/workbook/plan";
import { renderXlsx } from "../../src/report/xlsx";
import { addNativeCharts, chartXml } from "../../src/report/xlsx-charts";

const EXAMPLE = path.join(__dirname, "..", "..", "examples", "merging-helpdesks.json");

async function text(zip: JSZip, name: string): Promise<string> {
  const f = zip.file(name);
  if (!f) throw new Error(`missing ${name}`);
  return f.async("string");
}

describe("addNativeCharts", () => {
  const built = casePlanFromJson(JSON.parse(fs.readFileSync(EXAMPLE, "utf8")));
  const sheet = built.plan.sheets[0];

  it("adds a scatter-with-lines chart whose series refer to the cumulative-cost cells", async () => {
    const zip = await JSZip.loadAsync(await addNativeCharts(await renderXlsx(built.plan), built.plan));
    const chart = await text(zip, "xl/charts/chart1.xml");
    const cum = sheet.tables.find((t) => t.name === "CumulativeCost") as TablePlan;
    const at = cum.at as { row: number; col: number };
    const col = (j: number): string => String.fromCharCode(65 + at.col + j);
    const refs = [...chart.matchAll(/<c:f>([^<]*)<\/c:f>/g)].map((m) => m[1].replace(/&apos;/g, "'"));
    const first = at.row + 2;
    const last = at.row + 1 + built.input.years;
    expect(refs).toEqual(
      built.input.options.flatMap((_, i) => [
        `'Business case'!$${col(1 + i)}$${at.row + 1}`,
        `'Business case'!$${col(0)}$${first}:$${col(0)}$${last}`,
        `'Business case'!$${col(1 + i)}$${first}:$${col(1 + i)}$${last}`,
      ]),
    );
    const cached = [...chart.matchAll(/<c:yVal>.*?<\/c:yVal>/g)].map((m) =>
      [...m[0].matchAll(/<c:v>([^<]*)<\/c:v>/g)].map((v) => Number(v[1])),
    );
    expect(cached).toEqual(built.result.options.map((o) => o.cumulativeDiscounted));
    expect(chart).toContain("<a:t>Cumulative discounted cost</a:t>");

    const sheetXml = await text(zip, "xl/worksheets/sheet1.xml");
    const drawing = sheetXml.indexOf("<drawing r:id=");
    expect(drawing).toBeGreaterThan(sheetXml.indexOf("</sheetData>"));
    expect(drawing).toBeLessThan(sheetXml.indexOf("<tableParts"));
    const rId = /<drawing r:id="([^"]+)"/.exec(sheetXml)?.[1];
    const rels = await text(zip, "xl/worksheets/_rels/sheet1.xml.rels");
    expect(rels).toContain(
      `Id="${rId}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/drawing" Target="../drawings/drawing1.xml"`,
    );
    expect(new Set([...rels.matchAll(/Id="([^"]+)"/g)].map((m) => m[1])).size).toBe([...rels.matchAll(/Id="/g)].length);
    expect(await text(zip, "xl/drawings/_rels/drawing1.xml.rels")).toContain('Target="../charts/chart1.xml"');
    const anchor = await text(zip, "xl/drawings/drawing1.xml");
    const lowest = Math.max(...sheet.tables.map((t) => (t.at as { row: number }).row + t.rows.length));
    expect(
      Number(/<xdr:from><xdr:col>0<\/xdr:col><xdr:colOff>0<\/xdr:colOff><xdr:row>(\d+)/.exec(anchor)?.[1]),
    ).toBeGreaterThan(lowest);
    const types = await text(zip, "[Content_Types].xml");
    expect(types).toContain(
      '<Override PartName="/xl/charts/chart1.xml" ContentType="application/vnd.openxmlformats-officedocument.drawingml.chart+xml"/>',
    );
    expect(types).toContain(
      '<Override PartName="/xl/drawings/drawing1.xml" ContentType="application/vnd.openxmlformats-officedocument.drawing+xml"/>',
    );
  });

  it("escapes names and quotes sheet names in references", () => {
    const json = JSON.parse(fs.readFileSync(EXAMPLE, "utf8")) as { options: { name: string }[] };
    json.options[1].name = "Merged <&> 'one'";
    const c = casePlanFromJson(json, { sheetName: "Bob's case" });
    const out = chartXml(c.plan.sheets[0].charts[0], c.plan.sheets[0]) as string;
    expect(out).toContain("<c:v>Merged &lt;&amp;&gt; &apos;one&apos;</c:v>");
    expect(out).toContain("<c:f>&apos;Bob&apos;&apos;s case&apos;!");
  });

  it("leaves a file without charts to add as it is, and refuses a sheet that already has a drawing", async () => {
    const noCharts = structuredClone(built.plan);
    noCharts.sheets[0].charts = [];
    const bytes = await renderXlsx(noCharts);
    expect(Buffer.compare(await addNativeCharts(bytes, noCharts), bytes)).toBe(0);
    const once = await addNativeCharts(await renderXlsx(built.plan), built.plan);
    await expect(addNativeCharts(once, built.plan)).rejects.toThrow("Business case already has a drawing");
  });
});
