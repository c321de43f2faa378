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
import { callerOf, type CallerDeps, type CallPlan } from './context';
import { awaitElsewhere } from './elsewhere';
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
  const c = callerOf(
    d,
    new BalanceBook({
      clock: d.clock,
      store: d.store,
      activeHere,
      leaseMs: () => d.timeoutMs() + LEASE_MARGIN_MS,
      freeCallsLeft: d.freeCallsLeft,
    }),
  );

  /** identical calls in flight in this process (single flight), by the call's identity */
  const flying = new Map<string, Promise<void>>();

  return async function call<D = Record<string, unknown>>(target: CallTarget, o: CallOptions = {}): Promise<CallResult<D>> {
    const plan = planCall(target, await d.endpointOf(target), o);
    if (o.signal?.aborted) throw cancelled(abortError());
    // single flight: an identical request in flight would be charged `miss` again (neither answer is
    // cached yet); inside a cache window the second waits for the first, then is served from the
    // archive (or sent: the service's cache answers an owner read free)
    const single = !plan.opts.fresh && !plan.dry && plan.ep.cache_ttl_seconds > 0 ? plan.hash : null;
    if (single) for (let ahead = flying.get(single); ahead; ahead = flying.get(single)) await landed(ahead, o.signal);
    // archive-first: the exact call answered inside the endpoint's cache window costs nothing
    const serve = () => serveFromArchive<D>({ clock: d.clock, store: d.store, write: c.write }, plan);
    const served = serve();
    if (served) return served;
    let land = () => {};
    if (single) flying.set(single, new Promise<void>((r) => (land = r)));
    try {
      // …and so is the identical request another process (or core) on the archive is sending now:
      // once it has landed, its answer is in the archive
      if (single && (await awaitElsewhere(c, plan, d.timeoutMs() + LEASE_MARGIN_MS, o.signal))) {
        const landedElsewhere = serve();
        if (landedElsewhere) return landedElsewhere;
      }
      return await send<D>(plan);
    } finally {
      if (single) flying.delete(single);
      land();
    }
  };

  async function send<D>(plan: CallPlan): Promise<CallResult<D>> {
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
  }
}

/** The identical call ahead has ended (however it ended); a cancel stops the wait. */
function landed(ahead: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return ahead;
  return new Promise<void>((resolve, reject) => {
    const stop = () => reject(cancelled(abortError()));
    if (signal.aborted) return stop();
    signal.addEventListener('abort', stop, { once: true });
    void ahead.then(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    });
  });
}
