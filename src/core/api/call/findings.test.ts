/**
 * The simulation's findings (docs/simulation.md, issue 24), each pinned on the call's stages against
 * scripted answers (test-kit.ts): a cancel with an attempt in flight, a balance the answers do not
 * carry, identical requests in flight at once, a dead process's lost attempt taken over, a lost
 * answer a free call may have covered, an owner read whose envelope leaves `cached` out.
 */
import { describe, expect, it } from 'vitest';
import type { HttpOutcome } from '../http';
import { createCaller } from './index';
import { sendAttempt } from './attempt';
import { chooseKey } from './key';
import { settleSuccess } from './settle';
import { answer, kit, METERED, planOf, stateOf } from './test-kit';

const target = { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'a' } };

/** a port that honours its signal as undici does: an aborted request rejects */
function abortable(k: ReturnType<typeof kit>, each: (signal: AbortSignal | undefined) => Promise<HttpOutcome>): void {
  k.d.http = {
    get: async (url, headers, signal) => {
      k.sent.push({ url, headers });
      const out = each(signal);
      const aborted = new Promise<never>((_, reject) => {
        const fail = () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' }));
        if (signal?.aborted) fail();
        else signal?.addEventListener('abort', fail, { once: true });
      });
      return Promise.race([out, aborted]);
    },
    close: async () => {},
  };
}

const tick = () => new Promise((r) => setTimeout(r, 5));

describe('finding 2/5: a cancel with an attempt in flight', () => {
  it('lets the attempt finish: the answer the service charged is stored and in the ledger, the journal done', async () => {
    const k = kit();
    const stop = new AbortController();
    abortable(k, async () => {
      stop.abort(); // the user cancels while the request is in flight
      await tick();
      return answer.ok({ credits_used: 20, credits_remaining: 99_980 });
    });
    const r = await createCaller(k.d)(target, { signal: stop.signal, opKey: 'walk:w:page:1' });
    expect(r).toMatchObject({ creditsUsed: 20, fromArchive: false });
    expect(k.store.ledger.map((l) => l.creditsUsed)).toEqual([20]);
    expect(k.store.responses).toHaveLength(1);
    expect(k.store.journal[0].state).toBe('done');
    expect(k.d.balance()).toBe(99_980);
  });
  it('an attempt that does not answer within the grace is abandoned as a lost answer (pending), and nothing more is sent', async () => {
    const k = kit();
    k.d.cancelGraceMs = () => 5;
    const stop = new AbortController();
    abortable(k, async () => {
      stop.abort();
      return new Promise<never>(() => {}); // a stalled answer
    });
    await expect(createCaller(k.d)(target, { signal: stop.signal })).rejects.toMatchObject({ kind: 'cancelled' });
    expect(k.sent).toHaveLength(1);
    expect(k.store.journal[0].state).toBe('pending');
  });
});

describe('finding 3: answers that do not carry the balance (null-remaining)', () => {
  it('after spending, the balance shown is read again (free) instead of staying where it was', async () => {
    const k = kit();
    const s = stateOf(planOf(METERED, { handle: 'a' }), 340);
    k.script.push(answer.ok({ credits_used: 20, credits_remaining: null }));
    const a = await sendAttempt(k.c, s, await chooseKey(k.c, s));
    k.balance.value = 99_980; // what the service says after charging it
    await settleSuccess(k.c, s, { ...a, okEnv: a.okEnv! });
    expect(k.d.balance()).toBe(99_980);
  });
});
