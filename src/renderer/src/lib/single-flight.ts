/**
 * One user action, one run: while `fn` is still running, further calls return `busyValue` at once
 * instead of starting a second run (a double click, a click that also submits its form, Enter
 * pressed twice). Issue 14 #1: a second walk costs a second request, rate slot and charge.
 */
export function singleFlight<A extends unknown[], R>(
  fn: (...args: A) => Promise<R>,
  busyValue: R,
): ((...args: A) => Promise<R>) & { busy: () => boolean } {
  let running = false;
  const wrapped = async (...args: A): Promise<R> => {
    if (running) return busyValue;
    running = true;
    try {
      return await fn(...args);
    } finally {
      running = false;
    }
  };
  return Object.assign(wrapped, { busy: () => running });
}
