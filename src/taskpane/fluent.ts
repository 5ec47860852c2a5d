/**
 * The Fluent UI web components the pane uses (`@fluentui/web-components` 3, bundled: nothing from
 * a CDN), defined once before the pane's sections start. Only these are bundled (each component
 * is its own module).
 */
import {
  Button,
  ButtonDefinition,
  Checkbox,
  CheckboxDefinition,
  MessageBar,
  MessageBarDefinition,
  ProgressBar,
  ProgressBarDefinition,
  Tab,
  TabDefinition,
  Tablist,
  TablistDefinition,
} from "@fluentui/web-components";

let defined = false;

/** Defines fluent-button, fluent-checkbox, fluent-message-bar, fluent-progress-bar, fluent-tab and fluent-tablist. */
export function defineFluentComponents(): void {
  if (defined) return;
  defined = true;
  Button.define(ButtonDefinition);
  Checkbox.define(CheckboxDefinition);
  MessageBar.define(MessageBarDefinition);
  ProgressBar.define(ProgressBarDefinition);
  Tab.define(TabDefinition);
  Tablist.define(TablistDefinition);
}

/** Gives one fluent-button its role and disabled state as attributes (see {@link exposeButtonStates}). */
function exposeButton(button: Element): void {
  if (!button.hasAttribute("role")) button.setAttribute("role", "button");
  if (button.hasAttribute("disabled")) button.setAttribute("aria-disabled", "true");
  else button.removeAttribute("aria-disabled");
}

/**
 * A fluent-button tells assistive technology its role and disabled state through ElementInternals,
 * which tools that read the DOM (axe-core, Playwright's enabled check) do not see: they would take
 * a disabled button's dimmed text for a contrast failure, and refuse aria-expanded on a "generic"
 * element. So each fluent-button also carries role="button" and aria-disabled as attributes (the
 * same values, so screen readers hear nothing different), kept in step with its disabled attribute.
 */
export function exposeButtonStates(root: Document = document): void {
  root.querySelectorAll("fluent-button").forEach(exposeButton);
  new MutationObserver((records) => {
    for (const r of records) {
      // Only fluent-buttons: a native control's disabled state is already in the accessibility tree,
      // and a role="button" on an input would tell a screen reader it is something it is not.
      if (r.type === "attributes") {
        if ((r.target as Element).localName === "fluent-button") exposeButton(r.target as Element);
      } else
        r.addedNodes.forEach((n) => {
          if (!(n instanceof Element)) return;
          if (n.localName === "fluent-button") exposeButton(n);
          n.querySelectorAll("fluent-button").forEach(exposeButton);
        });
    }
  }).observe(root.documentElement, { subtree: true, childList: true, attributes: true, attributeFilter: ["disabled"] });
}
