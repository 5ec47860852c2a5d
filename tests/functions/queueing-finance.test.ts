import fc from "fast-check";
import {
  LB_MAXUTIL,
  MERGE_QUEUES,
  MMC_METRICS,
  MMC_RESPONSE,
  MMC_SERVICE_LEVEL,
  MMC_STAFF,
  NPV_IT,
} from "../../src/functions/functions";
import { ExcelError, isExcelError } from "../../src/functions/excel-error";
import { expectRelClose } from "../core/close";
import reference from "../core/fixtures/reference.json";

/** The ExcelError thrown by `body`; fails if it returns or throws anything else. */
function excelError(body: () => unknown): ExcelError {
  let result: unknown;
  try {
    result = body();
  } catch (e) {
    if (isExcelError(e)) return e;
    throw new Error(`expected an ExcelError, got ${String(e)}`);
  }
  throw new Error(`expected an ExcelError, got the value ${JSON.stringify(result)}`);
}

describe("reference values through the worksheet wrappers", () => {
  it("MMC_RESPONSE: the helpdesk example's three values (60-digit Erlang B reference, tests/core/fixtures)", () => {
    for (const c of [4, 6, 10]) {
      const ref = reference.mmc.find((r) => r.servers === c && r.serviceTime === 30)!;
      expectRelClose(MMC_RESPONSE(c, 30, ref.arrivalRate), ref.meanResponse);
    }
    expect(MMC_RESPONSE(4, 30, 0.08).toFixed(6)).toBe("35.382060");
    expect(MMC_RESPONSE(6, 30, 0.18).toFixed(6)).toBe("67.006285");
    expect(MMC_RESPONSE(10, 30, 0.26).toFixed(6)).toBe("34.990833");
  });

  it("MMC_RESPONSE for 100000 servers within 1e-8 (60-digit reference)", () => {
    const ref = reference.mmc.find((r) => r.servers === 100000 && r.arrivalRate === 99990)!;
    expectRelClose(MMC_RESPONSE(100000, 1, 99990), ref.meanResponse, 1e-8);
  });

  it("MMC_METRICS spills labels and values, utilization as a fraction", () => {
    const t = MMC_METRICS(4, 30, 0.08);
    expect(t.map((r) => r[0])).toEqual([
      "Utilization",
      "P(wait)",
      "Mean wait",
      "Mean response",
      "Mean queue length (Lq)",
      "Mean number in system (L)",
    ]);
    const ref = reference.mmc[0];
    expectRelClose(t[0][1], 0.6);
    expectRelClose(t[1][1], ref.pWait);
    expectRelClose(t[2][1], ref.meanWait);
    expectRelClose(t[3][1], ref.meanResponse);
    expectRelClose(t[4][1], ref.meanQueueLength);
    expectRelClose(t[5][1], ref.meanInSystem);
  });

  it("MMC_SERVICE_LEVEL and MMC_STAFF: 100 calls/h, 180 s, 85% within 15 s ⇒ 8 agents", () => {
    expect(MMC_STAFF(180, 100 / 3600, 0.85, 15)).toBe(8);
    const ref8 = reference.mmc.find((r) => r.servers === 8)!;
    expectRelClose(MMC_SERVICE_LEVEL(8, 180, 100 / 3600, 15), ref8.serviceLevel as number);
    expect(MMC_SERVICE_LEVEL(7, 180, 100 / 3600, 15)).toBeLessThan(0.85);
    expect(MMC_STAFF(180, 100 / 3600, 0.85, null)).toBeGreaterThanOrEqual(6); // omitted ⇒ mean-wait target
  });

  it("MERGE_QUEUES spills the exact layout with the seed's figures", () => {
    const t = MERGE_QUEUES(4, 30, 0.08, 6, 30, 0.18);
    expect(t[0]).toEqual(["Site", "Response", "Utilization", "Wait", "P(wait)"]);
    expect(t.map((r) => r[0])).toEqual(["Site", "A", "B", "Combined"]);
    expect((t[1][1] as number).toFixed(5)).toBe("35.38206");
    expect((t[2][1] as number).toFixed(5)).toBe("67.00629");
    expect((t[3][1] as number).toFixed(5)).toBe("34.99083");
    expectRelClose(t[1][2], 0.6);
    expectRelClose(t[2][2], 0.9);
    expectRelClose(t[3][2], 0.78);
  });

  it("NPV_IT: range and single-amount forms give 273553.72", () => {
    // Closed form: NPV_IT(0.1, {100000,100000,100000}) = NPV_IT(0.1, 100000, 2) = 273553.72 (= 100000·331/121).
    expectRelClose(NPV_IT(0.1, [[100000, 100000, 100000]]), (100000 * 331) / 121, 1e-15);
    expectRelClose(NPV_IT(0.1, [[100000], [100000], [100000]]), (100000 * 331) / 121, 1e-15);
    expectRelClose(NPV_IT(0.1, [[100000]], 2), (100000 * 331) / 121, 1e-15);
    expectRelClose(NPV_IT(0.1, 100000 as unknown as unknown[][], 2), (100000 * 331) / 121, 1e-15);
  });

  it("NPV_IT: a blank cell counts as 0 and keeps its position", () => {
    expectRelClose(NPV_IT(0.1, [[100, "", 121]]), 100 + 121 / 1.21, 1e-15);
    expectRelClose(NPV_IT(0.1, [[100, null, 121]]), 200, 1e-15);
  });

  it("LB_MAXUTIL: exact and bound", () => {
    expectRelClose(LB_MAXUTIL(10, 2, 0.3, 0.1), 1.5 + (0.1 * Math.sqrt(5)) / Math.sqrt(Math.PI), 1e-11);
    expectRelClose(LB_MAXUTIL(10, 2, 0.3, 0.1, "Bound"), 1.5 + 0.1 * Math.sqrt(5) * Math.sqrt(2 * Math.log(2)), 1e-14);
    expect(LB_MAXUTIL(10, 1, 0.3, 0.1)).toBeCloseTo(3, 14);
  });
});

describe("errors: the Excel error that fits, with a message naming the argument", () => {
  it.each([
    [() => MMC_RESPONSE(4, 30, 0.2), "#NUM!", /^arrival_rate: the queue is unstable/],
    [() => MMC_RESPONSE(-1, 30, 0.08), "#NUM!", /^servers: must be a whole number ≥ 1, got -1$/],
    [() => MMC_RESPONSE(2.5, 30, 0.08), "#NUM!", /^servers: must be a whole number ≥ 1, got 2.5$/],
    [() => MMC_RESPONSE(1e300, 30, 0.08), "#NUM!", /^servers: at most 10000000 servers are supported/],
    [() => MMC_RESPONSE(4, "thirty", 0.08), "#VALUE!", /^service_time: must be a number, got text "thirty"$/],
    [() => MMC_RESPONSE(4, 30, null), "#VALUE!", /^arrival_rate: is missing/],
    [() => MMC_RESPONSE(4, 30, 0), "#NUM!", /^arrival_rate: must be a positive rate/],
    [() => MMC_RESPONSE(4, 30, true), "#VALUE!", /^arrival_rate: must be a number, got TRUE$/],
    [() => MMC_RESPONSE(4, [[1, 2]], 0.08), "#VALUE!", /^service_time: must be a single value/],
    [() => MMC_SERVICE_LEVEL(4, 30, 0.08, -5), "#NUM!", /^answer_within:/],
    [() => MMC_STAFF(180, 100 / 3600, 1.5, 15), "#NUM!", /^target:/],
    [() => MERGE_QUEUES(4, 30, 0.08, 6, 30, 0.3), "#NUM!", /^rate_b: site B: the queue is unstable/],
    [() => MERGE_QUEUES(0, 30, 0.08, 6, 30, 0.1), "#NUM!", /^staff_a: must be a whole number ≥ 1, got 0$/],
    [() => NPV_IT(-1, [[1]]), "#NUM!", /^rate:/],
    [() => NPV_IT(0, [[1.7e308, 1.7e308]]), "#NUM!", /^cashflows: the result is too large/],
    [() => MMC_RESPONSE(1, 1e308, 0.99999e-308), "#NUM!", /^service_time: the result is too large/],
    [() => LB_MAXUTIL(1e300, 1, 1e300, 0), "#NUM!", /^workloads: the result is too large/],
    [() => NPV_IT(0.1, [[1, "x"]]), "#VALUE!", /^cashflows: the cell at position 2 must be a number/],
    [
      () =>
        NPV_IT(0.1, [
          [1, 2],
          [3, 4],
        ]),
      "#VALUE!",
      /^cashflows: must be a single row or column, got a 2×2 range$/,
    ],
    [() => NPV_IT(0.1, [[1, 2]], 3), "#VALUE!", /^periods: only applies to a single amount/],
    [() => NPV_IT(0.1, [[""]]), "#VALUE!", /^cashflows: is empty/],
    [() => LB_MAXUTIL(10, 0, 0.3, 0.1), "#NUM!", /^centres: must be a whole number ≥ 1, got 0$/],
    [() => LB_MAXUTIL(10, 2, 0.3, 0.1, "median"), "#VALUE!", /^method: must be "exact" or "bound", got text "median"$/],
  ])("case %#", (body, code, message) => {
    const e = excelError(body);
    expect(e.code).toBe(code);
    expect(e.message).toMatch(message);
  });

  /** Anything a cell can hold, good or bad. */
  const cell = fc.oneof(
    fc.double(),
    fc.integer({ min: -5, max: 20 }),
    fc.string({ maxLength: 5 }),
    fc.boolean(),
    fc.constantFrom(null, undefined, "", Number.NaN, Number.POSITIVE_INFINITY, -0),
    fc.array(fc.array(fc.double(), { minLength: 1, maxLength: 2 }), { minLength: 1, maxLength: 2 }),
  );
  const wrappers: [string, (...args: unknown[]) => unknown, number][] = [
    ["MMC_RESPONSE", MMC_RESPONSE as (...args: unknown[]) => unknown, 3],
    ["MMC_METRICS", MMC_METRICS as (...args: unknown[]) => unknown, 3],
    ["MMC_SERVICE_LEVEL", MMC_SERVICE_LEVEL as (...args: unknown[]) => unknown, 4],
    ["MMC_STAFF", MMC_STAFF as (...args: unknown[]) => unknown, 4],
    ["MERGE_QUEUES", MERGE_QUEUES as (...args: unknown[]) => unknown, 6],
    ["NPV_IT", NPV_IT as (...args: unknown[]) => unknown, 3],
    ["LB_MAXUTIL", LB_MAXUTIL as (...args: unknown[]) => unknown, 5],
  ];

  it.each(wrappers)(
    "%s: any input gives a finite result or an ExcelError whose message names an argument",
    (_, fn, arity) => {
      fc.assert(
        fc.property(fc.array(cell, { minLength: arity, maxLength: arity }), (args) => {
          let result: unknown;
          try {
            result = fn(...args.map((a) => (_ === "NPV_IT" && args.indexOf(a) === 1 && !Array.isArray(a) ? [[a]] : a)));
          } catch (e) {
            expect(isExcelError(e)).toBe(true);
            expect((e as Error).message).toMatch(/^[a-z_ +]+: \S/);
            expect((e as Error).message).not.toMatch(/internal error/);
            return;
          }
          const values = Array.isArray(result)
            ? (result as unknown[][]).flat().filter((v) => typeof v === "number")
            : [result];
          for (const v of values) {
            expect(typeof v).toBe("number");
            expect(Number.isFinite(v)).toBe(true);
          }
        }),
        { numRuns: 300, seed: 11 },
      );
    },
  );
});
