/**
 * Metric history (issue 29, migration 0013): every time an item arrives its five engagement
 * counts are kept with the time they were read, when they differ from the last reading.
 *
 * Storage: the latest reading is the item's own row (`views … saves`, read at
 * `COALESCE(counts_at, first_seen_at)`); `item_readings` holds every earlier one. An item read
 * once — the bulk of any ingest — therefore costs no extra row; a re-read whose counts changed
 * moves the item's previous counts into `item_readings` (one insert) and dates the new ones.
 * Counts are compared after the merge (nulls never erase known values, extract.ts mergeRecord),
 * so a reading is what the archive knew at that time.
 *
 * Order: readings are kept in time order. An answer whose time is not after the latest reading
 * (two processes storing answers at nearly the same moment; an import of older answers goes
 * through `mergeReadings` instead) keeps both values, the newer one dated 1 ms after the older.
 * See docs/archive.md "Metric history".
 */
import type { ItemRef } from '../ports';
import type { ArchiveCtx } from './context';
import { sql } from './sql';

export const COUNT_FIELDS = ['views', 'likes', 'comments', 'shares', 'saves'] as const;
export type CountField = (typeof COUNT_FIELDS)[number];
/** views, likes, comments, shares, saves (null = not provided) */
export type Counts = [number | null, number | null, number | null, number | null, number | null];

export interface Reading {
  /** ms since epoch */
  readAt: number;
  views: number | null;
  likes: number | null;
  comments: number | null;
  shares: number | null;
  saves: number | null;
}

export function countsOf(x: {
  views: number | null;
  likes: number | null;
  comments: number | null;
  shares: number | null;
  saves: number | null;
}): Counts {
  return [x.views, x.likes, x.comments, x.shares, x.saves];
}

export function sameCounts(a: Counts, b: Counts): boolean {
  return a[0] === b[0] && a[1] === b[1] && a[2] === b[2] && a[3] === b[3] && a[4] === b[4];
}

/** What the merge of a known item writes into `counts_at`. */
export interface OldCounts {
  rid: number;
  counts: Counts;
  /** when the current counts were first read: COALESCE(counts_at, first_seen_at) */
  at: number;
  /** the stored counts_at (null: first_seen_at) */
  countsAt: number | null;
}

/**
 * The merge of a known item read at `seenAt` with counts `next`: when they differ from the
 * item's current counts, the current ones become a reading (item_readings) and the new
 * `counts_at` is returned; otherwise the stored `counts_at` is returned unchanged.
 */
export function countsAtAfterMerge(c: ArchiveCtx, old: OldCounts, next: Counts, seenAt: number): number | null {
  if (sameCounts(old.counts, next)) return old.countsAt;
  const [views, likes, comments, shares, saves] = old.counts;
  c.sql.insert`item_readings ON CONFLICT (item_rid, read_at) DO UPDATE SET views = excluded.views, likes = excluded.likes,
    comments = excluded.comments, shares = excluded.shares, saves = excluded.saves`({
    item_rid: old.rid,
    read_at: old.at,
    views,
    likes,
    comments,
    shares,
    saves,
  });
  return seenAt > old.at ? seenAt : old.at + 1;
}

const toReading = (r: {
  read_at: number;
  views: number | null;
  likes: number | null;
  comments: number | null;
  shares: number | null;
  saves: number | null;
}): Reading => ({
  readAt: r.read_at,
  views: r.views,
  likes: r.likes,
  comments: r.comments,
  shares: r.shares,
  saves: r.saves,
});

/** An item's readings, oldest first (the last one is its current counts); [] when not archived. */
export function itemHistory(c: ArchiveCtx, ref: ItemRef): Reading[] {
  const it = c.sql.get<{
    rid: number;
    at: number;
    views: number | null;
    likes: number | null;
    comments: number | null;
    shares: number | null;
    saves: number | null;
  }>(
    sql`SELECT rid, COALESCE(counts_at, first_seen_at) AS at, views, likes, comments, shares, saves FROM items
        WHERE platform = ${ref.platform} AND kind = ${ref.kind} AND id = ${ref.id}`,
  );
  if (!it) return [];
  const past = c.sql.all<{
    read_at: number;
    views: number | null;
    likes: number | null;
    comments: number | null;
    shares: number | null;
    saves: number | null;
  }>(sql`SELECT read_at, views, likes, comments, shares, saves FROM item_readings WHERE item_rid = ${it.rid} ORDER BY read_at`);
  return [...past.map(toReading), toReading({ ...it, read_at: it.at })];
}

/**
 * Merges readings from elsewhere (a bundle's metric history) into an item's history: each reading
 * older than the item's current counts and not already held at that time is added (the item's
 * own row, its latest reading, is the upsert's business). Repeats of the same counts next to each
 * other are dropped, as at ingest. Returns how many readings were added.
 */
export function mergeReadings(c: ArchiveCtx, rid: number, readings: Reading[]): number {
  if (readings.length === 0) return 0;
  const it = c.sql.get<{
    at: number;
    views: number | null;
    likes: number | null;
    comments: number | null;
    shares: number | null;
    saves: number | null;
  }>(sql`SELECT COALESCE(counts_at, first_seen_at) AS at, views, likes, comments, shares, saves FROM items WHERE rid = ${rid}`);
  if (!it) return 0;
  const held = new Map<number, Counts>();
  for (const r of c.sql.all<{
    read_at: number;
    views: number | null;
    likes: number | null;
    comments: number | null;
    shares: number | null;
    saves: number | null;
  }>(sql`SELECT read_at, views, likes, comments, shares, saves FROM item_readings WHERE item_rid = ${rid}`))
    held.set(r.read_at, countsOf(r));
  let added = 0;
  for (const r of readings) {
    if (r.readAt >= it.at || held.has(r.readAt)) continue;
    held.set(r.readAt, countsOf(r));
    added++;
  }
  if (added === 0) return 0;
  held.set(it.at, countsOf(it));
  const series = [...held.entries()].sort((a, b) => a[0] - b[0]).filter((e, i, all) => i === 0 || !sameCounts(e[1], all[i - 1][1]));
  // the current counts were already read at the last entry's time when an added reading equals them
  const currentAt = series[series.length - 1][0];
  c.sql.run(sql`DELETE FROM item_readings WHERE item_rid = ${rid}`);
  for (const [at, [views, likes, comments, shares, saves]] of series.slice(0, -1))
    c.sql.insert`item_readings`({ item_rid: rid, read_at: at, views, likes, comments, shares, saves });
  // counts_at is set whenever item_readings holds a row of the item (growth-sql.ts relies on it)
  c.sql.run(sql`UPDATE items SET counts_at = ${currentAt} WHERE rid = ${rid}`);
  return added;
}

/** One row of a long-format metric history export. */
export interface HistoryRow {
  platform: string;
  kind: string;
  id: string;
  readAt: number;
  views: number | null;
  likes: number | null;
  comments: number | null;
  shares: number | null;
  saves: number | null;
}
