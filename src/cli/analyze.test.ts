/**
 * Analysis over a small archive: frequency tables checked against an independent count of the
 * exported JSONL (Intl.Segmenter + stopwords-iso directly), click-through queries that select
 * exactly what a row or mark counts, the analysis index agreeing with the items after ingests,
 * merges, overrides and edits, comparisons and overperformance.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import stopwordsIso from 'stopwords-iso';
import { openArchive, type Archive } from '../core/archive';
import { post } from '../core/archive/test-fixtures';
import { archivePath } from '../core/paths';
import { testDb } from '../core/archive/testing';
import { runCaptured } from './run-captured';
import { FREQUENCY_FIELDS, engagementOf, type FrequencySort, type FrequencyTable } from '../shared/analysis';
import type { LibraryQuery } from '../shared/query';
import { mulberry32 } from '../shared/random';
import { AnalysisIndex } from '../core/analysis/analysis-index';
import { engagementDistribution, labelShareOverTime, volumeBy } from '../core/analysis/charts';
import { compare, overperformance } from '../core/analysis/compare';
import { frequencyTable } from '../core/analysis/frequency';

const WORDS = [
  'coffee',
  'beans',
  'roast',
  'the',
  'and',
  'of',
  'brewly',
  'grinder',
  'price',
  'café',
  'morning',
  'é',
  'não',
  'muito',
  'bom',
  '42',
];
const EMOJI = ['🙂', '👍🏽', '🇧🇷', '☕'];
const PLATFORMS = ['photo_net', 'micro_net'];

function corpus(n: number): Array<{ platform: string; kind: string; record: Record<string, unknown> }> {
  const r = mulberry32(16);
  const pick = <T>(a: readonly T[]): T => a[Math.floor(r() * a.length)];
  const out = [];
  for (let i = 0; i < n; i++) {
    const parts: string[] = [];
    const len = 3 + Math.floor(r() * 14);
    for (let k = 0; k < len; k++) {
      const x = r();
      if (x < 0.06) parts.push(`#${pick(['Coffee', 'coffee', 'brew2024', 'MorningRoast'])}`);
      else if (x < 0.1) parts.push(`@${pick(['brewly', 'Bean_Co', 'ana'])}`);
      else if (x < 0.13) parts.push(pick(['https://www.Example.com/a?x=1', 'http://shop.brewly.co/p', 'https://example.com']));
      else if (x < 0.17) parts.push(pick(EMOJI));
      else if (x < 0.25) parts.push(pick(['.', '!', ',']));
      else parts.push(r() < 0.5 ? pick(WORDS) : pick(WORDS).toUpperCase());
    }
    const likes = r() < 0.1 ? null : Math.floor(r() * 500);
    out.push({
      platform: PLATFORMS[i % 2],
      kind: 'post',
      record: post({
        id: String(9_000_000_000_000_000_000n + BigInt(i)),
        text: parts.join(' '),
        language: pick(['en', 'pt-BR', null]),
        author: { id: `a${i % 12}`, username: `user${i % 12}`, display_name: null },
        published_at: r() < 0.05 ? null : new Date(Date.UTC(2024, 0, 1) + Math.floor(r() * 90 * 86_400_000)).toISOString(),
        likes,
        comments: Math.floor(r() * 20),
        views: r() < 0.5 ? null : Math.floor(r() * 10_000),
        labels: {
          intent: { label: pick(['complaining', 'promoting', 'other', null]) },
          sponsored: { p: Math.round(r() * 1000) / 1000 },
        },
      }),
    });
  }
  return out;
}

/** An independent count from exported records: Intl.Segmenter words, simple entity patterns. */
function independent(
  records: Array<Record<string, any>>,
  field: string,
): Map<string, { count: number; occ: number; likes: number | null; first: number | null }> {
  const seg = new Intl.Segmenter(undefined, { granularity: 'word' });
  const sw = stopwordsIso as unknown as Record<string, string[]>;
  const out = new Map<string, { count: number; occ: number; likes: number | null; first: number | null }>();
  for (const rec of records) {
    const text: string = rec.content?.text ?? '';
    const lang = String(rec.language ?? '')
      .split('-')[0]
      .toLowerCase();
    const stops = new Set(sw[lang] ?? sw.en);
    let terms: string[] = [];
    const urls = /https?:\/\/(?:www\.)?([A-Za-z0-9.-]+)\S*/g;
    if (field === 'domains') terms = [...text.matchAll(urls)].map((m) => m[1].toLowerCase());
    else if (field === 'hashtags') terms = [...text.matchAll(/(?:^|\s)#(\w+)/g)].map((m) => '#' + m[1].toLowerCase());
    else if (field === 'mentions') terms = [...text.matchAll(/(?:^|\s)@(\w+)/g)].map((m) => '@' + m[1].toLowerCase());
    else if (field === 'emoji') for (const e of EMOJI) terms.push(...Array(text.split(e).length - 1).fill(e));
    else if (field === 'authors') terms = [rec.author.username];
    else {
      const clean = text.replace(urls, ' | ').replace(/(?:^|\s)[#@]\w+/g, ' | ');
      const toks: Array<{ w: string; skip: boolean; brk: boolean }> = [];
      let end = 0;
      for (const s of seg.segment(clean)) {
        if (!s.isWordLike) continue;
        const w = s.segment.toLowerCase();
        toks.push({ w, skip: stops.has(w) || !/\p{L}/u.test(w), brk: /[^\s,]/u.test(clean.slice(end, s.index)) });
        end = s.index + s.segment.length;
      }
      const n = field === 'words' ? 1 : field === 'bigrams' ? 2 : 3;
      for (let i = 0; i + n <= toks.length; i++) {
        const g = toks.slice(i, i + n);
        if (g[0].skip || g[n - 1].skip || g.slice(1).some((t) => t.brk)) continue;
        terms.push(g.map((t) => t.w).join(' '));
      }
    }
    const pub = rec.published_at ? Date.parse(rec.published_at) : null;
    for (const t of new Set(terms)) {
      const e = out.get(t) ?? { count: 0, occ: 0, likes: null, first: null };
      e.count++;
      e.occ += terms.filter((x) => x === t).length;
      if (rec.engagement.likes !== null) e.likes = (e.likes ?? 0) + rec.engagement.likes;
      if (pub !== null && (e.first === null || pub < e.first)) e.first = pub;
      out.set(t, e);
    }
  }
  return out;
}

let dir: string;
let archive: Archive;
const env = (): NodeJS.ProcessEnv => ({ LOUPE_HOME: dir, LOUPE_API_KEY: '', HOME: dir });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'loupe-analysis-'));
  archive = openArchive(archivePath(dir));
  archive.ingestItems(corpus(600), { callId: 'seed', source: 'test' });
});
afterAll(() => {
  archive.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('frequency tables', () => {
  for (const flags of [[], ['--platform', 'photo_net', '--since', '2024-02-01']]) {
    it(`match an independent count of the exported JSONL (${flags.join(' ') || 'whole archive'})`, async () => {
      const out = join(dir, `export-${flags.length}.jsonl`);
      const ex = await runCaptured(['export', '--format', 'jsonl', '-o', out, ...flags], env());
      expect(ex.code, ex.err).toBe(0);
      const records = readFileSync(out, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, any>);
      const recs = records.map((r) => r.record ?? r);
      for (const field of FREQUENCY_FIELDS) {
        const r = await runCaptured(['analyze', 'top', '--field', field, '--limit', '10000', '--format', 'json', ...flags], env());
        expect(r.code, r.err).toBe(0);
        const t = JSON.parse(r.out) as FrequencyTable;
        const want = independent(recs, field);
        expect(t.items).toBe(recs.length);
        expect(new Map(t.rows.map((x) => [x.term, x.count])), field).toEqual(new Map([...want].map(([k, v]) => [k, v.count])));
        for (const row of t.rows) {
          const w = want.get(row.term)!;
          // the exports' naming: snake_case, ISO times
          const first = (row as unknown as { first_seen: string | null }).first_seen;
          expect([row.occurrences, row.sums.likes, first === null ? null : Date.parse(first)], `${field} ${row.term}`).toEqual([
            w.occ,
            w.likes,
            w.first,
          ]);
        }
        expect(t.rows.length).toBeGreaterThan(0);
        // click-through: the row's query selects exactly the items it counts
        for (const row of t.rows.slice(0, 4)) expect(archive.count(row.query), `${field} ${row.term}`).toBe(row.count);
      }
    });
  }

  it("replays a row's click-through with --term, and compares searches with --series-search", async () => {
    const r = await runCaptured(
      ['analyze', 'top', '--field', 'bigrams', '--limit', '3', '--format', 'json', '--platform', 'photo_net'],
      env(),
    );
    expect(r.code, r.err).toBe(0);
    const row = (JSON.parse(r.out) as FrequencyTable).rows[0];
    const term = row.query.terms![0];
    const lib = await runCaptured(['library', '--platform', 'photo_net', '--term', `${term.field}=${term.value}`, '--limit', '1'], env());
    expect(lib.code, lib.err).toBe(0);
    expect(lib.err).toContain(`${row.count.toLocaleString('en-US')} matching item(s)`);
    const none = await runCaptured(['analyze', 'top', '--field', 'words', '--text', 'zzzznothing'], env());
    expect(none.code).toBe(0);
    expect(none.err).toMatch(/No archived item matches this query/);
    const bad = await runCaptured(['library', '--term', 'colours=red'], env());
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--term looks like field=value/);
    const cmp = await runCaptured(
      ['analyze', 'compare', '--series-search', 'coffee', '--series-search', 'kettle OR tea', '--format', 'json'],
      env(),
    );
    expect(cmp.code, cmp.err).toBe(0);
    const series = (JSON.parse(cmp.out) as { series: Array<{ name: string; items: number }> }).series;
    expect(series.map((x) => x.name)).toEqual(['coffee', 'kettle OR tea']);
    expect(series[0].items).toBe(archive.count({ text: 'coffee' }));
    expect(series[1].items).toBe(archive.count({ text: 'kettle OR tea' }));
    const empty = await runCaptured(['analyze', 'compare', '--series-search', 'coffee', '--profile', 'photo_net/doesnotexist'], env());
    expect(empty.code, empty.err).toBe(0);
    expect(empty.err).toContain('"photo_net/@doesnotexist": no archived item matches it');
    const malformed = await runCaptured(['analyze', 'compare', '--series-search', 'coffee', '--series-search', 'tea OR'], env());
    expect(malformed.code).toBe(2);
  });

  it('writes Excel-safe CSV and refuses a bad field with a sentence', async () => {
    const r = await runCaptured(['analyze', 'top', '--field', 'mentions', '--limit', '3'], env());
    expect(r.code).toBe(0);
    // the exports' cell rules: a byte-order mark, every non-empty cell quoted, neutralised
    expect(r.out.split('\r\n')[0]).toBe(
      '\uFEFF"term","items","occurrences","share","first_seen","last_seen","views","likes","comments","shares","saves","engagement"',
    );
    expect(r.out.split('\r\n')[1].startsWith(`"'@`)).toBe(true);
    const plain = await runCaptured(['analyze', 'top', '--field', 'mentions', '--limit', '3', '--no-bom'], env());
    expect(plain.out.startsWith('"term"')).toBe(true);
    const bad = await runCaptured(['analyze', 'top', '--field', 'colours'], env());
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/colours/);
    expect(() => archive.count({ terms: [{ field: 'domains', value: 'nodot' }] })).toThrow(/cannot be one of the domains/);
  });
});

describe('the analysis index', () => {
  const same = (index: AnalysisIndex): void => {
    for (const field of ['hashtags', 'words', 'bigrams', 'domains', 'emoji', 'mentions'] as const) {
      const a = frequencyTable(archive, { field, limit: 10_000 }, index);
      const b = frequencyTable(archive, { field, limit: 10_000 });
      expect(a.basis).toBe('totals');
      expect(b.basis).toBe('items');
      expect(a.rows, field).toEqual(b.rows);
      // a query's table from the term ids kept per item equals the items' texts tokenized, in every order
      const cases: Array<[LibraryQuery, FrequencySort, 'asc' | 'desc', number]> = [
        [{ platforms: ['photo_net'], since: '2024-02-01' }, 'count', 'desc', 10_000],
        [{ text: 'coffee' }, 'count', 'desc', 7],
        [{ platforms: ['micro_net'] }, 'likes', 'desc', 9],
        [{ platforms: ['micro_net'] }, 'first', 'asc', 6],
        [{ since: '2024-01-15' }, 'views', 'asc', 12],
        [{ kinds: ['post'] }, 'occurrences', 'desc', 8],
        // the re-fetched item's platform: its new likes reach the counts kept beside its term ids
        [{ platforms: ['photo_net'], since: '2023-12-01' }, 'likes', 'desc', 9],
      ];
      for (const [query, sort, dir, limit] of cases) {
        const x = frequencyTable(archive, { query, field, sort, dir, limit }, index);
        const y = frequencyTable(archive, { query, field, sort, dir, limit });
        expect([x.basis, y.basis]).toEqual(['index', 'items']);
        expect(x.rows, `${field} ${JSON.stringify(query)} ${sort} ${dir}`).toEqual(y.rows);
        expect(x.distinct).toBe(y.distinct);
      }
    }
    for (const q of [{}, { platforms: ['micro_net'], since: '2024-02-01' }]) {
      expect(volumeBy(archive, { query: q, by: 'label', family: 'intent', field: 'label', bucket: 'week' }, index)).toEqual(
        volumeBy(archive, { query: q, by: 'label', family: 'intent', field: 'label', bucket: 'week' }),
      );
      expect(labelShareOverTime(archive, { query: q, family: 'sponsored', field: 'p', bucket: 'month' }, index)).toEqual(
        labelShareOverTime(archive, { query: q, family: 'sponsored', field: 'p', bucket: 'month' }),
      );
      const withIndex = archive.labelDistribution({ ...q, limit: 1 }, 'sponsored', 'p');
      const src = archive.labelGroupsSource;
      archive.labelGroupsSource = null;
      expect(withIndex).toEqual(archive.labelDistribution({ ...q, limit: 2 }, 'sponsored', 'p'));
      archive.labelGroupsSource = src;
    }
  };

  it('agrees with the items after ingests, merges, overrides and edits', () => {
    const index = new AnalysisIndex(archive);
    expect(index.catchUp(Infinity)).toBe(true);
    same(index);
    // new items, a re-fetch with more likes (merge), an override, an edited text
    archive.ingestItems(corpus(700).slice(600), { callId: 'more', source: 'test' });
    const first = corpus(1)[0];
    const rec = structuredClone(first.record) as any;
    rec.engagement.likes = (rec.engagement.likes ?? 0) + 1000;
    archive.ingestItems([{ ...first, record: rec }], { callId: 'refetch', source: 'test' });
    archive.overrideLabel({ platform: first.platform, kind: 'post', id: rec.id }, 'intent', 'label', 'promoting');
    same(index);
    const edited = structuredClone(rec);
    edited.content.text = '#fresh coffee beans roast again';
    archive.ingestItems([{ ...first, record: edited }], { callId: 'edit', source: 'test' });
    same(index);
    expect(index.current()).toBe(true);
  });

  it('rewrites a version-2 index (term ids keyed by field and rid) in place, without tokenizing again', () => {
    const index = new AnalysisIndex(archive);
    expect(index.catchUp(Infinity)).toBe(true);
    // the version-2 layout of an_item_terms, as that version wrote it: the term ids alone (after version 3's 48-byte header)
    testDb(archive)
      .exec(`CREATE TABLE v2 (field INTEGER NOT NULL, rid INTEGER NOT NULL, ids BLOB NOT NULL, PRIMARY KEY (field, rid)) WITHOUT ROWID;
      INSERT INTO v2 SELECT field, rid, substr(data, 49) FROM an_item_terms; DROP TABLE an_item_terms; ALTER TABLE v2 RENAME TO an_item_terms;
      UPDATE an_state SET v = 2 WHERE k = 'version';`);
    const again = new AnalysisIndex(archive);
    expect(again.current()).toBe(false);
    expect(again.catchUp(Infinity)).toBe(true);
    expect(again.current()).toBe(true);
    expect(
      testDb(archive).prepare("SELECT count(*) AS n FROM pragma_table_info('an_item_terms') WHERE name IN ('day', 'data')").get(),
    ).toEqual({ n: 2 });
    same(again);
  });
});

describe('charts, comparisons, overperformance', () => {
  it('every mark counts exactly the items its query selects', () => {
    const index = new AnalysisIndex(archive);
    archive.addTag({ platform: 'photo_net', kind: 'post', id: corpus(1)[0].record.id as string }, 'Keep');
    const charts = [
      volumeBy(archive, { by: 'platform', bucket: 'week' }, index),
      volumeBy(archive, { by: 'label', family: 'intent', field: 'label', bucket: 'month', query: { text: 'coffee' } }, index),
      volumeBy(archive, { by: 'tag', bucket: 'day' }),
      labelShareOverTime(archive, { family: 'sponsored', field: 'p', bucket: 'month' }, index),
      engagementDistribution(archive, { field: 'likes' }),
    ];
    for (const c of charts) {
      expect(c.marks.length).toBeGreaterThan(0);
      for (const m of c.marks) expect(archive.count(m.query), `${m.bucket} ${m.key}`).toBe(m.value);
    }
    const shares = charts[3].marks.filter((m) => m.bucket === charts[3].marks[0].bucket);
    expect(shares.reduce((s, m) => s + (m.share ?? 0), 0)).toBeCloseTo(1, 9);
  });

  it('compares queries side by side', () => {
    const c = compare(archive, {
      series: [
        { name: 'photo', query: { platforms: ['photo_net'] } },
        { name: 'coffee', query: { text: 'coffee' } },
      ],
      bucket: 'month',
      topPosts: 3,
    });
    expect(c.series.map((s) => s.items)).toEqual([archive.count({ platforms: ['photo_net'] }), archive.count({ text: 'coffee' })]);
    const total = c.series[0].items + c.series[1].items;
    expect(c.series[0].shareOfVoice).toBeCloseTo(c.series[0].items / total, 12);
    for (const s of c.series) {
      for (const v of s.volume) expect(archive.count(v.query)).toBe(v.value);
      for (const l of s.labels) expect(archive.count(l.query)).toBe(l.items);
      expect(s.topPosts).toHaveLength(3);
      expect(s.topPosts[0].engagement).toBeGreaterThanOrEqual(s.topPosts[2].engagement ?? 0);
      expect(s.rateByViews).toBeGreaterThan(0);
    }
    expect(() => compare(archive, { series: [{ name: 'one', query: {} }] })).toThrow(/two to eight/);
  });

  it('scores a post against the median of the account’s previous posts', () => {
    const a = openArchive(':memory:');
    const likes = [10, 20, 30, 40, 1000, null, 60];
    a.ingestItems(
      likes.map((l, k) => ({
        platform: 'photo_net',
        kind: 'post',
        record: post({ id: String(k + 1), likes: l, comments: l === null ? null : 0, published_at: `2024-01-0${k + 1}T00:00:00Z` }),
      })),
    );
    const r = overperformance(a, { baseline: 3, minBaseline: 3 });
    // post 4: median(10,20,30)=20 → 40/20; post 5: median(20,30,40)=30 → 1000/30; post 7: median(30,40,1000)=40 → 60/40
    expect(r.rows.map((x) => [x.id, x.score])).toEqual([
      ['5', 1000 / 30],
      ['4', 2],
      ['7', 1.5],
    ]);
    expect(r.unscored).toBe(4);
    expect(engagementOf({ likes: null, comments: null })).toBeNull();
    a.close();
  });
});
