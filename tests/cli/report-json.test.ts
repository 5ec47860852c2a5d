/**
 * `caplab report … --json FILE` on lab results drawn from a model with known truth
 * (tests/lab/fixtures/lab-model.ts): the key figures' intervals cover the model's values, the
 * knee and saturation are within 15 %, and the file is written like the other outputs (temp +
 * rename, refused when it exists without --force, never an input).
 */
import * as fs from "fs";
import * as path from "path";
import { runCli, useTempDir } from "../helpers/cli";
import { run } from "../../src/cli/commands/report";
import type { LabJson } from "../../src/lab/json";
import { syntheticLab, TWO_PROTOCOLS } from "../lab/fixtures/lab-model";

const cli = (args: string[]) => runCli(run, args);
const tempDir = useTempDir("caplab-report-json-");

describe("caplab report --json", () => {
  it("writes the key figures, covering the model's truth", async () => {
    const dir = tempDir();
    const lab = syntheticLab(TWO_PROTOCOLS, 11);
    const sub = path.join(dir, "sub.csv");
    const sum = path.join(dir, "sum.csv");
    fs.writeFileSync(sub, lab.subintervals);
    fs.writeFileSync(sum, lab.summary);
    const out = path.join(dir, "r.xlsx");
    const json = path.join(dir, "r.json");
    const r = await cli([sub, sum, "-o", out, "--json", json]);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`wrote ${json}`);
    expect(fs.readdirSync(dir).sort()).toEqual(["r.json", "r.xlsx", "sub.csv", "sum.csv"]);
    const doc = JSON.parse(fs.readFileSync(json, "utf8")) as LabJson;
    expect(doc.version).toBe(1);
    expect(doc.group).toBe("protocol nfs");
    expect(doc.lines.map((l) => l.group)).toEqual(["protocol nfs", "protocol fc"]);
    for (const t of lab.truth) {
      const line = doc.lines.find((l) => l.group === `protocol ${t.protocol}`)!;
      const [lo, hi] = line.marginalCpuMsPerIo!.ci95 as [number, number];
      expect(lo).toBeLessThanOrEqual(t.marginalCpuMsPerIo);
      expect(hi).toBeGreaterThanOrEqual(t.marginalCpuMsPerIo);
      expect(Math.abs(line.knee!.iops! / t.kneeIops - 1)).toBeLessThan(0.15);
      expect(Math.abs(line.saturationIops!.estimate / t.saturationIops - 1)).toBeLessThan(0.15);
      expect(Math.abs(line.cpuSaturationIops!.estimate / t.cpuSaturationIops - 1)).toBeLessThan(0.15);
      expect(Math.abs(line.backgroundCpuPct!.estimate - t.backgroundCpuPct)).toBeLessThan(2);
    }
    // The top level is the first line; per step, intervals around the figures, and warnings.
    expect(doc.marginalCpuMsPerIo).toEqual(doc.lines[0].marginalCpuMsPerIo);
    expect(doc.steps).toHaveLength(14);
    const s1 = doc.steps[0];
    expect(s1.name).toBe("step 1 nfs-1000");
    expect(s1.responseMsMeanCi95![0]).toBeLessThan(s1.responseMsMean!);
    expect(s1.responseMsMeanCi95![1]).toBeGreaterThan(s1.responseMsMean!);
    expect(s1.responseMsP99Ci95![0]).toBeLessThan(s1.responseMsP99!);
    expect(doc.steps[6].warnings).toContainEqual(expect.stringMatching(/ran as fast as possible/));
    expect(fs.readFileSync(json, "utf8")).not.toMatch(/NaN|Infinity/);
  });

  it("refuses an existing file without --force, a name not ending in .json, and the same file as -o", async () => {
    const dir = tempDir();
    const lab = syntheticLab(TWO_PROTOCOLS, 1);
    const sum = path.join(dir, "sum.csv");
    fs.writeFileSync(sum, lab.summary);
    const json = path.join(dir, "r.json");
    fs.writeFileSync(json, "keep");
    let r = await cli([sum, "-o", path.join(dir, "r.xlsx"), "--json", json]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--json .*r\.json: exists; pass --force to replace it/);
    expect(fs.readFileSync(json, "utf8")).toBe("keep");
    expect(fs.existsSync(path.join(dir, "r.xlsx"))).toBe(false);
    r = await cli([sum, "-o", path.join(dir, "r.xlsx"), "--json", path.join(dir, "r.txt")]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--json .*r\.txt: the file name must end in \.json/);
    r = await cli([sum, "-o", path.join(dir, "r.xlsx"), "--json", json, "--force"]);
    expect(r.code).toBe(0);
    expect((JSON.parse(fs.readFileSync(json, "utf8")) as LabJson).steps).toHaveLength(14);
  });
});
