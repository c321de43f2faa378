/** The error an export rejects with when its signal aborts: the signal's reason when it is an Error, else an AbortError. */
export function abortError(signal: AbortSignal): Error {
  const r: unknown = signal.reason;
  if (r instanceof Error) return r;
  const e = new Error('export cancelled');
  e.name = 'AbortError';
  return e;
}
