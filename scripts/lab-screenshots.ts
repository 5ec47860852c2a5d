/**
 * The LibreOffice screenshots of the analysis sheets in docs/analysis.md: the Model sheet, its
 * charts and the What-if sheet of the first-run sample (tests/lab/fixtures/lab-sample), the
 * Summary of the 4-step run (tests/lab/fixtures/issue-4step), each rendered to .xlsx as
 * `caplab report` does (tables by `renderXlsx`, native charts by `addNativeCharts`), printed by
 * LibreOffice to PDF (landscape A3, 55–70 %) and cropped by pdftoppm. A chart shot prints only the
 * rows of the sheet's charts (a print area below its tables).
 *
 * Usage: tsx scripts/lab-screenshots.ts [outDir] [name] (default docs/screenshots; name: only the
 * shots whose file name contains it). Needs soffice and
 * pdftoppm (libreoffice-calc-nogui, poppler-utils).
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import ExcelJS from "exceljs";
import { readLabText } from "../src/import/detect";
import { buildLabPlan } from "../src/lab/lab-plan";
import { rowBelow, rowBelowTable } from "../src/workbook/plan";
import { renderXlsx } from "../src/report/xlsx";
import { addNativeCharts } from "../src/report/xlsx-charts";

const ROOT = path.join(__dirname, "..");
/** The forecast's start date, fixed so the shots do not change with the day they are made. */
const TODAY = new Date(Date.UTC(2026, 10, 25));
/** OOXML paper size 8 (A3), which ExcelJS's PaperSize enum does not name. */
const A3 = 8 as ExcelJS.PaperSize;

interface Shot {
  fixture: string;
  sheet: string;
  scale: number;
  /** Width and height of the crop (pixels at 100 dpi from the page's top-left margin). */
  crop: [number, number];
  out: string;
  /** Print the sheet's charts (the rows below its tables), not its tables. */
  charts?: boolean;
}

const SHOTS: Shot[] = [
  { fixture: "lab-sample", sheet: "Model", scale: 55, crop: [1440, 362], out: "lab-model-cpufit.png" },
  { fixture: "lab-sample", sheet: "Model", scale: 100, crop: [680, 1180], out: "lab-model-charts.png", charts: true },
  { fixture: "lab-sample", sheet: "What-if", scale: 60, crop: [1180, 370], out: "lab-whatif.png" },
  { fixture: "issue-4step", sheet: "Summary", scale: 55, crop: [1440, 390], out: "lab-summary-warnings.png" },
];

async function main(): Promise<void> {
  const outDir = path.resolve(process.argv[2] ?? path.join(ROOT, "docs", "screenshots"));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "caplab-lab-shots-"));
  try {
    for (const shot of SHOTS.filter((s) => !process.argv[3] || s.out.includes(process.argv[3]))) {
      const dir = path.join(ROOT, "tests", "analysis", "fixtures", shot.fixture);
      const plan = buildLabPlan(
        ["subintervals.csv", "summary.csv"].map((f) => readLabText(fs.readFileSync(path.join(dir, f), "utf8"), f)),
        { today: TODAY },
      );
      plan.sheets = plan.sheets.filter((s) => s.name === shot.sheet);
      const sheet = plan.sheets[0];
      const wb = new ExcelJS.Workbook();
      await wb.xlsx.load((await renderXlsx(plan)) as unknown as ArrayBuffer);
      const ws = wb.worksheets[0];
      ws.pageSetup = { ...ws.pageSetup, orientation: "landscape", fitToPage: false, scale: shot.scale, paperSize: A3 };
      if (shot.charts) {
        // The charts' rows: where addNativeCharts anchors them (below the visible tables), 8 columns wide.
        const top = Math.max(
          rowBelow(0, sheet.notes.length),
          ...sheet.tables.filter((t) => !t.hidden).map(rowBelowTable),
        );
        // Rows above are hidden rather than left out by a print area, which LibreOffice's PDF export
        // ignored; the charts draw hidden cells (plotVisOnly off).
        ws.pageSetup.orientation = "portrait";
        for (let r = 1; r <= top; r++) ws.getRow(r).hidden = true;
      }
      const base = path.join(tmp, shot.out.replace(/\.png$/, ""));
      // ExcelJS drops charts it loads, so the charts are added to what it wrote.
      fs.writeFileSync(`${base}.xlsx`, await addNativeCharts(Buffer.from(await wb.xlsx.writeBuffer()), plan));
      execFileSync("soffice", ["--headless", "--convert-to", "pdf", "--outdir", tmp, `${base}.xlsx`], {
        stdio: "pipe",
        timeout: 180_000,
      });
      const [w, h] = shot.crop;
      execFileSync("pdftoppm", [
        "-png",
        "-r",
        "100",
        "-f",
        "1",
        "-l",
        "1",
        "-singlefile",
        "-x",
        "60",
        "-y",
        "60",
        "-W",
        `${w}`,
        "-H",
        `${h}`,
        `${base}.pdf`,
        base,
      ]);
      fs.copyFileSync(`${base}.png`, path.join(outDir, shot.out));
      console.log(`wrote ${path.join(outDir, shot.out)}`);
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

void main();
