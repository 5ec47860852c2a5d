/**
 * The in-memory Excel behaves like Excel where the add-in depends on it (tests/excel/README.md):
 * each behaviour with the rule it models.
 */
import { createFakeHost, FakeHost, installFakeHost, typedValue, utf8Bytes } from "./fake-excel";
import * as wrappers from "../../src/functions/functions";

type Ctx = {
  sync(): Promise<void>;
  workbook: {
    worksheets: {
      add(name: string): Sheet;
      getItem(name: string): Sheet;
    };
  };
};
type Range = {
  values: unknown[][];
  formulas: unknown[][];
  numberFormat: string[][];
  load(p?: string): void;
};
type Sheet = {
  name: string;
  getRangeByIndexes(r: number, c: number, rows: number, cols: number): Range;
  tables: { add(range: Range, headers: boolean): { name: string } };
  copy(): Sheet;
};

function host(options = {}): FakeHost {
  const h = createFakeHost({ functions: wrappers, ...options });
  installFakeHost(globalThis as unknown as Record<string, unknown>, h);
  return h;
}

async function run<T>(h: FakeHost, fn: (ctx: Ctx) => Promise<T>): Promise<T> {
  return (h.Excel as { run: (f: (ctx: Ctx) => Promise<T>) => Promise<T> }).run(fn);
}

describe("typed text becomes what Excel makes of it, unless the cell is text", () => {
  it.each([
    ["123", 123],
    ["00123", 123],
    ["1e5", 100000],
    ["1,000.5", 1000.5],
    ["-5", -5],
    ["(100)", -100],
    ["£100", 100],
    ["$1,200", 1200],
    ["€-3", -3],
    ["50%", 0.5],
    ["1 1/2", 1.5],
    ["TRUE", true],
    ["false", false],
    ["12:30", 0.5208333333333334],
    ["2024-01-05", 45296],
    ["5-Jan-2024", 45296],
    ["Jan 5, 2024", 45296],
  ])("%s → %p", async (text, expected) => {
    expect(typedValue(text).value).toBe(expected);
    const h = host();
    await run(h, async (ctx) => {
      const ws = ctx.workbook.worksheets.add("S");
      const cells = ws.getRangeByIndexes(0, 0, 1, 2);
      cells.numberFormat = [["General", "@"]];
      cells.values = [[text, text]];
      await ctx.sync();
    });
    const s = h.workbook.sheet("S")!;
    expect(s.valueAt(0, 0)).toBe(expected);
    expect(s.valueAt(0, 1)).toBe(text); // formatted as text: kept
  });

  it("1/2 is a date in the current year, and plain words stay text", () => {
    const jan2 = typedValue("1/2").value as number;
    const y = new Date().getFullYear();
    expect(jan2).toBe((Date.UTC(y, 0, 2) - Date.UTC(1899, 11, 30)) / 86_400_000);
    for (const t of ["host-b", "r100-500", "1.2.3", "a1", "nfs", "12 drives", "June run"])
      expect(typedValue(t).value).toBe(t);
  });
});

test("a 1×1 number format applies to every cell of the range; a wrong-size array is refused", async () => {
  const h = host();
  const typed = [
    ["1e5", "00123"],
    ["TRUE", "£100"],
    ["1/2", "x"],
  ];
  await run(h, async (ctx) => {
    const ws = ctx.workbook.worksheets.add("S");
    ws.getRangeByIndexes(0, 0, 3, 2).numberFormat = [["@"]];
    ws.getRangeByIndexes(0, 0, 3, 2).values = typed;
    await ctx.sync();
  });
  expect(h.workbook.sheet("S")!.values(0, 0, 3, 2)).toEqual(typed);
  await expect(
    run(h, async (ctx) => {
      ctx.workbook.worksheets.getItem("S").getRangeByIndexes(0, 0, 3, 2).numberFormat = [["@", "@"]];
      await ctx.sync();
    }),
  ).rejects.toThrow(/InvalidArgument/);
});

describe("formulas", () => {
  it("an invalid formula fails the request: the operations after it do not run", async () => {
    const h = host();
    await expect(
      run(h, async (ctx) => {
        const ws = ctx.workbook.worksheets.add("S");
        ws.getRangeByIndexes(0, 0, 1, 1).values = [[1]];
        ws.getRangeByIndexes(1, 0, 1, 1).formulas = [["=SUM(A1"]];
        ws.getRangeByIndexes(2, 0, 1, 1).values = [[3]];
        await ctx.sync();
      }),
    ).rejects.toMatchObject({ code: "InvalidArgument" });
    const s = h.workbook.sheet("S")!;
    expect([s.valueAt(0, 0), s.has(1, 0), s.has(2, 0)]).toEqual([1, false, false]);
  });

  it("are calculated: a wrong reference shows a wrong value, whatever was written before", async () => {
    const h = host();
    await run(h, async (ctx) => {
      const ws = ctx.workbook.worksheets.add("Model");
      const r = ws.getRangeByIndexes(0, 0, 3, 3);
      r.values = [
        [4, 30, 0.08],
        [0, 0, 0],
        [0, 0, 0],
      ];
      // The right value written first, then formulas: one right, one pointing one row off.
      ws.getRangeByIndexes(1, 0, 2, 1).values = [[35.38205980066445], [35.38205980066445]];
      ws.getRangeByIndexes(1, 0, 2, 1).formulas = [
        ["=CAPLAB.MMC_RESPONSE(A1,B1,C1)"],
        ["=CAPLAB.MMC_RESPONSE(A2,B2,C2)"],
      ];
      ws.getRangeByIndexes(1, 1, 1, 1).formulas = [["=Model!A2*2+SUM(A1:C1)"]];
      await ctx.sync();
    });
    const s = h.workbook.sheet("Model")!;
    expect(s.valueAt(1, 0)).toBeCloseTo(35.38205980066445, 12);
    expect(s.valueAt(2, 0)).toMatch(/^#/); // MMC_RESPONSE(0, 0, 0): an error, not the value written
    expect(s.valueAt(1, 1)).toBeCloseTo(2 * 35.38205980066445 + 34.08, 10);
    expect(h.workbook.uncalculated).toEqual([]);
  });

  it("an array result spills, and is #SPILL! when a neighbour is taken or it is in a table", async () => {
    const h = host();
    await run(h, async (ctx) => {
      const ws = ctx.workbook.worksheets.add("S");
      ws.getRangeByIndexes(0, 0, 1, 1).formulas = [["={1;2;3}"]];
      ws.getRangeByIndexes(0, 2, 1, 1).formulas = [["={1;2;3}"]];
      ws.getRangeByIndexes(1, 2, 1, 1).values = [["taken"]];
      await ctx.sync();
    });
    const s = h.workbook.sheet("S")!;
    expect(s.values(0, 0, 3, 1).flat()).toEqual([1, 2, 3]);
    expect([s.valueAt(0, 2), s.valueAt(1, 2), s.errors.has("0,2")]).toEqual(["#SPILL!", "taken", true]);
  });
});

describe("limits", () => {
  it("a request is measured in UTF-8: 3 million 'é' are 6 MB, refused", async () => {
    expect(utf8Bytes("é€😀a")).toBe(2 + 3 + 4 + 1);
    const h = host();
    await expect(
      run(h, async (ctx) => {
        const ws = ctx.workbook.worksheets.add("S");
        ws.getRangeByIndexes(0, 0, 1, 1).values = [["é".repeat(3_000_000)]];
        await ctx.sync();
      }),
    ).rejects.toMatchObject({ code: "RequestPayloadSizeLimitExceeded" });
    expect(h.workbook.requests.at(-1)!.refused).toBe(true);
  });

  it("a response over 5 MB is refused", async () => {
    const h = host({ maxRequestBytes: 50_000_000 });
    await run(h, async (ctx) => {
      const ws = ctx.workbook.worksheets.add("S");
      ws.getRangeByIndexes(0, 0, 2000, 1).values = Array.from({ length: 2000 }, () => ["x".repeat(3000)]);
      await ctx.sync();
    });
    await expect(
      run(h, async (ctx) => {
        const r = ctx.workbook.worksheets.getItem("S").getRangeByIndexes(0, 0, 2000, 1);
        r.load("values");
        await ctx.sync();
      }),
    ).rejects.toMatchObject({ code: "ResponsePayloadSizeLimitExceeded" });
  });

  it("each sync waits the configured latency", async () => {
    jest.useFakeTimers();
    try {
      const h = host({ latencyMs: 20 });
      let done = false;
      const p = run(h, async (ctx) => {
        ctx.workbook.worksheets.add("S");
        await ctx.sync();
      }).then(() => (done = true));
      await jest.advanceTimersByTimeAsync(19);
      expect(done).toBe(false);
      await jest.advanceTimersByTimeAsync(5);
      await p;
      expect(done).toBe(true);
    } finally {
      jest.useRealTimers();
    }
  });
});

describe("names and tables", () => {
  it.each([["A".repeat(32)], ["a/b"], ["x[1]"], ["'quoted"], ["History"], [""]])(
    "sheet name %p is refused",
    async (name) => {
      const h = host();
      await expect(
        run(h, async (ctx) => {
          ctx.workbook.worksheets.add(name);
          await ctx.sync();
        }),
      ).rejects.toMatchObject({ code: "InvalidArgument" });
    },
  );

  it("sheet names are unique whatever the case", async () => {
    const h = host();
    await expect(
      run(h, async (ctx) => {
        ctx.workbook.worksheets.add("Steps");
        ctx.workbook.worksheets.add("STEPS");
        await ctx.sync();
      }),
    ).rejects.toMatchObject({ code: "ItemAlreadyExists" });
  });

  it("tables: valid unique names, no overlap, unique text headers; a copied sheet keeps its tables", async () => {
    const h = host();
    await run(h, async (ctx) => {
      const ws = ctx.workbook.worksheets.add("S");
      const r = ws.getRangeByIndexes(0, 0, 2, 3);
      r.values = [
        ["x", "", "X"],
        [1, 2, 3],
      ];
      ws.tables.add(r, true).name = "Data";
      await ctx.sync();
    });
    const s = h.workbook.sheet("S")!;
    expect(s.values(0, 0, 1, 3)[0]).toEqual(["x", "Column2", "X2"]);
    for (const [name, at] of [
      ["A1", [5, 0]],
      ["has space", [5, 0]],
      ["data", [5, 0]],
      ["Other", [1, 1]],
    ] as const) {
      await expect(
        run(h, async (ctx) => {
          const ws = ctx.workbook.worksheets.getItem("S");
          ws.tables.add(ws.getRangeByIndexes(at[0], at[1], 2, 2), true).name = name;
          await ctx.sync();
        }),
      ).rejects.toMatchObject({ code: expect.stringMatching(/InvalidArgument|ItemAlreadyExists/) });
    }
    await run(h, async (ctx) => {
      ctx.workbook.worksheets.getItem("S").copy();
      await ctx.sync();
    });
    expect(h.workbook.tables.map((t) => [t.name, t.sheet])).toEqual([
      ["Data", "S"],
      ["Data2", "S (2)"],
    ]);
  });
});
