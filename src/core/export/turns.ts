/**
 * Long synchronous work on the exporting thread (reading SQLite, rendering a group) gives the event
 * loop a turn at least every YIELD_MS, so that a cancel, progress events, workers' answers and the
 * app's other requests are served meanwhile (the app's main process runs exports).
 */
export const YIELD_MS = 25;

/** A function to call between pieces of long synchronous work: it resolves at once, or after a turn of the event loop when YIELD_MS have passed since the last. */
export function takeTurns(): () => Promise<void> {
  let turn = performance.now();
  return async () => {
    if (performance.now() - turn < YIELD_MS) return;
    await new Promise<void>((res) => setImmediate(res));
    turn = performance.now();
  };
}
