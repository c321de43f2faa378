/**
 * The simulation's findings (docs/simulation.md, issue 24), each pinned on the call's stages against
 * scripted answers (test-kit.ts): a cancel with an attempt in flight, a balance the answers do not
 * carry, identical requests in flight at once, a dead process's lost attempt taken over, a lost
 * answer a free call may have covered, an owner read whose envelope leaves `cached` out.
 */
import { describe, expect, it } from 'vitest';
import type { HttpOutcome } from '../http';
import type { WalkState } from '../../ports';
import { createCaller } from './index';
import { sendAttempt } from './attempt';
import { holdEntry, openJournal } from './journal';
import { chooseKey } from './key';
import { chargeOfLoss, type LossState } from './loss';
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

describe('finding 7: identical requests in flight at once', () => {
  it('inside a cache window the second waits for the first and is served from the archive: paid once', async () => {
    const k = kit();
    let answerNow!: () => void;
    const gate = new Promise<void>((r) => (answerNow = r));
    k.d.http = {
      get: async (url, headers) => {
        k.sent.push({ url, headers });
        await gate;
        return answer.ok({ data: { items: [{ post: { id: '1' } }] }, credits_used: 20, credits_remaining: 99_980 });
      },
      close: async () => {},
    };
    const call = createCaller(k.d);
    const first = call(target, { opKey: 'walk:a:page:1' });
    const second = call(target, { opKey: 'walk:b:page:1' });
    while (k.sent.length === 0) await tick();
    await tick();
    expect(k.sent).toHaveLength(1); // the second waits
    answerNow();
    const [a, b] = await Promise.all([first, second]);
    expect(k.sent).toHaveLength(1);
    expect(a).toMatchObject({ fromArchive: false, creditsUsed: 20 });
    expect(b).toMatchObject({ fromArchive: true, creditsUsed: 0 });
    expect(k.store.ledger.map((l) => l.creditsUsed)).toEqual([20]);
  });
  it('a fresh call is not held back; a cancel stops the wait', async () => {
    const k = kit();
    let answerNow!: () => void;
    const gate = new Promise<void>((r) => (answerNow = r));
    k.d.http = {
      get: async (url, headers) => {
        k.sent.push({ url, headers });
        await gate;
        return answer.ok({ credits_used: 20, credits_remaining: 99_980 });
      },
      close: async () => {},
    };
    const call = createCaller(k.d);
    const first = call(target);
    const fresh = call(target, { fresh: true });
    while (k.sent.length < 2) await tick();
    const stop = new AbortController();
    const waiting = call(target, { signal: stop.signal });
    stop.abort();
    await expect(waiting).rejects.toMatchObject({ kind: 'cancelled' });
    answerNow();
    await Promise.all([first, fresh]);
    expect(k.sent).toHaveLength(2);
  });
});

describe('finding 6: taking over a killed process’s call', () => {
  const call = {
    opKey: 'walk:w2:page:1',
    platform: 'photo_net',
    endpoint: 'profile/posts',
    params: '{"handle":"a"}',
    paramsHash: 'h',
    ttlSeconds: 21600,
    noCache: false,
    price: { min: 20, max: 340 },
    pages: 1,
    ceiling: 340,
  };
  // the dead process: attempt 1 (key k1) broke on the way, charged; it moved on to a fresh key k2 and died sending it
  const dead = (k: ReturnType<typeof kit>) => {
    k.store.beginJournal({
      callId: 'dead',
      opKey: 'walk:w1:page:1',
      idempotencyKey: 'k2',
      platform: 'photo_net',
      endpoint: 'profile/posts',
      params: call.params,
      paramsHash: 'h',
      state: 'pending',
      createdAt: k.clock.now() - 1000,
      finishedAt: null,
      keyName: 'main',
      before: { balance: 99_980, at: k.clock.now() - 1000, ledgerId: 1 },
    });
    k.store.recordAttempt({
      callId: 'dead',
      attempt: 1,
      startedAt: k.clock.now() - 2000,
      durationMs: 5,
      platform: 'photo_net',
      endpoint: 'profile/posts',
      params: call.params,
      paramsHash: 'h',
      idempotencyKey: 'k1',
      requestId: 'req_lost',
      status: 200,
      errorType: 'NETWORK_BAD_JSON',
      creditsUsed: 0,
      creditsRemaining: null,
      chargeReason: null,
      cached: false,
      freeCall: false,
      idempotentReplay: false,
      source: 'cli',
      walkId: 'w1',
      dryRun: false,
      keyName: 'second',
    });
    return k.store.pendingJournal().map((e) => ({ ...e, owner: 'gone' as const }));
  };
  const deps = (k: ReturnType<typeof kit>, entries: ReturnType<typeof dead>) => ({
    book: k.c.book,
    read: k.d.readBalance,
    now: () => k.clock.now(),
    find: (op: string) => k.store.findJournal(op),
    pending: () => entries,
    ledgerOf: (id: string) => k.store.ledgerOfCall(id),
  });

  it('the lost attempt judged is the broken one the ledger shows (its key), not the journal’s later, never-answered key', async () => {
    const k = kit();
    const o = await openJournal(deps(k, dead(k)), call);
    expect(o.loss?.lost.idempotencyKey).toBe('k1');
    expect(o.loss?.lost.before).toBeNull(); // the entry's reading was taken after that loss
    expect(o.journal.idempotencyKey).not.toMatch(/^k[12]$/); // inside the window: a fresh key
    holdEntry('dead')();
  });
  it('where the rule keeps the key, it is the broken attempt’s, on the API key that sent it', async () => {
    const k = kit();
    const o = await openJournal(deps(k, dead(k)), { ...call, ttlSeconds: 0, price: { min: 20, max: 20 }, ceiling: 20 });
    expect(o.journal).toMatchObject({ idempotencyKey: 'k1', keyName: 'second' });
    expect(o.inherited).toMatchObject({ idempotencyKey: 'k1', keyName: 'second' });
    expect(o.needJournal).toBe(true);
    holdEntry('dead')();
  });
});

describe('finding 1: a lost answer a free call may have covered', () => {
  const lossOf = (attribution: LossState['attribution']): LossState => ({
    lost: { attempt: 1, startedAt: 0, idempotencyKey: 'idem-1', before: null, settled: false },
    attribution,
    keptOnBalance: false,
  });
  const call = { callId: 'c', ttlSeconds: 21600, noCache: false, price: { min: 20, max: 340 }, pages: 1, ceiling: 340 };
  const proof = { replay: true, ownerRead: false, ownedNot: false, creditsRemaining: null };
  const read = async () => null;

  it('while free calls may remain, a finished lost answer the balance cannot price cost at least 0: nothing is inferred', async () => {
    const k = kit();
    expect(await chargeOfLoss(k.c.book, read, call, lossOf({ kind: 'unknown', why: 'x' }), proof)).toBeNull();
    // a balance that did not move agrees with a free call: no outside spender is assumed
    expect(await chargeOfLoss(k.c.book, read, call, lossOf({ kind: 'not-charged' }), proof)).toBeNull();
    expect(k.c.book.outsideActivityAt).toBeNull();
    // the balance's amount stands
    expect(await chargeOfLoss(k.c.book, read, call, lossOf({ kind: 'charged', credits: 40 }), proof)).toEqual({
      credits: 40,
      how: 'balance',
    });
    // a call no free call can cover (priced above 100): the floor
    expect(
      await chargeOfLoss(k.c.book, read, { ...call, price: { min: 120, max: 300 } }, lossOf({ kind: 'unknown', why: 'x' }), proof),
    ).toEqual({ credits: 120, how: 'price' });
  });
  it('once a call priced at 100 or less under every reading was charged, none is left: the floor', async () => {
    const k = kit();
    const s = stateOf(planOf(METERED, { handle: 'a' }), 340);
    k.script.push(answer.ok({ credits_used: 20 }));
    await sendAttempt(k.c, s, await chooseKey(k.c, s));
    expect(k.c.book.freeCallsGone).toBe(false); // its ceiling is 340: a free call need not have applied
    const cheap = stateOf(planOf(METERED, { handle: 'b' }), 100, {
      j: { ...s.j, callId: 'call-2', opKey: 'op-2', idempotencyKey: 'idem-2' },
    });
    await sendAttempt(k.c, cheap, await chooseKey(k.c, cheap));
    expect(k.c.book.freeCallsGone).toBe(true);
    expect(await chargeOfLoss(k.c.book, read, call, lossOf({ kind: 'unknown', why: 'x' }), proof)).toEqual({ credits: 20, how: 'price' });
  });
});

describe('finding 4: an owner read whose envelope leaves `cached` out (lean-envelope)', () => {
  const lean = (): HttpOutcome => {
    const out = answer.ok({ data: { items: [{ post: { id: '1' } }] }, credits_used: 0, credits_remaining: 99_980 });
    const env = out.json as Record<string, unknown>;
    for (const f of ['cached', 'free_call', 'charge_reason']) delete env[f];
    env.idempotent_replay = undefined;
    return out;
  };
  const settleLean = async (freeCallsGone: boolean) => {
    const k = kit();
    k.c.book.freeCallsGone = freeCallsGone;
    const s = stateOf(planOf(METERED, { handle: 'a' }), 340, {
      loss: {
        lost: { attempt: 1, startedAt: k.clock.now() - 1000, idempotencyKey: 'idem-1', before: null, settled: false },
        attribution: { kind: 'unknown', why: 'x' },
        keptOnBalance: false,
      },
    });
    s.j.idempotencyKey = 'idem-2'; // the fresh key inside the window
    k.script.push(lean());
    const a = await sendAttempt(k.c, s, await chooseKey(k.c, s));
    await settleSuccess(k.c, s, { ...a, okEnv: a.okEnv! });
    return k.store.ledger.filter((l) => l.chargeReason?.startsWith('inferred:'));
  };
  it('a fresh key inside the window answered free with rows reveals the lost original’s charge, under its key', async () => {
    expect(await settleLean(true)).toEqual([
      expect.objectContaining({ idempotencyKey: 'idem-1', creditsUsed: 20, chargeReason: 'inferred:price' }),
    ]);
  });
  it('…but not while a free call may have covered the fresh call itself (the balance decides)', async () => {
    expect(await settleLean(false)).toEqual([]);
  });
});

describe('simulation finding 19: an owner read while a page of the same list is owned under another cursor', () => {
  const owned = (params: Record<string, string>, agoMs: number, now: number) => ({
    callId: 'earlier',
    attempt: 1,
    startedAt: now - agoMs,
    durationMs: 5,
    platform: 'photo_net',
    endpoint: 'profile/posts',
    params: JSON.stringify(Object.fromEntries(Object.entries(params).sort())),
    paramsHash: 'h',
    idempotencyKey: 'earlier-key',
    requestId: 'req_earlier',
    status: 200,
    errorType: null,
    creditsUsed: 20,
    creditsRemaining: 99_980,
    chargeReason: 'miss',
    cached: false,
    freeCall: false,
    idempotentReplay: false,
    source: 'search',
    walkId: 'w0',
    dryRun: false,
  });
  const settleOwnerRead = async (before: Record<string, string> | null, agoMs = 60_000, walk?: { restarts: number }) => {
    const k = kit();
    k.c.book.freeCallsGone = true;
    const now = k.clock.now();
    if (before) k.store.recordAttempt(owned(before, agoMs, now));
    // the lost page and the owned one of one walk (w0), which started over `restarts` times
    if (walk) k.store.walks.set('w0', { walkId: 'w0', restarts: walk.restarts } as WalkState);
    const s = stateOf(planOf(METERED, { handle: 'a', cursor: 'c2-new' }, walk ? { walkId: 'w0' } : {}), 340, {
      loss: {
        lost: { attempt: 1, startedAt: now - 1000, idempotencyKey: 'idem-1', before: null, settled: false },
        attribution: { kind: 'unknown', why: 'another spender' },
        keptOnBalance: false,
      },
    });
    s.j.idempotencyKey = 'idem-2'; // the fresh key inside the window
    k.script.push(answer.ok({ data: { items: [{ post: { id: '1' } }] }, credits_used: 0, cached: true, credits_remaining: 99_900 }));
    const a = await sendAttempt(k.c, s, await chooseKey(k.c, s));
    await settleSuccess(k.c, s, { ...a, okEnv: a.okEnv! });
    return { inferred: k.store.ledger.filter((l) => l.chargeReason?.startsWith('inferred:')).map((l) => l.creditsUsed), logs: k.logs };
  };
  it('another cursor of the list owned inside the window: the owner read proves nothing, nothing is recorded (said in the log)', async () => {
    const r = await settleOwnerRead({ handle: 'a', cursor: 'c2-old' });
    expect(r.inferred).toEqual([]);
    expect(r.logs.join('\n')).toMatch(/nothing recorded .*credits --reconcile/);
    // a native paging token counts as a cursor
    expect((await settleOwnerRead({ handle: 'a', next_max_id: 'x' })).inferred).toEqual([]);
  });
  it('no page of the list under a cursor owned inside the window: the owner read proves the charge (the floor)', async () => {
    expect((await settleOwnerRead(null)).inferred).toEqual([20]);
    expect((await settleOwnerRead({ handle: 'a' })).inferred).toEqual([20]); // page 1 is a page of its own
    expect((await settleOwnerRead({ handle: 'b', cursor: 'c2-old' })).inferred).toEqual([20]); // another list
    expect((await settleOwnerRead({ handle: 'a', cursor: 'c2-old' }, 7 * 3600_000)).inferred).toEqual([20]); // its window over
    // an earlier page of the same walk, which never started over: another position
    expect((await settleOwnerRead({ handle: 'a', cursor: 'c2-old' }, 60_000, { restarts: 0 })).inferred).toEqual([20]);
  });
  it('a page of the same walk after it started over may be the lost one re-read under a new cursor: nothing recorded', async () => {
    expect((await settleOwnerRead({ handle: 'a', cursor: 'c2-old' }, 60_000, { restarts: 1 })).inferred).toEqual([]);
  });
});
