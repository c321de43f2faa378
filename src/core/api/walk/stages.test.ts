/**
 * The walk's stages (walk/*.ts), each on its own over a scripted core (test-kit.ts): no HTTP, no
 * request core — what a stage decides from a walk's state and one scripted answer, then the loop
 * over a scripted list. The stop rules: cancel, a closed pipe, the page limit, max_pages, the
 * budget, the service's boundaries (since / stop_at_id: the held marker), pinned rows of unknown
 * state, rows without an id, a refused cursor, a cursor or rows already had.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalParams, paramsHash } from '../canonical';
import { ApiError } from '../errors';
import { accountPage, pagesWalked, recallHeldBack } from './account';
import { advance } from './advance';
import { isStop, type Stop } from './context';
import { runWalk } from './index';
import { planPage, stopBefore } from './plan';
import { sendPage } from './send';
import { driveOf, NATIVE_ONLY, pageOf, planOf, post, POSTS, walkKit, walkState } from './test-kit';

const stopOf = (x: unknown): Stop['stop'] => {
  if (!isStop(x)) throw new Error(`expected the walk to stop, got ${JSON.stringify(x)}`);
  return x.stop;
};
const apiError = (type: string, status: number) => new ApiError({ kind: 'api', type, status, message: `no: ${type}` });

describe('stopBefore', () => {
  it('cancel: an aborted walk stops before anything is planned, resumable from its saved position', () => {
    const k = walkKit();
    const ac = new AbortController();
    ac.abort();
    const s = walkState({ cursor: 'c2', pagesDone: 2 });
    const stop = stopOf(stopBefore(driveOf(k, s, { signal: ac.signal })));
    expect(stop).toMatchObject({ status: 'cancelled', stopReason: 'cancelled', cursor: 'c2', pagesDone: 2, error: { kind: 'cancelled' } });
    expect(k.core.store.getWalk('w')).toMatchObject({ status: 'cancelled', cursor: 'c2' });
    expect(k.calls).toHaveLength(0);
  });

  it('the page limit counts the position, not pages re-read after a restart; maxRequests counts this run', () => {
    const k = walkKit();
    expect(stopOf(stopBefore(driveOf(k, walkState({ pagesDone: 3 }), { maxPages: 3 })))).toMatchObject({
      status: 'paused',
      stopReason: 'page_limit',
    });
    expect(stopBefore(driveOf(k, walkState({ pagesDone: 3, rewalkAt: 1 }), { maxPages: 3 }))).toBeNull();
    const d = driveOf(k, walkState(), { maxRequests: 1 });
    expect(stopBefore(d)).toBeNull();
    d.requests = 1;
    expect(stopOf(stopBefore(d))).toMatchObject({ status: 'paused', stopReason: 'page_limit' });
  });
});

describe('planPage', () => {
  it('max pages and budget (generated): as many pages as are still wanted, the budget and the balance allow; never a hold past maxCredits', async () => {
    const ceiling = 340; // POSTS: 20–340 a page
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          perRequest: fc.integer({ min: 1, max: 5 }),
          pos: fc.integer({ min: 0, max: 8 }),
          wanted: fc.option(fc.integer({ min: 1, max: 12 }), { nil: undefined }),
          maxCredits: fc.option(fc.integer({ min: 0, max: 3000 }), { nil: undefined }),
          spent: fc.integer({ min: 0, max: 1500 }),
          balance: fc.option(fc.integer({ min: 0, max: 3000 }), { nil: null }),
        }),
        async ({ perRequest, pos, wanted, maxCredits, spent, balance }) => {
          const maxPages = wanted === undefined ? undefined : pos + wanted;
          const k = walkKit({ balance });
          const out = await planPage(
            driveOf(k, walkState({ pagesDone: pos, creditsSpent: spent }), { pagesPerRequest: perRequest, maxPages, maxCredits }),
          );
          const fits = (n: number) =>
            n <= perRequest &&
            (maxPages === undefined || pos + n <= maxPages) &&
            (maxCredits === undefined || spent + n * ceiling <= maxCredits) &&
            (balance === null || n * ceiling <= balance);
          let most = 1;
          while (fits(most + 1)) most++;
          if (maxCredits !== undefined && spent + ceiling * most > maxCredits) {
            expect(stopOf(out)).toMatchObject({ status: 'paused', stopReason: 'credit_limit' });
            return;
          }
          if (isStop(out)) throw new Error(`stopped: ${out.stop.stopReason}`);
          expect(out.pagesAsked).toBe(most);
          expect(out.hold).toBe(ceiling * most);
          expect(out.params.max_pages).toBe(most > 1 ? String(most) : undefined);
          expect(out.pageNumber).toBe(pos + 1);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('the position goes on the paging parameter the walk uses; a price that cannot be had fails the walk', async () => {
    const k = walkKit();
    const out = await planPage(driveOf(k, walkState({ cursor: 'tok', cursorParam: 'continuationToken' }), { pagesPerRequest: 1 }));
    expect(out).toMatchObject({ params: { handle: 'a', continuationToken: 'tok' }, pagesAsked: 1 });
    k.core.holdOf = async () => {
      throw new ApiError({ kind: 'network', type: 'QUOTE_FAILED', message: 'no quote' });
    };
    expect(stopOf(await planPage(driveOf(k, walkState())))).toMatchObject({ status: 'failed', stopReason: 'error:QUOTE_FAILED' });
  });

  it('after a restart: a held page answered inside its window is asked again exactly as it was; otherwise the walk stops before spending unless approved', async () => {
    const k = walkKit();
    const s = walkState({ pagesDone: 2, rewalkAt: 0, restarts: 1 });
    const costs = stopOf(await planPage(driveOf(k, { ...s }, { pagesPerRequest: 1 })));
    expect(costs).toMatchObject({ status: 'paused', stopReason: 'restart_costs', pagesDone: 2 });
    expect(costs.notes.join(' ')).toMatch(/re-reads 2 page\(s\).*approve the restart/);
    expect(await planPage(driveOf(k, { ...s }, { pagesPerRequest: 1, payRestart: true }))).toMatchObject({
      rereading: true,
      pageNumber: 1,
    });
    const hash = paramsHash(`photo_net/profile/posts?${canonicalParams({ handle: 'a' })}`);
    k.core.store.responses.push({
      callId: 'old',
      platform: 'photo_net',
      endpoint: 'profile/posts',
      paramsHash: hash,
      fetchedAt: k.core.clock.now(),
      envelope: pageOf(['1'], 'x').envelope,
      source: 'walk',
      walkId: 'w',
    });
    const bought = {
      callId: 'old',
      attempt: 1,
      startedAt: k.core.clock.now(),
      durationMs: 100,
      platform: 'photo_net',
      endpoint: 'profile/posts',
      params: canonicalParams({ handle: 'a' }),
      paramsHash: hash,
      idempotencyKey: 'k-old',
      requestId: 'req_old',
      status: 200,
      errorType: null,
      creditsUsed: 0,
      creditsRemaining: 1000,
      chargeReason: 'cached',
      cached: true,
      freeCall: false,
      idempotentReplay: false,
      source: 'walk',
      walkId: 'w',
      dryRun: false,
    };
    // answered from the cache only: free again under one reading of where its window starts, not
    // every one (simulation finding 23) — not certainly free
    k.core.store.recordAttempt(bought);
    expect(stopOf(await planPage(driveOf(k, { ...s })))).toMatchObject({ stopReason: 'restart_costs' });
    // bought inside its window: answered as one page, asked again as one page although the walk would ask five
    k.core.store.recordAttempt({ ...bought, idempotencyKey: 'k-bought', creditsUsed: 20, chargeReason: 'miss', cached: false });
    expect(await planPage(driveOf(k, { ...s }))).toMatchObject({ rereading: true, pagesAsked: 1, hold: 340, params: { handle: 'a' } });
    // fresh (no-cache) is always charged: never certainly free
    expect(stopOf(await planPage(driveOf(k, { ...s }, { fresh: true })))).toMatchObject({ stopReason: 'restart_costs' });
  });
});

describe('sendPage', () => {
  it('sends the page as its logical operation; a held page after a restart comes from the service, not the archive', async () => {
    const k = walkKit();
    k.script.push(pageOf(['1'], 'c1'), pageOf(['1'], 'c1'));
    await sendPage(driveOf(k, walkState({ pagesDone: 3 })), planOf({ pageNumber: 4 }));
    await sendPage(driveOf(k, walkState({ pagesDone: 3, rewalkAt: 0, restarts: 2 })), planOf({ pageNumber: 1, rereading: true }));
    expect(k.calls.map((c) => [c.opts.opKey, c.opts.archive])).toEqual([
      ['walk:w:page:4', undefined],
      ['walk:w:r2:page:1', false],
    ]);
  });

  it('a failure stops the walk as its kind says (cancel, budget, rate wait, storage), keeping what it was charged', async () => {
    const cases: Array<[ApiError, string, string]> = [
      [new ApiError({ kind: 'cancelled', message: 'cancelled', creditsCharged: 20 }), 'cancelled', 'cancelled'],
      [new ApiError({ kind: 'insufficient_local', message: 'balance' }), 'paused', 'credit_limit'],
      [new ApiError({ kind: 'rate_wait', message: 'wait' }), 'paused', 'rate_limited'],
      [new ApiError({ kind: 'storage', message: 'disk full' }), 'failed', 'error:STORAGE'],
      [new ApiError({ kind: 'gave_up', type: 'UPSTREAM_ERROR', message: 'gave up' }), 'failed', 'error:UPSTREAM_ERROR'],
      // refusals that page 1 would get too say nothing about the cursor: no restart
      [apiError('INSUFFICIENT_CREDITS', 402), 'failed', 'error:INSUFFICIENT_CREDITS'],
      [apiError('API_KEY_REVOKED', 401), 'failed', 'error:API_KEY_REVOKED'],
      [apiError('RESOURCE_NOT_FOUND', 404), 'failed', 'error:RESOURCE_NOT_FOUND'],
    ];
    for (const [err, status, reason] of cases) {
      const k = walkKit();
      k.script.push(err);
      const s = walkState({ cursor: err.type === 'RESOURCE_NOT_FOUND' ? null : 'c1', pagesDone: 1, creditsSpent: 20 });
      expect(stopOf(await sendPage(driveOf(k, s), planOf({ pageNumber: 2 }))), `${err.kind} ${err.type}`).toMatchObject({
        status,
        stopReason: reason,
        creditsSpent: 20 + (err.creditsCharged ?? 0),
      });
      expect(s.restarts ?? 0).toBe(0);
    }
    const k = walkKit();
    k.script.push(new TypeError('socket hang up'));
    expect(stopOf(await sendPage(driveOf(k, walkState()), planOf()))).toMatchObject({
      status: 'failed',
      stopReason: 'error:NETWORK',
      error: { kind: 'network' },
    });
  });

  it("a refused 'cursor' on an entry that lists only its own parameter switches the walk to it, once", async () => {
    const k = walkKit({ ep: NATIVE_ONLY });
    k.script.push(apiError('INVALID_REQUEST', 400), apiError('INVALID_REQUEST', 400));
    const s = walkState({ cursor: 'tok', pagesDone: 1 });
    const d = driveOf(k, s, {}, NATIVE_ONLY);
    expect(await sendPage(d, planOf({ pageNumber: 2 }))).toBe('again');
    expect(s).toMatchObject({ cursorParam: 'continuationToken', cursor: 'tok', pagesDone: 1 });
    expect(k.warnings.map((w) => w.code)).toEqual(['paging_param']);
    // refused again with its own parameter: the saved position itself was rejected → start over
    expect(await sendPage(d, planOf({ pageNumber: 2 }))).toBe('again');
    expect(s).toMatchObject({ cursorParam: 'continuationToken', cursor: null, rewalkAt: 0, restarts: 1 });
  });

  it('a refused cursor starts the walk over once (held pages to re-read, a new operation name); refused again at the same position it fails, never a loop', async () => {
    const k = walkKit();
    k.script.push(apiError('CURSOR_GONE', 410), apiError('CURSOR_GONE', 410));
    const s = walkState({ cursor: 'c3', pagesDone: 3 });
    const d = driveOf(k, s);
    d.seenIds.add('post\u00001');
    expect(await sendPage(d, planOf({ pageNumber: 4, params: { handle: 'a', cursor: 'c3' } }))).toBe('again');
    expect(s).toMatchObject({ cursor: null, pagesDone: 3, rewalkAt: 0, restarts: 1 });
    expect(d.seenIds.size).toBe(0);
    expect(d.notes.join(' ')).toMatch(/started again from the first page/);
    s.cursor = 'c0';
    expect(stopOf(await sendPage(d, planOf({ pageNumber: 1, rereading: true })))).toMatchObject({
      status: 'failed',
      stopReason: 'error:CURSOR_GONE',
    });
    expect(k.calls.map((c) => c.opts.opKey)).toEqual(['walk:w:page:4', 'walk:w:r1:page:1']);
    // the position of that rejection outlives the run (a watch drives one page per run)
    expect(k.core.restarts.get('w')).toEqual({ lastRejectedAt: 3 });
  });
});

describe('accountPage', () => {
  it('rows without an id of their own are counted and said, never items; the page counts its readable rows', async () => {
    const k = walkKit();
    const s = walkState();
    const d = driveOf(k, s);
    const r = pageOf(['1', { post: { text: 'no id' } }, '2', { post: { id: null } }], 'c1');
    const read = await accountPage(d, planOf(), r);
    expect(read.items.map((i) => i.id)).toEqual(['1', '2']);
    expect(read.unreadable).toBe(2);
    expect(s).toMatchObject({ pagesDone: 1, itemsSeen: 2, creditsSpent: 20 });
    expect(d).toMatchObject({ unreadable: 2, newItems: 2, requests: 1 });
    expect(k.warnings).toEqual([{ code: 'unreadable_rows', message: expect.stringMatching(/Page 1: 2 row\(s\).*no id of their own/) }]);
  });

  it('a held page read again moves the position, not the pages done, until it passes them', async () => {
    const k = walkKit();
    const s = walkState({ pagesDone: 2, rewalkAt: 0, restarts: 1, itemsSeen: 6 });
    const d = driveOf(k, s);
    await accountPage(d, planOf({ rereading: true, pageNumber: 1 }), pageOf(['1', '2', '3'], 'c1', { newItems: 0 }));
    expect(s).toMatchObject({ pagesDone: 2, rewalkAt: 1, creditsSpent: 20, itemsSeen: 6 });
    await accountPage(d, planOf({ rereading: true, pageNumber: 2 }), pageOf(['4', '5', '6'], 'c2', { newItems: 1 }));
    expect(s).toMatchObject({ pagesDone: 2, rewalkAt: null, itemsSeen: 7 });
    await accountPage(d, planOf({ pageNumber: 3 }), pageOf(['7', '8', '9'], 'c3'));
    expect(s).toMatchObject({ pagesDone: 3, rewalkAt: null, creditsSpent: 60, itemsSeen: 10 });
  });

  it('max pages: a request of several pages moves the position by the pages the service walked', async () => {
    const k = walkKit();
    const s = walkState({ pagesDone: 2 });
    await accountPage(
      driveOf(k, s),
      planOf({ pagesAsked: 4, pageNumber: 3 }),
      pageOf(['1'], 'c', { walkStopped: 'max_pages', credits: 80 }),
    );
    expect(s.pagesDone).toBe(6);
    // the list ended after some: the charge bounds them (each page walked is billed as one call, at least the floor)
    const cases: Array<[number, string | undefined, number, number]> = [
      [4, 'max_pages', 0, 4],
      [4, undefined, 300, 1],
      [4, 'end', 60, 3],
      [4, 'page_error', 0, 1],
      [1, 'end', 200, 1],
    ];
    for (const [asked, stopped, credits, want] of cases)
      expect(pagesWalked(asked, stopped, pageOf([], null, { credits }), POSTS), `${asked} ${stopped} ${credits}`).toBe(want);
  });

  it('pipe close: the page waits for its reader, and a reader that left stops the walk before its next request', async () => {
    const k = walkKit();
    const ac = new AbortController();
    let release: () => void = () => {};
    const s = walkState();
    const d = driveOf(k, s, { signal: ac.signal, onPage: () => new Promise<void>((res) => (release = res)) });
    const r = pageOf(['1'], 'c1');
    let accounted = false;
    const p = accountPage(d, planOf(), r).then((read) => ((accounted = true), read));
    await Promise.resolve();
    await Promise.resolve();
    expect(accounted).toBe(false);
    ac.abort(); // the CLI's guard found the pipe closed
    release();
    expect(advance(d, planOf(), r, await p)).toBeNull();
    expect(stopOf(stopBefore(d))).toMatchObject({ status: 'cancelled', cursor: 'c1', pagesDone: 1 });
    expect(k.calls).toHaveLength(0);
  });
});

describe('recallHeldBack', () => {
  const held = (o: { recall?: string; fromArchive?: boolean } = {}) =>
    pageOf(['1'], 'c1', {
      heldBack: 2,
      fromArchive: o.fromArchive,
      data: { held_back: { ids: ['2', '3'], ...(o.recall ? { recall_id: o.recall } : {}) } },
    });

  it('recalls the rows fit=goal held back in full (free, from the service cache), as its own operation', async () => {
    const k = walkKit();
    k.script.push(pageOf(['1', '2', '3'], 'c1', { credits: 0, newItems: 2 }));
    const d = driveOf(k, walkState());
    expect(await recallHeldBack(d, planOf({ pageNumber: 3 }), held({ recall: 'rc' }))).toBeNull();
    expect(k.calls).toEqual([{ params: { handle: 'a', recall: 'rc' }, opts: expect.objectContaining({ opKey: 'walk:w:page:3:recall' }) }]);
    expect(d).toMatchObject({ newItems: 2, heldBack: 0 });
  });

  it('rows that cannot be recalled are counted and said; a storage failure or a cancel stops the walk', async () => {
    for (const [r, script] of [
      [held(), []],
      [held({ recall: 'rc', fromArchive: true }), []],
      [held({ recall: 'rc' }), [apiError('INTERNAL_ERROR', 500)]],
    ] as const) {
      const k = walkKit();
      k.script.push(...script);
      const d = driveOf(k, walkState());
      expect(await recallHeldBack(d, planOf(), r)).toBeNull();
      expect(d.heldBack).toBe(2);
      expect(k.warnings.map((w) => w.code)).toEqual(['held_back']);
    }
    for (const [kind, status] of [
      ['storage', 'failed'],
      ['cancelled', 'cancelled'],
    ] as const) {
      const k = walkKit();
      k.script.push(new ApiError({ kind, message: kind }));
      expect(stopOf(await recallHeldBack(driveOf(k, walkState()), planOf(), held({ recall: 'rc' })))).toMatchObject({ status });
    }
  });
});

describe('advance', () => {
  const step = async (d: ReturnType<typeof driveOf>, r: ReturnType<typeof pageOf>, n = 1) =>
    advance(d, planOf({ pageNumber: n }), r, await accountPage(d, planOf({ pageNumber: n }), r));

  it('has_more is the only signal: an empty page with more goes on; has_more false ends the walk', async () => {
    const k = walkKit();
    const s = walkState();
    const d = driveOf(k, s);
    expect(await step(d, pageOf([], 'c1'))).toBeNull();
    expect(s.cursor).toBe('c1');
    expect(k.core.store.getWalk('w')).toMatchObject({ cursor: 'c1', pagesDone: 1 });
    expect(stopOf(await step(d, pageOf(['1'], 'c2', { more: false }), 2))).toMatchObject({
      status: 'done',
      stopReason: 'end',
      cursor: null,
    });
  });

  it('the held marker (stop_at_id) and since: the page that reaches them ends the walk, as the service says', async () => {
    for (const [stoppedAt, more] of [
      ['known_id', false],
      ['known_id', true],
      ['since', false],
      ['since', true],
    ] as const) {
      const k = walkKit();
      const s = walkState({ params: canonicalParams({ handle: 'a', stop_at_id: '9', since: '2026-01-01' }) });
      const stop = stopOf(await step(driveOf(k, s), pageOf(['12', '11'], null, { more, stoppedAt })));
      expect(stop, `${stoppedAt} ${more}`).toMatchObject({ status: 'done', stopReason: stoppedAt, stoppedAt, cursor: null });
    }
    // a boundary without stopped_at: the walk's own reason (recent_days, time budget), else the end
    for (const [walkStopped, reason] of [
      ['time_budget', 'time_budget'],
      ['max_pages', 'end'],
      ['page_error', 'end'],
      [undefined, 'end'],
    ] as const) {
      const k = walkKit();
      expect(stopOf(await step(driveOf(k, walkState()), pageOf(['1'], null, { more: true, walkStopped })))).toMatchObject({
        status: 'done',
        stopReason: reason,
      });
    }
  });

  it('pinned rows and rows of unknown pin state (trim) never end the walk, whatever their dates: only the service does', async () => {
    const k = walkKit();
    const s = walkState({ params: canonicalParams({ handle: 'a', since: '2026-11-01', trim: 'true' }) });
    const d = driveOf(k, s);
    const old = pageOf(
      [post('1', '2019-03-01T00:00:00Z', null), post('2', '2018-01-01T00:00:00Z', true), post('3', '2026-11-20T00:00:00Z', null)],
      'c1',
      { stoppedAt: null },
    );
    expect(await step(d, old)).toBeNull();
    expect(s).toMatchObject({ cursor: 'c1', status: 'running' });
    const last = pageOf([post('4', '2026-11-02T00:00:00Z', null)], null, { more: false, stoppedAt: 'since' });
    expect(stopOf(await step(d, last, 2))).toMatchObject({ status: 'done', stopReason: 'since', pagesDone: 2, itemsSeen: 4 });
  });

  it('a cursor this walk already used fails it; a page of rows it already has pauses it (never paid twice); rows without ids are not repeats', async () => {
    const k = walkKit();
    const rep = await step(driveOf(k, walkState({ cursor: 'c1' })), pageOf(['1'], 'c1'));
    expect(stopOf(rep)).toMatchObject({ status: 'failed', stopReason: 'error:REPEATED_CURSOR', error: { type: 'REPEATED_CURSOR' } });
    expect(k.warnings.map((w) => w.code)).toContain('repeated_cursor');
    const s = walkState();
    const d = driveOf(walkKit(), s);
    expect(await step(d, pageOf(['1', '2', '3', '4', '5'], 'c1'))).toBeNull();
    expect(stopOf(await step(d, pageOf(['1', '2', '3', '4', '6'], 'c2'), 2))).toMatchObject({
      status: 'paused',
      stopReason: 'repeating',
      cursor: 'c2',
    });
    const idless = driveOf(walkKit(), walkState());
    const noIds = (n: number) => pageOf([{ post: { text: 'a' } }, { post: { text: 'b' } }], `c${n}`);
    expect(await step(idless, noIds(1))).toBeNull();
    expect(await step(idless, noIds(2), 2)).toBeNull();
    expect(idless.unreadable).toBe(4);
  });

  it('until paging walks back to the oldest date of the page; a page with nothing new ends it', async () => {
    const k = walkKit();
    const s = walkState({ cursorParam: 'until' });
    const d = driveOf(k, s);
    expect(
      await step(d, pageOf([post('1', '2026-05-02T00:00:00Z'), post('2', '2026-05-01T10:00:00Z'), post('3', null)], null, { more: false })),
    ).toBeNull();
    expect(s.cursor).toBe('2026-05-01T10:00:00Z');
    expect(stopOf(await step(d, pageOf([post('2', '2026-05-01T10:00:00Z')], null, { more: false }), 2))).toMatchObject({
      status: 'done',
      stopReason: 'end',
      cursor: null,
    });
  });
});

describe('the loop (runWalk over scripted answers)', () => {
  it('walks page after page as logical operations and stops where the service says; cancel between pages keeps the position', async () => {
    const k = walkKit();
    k.script.push(pageOf(['1', '2'], 'c1'), pageOf(['3'], 'c2'), pageOf(['4'], null, { more: false, stoppedAt: 'known_id' }));
    const r = await runWalk(
      k.core,
      { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'a', stop_at_id: '0' } },
      { walkId: 'w', pagesPerRequest: 1 },
    );
    expect(r).toMatchObject({ status: 'done', stopReason: 'known_id', pagesDone: 3, itemsSeen: 4, creditsSpent: 60, cursor: null });
    expect(k.calls.map((c) => [c.opts.opKey, c.params.cursor])).toEqual([
      ['walk:w:page:1', undefined],
      ['walk:w:page:2', 'c1'],
      ['walk:w:page:3', 'c2'],
    ]);
    expect(k.progress.at(-1)).toMatchObject({ status: 'done', pagesDone: 3 });

    const k2 = walkKit();
    const ac = new AbortController();
    k2.script.push(pageOf(['1'], 'c1'), pageOf(['2'], 'c2'));
    const r2 = await runWalk(
      k2.core,
      { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'a' } },
      { walkId: 'w2', pagesPerRequest: 1, signal: ac.signal, onPage: () => ac.abort() },
    );
    expect(r2).toMatchObject({ status: 'cancelled', pagesDone: 1, cursor: 'c1' });
    expect(k2.calls).toHaveLength(1);
  });
});
