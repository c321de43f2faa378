/**
 * Open the call (docs/request-core.md "Pipeline of one call", step 5): its journal entry (new,
 * reused for the same operation, or taken over from a dead process; journal.ts), and the API key an
 * inherited Idempotency-Key must be replayed on.
 */
import { holdEntry, openJournal } from './journal';
import { lossCallOf, newKey, type Caller, type CallPlan, type CallState } from './context';
import { settleCharged } from './settle';
import { urlOf } from './plan';

/** The running state of a call, and the function that lets its journal entry go when it ends. */
export async function openCall(c: Caller, plan: CallPlan, hold: number): Promise<{ s: CallState; letGo: () => void }> {
  const { d, book, write } = c;
  const opened = await openJournal(
    {
      book,
      read: d.readBalance,
      now: () => d.clock.now(),
      find: (k) => write(() => d.store.findJournal(k)),
      pending: () => write(() => d.store.pendingJournal()),
      ledgerOf: (id) => write(() => d.store.ledgerOfCall?.(id) ?? []),
      release: (e) => write(() => d.store.beginJournal(e)),
      highWater: () => write(() => d.store.ledgerHighWater()),
    },
    {
      ...lossCallOf({ plan, hold }, ''),
      opKey: plan.opts.opKey,
      platform: plan.platform,
      endpoint: plan.endpoint,
      params: plan.canonical,
      paramsHash: plan.hash,
    },
  );
  const letGo = holdEntry(opened.journal.callId);
  try {
    const s: CallState = {
      plan,
      hold,
      j: opened.journal,
      needJournal: opened.needJournal,
      answered: opened.answered,
      loss: opened.loss,
      inferredSoFar: 0,
      sentWith: new Map(),
      attempt: 0,
      timeouts: 0,
      keyMoves: 0,
      url: urlOf(d.baseUrl(), plan),
      key: '',
    };
    // a taken-over lost attempt the balance says was charged, retried with a fresh key outside any window
    if (opened.loss && !opened.inherited) settleCharged(c, s, opened.loss, 'fresh');
    const inherited = opened.inherited;
    if (inherited) {
      // an earlier call or process sent this Idempotency-Key: with the key it names, when still in the pool
      const members = await d.pool.members();
      const m = inherited.keyName ? members.find((x) => x.name === inherited.keyName) : members.length === 1 ? members[0] : undefined;
      if (m) s.sentWith.set(inherited.idempotencyKey, { name: m.name, key: m.key });
      else if (inherited.keyName) newKey(c, s); // that key left the pool: its replay is out of reach
    }
    return { s, letGo };
  } catch (e) {
    letGo();
    throw e;
  }
}
