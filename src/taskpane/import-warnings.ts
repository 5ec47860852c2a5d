/**
 * An import's warnings in the pane: one Fluent MessageBar per kind of warning (steps that say the
 * same thing are one bar naming them), the first three kinds shown and "Show all" for the rest,
 * each bar with a link to its first row in the Summary sheet's Warnings table (every warning is
 * there, word for word).
 */
import type { WorkbookPlan } from "../workbook/plan";
import { columnLetter } from "../workbook/plan";
import { el } from "./dom";

/** Kinds shown before "Show all". */
const SHOWN = 3;

/** Warnings that say the same thing about different steps or sheets. */
export interface WarningGroup {
  /** What they say, without the step's name ("ran as fast as possible (target max)"). */
  kind: string;
  /** The full text of each, in the Summary's order, with its index in the plan's list. */
  members: { text: string; index: number; subject: string }[];
  /** "info" for what the planner chose (saturation steps, rows left out), else "warning". */
  intent: "info" | "warning";
}

/**
 * "step 7 nfs-max: ran as fast … not comparable." → subject "step 7 nfs-max", kind "ran as fast as
 * possible (target max)"; "summary.csv labhost step 1 r100-500: …" → subject "summary.csv labhost
 * step 1 r100-500". The subject is what comes before the first ": " (when short); the kind is the
 * rest up to its first sentence mark or colon.
 */
function split(text: string): { subject: string; kind: string } {
  const m = /^([^:]{1,80}?): (.*)$/s.exec(text);
  const subject = m ? m[1] : "";
  const rest = m ? m[2] : text;
  const kind = /^[^.:(]*(\([^)]*\))?/.exec(rest)?.[0].trim() || rest;
  return { subject, kind };
}

/** Whether a warning's subject names a step (then warnings of the same kind about other steps are grouped). */
const aboutAStep = (subject: string): boolean => /\bstep \d+/.test(subject);

/**
 * Groups a plan's warnings by what they say.
 *
 * @param warnings - the plan's warnings, in the Summary's order
 * @returns one group per kind, in order of first appearance
 */
export function groupWarnings(warnings: readonly string[]): WarningGroup[] {
  const groups = new Map<string, WarningGroup>();
  warnings.forEach((text, index) => {
    const { subject, kind } = split(text);
    const key = aboutAStep(subject) ? kind : `${subject}: ${kind}`;
    let g = groups.get(key);
    if (!g) {
      const chosen = /as fast as possible|^Subintervals/.test(aboutAStep(subject) ? kind : subject);
      g = { kind: key, members: [], intent: chosen ? "info" : "warning" };
      groups.set(key, g);
    }
    g.members.push({ text, index, subject });
  });
  return [...groups.values()];
}

/** The Summary sheet's cell of warning `index` (its row in the Warnings table), or null when not placed. */
function summaryAddress(plan: WorkbookPlan, index: number): string | null {
  const table = plan.sheets[0]?.tables.find((t) => t.name === "Warnings");
  if (!table?.at) return null;
  return `${columnLetter(table.at.col)}${table.at.row + 2 + index}`;
}

/** One MessageBar: the first warning in full, the others of its kind named, and the link to the Summary. */
function bar(g: WarningGroup, plan: WorkbookPlan, summary: string, open: (address: string) => void): HTMLElement {
  const mb = document.createElement("fluent-message-bar");
  mb.setAttribute("intent", g.intent);
  mb.setAttribute("layout", "multiline");
  const text = el("span", g.members[0].text);
  if (g.members[0].text.startsWith("Subintervals:"))
    text.append(" To write more, raise “Subinterval rows to write” and import again.");
  if (g.members.length > 1) {
    const others = g.members.slice(1).map((m) => m.subject || `warning ${m.index + 1}`);
    const named =
      others.length > 5 ? `${others.slice(0, 5).join(", ")} and ${others.length - 5} more` : others.join(", ");
    text.append(` The same for ${named}.`);
  }
  mb.append(text);
  const address = summaryAddress(plan, g.members[0].index);
  if (address && summary) {
    const link = el("a", `Show on ${summary} (${address})`);
    link.href = "#";
    link.slot = "actions";
    link.addEventListener("click", (e) => {
      e.preventDefault();
      open(address);
    });
    mb.append(link);
  }
  return mb;
}

/**
 * Fills `box` with the plan's warnings as MessageBars (nothing when there are none).
 *
 * @param box - the container (emptied first)
 * @param plan - the plan just written
 * @param summary - the Summary sheet's name as written ("Summary (2)")
 * @param open - shows the Summary sheet at an address
 */
export function showWarnings(
  box: HTMLElement,
  plan: WorkbookPlan,
  summary: string,
  open: (address: string) => void,
): void {
  box.replaceChildren();
  // Rows left out of Subintervals first (the planner can write more), then in the Summary's order.
  const all = groupWarnings(plan.warnings);
  const groups = [
    ...all.filter((g) => g.kind.startsWith("Subintervals")),
    ...all.filter((g) => !g.kind.startsWith("Subintervals")),
  ];
  if (groups.length === 0) return;
  const n = plan.warnings.length;
  const heading = el("h3", `${n} warning${n === 1 ? "" : "s"} (all on ${summary || "the Summary sheet"})`);
  heading.id = "import-warnings-title";
  box.append(heading);
  const bars = groups.map((g) => bar(g, plan, summary, open));
  bars.forEach((b, k) => {
    b.hidden = k >= SHOWN;
    box.append(b);
  });
  if (bars.length > SHOWN) {
    const all = document.createElement("fluent-button");
    all.setAttribute("size", "small");
    all.id = "import-warnings-all";
    all.textContent = `Show all ${bars.length} kinds`;
    all.addEventListener("click", () => {
      bars.forEach((b) => (b.hidden = false));
      all.remove();
      bars[SHOWN].setAttribute("tabindex", "-1");
      bars[SHOWN].focus();
    });
    box.append(all);
  }
}
