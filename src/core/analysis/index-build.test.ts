/**
 * The analysis index's build (issue 30: term totals written by INSERT OR IGNORE + UPDATE in about
 * key order, the items-by-count key a partial index of the terms in more than one item, the daily
 * summary grouped without a text key per label leaf) against naive counts over a generated
 * archive: repeated and one-off terms across many chunks, undated items, unknown counts, labels of
 * every kind (reals, integers, booleans, null, texts, nested, a dotted key meeting a nested one),
 * label overrides, then a re-fetch with new counts and new items taken in on top. The same for a
 * build from scratch (bulk-terms.ts: terms appended without an_terms's indexes, totals counted from
 * the blobs at its end), also when it is stopped at any point and finished by another connection's
 * index, with changes to its items meanwhile.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openArchive, type Archive } from '../archive';
import { post } from '../archive/test-fixtures';
import { testDb } from '../archive/testing';
import { AnalysisIndex } from './analysis-index';
import { build, expectBlobsAsCounted, expectIndexAsCounted, items, rowsOf, state } from './test-index';

describe('analysis index build', () => {
  it('holds the naive counts of a generated archive, built in many chunks, after a re-fetch and new items', () => {
    const a = openArchive(':memory:');
    try {
      a.ingestItems(items(900, 1, 1), { callId: 'first', source: 'test' });
      const stored = rowsOf(a);
      for (let i = 3; i < 900; i += 97)
        a.overrideLabel(
          { platform: stored[i].platform, kind: stored[i].kind, id: String(i + 1) },
          'intent',
          'label',
          i % 2 ? 'other' : null,
        );
      const index = new AnalysisIndex(a, { background: false });
      build(index);
      expect(index.current()).toBe(true);
      expectIndexAsCounted(a, index);
      // a re-fetch of indexed items with other counts (the totals move by the difference), and new items
      a.ingestItems(items(300, 1, 1, 5_000), { callId: 'again', source: 'test' });
      a.ingestItems(items(400, 2_000, 2), { callId: 'more', source: 'test' });
      build(index);
      expect(index.current()).toBe(true);
      expectIndexAsCounted(a, index);
    } finally {
      a.close();
    }
  }, 60_000);

  it('says how far it is while it builds (analysis.indexStatus)', () => {
    const a = openArchive(':memory:');
    try {
      a.ingestItems(items(300, 1, 3), { callId: 'first', source: 'test' });
      const index = new AnalysisIndex(a, { background: false });
      expect(index.status()).toEqual({ items: 300, waiting: 300, current: false, building: false });
      const size = { items: 100, authors: 100 };
      const seen: number[] = [];
      while (index.buildSlice(size, 0)) {
        size.items = 100;
        seen.push(index.status().waiting);
      }
      // each slice takes in 100 items; then the author summary catches up (not counted: quick)
      expect(seen.slice(0, 2)).toEqual([200, 100]);
      expect(index.status()).toEqual({ items: 300, waiting: 0, current: true, building: false });
      a.ingestItems(items(50, 5_000, 4), { callId: 'more', source: 'test' });
      expect(index.status()).toEqual({ items: 350, waiting: 50, current: false, building: false });
    } finally {
      a.close();
    }
  });

  it('builds from scratch in bulk to the same index, then keeps it up to date as before', () => {
    const a = openArchive(':memory:');
    try {
      a.ingestItems(items(900, 1, 1), { callId: 'first', source: 'test' });
      const stored = rowsOf(a);
      for (let i = 3; i < 900; i += 97)
        a.overrideLabel(
          { platform: stored[i].platform, kind: stored[i].kind, id: String(i + 1) },
          'intent',
          'label',
          i % 2 ? 'other' : null,
        );
      const index = new AnalysisIndex(a, { background: false, bulk: { min: 1, step: 150 } });
      const size = { items: 100, authors: 100 };
      const phases = new Set<string>();
      while (index.buildSlice(size, 0)) {
        size.items = 100;
        if (state(a, 'terms_bulk') === 1) {
          phases.add(state(a, 'terms_upto') < 900 ? 'items' : 'end');
          // nothing reads the terms meanwhile: their totals and key are not there yet
          expect(index.current()).toBe(false);
          expect(index.totals('words', 'count', 'desc', 5)).toBeNull();
        }
      }
      expect([...phases]).toEqual(['items', 'end']);
      expect(index.current()).toBe(true);
      expectIndexAsCounted(a, index);
      expectBlobsAsCounted(a);
      a.ingestItems(items(300, 1, 1, 5_000), { callId: 'again', source: 'test' });
      a.ingestItems(items(400, 2_000, 2), { callId: 'more', source: 'test' });
      build(index);
      expectIndexAsCounted(a, index);
      expectBlobsAsCounted(a);
    } finally {
      a.close();
    }
  }, 60_000);

  it('a build from scratch stopped anywhere, its items changed meanwhile, is finished right by another connection', () => {
    // each stop point: slices of 100 items (4 of them), then the count, the totals in steps of 80 terms, the indexes
    for (const [stop, change] of [
      [1, 'counts'],
      [3, 'text'],
      [4, 'counts'],
      [5, 'none'],
      [7, 'counts'],
      [12, 'new'],
      [40, 'none'],
      [5, 'counts, other first'],
      [7, 'counts, other first'],
      [1, 'two in turn'],
      [1_000, 'between the indexes'],
    ] as const) {
      const a = openArchive(':memory:');
      try {
        a.ingestItems(items(400, 1, 7), { callId: 'first', source: 'test' });
        const first = new AnalysisIndex(a, { background: false, bulk: { min: 1, step: 80 } });
        const size = { items: 100, authors: 100 };
        // 'between the indexes': until the key is made and the partial index not yet
        const between = (): boolean =>
          state(a, 'terms_bulk') === 1 && testDb(a).prepare("SELECT 1 FROM sqlite_master WHERE name = 'an_terms_key'").get() !== undefined;
        for (let k = 0; k < stop && first.buildSlice(size, 0); k++) {
          size.items = 100;
          if (change === 'between the indexes' && between()) break;
        }
        if (change === 'between the indexes') expect(between()).toBe(true);
        if (change.startsWith('counts')) a.ingestItems(items(150, 1, 7, 3_000), { callId: 'again', source: 'test' });
        if (change === 'text') a.ingestItems(items(20, 1, 99), { callId: 'edit', source: 'test' });
        if (change === 'new') a.ingestItems(items(60, 5_000, 8), { callId: 'more', source: 'test' });
        // another connection's index (a new process, the worker after a restart): nothing held in memory
        const second = new AnalysisIndex(a, { background: false, bulk: { min: 1, step: 80 } });
        // or: the other takes the change in while the first is writing the totals it counted before it, and the first goes on
        if (change === 'counts, other first') second.buildSlice({ items: 100, authors: 100 }, 0);
        // or: both build, a slice each in turn (each one's dictionary misses what the other appended)
        if (change === 'two in turn')
          while (second.buildSlice({ items: 100, authors: 100 }, 0) && first.buildSlice({ items: 100, authors: 100 }, 0));
        const last = change === 'counts, other first' ? first : second;
        build(last);
        expect(last.current(), `stop ${stop}`).toBe(true);
        expectIndexAsCounted(a, last);
        expectBlobsAsCounted(a);
      } finally {
        a.close();
      }
    }
  }, 120_000);

  it('a build from scratch gives any texts the terms the incremental build gives them (bigrams by their words), stopped and finished by another', () => {
    // words that split or read back otherwise: a lone surrogate (stored as invalid bytes, read back as U+FFFD), U+FFFD itself,
    // text the segmenter cuts without spaces, and plain words repeated across items (bigrams seen before, by id)
    const pieces = [
      'kettle',
      'coffee',
      'bank',
      'america',
      'the',
      'x\ud800',
      '\udc00y',
      '\ufffd',
      'a\ufffdb',
      'x\ufffd',
      '猫が好き',
      'スニーカー',
      '#tag',
      '🙂',
      'café',
    ];
    const texts = fc.array(
      fc
        .array(
          fc.oneof(
            { arbitrary: fc.constantFrom(...pieces), weight: 6 },
            { arbitrary: fc.string({ unit: 'binary', maxLength: 4 }), weight: 1 },
          ),
          { minLength: 1, maxLength: 8 },
        )
        .map((ws) => ws.join(' ')),
      { minLength: 1, maxLength: 40 },
    );
    const load = (a: Archive, list: string[]): void =>
      void a.ingestItems(
        list.map((text, k) => ({
          platform: 'photo_net',
          kind: 'post',
          record: post({
            id: String(k + 1),
            text,
            likes: k % 3 === 0 ? null : k,
            published_at: new Date(Date.UTC(2024, 0, 1 + (k % 5))).toISOString(),
          }),
        })),
        { callId: 'texts', source: 'test' },
      );
    // each term (its stored bytes) with its totals, and each item's terms of each field as its blob lists them
    const dump = (a: Archive): { terms: string[]; blobs: string[] } => {
      const db = testDb(a);
      const terms = db
        .prepare(
          'SELECT id, field, hex(term) AS t, docs, occ, first, last, views, likes, comments, shares, saves, engagement FROM an_terms',
        )
        .all() as Array<Record<string, unknown> & { id: number; t: string }>;
      const hexOf = new Map(terms.map((r) => [r.id, r.t]));
      const blobs = (
        db.prepare('SELECT field, rid, data FROM an_item_terms').all() as Array<{ field: number; rid: number; data: Buffer }>
      ).map(
        (r) =>
          `${r.field}|${r.rid}|${[...new Uint32Array(r.data.buffer.slice(r.data.byteOffset + 48, r.data.byteOffset + r.data.length))]
            .map((id) => hexOf.get(id))
            .sort()
            .join(',')}`,
      );
      return { terms: terms.map(({ id: _id, ...r }) => JSON.stringify(r)).sort(), blobs: blobs.sort() };
    };
    fc.assert(
      fc.property(texts, fc.integer({ min: 1, max: 6 }), (list, stop) => {
        const ref = openArchive(':memory:');
        const bulk = openArchive(':memory:');
        try {
          load(ref, list);
          build(new AnalysisIndex(ref, { background: false, bulk: { min: 1_000_000 } }));
          load(bulk, list);
          const first = new AnalysisIndex(bulk, { background: false, bulk: { min: 1, step: 7 } });
          const size = { items: 6, authors: 100 };
          for (let k = 0; k < stop && first.buildSlice(size, 0); k++) size.items = 6;
          // another connection goes on: its dictionary is read back from an_terms
          const second = new AnalysisIndex(bulk, { background: false, bulk: { min: 1, step: 7 } });
          const size2 = { items: 6, authors: 100 };
          while (second.buildSlice(size2, 0)) size2.items = 6;
          expect(second.current()).toBe(true);
          expect(dump(bulk)).toEqual(dump(ref));
        } finally {
          ref.close();
          bulk.close();
        }
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});
