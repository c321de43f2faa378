/**
 * Hold (docs/request-core.md "Pipeline of one call", step 4): never cause our own 402. The hold is
 * the price ceiling × the pages the call may read; it must fit the balance less what calls in
 * flight hold — judged on a fresh figure (free to read) before refusing. A charged call also needs
 * a clean starting balance (once per process) and an archive that can take the answer.
 */
import { NoKeys } from '../key-pool';
import { noKeys } from '../call-errors';
import { ApiError } from '../errors';
import type { Caller, CallPlan } from './context';

/** The call's hold, or an `insufficient_local` refusal (nothing sent). */
export async function holdCheck(c: Caller, p: CallPlan): Promise<number> {
  const { d, book } = c;
  if ((await d.pool.members()).length === 0) throw noKeys(new NoKeys([]));
  const hold = p.dry ? 0 : await d.holdOf(p.ep, p.target);
  if (hold === 0) return 0;
  if (d.balance() === null) {
    await d.probeBalance();
    book.mark(d.balance()); // that reading is also the book's first
  }
  let bal = d.balance();
  // the figure in memory may be stale (a top-up since): refuse only on a fresh one (free to read)
  if (bal !== null && c.held.credits + hold > bal) bal = (await d.readBalance()) ?? bal;
  if (bal !== null && c.held.credits + hold > bal) {
    const others = c.held.credits > 0 ? ` with ${c.held.credits} more held by calls in flight` : '';
    throw new ApiError({
      kind: 'insufficient_local',
      type: 'INSUFFICIENT_CREDITS',
      message: `Out of credits: this call holds ${hold}, balance is ${bal}${others}; nothing was sent.`,
    });
  }
  // a clean starting balance (free to read, once per process), so even a first answer that gets
  // lost can be told apart: charged or not
  await book.ensureReading(d.readBalance);
  // never spend on an answer the archive cannot keep: it proves it can take one first (once per
  // session and after any storage failure; ports.ts ensureWritable)
  const store = d.store;
  if (store.ensureWritable) c.write(() => store.ensureWritable?.());
  return hold;
}
