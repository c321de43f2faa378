/**
 * Issue 27 #2: every run of a watchlist has its own item list — the items new for the list in
 * that run, what the run's "new" counts — and its alert matches are those items under the alert's
 * conditions. Through the library query (`source: { type: 'watchlist', id, run }`).
 */
import { describe, expect, it } from 'vitest';
import { testDb } from '../archive/testing';
import { QueryError } from '../archive/query-error';
import { watchEnvs } from './test-env';

const watchEnv = watchEnvs();
const WATCHES = [
  { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'alice' } },
  { platform: 'micro_net', endpoint: 'user/tweets', params: { handle: 'bob.runs' } },
];

describe('a watchlist run’s own items (issue 27 #2)', () => {
  it('each run lists exactly the items it counted as new; the runs partition the list; alerts are its matches', async () => {
    const e = await watchEnv({ seed: 51 });
    const alert = [{ family: 'sponsored', field: 'p', op: 'gte' as const, value: 0 }];
    const l = await e.watch.create({ name: 'runs', watches: WATCHES, alert });
    const other = await e.watch.create({ name: 'other', watches: [WATCHES[0]] });
    const runs = [await e.watch.run(l.id, { approved: true })];
    for (const hours of [30, 50]) {
      e.sb.admin.advance(hours * 3600);
      runs.push(await e.watch.run(l.id, { approved: true }));
    }
    const otherRun = await e.watch.run(other.id, { approved: true });
    expect(runs.slice(1).every((r) => r.status === 'done' && r.newItems > 0)).toBe(true);

    const key = (r: { platform: string; kind?: string; id: string }) => `${r.platform}/${r.id}`;
    const all = new Set(e.archive.query({ source: { type: 'watchlist', id: l.id }, limit: 1000 }).rows.map(key));
    const seen = new Set<string>();
    for (const r of runs) {
      const rows = e.archive.query({ source: { type: 'watchlist', id: l.id, run: r.runId }, limit: 1000 }).rows.map(key);
      // independently: the rows watch_items holds for this run, one per item
      const held = testDb(e.archive).prepare('SELECT DISTINCT platform, item_id FROM watch_items WHERE run_id = ?').all(r.runId) as Array<{
        platform: string;
        item_id: string;
      }>;
      expect(new Set(rows)).toEqual(new Set(held.map((h) => `${h.platform}/${h.item_id}`)));
      expect(rows.length).toBe(r.newItems);
      expect(e.archive.count({ source: { type: 'watchlist', id: l.id, run: r.runId } })).toBe(r.newItems);
      for (const k of rows) {
        expect(all.has(k)).toBe(true);
        expect(seen.has(k)).toBe(false); // an item is new in one run only
        seen.add(k);
      }
      // the run's alert count is its own items under the alert's conditions
      expect(e.archive.count({ source: { type: 'watchlist', id: l.id, run: r.runId }, labels: alert })).toBe(r.alerts);
    }
    expect(seen.size).toBe(all.size);
    expect(all.size).toBeLessThan(1000); // the whole list was read
    expect(runs.some((r) => r.alerts > 0)).toBe(true);
    // another list's run narrows nothing of this list, and a run id does not cross lists
    expect(e.archive.count({ source: { type: 'watchlist', id: l.id, run: otherRun.runId } })).toBe(0);
    expect(e.archive.count({ source: { type: 'watchlist', id: other.id, run: runs[1].runId } })).toBe(0);
    // a run narrows a watchlist only
    expect(() => e.archive.count({ source: { type: 'source', id: 'search', run: runs[1].runId } })).toThrow(QueryError);
  });
});
