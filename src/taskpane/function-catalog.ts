/**
 * The worksheet functions as the task pane lists them. The list is the custom-functions metadata
 * (functions.json), injected at build time by webpack's DefinePlugin as `__CAPLAB_FUNCTIONS__`,
 * so the pane needs neither a network request nor Office.js to show it.
 */

/** One function as listed: its id, one-line description, parameters and help link. */
export interface FunctionSummary {
  /** Id without namespace, e.g. "MMC_RESPONSE". */
  id: string;
  /** Display name (the same as the id for our functions). */
  name: string;
  description: string;
  /** Absolute help URL from `@helpurl`, e.g. "https://localhost:3000/help.html#MMC_RESPONSE". */
  helpUrl: string;
  parameters: { name: string; optional: boolean }[];
}

declare const __CAPLAB_FUNCTIONS__: FunctionSummary[] | undefined;

/** The functions of this build, sorted by name; empty outside a webpack build (e.g. in Jest). */
export function bundledFunctions(): FunctionSummary[] {
  const list = typeof __CAPLAB_FUNCTIONS__ !== "undefined" ? __CAPLAB_FUNCTIONS__ : undefined;
  return [...(list ?? [])].sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * The formula a user would type, optional arguments in brackets.
 * @example signature({ name: "MMC_STAFF", parameters: [{ name: "target", optional: false }, { name: "answer_within", optional: true }] })
 * // => "=CAPLAB.MMC_STAFF(target, [answer_within])"
 */
export function signature(fn: Pick<FunctionSummary, "name" | "parameters">, namespace = "CAPLAB"): string {
  const args = fn.parameters.map((p) => (p.optional ? `[${p.name}]` : p.name));
  return `=${namespace}.${fn.name}(${args.join(", ")})`;
}

/**
 * The help link relative to the page, so it works from the dev server, a production host or a
 * file: "https://localhost:3000/help.html#NPV_IT" becomes "help.html#NPV_IT".
 */
export function relativeHelpLink(fn: Pick<FunctionSummary, "id" | "helpUrl">): string {
  const hash = fn.helpUrl.includes("#") ? fn.helpUrl.slice(fn.helpUrl.indexOf("#")) : `#${fn.id}`;
  return `help.html${hash}`;
}

/** Functions whose name or description contains every word of the query (case-insensitive). */
export function filterFunctions(list: readonly FunctionSummary[], query: string): FunctionSummary[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  return list.filter((fn) => {
    const text = `${fn.name} ${fn.description}`.toLowerCase();
    return words.every((w) => text.includes(w));
  });
}
