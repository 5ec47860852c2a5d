/**
 * The pane's colours: Fluent 2's web tokens (`@fluentui/tokens`, the design language of Office),
 * light or dark as Office is, or as the system is when Office does not say. Windows high contrast
 * (forced colours) overrides both in the browser; taskpane.css and the Fluent components keep their
 * borders and focus rings visible there with system colours.
 */
import { webDarkTheme, webLightTheme } from "@fluentui/tokens";
import { setTheme } from "@fluentui/web-components";

import { OfficeThemeLike, ThemeMode, themeMode } from "./theme-mode";

/** The Office theme if Office.js gives one here. */
function officeTheme(): OfficeThemeLike | undefined {
  try {
    return typeof Office !== "undefined" ? (Office.context?.officeTheme as OfficeThemeLike | undefined) : undefined;
  } catch {
    return undefined;
  }
}

/** Applies the tokens for `mode` and marks the page (`data-theme`) for taskpane.css. */
export function applyTheme(mode: ThemeMode): void {
  setTheme(mode === "dark" ? webDarkTheme : webLightTheme);
  document.documentElement.dataset.theme = mode;
  document.documentElement.style.colorScheme = mode;
}

/**
 * Follows the system now, and Office once Office.js is ready (call {@link followOfficeTheme}
 * then); the system's changes are followed as long as Office gives no theme.
 */
export function setupTheme(): void {
  const query = matchMedia("(prefers-color-scheme: dark)");
  applyTheme(themeMode(undefined, query.matches));
  query.addEventListener("change", () => applyTheme(themeMode(officeTheme(), query.matches)));
}

/** Applies Office's theme (after Office.onReady). */
export function followOfficeTheme(): void {
  applyTheme(themeMode(officeTheme(), matchMedia("(prefers-color-scheme: dark)").matches));
}
