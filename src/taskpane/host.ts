/** What the pane knows about its host: Excel or not, custom functions registered or not. */

/** Waits for Office.js; resolves with the host name, or null when Office.js is absent or silent. */
export function officeHost(timeoutMs: number): Promise<string | null> {
  if (typeof Office === "undefined" || typeof Office.onReady !== "function") return Promise.resolve(null);
  return Promise.race([
    Office.onReady().then((info) => (info.host ? String(info.host) : null)),
    new Promise<null>((resolve) => setTimeout(() => resolve(null), timeoutMs)),
  ]);
}

/**
 * True when the CAPLAB custom functions are registered in this runtime: the shared runtime is
 * there and functions.js (loaded before the pane's script in the same page) has associated them.
 * Otherwise Excel can leave CAPLAB formulas at #NAME? (OfficeDev/office-js#6611), so the
 * renderer writes their values instead.
 */
export function functionsRegistered(): boolean {
  if (typeof Office === "undefined" || typeof CustomFunctions === "undefined") return false;
  const req = Office.context?.requirements;
  return Boolean(
    req?.isSetSupported("CustomFunctionsRuntime", "1.1") &&
    req.isSetSupported("SharedRuntime", "1.1") &&
    typeof CustomFunctions.associate === "function",
  );
}

/** localStorage key for the "first run seen" flag, partitioned as Office asks (partitionKey). */
export function storageKey(name: string): string {
  const partition = typeof Office !== "undefined" ? Office.context?.partitionKey : undefined;
  return partition ? `${partition}${name}` : name;
}
