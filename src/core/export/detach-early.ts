/**
 * A worker that moves ArrayBuffers to another thread (`postMessage(…, [buffer])`) detaches them,
 * and the first buffer an isolate detaches invalidates V8's "no ArrayBuffer was ever detached"
 * guarantee: every optimised function that reads a typed array is thrown away at that moment and
 * compiled again, now with a detached check on its loads (`--trace-deopt`: "marking dependent code
 * … reason: code dependencies" for every function, once). An export worker hit this after its first
 * group, half way through warming up, and compiled its scan, fill, builders and Snappy twice.
 * Detaching one throwaway buffer before any code is hot gives the code the worker ends with anyway,
 * compiled once (docs/export.md "Parquet", Performance).
 */
export function detachEarly(): void {
  const b = new ArrayBuffer(8);
  structuredClone(b, { transfer: [b] });
}
