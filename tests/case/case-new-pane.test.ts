/** The pane's "New business case" section: the editor's text to a case plan, or a clear problem. */
import { caseFromText, STARTING_CASE } from "../../src/taskpane/case-new";

describe("caseFromText", () => {
  it("builds the starting example for Excel with the add-in (NPV_IT as a CAPLAB formula)", () => {
    const r = caseFromText(JSON.stringify(STARTING_CASE));
    if ("error" in r) throw new Error(r.error);
    expect(r.plan.plan.sheets[0].notes[1]).toContain("breaks even with Keep current array at a capex of £273,554");
    expect(JSON.stringify(r.plan.plan)).toContain('"addinFormula":"CAPLAB.NPV_IT(');
  });

  it("names the bad input, or says the JSON is broken", () => {
    const bad = structuredClone(STARTING_CASE) as unknown as { options: Record<string, unknown>[] };
    bad.options[1].capex = -5;
    expect(caseFromText(JSON.stringify(bad))).toEqual({ error: "options[1].capex: must be an amount ≥ 0, got -5" });
    expect(caseFromText("{")).toEqual({ error: expect.stringMatching(/^Not valid JSON: /) });
  });
});
