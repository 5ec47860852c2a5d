/**
 * The check every xlsx-writing test can call: no cell value (nor a chart's cached value) of a
 * written workbook is `Infinity`, `-Infinity` or `NaN` — text Excel and openpyxl refuse in a
 * number cell and LibreOffice reads as a string.
 */
import JSZip from "jszip";

/** One non-finite value found: the part of the package and the XML around it. */
export interface NonFinite {
  part: string;
  xml: string;
}

/**
 * Every `<v>`/`<c:v>` value (sheets, charts' caches) and every number attribute that reads
 * `Infinity`, `-Infinity` or `NaN`, in every XML part of an .xlsx.
 *
 * @param xlsx - the workbook's bytes
 * @returns what was found (empty when the workbook is clean)
 */
export async function nonFiniteValues(xlsx: Buffer | Uint8Array): Promise<NonFinite[]> {
  const zip = await JSZip.loadAsync(xlsx);
  const found: NonFinite[] = [];
  const pattern = /<(c:)?v>\s*[-+]?(Infinity|NaN)\s*<\/(c:)?v>/g;
  const attribute = /="\s*[-+]?(Infinity|NaN)\s*"/g;
  for (const part of Object.keys(zip.files)) {
    if (!/\.xml$/.test(part)) continue;
    const xml = await zip.file(part)!.async("string");
    for (const re of [pattern, attribute]) {
      for (const m of xml.matchAll(re)) found.push({ part, xml: xml.slice(Math.max(0, m.index - 80), m.index + 40) });
    }
  }
  return found;
}
