import { expectedMaximumNormal, isDomainError, lbMaxUtil } from "../../src/core";
import { expectRelClose } from "./close";

describe("lbMaxUtil", () => {
  it("is (N/M)·mean + sd·√(N/M)·E[max of M] with the exact method", () => {
    // 10 workloads of N(0.3, 0.1²) on 2 centres: 1.5 + 0.1·√5·(1/√π), E[max of 2] = 1/√π exactly.
    expectRelClose(lbMaxUtil(10, 2, 0.3, 0.1), 1.5 + (0.1 * Math.sqrt(5)) / Math.sqrt(Math.PI), 1e-11);
    expectRelClose(lbMaxUtil(100, 10, 0.2, 0.05, "exact"), 2 + 0.05 * Math.sqrt(10) * expectedMaximumNormal(10), 1e-15);
  });

  it("uses σ·√(2 ln M) with the bound method (the seed's formula)", () => {
    expectRelClose(lbMaxUtil(40, 4, 0.3, 0.1, "bound"), 3 + 0.1 * Math.sqrt(10) * Math.sqrt(2 * Math.log(4)), 1e-15);
  });

  it("the bound overstates the excess by 109%, 62%, 39%, 21% at M = 2, 4, 10, 100 (the help's figures)", () => {
    const over = (m: number) => (lbMaxUtil(m, m, 0, 1, "bound") / lbMaxUtil(m, m, 0, 1, "exact") - 1) * 100;
    expect(Math.round(over(2))).toBe(109);
    expect(Math.round(over(4))).toBe(62);
    expect(Math.round(over(10))).toBe(39);
    expect(Math.round(over(100))).toBe(21);
  });

  it("has no excess for one centre", () => {
    expect(lbMaxUtil(7, 1, 0.25, 0.3)).toBe(1.75);
    expect(lbMaxUtil(7, 1, 0.25, 0.3, "bound")).toBe(1.75);
  });

  it("handles a million centres", () => {
    expectRelClose(lbMaxUtil(1e6, 1e6, 0, 1), 4.862897486196463, 1e-9); // mpmath reference
  });

  it.each([
    [() => lbMaxUtil(10, 0, 0.3, 0.1), "centres"],
    [() => lbMaxUtil(10, 2.5, 0.3, 0.1), "centres"],
    [() => lbMaxUtil(0, 2, 0.3, 0.1), "workloads"],
    [() => lbMaxUtil(10, 2, -0.3, 0.1), "mean"],
    [() => lbMaxUtil(10, 2, 0.3, -0.1), "sd"],
    [() => lbMaxUtil(10, 2, 0.3, 0.1, "guess" as "exact"), "method"],
  ])("rejects bad input %#", (body, name) => {
    try {
      body();
      throw new Error("expected a DomainError");
    } catch (e) {
      expect(isDomainError(e) && e.argument).toBe(name);
    }
  });
});
