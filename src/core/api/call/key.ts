/**
 * Choose the key (docs/request-core.md "Key pool"): the next attempt's slot — on the API key that
 * sent its Idempotency-Key when it replays one (a same-key retry on another API key would be a new
 * call under one reading of the spec), else on the key that can start soonest — and the journal
 * row naming both, with the balance reading a loss of that key would be measured from, written
 * before anything is sent.
 */
import { NoKeys, type Slot } from '../key-pool';
import { cancelled, noKeys, rateWait } from '../call-errors';
import { newKey, unsentStop, type Caller, type CallState } from './context';

export async function chooseKey(c: Caller, s: CallState): Promise<Slot> {
  const { d, book } = c;
  const { j, plan } = s;
  let pin = s.sentWith.get(j.idempotencyKey);
  const members = await d.pool.members();
  const pinned = pin ? members.find((m) => m.key === pin?.key) : undefined;
  if (pin && !pinned) {
    // the key that sent this Idempotency-Key left the pool (refused, removed): a fresh one
    newKey(c, s);
    pin = undefined;
  }
  // a pause longer than the wait cap (an earlier RATE_LIMITED on this key, or on every key) stops here, unsent
  const paused = pinned ? pinned.pacer.stats().pausedUntil : d.pool.stats().pausedUntil;
  if (paused !== null && paused - d.clock.now() > d.maxWaitMs())
    throw unsentStop(
      c,
      s,
      rateWait({ where: plan.where, until: paused, now: d.clock.now(), maxWaitMs: d.maxWaitMs() }, 'RATE_LIMITED', null, undefined),
    );
  let slot: Slot;
  try {
    slot = await d.pool.acquire(plan.priority, plan.opts.signal, pin);
  } catch (e) {
    if (e instanceof NoKeys) throw unsentStop(c, s, noKeys(e));
    throw unsentStop(c, s, cancelled(e));
  }
  if (s.needJournal || j.keyName !== slot.name) {
    // the journal names the Idempotency-Key and the key that sends it before anything is sent,
    // with the clean balance reading a loss of that key would be measured from (free)
    j.keyName = slot.name;
    try {
      if (j.before === undefined) j.before = s.hold > 0 ? await book.beforeSending(d.readBalance) : null;
      // whether an introductory free call could cover this key as things stand when it is first sent
      // (after that reading, which may say none is left): a later process judges its loss by it
      if (j.freeMayCover === undefined) j.freeMayCover = !book.noFreeCalls();
      // …and how many the service last said were left (the ledger's free answers since tell a later process the rest)
      if (j.freeLeft === undefined) j.freeLeft = d.freeMark?.() ?? null;
      c.write(() => d.store.beginJournal(j));
    } catch (e) {
      slot.release({ unsent: true });
      throw e;
    }
    s.needJournal = false;
  }
  s.sentWith.set(j.idempotencyKey, { name: slot.name, key: slot.key });
  s.key = slot.key;
  return slot;
}
