/**
 * The archive's dataset tables (issue 29, migration 0013), on the archive's connection:
 * metric history (readings.ts), availability after re-checks, imported provenance.
 * `archive.datasets` (archive.ts) is one of these; docs/datasets.md.
 */
import type { LibraryQuery } from '../../shared/query';
import type { ItemRef } from '../ports';
import type { ArchiveCtx } from './context';
import { openReader } from './export-rows';
import { needRid } from './library';
import { itemHistory, mergeReadings, type HistoryRow, type Reading } from './readings';
import { buildWhere, parseQuery } from './sql-query';
import { and } from './sql';

export class DatasetStore {
  constructor(private readonly c: ArchiveCtx) {}

  /** An item's readings, oldest first (the last is its current counts); [] when not archived. */
  history(ref: ItemRef): Reading[] {
    return this.c.guard('read', () => itemHistory(this.c, ref));
  }

  /** Adds readings from elsewhere (older than the item's current counts); returns how many were new. */
  mergeReadings(ref: ItemRef, readings: Reading[]): number {
    return this.c.guard('write', () => this.c.tx(() => mergeReadings(this.c, needRid(this.c, ref), readings)));
  }

  /**
   * The long-format metric history of every item a query matches: per item (in archive order) its
   * readings oldest first, the last one its current counts. Streamed from a read-only connection of
   * its own, like export rows.
   */
  *historyRows(input: LibraryQuery): IterableIterator<HistoryRow> {
    const q = parseQuery(input);
    const w = buildWhere(q);
    const reader = openReader(this.c);
    try {
      // an item's past readings (only items whose counts changed have any), then its current counts
      const st = reader.db.prepare(
        `SELECT i.platform, i.kind, i.id, r.read_at, r.views, r.likes, r.comments, r.shares, r.saves,
                COALESCE(i.counts_at, i.first_seen_at), i.views, i.likes, i.comments, i.shares, i.saves, i.rid
           FROM items i LEFT JOIN item_readings r ON i.counts_at IS NOT NULL AND r.item_rid = i.rid
          WHERE ${and(w.clauses)} ORDER BY i.rid, r.read_at`,
      );
      type Raw = [string, string, string, number | null, number | null, number | null, number | null, number | null, number | null, number, number | null, number | null, number | null, number | null, number | null, number];
      let cur: Raw | null = null;
      const current = (r: Raw): HistoryRow => ({ platform: r[0], kind: r[1], id: r[2], readAt: r[9], views: r[10], likes: r[11], comments: r[12], shares: r[13], saves: r[14] });
      for (const r of st.raw(true).iterate(...w.params) as IterableIterator<Raw>) {
        if (cur !== null && cur[15] !== r[15]) yield current(cur);
        cur = r;
        if (r[3] !== null) yield { platform: r[0], kind: r[1], id: r[2], readAt: r[3], views: r[4], likes: r[5], comments: r[6], shares: r[7], saves: r[8] };
      }
      if (cur !== null) yield current(cur);
    } finally {
      reader.close();
    }
  }
}
