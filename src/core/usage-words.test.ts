/**
 * Issue 27 #5: Usage names a watchlist's spend by the list's name, not `watch:<id>`, gives every
 * bar a label, and "held in Loupe (archive)" counts every answer served from the archive — a
 * watchlist run's pages too, and across a restart of the app.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { UsageSummary, WatchlistInfo, WatchRunInfo } from '../shared/contract';
import { appWatchFactory } from './watch';
import { sourceWords } from './methods/usage-words';
import { startTestApp, type TestApp } from './test-app';

let t: TestApp | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

const pages = (t: TestApp) =>
  t.sb.admin.charges().filter((c) => c.endpoint.endsWith('/search/tweets') && c.params.dry_run === undefined && c.status === 200);

describe('Usage in words, and what the archive answered (issue 27 #5)', () => {
  it('a watchlist re-run inside the cache window: its pages counted as held in Loupe; the list named in credits per source', async () => {
    t = await startTestApp({ seed: 5, balance: 1_000_000, freeCalls: 0 }, 'loupe-usage-', { watch: appWatchFactory({ scheduler: false }) });
    const app = t;
    const l = await app.call<WatchlistInfo>('watchlists.create', {
      name: 'Kettle talk',
      watches: [{ platform: 'micro_net', endpoint: 'search/tweets', params: { query: 'kettle' } }],
    });
    const run = () => app.call<WatchRunInfo>('watchlists.run', { id: l.id, approved: true });
    await run();
    const sent = pages(app).length;
    expect(sent).toBeGreaterThan(0);
    const before = await app.call<UsageSummary>('usage.summary', {});
    await run(); // inside the window: answered from the archive
    await run();
    expect(pages(app).length).toBe(sent); // nothing sent
    const after = await app.call<UsageSummary>('usage.summary', {});
    // each of the two re-runs read the head page from the archive
    expect(after.notCharged.fromArchive - before.notCharged.fromArchive).toBe(2);
    expect(after.charged).toEqual(before.charged);

    const buckets = after.perSource.map((p) => p.bucket);
    expect(buckets).toContain('watchlist “Kettle talk”');
    expect(buckets.some((b) => b.startsWith('watch:'))).toBe(false);
    expect(buckets.every((b) => typeof b === 'string' && b.trim() !== '')).toBe(true);
    expect(after.perSource.reduce((a, p) => a + p.value, 0)).toBe(after.charged.credits);

    // a period that ends before them counts none of them
    const future = await app.call<UsageSummary>('usage.summary', { since: app.sb.admin.now() + 86_400_000 });
    expect(future.notCharged.fromArchive).toBe(0);
  });

  it('sources read as words', () => {
    const names = (id: string) => (id === 'L1' ? 'Brand' : undefined);
    expect(sourceWords('watch:L1', names)).toBe('watchlist “Brand”');
    expect(sourceWords('watch:gone', names)).toBe('a deleted watchlist');
    expect(sourceWords(null, names)).toBe('no source recorded');
    expect(sourceWords('', names)).toBe('no source recorded');
    expect(sourceWords('search', names)).toBe('Search');
    expect(sourceWords('profile:micro_net/nasa', names)).toBe('Profiles: micro_net/nasa');
    expect(sourceWords('something-else', names)).toBe('something-else');
  });
});
