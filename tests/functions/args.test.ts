import {
  choice,
  describeValue,
  isMissing,
  numberMatrix,
  numberVector,
  optionalBoolean,
  optionalNumber,
  optionalWholeNumber,
  requiredNumber,
  requiredText,
  wholeNumber,
} from "../../src/functions/args";
import { isDomainError } from "../../src/core/errors";

/** "<kind> <message>" of the DomainError thrown by `body`. */
function failure(body: () => unknown): string {
  try {
    body();
  } catch (e) {
    if (isDomainError(e)) return `${e.kind} ${e.message}`;
    throw e;
  }
  throw new Error("expected a DomainError");
}

describe("argument converters", () => {
  it("treat undefined, null and empty text as missing", () => {
    expect([undefined, null, ""].map(isMissing)).toEqual([true, true, true]);
    expect([0, " ", false].map(isMissing)).toEqual([false, false, false]);
  });

  it("requiredNumber: numbers pass, a 1×1 array unwraps, everything else names the argument", () => {
    expect(requiredNumber(2.5, "x")).toBe(2.5);
    expect(requiredNumber([[7]], "x")).toBe(7);
    expect(failure(() => requiredNumber(null, "rate"))).toBe("value rate: is missing: a number is required");
    expect(failure(() => requiredNumber("4", "rate"))).toBe('value rate: must be a number, got text "4"');
    expect(failure(() => requiredNumber(false, "rate"))).toBe("value rate: must be a number, got FALSE");
    expect(failure(() => requiredNumber(Number.NaN, "rate"))).toBe("num rate: must be a finite number, got NaN");
    expect(failure(() => requiredNumber([[1, 2]], "rate"))).toBe("value rate: must be a single value, got a 1×2 range");
  });

  it("optionalNumber / optionalWholeNumber: undefined when omitted", () => {
    expect(optionalNumber(null, "t")).toBeUndefined();
    expect(optionalNumber(undefined, "t")).toBeUndefined();
    expect(optionalNumber(3, "t")).toBe(3);
    expect(optionalWholeNumber("", "periods", 0)).toBeUndefined();
    expect(optionalWholeNumber(0, "periods", 0)).toBe(0);
  });

  it("wholeNumber: the message names the argument, the rule and the value", () => {
    expect(wholeNumber(4, "servers")).toBe(4);
    expect(failure(() => wholeNumber(-1, "servers"))).toBe("num servers: must be a whole number ≥ 1, got -1");
    expect(failure(() => wholeNumber(1.5, "servers"))).toBe("num servers: must be a whole number ≥ 1, got 1.5");
    expect(failure(() => wholeNumber("two", "servers"))).toBe(
      'value servers: must be a whole number ≥ 1, got text "two"',
    );
  });

  it("numberVector: rows, columns, scalars; blank policies; no 2-D blocks", () => {
    expect(numberVector(5, "v", "zero")).toEqual([5]);
    expect(numberVector([1, 2], "v", "zero")).toEqual([1, 2]);
    expect(numberVector([[1], [""], [3]], "v", "zero")).toEqual([1, 0, 3]);
    expect(numberVector([[1, null, 3]], "v", "skip")).toEqual([1, 3]);
    expect(failure(() => numberVector([[1, null]], "v", "error"))).toBe("value v: the cell at position 2 is empty");
    expect(failure(() => numberVector([[1], ["a"]], "v", "zero"))).toBe(
      'value v: the cell at position 2 must be a number, got text "a"',
    );
    expect(
      failure(() =>
        numberVector(
          [
            [1, 2],
            [3, 4],
          ],
          "v",
          "zero",
        ),
      ),
    ).toBe("value v: must be a single row or column, got a 2×2 range");
    expect(failure(() => numberVector([[null, ""]], "v", "zero"))).toBe(
      "value v: is empty: at least one number is required",
    );
  });

  it("numberMatrix: rectangular blocks only", () => {
    expect(
      numberMatrix(
        [
          [1, 2],
          [3, ""],
        ],
        "m",
        "zero",
      ),
    ).toEqual([
      [1, 2],
      [3, 0],
    ]);
    expect(failure(() => numberMatrix([[1, 2], [3]], "m", "zero"))).toBe("value m: row 2 has 1 cells, expected 2");
  });

  it("choice, requiredText, optionalBoolean", () => {
    expect(choice(undefined, "method", ["exact", "bound"] as const)).toBe("exact");
    expect(choice(" BOUND ", "method", ["exact", "bound"] as const)).toBe("bound");
    expect(failure(() => choice(1, "method", ["exact", "bound"] as const))).toBe(
      'value method: must be "exact" or "bound", got 1',
    );
    expect(requiredText(" a ", "s")).toBe("a");
    expect(failure(() => requiredText(3, "s"))).toBe("value s: must be text, got 3");
    expect(optionalBoolean(null, "b", true)).toBe(true);
    expect(optionalBoolean(0, "b", true)).toBe(false);
    expect(failure(() => optionalBoolean("yes", "b", true))).toBe('value b: must be TRUE or FALSE, got text "yes"');
  });

  it("describeValue keeps messages short", () => {
    expect(describeValue("x".repeat(100))).toBe(`text "${"x".repeat(37)}..."`);
    expect(describeValue(true)).toBe("TRUE");
    expect(describeValue(undefined)).toBe("nothing");
    // Review: Excel passes a blank cell of a range as "": "must be a number or text, got text \"\"" read
    // as a contradiction (DOE_FIT factors).
    expect(describeValue("")).toBe("an empty cell");
    expect(describeValue("  ")).toBe('text "  "');
  });
  it("describeValue names an error value by its code, with its message when it adds something (review)", () => {
    const err = (code: string, message: string) => Object.assign(new Error(message), { code });
    expect(describeValue(err("#N/A", "#N/A"))).toBe("the error #N/A");
    expect(describeValue(err("#NUM!", "the result is too large for a number"))).toBe(
      "the error #NUM! (the result is too large for a number)",
    );
    expect(describeValue(new Error("boom"))).toBe("the error boom");
  });
});
