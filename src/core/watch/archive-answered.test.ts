/**
 * Issue 14 #2: a watchlist run answered from the archive (the same call inside the cache window,
 * e.g. right after the analyst walked that feed) still lists the watchlist's items — what the run
 * says is new for the watchlist is what the library shows for it, and the badge agrees.
 */
import { describe, expect, it } from 'vitest';
import { testDb } from '../archive/testing';
import { watchEnvs } from './test-env';

const watchEnv = watchEnvs();
const setup = () => watchEnv({ seed: 3 });

describe('watchlist runs answered from the archive (issue 14 #2)', () => {
  it('items the run counts as new are listed under the watchlist; badge = listed rows', async () => {
    const e = await setup();
    const target = { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'watched_brand' } };
    // the analyst walks the feed first (Profiles → Walk feed): the page is now in the archive
    const walk = await e.api.walk(target, { source: 'profile:photo_net/watched_brand', maxPages: 1 });
    expect(walk.pagesDone).toBe(1);
    const charges = e.sb.admin.charges().length;

    const l = await e.watch.create({ name: 'brand', watches: [target] });
    const r1 = await e.watch.run(l.id, { approved: true });
    expect(r1.status).toBe('done');
    expect(e.sb.admin.charges().length).toBe(charges); // answered from the archive: no request
    expect(r1.creditsSpent).toBe(0);
    const fresh = r1.watches[0].newItems;
    expect(fresh).toBeGreaterThan(0);

    const listed = e.archive.query({ source: { type: 'watchlist', id: l.id }, limit: 1000 });
    expect(listed.rows.length).toBe(fresh);
    expect((await e.watch.get(l.id))?.newSinceSeen).toBe(fresh);
    expect(e.archive.count({ source: { type: 'watchlist', id: l.id } })).toBe(fresh);

    // Usage is not fooled: no ledger row was invented for the archive answer
    expect(testDb(e.archive).prepare('SELECT count(*) AS n FROM calls WHERE source = ?').get(`watch:${l.id}`)).toEqual({ n: 0 });

    // a second run (a head walk, one charged page): nothing new, still the same rows, no duplicates
    const r2 = await e.watch.run(l.id, { approved: true });
    expect(r2.watches[0].newItems).toBe(0);
    expect(e.archive.query({ source: { type: 'watchlist', id: l.id }, limit: 1000 }).rows.length).toBe(fresh);
  });
});
