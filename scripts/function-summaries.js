"use strict";
/**
 * What the task pane knows of each worksheet function, from the custom-functions metadata
 * (functions.json, generated from the JSDoc of src/functions/functions.ts): webpack injects it
 * into the pane (DefinePlugin `__CAPLAB_FUNCTIONS__`), the pane's tests build it the same way.
 */

/**
 * @param {{ id: string, name: string, description?: string, helpUrl?: string,
 *   parameters?: { name: string, description?: string, optional?: boolean, dimensionality?: string }[] }[]} functions
 * @returns the summaries: id, name, description, help URL and parameters (name, description,
 *   optional, whether it takes a range)
 */
function functionSummaries(functions) {
  return functions.map((f) => ({
    id: f.id,
    name: f.name,
    description: f.description || "",
    helpUrl: f.helpUrl || "",
    parameters: (f.parameters || []).map((p) => ({
      name: p.name,
      description: p.description || "",
      optional: Boolean(p.optional),
      range: p.dimensionality === "matrix",
    })),
  }));
}

module.exports = { functionSummaries };
