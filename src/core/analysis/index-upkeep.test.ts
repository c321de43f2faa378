/**
 * The analysis index's answers while items change during and after its build (issue 30): a build
 * from scratch holds its daily counts in memory across slices (daily-acc.ts) while its terms go
 * on, so items it has read may be re-fetched, relabelled, re-kinded or deleted before those counts
 * are written; a process may stop with them held. Each case ends with the index against naive
 * counts made straight from the items (test-index.ts): term totals, blobs, daily summary, top N.
 */
import { describe, expect, it } from 'vitest';
import { openArchive, type Archive } from '../archive';
import { testDb } from '../archive/testing';
import { AnalysisIndex, SYNC_BUDGET } from './analysis-index';
import { build, expectBlobsAsCounted, expectIndexAsCounted, items, rowsOf, state } from './test-index';

/** Label overrides on every `every`-th item from `start` (the daily summary's counts move). */
function relabel(a: Archive, start: number, every: number, value: string | null): void {
  const stored = rowsOf(a);
  for (let i = start; i < stored.length; i += every)
    a.overrideLabel({ platform: stored[i].platform, kind: stored[i].kind, id: String(stored[i].rid) }, 'intent', 'label', value);
}

/** Items edited in place, as a re-fetch with other values writes them (the index's triggers see the same update). */
const edit = (a: Archive, set: string, where: string): void => void testDb(a).exec(`UPDATE items SET ${set} WHERE ${where}`);

const del = (a: Archive, rids: number[]): void => {
  const st = testDb(a).prepare('DELETE FROM items WHERE rid = ?');
  for (const r of rids) st.run(r);
};

describe('analysis index upkeep', () => {
  it('counts a re-fetch once while the terms are counted again after an edit', () => {
    const a = openArchive(':memory:');
    try {
      a.ingestItems(items(300, 1, 5), { callId: 'first', source: 'test' });
      const index = new AnalysisIndex(a, { background: false });
      build(index);
      // an edited text: the terms are counted again, 100 items a slice
      edit(a, "text = coalesce(text, '') || ' zebra #edited'", 'rid IN (3, 250)');
      expect(index.buildSlice({ items: 100, authors: 100 }, 0)).toBe(true);
      expect(state(a, 'terms_upto')).toBe(100);
      // items the terms have not reached again are re-fetched with new counts
      edit(a, 'likes = coalesce(likes, 0) + 4000, views = 7', 'rid > 150');
      build(index);
      expect(index.current()).toBe(true);
      expectIndexAsCounted(a, index);
    } finally {
      a.close();
    }
  });

  it('a build from scratch holding its daily counts: relabelled, re-fetched, re-kinded and deleted items, the same build going on', () => {
    for (const change of ['labels', 'counts', 'kind', 'deleted', 'new']) {
      const a = openArchive(':memory:');
      try {
        a.ingestItems(items(600, 1, 11), { callId: 'first', source: 'test' });
        // few daily rows held at a time: some are written while the items are read
        const few = change === 'labels' || change === 'deleted';
        const index = new AnalysisIndex(a, { background: false, bulk: { min: 1, step: 60, daily: few ? 150 : undefined } });
        const size = { items: 100, authors: 100 };
        for (let k = 0; k < 3; k++) {
          index.buildSlice(size, 0);
          size.items = 100;
        }
        // the terms are ahead of the summary's watermark: its counts are held in memory
        expect(state(a, 'terms_bulk'), change).toBe(1);
        expect(state(a, 'terms_upto')).toBe(300);
        if (!few) expect(state(a, 'watermark')).toBe(0);
        if (change === 'labels') relabel(a, 5, 13, 'other');
        if (change === 'counts') edit(a, 'likes = coalesce(likes, 0) + 2000, views = NULL', 'rid BETWEEN 100 AND 450');
        if (change === 'kind') testDb(a).exec("UPDATE items SET kind = 'reply' WHERE rid % 17 = 3");
        if (change === 'deleted') del(a, [2, 40, 41, 250, 299, 300, 301, 450]);
        if (change === 'new') a.ingestItems(items(80, 9_000, 12), { callId: 'more', source: 'test' });
        build(index);
        expect(index.current(), change).toBe(true);
        expectIndexAsCounted(a, index);
        expectBlobsAsCounted(a);
      } finally {
        a.close();
      }
    }
  }, 60_000);

  it('a process stopped with daily counts held: the next one counts those items again, once', () => {
    const a = openArchive(':memory:');
    try {
      a.ingestItems(items(500, 1, 21), { callId: 'first', source: 'test' });
      relabel(a, 2, 31, 'promoting');
      const first = new AnalysisIndex(a, { background: false, bulk: { min: 1, step: 60 } });
      const size = { items: 100, authors: 100 };
      for (let k = 0; k < 4; k++) {
        first.buildSlice(size, 0);
        size.items = 100;
      }
      expect(state(a, 'watermark')).toBe(0);
      expect(state(a, 'terms_upto')).toBe(400);
      // its progress goes by the terms, not by the summary's watermark held back
      expect(first.backlog()).toBe(100 + SYNC_BUDGET + 1);
      // killed: its held counts are lost; the next build reads those items again for them
      const second = new AnalysisIndex(a, { background: false, bulk: { min: 1, step: 60 } });
      relabel(a, 7, 29, null);
      build(second);
      expect(second.current()).toBe(true);
      expectIndexAsCounted(a, second);
      expectBlobsAsCounted(a);
      // the first, started again on the same connection, finds nothing to add
      build(first);
      expectIndexAsCounted(a, first);
    } finally {
      a.close();
    }
  });

  it('an index built, then items deleted and re-kinded: counted again, exact', () => {
    const a = openArchive(':memory:');
    try {
      a.ingestItems(items(400, 1, 31), { callId: 'first', source: 'test' });
      const index = new AnalysisIndex(a, { background: false });
      build(index);
      del(a, [1, 17, 200, 399]);
      testDb(a).exec("UPDATE items SET kind = 'reply' WHERE rid % 11 = 5");
      build(index);
      expect(index.current()).toBe(true);
      expectIndexAsCounted(a, index);
      expectBlobsAsCounted(a);
    } finally {
      a.close();
    }
  });

  it("replaces an older archive's change trigger", () => {
    const a = openArchive(':memory:');
    try {
      a.ingestItems(items(50, 1, 41), { callId: 'first', source: 'test' });
      const index = new AnalysisIndex(a, { background: false });
      build(index);
      const db = testDb(a);
      // as Loupe made it before: only up to the summary's watermark, not the network or kind
      db.exec(`DROP TRIGGER an_items_changed; CREATE TRIGGER an_items_changed AFTER UPDATE OF text ON items
        WHEN old.rid <= (SELECT v FROM an_state WHERE k = 'watermark') BEGIN SELECT 1; END`);
      const again = new AnalysisIndex(a, { background: false });
      build(again);
      const sql = (db.prepare("SELECT sql FROM sqlite_master WHERE name = 'an_items_changed'").get() as { sql: string }).sql;
      expect(sql).toContain('terms_upto');
      expect(sql).toContain('old.kind IS NOT new.kind');
    } finally {
      a.close();
    }
  });
});
