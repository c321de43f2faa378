import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { openArchive, type Archive } from './archive';
import { latestVersion } from './db';
import type { Reading } from './readings';
import { listResponse, post, UNDO_0013 } from './test-fixtures';
import { testDb } from './testing';

type C = number | null;
type Answer = { at: number; id: string; counts: [C, C, C, C, C] };
const REF = (id: string) => ({ platform: 'photo_net', kind: 'post', id });

function store(a: Archive, n: number | string, ans: Answer, username = 'alice'): void {
  const [views, likes, comments, shares, saves] = ans.counts;
  a.storeResponse(
    listResponse(
      `c${n}`,
      'photo_net',
      'profile/posts',
      [post({ id: ans.id, views, likes, comments, shares, saves, author: { id: username, username } })],
      { fetchedAt: ans.at },
    ),
    'test',
    null,
  );
}

/** The model: merged counts (a null never erases a known count), a reading when they change, dated when first read. */
function model(answers: Answer[]): Map<string, Reading[]> {
  const out = new Map<string, Reading[]>();
  for (const a of answers) {
    const list = out.get(a.id) ?? [];
    const last = list[list.length - 1];
    const prev: C[] = last ? [last.views, last.likes, last.comments, last.shares, last.saves] : [null, null, null, null, null];
    const next = a.counts.map((v, i) => v ?? prev[i]) as [C, C, C, C, C];
    if (!last || next.some((v, i) => v !== prev[i])) {
      const at = last && a.at <= last.readAt ? last.readAt + 1 : a.at;
      list.push({ readAt: at, views: next[0], likes: next[1], comments: next[2], shares: next[3], saves: next[4] });
    }
    out.set(a.id, list);
  }
  return out;
}

const count = fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 4 }));
const answers = fc.array(
  fc.record({
    dt: fc.integer({ min: 0, max: 3 }),
    id: fc.constantFrom('1', '2', '3'),
    counts: fc.tuple(count, count, count, count, count),
  }),
  { minLength: 1, maxLength: 25 },
);

describe('metric history', () => {
  it('keeps a reading whenever the merged counts change, dated when first read (generated answers)', () => {
    const a = openArchive(':memory:');
    let run = 0;
    try {
      fc.assert(
        fc.property(answers, (steps) => {
          const r = `r${run++}`;
          let t = 1_000;
          const seq: Answer[] = steps.map((s) => ({ at: (t += s.dt), id: `${r}-${s.id}`, counts: s.counts }));
          seq.forEach((ans, n) => store(a, `${r}-${n}`, ans, r));
          const want = model(seq);
          for (const [id, readings] of want) expect(a.datasets.history(REF(id))).toEqual(readings);
          // the long format of the run's items: every item's readings, in archive order
          const rows = [...a.datasets.historyRows({ author: r })];
          expect(rows.length).toBe([...want.values()].reduce((n, x) => n + x.length, 0));
          for (const [id, readings] of want)
            expect(rows.filter((x) => x.id === id).map(({ platform: _p, kind: _k, id: _i, ...x }) => x)).toEqual(readings);
        }),
        { numRuns: 150 },
      );
    } finally {
      a.close();
    }
  });

  it('costs no reading row for an item read once, one for a change', () => {
    const a = openArchive(':memory:');
    store(a, 0, { at: 10, id: '1', counts: [null, 5, 1, null, null] });
    store(a, 1, { at: 20, id: '1', counts: [null, 5, 1, null, null] });
    expect(testDb(a).prepare('SELECT count(*) FROM item_readings').pluck().get()).toBe(0);
    store(a, 2, { at: 30, id: '1', counts: [null, 7, null, null, null] });
    expect(testDb(a).prepare('SELECT count(*) FROM item_readings').pluck().get()).toBe(1);
    expect(a.datasets.history(REF('1')).map((r) => [r.readAt, r.likes, r.comments])).toEqual([
      [10, 5, 1],
      [30, 7, 1],
    ]);
    a.close();
  });

  it('merges readings from elsewhere: older ones added once, repeats dropped', () => {
    const a = openArchive(':memory:');
    store(a, 0, { at: 100, id: '1', counts: [null, 9, 2, null, null] });
    const r = (readAt: number, likes: number, comments = 2): Reading => ({
      readAt,
      views: null,
      likes,
      comments,
      shares: null,
      saves: null,
    });
    expect(a.datasets.mergeReadings(REF('1'), [r(10, 3), r(50, 9), r(200, 12)])).toBe(2);
    // 50 carries the current counts: they were first read then
    expect(a.datasets.history(REF('1')).map((x) => [x.readAt, x.likes])).toEqual([
      [10, 3],
      [50, 9],
    ]);
    expect(a.datasets.mergeReadings(REF('1'), [r(10, 3)])).toBe(0);
    a.close();
  });
});

describe('migration 0013 on an older archive', () => {
  const dir = mkdtempSync(join(tmpdir(), 'loupe-readings-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the history of items read more than once from their stored answers', () => {
    const file = join(dir, 'old.db');
    let a = openArchive(file);
    const seq: Answer[] = [
      { at: 1_000, id: '1', counts: [null, 1, 0, null, null] },
      { at: 2_000, id: '2', counts: [null, 4, null, null, null] },
      { at: 3_000, id: '1', counts: [null, 3, null, null, null] },
      { at: 4_000, id: '1', counts: [null, 3, 2, null, null] },
      { at: 5_000, id: '1', counts: [null, 3, 2, null, null] },
      { at: 6_000, id: '3', counts: [null, 1, 1, null, null] },
    ];
    seq.forEach((ans, n) => store(a, n, ans));
    const live = ['1', '2', '3'].map((id) => a.datasets.history(REF(id)));
    // back to schema 12: what 0013 added removed again
    testDb(a).exec(UNDO_0013);
    a.close();
    a = openArchive(file);
    expect(testDb(a).pragma('user_version', { simple: true })).toBe(latestVersion());
    expect(['1', '2', '3'].map((id) => a.datasets.history(REF(id)))).toEqual(live);
    a.close();
  });
});
