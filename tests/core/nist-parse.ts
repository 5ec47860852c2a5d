/** Parser for NIST StRD linear regression .dat files (certified values in the header). */
import { readFileSync } from "node:fs";

export interface NistDataset {
  name: string;
  intercept: boolean;
  /** Predictor columns as supplied to the fit (x, x², … for polynomial sets). */
  columns: number[][];
  y: number[];
  estimates: number[];
  sds: number[];
  residualSd: number;
  rSquared: number;
}

export function parseNist(path: string, name: string): NistDataset {
  const lines = readFileSync(path, "utf8").split(/\r?\n/);
  const estimates: number[] = [];
  const sds: number[] = [];
  let residualSd = NaN;
  let rSquared = NaN;
  let intercept = false;
  let dataStart = -1;
  let nPredictors = 0;
  lines.forEach((line, i) => {
    const b = line.match(/^\s+B(\d+)\s+(\S+)\s+(\S+)\s*$/);
    if (b && dataStart < 0) {
      if (b[1] === "0") intercept = true;
      estimates.push(Number(b[2]));
      sds.push(Number(b[3]));
    }
    const rs = line.match(/^\s+Standard Deviation\s+(\S+)\s*$/);
    if (rs) residualSd = Number(rs[1]);
    const r2 = line.match(/^\s+R-Squared\s+(\S+)\s*$/);
    if (r2) rSquared = Number(r2[1]);
    const d = line.match(/^Data:\s+y\s+(.*)$/);
    if (d) {
      dataStart = i + 1;
      nPredictors = d[1].trim().split(/\s+/).length;
    }
  });
  if (dataStart < 0 || estimates.length === 0) throw new Error(`${path}: not a NIST StRD regression file`);
  const rows = lines
    .slice(dataStart)
    .map((l) => l.trim())
    .filter((l) => l.length > 0)
    .map((l) => l.split(/\s+/).map(Number));
  const y = rows.map((r) => r[0]);
  const slopes = estimates.length - (intercept ? 1 : 0);
  let columns: number[][];
  if (nPredictors === slopes) {
    columns = Array.from({ length: nPredictors }, (_, j) => rows.map((r) => r[1 + j]));
  } else if (nPredictors === 1) {
    // Polynomial class: x, x², …, x^slopes.
    columns = Array.from({ length: slopes }, (_, j) => rows.map((r) => r[1] ** (j + 1)));
  } else {
    throw new Error(`${path}: ${nPredictors} predictors for ${slopes} slopes`);
  }
  return { name, intercept, columns, y, estimates, sds, residualSd, rSquared };
}
