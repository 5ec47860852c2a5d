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
  ProgressBar,
  ProgressBarDefinition,
  Tab,
  TabDefinition,
  Tablist,
  TablistDefinition,
} from "@fluentui/web-components";

let defined = false;

/** Defines fluent-button, fluent-checkbox, fluent-progress-bar, fluent-tab and fluent-tablist. */
export function defineFluentComponents(): void {
  if (defined) return;
  defined = true;
  Button.define(ButtonDefinition);
  Checkbox.define(CheckboxDefinition);
  ProgressBar.define(ProgressBarDefinition);
  Tab.define(TabDefinition);
  Tablist.define(TablistDefinition);
}
