import { describe, it, expect, afterEach } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openArchive, type Archive } from './index';
import { post } from './test-fixtures';

/** Behaviour added for the 1M-item targets: cached totals, integer-day time buckets. */

const rows = (ids: number[], extra: (i: number) => Parameters<typeof post>[0] = (i) => ({ id: String(i) })) =>
  ids.map((i) => ({ platform: 'photo_net', kind: 'post', record: post(extra(i)) }));

describe('first-page totals', () => {
  const open: Archive[] = [];
  let dir: string | null = null;
  afterEach(() => {
    for (const a of open.splice(0)) a.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = null;
  });

  it('are reused for the same filters (any sort) and recomputed after any write on this connection', () => {
    const a = openArchive(':memory:', { clock: () => 1 });
    open.push(a);
    a.ingestItems(rows([1, 2, 3, 4, 5], (i) => ({ id: String(i), likes: i, text: i % 2 ? 'red apple' : 'green pear' })));
    const q = { text: 'apple', limit: 1 };
    const p1 = a.query(q);
    expect(p1.total).toBe(3);
    expect(a.query({ ...q, sort: { field: 'likes', dir: 'asc' } }).total).toBe(3);
    // later pages never count
    expect(a.query({ ...q, after: p1.next! }).total).toBeNull();

    a.ingestItems(rows([7], () => ({ id: '7', text: 'apple pie' })));
    expect(a.query(q).total).toBe(4);
    expect(a.count(q)).toBe(4);

    // annotations change filter results too
    a.addTag({ platform: 'photo_net', kind: 'post', id: '1' }, 'keep');
    expect(a.query({ tags: ['keep'] }).total).toBe(1);
    a.addTag({ platform: 'photo_net', kind: 'post', id: '3' }, 'keep');
    expect(a.query({ tags: ['keep'] }).total).toBe(2);
    expect(a.query({ labels: [{ family: 'intent', field: 'label', op: 'eq', value: 'complaining' }] }).total).toBe(0);
    a.overrideLabel({ platform: 'photo_net', kind: 'post', id: '2' }, 'intent', 'label', 'complaining');
    expect(a.query({ labels: [{ family: 'intent', field: 'label', op: 'eq', value: 'complaining' }] }).total).toBe(1);
  });

  it('are recomputed after a commit by another connection to the same file', () => {
    dir = mkdtempSync(join(tmpdir(), 'loupe-archive-'));
    const file = join(dir, 'loupe.db');
    const a = openArchive(file, { clock: () => 1 });
    const b = openArchive(file, { clock: () => 1 });
    open.push(a, b);
    a.ingestItems(rows([1, 2]));
    expect(a.query({}).total).toBe(2);
    expect(b.query({}).total).toBe(2);
    a.ingestItems(rows([3]));
    expect(b.query({}).total).toBe(3);
    expect(b.query({ limit: 1 }).rows).toHaveLength(1);
  });
});

describe('time buckets', () => {
  it('day and Monday-start week buckets match the UTC calendar, before 1970 too', () => {
    const a = openArchive(':memory:', { clock: () => 1 });
    const times = [
      '2024-01-07T23:59:59.999Z', // Sunday → week of Mon 2024-01-01
      '2024-01-08T00:00:00.000Z', // Monday
      '2024-01-14T12:00:00Z', // Sunday → week of 2024-01-08
      '1969-12-31T23:59:59.000Z', // Wednesday, negative ms → week of Mon 1969-12-29
      '1970-01-01T00:00:00.000Z', // Thursday, same week
    ];
    a.ingestItems(
      rows(
        times.map((_, i) => i + 1),
        (i) => ({ id: String(i), published_at: times[i - 1], likes: i * 10 }),
      ),
    );
    a.ingestItems(rows([99], () => ({ id: '99', published_at: null, likes: 5 })));
    expect(a.volumeOverTime({}, 'day')).toEqual([
      { bucket: '1969-12-31', value: 1 },
      { bucket: '1970-01-01', value: 1 },
      { bucket: '2024-01-07', value: 1 },
      { bucket: '2024-01-08', value: 1 },
      { bucket: '2024-01-14', value: 1 },
    ]);
    expect(a.volumeOverTime({}, 'week')).toEqual([
      { bucket: '1969-12-29', value: 2 },
      { bucket: '2024-01-01', value: 1 },
      { bucket: '2024-01-08', value: 2 },
    ]);
    expect(a.engagementOverTime({}, 'week', 'likes')).toEqual([
      { bucket: '1969-12-29', value: 90, known: 2, avg: 45 },
      { bucket: '2024-01-01', value: 10, known: 1, avg: 10 },
      { bucket: '2024-01-08', value: 50, known: 2, avg: 25 },
    ]);
    a.close();
  });
});

describe('chart results', () => {
  let dir: string | null = null;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = null;
  });

  it('are reused until this or another connection writes, and callers cannot corrupt the cached copy', () => {
    dir = mkdtempSync(join(tmpdir(), 'loupe-archive-'));
    const file = join(dir, 'loupe.db');
    const a = openArchive(file, { clock: () => 1 });
    const b = openArchive(file, { clock: () => 1 });
    try {
      const day = (i: number) => ({ id: String(i), published_at: '2024-05-01T10:00:00Z', labels: { intent: { label: 'complaining' } } });
      a.ingestItems(rows([1, 2], day));
      const v = b.volumeOverTime({}, 'day');
      expect(v).toEqual([{ bucket: '2024-05-01', value: 2 }]);
      v[0].value = 999; // mutating a result must not change the next answer
      expect(b.volumeOverTime({}, 'day')).toEqual([{ bucket: '2024-05-01', value: 2 }]);
      expect(b.labelDistribution({ platforms: ['photo_net'] }, 'intent', 'label').reduce((s, p) => s + p.value, 0)).toBe(2);
      a.ingestItems(rows([3], day)); // a commit by another connection
      expect(b.volumeOverTime({}, 'day')).toEqual([{ bucket: '2024-05-01', value: 3 }]);
      expect(b.volumeOverTime({ platforms: ['photo_net'] }, 'day')).toEqual([{ bucket: '2024-05-01', value: 3 }]);
      expect(b.labelDistribution({ platforms: ['photo_net'] }, 'intent', 'label').reduce((s, p) => s + p.value, 0)).toBe(3);
      b.ingestItems(rows([4], () => ({ id: '4', published_at: '2024-05-03T00:00:00Z' }))); // own write
      expect(b.volumeOverTime({}, 'day')).toEqual([
        { bucket: '2024-05-01', value: 3 },
        { bucket: '2024-05-03', value: 1 },
      ]);
    } finally {
      a.close();
      b.close();
    }
  });

  it('unfiltered daily counts match the grouped scan, also over a span too wide for per-day counting', () => {
    const a = openArchive(':memory:', { clock: () => 1 });
    const times = ['1900-01-01T00:00:00Z', '2024-05-01T00:00:00Z', '2024-05-01T23:59:59Z', '2099-12-31T12:00:00Z'];
    a.ingestItems(rows([1, 2, 3, 4], (i) => ({ id: String(i), published_at: times[i - 1] })));
    const expected = [
      { bucket: '1900-01-01', value: 1 },
      { bucket: '2024-05-01', value: 2 },
      { bucket: '2099-12-31', value: 1 },
    ];
    expect(a.volumeOverTime({}, 'day')).toEqual(expected);
    expect(a.volumeOverTime({ platforms: ['photo_net'] }, 'day')).toEqual(expected);
    a.close();
  });
});
