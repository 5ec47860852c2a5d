/**
 * `caplab case` with amounts at the edge of double precision: no cell holds Infinity or NaN, an
 * overflow caused by a sensitivity factor names that factor, and the conclusion's money has at
 * most 15 significant digits, as a spreadsheet shows it (LibreOffice's recalculation of such a
 * conclusion is compared in tests/case/sizing-libreoffice.test.ts).
 */
import * as fs from "fs";
import * as path from "path";
import { runCli, useTempDir } from "../helpers/cli";
import { run } from "../../src/cli/commands/case";
import { money } from "../../src/case/money-text";
import { nonFiniteValues } from "../report/finite-cells";

const tempDir = useTempDir("caplab-amounts-");
const write = (dir: string, json: object): string => {
  const f = path.join(dir, "case.json");
  fs.writeFileSync(f, JSON.stringify(json));
  return f;
};

describe("amounts at the edge of double precision", () => {
  it("a capex times the high capex factor that overflows names sensitivity.capex.high", async () => {
    const dir = tempDir();
    const input = write(dir, {
      years: 3,
      discountRate: 0.1,
      options: [
        { name: "Keep", opex: [{ label: "Support", perYear: 100000 }] },
        { name: "Replace", capex: 1e307 },
      ],
      sensitivity: { capex: { low: 0.5, high: 100 } },
    });
    const r = await runCli(run, [input, "-o", path.join(dir, "o.xlsx")]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^caplab case: .*case\.json: sensitivity\.capex\.high: with this factor, options\[1\]: /);
    expect(fs.readdirSync(dir)).toEqual(["case.json"]);
  });

  it("amounts above 1.8e302 (where x·1e6 overflows) are written without Infinity or NaN", async () => {
    const dir = tempDir();
    const out = path.join(dir, "o.xlsx");
    const input = write(dir, {
      years: 3,
      discountRate: 0.1,
      options: [
        { name: "Keep", opex: [{ label: "Support", perYear: 1e303 }] },
        { name: "Replace", capex: 2e302 },
      ],
    });
    const r = await runCli(run, [input, "-o", out]);
    expect(r.code).toBe(0);
    expect(await nonFiniteValues(fs.readFileSync(out))).toEqual([]);
  });

  it.each([
    [1.2345678901234568e18, "£1,234,567,890,123,460,000"],
    [123456789012345.6, "£123,456,789,012,346"],
    [-2.5e20, "\u2212£250,000,000,000,000,000,000"],
    [273553.719008264, "£273,554"],
  ])("money(%p) = %p (15 significant digits at most)", (amount, text) => {
    expect(money(amount, "£")).toBe(text);
  });
});
