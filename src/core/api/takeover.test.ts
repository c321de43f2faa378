/**
 * A killed process's lost answer taken over where no answer can prove its charge (simulation
 * finding 8, docs/simulation.md; docs/request-core.md "Attributing a balance drop"): under the
 * `no-cache-window` reading a fresh key is charged again rather than read as the owner's, so only
 * the balance can tell whether the dead process's lost attempt was charged. The state a killed
 * process leaves is built here step by step (no kill timing): its clean reading, its key sent and
 * lost on the way (charged or not), the fresh key it moved on to (the entry names it, with a reading
 * taken after the loss), sent and never answered; then a new core runs the same request.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../sandbox';
import { openArchive } from '../archive';
import { testDb } from '../archive/testing';
import { canonicalParams, paramsHash } from './canonical';
import { createApiCore, scaledClock } from './index';

const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const f of open.splice(0).reverse()) await f();
});

const target = { platform: 'short_video_net', endpoint: 'search', params: { query: 'cake', max_pages: '2' } };

async function until(f: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !f(); i++) await new Promise((r) => setTimeout(r, 5));
  if (!f()) throw new Error('state not reached');
}

async function setup(variants: string[], freeCalls = 0) {
  const sb = await startSandbox({ port: 0, seed: 8, balance: 100_000, freeCalls, variants });
  const clock = scaledClock(() => sb.admin.now(), 1);
  const archive = openArchive(':memory:', { clock: () => clock.now() });
  open.push(async () => {
    archive.close();
    await sb.close();
  });
  const core = () => {
    const c = createApiCore({ baseUrl: sb.url, getKey: () => sb.key, store: archive, clock, timeoutMs: 60_000 });
    open.push(() => c.close());
    return c;
  };
  return { sb, archive, clock, core };
}

type Target = { platform: string; endpoint: string; params: Record<string, string> };
const url = (sb: SandboxHandle, t: Target = target) =>
  `${sb.url}/v1/${t.platform}/${t.endpoint}?${new URLSearchParams(t.params).toString()}`;

/**
 * What a process killed mid-call leaves: its reading, key k1 lost on the way (`lost`: a charged
 * answer cut short, or a dropped one the service never finished), a fresh key k2 with a reading taken
 * after that loss (`gapS` seconds later: too far apart for the process to attribute the drop), k2
 * sent and never answered. `free`: whether that process knew an introductory free call might cover
 * each key when it sent it (it reads `free_calls_remaining` with its balance). `meanwhile`: what
 * happens between the loss and the process's reading after it (another spender); `t`: the request.
 */
async function deadProcess(
  s: Awaited<ReturnType<typeof setup>>,
  lost: 'truncate-charged' | 'drop',
  gapS = 300,
  free = { k1: false, k2: false },
  afterS = 600,
  { t = target, meanwhile = async () => {} }: { t?: Target; meanwhile?: () => Promise<void> } = {},
): Promise<void> {
  const { sb, archive, clock } = s;
  const r0 = { balance: sb.admin.balance(), at: clock.now(), ledgerId: archive.ledgerHighWater() };
  const tc = canonicalParams(t.params);
  const th = paramsHash(`${t.platform}/${t.endpoint}?${tc}`);
  const base = { callId: 'dead', platform: t.platform, endpoint: t.endpoint, params: tc, paramsHash: th };
  archive.beginJournal({
    ...base,
    opKey: 'walk:w1:page:1',
    idempotencyKey: 'k1',
    state: 'pending',
    createdAt: r0.at,
    finishedAt: null,
    keyName: null,
    before: r0,
    freeMayCover: free.k1,
  });
  sb.admin.queueFaults([{ kind: lost }]);
  const startedAt = clock.now();
  const res = await fetch(url(sb, t), { headers: { 'x-api-key': sb.key, 'Idempotency-Key': 'k1' } });
  await res.text().catch(() => '');
  archive.recordAttempt({
    ...base,
    attempt: 1,
    startedAt,
    durationMs: 5,
    idempotencyKey: 'k1',
    requestId: res.headers.get('x-request-id'),
    status: 200,
    errorType: lost === 'drop' ? 'NETWORK_MID_BODY' : 'NETWORK_BAD_JSON',
    creditsUsed: 0,
    creditsRemaining: null,
    chargeReason: null,
    cached: false,
    freeCall: false,
    idempotentReplay: false,
    source: 'cli',
    walkId: 'w1',
    dryRun: false,
    keyName: null,
  });
  await meanwhile();
  sb.admin.advance(gapS);
  const r2 = { balance: sb.admin.balance(), at: clock.now(), ledgerId: archive.ledgerHighWater() };
  archive.beginJournal({
    ...base,
    opKey: 'walk:w1:page:1',
    idempotencyKey: 'k2',
    state: 'pending',
    createdAt: r2.at,
    finishedAt: null,
    keyName: null,
    before: r2,
    lossBefore: r0,
    freeMayCover: free.k2,
    lossFreeMayCover: free.k1,
  });
  // k2 is sent and stalls; the process dies (its connection closes: undelivered, never charged)
  sb.admin.queueFaults([{ kind: 'stall' }]);
  const stop = new AbortController();
  const k2 = fetch(url(sb, t), { headers: { 'x-api-key': sb.key, 'Idempotency-Key': 'k2' }, signal: stop.signal }).catch(() => undefined);
  await until(() => sb.admin.stats().in_flight === 1);
  stop.abort();
  await k2;
  await until(() => sb.admin.stats().in_flight === 0);
  // the process is gone (killed): its pid no longer exists
  testDb(archive).prepare("UPDATE journal SET owner_pid = 2147483000 WHERE call_id = 'dead'").run();
  sb.admin.advance(afterS); // the same walk is run again (ten minutes later by default)
}

const charged = (sb: SandboxHandle, key: string) =>
  sb.admin.charges().filter((c) => c.key_hash === sb.admin.keyHash(key) && c.credits_used > 0);

describe('a killed process’s lost answer taken over under no-cache-window (simulation finding 8)', () => {
  it('its charge is recorded from the balance, under its own key, once — and no retry pays the ceiling', async () => {
    const s = await setup(['no-cache-window']);
    await deadProcess(s, 'truncate-charged');
    const { sb, archive } = s;
    const r = await s.core().call(target);
    const cut = sb.admin.charges().find((c) => c.fault === 'truncate-charged');
    expect(cut?.credits_used).toBe(40);
    const inferred = archive.listLedger({ limit: 100 }).filter((l) => l.chargeReason?.startsWith('inferred:'));
    expect(inferred.map((l) => [l.idempotencyKey, l.creditsUsed, l.chargeReason])).toEqual([['k1', 40, 'inferred:balance']]);
    expect(r.creditsInferred).toBe(40);
    expect(sb.admin.charges().filter((c) => c.ceiling_retry)).toEqual([]);
    expect(charged(sb, sb.key).every((c) => c.credits_used <= 40)).toBe(true);
    expect(archive.listLedger({ limit: 100 }).reduce((n, l) => n + l.creditsUsed, 0)).toBe(
      charged(sb, sb.key).reduce((n, c) => n + c.credits_used, 0),
    );
    expect(archive.pendingJournal()).toEqual([]);
  });

  it('with the dead process’s readings close in time, its key is replayed: the page is not paid again', async () => {
    const s = await setup(['no-cache-window']);
    await deadProcess(s, 'truncate-charged', 20);
    const { sb, archive } = s;
    const r = await s.core().call(target);
    expect(r.envelope.idempotent_replay).toBe(true);
    expect(charged(sb, sb.key).map((c) => [c.idempotency_key, c.credits_used])).toEqual([['k1', 40]]);
    const inferred = archive.listLedger({ limit: 100 }).filter((l) => l.chargeReason?.startsWith('inferred:'));
    expect(inferred.map((l) => [l.idempotencyKey, l.creditsUsed, l.chargeReason])).toEqual([['k1', 40, 'inferred:balance']]);
    expect(archive.listLedger({ limit: 100 }).reduce((n, l) => n + l.creditsUsed, 0)).toBe(40);
  });

  it('a lost answer the service never finished is not charged in the ledger', async () => {
    const s = await setup(['no-cache-window']);
    await deadProcess(s, 'drop');
    const { sb, archive } = s;
    await s.core().call(target);
    expect(archive.listLedger({ limit: 100 }).filter((l) => l.chargeReason?.startsWith('inferred:'))).toEqual([]);
    expect(sb.admin.charges().filter((c) => c.ceiling_retry)).toEqual([]);
    expect(archive.listLedger({ limit: 100 }).reduce((n, l) => n + l.creditsUsed, 0)).toBe(
      charged(sb, sb.key).reduce((n, c) => n + c.credits_used, 0),
    );
  });

  it('another spender after the dead process’s readings: its credits are not taken for the lost answer', async () => {
    const s = await setup(['no-cache-window']);
    await deadProcess(s, 'truncate-charged');
    const { sb, archive } = s;
    // a teammate spends a legal amount for this call on the same account before the walk runs again
    const other = sb.admin.createKey('teammate');
    await (await fetch(url(sb).replace('cake', 'tea'), { headers: { 'x-api-key': other } })).text();
    expect(charged(sb, other).map((c) => c.credits_used)).toEqual([40]);
    await s.core().call(target);
    // the lost answer's own charge (read between the dead process's two readings), nothing more
    const inferred = archive.listLedger({ limit: 100 }).filter((l) => l.chargeReason?.startsWith('inferred:'));
    expect(inferred.map((l) => [l.idempotencyKey, l.creditsUsed])).toEqual([['k1', 40]]);
    expect(archive.listLedger({ limit: 100 }).reduce((n, l) => n + l.creditsUsed, 0)).toBe(
      charged(sb, sb.key).reduce((n, c) => n + c.credits_used, 0),
    );
    expect(sb.admin.charges().filter((c) => c.ceiling_retry)).toEqual([]);
  });
});

describe('a killed process’s lost answer covered by the last free call, taken over (simulation finding 10)', () => {
  const sum = (sb: SandboxHandle) => charged(sb, sb.key).reduce((n, c) => n + c.credits_used, 0);
  const ledgerSum = (archive: Awaited<ReturnType<typeof setup>>['archive']) =>
    archive.listLedger({ limit: 100 }).reduce((n, l) => n + l.creditsUsed, 0);

  it('is judged as things stood when it was sent: no charge is inferred that the service never made', async () => {
    // one free call left when k1 was sent: the cut-short answer used it (charged 0); the dead
    // process then read the balance (none left) and moved on to k2; the next run takes it over
    // inside the cache window — its fresh key is an owner read, the balance did not move
    const s = await setup([], 1);
    await deadProcess(s, 'truncate-charged', 20, { k1: true, k2: false }, 60);
    const { sb, archive } = s;
    const cut = sb.admin.charges().find((c) => c.fault === 'truncate-charged');
    expect([cut?.credits_used, cut?.free_call]).toEqual([0, true]);
    const r = await s.core().call(target);
    expect(r.envelope.cached).toBe(true);
    expect(archive.listLedger({ limit: 100 }).filter((l) => l.chargeReason?.startsWith('inferred:'))).toEqual([]);
    expect(r.creditsInferred).toBe(0);
    expect(ledgerSum(archive)).toBe(sum(sb));
    expect(archive.pendingJournal()).toEqual([]);
  });

  it('a lost answer sent after the free calls were known gone is still recorded from the balance', async () => {
    // the free call went to another call first; the dead process knew it when it sent k1 (charged 40)
    const s = await setup([], 1);
    const { sb, archive } = s;
    await s.core().call({ platform: 'thread_net', endpoint: 'profile', params: { handle: 'first' } });
    expect(sb.admin.charges().filter((c) => c.free_call)).toHaveLength(1);
    await deadProcess(s, 'truncate-charged', 20, { k1: false, k2: false }, 60);
    const r = await s.core().call(target);
    const inferred = archive.listLedger({ limit: 100 }).filter((l) => l.chargeReason?.startsWith('inferred:'));
    expect(inferred.map((l) => [l.idempotencyKey, l.creditsUsed])).toEqual([['k1', 40]]);
    expect(r.creditsInferred).toBe(40);
    expect(ledgerSum(archive)).toBe(sum(sb));
  });
});

describe('a killed process’s lost answer under an operation run again with other params (simulation finding 11)', () => {
  it('stays pending for the identical request, which records its charge: the ledger does not forget it', async () => {
    const s = await setup([]);
    await deadProcess(s, 'truncate-charged');
    const { sb, archive } = s;
    // the walk's page run again by a process that asks it another way (no max_pages)
    await s.core().call({ ...target, params: { query: 'cake' } }, { opKey: 'walk:w1:page:1' });
    expect(archive.pendingJournal().map((e) => e.callId)).toEqual(['dead']);
    // the identical request takes the dead call over and records what its lost answer cost
    await s.core().call(target);
    const inferred = archive.listLedger({ limit: 100 }).filter((l) => l.chargeReason?.startsWith('inferred:'));
    expect(inferred.map((l) => [l.idempotencyKey, l.creditsUsed])).toEqual([['k1', 40]]);
    expect(archive.listLedger({ limit: 100 }).reduce((n, l) => n + l.creditsUsed, 0)).toBe(
      charged(sb, sb.key).reduce((n, c) => n + c.credits_used, 0),
    );
    expect(archive.pendingJournal()).toEqual([]);
  });
});

describe('a killed process’s lost answer that was itself an owner read, taken over (simulation finding 14)', () => {
  // 20 credits, fixed, one page, a 24-hour window
  const profile = { platform: 'thread_net', endpoint: 'profile', params: { handle: 'owned.sim' } };
  const sum = (sb: SandboxHandle) => charged(sb, sb.key).reduce((n, c) => n + c.credits_used, 0);
  const ledgerSum = (archive: Awaited<ReturnType<typeof setup>>['archive']) =>
    archive.listLedger({ limit: 100 }).reduce((n, l) => n + l.creditsUsed, 0);
  const inferred = (archive: Awaited<ReturnType<typeof setup>>['archive']) =>
    archive
      .listLedger({ limit: 100 })
      .filter((l) => l.chargeReason?.startsWith('inferred:'))
      .map((l) => [l.idempotencyKey, l.creditsUsed]);
  // another key of the account spends 10 (not a charge this call can make): the balance cannot tell
  const spendTen = (sb: SandboxHandle) => async () => {
    const other = sb.admin.createKey('teammate');
    const clip = { platform: 'stream_net', endpoint: 'clip', params: { url: 'https://clips.example/c/1' } };
    await (await fetch(url(sb, clip), { headers: { 'x-api-key': other } })).text();
    expect(charged(sb, other).map((c) => c.credits_used)).toEqual([10]);
  };

  for (const meanwhile of ['nothing', 'another spender'] as const)
    it(`the account owned the exact call before it was sent: nothing is inferred (${meanwhile} moved the balance)`, async () => {
      const s = await setup([]);
      const { sb, archive } = s;
      await s.core().call(profile); // bought: the account owns it for 24 hours
      await deadProcess(s, 'truncate-charged', 20, undefined, 60, {
        t: profile,
        ...(meanwhile === 'another spender' ? { meanwhile: spendTen(sb) } : {}),
      });
      const cut = sb.admin.charges().find((c) => c.fault === 'truncate-charged');
      expect([cut?.credits_used, cut?.cached]).toEqual([0, true]); // the lost answer was an owner read
      // re-read past the archive (as a restarted walk re-reads held pages): the next fresh key is an owner read too
      const r = await s.core().call(profile, { archive: false });
      expect(r.envelope.cached).toBe(true);
      expect(inferred(archive)).toEqual([]);
      expect(r.creditsInferred).toBe(0);
      expect(ledgerSum(archive)).toBe(sum(sb));
      expect(archive.pendingJournal()).toEqual([]);
    });

  it('owned through an answer the ledger does not hold (another tool on the account): the balance read around it tells', async () => {
    // as a walk's page bought under another cursor: the service's cache knows the page, Loupe's ledger
    // has no row of these exact params — the balance, unmoved, says the lost attempt cost nothing
    const s = await setup([]);
    const { sb, archive } = s;
    const other = sb.admin.createKey('another tool');
    await (await fetch(url(sb, profile), { headers: { 'x-api-key': other } })).text();
    await deadProcess(s, 'truncate-charged', 20, undefined, 60, { t: profile });
    const cut = sb.admin.charges().find((c) => c.fault === 'truncate-charged');
    expect([cut?.credits_used, cut?.cached]).toEqual([0, true]);
    const r = await s.core().call(profile);
    expect(r.envelope.cached).toBe(true);
    expect(inferred(archive)).toEqual([]);
    expect(ledgerSum(archive)).toBe(sum(sb));
  });

  it('not owned before, the balance unable to tell: the owner read still proves the charge (at the price)', async () => {
    const s = await setup([]);
    const { sb, archive } = s;
    await deadProcess(s, 'truncate-charged', 20, undefined, 60, { t: profile, meanwhile: spendTen(sb) });
    const cut = sb.admin.charges().find((c) => c.fault === 'truncate-charged');
    expect([cut?.credits_used, cut?.cached]).toEqual([20, false]);
    const r = await s.core().call(profile, { archive: false });
    expect(r.envelope.cached).toBe(true);
    expect(inferred(archive)).toEqual([['k1', 20]]);
    expect(ledgerSum(archive)).toBe(sum(sb));
  });
});

describe('a killed process’s call whose answer was recorded before the journal said done (the quarantined rehydrate test)', () => {
  for (const meanwhile of ['nothing', 'another spender'] as const)
    it(`is not a lost answer: nothing is inferred, and the answer is had again free (${meanwhile} moved the balance)`, async () => {
      // killed between writing the answer's ledger row and marking its journal entry done (a loaded
      // machine widens that moment): the entry is pending, its key's answer is in the ledger, charged
      const s = await setup([]);
      const { sb, archive, clock } = s;
      const profile = { platform: 'thread_net', endpoint: 'profile', params: { handle: 'answered.sim' } };
      const pc = canonicalParams(profile.params);
      const base = {
        callId: 'dead',
        platform: profile.platform,
        endpoint: profile.endpoint,
        params: pc,
        paramsHash: paramsHash(`${profile.platform}/${profile.endpoint}?${pc}`),
      };
      const r0 = { balance: sb.admin.balance(), at: clock.now(), ledgerId: archive.ledgerHighWater() };
      archive.beginJournal({
        ...base,
        opKey: 'op:1',
        idempotencyKey: 'k1',
        state: 'pending',
        createdAt: r0.at,
        finishedAt: null,
        keyName: null,
        before: r0,
        freeMayCover: false,
      });
      const startedAt = clock.now();
      const env = (await (await fetch(url(sb, profile), { headers: { 'x-api-key': sb.key, 'Idempotency-Key': 'k1' } })).json()) as {
        request_id: string;
        credits_used: number;
        credits_remaining: number;
      };
      expect(env.credits_used).toBe(20);
      archive.recordAttempt({
        ...base,
        attempt: 1,
        startedAt,
        durationMs: 5,
        idempotencyKey: 'k1',
        requestId: env.request_id,
        status: 200,
        errorType: null,
        creditsUsed: 20,
        creditsRemaining: env.credits_remaining,
        chargeReason: 'miss',
        cached: false,
        freeCall: false,
        idempotentReplay: false,
        source: 'cli',
        walkId: null,
        dryRun: false,
        keyName: null,
      });
      testDb(archive).prepare("UPDATE journal SET owner_pid = 2147483000 WHERE call_id = 'dead'").run();
      if (meanwhile === 'another spender') {
        // another key of the account spends 10: the balance cannot tell what the call cost
        const other = sb.admin.createKey('teammate');
        const clip = { platform: 'stream_net', endpoint: 'clip', params: { url: 'https://clips.example/c/1' } };
        await (await fetch(url(sb, clip), { headers: { 'x-api-key': other } })).text();
      }
      sb.admin.advance(60);
      const r = await s.core().call(profile);
      expect(r.creditsUsed).toBe(0);
      expect(archive.listLedger({ limit: 100 }).filter((l) => l.chargeReason?.startsWith('inferred:'))).toEqual([]);
      expect(archive.listLedger({ limit: 100 }).reduce((n, l) => n + l.creditsUsed, 0)).toBe(
        charged(sb, sb.key).reduce((n, c) => n + c.credits_used, 0),
      );
      expect(archive.pendingJournal()).toEqual([]);
    });
});

describe('a killed process’s charged lost answer outside any window, the balance unable to tell (simulation finding 13)', () => {
  it('stays pending — not settled with its charge dropped — until a run can tell', async () => {
    const s = await setup(['no-cache-window']);
    const { sb, archive } = s;
    // another Loupe call of the dead process was left unresolved in between (as in the finding: the
    // app's own cancelled walk): the balance cannot say whose charge the drop was
    await deadProcess(s, 'truncate-charged', 300, undefined, 600, {
      meanwhile: () => {
        archive.beginJournal({
          callId: 'other',
          opKey: 'walk:w2:page:1',
          idempotencyKey: 'o1',
          platform: 'micro_net',
          endpoint: 'user/tweets',
          params: '{"handle":"other.sim"}',
          paramsHash: 'h-other',
          state: 'pending',
          createdAt: s.clock.now(),
          finishedAt: null,
          keyName: null,
        });
        return Promise.resolve();
      },
    });
    const r = await s.core().call(target);
    expect(r.envelope.success).toBe(true);
    const cut = sb.admin.charges().find((c) => c.fault === 'truncate-charged');
    expect(cut?.credits_used).toBe(40);
    // nothing inferred (nothing proves the charge), and the lost attempt is still pending, visibly
    expect(archive.listLedger({ limit: 100 }).filter((l) => l.chargeReason?.startsWith('inferred:'))).toEqual([]);
    const mine = () => archive.pendingJournal().filter((e) => e.callId !== 'other');
    expect(mine().map((e) => [e.callId, e.idempotencyKey])).toEqual([['dead', 'k2']]);
    expect(sb.admin.charges().filter((c) => c.ceiling_retry)).toEqual([]);
    // the next run of the request judges it again (still unable to tell): it stays pending, once
    await s.core().call(target);
    expect(mine().map((e) => e.callId)).toEqual(['dead']);
  });
});
