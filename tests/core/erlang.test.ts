import { erlangB, erlangC, isDomainError } from "../../src/core";
import { expectRelClose } from "./close";

describe("erlangB / erlangC", () => {
  it("matches the closed forms for one and two servers", () => {
    // B(1, a) = a/(1+a); B(2, a) = (a²/2)/(1 + a + a²/2); C(1, a) = a (M/M/1: P(wait) = ρ).
    for (const a of [1e-6, 0.1, 0.5, 0.9]) {
      expectRelClose(erlangB(1, a), a / (1 + a), 1e-15);
      expectRelClose(erlangB(2, a), (a * a) / 2 / (1 + a + (a * a) / 2), 1e-14);
      expectRelClose(erlangC(1, a), a, 1e-14);
    }
  });

  it("gives B = C = 0 exactly at zero load", () => {
    expect(erlangB(5, 0)).toBe(0);
    expect(erlangC(5, 0)).toBe(0);
  });

  it("matches the 4-server example: B(4, 2.4) by hand", () => {
    // B = (a^4/4!) / Σ_{k=0..4} a^k/k!, a = 2.4: 1.3824 / (1 + 2.4 + 2.88 + 2.304 + 1.3824) = 1.3824/9.9664.
    expectRelClose(erlangB(4, 2.4), 1.3824 / 9.9664, 1e-14);
  });

  it("stays finite and in [0, 1] for 100000 servers (no factorial overflow)", () => {
    const b = erlangB(100000, 99990);
    expect(b).toBeGreaterThan(0);
    expect(b).toBeLessThan(1);
    const c = erlangC(100000, 99990);
    expect(c).toBeGreaterThan(b);
    expect(c).toBeLessThan(1);
  });

  it.each([
    [0, 1, "servers"],
    [2.5, 1, "servers"],
    [-1, 1, "servers"],
    [3, -1, "offered_load"],
    [3, Number.NaN, "offered_load"],
    [3, 3, "offered_load"],
  ])("erlangC(%p, %p) throws a DomainError naming %s", (c, a, name) => {
    let thrown: unknown;
    try {
      erlangC(c, a);
    } catch (e) {
      thrown = e;
    }
    expect(isDomainError(thrown)).toBe(true);
    expect((thrown as Error).message.startsWith(`${name}: `)).toBe(true);
  });
});
