/**
 * LibreOffice Calc for the tests that open our .xlsx files in another program: where soffice is,
 * a private profile that makes Calc recalculate every formula of an .xlsx on load, the CSV
 * export options, and a CSV reader.
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import type { WorkbookPlan } from "../../src/workbook/plan";

/** The soffice binary, or undefined when LibreOffice is not installed. */
export function findSoffice(): string | undefined {
  for (const p of ["/usr/bin/soffice", "/usr/bin/libreoffice", "/usr/local/bin/soffice"])
    if (fs.existsSync(p)) return p;
  return undefined;
}

/** A profile directory under `dir` in which Calc recalculates .xlsx formulas on load. */
export function recalculatingProfile(dir: string): string {
  const profile = path.join(dir, "profile");
  fs.mkdirSync(path.join(profile, "user"), { recursive: true });
  fs.writeFileSync(
    path.join(profile, "user", "registrymodifications.xcu"),
    `<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>
</oor:items>
`,
  );
  return profile;
}

/**
 * Converts .xlsx files with Calc: `csv` gives one CSV per sheet (UTF-8, comma, raw values),
 * `xlsx` saves them again. Output in `outDir`.
 */
export function convert(soffice: string, profile: string, to: "csv" | "xlsx", outDir: string, files: string[]): void {
  const filter =
    to === "csv"
      ? "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false,-1"
      : "xlsx:Calc MS Excel 2007 XML";
  execFileSync(
    soffice,
    [`-env:UserInstallation=file://${profile}`, "--headless", "--convert-to", filter, "--outdir", outDir, ...files],
    { stdio: "pipe", timeout: 180_000 },
  );
}

/** A CSV line split into fields (RFC 4180 quoting, as LibreOffice writes it). */
export function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      row.push(field);
      field = "";
    } else if (ch === "\n") {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else if (ch !== "\r") field += ch;
  }
  if (field !== "" || row.length > 0) rows.push([...row, field]);
  return rows;
}

/** A CSV field as a number: "0.6", "60%" (raw values, shown with % for percent formats). */
export function csvNumber(field: string): number {
  const m = /^(-?[\d.]+(?:E[-+]?\d+)?)(%?)$/i.exec(field.trim());
  if (!m) return NaN;
  return m[2] ? Number(m[1]) / 100 : Number(m[1]);
}

/** XML character references back to text. */
function unescapeXml(s: string): string {
  return s.replace(/&(lt|gt|amp|quot|apos|#x[0-9a-fA-F]+|#\d+);/g, (_m, e: string) =>
    e === "lt"
      ? "<"
      : e === "gt"
        ? ">"
        : e === "amp"
          ? "&"
          : e === "quot"
            ? '"'
            : e === "apos"
              ? "'"
              : String.fromCodePoint(e.startsWith("#x") ? parseInt(e.slice(2), 16) : Number(e.slice(1))),
  );
}

/**
 * The values of every worksheet of an .xlsx (in workbook order) as its writer stored them, keyed
 * "row,col" (0-based): numbers at full precision (CSV export rounds to 15 significant digits and
 * to 20 decimals, too coarse for small times and probabilities), texts, and errors as their code
 * ("#N/A"). Read from a file Calc saved after recalculating, these are Calc's own results.
 */
export async function xlsxValues(bytes: Buffer): Promise<Map<string, number | string>[]> {
  const { default: JSZip } = await import("jszip");
  const zip = await JSZip.loadAsync(bytes);
  const read = async (name: string): Promise<string> => (await zip.file(name)?.async("string")) ?? "";
  const shared = [...(await read("xl/sharedStrings.xml")).matchAll(/<si>([^]*?)<\/si>/g)].map((m) =>
    unescapeXml([...m[1].matchAll(/<t[^>]*>([^<]*)<\/t>/g)].map((t) => t[1]).join("")),
  );
  const sheets: Map<string, number | string>[] = [];
  for (let n = 1; zip.file(`xl/worksheets/sheet${n}.xml`); n++) {
    const out = new Map<string, number | string>();
    const sheet = await read(`xl/worksheets/sheet${n}.xml`);
    for (const m of sheet.matchAll(/<c r="([A-Z]+)(\d+)"([^>]*?)(?:\/>|>([^]*?)<\/c>)/g)) {
      const v = /<v>([^<]*)<\/v>/.exec(m[4] ?? "");
      if (!v) continue;
      let col = 0;
      for (const ch of m[1]) col = col * 26 + (ch.charCodeAt(0) - 64);
      const type = /\bt="([^"]+)"/.exec(m[3])?.[1] ?? "n";
      const text = unescapeXml(v[1]);
      out.set(
        `${Number(m[2]) - 1},${col - 1}`,
        type === "s" ? shared[Number(text)] : type === "n" ? Number(text) : text,
      );
    }
    sheets.push(out);
  }
  return sheets;
}

/**
 * A copy of a plan with every formula's cached result removed, and the notes written as formulas
 * (the conclusion) emptied: what Calc then shows is its own calculation, never ours.
 */
export function withoutCachedValues(plan: WorkbookPlan): WorkbookPlan {
  const copy = structuredClone(plan);
  for (const sheet of copy.sheets) {
    for (const t of sheet.tables)
      for (const row of t.rows)
        row.forEach((cell, j) => {
          if (cell !== null && typeof cell === "object" && "formula" in cell)
            row[j] = { formula: cell.formula, result: null };
        });
    for (const f of sheet.noteFormulas ?? []) sheet.notes[f.note] = "";
  }
  return copy;
}
