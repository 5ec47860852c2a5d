/**
 * The "New business case" form: the case's fields (title, currency, years, discount rate, units),
 * then the options side by side, each with its capex, yearly cost lines, workloads (arrival rate,
 * service time — typed, or a reference to an analysis's CPU cost per IO — and sizing rule with its
 * target) and server costs. The form edits a draft in the JSON format of `caplab case`
 * (docs/case.md), so the validator of `src/case/input.ts` checks it and its messages,
 * which name the field by its path (`options[1].capex: must be an amount ≥ 0, got -5`), are shown
 * beside that field (`aria-invalid`, `aria-describedby`) and in a live summary.
 *
 * DOM only through textContent and attributes (input labels and values are data, never HTML).
 */
import { el } from "./dom";
import { typedNumber } from "./case-check";
import { referencedCells } from "../case/case-plan";
import type { CpuCostChoice, WhatIfChoice } from "../excel/case-sources";

/** A case as edited: the JSON format of `caplab case`, with inputs possibly wrong or missing. */
export type Draft = Record<string, unknown> & { options?: unknown };
type Obj = Record<string, unknown>;

const SIZING_RULES = [
  ["utilization", "Target utilization"],
  ["response", "Target mean response"],
  ["serviceLevel", "Service level"],
  ["servers", "Fixed number of servers"],
] as const;
type Rule = (typeof SIZING_RULES)[number][0];

/** A typed number: empty → absent; a finite number; otherwise the text (the validator names it). */
export function numeric(text: string): unknown {
  const t = text.trim();
  if (t === "") return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : t;
}

function shownNumber(v: unknown): string {
  return v === undefined || v === null ? "" : String(v);
}

/** The divisor that turns CPU-ms per IO into the case's time unit, or undefined for other units. */
export function msDivisor(timeUnit: unknown): number | undefined {
  const unit = typeof timeUnit === "string" ? timeUnit.trim() : "s";
  if (unit === "s" || unit === "") return 1000;
  if (unit === "ms") return 1;
  if (unit === "µs" || unit === "us") return 0.001;
  return undefined;
}

/** The cells a workload's service time refers to (one, or several averaged), or undefined. */
export function refsOf(w: Obj): string[] | undefined {
  const r = w.serviceTimeRef;
  if (typeof r === "string") return [r];
  if (Array.isArray(r) && r.length > 0 && r.every((x) => typeof x === "string")) return r as string[];
  return undefined;
}

const sameRefs = (a: string[] | undefined, b: string[]): boolean =>
  a !== undefined && a.length === b.length && a.every((x, i) => x === b[i]);

function list(v: unknown): Obj[] {
  return Array.isArray(v) ? (v as Obj[]) : [];
}

/**
 * The sizing rule a draft's sizing names: the first rule whose key it has, whatever the value (a
 * rule just chosen, or its target cleared, holds null there until a number is typed).
 */
function rule(sizing: unknown): Rule {
  const s = (sizing ?? {}) as Obj;
  for (const [r] of SIZING_RULES) if (Object.prototype.hasOwnProperty.call(s, r)) return r;
  return "utilization";
}

export interface FormHooks {
  /** Called after every edit (the draft has changed). */
  changed: () => void;
  /** The analysis cells offered for a service time (empty when no analysis is in the workbook). */
  choices: () => CpuCostChoice[];
  /** The What-if lines offered for a workload's current load and growth (empty without an analysis). */
  whatIf?: () => WhatIfChoice[];
}

/**
 * Renders the draft into `root` (replacing what was there) and wires every input to it.
 * Structural edits (adding or removing an option, line or workload) re-render and keep focus on
 * the same place.
 */
export class CaseForm {
  private counter = 0;
  constructor(
    private readonly root: HTMLElement,
    public draft: Draft,
    private readonly hooks: FormHooks,
  ) {}

  private id(): string {
    return `case-f${++this.counter}`;
  }

  /** Re-renders; keeps the focus on the element with the same data-path (or the given one). */
  render(focusPath?: string): void {
    const active = document.activeElement as HTMLElement | null;
    const keep = focusPath ?? (active && this.root.contains(active) ? active.dataset.path : undefined);
    this.counter = 0;
    this.root.replaceChildren(this.general(), this.optionsBlock());
    if (keep) this.find(keep)?.focus();
  }

  /** The input for a path, or the nearest one above it (`options[1].sizing` → its rule selector). */
  find(path: string): HTMLElement | null {
    for (let p = path; p !== ""; p = p.replace(/(\.[^.[\]]+|\[\d+\])$/, "")) {
      const hit = this.root.querySelector<HTMLElement>(`[data-path="${CSS.escape(p)}"]`);
      if (hit) return hit;
      if (!/(\.[^.[\]]+|\[\d+\])$/.test(p)) break;
    }
    return null;
  }

  /**
   * Marks each problem's field invalid with its message beside it (an alert, linked to the field by
   * aria-describedby), and clears the others. Returns the fields found, in order.
   */
  showErrors(problems: { path: string | null; message: string }[]): (HTMLElement | null)[] {
    this.showError(null, "");
    return problems.map((p) => {
      if (p.path === null) return null;
      const target = this.find(p.path);
      if (!target) return null;
      target.setAttribute("aria-invalid", "true");
      const err = document.getElementById(`${target.id}-error`);
      if (err) err.textContent = err.textContent ? `${err.textContent} ${p.message}` : p.message;
      return target;
    });
  }

  /** Marks one field invalid with the message (and clears the others); null clears all. */
  showError(path: string | null, message: string): HTMLElement | null {
    for (const e of this.root.querySelectorAll<HTMLElement>("[aria-invalid]")) e.removeAttribute("aria-invalid");
    for (const e of this.root.querySelectorAll<HTMLElement>(".case-field-error")) e.textContent = "";
    if (path === null) return null;
    const target = this.find(path);
    if (!target) return null;
    target.setAttribute("aria-invalid", "true");
    const err = document.getElementById(`${target.id}-error`);
    if (err) err.textContent = message;
    return target;
  }

  private structural(path: string, edit: () => void): void {
    edit();
    this.render(path);
    this.hooks.changed(); // after the redraw, so the error marks land on the new fields
  }

  /** A labelled input bound to `obj[key]`. */
  private input(
    label: string,
    path: string,
    obj: Obj,
    key: string,
    kind: "text" | "number",
    hint = "",
    cleared: "absent" | "null" = "absent",
  ): HTMLElement {
    const id = this.id();
    const wrap = el("div", "", "case-field");
    const lab = el("label", label);
    lab.htmlFor = id;
    const input = el("input");
    input.id = id;
    input.type = "text";
    if (kind === "number") input.inputMode = "decimal";
    input.dataset.path = path;
    input.value = kind === "number" ? shownNumber(obj[key]) : typeof obj[key] === "string" ? (obj[key] as string) : "";
    const err = el("span", "", "case-field-error");
    err.id = `${id}-error`;
    err.setAttribute("role", "alert");
    const described = [err.id];
    wrap.append(lab, input);
    if (hint) {
      const h = el("span", hint, "case-field-hint");
      h.id = `${id}-hint`;
      described.unshift(h.id);
      wrap.append(h);
    }
    input.setAttribute("aria-describedby", described.join(" "));
    input.addEventListener("input", () => {
      // A cleared text stays "" (the validator says "must not be empty"); a cleared number is absent,
      // or null where the key itself carries meaning (a sizing target names its rule).
      // "10%", "70k", "1.5M", "81 µs" are read as people mean them (times in the case's unit).
      const unit = typeof this.draft.timeUnit === "string" ? this.draft.timeUnit : "s";
      const v = kind === "number" ? typedNumber(input.value, unit) : input.value;
      if (v === undefined && cleared === "null") obj[key] = null;
      else if (v === undefined) delete obj[key];
      else obj[key] = v;
      this.hooks.changed();
    });
    wrap.append(err);
    return wrap;
  }

  private button(text: string, label: string, path: string, onClick: () => void): HTMLButtonElement {
    const b = el("button", text, "small");
    b.type = "button";
    // The spoken name holds the visible words too (WCAG 2.5.3, label in name: speech users say them).
    b.setAttribute("aria-label", label.toLowerCase().includes(text.toLowerCase()) ? label : `${text}: ${label}`);
    b.dataset.path = path;
    b.addEventListener("click", onClick);
    return b;
  }

  /** After the time unit changes: labels follow it, and referenced service times are rescaled. */
  private unitChanged(): void {
    const divisor = msDivisor(this.draft.timeUnit);
    for (const o of list(this.draft.options))
      for (const w of list(o.workloads)) {
        const refs = refsOf(w);
        if (!refs) continue;
        const choice = this.hooks.choices().find((c) => sameRefs(refs, c.refs));
        const old = typeof w.serviceTimeRefDivisor === "number" ? w.serviceTimeRefDivisor : 1;
        const ms = choice?.ms ?? (typeof w.serviceTime === "number" ? w.serviceTime * old : undefined);
        delete w.serviceTimeRefDivisor;
        if (divisor === undefined || ms === undefined) {
          delete w.serviceTimeRef;
          continue;
        }
        if (divisor !== 1) w.serviceTimeRefDivisor = divisor;
        w.serviceTime = ms / divisor;
      }
    // After the focus has moved on (Tab), so the redraw keeps it where the user went.
    setTimeout(() => {
      this.render();
      this.hooks.changed();
    }, 0);
  }

  private general(): HTMLElement {
    const d = this.draft;
    const box = el("fieldset", "", "case-general");
    box.append(el("legend", "Case"));
    box.append(
      this.input("Title", "title", d, "title", "text"),
      this.input("Currency", "currency", d, "currency", "text", "£, $, €, ¥ or a code such as CHF"),
      this.input("Years", "years", d, "years", "number", "yearly payments, year 0 = now"),
      this.input("Discount rate per year", "discountRate", d, "discountRate", "number", "a fraction: 0.1 = 10%"),
      this.input("Time unit", "timeUnit", d, "timeUnit", "text", "of service and response times"),
      this.input("Rate unit", "rateUnit", d, "rateUnit", "text", "of arrival rates"),
    );
    // Labels carry the units: redraw when a unit is changed (on leaving the field, not per key).
    box.querySelector('[data-path="timeUnit"]')?.addEventListener("change", () => this.unitChanged());
    box.querySelector('[data-path="rateUnit"]')?.addEventListener("change", () =>
      setTimeout(() => {
        this.render();
        this.hooks.changed();
      }, 0),
    );
    return box;
  }

  private optionsBlock(): HTMLElement {
    const wrap = el("div");
    const grid = el("div", "", "case-options");
    const options = list(this.draft.options);
    options.forEach((o, i) => grid.append(this.option(o, i, options)));
    const add = this.button("Add option", "Add an option", "options", () =>
      this.structural(`options[${options.length}].name`, () => {
        options.push({ name: `Option ${options.length + 1}`, capex: 0, opex: [] });
        this.draft.options = options;
      }),
    );
    wrap.append(grid, add);
    return wrap;
  }

  private option(o: Obj, i: number, options: Obj[]): HTMLElement {
    const p = `options[${i}]`;
    const box = el("fieldset", "", "case-option");
    const name = typeof o.name === "string" && o.name.trim() !== "" ? o.name : `Option ${i + 1}`;
    box.append(el("legend", `Option ${i + 1}`));
    box.append(
      this.input("Name", `${p}.name`, o, "name", "text"),
      this.input("Capex at year 0", `${p}.capex`, o, "capex", "number"),
    );
    const lines = list(o.opex);
    const costs = el("div", "", "case-group");
    costs.append(el("p", "Yearly costs", "case-group-title"));
    lines.forEach((line, j) => {
      const lp = `${p}.opex[${j}]`;
      costs.append(
        this.input(`Cost line ${j + 1}`, `${lp}.label`, line, "label", "text"),
        this.input(`Per year`, `${lp}.perYear`, line, "perYear", "number"),
        this.button("Remove line", `Remove cost line ${j + 1} of ${name}`, `${lp}.remove`, () =>
          this.structural(`${p}.opex.add`, () => lines.splice(j, 1)),
        ),
      );
    });
    costs.append(
      this.button("Add cost line", `Add a yearly cost line to ${name}`, `${p}.opex.add`, () =>
        this.structural(`${p}.opex[${lines.length}].label`, () => {
          lines.push({ label: "", perYear: 0 });
          o.opex = lines;
        }),
      ),
    );
    box.append(costs);
    const workloads = list(o.workloads);
    workloads.forEach((w, j) => box.append(this.workload(w, `${p}.workloads[${j}]`, name, j, workloads)));
    box.append(
      this.button("Add workload", `Add a workload to ${name}`, `${p}.workloads.add`, () =>
        this.structural(`${p}.workloads[${workloads.length}].name`, () => {
          workloads.push({ name: "Workload", arrivalRate: 1000, serviceTime: 0.001, sizing: { utilization: 0.7 } });
          o.workloads = workloads;
        }),
      ),
    );
    if (workloads.length > 0) {
      box.append(
        this.input("Cost per server, one-off", `${p}.costPerServer`, o, "costPerServer", "number"),
        this.input("Cost per server per year", `${p}.costPerServerPerYear`, o, "costPerServerPerYear", "number"),
      );
    }
    if (options.length > 2) {
      box.append(
        this.button("Remove option", `Remove option ${name}`, `${p}.remove`, () =>
          this.structural("options", () => options.splice(i, 1)),
        ),
      );
    }
    return box;
  }

  private workload(w: Obj, p: string, optionName: string, j: number, workloads: Obj[]): HTMLElement {
    const box = el("div", "", "case-group");
    box.append(el("p", `Workload ${j + 1}`, "case-group-title"));
    const unit = typeof this.draft.timeUnit === "string" ? this.draft.timeUnit : "s";
    const rate = typeof this.draft.rateUnit === "string" ? this.draft.rateUnit : `per ${unit}`;
    box.append(
      this.input("Name", `${p}.name`, w, "name", "text"),
      this.input(`Arrival rate (${rate})`, `${p}.arrivalRate`, w, "arrivalRate", "number", "IOPS, calls per time unit"),
    );
    box.append(this.serviceTime(w, p, unit));
    box.append(this.sizing(w, p, unit));
    box.append(this.growth(w, p));
    box.append(
      this.button("Remove workload", `Remove workload ${j + 1} of ${optionName}`, `${p}.remove`, () =>
        this.structural(p.replace(/\.workloads\[\d+\]$/, ".workloads.add"), () => workloads.splice(j, 1)),
      ),
    );
    return box;
  }

  /** The service time: typed, or taken by reference from an analysis cell (CPU cost per IO). */
  private serviceTime(w: Obj, p: string, unit: string): HTMLElement {
    const wrap = el("div");
    const choices = this.hooks.choices();
    const refs = refsOf(w);
    const ref = refs ? referencedCells(refs) : undefined;
    if (choices.length > 0 || ref) {
      const id = this.id();
      const lab = el("label", "Service time from");
      lab.htmlFor = id;
      const select = el("select");
      select.id = id;
      select.dataset.path = `${p}.serviceTimeRef`;
      const typed = el("option", "a number typed here");
      typed.value = "";
      select.append(typed);
      const current = choices.findIndex((c) => sameRefs(refs, c.refs));
      choices.forEach((c, i) => {
        const opt = el("option", `${c.label}: ${c.ms.toPrecision(4)} CPU-ms per IO`);
        opt.value = `choice-${i}`;
        select.append(opt);
      });
      if (ref && current < 0) {
        // A reference from pasted JSON that the workbook's analysis does not offer: kept as is.
        const opt = el("option", ref);
        opt.value = "kept";
        select.append(opt);
      }
      select.value = !ref ? "" : current >= 0 ? `choice-${current}` : "kept";
      const err = el("span", "", "case-field-error");
      err.id = `${id}-error`;
      const divisor = msDivisor(this.draft.timeUnit);
      const note = el("span", "", "case-field-hint");
      note.id = `${id}-hint`;
      select.setAttribute("aria-describedby", `${note.id} ${err.id}`);
      if (divisor === undefined && !ref) {
        // The analysis gives CPU-milliseconds per IO; a case in minutes cannot use it as is.
        select.disabled = true;
        note.textContent = "To use the analysis, set the time unit to s, ms or µs.";
      }
      select.addEventListener("change", () =>
        this.structural(`${p}.serviceTimeRef`, () => {
          if (select.value === "kept") return;
          const choice = choices[Number(select.value.replace(/^choice-/, ""))];
          delete w.serviceTimeRef;
          delete w.serviceTimeRefDivisor;
          if (select.value !== "" && choice && divisor !== undefined) {
            w.serviceTimeRef = choice.refs.length === 1 ? choice.refs[0] : [...choice.refs];
            if (divisor !== 1) w.serviceTimeRefDivisor = divisor;
            w.serviceTime = choice.ms / divisor;
          }
        }),
      );
      const field = el("div", "", "case-field");
      field.append(lab, select, note, err);
      wrap.append(field);
    }
    if (ref) {
      const divisor = typeof w.serviceTimeRefDivisor === "number" ? w.serviceTimeRefDivisor : 1;
      const formula = divisor === 1 ? ref : `${ref}/${divisor}`;
      wrap.append(
        el(
          "p",
          `Service time (${unit}) = ${formula}, now ${typeof w.serviceTime === "number" ? Number(w.serviceTime.toPrecision(6)) : shownNumber(w.serviceTime)}: a reference, not a copy.`,
          "case-field-hint",
        ),
      );
    } else {
      wrap.append(
        this.input(
          `Service time (${unit})`,
          `${p}.serviceTime`,
          w,
          "serviceTime",
          "number",
          "CPU time per IO, time per call",
        ),
      );
    }
    return wrap;
  }

  /**
   * How the workload's load grows (docs/case.md, growth fields): current load and growth typed, or
   * taken by reference from a What-if line (`='What-if'!$C$7/100`, not a copy); the servers
   * installed, the purchase unit and when to buy.
   */
  private growth(w: Obj, p: string): HTMLElement {
    const wrap = el("div", "", "case-growth");
    const lines = this.hooks.whatIf?.() ?? [];
    const linked = typeof w.growthRef === "string" ? w.growthRef : undefined;
    if (lines.length > 0 || linked) {
      const id = this.id();
      const lab = el("label", "Load and growth from");
      lab.htmlFor = id;
      const select = el("select");
      select.id = id;
      select.dataset.path = `${p}.growthRef`;
      const typed = el("option", "numbers typed here");
      typed.value = "";
      select.append(typed);
      lines.forEach((c, i) => {
        const opt = el("option", c.label);
        opt.value = `line-${i}`;
        select.append(opt);
      });
      const current = lines.findIndex((c) => c.growthRef === linked && c.currentRef === w.arrivalRateRef);
      if (linked && current < 0) {
        const opt = el("option", linked);
        opt.value = "kept";
        select.append(opt);
      }
      select.value = !linked ? "" : current >= 0 ? `line-${current}` : "kept";
      const err = el("span", "", "case-field-error");
      err.id = `${id}-error`;
      select.setAttribute("aria-describedby", err.id);
      select.addEventListener("change", () =>
        this.structural(`${p}.growthRef`, () => {
          if (select.value === "kept") return;
          const c = lines[Number(select.value.replace(/^line-/, ""))];
          for (const k of ["arrivalRateRef", "growthRef", "growthRefDivisor"]) delete w[k];
          if (select.value === "" || !c) return;
          w.arrivalRateRef = c.currentRef;
          w.arrivalRate = c.current;
          w.growthRef = c.growthRef;
          w.growthRefDivisor = 100;
          w.growth = c.growthPct / 100;
        }),
      );
      const field = el("div", "", "case-field");
      field.append(lab, select, err);
      wrap.append(field);
    }
    if (linked) {
      wrap.append(
        el(
          "p",
          `Arrival rate = ${String(w.arrivalRateRef)}, growth = ${linked}/100, now ${shownNumber(w.arrivalRate)} and ${shownNumber(w.growth)} a year: references, not copies.`,
          "case-field-hint",
        ),
      );
    } else if (!Array.isArray(w.growth)) {
      wrap.append(
        this.input("Growth per year", `${p}.growth`, w, "growth", "number", "a fraction: 0.2 = 20%; empty: none"),
      );
    }
    wrap.append(
      this.input("Servers installed", `${p}.installed`, w, "installed", "number", "in place before year 0"),
      this.input(
        "Purchase unit",
        `${p}.purchaseUnit`,
        w,
        "purchaseUnit",
        "number",
        "servers per purchase (a node of 4)",
      ),
    );
    const id = this.id();
    const lab = el("label", "Buy");
    lab.htmlFor = id;
    const policy = el("select");
    policy.id = id;
    policy.dataset.path = `${p}.purchasePolicy`;
    for (const [value, text] of [
      ["", "in the year the load needs it"],
      ["headroom", "a year ahead (headroom)"],
    ]) {
      const opt = el("option", text);
      opt.value = value;
      policy.append(opt);
    }
    policy.value = w.purchasePolicy === "headroom" ? "headroom" : "";
    const err = el("span", "", "case-field-error");
    err.id = `${id}-error`;
    policy.setAttribute("aria-describedby", err.id);
    policy.addEventListener("change", () => {
      if (policy.value === "headroom") w.purchasePolicy = "headroom";
      else delete w.purchasePolicy;
      this.hooks.changed();
    });
    const field = el("div", "", "case-field");
    field.append(lab, policy, err);
    wrap.append(field);
    return wrap;
  }

  private sizing(w: Obj, p: string, unit: string): HTMLElement {
    const wrap = el("div");
    const sizing = (typeof w.sizing === "object" && w.sizing !== null ? w.sizing : {}) as Obj;
    w.sizing = sizing;
    const current = rule(sizing);
    const id = this.id();
    const lab = el("label", "Size by");
    lab.htmlFor = id;
    const select = el("select");
    select.id = id;
    select.dataset.path = `${p}.sizing`;
    for (const [value, text] of SIZING_RULES) {
      const opt = el("option", text);
      opt.value = value;
      select.append(opt);
    }
    select.value = current;
    const err = el("span", "", "case-field-error");
    err.id = `${id}-error`;
    select.setAttribute("aria-describedby", err.id);
    select.addEventListener("change", () =>
      this.structural(`${p}.sizing`, () => {
        for (const k of Object.keys(sizing)) delete sizing[k];
        // A target with no sensible default is null, not undefined: the key stays in the JSON view
        // (and through "Apply JSON"), and the validator names the empty field, not the rule.
        const defaults: Record<Rule, Obj> = {
          utilization: { utilization: 0.7 },
          response: { response: null },
          serviceLevel: { serviceLevel: 0.8, answerWithin: null },
          servers: { servers: 1 },
        };
        Object.assign(sizing, defaults[select.value as Rule]);
      }),
    );
    const field = el("div", "", "case-field");
    field.append(lab, select, err);
    wrap.append(field);
    const targets: Record<Rule, [string, string]> = {
      utilization: ["Target utilization", "a fraction: 0.7 = 70%"],
      response: [`Target mean response (${unit})`, "above the service time"],
      serviceLevel: ["Service level", "a fraction: 0.8 = 80% answered in time"],
      servers: ["Servers", "a whole number"],
    };
    const [label, hint] = targets[current];
    wrap.append(this.input(label, `${p}.sizing.${current}`, sizing, current, "number", hint, "null"));
    if (current === "serviceLevel") {
      wrap.append(this.input(`Answer within (${unit})`, `${p}.sizing.answerWithin`, sizing, "answerWithin", "number"));
    }
    return wrap;
  }
}
