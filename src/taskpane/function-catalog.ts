/**
 * The worksheet functions as the task pane lists, finds and inserts them. The list is the
 * custom-functions metadata (functions.json), injected at build time by webpack's DefinePlugin as
 * `__CAPLAB_FUNCTIONS__` (scripts/function-summaries.js), so the pane needs neither a network
 * request nor Office.js to show it. Pure: no DOM, no Office.js.
 */

/** One parameter as documented in the function's JSDoc. */
export interface ParameterSummary {
  name: string;
  /** The JSDoc @param text (empty when none). */
  description?: string;
  optional: boolean;
  /** Takes a range (a matrix) rather than one value. */
  range?: boolean;
}

/** One function as listed: its id, one-line description, parameters and help link. */
export interface FunctionSummary {
  /** Id without namespace, e.g. "MMC_RESPONSE". */
  id: string;
  /** Display name (the same as the id for our functions). */
  name: string;
  description: string;
  /** Absolute help URL from `@helpurl`, e.g. "https://localhost:3000/help.html#MMC_RESPONSE". */
  helpUrl: string;
  parameters: ParameterSummary[];
}

declare const __CAPLAB_FUNCTIONS__: FunctionSummary[] | undefined;

/** The functions of this build, sorted by name; empty outside a webpack build (e.g. in Jest). */
export function bundledFunctions(): FunctionSummary[] {
  const list = typeof __CAPLAB_FUNCTIONS__ !== "undefined" ? __CAPLAB_FUNCTIONS__ : undefined;
  return [...(list ?? [])].sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * The ideas each function is about, in the words a capacity planner searches with when the name
 * and description do not say them (e.g. "knee", "Little's law", "M/M/1" for c = 1). Taken from
 * each function's help page (docs/functions/*.md) and what it computes; a function missing here
 * is still found by its name and description.
 */
export const FUNCTION_CONCEPTS: Readonly<Record<string, readonly string[]>> = {
  MMC_RESPONSE: [
    "M/M/1 (one server)",
    "Erlang C",
    "queueing",
    "latency",
    "knee of the response-time curve",
    "utilization",
    "saturation",
  ],
  MMC_METRICS: [
    "M/M/1 (one server)",
    "Erlang C",
    "queueing",
    "Little's law (L = λW)",
    "queue length",
    "utilization",
    "latency",
  ],
  MMC_SERVICE_LEVEL: ["M/M/1 (one server)", "Erlang C", "queueing", "SLA", "helpdesk", "call centre", "waiting time"],
  MMC_STAFF: ["M/M/1 (one server)", "Erlang C", "queueing", "staffing", "sizing", "how many servers or cores", "SLA"],
  MERGE_QUEUES: ["pooling", "consolidation", "economies of scale", "M/M/c", "utilization", "helpdesk"],
  NPV_IT: ["net present value", "discounted cash flow (DCF)", "TCO", "business case", "cost"],
  LB_MAXUTIL: ["load balancing", "busiest centre", "hot spot", "imbalance", "utilization", "expected maximum"],
  DOE_FIT: ["regression", "ANOVA", "factorial", "interactions", "least squares", "lm", "DoE"],
  DOE_DESIGN: ["factorial design", "run sheet", "experiment plan", "randomize", "DoE"],
  SEEN_ENOUGH: ["steady state", "warm-up", "confidence interval", "stopping rule", "measurement window", "ivy"],
};

/** Lower case, letters and digits only: "M/M/1" and "mm1", "Little's" and "littles" meet. */
function compact(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");
}

/**
 * Functions that match every word of the query in their name, description or concepts
 * ({@link FUNCTION_CONCEPTS}), ignoring case and punctuation ("mm1" finds M/M/1, "little" finds
 * Little's law). Best first: a word in the name counts most, then in a concept, then in the
 * description; ties by name.
 * @example filterFunctions(list, "knee").map((f) => f.id) // => ["MMC_RESPONSE"]
 */
export function filterFunctions(list: readonly FunctionSummary[], query: string): FunctionSummary[] {
  const words = query.split(/\s+/).map(compact).filter(Boolean);
  if (words.length === 0) return [...list];
  const scored = list.map((fn) => {
    const name = compact(fn.name);
    const concepts = compact((FUNCTION_CONCEPTS[fn.id] ?? []).join(" "));
    const description = compact(fn.description);
    let score = 0;
    for (const w of words) {
      if (name.includes(w)) score += 100;
      else if (concepts.includes(w)) score += 10;
      else if (description.includes(w)) score += 1;
      else return { fn, score: -1 };
    }
    return { fn, score };
  });
  return scored
    .filter((s) => s.score >= 0)
    .sort((a, b) => b.score - a.score || a.fn.name.localeCompare(b.fn.name))
    .map((s) => s.fn);
}

/**
 * The formula a user would type, optional arguments in brackets.
 * @example signature({ name: "MMC_STAFF", parameters: [{ name: "target", optional: false }, { name: "answer_within", optional: true }] })
 * // => "=CAPLAB.MMC_STAFF(target, [answer_within])"
 */
export function signature(
  fn: { name: string; parameters: Pick<ParameterSummary, "name" | "optional">[] },
  namespace = "CAPLAB",
): string {
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

/**
 * The default a parameter's description documents, as the function takes it, or undefined:
 * `(default 2)` → "2", `(default 90 with transient "detect": …)` → "90", `"exact" (default; …)` →
 * `"exact"`, `TRUE (default)` → "TRUE".
 * @example documentedDefault('Optional: "coded" (default; each factor scaled) or "raw".') // => '"coded"'
 */
export function documentedDefault(description: string): string | undefined {
  const explicit = /\(default ([^;)]+?)(?:;|\))/.exec(description);
  if (explicit) {
    // A default that depends on another argument ("90 with transient …") is its leading number.
    const v = explicit[1].trim().replace(/^(-?\d+(?:\.\d+)?)\s+with\b.*$/, "$1");
    // "5%" is typed as text in a cell formula; a number or TRUE/FALSE as is.
    return /^-?\d+(\.\d+)?$|^(TRUE|FALSE)$/i.test(v) ? v : `"${v.replace(/"/g, "")}"`;
  }
  const named = /("[^"]+"|TRUE|FALSE)\s*\(default\b/.exec(description);
  return named ? named[1] : undefined;
}

/** The quoted choices a parameter's description lists, e.g. ["exact", "bound"]. */
function quotedChoices(description: string): string[] {
  return [...description.matchAll(/"([A-Za-z0-9_%]+)"/g)].map((m) => m[1]);
}

/** An argument that cannot be inserted, by parameter name. */
export interface ArgumentProblem {
  parameter: string;
  message: string;
}

/**
 * The formula `=CAPLAB.NAME(a, b, …)` from the user's argument texts (a number, a cell or range
 * such as B2 or Model!D2:D5, a text in quotes, or a formula part), one per parameter in order.
 * A blank optional argument is left out (at the end) or left empty (between two given ones), so the
 * function uses its default; a bare word that is one of the parameter's documented choices gets its
 * quotes (exact → "exact"); a leading "=" is dropped.
 *
 * @returns the formula, or the problems, each naming its parameter
 * @example insertFormula({ name: "NPV_IT", parameters: [{ name: "rate", optional: false }, { name: "cashflows", optional: false }] }, ["0.1", "B2:B6"])
 * // => { formula: "=CAPLAB.NPV_IT(0.1,B2:B6)" }
 */
export function insertFormula(
  fn: Pick<FunctionSummary, "name" | "parameters">,
  texts: readonly string[],
  namespace = "CAPLAB",
): { formula: string } | { problems: ArgumentProblem[] } {
  const problems: ArgumentProblem[] = [];
  const args = fn.parameters.map((p, i) => {
    let text = (texts[i] ?? "").trim().replace(/^=/, "").trim();
    if (text === "") {
      if (!p.optional) problems.push({ parameter: p.name, message: `${p.name}: required; enter a value or a cell` });
      return "";
    }
    if (quotedChoices(p.description ?? "").some((c) => c.toLowerCase() === text.toLowerCase())) text = `"${text}"`;
    if (/[\r\n]/.test(text)) problems.push({ parameter: p.name, message: `${p.name}: one line only` });
    else if (!balanced(text))
      problems.push({ parameter: p.name, message: `${p.name}: unbalanced quotes or brackets in ${text}` });
    return text;
  });
  if (problems.length > 0) return { problems };
  while (args.length > 0 && args[args.length - 1] === "") args.pop();
  return { formula: `=${namespace}.${fn.name}(${args.join(",")})` };
}

/** Quotes closed, brackets and braces closed in order, no top-level comma (one argument). */
function balanced(text: string): boolean {
  const stack: string[] = [];
  let quoted = false;
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    else if (quoted) continue;
    else if (ch === "(" || ch === "{") stack.push(ch === "(" ? ")" : "}");
    else if (ch === ")" || ch === "}") {
      if (stack.pop() !== ch) return false;
    } else if (ch === "," && stack.length === 0) return false;
  }
  return !quoted && stack.length === 0;
}
