/** The pane's light/dark choice from Office's theme and the system's preference. */
import { relativeLuminance, themeMode } from "../../src/taskpane/theme-mode";

describe("relativeLuminance (WCAG 2.2 definition)", () => {
  test("black, white and a mid grey; not a colour is null", () => {
    expect(relativeLuminance("#000000")).toBe(0);
    expect(relativeLuminance("#FFFFFF")).toBe(1);
    // #777777: (0x77/255 + 0.055)/1.055 = 0.5033…, to the power 2.4 = 0.1845… (worked by hand).
    expect(relativeLuminance("#777777")).toBeCloseTo(0.18447, 4);
    expect(relativeLuminance("white")).toBeNull();
    expect(relativeLuminance(undefined)).toBeNull();
  });
});

describe("themeMode", () => {
  test("Office's isDarkTheme wins over the system", () => {
    expect(themeMode({ isDarkTheme: true }, false)).toBe("dark");
    expect(themeMode({ isDarkTheme: false, bodyBackgroundColor: "#000000" }, true)).toBe("light");
  });

  test("without isDarkTheme, Office's background decides (Office's Black, Dark Gray, Colorful, White)", () => {
    expect(themeMode({ bodyBackgroundColor: "#262626" }, false)).toBe("dark");
    expect(themeMode({ bodyBackgroundColor: "#444444" }, false)).toBe("dark");
    expect(themeMode({ bodyBackgroundColor: "#E6E6E6" }, true)).toBe("light");
    expect(themeMode({ bodyBackgroundColor: "#FFFFFF" }, true)).toBe("light");
  });

  test("without an Office theme, the system's preference", () => {
    expect(themeMode(undefined, true)).toBe("dark");
    expect(themeMode(undefined, false)).toBe("light");
    expect(themeMode({ bodyBackgroundColor: "not a colour" }, true)).toBe("dark");
  });
});
