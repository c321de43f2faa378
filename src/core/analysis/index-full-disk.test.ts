/**
 * A read on a full disk (`loupe analyze top` on a disk with a few KiB free): the index's upkeep
 * cannot be written, so the read answers from the items — the same rows as the items' own count —
 * instead of failing with the storage sentence; the index is left consistent (each step a
 * transaction) and, once there is room again, catches up to the naive counts. The full disk is
 * SQLite's own SQLITE_FULL, made by `max_page_count` a few pages above what the archive holds.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openArchive } from '../archive';
import { testDb } from '../archive/testing';
import { AnalysisIndex } from './analysis-index';
import { UPKEEP_RETRY_MS } from './upkeep-gate';
import { frequencyTable } from './frequency';
import { build, expectIndexAsCounted, items } from './test-index';
import { FREQUENCY_FIELDS } from '../../shared/analysis';

afterEach(() => {
  vi.useRealTimers();
});

describe('analysis index on a full disk', () => {
  it('a read answers as the items do, the index stays consistent, and catches up once there is room', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    fc.assert(
      fc.property(
        fc.record({
          seed: fc.integer({ min: 1, max: 1_000_000 }),
          first: fc.integer({ min: 0, max: 60 }),
          more: fc.integer({ min: 1, max: 60 }),
          // pages the disk still has room for: none, or part of what the upkeep writes
          room: fc.integer({ min: 0, max: 12 }),
          fields: fc.subarray([...FREQUENCY_FIELDS], { minLength: 1, maxLength: 3 }),
          text: fc.constantFrom(undefined, 'coffee', 'kettle OR zebra'),
        }),
        ({ seed, first, more, room, fields, text }) => {
          const a = openArchive(':memory:');
          try {
            a.ingestItems(items(first, 1, seed), { callId: 'first', source: 'test' });
            const index = new AnalysisIndex(a, { background: false });
            if (first > 0) build(index);
            a.ingestItems(items(more, first + 1, seed + 1), { callId: 'more', source: 'test' });
            const db = testDb(a);
            db.pragma(`max_page_count = ${(db.pragma('page_count', { simple: true }) as number) + room}`);
            const query = text === undefined ? {} : { text };
            for (const field of fields) {
              const input = { query, field, limit: 25, sort: 'count' as const };
              const got = frequencyTable(a, input, index);
              const want = frequencyTable(a, input);
              expect({ items: got.items, rows: got.rows }).toEqual({ items: want.items, rows: want.rows });
            }
            expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
            // room again: after the wait, the next read brings the index up to date
            db.pragma('max_page_count = 4294967294');
            vi.setSystemTime(Date.now() + UPKEEP_RETRY_MS + 1);
            build(index);
            expect(index.current()).toBe(true);
            expectIndexAsCounted(a, index);
          } finally {
            a.close();
          }
        },
      ),
      { numRuns: 6 },
    );
  });

  it('a failure that is not a full or read-only disk still stops the read', () => {
    const a = openArchive(':memory:');
    try {
      a.ingestItems(items(40, 1, 7), { callId: 'first', source: 'test' });
      const index = new AnalysisIndex(a, { background: false });
      // the index's tables made, then damaged where the upkeep writes: a trigger that fails
      build(index);
      a.ingestItems(items(10, 41, 8), { callId: 'more', source: 'test' });
      testDb(a).exec("CREATE TRIGGER boom BEFORE INSERT ON an_item_terms BEGIN SELECT RAISE(ABORT, 'boom'); END");
      expect(() => frequencyTable(a, { query: {}, field: 'hashtags', limit: 5, sort: 'count' }, index)).toThrow(/boom/);
    } finally {
      a.close();
    }
  });
});
