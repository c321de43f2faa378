import { describe, expect, it } from 'vitest';
import { testDb } from '../archive/testing';
import { pagesFromRate } from './order';
import { watchEnvs } from './test-env';

const watchEnv = watchEnvs();

describe('the order a refresh drives its watches in', () => {
  it('the watches expected to need more pages go first; each watch is still driven once, down to what it held', async () => {
    // one watch at a time, so the order of the run's first requests is the order it drove them in
    const { sb, archive, watch, clock } = await watchEnv({ seed: 11, timeScale: 60, service: { concurrency: 1 } });
    const handles = Array.from({ length: 40 }, (_, i) => `fleet.account${i}`);
    const l = await watch.create({
      name: 'fleet',
      watches: handles.map((handle) => ({ platform: 'photo_net', endpoint: 'profile/posts', params: { handle } })),
    });
    await watch.run(l.id, { approved: true }); // the baseline: one page each
    sb.admin.advance(30 * 3600); // seconds

    const expected = new Map(archive.watchlists.heldSpans(l.id).map((s) => [s.watchId, pagesFromRate(s, clock.now()) ?? 1]));
    const t0 = clock.now();
    const run = await watch.run(l.id, { approved: true });
    expect(run.status).toBe('done');

    const starts = testDb(archive)
      .prepare('SELECT params FROM calls WHERE source = ? AND started_at >= ? ORDER BY started_at, rowid')
      .all(`watch:${l.id}`, t0) as Array<{ params: string }>;
    const firstSeen: string[] = [];
    for (const s of starts) {
      const h = (JSON.parse(s.params) as { handle: string }).handle;
      if (!firstSeen.includes(h)) firstSeen.push(h);
    }
    const byHandle = new Map((await watch.get(l.id)).watches.map((w) => [w.params.handle, w.watchId]));
    const exp = (h: string) => expected.get(byHandle.get(h) as string) as number;
    // every watch driven; in the order of their expected pages, most first, list order among equals
    expect([...firstSeen].sort()).toEqual([...handles].sort());
    const want = [...handles].sort((a, b) => exp(b) - exp(a) || handles.indexOf(a) - handles.indexOf(b));
    expect(firstSeen).toEqual(want);
    // the list has watches that need more than one page, and not at its head: the order is not the list's
    expect(want).not.toEqual(handles);
    // the expectation is right where it matters: the watches that needed a second page were expected to
    const needed = new Map(run.watches.map((w) => [w.watchId, w.pages]));
    for (const h of handles) if ((needed.get(byHandle.get(h) as string) ?? 0) > 1) expect(exp(h)).toBeGreaterThan(1);
  }, 120_000);
});
