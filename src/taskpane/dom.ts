/** Small DOM helpers shared by the pane's sections. */

/** The element with this id; throws naming the id when taskpane.html lacks it. */
export function byId<T extends HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`taskpane.html has no #${id}`);
  return el as T;
}

/** An element with text content (never innerHTML: file names and messages are data). */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, text = "", className = ""): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (text) e.textContent = text;
  if (className) e.className = className;
  return e;
}
