/**
 * The analysis index's tests' generated archive and naive counts (index-build.test.ts,
 * index-upkeep.test.ts): the index's terms, blobs, daily summary and top N against counts made
 * here straight from the items.
 */
import { expect } from 'vitest';
import type { Archive } from '../archive';
import { post } from '../archive/test-fixtures';
import { testDb } from '../archive/testing';
import { flattenLabels, type Json, type LabelScalar } from '../archive';
import { engagementOf } from '../../shared/analysis';
import { mulberry32 } from '../../shared/random';
import { AnalysisIndex, TOTAL_FIELDS } from './analysis-index';
import { addItem, newAcc, type TermAcc } from './frequency';
import { extractTerms } from '../text';

const DAY = 86_400_000;
const WORDS = ['kettle', 'coffee', 'morning', 'review', 'price', 'bank', 'america', 'the', 'of', 'ünïcode', 'zebra', 'apple', 'apricot'];
const EXTRA = [
  '#launch',
  '#Launch',
  '@ana',
  '@bob.smith',
  'https://www.example.org/x',
  'http://news.example.com/a?b=1',
  '🙂',
  '☕',
  '🇫🇷',
  '42',
];

export function items(
  n: number,
  from: number,
  seed: number,
  likes = 0,
): Array<{ platform: string; kind: string; record: Record<string, unknown> }> {
  const r = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const count = (): number | null => (r() < 0.2 ? null : Math.floor(r() * 1000) + likes);
  return Array.from({ length: n }, (_, i) => {
    const k = from + i;
    // a few words from a small list (terms in many items) and a one-off word (terms in one item)
    const text =
      r() < 0.05
        ? null
        : [
            ...Array.from({ length: 1 + Math.floor(r() * 8) }, () => (r() < 0.2 ? pick(EXTRA) : pick(WORDS))),
            `w${Math.floor(r() * 5000)}`,
          ].join(' ');
    const labels =
      r() < 0.1
        ? null
        : {
            sponsored: {
              p: r() < 0.1 ? null : Math.round(r() * 1000) / 1000,
              disclosed: r() < 0.5,
              brand: r() < 0.5 ? null : pick(['acme', 'globex']),
            },
            intent: {
              label: pick(['complaining', 'promoting', 'other', null]),
              urgency: Math.floor(r() * 5),
              score: r() * 3,
              aspect: { price: r() < 0.5 ? 1 : 0.25 },
            },
            ...(r() < 0.1 ? { odd: { 'x.y': 1, x: { y: 2 } } } : {}),
          };
    return {
      platform: pick(['photo_net', 'micro_net', 'forum_net']),
      kind: r() < 0.2 ? 'comment' : 'post',
      record: post({
        id: String(k),
        text,
        likes: count(),
        comments: count(),
        views: count(),
        labels,
        author: { id: `a${k % 11}`, username: `user${k % 11}`, display_name: null },
        published_at: r() < 0.05 ? null : new Date(Date.UTC(2024, 0, 1) + Math.floor(r() * 60 * DAY)).toISOString(),
      }),
    };
  });
}

export type Row = {
  rid: number;
  text: string | null;
  lang: string | null;
  pub: number | null;
  views: number | null;
  likes: number | null;
  comments: number | null;
  shares: number | null;
  saves: number | null;
  platform: string;
  kind: string;
  labels: string | null;
};
export const rowsOf = (a: Archive): Row[] =>
  testDb(a)
    .prepare(
      'SELECT rid, text, lang, published_at AS pub, views, likes, comments, shares, saves, platform, kind, labels FROM items ORDER BY rid',
    )
    .all() as Row[];

/** an_terms as a naive count from the items: field\0term → totals */
export function naiveTerms(rows: Row[]): Map<string, TermAcc> {
  const acc = new Map<string, TermAcc>();
  for (const r of rows) {
    const t = extractTerms(r.text, r.lang, TOTAL_FIELDS);
    const vals = [r.views, r.likes, r.comments, r.shares, r.saves, engagementOf(r)];
    TOTAL_FIELDS.forEach((f, k) => {
      const per = new Map<string, number>();
      for (const x of t[f]) per.set(x, (per.get(x) ?? 0) + 1);
      for (const [x, n] of per) {
        const key = `${k + 1}\u0000${x}`;
        if (!acc.has(key)) acc.set(key, newAcc());
        addItem(acc.get(key)!, n, r.pub, vals);
      }
    });
  }
  return acc;
}

export function storedTerms(a: Archive): Map<string, TermAcc> {
  const m = new Map<string, TermAcc>();
  const rows = testDb(a)
    .prepare('SELECT field, term, docs, occ, first, last, views, likes, comments, shares, saves, engagement FROM an_terms')
    .all() as Array<Record<string, number | null> & { term: string }>;
  for (const r of rows)
    m.set(`${r.field}\u0000${r.term}`, {
      count: r.docs!,
      occ: r.occ!,
      first: r.first,
      last: r.last,
      sums: [r.views, r.likes, r.comments, r.shares, r.saves, r.engagement],
    });
  return m;
}

/** an_daily as the build before issue 30 counted it: one text key per (field, day, platform, kind, typeof value, value) */
export function naiveDaily(a: Archive, rows: Row[]): Map<string, number> {
  const ff = new Map(
    (testDb(a).prepare('SELECT ff, family, field FROM label_fields').all() as Array<{ ff: number; family: string; field: string }>).map(
      (r) => [`${r.family}\u0000${r.field}`, r.ff],
    ),
  );
  const ov = new Map<number, Array<{ family: string; field: string; value: unknown }>>();
  for (const o of testDb(a).prepare('SELECT item_rid AS rid, family, field, value FROM label_overrides').all() as Array<{
    rid: number;
    family: string;
    field: string;
    value: string;
  }>)
    (ov.get(o.rid) ?? ov.set(o.rid, []).get(o.rid)!).push({ family: o.family, field: o.field, value: JSON.parse(o.value) });
  const out = new Map<string, number>();
  // the value column's numeric affinity stores a real without a fraction as an integer
  const sqlType = (v: LabelScalar): string =>
    typeof v === 'bigint' || Number.isInteger(v) ? 'integer' : typeof v === 'number' ? 'real' : typeof v === 'string' ? 'text' : 'blob';
  const bump = (no: number, day: number, r: Row, v: LabelScalar): void => {
    const key = `${no}|${day}|${r.platform}|${r.kind}|${sqlType(v)}|${Buffer.isBuffer(v) ? '' : String(v)}`;
    out.set(key, (out.get(key) ?? 0) + 1);
  };
  for (const r of rows) {
    const day = r.pub === null ? -999_999_999 : Math.floor(r.pub / DAY);
    bump(0, day, r, '');
    for (const [family, field, v] of flattenLabels(r.labels === null ? null : (JSON.parse(r.labels) as Json), ov.get(r.rid))) {
      const no = ff.get(`${family}\u0000${field}`);
      const dv = typeof v === 'number' && !Number.isInteger(v) && v >= 0 && v <= 1 ? Math.trunc(Math.round(v * 100 * 1e8) / 1e8) / 100 : v;
      if (no !== undefined) bump(no, day, r, dv);
    }
  }
  return out;
}

export function storedDaily(a: Archive): Map<string, number> {
  const rows = testDb(a).prepare('SELECT ff, day, platform, kind, typeof(value) AS t, value, n FROM an_daily').all() as Array<{
    ff: number;
    day: number;
    platform: string;
    kind: string;
    t: string;
    value: unknown;
    n: number;
  }>;
  return new Map(rows.map((r) => [`${r.ff}|${r.day}|${r.platform}|${r.kind}|${r.t}|${r.t === 'blob' ? '' : String(r.value)}`, r.n]));
}

/** Builds what waits in slices of ~100 items (many chunks: the terms of later ones are mostly stored already). */
export function build(index: AnalysisIndex): void {
  const size = { items: 100, authors: 100 };
  while (index.buildSlice(size, 0)) size.items = 100;
}

const utf8 = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** Each item's terms of each field as its blob lists them (ids read back as terms), against the tokenizer's. */
export function expectBlobsAsCounted(a: Archive): void {
  const db = testDb(a);
  const termOf = new Map(
    (db.prepare('SELECT id, term FROM an_terms').all() as Array<{ id: number; term: string }>).map((r) => [r.id, r.term]),
  );
  const got = new Map<string, string[]>();
  for (const r of db.prepare('SELECT field, rid, data FROM an_item_terms').all() as Array<{ field: number; rid: number; data: Buffer }>) {
    const ids = new Uint32Array(r.data.buffer.slice(r.data.byteOffset + 48, r.data.byteOffset + r.data.length));
    got.set(`${r.field}|${r.rid}`, [...ids].map((id) => termOf.get(id) ?? `missing ${id}`).sort());
  }
  const want = new Map<string, string[]>();
  for (const r of rowsOf(a)) {
    const t = extractTerms(r.text, r.lang, TOTAL_FIELDS);
    TOTAL_FIELDS.forEach((f, k) => {
      if (t[f].length > 0) want.set(`${k + 1}|${r.rid}`, [...t[f]].sort());
    });
  }
  expect(got).toEqual(want);
}

export const state = (a: Archive, k: string): number =>
  (testDb(a).prepare('SELECT v FROM an_state WHERE k = ?').get(k) as { v: number } | undefined)?.v ?? 0;

export function expectIndexAsCounted(a: Archive, index: AnalysisIndex): void {
  const rows = rowsOf(a);
  const want = naiveTerms(rows);
  expect(storedTerms(a)).toEqual(want);
  expect(storedDaily(a)).toEqual(naiveDaily(a, rows));
  // the partial key holds exactly the terms in more than one item
  const multi = (testDb(a).prepare('SELECT count(*) AS n FROM an_terms INDEXED BY an_terms_multi WHERE docs > 1').get() as { n: number }).n;
  expect(multi).toBe([...want.values()].filter((t) => t.count > 1).length);
  // top N by items, both ways, at limits inside, across and past the terms in more than one item
  TOTAL_FIELDS.forEach((f, k) => {
    const all = [...want]
      .filter(([key]) => key.startsWith(`${k + 1}\u0000`))
      .map(([key, t]) => [key.slice(key.indexOf('\u0000') + 1), t.count] as const);
    const inMany = all.filter(([, n]) => n > 1).length;
    for (const dir of ['desc', 'asc'] as const) {
      const ranked = [...all].sort((x, y) => (dir === 'desc' ? y[1] - x[1] : x[1] - y[1]) || utf8(x[0], y[0]));
      for (const limit of [1, 7, Math.max(1, inMany - 1), inMany + 3, 100_000]) {
        const got = index.totals(f, 'count', dir, limit)!.ranked.map(([t, acc]) => [t, acc.count]);
        expect(got, `${f} ${dir} ${limit}`).toEqual(ranked.slice(0, limit));
      }
    }
  });
}
