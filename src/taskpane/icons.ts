/**
 * The pane's icons: Fluent System Icons (`@fluentui/svg-icons`, MIT, Microsoft), bundled as SVG text
 * (webpack's asset/source), never fetched. Each goes into its tab or button's `start` slot, hidden
 * from assistive technology (the text beside it names the action), in the text's colour.
 */
import importIcon from "@fluentui/svg-icons/icons/arrow_import_16_regular.svg";
import formulaIcon from "@fluentui/svg-icons/icons/math_formula_16_regular.svg";
import shareIcon from "@fluentui/svg-icons/icons/share_16_regular.svg";
import caseIcon from "@fluentui/svg-icons/icons/briefcase_16_regular.svg";
import folderIcon from "@fluentui/svg-icons/icons/folder_open_16_regular.svg";
import dismissIcon from "@fluentui/svg-icons/icons/dismiss_16_regular.svg";
import openIcon from "@fluentui/svg-icons/icons/open_16_regular.svg";
import deleteIcon from "@fluentui/svg-icons/icons/delete_16_regular.svg";
import exportIcon from "@fluentui/svg-icons/icons/arrow_export_16_regular.svg";
import tableIcon from "@fluentui/svg-icons/icons/table_simple_16_regular.svg";

/** Element id → its icon. */
const ICONS: Record<string, string> = {
  "tab-import": importIcon,
  "tab-functions": formulaIcon,
  "tab-share": shareIcon,
  "tab-case": caseIcon,
  "choose-files": folderIcon,
  import: importIcon,
  cancel: dismissIcon,
  "goto-summary": openIcon,
  "import-remove-sheets": deleteIcon,
  "share-export": exportIcon,
  "sample-import": tableIcon,
};

/** An icon element for a `start` slot: decorative (aria-hidden), drawn in currentColor. */
export function iconElement(svg: string): HTMLElement {
  const span = document.createElement("span");
  span.className = "icon";
  span.setAttribute("aria-hidden", "true");
  span.slot = "start";
  // The SVG is a file of the bundled package (not data from the planner or a workbook).
  span.innerHTML = svg.replace("<svg ", '<svg fill="currentColor" focusable="false" ');
  return span;
}

/** Puts each known element's icon in its start slot (once). */
export function addIcons(root: Document = document): void {
  for (const [id, svg] of Object.entries(ICONS)) {
    const target = root.getElementById(id);
    if (target && !target.querySelector(":scope > .icon")) target.prepend(iconElement(svg));
  }
}
