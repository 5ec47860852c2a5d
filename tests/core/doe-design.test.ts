/** DOE_DESIGN core: standard order, replicates, seeded shuffles. */
import { doeDesign } from "../../src/core/doe-design";

const FACTORS = Object.freeze([
  Object.freeze({ name: "read", levels: Object.freeze([0, 100]) }),
  Object.freeze({ name: "blk", levels: Object.freeze([4, 8, 64]) }),
  Object.freeze({ name: "protocol", levels: Object.freeze(["fc", "nfs"]) }),
]);

describe("doeDesign", () => {
  it("lists the full factorial in standard order, first factor fastest", () => {
    const runs = doeDesign(FACTORS, { randomize: false });
    expect(runs).toHaveLength(12);
    expect(runs.slice(0, 4).map((r) => r.levels)).toEqual([
      [0, 4, "fc"],
      [100, 4, "fc"],
      [0, 8, "fc"],
      [100, 8, "fc"],
    ]);
    expect(runs[11].levels).toEqual([100, 64, "nfs"]);
    expect(runs.map((r) => r.stdOrder)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
  });
  it("shuffles each replicate separately and reproducibly", () => {
    const a = doeDesign(FACTORS, { replications: 3, seed: 25027 });
    const b = doeDesign(FACTORS, { replications: 3, seed: 25027 });
    const c = doeDesign(FACTORS, { replications: 3, seed: 7 });
    expect(a).toEqual(b);
    expect(a.map((r) => r.stdOrder)).not.toEqual(c.map((r) => r.stdOrder));
    for (let rep = 1; rep <= 3; rep++) {
      const inRep = a.filter((r) => r.replicate === rep).map((r) => r.stdOrder);
      expect([...inRep].sort((x, y) => x - y)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    }
    expect(a.map((r) => r.run)).toEqual(Array.from({ length: 36 }, (_, i) => i + 1));
    // the levels match the standard-order row they name
    const std = doeDesign(FACTORS, { randomize: false });
    for (const r of a) expect(r.levels).toEqual(std[r.stdOrder - 1].levels);
  });
  it("rejects bad input, naming the argument", () => {
    expect(() => doeDesign([{ name: "A", levels: [1] }])).toThrow(
      /^factors_and_levels: factor "A" needs 2 or more levels/,
    );
    expect(() => doeDesign([{ name: "A", levels: [1, 1] }])).toThrow(/repeats a level/);
    expect(() => doeDesign(FACTORS, { replications: 0 })).toThrow(/^replications:/);
    expect(() => doeDesign(FACTORS, { seed: 1.5 })).toThrow(/^seed:/);
    expect(() => doeDesign([])).toThrow(/^factors_and_levels:/);
  });
});
