/**
 * The LibreOffice screenshots of the analysis sheets in docs/analysis.md: the Model sheet and the
 * What-if sheet of the first-run sample (tests/analysis/fixtures/lab-sample) and the Summary of
 * the 4-step run (tests/analysis/fixtures/issue-4step), each rendered to .xlsx as `caplab report`
 * does, printed by LibreOffice to PDF (landscape A3, 55–60 %) and cropped by pdftoppm.
 *
 * Usage: tsx scripts/lab-screenshots.ts [outDir] (default docs/screenshots). Needs soffice and
 * pdftoppm (libreoffice-calc-nogui, poppler-utils).
 */
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import ExcelJS from "exceljs";
import { readLabText } from "../src/import/detect";
import { buildLabPlan } from "../src/analysis/lab-plan";
import { renderXlsx } from "../src/report/xlsx";

const ROOT = path.join(__dirname, "..");
/** The forecast's start date, fixed so the shots do not change with the day they are made. */
const TODAY = new Date(Date.UTC(2026, 10, 25));
/** OOXML paper size 8 (A3), which ExcelJS's PaperSize enum does not name. */
const A3 = 8 as ExcelJS.PaperSize;

const SHOTS = [
  { fixture: "lab-sample", sheet: "Model", scale: 55, crop: [1440, 390], out: "lab-model-cpufit.png" },
  { fixture: "lab-sample", sheet: "What-if", scale: 60, crop: [1180, 370], out: "lab-whatif.png" },
  { fixture: "issue-4step", sheet: "Summary", scale: 55, crop: [1440, 390], out: "lab-summary-warnings.png" },
];

async function main(): Promise<void> {
  const outDir = path.resolve(process.argv[2] ?? path.join(ROOT, "docs", "screenshots"));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "caplab-lab-shots-"));
  try {
    for (const shot of SHOTS) {
      const dir = path.join(ROOT, "tests", "analysis", "fixtures", shot.fixture);
      const plan = buildLabPlan(
        ["subintervals.csv", "summary.csv"].map((f) => readLabText(fs.readFileSync(path.join(dir, f), "utf8"), f)),
        { today: TODAY },
      );
      plan.sheets = plan.sheets.filter((s) => s.name === shot.sheet);
      const wb = new ExcelJS.Workbook();
      await wb.xlsx.load((await renderXlsx(plan)) as unknown as ArrayBuffer);
      const ws = wb.worksheets[0];
      ws.pageSetup = { ...ws.pageSetup, orientation: "landscape", fitToPage: false, scale: shot.scale, paperSize: A3 };
      const base = path.join(tmp, shot.out.replace(/\.png$/, ""));
      await wb.xlsx.writeFile(`${base}.xlsx`);
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
