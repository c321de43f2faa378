import type { Clock } from '../ports';

/** The wall clock: Date.now and setTimeout. Used when no clock is injected. */
export const realClock: Clock = scaledClock(() => Date.now(), 1);

/**
 * A clock that reads `now` from elsewhere (e.g. a time-scaled sandbox's clock) and whose sleeps take
 * 1/scale of their length in real time — so the core's pacer, cache windows and the sandbox agree.
 */
export function scaledClock(now: () => number, scale: number): Clock {
  return {
    now,
    sleep: (ms: number, signal?: AbortSignal) => realSleep(Math.max(0, ms) / scale, signal),
  };
}

function realSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError());
      return;
    }
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(abortError());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function abortError(): Error {
  const e = new Error('The operation was aborted');
  e.name = 'AbortError';
  return e;
}

export function isAbortError(e: unknown): boolean {
  return e instanceof Error && (e.name === 'AbortError' || (e as { code?: string }).code === 'UND_ERR_ABORTED');
}
