/**
 * A walk read page by page through the contract (walks.stream / walks.streamResume / walks.next,
 * issue 25: what `loupe call` and `loupe resume` read): the walk asks for its next page only when
 * its caller asks for it, so a cancel between two pages stops it before its next request with every
 * charge recorded and the walk saved resumable; a resumed walk goes on from the saved cursor.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WalkInfo, WalkStep, WalkState } from '../shared/contract';
import { startTestApp, type TestApp } from './test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ seed: 5, balance: 1_000_000, freeCalls: 0 }, 'loupe-walk-stream-');
});
afterAll(async () => {
  await t?.close();
});

const target = (handle: string) => ({ platform: 'photo_net', endpoint: 'profile/posts', params: { handle } });
const paidPages = (handle: string) => t.sb.admin.charges().filter((c) => c.credits_used > 0 && c.params.handle === handle).length;
const requests = (handle: string) => t.sb.admin.charges().filter((c) => c.params.handle === handle).length;

describe('walks read page by page', () => {
  it('asks for the next page only when the caller does; a cancel between pages stops it there, saved and resumable', async () => {
    const { walkId } = await t.call<{ walkId: string }>('walks.stream', { target: target('streamed'), source: 'test', maxPages: 5 });
    const p1 = await t.call<WalkStep>('walks.next', { walkId });
    expect(p1).toMatchObject({ kind: 'page', pageNumber: 1 });
    if (p1.kind !== 'page') throw new Error('a page first');
    expect((p1.envelope.data as { items: unknown[] }).items.length).toBeGreaterThan(0);
    // the caller has not asked for page 2: nothing more was requested
    expect(requests('streamed')).toBe(1);
    const p2 = await t.call<WalkStep>('walks.next', { walkId });
    expect(p2).toMatchObject({ kind: 'page', pageNumber: 2 });
    expect(requests('streamed')).toBe(2);
    // the caller stops here (its reader left): the walk ends before its third request
    const info = await t.call<WalkInfo>('walks.cancel', { walkId });
    expect(info).toMatchObject({ walkId, pagesDone: 2 });
    const end = await t.call<WalkStep>('walks.next', { walkId });
    expect(end).toMatchObject({ kind: 'end', outcome: { walkId, status: 'cancelled', pagesDone: 2 } });
    expect(requests('streamed')).toBe(2);
    expect(paidPages('streamed')).toBe(2);
    const [saved] = await t.call<WalkState[]>('walks.saved', { walkId });
    expect(saved).toMatchObject({ status: 'cancelled', pagesDone: 2 });
    expect(saved.creditsSpent).toBeGreaterThan(0);

    // resumed page by page: from page 3, one more page asked
    await t.call('walks.streamResume', { walkId, maxPages: 1 });
    const p3 = await t.call<WalkStep>('walks.next', { walkId });
    expect(p3).toMatchObject({ kind: 'page', pageNumber: 3 });
    const end2 = await t.call<WalkStep>('walks.next', { walkId });
    expect(end2).toMatchObject({ kind: 'end', outcome: { walkId, pagesDone: 3, stopReason: 'page_limit' } });
    expect(paidPages('streamed')).toBe(3);
    await expect(t.call('walks.next', { walkId })).rejects.toThrow(/not_found/);
  });

  it('a walk that fails ends with the error in the error model’s terms', async () => {
    t.sb.admin.queueFaults([{ kind: 'status', status: 404, type: 'RESOURCE_NOT_FOUND', match: 'profile/posts' }]);
    const { walkId } = await t.call<{ walkId: string }>('walks.stream', { target: target('gone_streamed'), source: 'test' });
    let step = await t.call<WalkStep>('walks.next', { walkId });
    while (step.kind === 'page') step = await t.call<WalkStep>('walks.next', { walkId });
    expect(step.outcome.status).toBe('failed');
    expect(step.outcome.error).toMatchObject({ kind: 'api', type: 'RESOURCE_NOT_FOUND', status: 404 });
  });
});
