/**
 * The worksheet functions as the sharing code calls them: the wrappers of
 * `src/functions/functions.ts` loaded in this JavaScript runtime.
 *
 * In the add-in, those wrappers live in the functions bundle, whose copy of functions.ts gets the
 * `CustomFunctions.associate` calls (custom-functions-metadata-plugin); bundling functions.ts into
 * the task pane as well would associate the functions twice (and fails outside Excel). So the
 * functions bundle publishes its wrappers once, under {@link GLOBAL_NAME} (this module is part of
 * that bundle's entry), and the task pane reads them from there: the same code Excel runs for
 * the cells. Tests and Node callers publish them with {@link publishFunctions}.
 */
export type WorksheetFunctions = Readonly<Record<string, unknown>>;

export const GLOBAL_NAME = "CapacityLabWorksheetFunctions";

/** Makes `functions` the runtime's worksheet functions. */
export function publishFunctions(functions: WorksheetFunctions): void {
  (globalThis as Record<string, unknown>)[GLOBAL_NAME] = functions;
}

/**
 * The worksheet functions published in this runtime.
 *
 * @throws Error when none were published (the functions bundle did not load)
 */
export function runtimeFunctions(): WorksheetFunctions {
  const f = (globalThis as Record<string, unknown>)[GLOBAL_NAME];
  if (typeof f !== "object" || f === null) {
    throw new Error("the Capacity Lab worksheet functions are not loaded in this runtime (functions.js)");
  }
  return f as WorksheetFunctions;
}
