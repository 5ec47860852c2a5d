import { PANE_MAX_BYTES, paneSizeProblem } from "../../src/taskpane/pane-limits";

describe("paneSizeProblem", () => {
  const GiB = 2 ** 30;
  it("lets files through up to the limit in all, and refuses the one that goes over it", () => {
    expect(PANE_MAX_BYTES).toBe(1.25 * GiB);
    expect(paneSizeProblem("a.csv", PANE_MAX_BYTES, 0)).toBeNull();
    expect(paneSizeProblem("b.csv", 0.5 * GiB, 0.75 * GiB)).toBeNull();
    expect(paneSizeProblem("c.csv", 0.5 * GiB, 0.8 * GiB)).toBe(
      "c.csv: 0.50 GiB with the 0.80 GiB already chosen is more than the pane reads at once (1.25 GiB: the files " +
        "are held in this browser tab's memory, about 2 GB per GiB of CSV). Write the analysis with " +
        "`caplab report c.csv -o c.xlsx` on the command line, or import fewer files at once.",
    );
  });

  it("quotes a file name a shell would split or expand", () => {
    expect(paneSizeProblem("lab run 1.csv", 2 * GiB, 0)).toContain(
      "`caplab report 'lab run 1.csv' -o 'lab run 1.xlsx'`",
    );
    expect(paneSizeProblem("it's $HOME.csv", 2 * GiB, 0)).toContain(
      "`caplab report 'it'\\''s $HOME.csv' -o 'it'\\''s $HOME.xlsx'`",
    );
  });
});
