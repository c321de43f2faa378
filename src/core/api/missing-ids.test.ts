/**
 * Issue 24 #3: a list row without an id of its own is never archived under another record's id
 * (before, a post without `id` was stored under its author's id: two such posts became one row
 * and the second one's text was lost, with no word). Generated lists of every record kind, with
 * ids missing at random and authors shared, walked by the request core into a real archive
 * through a small local server: every row with an id is archived under it with its own text,
 * account records (profile, user, group, advertiser) without `id` under their `author.id`, and
 * every other row is counted as unreadable, said in a walk note and kept raw in the stored answer.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArchive, type Archive } from '../archive';
import { testDb } from '../archive/testing';
import { createApiCore } from './core';
import { InstantClock, TEST_KEY, endpointDef, makeCatalogue, okEnvelope, p, startFakeApi, type FakeApi } from './test-helpers';
import type { ApiCore } from './types';

const KINDS = ['post', 'comment', 'user', 'profile', 'group', 'advertiser'] as const;
type Kind = (typeof KINDS)[number];
const ACCOUNT: ReadonlySet<Kind> = new Set(['user', 'profile', 'group', 'advertiser']);

interface Row {
  kind: Kind;
  id: string | null;
  authorId: string | null;
  text: string;
}

const rowArb = fc.record({
  kind: fc.constantFrom(...KINDS),
  hasId: fc.boolean(),
  // a few authors only: rows without an id of their own share them
  author: fc.option(fc.constantFrom('9007199254740993', '777', 'a1'), { nil: null }),
});
const listArb = fc.array(fc.array(rowArb, { minLength: 0, maxLength: 8 }), { minLength: 1, maxLength: 3 });

let api: FakeApi;
let core: ApiCore;
let archive: Archive;
let pages: Array<Array<Record<string, unknown>>> = [];

beforeAll(async () => {
  const catalogue = makeCatalogue([
    endpointDef('photo_net', 'followers', {
      paginates: true,
      cache_ttl_seconds: 3600,
      params: [p('handle', { required: true }), p('cursor')],
    }),
    endpointDef('photo_net', 'post', { cache_ttl_seconds: 3600, params: [p('url', { required: true })] }),
  ]);
  api = await startFakeApi({
    catalogue,
    handle: (r) => {
      if (r.path === 'photo_net/post')
        return { body: okEnvelope('photo_net', 'post', { post: { author: { id: '777' }, content: { text: 'single' }, engagement: {} } }) };
      const n = r.query.cursor ? Number(r.query.cursor.slice(2)) : 0;
      const last = n >= pages.length - 1;
      return {
        body: okEnvelope(
          'photo_net',
          'followers',
          { items: pages[n] ?? [], total: 0, truncated: false, ext: {} },
          { pagination: { next_cursor: last ? null : `c:${n + 1}`, has_more: !last, page_size: pages[n]?.length ?? 0 } },
        ),
      };
    },
  });
  archive = openArchive(':memory:', {});
  archive.setBalance(10_000_000, 0);
  core = createApiCore({ baseUrl: api.url, getKey: () => TEST_KEY, store: archive, clock: new InstantClock(), random: () => 0.5 });
});
afterAll(async () => {
  await core.close();
  archive.close();
  await api.close();
});

function item(r: Row): Record<string, unknown> {
  const rec: Record<string, unknown> = {
    ...(r.id !== null ? { id: r.id } : {}),
    author: { id: r.authorId, username: null },
    content: { text: r.text },
    engagement: { likes: 1 },
    published_at: '2026-01-05T12:00:00Z',
  };
  return { [r.kind]: rec, position: 1 };
}

/** The archive's kind of a row served under `key`. */
const archiveKind = (k: Kind): string => k;

describe('list rows without an id of their own', () => {
  it('are counted as unreadable and kept raw, never merged into another item, whatever their kind', async () => {
    let seq = 0;
    await fc.assert(
      fc.asyncProperty(listArb, async (gen) => {
        const run = ++seq;
        const rows: Row[][] = gen.map((pg, i) =>
          pg.map((g, j) => ({
            kind: g.kind,
            id: g.hasId ? `${run}${i}${j}00${j}` : null,
            // one author per page: the same account on two pages of one walk is a page of repeated
            // rows, which the walker pauses on ('repeating') before paying for more of them
            authorId: g.author === null ? null : `${g.author}${i}`,
            text: `case ${run} page ${i} row ${j}`,
          })),
        );
        pages = rows.map((pg) => pg.map(item));
        const r = await core.walk({ platform: 'photo_net', endpoint: 'followers', params: { handle: `case${run}` } });
        expect(r.status).toBe('done');

        const all = rows.flat();
        const idOf = (x: Row) => x.id ?? (ACCOUNT.has(x.kind) ? x.authorId : null);
        const readable = all.filter((x) => idOf(x) !== null);
        const unreadable = all.length - readable.length;
        expect(r.unreadable).toBe(unreadable);
        if (unreadable > 0) expect(r.notes.join(' ')).toMatch(/could not be read as records \(no id of their own\)/);
        // every readable row is archived under its own id with its own text (an account record
        // without `id` under its author.id: the same account)
        for (const x of readable) {
          const got = testDb(archive)
            .prepare('SELECT raw FROM items WHERE platform = ? AND kind = ? AND id = ?')
            .get('photo_net', archiveKind(x.kind), idOf(x)) as { raw: string } | undefined;
          expect(got, `${x.kind} ${idOf(x)}`).toBeDefined();
          if (x.id !== null) expect((JSON.parse((got as { raw: string }).raw) as { content: { text: string } }).content.text).toBe(x.text);
        }
        // nothing else was archived from this case (no post stored under its author's id)
        const distinct = new Set(readable.map((x) => `${archiveKind(x.kind)}:${idOf(x)}`));
        const archived = testDb(archive).prepare('SELECT kind, id FROM items WHERE instr(raw, ?) > 0').all(`"case ${run} page`) as Array<{
          kind: string;
          id: string;
        }>;
        expect(new Set(archived.map((a) => `${a.kind}:${a.id}`))).toEqual(distinct);
        // the unreadable rows are kept raw in the walk's stored answers
        const stored = (
          testDb(archive).prepare('SELECT envelope FROM responses WHERE walk_id = ?').all(r.walkId) as Array<{ envelope: string }>
        )
          .map((e) => e.envelope)
          .join('');
        for (const x of all.filter((y) => idOf(y) === null)) expect(stored).toContain(x.text);
      }),
      { numRuns: 30 },
    );
  });

  it('a single post without an id is not archived under its author, and is counted', async () => {
    const r = await core.call({ platform: 'photo_net', endpoint: 'post', params: { url: 'https://photo.example/p/x' } });
    expect(r.unreadable).toBe(1);
    expect(r.items).toEqual([]);
    expect(testDb(archive).prepare("SELECT 1 FROM items WHERE id = '777' AND kind = 'post'").get()).toBeUndefined();
  });
});
