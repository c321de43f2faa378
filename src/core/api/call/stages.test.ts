/**
 * The call's impure stages, each on its own against scripted answers (test-kit.ts): the hold, the
 * journal, choosing the key, the attempt, settling a success, and what follows a failure.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors';
import { TEST_KEY } from '../test-helpers';
import { sendAttempt } from './attempt';
import { afterFailure } from './failure';
import { holdCheck } from './hold';
import { adoptable, holdEntry, openJournal } from './journal';
import { chooseKey } from './key';
import { settleOnExit, settleSuccess } from './settle';
import { answer, FIXED, kit, METERED, planOf, stateOf } from './test-kit';

const caught = async (p: Promise<unknown>): Promise<ApiError> =>
  (await p.then(
    () => undefined,
    (e: unknown) => e,
  )) as ApiError;

describe('hold', () => {
  it('refuses on a fresh figure only: a stale balance is read again (free) first', async () => {
    const k = kit({ balance: 50 });
    k.d.noteBalance(50, 0);
    const e = await caught(holdCheck(k.c, planOf(METERED, { handle: 'a' })));
    expect(e).toMatchObject({
      kind: 'insufficient_local',
      message: 'Out of credits: this call holds 340, balance is 50; nothing was sent.',
    });
    k.balance.value = 5000; // a top-up the memory does not know
    expect(await holdCheck(k.c, planOf(METERED, { handle: 'a' }))).toBe(340);
  });
  it('counts what calls in flight hold; a dry run holds nothing', async () => {
    const k = kit({ balance: 400 });
    k.c.held.credits = 100;
    expect((await caught(holdCheck(k.c, planOf(METERED, { handle: 'a' })))).message).toContain('with 100 more held by calls in flight');
    expect(await holdCheck(k.c, planOf(METERED, { handle: 'a', dry_run: '1' }))).toBe(0);
  });
});

describe('journal', () => {
  const call = {
    opKey: 'walk:w:page:1',
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
  const deps = (k: ReturnType<typeof kit>) => ({
    book: k.c.book,
    read: k.d.readBalance,
    now: () => k.clock.now(),
    find: (op: string) => k.store.findJournal(op),
    pending: () => k.store.pendingJournal(),
  });
  const pending = (callId: string, extra = {}) => ({
    callId,
    opKey: `walk:old:page:1:${callId}`,
    idempotencyKey: `k-${callId}`,
    platform: 'photo_net',
    endpoint: 'profile/posts',
    params: '{"handle":"a"}',
    paramsHash: 'h',
    state: 'pending' as const,
    createdAt: 0,
    finishedAt: null,
    keyName: 'main',
    ...extra,
  });

  it('a new entry with a fresh key, written at the first send', async () => {
    const k = kit();
    const o = await openJournal(deps(k), call);
    expect(o).toMatchObject({
      needJournal: true,
      answered: false,
      loss: null,
      inherited: null,
      journal: { opKey: call.opKey, state: 'pending' },
    });
  });
  it('an answered entry of the same operation: its key, a free replay', async () => {
    const k = kit();
    k.store.beginJournal(pending('c1', { opKey: call.opKey, state: 'done' }));
    expect(await openJournal(deps(k), call)).toMatchObject({ answered: true, needJournal: false, journal: { idempotencyKey: 'k-c1' } });
  });
  it('a pending entry of a process that is gone, for the same request under another op key: taken over', async () => {
    const k = kit();
    k.store.beginJournal(pending('dead'));
    const entries = k.store.pendingJournal().map((e) => ({ ...e, owner: 'gone' as const }));
    const o = await openJournal({ ...deps(k), pending: () => entries }, call);
    // inside the 6 h window the loss rule sends a fresh key (a free owner read if it was charged)
    expect(o.journal).toMatchObject({ callId: 'dead', opKey: call.opKey });
    expect(o.journal.idempotencyKey).not.toBe('k-dead');
    expect(o.loss?.lost.idempotencyKey).toBe('k-dead');
    holdEntry('dead')(); // the call that took it over ended without sending
    // outside any window, a fixed-price single page keeps it (the ceiling is the price), on its API key
    const fixed = await openJournal(
      { ...deps(k), pending: () => entries },
      { ...call, ttlSeconds: 0, price: { min: 20, max: 20 }, ceiling: 20 },
    );
    expect(fixed).toMatchObject({ journal: { idempotencyKey: 'k-dead' }, inherited: { keyName: 'main' }, needJournal: true });
    holdEntry('dead')();
  });
  it('two calls of this process for the same request: only one takes the dead process’s entry over', async () => {
    const k = kit();
    k.store.beginJournal(pending('dead2'));
    const entries = () => k.store.pendingJournal().map((e) => ({ ...e, owner: 'gone' as const }));
    const [a, b] = await Promise.all([
      openJournal({ ...deps(k), pending: entries }, { ...call, opKey: 'walk:x:page:1' }),
      openJournal({ ...deps(k), pending: entries }, { ...call, opKey: 'walk:y:page:1' }),
    ]);
    expect([a.journal.callId, b.journal.callId].filter((id) => id === 'dead2')).toHaveLength(1);
    holdEntry('dead2')(); // let it go
  });

  it('never another live process’s entry, an unknown one, or one a call of this process holds', () => {
    const c = { platform: 'photo_net', endpoint: 'profile/posts', paramsHash: 'h' };
    expect(adoptable([pending('a', { owner: 'alive' }), pending('b', { owner: 'unknown' })], c, () => false)).toBeUndefined();
    const release = holdEntry('mine');
    try {
      expect(adoptable([pending('mine', { owner: 'this' })], c, (id) => id === 'mine')).toBeUndefined();
      expect(
        adoptable([pending('gaveup', { owner: 'this' }), pending('old', { owner: 'gone', createdAt: -5 })], c, () => false)?.callId,
      ).toBe('gaveup');
    } finally {
      release();
    }
  });
});

describe('choose the key', () => {
  it('writes the journal with the key that sends and the reading a loss would be measured from, before sending', async () => {
    const k = kit();
    const s = stateOf(planOf(METERED, { handle: 'a' }), 340);
    const slot = await chooseKey(k.c, s);
    slot.release({ unsent: true });
    expect(k.store.journal[0]).toMatchObject({ keyName: 'main', before: { balance: 100_000 } });
    expect(s.sentWith.get('idem-1')).toEqual({ name: 'main', key: TEST_KEY });
  });
  it('a replay whose API key left the pool: a fresh Idempotency-Key', async () => {
    const k = kit();
    const s = stateOf(planOf(METERED, { handle: 'a' }), 340, { needJournal: false });
    s.sentWith.set('idem-1', { name: 'gone', key: 'sdr_live_gone' });
    const slot = await chooseKey(k.c, s);
    slot.release({ unsent: true });
    expect(s.j.idempotencyKey).not.toBe('idem-1');
  });
  it('a key paused beyond the wait cap: stops unsent, nothing pending', async () => {
    const k = kit({ maxWaitMs: 1000 });
    const s = stateOf(planOf(METERED, { handle: 'a' }), 340);
    k.store.beginJournal(s.j);
    (await k.d.pool.members())[0].pacer.pause(k.clock.now() + 3_600_000);
    expect(await caught(chooseKey(k.c, s))).toMatchObject({ kind: 'rate_wait' });
    expect(k.store.journal[0].state).toBe('failed');
  });
});

describe('the attempt', () => {
  const outcomes = [
    [
      'a success',
      answer.ok({ credits_used: 20, credits_remaining: 99_980 }),
      { status: 200, errorType: null, creditsUsed: 20, creditsRemaining: 99_980 },
      false,
    ],
    [
      'an error envelope',
      answer.error(503, 'UPSTREAM_ERROR', {}, { 'retry-after': '5' }),
      { status: 503, errorType: 'UPSTREAM_ERROR', creditsUsed: 0 },
      true,
    ],
    ['a body dropped mid-way', answer.lost('mid_body'), { status: 200, errorType: 'NETWORK_MID_BODY', requestId: 'req_lost' }, true],
    ['a connection refused', answer.unsent(), { status: null, errorType: 'NETWORK_CONNECT' }, true],
    ['a proxy’s 418 text', answer.teapot(), { status: 418, errorType: 'NETWORK_BAD_JSON' }, false],
  ] as const;
  it.each(outcomes)('%s: one ledger row as the service reported it, the slot released, the event', async (_, out, row, willRetry) => {
    const k = kit();
    k.script.push(out);
    const s = stateOf(planOf(METERED, { handle: 'a' }), 340);
    const a = await sendAttempt(k.c, s, await chooseKey(k.c, s));
    expect(k.store.ledger).toHaveLength(1);
    expect(k.store.ledger[0]).toMatchObject({ callId: 'call-1', attempt: 1, idempotencyKey: 'idem-1', keyName: 'main', ...row });
    expect(a.willRetry).toBe(willRetry);
    expect(k.c.book.attemptsInFlight).toBe(0);
    expect((await k.d.pool.members())[0].pacer.stats().inFlight).toBe(0);
    expect(k.events.filter((e) => e.name === 'attempt')).toHaveLength(1);
    expect(k.sent[0].headers).toMatchObject({ 'x-api-key': TEST_KEY, 'Idempotency-Key': 'idem-1' });
  });
});

describe('settle', () => {
  const lossOf = (credits: number | null, keptOnBalance = false, startedAt = 1_700_000_000_000 - 1000) => ({
    lost: { attempt: 1, startedAt, idempotencyKey: 'idem-1', before: null, settled: false },
    attribution: credits === null ? ({ kind: 'unknown', why: 'x' } as const) : ({ kind: 'charged', credits } as const),
    keptOnBalance,
  });
  const settle = async (k: ReturnType<typeof kit>, s: ReturnType<typeof stateOf>, out: ReturnType<typeof answer.ok>) => {
    k.script.push(out);
    const a = await sendAttempt(k.c, s, await chooseKey(k.c, s));
    return settleSuccess(k.c, s, { ...a, okEnv: a.okEnv! });
  };

  it('a replay of the lost key proves its charge: the balance’s amount, or the floor; the replay itself costs nothing', async () => {
    for (const [credits, row] of [
      [140, { creditsUsed: 140, chargeReason: 'inferred:balance' }],
      [null, { creditsUsed: 20, chargeReason: 'inferred:price' }],
    ] as const) {
      const k = kit();
      k.c.book.freeCallsGone = true; // else the least a lost answer cost is 0 (a free call may have covered it)
      const s = stateOf(planOf(METERED, { handle: 'a' }, { fresh: true }), 340, { loss: lossOf(credits, credits !== null) });
      const r = await settle(
        k,
        s,
        answer.ok({ idempotent_replay: true, charge_reason: 'replay', credits_used: 0, credits_remaining: 100_000 }),
      );
      expect(k.store.ledger.filter((l) => l.chargeReason?.startsWith('inferred:'))).toEqual([
        expect.objectContaining({ ...row, idempotencyKey: 'idem-1' }),
      ]);
      expect(r).toMatchObject({ creditsUsed: row.creditsUsed, creditsInferred: row.creditsUsed });
      expect(k.store.journal[0].state).toBe('done');
      expect(k.store.responses).toHaveLength(1);
    }
  });
  it('inside the window, a fresh key charged normally proves the lost one was not: nothing inferred', async () => {
    const k = kit();
    const s = stateOf(planOf(METERED, { handle: 'a' }), 340, { loss: lossOf(20) });
    s.j.idempotencyKey = 'idem-2';
    const r = await settle(k, s, answer.ok({ credits_used: 20, cached: false, credits_remaining: 99_980 }));
    expect(r).toMatchObject({ creditsUsed: 20, creditsInferred: 0 });
    expect(k.c.book.outsideActivityAt).not.toBeNull(); // the balance said otherwise: something else moved it
  });
  it('the same key kept on the balance’s word, charged as a new call: nothing inferred', async () => {
    const k = kit();
    const s = stateOf(planOf(FIXED, { query: 'a' }), 20, { loss: lossOf(20, true) });
    const r = await settle(k, s, answer.ok({ credits_used: 340, charge_reason: 'miss', credits_remaining: 99_660 }));
    expect(r.creditsInferred).toBe(0);
  });
  it('a call that ends unconfirmed with a charge the balance attributed to the key it kept: recorded then, the journal done', () => {
    const k = kit();
    const s = stateOf(planOf(FIXED, { query: 'a' }), 20, { loss: lossOf(20, true) });
    k.store.beginJournal(s.j);
    const e = settleOnExit(k.c, s, new ApiError({ kind: 'gave_up', message: 'x' })) as ApiError;
    expect(e.creditsCharged).toBe(20);
    expect(k.store.ledger.map((l) => l.chargeReason)).toEqual(['inferred:balance']);
    expect(k.store.journal[0].state).toBe('done');
  });
});

describe('after a failure', () => {
  const failed = async (k: ReturnType<typeof kit>, s: ReturnType<typeof stateOf>, out: Parameters<typeof k.script.push>[0]) => {
    k.script.push(out);
    const a = await sendAttempt(k.c, s, await chooseKey(k.c, s));
    return afterFailure(k.c, s, a);
  };
  it('an error answer: a fresh key after the wait; a 409 keeps it', async () => {
    const k = kit();
    const s = stateOf(planOf(METERED, { handle: 'a' }), 340);
    await failed(k, s, answer.error(500, 'INTERNAL_ERROR'));
    expect(s.j.idempotencyKey).not.toBe('idem-1');
    expect(k.clock.sleeps).toEqual([500]);
    const key = s.j.idempotencyKey;
    await failed(k, s, answer.error(409, 'IDEMPOTENCY_IN_PROGRESS', {}, { 'retry-after': '2' }));
    expect(s.j.idempotencyKey).toBe(key);
  });
  it('a lost answer inside the window: a fresh key, the loss kept for what a later answer proves', async () => {
    const k = kit();
    const s = stateOf(planOf(METERED, { handle: 'a' }), 340);
    await failed(k, s, answer.lost());
    expect(s.j.idempotencyKey).not.toBe('idem-1');
    expect(s.loss?.lost.idempotencyKey).toBe('idem-1');
    expect(k.store.journal[0].state).toBe('pending');
  });
  it('a lost answer on a fixed-price single page outside any window: the same key (the ceiling is the price)', async () => {
    const k = kit({ balance: null });
    const s = stateOf(planOf(FIXED, { query: 'a' }), 20);
    await failed(k, s, answer.lost());
    expect(s.j.idempotencyKey).toBe('idem-1');
  });
  it('no retries left: gave up, and the journal stays pending after a lost answer', async () => {
    const k = kit({ maxRetries: 0 });
    const s = stateOf(planOf(METERED, { handle: 'a' }), 340);
    expect(await caught(failed(k, s, answer.lost()))).toMatchObject({ kind: 'gave_up' });
    expect(k.store.journal[0].state).toBe('pending');
  });
  it('a 4xx: fails at once with the service’s words, the key redacted, the journal failed', async () => {
    const k = kit();
    const s = stateOf(planOf(METERED, { handle: 'a' }), 340);
    const e = await caught(
      failed(k, s, answer.error(404, 'RESOURCE_NOT_FOUND', { error: { type: 'RESOURCE_NOT_FOUND', message: `no ${TEST_KEY}` } })),
    );
    expect(e).toMatchObject({ kind: 'api', type: 'RESOURCE_NOT_FOUND' });
    expect(e.message).not.toContain(TEST_KEY);
    expect(k.store.journal[0].state).toBe('failed');
  });
  it('a Retry-After beyond the wait cap: stops (rate_wait) and pauses the key', async () => {
    const k = kit({ maxWaitMs: 60_000 });
    const s = stateOf(planOf(METERED, { handle: 'a' }), 340);
    expect(await caught(failed(k, s, answer.error(429, 'RATE_LIMITED', {}, { 'retry-after': '86400' })))).toMatchObject({
      kind: 'rate_wait',
    });
    expect((await k.d.pool.members())[0].pacer.stats().pausedUntil).toBeGreaterThan(k.clock.now());
  });
});
