/**
 * Single flight across processes (docs/request-core.md "Pipeline of one call", step 2): the identical
 * request already sent by another Loupe process on the same archive (the app and a cron `loupe watch
 * run`), or by another core of this one, is waited for — its journal entry is written before its
 * request goes out — and its answer is then read from the archive, instead of being bought a second
 * time inside its cache window.
 */
import type { JournalEntry } from '../../ports';
import { abortError } from '../clock';
import { cancelled } from '../call-errors';
import type { CallPlan, Caller } from './context';
import { activeHere } from './journal';

/** how often (real ms) the journal is read again while the other process's call runs */
export const ELSEWHERE_POLL_MS = 50;

/**
 * The identical request in flight elsewhere: a pending entry for it whose call is running — in
 * another live process (sent within the attempt's lease: an entry that stays pending after its call
 * gave up is not waited on past it), or in another core of this one. Never one of an unknown owner.
 */
export function inFlightElsewhere(
  entries: JournalEntry[],
  plan: Pick<CallPlan, 'platform' | 'endpoint' | 'hash'>,
  now: number,
  leaseMs: number,
  here: (callId: string) => boolean,
): JournalEntry | undefined {
  return entries.find(
    (e) =>
      e.state === 'pending' &&
      e.platform === plan.platform &&
      e.endpoint === plan.endpoint &&
      e.paramsHash === plan.hash &&
      ((e.owner === 'alive' && e.createdAt + leaseMs > now) || ((e.owner ?? 'this') === 'this' && here(e.callId))),
  );
}

/** Waits while the identical request is in flight elsewhere (true when it did); a cancel stops the wait. */
export async function awaitElsewhere(c: Caller, plan: CallPlan, leaseMs: number, signal: AbortSignal | undefined): Promise<boolean> {
  const { d, write } = c;
  let waited = false;
  while (
    inFlightElsewhere(
      write(() => d.store.pendingJournal()),
      plan,
      d.clock.now(),
      leaseMs,
      activeHere,
    )
  ) {
    if (signal?.aborted) throw cancelled(abortError());
    waited = true;
    await new Promise<void>((resolve) => {
      const t = setTimeout(done, ELSEWHERE_POLL_MS);
      function done() {
        clearTimeout(t);
        signal?.removeEventListener('abort', done);
        resolve();
      }
      signal?.addEventListener('abort', done, { once: true });
    });
  }
  return waited;
}
