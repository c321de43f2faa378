import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { openArchive, Archive } from './index';
import type { LibraryQuery, SortField } from '../../shared/query';
import { post } from './test-fixtures';
import { testDb } from './testing';

/**
 * 400 items with nulls and many ties in every sort field. The expected order is
 * computed here in JS: known values by value (authors case-insensitively), ties by
 * insertion order (= archive rid) in the sort direction, unknown values last.
 */
interface Spec {
  id: string;
  idx: number;
  published: number | null;
  likes: number | null;
  views: number | null;
  comments: number | null;
  shares: number | null;
  relevance: number | null;
  username: string | null;
  firstSeen: number;
  sp: number | null | undefined; // sponsored.p: undefined = not judged, null = null value
  intent: string | null | undefined;
  platform: string;
}

const N = 400;
const INTENTS = ['asking_for_recommendation', 'comparing_options', 'complaining', 'promoting'];
const specs: Spec[] = [];
for (let i = 0; i < N; i++) {
  specs.push({
    id: String(10n ** 20n + BigInt(i * 7)),
    idx: i,
    published: i % 17 === 0 ? null : Date.UTC(2024, 0, 1) + ((i * 7919) % 97) * 3_600_000,
    likes: i % 5 === 0 ? null : (i * 31) % 50,
    views: i % 7 === 0 ? null : (i * 13) % 1000,
    comments: i % 4 === 0 ? null : (i * 3) % 11,
    shares: i % 3 === 0 ? null : (i * 17) % 9,
    relevance: i % 6 === 0 ? null : ((i * 37) % 100) / 100,
    username: i % 19 === 0 ? null : `${i % 2 ? 'user' : 'USER'}${(i * 11) % 23}`,
    firstSeen: 1_000 + ((Math.floor(i / 10) * 7919) % 13) * 1_000,
    sp: i % 4 === 0 ? undefined : i % 8 === 5 ? null : ((i * 53) % 100) / 100,
    intent: i % 3 === 0 ? INTENTS[i % 4] : i % 3 === 1 ? undefined : null,
    platform: i % 9 === 0 ? 'micro_net' : 'photo_net',
  });
}

type Key = (s: Spec) => number | string | null;
const KEYS: Record<string, Key> = {
  published_at: (s) => s.published,
  likes: (s) => s.likes,
  views: (s) => s.views,
  comments: (s) => s.comments,
  shares: (s) => s.shares,
  relevance: (s) => s.relevance,
  first_seen_at: (s) => s.firstSeen,
  author: (s) => (s.username === null ? null : s.username.toLowerCase()),
  'label:sponsored.p': (s) => (s.sp === undefined ? null : s.sp),
  'label:intent.label': (s) => (s.intent === undefined ? null : s.intent),
};

function expected(field: string, dir: 'asc' | 'desc', filter: (s: Spec) => boolean = () => true): string[] {
  const key = KEYS[field];
  const sign = dir === 'asc' ? 1 : -1;
  return specs
    .filter(filter)
    .slice()
    .sort((a, b) => {
      const va = key(a);
      const vb = key(b);
      if (va === null && vb !== null) return 1;
      if (vb === null && va !== null) return -1;
      if (va !== null && vb !== null && va !== vb) return (va < vb ? -1 : 1) * sign;
      return (a.idx - b.idx) * sign;
    })
    .map((s) => s.id);
}

function pageAll(a: Archive, q: LibraryQuery, limit: number): string[] {
  const out: string[] = [];
  let after: string | undefined;
  let pages = 0;
  do {
    const p = a.query({ ...q, limit, after });
    expect(p.rows.length).toBeLessThanOrEqual(limit);
    out.push(...p.rows.map((r) => r.id));
    after = p.next ?? undefined;
    if (++pages > 1000) throw new Error('paging does not end');
  } while (after);
  return out;
}

describe('sorting and keyset paging', () => {
  let a: Archive;
  beforeAll(() => {
    a = openArchive(':memory:');
    for (let b = 0; b < N; b += 10) {
      const batch = specs.slice(b, b + 10);
      a.ingestItems(
        batch.map((s) => {
          const labels: Record<string, Record<string, unknown>> = {};
          if (s.sp !== undefined) labels.sponsored = { p: s.sp };
          if (s.intent !== undefined) labels.intent = { label: s.intent };
          return {
            platform: s.platform,
            kind: 'post',
            record: post({
              id: s.id,
              published_at: s.published === null ? null : new Date(s.published).toISOString(),
              likes: s.likes,
              views: s.views,
              comments: s.comments,
              shares: s.shares,
              relevance: s.relevance,
              author: { id: s.username === null ? null : `id_${s.username.toLowerCase()}`, username: s.username, display_name: null },
              labels: Object.keys(labels).length > 0 ? labels : null,
            }),
          };
        }),
        { callId: `bulk${b}`, source: 'test', fetchedAt: batch[0].firstSeen },
      );
    }
  });
  afterAll(() => a.close());

  for (const field of Object.keys(KEYS)) {
    for (const dir of ['asc', 'desc'] as const) {
      it(`${field} ${dir}: one big page, small pages and the export all give the expected order`, () => {
        const want = expected(field, dir);
        const q: LibraryQuery = { sort: { field: field as SortField, dir } };
        expect(a.query({ ...q, limit: 1000 }).rows.map((r) => r.id)).toEqual(want);
        expect(pageAll(a, q, 7)).toEqual(want);
        expect([...a.iterateExportRows(q)].map((r) => r.id)).toEqual(want);
      });
    }
  }

  it('paging with filters and a label sort stays consistent', () => {
    const q: LibraryQuery = {
      platforms: ['photo_net'],
      engagement: [{ field: 'likes', min: 10 }],
      sort: { field: 'label:sponsored.p', dir: 'desc' },
    };
    const want = expected('label:sponsored.p', 'desc', (s) => s.platform === 'photo_net' && s.likes !== null && s.likes >= 10);
    expect(want.length).toBeGreaterThan(50);
    expect(pageAll(a, q, 5)).toEqual(want);
    expect(a.count(q)).toBe(want.length);
    // the same with every filter probed per row instead of materialised
    const probed = new Archive(testDb(a), { denseAt: 1 });
    const q2: LibraryQuery = {
      ...q,
      labels: [
        { family: 'sponsored', field: 'p', op: 'gte', value: 0.2 },
        { family: 'intent', field: 'label', op: 'eq', value: 'complaining' },
      ],
    };
    const want2 = expected(
      'label:sponsored.p',
      'desc',
      (s) => s.platform === 'photo_net' && s.likes !== null && s.likes >= 10 && s.sp != null && s.sp >= 0.2 && s.intent === 'complaining',
    );
    expect(want2.length).toBeGreaterThan(3);
    expect(pageAll(probed, q2, 3)).toEqual(want2);
    expect(pageAll(a, q2, 3)).toEqual(want2);
  });

  it('default sort is newest published first', () => {
    expect(a.query({ limit: 1000 }).rows.map((r) => r.id)).toEqual(expected('published_at', 'desc'));
  });
});
