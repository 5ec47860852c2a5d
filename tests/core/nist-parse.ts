/** Parser for NIST StRD linear regression .dat files (certified values in the header). */
import { readFileSync } from "node:fs";

export interface NistDataset {
  name: string;
  intercept: boolean;
  /**
   * Predictor columns as supplied to the fit (x, x², … for polynomial sets, each power the IEEE
   * double product of the previous one and x, as a worksheet computes it).
   */
  columns: number[][];
  /**
   * For polynomial sets, the rounding error of each power: columns[j][i] + columnsLow[j][i] is x^(j+1)
   * to ~1e-32 relative (double-double products); null for columns read from the file.
   */
  columnsLow: (number[] | null)[];
  /** True for the polynomial class (x, x², … built from one predictor). */
  polynomial: boolean;
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
  if (nPredictors === slopes) {
    const columns = Array.from({ length: nPredictors }, (_, j) => rows.map((r) => r[1 + j]));
    return {
      name,
      intercept,
      columns,
      columnsLow: columns.map(() => null),
      polynomial: false,
      y,
      estimates,
      sds,
      residualSd,
      rSquared,
    };
  }
  if (nPredictors !== 1) throw new Error(`${path}: ${nPredictors} predictors for ${slopes} slopes`);
  // Polynomial class: x, x², …, x^slopes, each as double (hi) and double-double (hi + lo).
  const columns: number[][] = Array.from({ length: slopes }, () => []);
  const columnsLow: number[][] = Array.from({ length: slopes }, () => []);
  for (const r of rows) {
    const x = r[1];
    let hi = 1;
    let lo = 0;
    let rounded = 1;
    for (let j = 0; j < slopes; j++) {
      rounded *= x;
      [hi, lo] = ddTimes(hi, lo, x);
      columns[j].push(rounded);
      columnsLow[j].push(hi - rounded + lo);
    }
  }
  return { name, intercept, columns, columnsLow, polynomial: true, y, estimates, sds, residualSd, rSquared };
}

/** (hi + lo)·x in double-double (Dekker's TwoProduct for hi·x), renormalized. */
function ddTimes(hi: number, lo: number, x: number): [number, number] {
  const split = (v: number): [number, number] => {
    const t = 134217729 * v;
    const h = t - (t - v);
    return [h, v - h];
  };
  const p = hi * x;
  const [ah, al] = split(hi);
  const [bh, bl] = split(x);
  const e = ah * bh - p + ah * bl + al * bh + al * bl + lo * x;
  const s = p + e;
  return [s, e - (s - p)];
}
