/** Relative-error assertion shared by the core, function and CLI tests. */
export function expectRelClose(actual: unknown, expected: number, tolerance = 1e-9): void {
  if (typeof actual !== "number" || !Number.isFinite(actual)) {
    throw new Error(`expected a finite number close to ${expected}, got ${String(actual)}`);
  }
  const scale = Math.max(Math.abs(expected), Number.MIN_VALUE);
  const rel = Math.abs(actual - expected) / scale;
  if (!(rel <= tolerance)) {
    throw new Error(`expected ${expected}, got ${actual}: relative error ${rel.toExponential(3)} > ${tolerance}`);
  }
}
