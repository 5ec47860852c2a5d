/**
 * Shared helpers for tests that run a CLI command in-process (the code bin/caplab.js runs): capture
 * its output, give each test a fresh temporary directory, read what it wrote.
 */
import ExcelJS from "exceljs";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { CliIo } from "../../src/cli/io";

/** What a command run returned and printed. */
export interface CliResult {
  code: number;
  out: string;
  err: string;
}

/** A command entry point: `main` or one command's `run`. */
export type CliEntry = (args: string[], io: CliIo) => Promise<number>;

/** Runs `entry(args)` with its output captured. */
export async function runCli(entry: CliEntry, args: string[]): Promise<CliResult> {
  let out = "";
  let err = "";
  const code = await entry(args, { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

/**
 * A fresh temporary directory for each test of the calling file (made in beforeEach, removed with
 * its contents in afterEach); call the returned function inside a test for its path.
 */
export function useTempDir(prefix: string): () => string {
  let dir = "";
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  });
  afterEach(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return () => dir;
}

/** Reads an .xlsx file written by a command. */
export async function readWorkbook(file: string): Promise<ExcelJS.Workbook> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.readFile(file);
  return wb;
}
