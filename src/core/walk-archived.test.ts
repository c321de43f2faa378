/**
 * A repeated walk answered from the archive (the same search inside its cache window: no request)
 * lists the rows its bar counts — "20 items (0 new)" over an empty table was a view the archive
 * contradicts (issue 14: no view shows a number the archive contradicts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WalkInfo } from '../shared/contract';
import { startTestApp, type TestApp } from './test-app';

let t: TestApp;
const call = <T>(m: string, input?: unknown) => t.call<T>(m, input);
const settled = (walkId: string) => t.settled(walkId);
beforeAll(async () => {
  t = await startTestApp({ seed: 3, balance: 1_000_000, freeCalls: 0 }, 'loupe-walkarch-');
});
afterAll(async () => {
  await t?.close();
});

describe('a walk answered from the archive', () => {
  it('lists the rows it counts, and no request or ledger row is added', async () => {
    const target = { platform: 'photo_net', endpoint: 'search/reels', params: { query: 'kettle' } };
    const a = await settled((await call<WalkInfo>('walks.start', { target, source: 'search', maxPages: 1 })).walkId);
    const requests = t.sb.admin.charges().length;
    const ledger = (await call<unknown[]>('usage.ledger', { limit: 1000 })).length;
    const b = await settled((await call<WalkInfo>('walks.start', { target, source: 'search', maxPages: 1 })).walkId);
    expect(t.sb.admin.charges().length).toBe(requests);
    expect((await call<unknown[]>('usage.ledger', { limit: 1000 })).length).toBe(ledger);
    expect(b.itemsSeen).toBe(a.itemsSeen);
    expect(b.newItems).toBe(0);
    const rows = await call<{ rows: unknown[] }>('library.query', { source: { type: 'walk', id: b.walkId }, limit: 500 });
    expect(rows.rows.length).toBe(b.itemsSeen);
    expect(await call<number>('library.count', {})).toBe(a.newItems); // nothing duplicated
  });
});
