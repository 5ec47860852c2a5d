/**
 * Watches where the keyboard focus is (WCAG 2.4.3/2.4.7: the focus must not fall to the page, where
 * a keyboard or screen reader user loses their place): from the first click or key press on, every
 * moment the focus is on <body> is recorded with the element that had it last. A test reads the
 * record with {@link focusOnBody}. Given to openPane as its initScript.
 */
import type { Page } from "playwright-core";

export const FOCUS_WATCH = `(() => {
  const lost = [];
  let armed = false;
  let last = "";
  const name = (e) => (e && e !== document.body ? (e.id ? "#" + e.id : e.localName) : "");
  const check = () => {
    if (!armed) return;
    const a = document.activeElement;
    if (a === null || a === document.body) {
      const said = document.getElementById("import-status");
      const entry = "focus on <body> after " + (last || "(nothing)") + (said ? " (import status: " + JSON.stringify((said.textContent || "").slice(0, 60)) + ")" : "");
      if (lost[lost.length - 1] !== entry) lost.push(entry);
    } else last = name(a);
  };
  window.__focusLost = lost;
  document.addEventListener("pointerdown", () => (armed = true), true);
  document.addEventListener("keydown", () => (armed = true), true);
  document.addEventListener("focusin", check, true);
  // A focused element that is removed or hidden leaves the focus on <body> without a focusout.
  setInterval(check, 10);
})();`;

/** What {@link FOCUS_WATCH} recorded: one line per time the focus fell to <body> (empty: never). */
export async function focusOnBody(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { __focusLost: string[] }).__focusLost);
}
