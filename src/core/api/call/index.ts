/**
 * One logical data call (docs/request-core.md "Pipeline of one call") as a short loop of stages over
 * a typed context (context.ts): plan → serve from the archive → hold → open the journal → per
 * attempt: choose the key → attempt → settle a success, or decide the retry. Each stage is its own
 * module, tested on its own (call/*.test.ts).
 */
import type { CallTarget } from '../../ports';
import { abortError } from '../clock';
import { BalanceBook } from '../balance-book';
import { cancelled } from '../call-errors';
import { LEASE_MARGIN_MS } from '../pace-book';
import type { CallOptions, CallResult } from '../types';
import { sendAttempt } from './attempt';
import { callerOf, type CallerDeps } from './context';
import { afterFailure } from './failure';
import { holdCheck } from './hold';
import { activeHere } from './journal';
import { chooseKey } from './key';
import { planCall } from './plan';
import { serveFromArchive } from './serve';
import { settleOnExit, settleSuccess } from './settle';
import { openCall } from './state';

export type { CallerDeps } from './context';

export function createCaller(d: CallerDeps) {
  const c = callerOf(d, new BalanceBook({ clock: d.clock, store: d.store, activeHere, leaseMs: () => d.timeoutMs() + LEASE_MARGIN_MS }));

  return async function call<D = Record<string, unknown>>(target: CallTarget, o: CallOptions = {}): Promise<CallResult<D>> {
    const plan = planCall(target, await d.endpointOf(target), o);
    if (o.signal?.aborted) throw cancelled(abortError());
    // archive-first: the exact call answered inside the endpoint's cache window costs nothing
    const served = serveFromArchive<D>({ clock: d.clock, store: d.store, write: c.write }, plan);
    if (served) return served;
    const hold = await holdCheck(c, plan);
    const { s, letGo } = await openCall(c, plan, hold);
    c.held.credits += hold;
    try {
      for (;;) {
        const slot = await chooseKey(c, s);
        const a = await sendAttempt(c, s, slot);
        if (a.okEnv) return await settleSuccess<D>(c, s, { ...a, okEnv: a.okEnv });
        await afterFailure(c, s, a);
      }
    } catch (e) {
      throw settleOnExit(c, s, e);
    } finally {
      c.held.credits -= hold;
      letGo();
    }
  };
}
