/** Light or dark, from Office's theme or the system's preference (pure: no DOM, no Office.js). */

export type ThemeMode = "light" | "dark";

/** What the pane reads from `Office.context.officeTheme` (any of it may be missing). */
export interface OfficeThemeLike {
  isDarkTheme?: unknown;
  bodyBackgroundColor?: unknown;
}

/**
 * Relative luminance of a "#RRGGBB" colour (WCAG 2.2, "relative luminance"), or null for anything
 * else.
 * @example relativeLuminance("#FFFFFF") // => 1
 */
export function relativeLuminance(hex: unknown): number | null {
  const m = typeof hex === "string" ? /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex.trim()) : null;
  if (!m) return null;
  const [r, g, b] = m.slice(1).map((h) => {
    const c = parseInt(h, 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/**
 * Light or dark: Office's `isDarkTheme` when it gives one (Black and Dark Gray are dark), else
 * the luminance of Office's body background (hosts without `isDarkTheme`), else the system's
 * `prefers-color-scheme`.
 * @example themeMode({ bodyBackgroundColor: "#262626" }, false) // => "dark"
 */
export function themeMode(office: OfficeThemeLike | undefined, systemDark: boolean): ThemeMode {
  if (typeof office?.isDarkTheme === "boolean") return office.isDarkTheme ? "dark" : "light";
  const luminance = relativeLuminance(office?.bodyBackgroundColor);
  // 0.18: the luminance at which black and white text have equal contrast ((L+0.05)·(L+0.05) = 1.05·0.05).
  if (luminance !== null) return luminance < 0.18 ? "dark" : "light";
  return systemDark ? "dark" : "light";
}
