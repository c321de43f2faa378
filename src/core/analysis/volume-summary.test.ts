/**
 * The Library's volume over time read from the analysis index's daily counts (plain queries)
 * equals a count in JS of the items' publication days, and the items' own answer, after ingests
 * and a re-fetch that moves a post to another day. Label charts by week and month read per bucket
 * from the summary equal the same charts from its rows per day and from the items.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openArchive, type Archive } from '../archive';
import { post } from '../archive/test-fixtures';
import { testDb } from '../archive/testing';
import type { LibraryQuery, TimeBucket } from '../../shared/query';
import { mulberry32 } from '../../shared/random';
import { AnalysisIndex } from './analysis-index';
import { labelShareOverTime, volumeBy, type ChartRowsSource } from './charts';

const DAY = 86_400_000;
const PLATFORMS = ['photo_net', 'micro_net', 'forum_net'];

function items(n: number, from: number, seed: number): Array<{ platform: string; kind: string; record: Record<string, unknown> }> {
  const r = mulberry32(seed);
  return Array.from({ length: n }, (_, i) => ({
    platform: PLATFORMS[i % 3],
    kind: i % 5 === 0 ? 'comment' : 'post',
    record: post({
      id: String(from + i),
      author: { id: `a${i % 7}`, username: `user${i % 7}`, display_name: null },
      // over ~6 weeks around a new year, some exactly at midnight, some undated
      labels:
        r() < 0.1
          ? null
          : {
              sponsored: { p: r() < 0.1 ? null : Math.round(r() * 1000) / 1000 },
              intent: { label: ['complaining', 'promoting', 'other', null][Math.floor(r() * 4)] },
            },
      published_at:
        r() < 0.05
          ? null
          : new Date(Date.UTC(2023, 11, 10) + (r() < 0.1 ? Math.floor(r() * 45) * DAY : Math.floor(r() * 45 * DAY))).toISOString(),
    }),
  }));
}

/** Items per day / Monday week counted in JS from the stored rows. */
function counted(
  a: Archive,
  q: { platforms?: string[]; kinds?: string[]; since?: number; until?: number },
  bucket: TimeBucket,
): Array<{ bucket: string; value: number }> {
  const m = new Map<string, number>();
  for (const r of testDb(a).prepare('SELECT platform, kind, published_at AS t FROM items').all() as Array<{
    platform: string;
    kind: string;
    t: number | null;
  }>) {
    if (r.t === null || (q.platforms && !q.platforms.includes(r.platform)) || (q.kinds && !q.kinds.includes(r.kind))) continue;
    if ((q.since !== undefined && r.t < q.since) || (q.until !== undefined && r.t >= q.until)) continue;
    let day = Math.floor(r.t / DAY);
    if (bucket === 'week') day -= (day + 3) % 7;
    const k = new Date(day * DAY).toISOString().slice(0, 10);
    m.set(k, (m.get(k) ?? 0) + 1);
  }
  return [...m].sort((x, y) => (x[0] < y[0] ? -1 : 1)).map(([bucket, value]) => ({ bucket, value }));
}

describe('volume over time from the daily counts', () => {
  let a: Archive;
  let index: AnalysisIndex;
  let asked: LibraryQuery[];
  beforeEach(() => {
    a = openArchive(':memory:');
    a.ingestItems(items(600, 1, 1), { callId: 'first', source: 'test' });
    index = new AnalysisIndex(a);
    // the index answers the archive's volume (its constructor sets dayCountsSource); count the questions
    const source = a.dayCountsSource!;
    asked = [];
    a.dayCountsSource = (q) => {
      asked.push(q);
      return source(q);
    };
  });
  afterEach(() => a.close());

  const check = (): void => {
    const t = (s: string): number => Date.parse(s);
    const cases: Array<[LibraryQuery, Parameters<typeof counted>[1]]> = [
      [{}, {}],
      [{ platforms: ['micro_net'] }, { platforms: ['micro_net'] }],
      [
        { platforms: ['photo_net', 'forum_net'], kinds: ['post'] },
        { platforms: ['photo_net', 'forum_net'], kinds: ['post'] },
      ],
      [
        { since: '2023-12-20', until: '2024-01-05' },
        { since: t('2023-12-20T00:00:00Z'), until: t('2024-01-06T00:00:00Z') },
      ],
      // not on a day boundary: the items answer
      [{ since: '2023-12-20T06:00:00Z' }, { since: t('2023-12-20T06:00:00Z') }],
    ];
    for (const [q, plain] of cases) {
      for (const bucket of ['day', 'week'] as const) {
        expect(a.volumeOverTime(q, bucket), `${JSON.stringify(q)} ${bucket}`).toEqual(counted(a, plain, bucket));
      }
    }
    // a query the summary cannot answer (an author) reads the items
    const mine = a.volumeOverTime({ author: 'user3' }, 'day');
    expect(mine.reduce((s, p) => s + p.value, 0)).toBe(a.count({ author: 'user3', since: '1900-01-01' }));
  };

  it('equals a count in JS, before and after new items and a moved post', () => {
    check();
    expect(asked.length).toBeGreaterThan(0);
    expect(index.dayRows({}, 'platform')).not.toBeNull();
    expect(index.current()).toBe(true);
    a.ingestItems(items(200, 10_000, 2), { callId: 'more', source: 'test' });
    const moved = items(1, 5, 1)[0];
    a.ingestItems([{ ...moved, record: { ...moved.record, published_at: '2024-01-01T00:00:00Z' } }], { callId: 'refetch', source: 'test' });
    check();
  });

  it('gives the same answer as the items', () => {
    const withSummary = ['day', 'week'].map((b) => a.volumeOverTime({ platforms: ['forum_net'] }, b as TimeBucket));
    const b = openArchive(':memory:');
    b.ingestItems(items(600, 1, 1), { callId: 'first', source: 'test' });
    expect(['day', 'week'].map((k) => b.volumeOverTime({ platforms: ['forum_net'] }, k as TimeBucket))).toEqual(withSummary);
    b.close();
  });
});

describe('label charts by week and month from the summary, one read per bucket', () => {
  it('equal the charts from the rows per day and from the items', () => {
    const a = openArchive(':memory:');
    a.ingestItems(items(900, 1, 3), { callId: 'first', source: 'test' });
    const index = new AnalysisIndex(a);
    expect(index.catchUp(Infinity)).toBe(true);
    let reads = 0;
    const perBucket: ChartRowsSource = {
      dayRows: (q, by, family, field) => index.dayRows(q, by, family, field),
      labelGroups: (q, family, field) => {
        reads++;
        return index.labelGroups(q, family, field);
      },
    };
    const perDay: ChartRowsSource = { dayRows: (q, by, family, field) => index.dayRows(q, by, family, field) };
    const queries: LibraryQuery[] = [
      {},
      { since: '2023-12-18' },
      { platforms: ['micro_net'], kinds: ['post'], until: '2024-01-07' },
      { since: '2023-12-31', until: '2023-12-31' },
    ];
    for (const query of queries) {
      for (const bucket of ['week', 'month'] as const) {
        const charts = (src?: ChartRowsSource) => [
          labelShareOverTime(a, { family: 'sponsored', field: 'p', bucket, query }, src),
          volumeBy(a, { by: 'label', family: 'intent', field: 'label', bucket, query, limit: 2 }, src),
          labelShareOverTime(a, { family: 'intent', field: 'label', bucket, query }, src),
        ];
        const got = charts(perBucket);
        expect(got, `${JSON.stringify(query)} ${bucket}`).toEqual(charts(perDay));
        expect(got, `${JSON.stringify(query)} ${bucket}`).toEqual(charts());
        for (const m of got[0].marks) expect(a.count(m.query)).toBe(m.value);
      }
    }
    expect(reads).toBeGreaterThan(0);
    a.close();
  });
});
