import fc from "fast-check";
import { isDomainError, mergeQueues, mmcMetrics } from "../../src/core";
import { expectRelClose } from "./close";
import reference from "./fixtures/reference.json";

const ref = (c: number) => reference.mmc.find((r) => r.servers === c && r.serviceTime === 30)!;

describe("mergeQueues", () => {
  it("reproduces the seed's helpdesk example (4, 30, 0.08, 6, 30, 0.18)", () => {
    // Seed: 35.38205 / 60%, 67.00628 / 90%, combined 34.99083 / 78% (PDQ, exact Erlang C);
    // full precision from the 60-digit reference generator.
    const a = Object.freeze({ servers: 4, serviceTime: 30, arrivalRate: 0.08 });
    const b = Object.freeze({ servers: 6, serviceTime: 30, arrivalRate: 0.18 });
    const r = mergeQueues(a, b);
    expectRelClose(r.a.response, ref(4).meanResponse);
    expectRelClose(r.b.response, ref(6).meanResponse);
    expectRelClose(r.combined.response, ref(10).meanResponse);
    expectRelClose(r.a.utilization, 0.6);
    expectRelClose(r.b.utilization, 0.9);
    expectRelClose(r.combined.utilization, 0.78);
    expectRelClose(r.combined.pWait, ref(10).pWait);
    expectRelClose(r.combined.wait, ref(10).meanWait);
    expect(r.combinedServiceScv).toBe(1);
  });

  it("weights the pooled service time by arrival rate, not by staff", () => {
    // A: 2 staff, S = 10, λ = 0.1; B: 8 staff, S = 2, λ = 1.0. Rate-weighted S = (1 + 2)/1.1;
    // the seed's staff weighting would give (20 + 16)/10 = 3.6, not 2.7272….
    const r = mergeQueues(
      { servers: 2, serviceTime: 10, arrivalRate: 0.1 },
      { servers: 8, serviceTime: 2, arrivalRate: 1 },
    );
    const s = 3 / 1.1;
    expectRelClose(r.combined.utilization, (1.1 * s) / 10, 1e-14);
    // Mixture of exponentials: E[S²] = (0.1·2·100 + 1·2·4)/1.1 = 28/1.1; Cs² = E[S²]/S² − 1.
    const scv = 28 / 1.1 / (s * s) - 1;
    expectRelClose(r.combinedServiceScv, scv, 1e-13);
    // Allen–Cunneen: Wq = Wq(M/M/10 at S)·(1 + Cs²)/2.
    const mmc = mmcMetrics(10, s, 1.1);
    expectRelClose(r.combined.wait, (mmc.meanWait * (1 + scv)) / 2, 1e-13);
    expectRelClose(r.combined.response, s + r.combined.wait, 1e-13);
    expectRelClose(r.combined.pWait, mmc.pWait, 1e-13);
  });

  it("names the site and argument when a site is unstable or an argument is bad", () => {
    const good = { servers: 4, serviceTime: 30, arrivalRate: 0.08 };
    const cases: [() => unknown, string, RegExp][] = [
      [
        () => mergeQueues(good, { servers: 6, serviceTime: 30, arrivalRate: 0.2 }),
        "rate_b",
        /site B: the queue is unstable/,
      ],
      [
        () => mergeQueues({ servers: 4, serviceTime: 30, arrivalRate: 0.2 }, good),
        "rate_a",
        /site A: the queue is unstable/,
      ],
      [
        () => mergeQueues({ servers: 0, serviceTime: 30, arrivalRate: 0.01 }, good),
        "staff_a",
        /site A: must be a whole number/,
      ],
      [() => mergeQueues(good, { servers: 2, serviceTime: -3, arrivalRate: 0.01 }), "service_b", /site B/],
    ];
    for (const [body, name, pattern] of cases) {
      try {
        body();
        throw new Error("expected a DomainError");
      } catch (e) {
        expect(isDomainError(e)).toBe(true);
        expect((e as { argument: string }).argument).toBe(name);
        expect((e as Error).message).toMatch(pattern);
      }
    }
  });

  it("pooling never makes the combined wait worse than the worse site when service times are equal (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 1, max: 50 }),
        fc.double({ min: 0.01, max: 0.98, noNaN: true }),
        fc.double({ min: 0.01, max: 0.98, noNaN: true }),
        (ca, cb, ra, rb) => {
          const r = mergeQueues(
            { servers: ca, serviceTime: 5, arrivalRate: (ra * ca) / 5 },
            { servers: cb, serviceTime: 5, arrivalRate: (rb * cb) / 5 },
          );
          expect(r.combined.wait).toBeLessThanOrEqual(Math.max(r.a.wait, r.b.wait) * (1 + 1e-12));
          expect(r.combined.response).toBeGreaterThanOrEqual(5);
        },
      ),
      { numRuns: 200, seed: 4 },
    );
  });
});
