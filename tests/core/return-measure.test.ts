import { returnMeasure } from "../../src/core/return-measure";
import { fractionalPayback } from "../../src/core/payback-fraction";
import { levelizedCost } from "../../src/core/levelized-cost";
import { confidenceGrade } from "../../src/core/confidence-grade";
import { expectRelClose } from "./close";

// Reference rates: numpy-financial 1.0.0 `npf.irr` (one sign change) and every positive real root of
// numpy.roots on the polynomial in v = 1/(1 + r) (several), computed with those libraries, not this code.
describe("returnMeasure", () => {
  it("invest, then save: the IRR, equal to numpy-financial", () => {
    const flows = Object.freeze([-150000, 100000, 100000]);
    const m = returnMeasure(flows);
    expect(m.shape).toBe("invest-then-save");
    expectRelClose(m.rate, 0.21525043702153024, 1e-12);
    expect(m.guess).toBe(m.rate);
    expect(flows).toEqual([-150000, 100000, 100000]);
  });

  it("save now, pay later: labelled, with its borrowing rate (numpy-financial 13.07 %)", () => {
    const m = returnMeasure([100000, -60000, -60000]);
    expect(m.shape).toBe("save-then-pay");
    expectRelClose(m.rate, 0.1306623862918075, 1e-12);
  });

  it("several sign changes, one root in −50 % … 100 %: that root, as an IRR or a borrowing rate", () => {
    // [-100, 100, 0, -7]: roots −67.89 % and −8.33 % (numpy.roots); only −8.33 % is in the band.
    const a = returnMeasure([-100, 100, 0, -7]);
    expect(a.signChanges).toBe(2);
    expectRelClose(a.rate, -0.08329966618493256, 1e-10);
    expect(a.roots.length).toBe(2);
    expectRelClose(a.roots[0], -0.6788943736323867, 1e-10);
    expect(a.shape).toBe("invest-then-save");
    const b = returnMeasure([100, -100, 0, 7]);
    expect(b.shape).toBe("save-then-pay");
    expectRelClose(b.rate, -0.08329966618493256, 1e-10);
  });

  it("several sign changes with two roots in the band, or none: no rate", () => {
    // IRR({−100, 230, −132}) is 10 % and 20 %.
    const m = returnMeasure([-100, 230, -132]);
    expect(m.shape).toBe("no-rate");
    expect(m.rate).toBeNull();
    expectRelClose(m.roots[0], 0.1, 1e-12);
    expectRelClose(m.roots[1], 0.2, 1e-12);
    // [-5, 10.5, 1, -8, 1]: roots −87.0 %, 8.86 %, 70.96 %: two in the band.
    const n = returnMeasure([-5, 10.5, 1, -8, 1]);
    expect(n.shape).toBe("no-rate");
    expect(n.roots.length).toBe(3);
    expectRelClose(n.roots[1], 0.08859833852775534, 1e-10);
    expectRelClose(n.roots[2], 0.7095595276861841, 1e-10);
    // [1, -3, 3]: 1 − 3v + 3v² has no real root: two sign changes and no rate at all.
    expect(returnMeasure([1, -3, 3])).toMatchObject({ shape: "no-rate", roots: [] });
  });

  it("no sign change: always saves, or never does", () => {
    expect(returnMeasure([0, 5, 5]).shape).toBe("always-saves");
    expect(returnMeasure([-5, 0, -1]).shape).toBe("never-saves");
    expect(() => returnMeasure([])).toThrow(/savings/);
    expect(() => returnMeasure([1, Infinity])).toThrow(/not finite/);
  });
});

describe("fractionalPayback", () => {
  it("interpolates the year that recovers the saving", () => {
    expect(fractionalPayback([-150000, 100000, 100000], 0)).toBe(1.5);
    // Discounted at 10 %: −150,000 + 90,909.09 = −59,090.91; then 82,644.63 recovers it in 0.715 of year 2.
    expectRelClose(
      fractionalPayback([-150000, 100000, 100000], 0.1),
      1 + (150000 - 100000 / 1.1) / (100000 / 1.21),
      1e-14,
    );
    expect(fractionalPayback([0, 5], 0)).toBe(0);
    expect(fractionalPayback([-150000, 50000, 50000], 0)).toBeNull();
    // A later dip: the last negative year counts (cumulative −10, 10, −5, 5): k = 2, 2 + 5/10.
    expect(fractionalPayback([-10, 20, -15, 10], 0)).toBe(2.5);
  });
});

describe("levelizedCost", () => {
  it("divides the net present cost by the present value of the work", () => {
    // 70 units for 3 years at 10 %: PV of the work = 70·331/121; NPC = 1000 × that.
    expectRelClose(levelizedCost((70000 * 331) / 121, [70, 70, 70], 0.1), 1000, 1e-14);
    expect(() => levelizedCost(1, [0, 0], 0.1)).toThrow(/zero in every year/);
    expect(() => levelizedCost(1, [-1], 0.1)).toThrow(/work/);
  });
});

describe("confidenceGrade", () => {
  it("is Low under a 2 % lead, Medium when a plausible move reverses, High otherwise", () => {
    expect(confidenceGrade(1650, 280000, [])).toBe("Low");
    expect(confidenceGrade(5599, 280000, [{ share: 5, plausible: 0.1 }])).toBe("Low");
    expect(confidenceGrade(5600, 280000, [{ share: 5, plausible: 0.1 }])).toBe("High");
    expect(confidenceGrade(30000, 250000, [{ share: 0.0135, plausible: 0.1 }])).toBe("Medium");
    expect(confidenceGrade(30000, 250000, [{ share: 0.1, plausible: 0.1 }])).toBe("Medium");
    expect(
      confidenceGrade(30000, 250000, [
        { share: 0.11, plausible: 0.1 },
        { share: Infinity, plausible: 0.2 },
      ]),
    ).toBe("High");
    expect(confidenceGrade(null, 250000, [])).toBe("High");
    expect(confidenceGrade(null, null, [])).toBe("Low");
    expect(() => confidenceGrade(-1, 5, [])).toThrow(/lead/);
  });
});
