/** Who did what (issue 29): annotations carry the author named in Settings (else LOUPE_AUTHOR, else the OS user) and their time. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppInfo, ItemDetail, ResultSetInfo, Settings } from '../shared/contract';
import { osUserName } from './author';
import { startTestApp, type TestApp } from './test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ seed: 5, freeCalls: 0 }, 'loupe-authors-', { environment: { authorName: 'env-author' } });
  await t.call('api.call', { target: { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'authors' } }, source: 'test' });
});
afterAll(() => t.close());

describe('authors of annotations', () => {
  it('tags, notes, overrides and saved sets carry the name in Settings and their time; the environment and the OS user are the fallbacks', async () => {
    const page = await t.call<{ rows: Array<{ platform: string; kind: string; id: string }> }>('library.query', { limit: 2 });
    const [a, b] = page.rows.map((r) => ({ platform: r.platform, kind: r.kind, id: r.id }));
    expect((await t.call<AppInfo>('app.info')).author).toBe('env-author');
    expect((await t.call<AppInfo>('app.info')).osUser).toBe(osUserName());
    await t.call('library.tag', { items: [a], tag: 'early' });

    expect((await t.call<Settings>('settings.update', { authorName: 'Ada Lovelace' })).authorName).toBe('Ada Lovelace');
    // annotations are timed on the service's clock, as everything Loupe records (issue 27 #3)
    const before = (await t.call<AppInfo>('app.info')).serviceClock!.now;
    await t.call('library.tag', { items: [a, b], tag: 'lead' });
    await t.call('library.note', { item: a, note: 'check the caption' });
    await t.call('library.override', { item: a, family: 'intent', field: 'label', value: 'other' });
    await t.call('library.saveResultSet', { name: 'Leads', query: { tags: ['lead'] } });

    const item = (await t.call<ItemDetail>('library.item', a))!;
    const log = item.annotationLog.map(({ kind, name, value, author }) => ({ kind, name, value, author }));
    expect(log).toEqual(
      expect.arrayContaining([
        { kind: 'tag', name: 'early', value: null, author: 'env-author' },
        { kind: 'tag', name: 'lead', value: null, author: 'Ada Lovelace' },
        { kind: 'note', name: 'note', value: 'check the caption', author: 'Ada Lovelace' },
        { kind: 'override', name: 'intent.label', value: 'other', author: 'Ada Lovelace' },
      ]),
    );
    expect(log).toHaveLength(4);
    for (const e of item.annotationLog.filter((x) => x.author === 'Ada Lovelace')) expect(e.at).toBeGreaterThanOrEqual(before);
    expect(item.overrideLog[0].author).toBe('Ada Lovelace');
    const sets = await t.call<ResultSetInfo[]>('library.resultSets');
    expect(sets.find((s) => s.name === 'Leads')?.author).toBe('Ada Lovelace');

    // a change of name applies to the next annotation only; clearing it falls back to the environment
    await t.call('settings.update', { authorName: null });
    await t.call('library.note', { item: b, note: 'second look' });
    const other = (await t.call<ItemDetail>('library.item', b))!;
    expect(other.annotationLog.find((e) => e.kind === 'note')?.author).toBe('env-author');
    expect(other.annotationLog.find((e) => e.kind === 'tag')?.author).toBe('Ada Lovelace');
  });
});
