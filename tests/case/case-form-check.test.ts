/** The Case form's reading of typed numbers, its field names and its list of every problem. */
import { allProblems, humanPath, typedNumber } from "../../src/taskpane/case-check";
import { STARTING_CASE } from "../../src/taskpane/case-new";

describe("typedNumber", () => {
  it.each([
    ["0.1", undefined, 0.1],
    ["10%", undefined, 0.1],
    ["7.5%", undefined, 0.075],
    ["70k", undefined, 70000],
    ["70,000", undefined, 70000],
    ["1.5M", undefined, 1500000],
    ["81 µs", "s", 0.000081],
    ["81us", "s", 0.000081],
    ["0.5 ms", "s", 0.0005],
    ["30 min", "min", 30],
    ["2 h", "min", 120],
    ["", undefined, undefined],
    ["a lot", undefined, "a lot"],
    ["81 µs", "calls", "81 µs"],
  ])("%p (time unit %p) → %p", (text, unit, want) => {
    expect(typedNumber(text, unit)).toBe(want);
  });
});

describe("humanPath", () => {
  const draft = {
    options: [
      { name: "NFS", opex: [{ label: "Support" }] },
      { name: "FC", workloads: [{ name: "Hypervisor IO" }] },
    ],
  };
  it.each([
    ["discountRate", "Discount rate"],
    ["options[1].workloads[0].arrivalRate", "FC › Workload 1 (Hypervisor IO) › Arrival rate"],
    ["options[0].opex[0].perYear", "NFS › Cost line 1 (Support) › Per year"],
    ["options[1].workloads[0].sizing.utilization", "FC › Workload 1 (Hypervisor IO) › Size by › Target utilization"],
    ["options[2].name", "Option 3 › Name"],
  ])("%s → %s", (path, want) => expect(humanPath(path, draft)).toBe(want));
});

describe("allProblems", () => {
  it("is empty for a valid case", () => {
    expect(allProblems(STARTING_CASE)).toEqual([]);
  });

  it("lists a problem in the case's fields, in each option and in each workload at once", () => {
    const bad = structuredClone(STARTING_CASE) as unknown as Record<string, unknown> & {
      options: Record<string, unknown>[];
    };
    bad.discountRate = "ten";
    bad.options[0].capex = -5;
    bad.options[1].workloads = [
      { name: "IO", arrivalRate: 0, serviceTime: 0.001, sizing: { utilization: 0.7 } },
      { name: "IO 2", arrivalRate: 10, serviceTime: -1, sizing: { utilization: 0.7 } },
    ];
    const problems = allProblems(bad);
    expect(problems.map((p) => p.path)).toEqual([
      "discountRate",
      "options[0].capex",
      "options[1].workloads[0].arrivalRate",
      "options[1].workloads[1].serviceTime",
    ]);
    expect(problems[1].message).toBe("must be an amount ≥ 0, got -5");
  });

  it("keeps a problem only the whole case shows (two options with one name)", () => {
    const bad = structuredClone(STARTING_CASE) as unknown as { options: Record<string, unknown>[] };
    bad.options[1].name = bad.options[0].name;
    expect(allProblems(bad).map((p) => p.path)).toEqual(["options[1].name"]);
  });
});
