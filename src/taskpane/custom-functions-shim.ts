/**
 * Imported first by the pane and the reading worker. src/analysis/lab-plan.ts imports DOE_FIT from
 * src/functions/functions.ts, to which custom-functions-metadata-plugin appends
 * `CustomFunctions.associate(...)` calls; outside Excel's functions runtime (a browser, the Web
 * Worker) `CustomFunctions` does not exist and those calls would throw while the bundle loads.
 * Where it is missing, a no-op stands in (nothing is registered; `functionsRegistered()` checks the
 * requirement sets, not this object).
 */
const scope = globalThis as unknown as { CustomFunctions?: { associate: (...args: unknown[]) => void } };
if (typeof scope.CustomFunctions === "undefined") scope.CustomFunctions = { associate: () => undefined };

export {};
