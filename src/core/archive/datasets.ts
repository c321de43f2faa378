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
import * as bundle from './bundle-rows';
import {
  attrition,
  attritionMarks,
  lastAttempt,
  markChecked,
  mergeMarksInto,
  recheckRows,
  type AttritionRow,
  type LastAttempt,
  type Marks,
  type RecheckRow,
} from './attrition';
import { listAt } from '../../shared/maps';

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
   * Adds readings from elsewhere to many items at once (a bundle's history), in one transaction;
   * items this archive does not hold are skipped. Returns how many readings were new.
   */
  mergeReadingsOf(items: ReadonlyArray<{ ref: ItemRef; readings: Reading[] }>): number {
    return this.mergeHeld(items, (rid, { readings }) => mergeReadings(this.c, rid, readings));
  }

  /** `merge` of each of `items` this archive holds (by its rid), in one transaction; the sum of what each returned. */
  private mergeHeld<T extends { ref: ItemRef }>(items: readonly T[], merge: (rid: number, item: T) => number): number {
    return this.c.guard('write', () =>
      this.c.tx(() => {
        const held = bundle.heldItems(
          this.c,
          items.map((i) => i.ref),
        );
        let n = 0;
        for (const item of items) {
          const rid = held.get(`${item.ref.platform}/${item.ref.kind}/${item.ref.id}`);
          if (rid !== undefined) n += merge(rid, item);
        }
        return n;
      }),
    );
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
      type Raw = [
        string,
        string,
        string,
        number | null,
        number | null,
        number | null,
        number | null,
        number | null,
        number | null,
        number,
        number | null,
        number | null,
        number | null,
        number | null,
        number | null,
        number,
      ];
      let cur: Raw | null = null;
      const current = (r: Raw): HistoryRow => ({
        platform: r[0],
        kind: r[1],
        id: r[2],
        readAt: r[9],
        views: r[10],
        likes: r[11],
        comments: r[12],
        shares: r[13],
        saves: r[14],
      });
      for (const r of st.raw(true).iterate(...w.params) as IterableIterator<Raw>) {
        if (cur !== null && cur[15] !== r[15]) yield current(cur);
        cur = r;
        if (r[3] !== null)
          yield { platform: r[0], kind: r[1], id: r[2], readAt: r[3], views: r[4], likes: r[5], comments: r[6], shares: r[7], saves: r[8] };
      }
      if (cur !== null) yield current(cur);
    } finally {
      reader.close();
    }
  }

  /**
   * One account's dated posts (one platform and record kind) in publication order, then archive
   * order, each with its readings oldest first (overperformance "at the same age"). By author id, or
   * by username (case-insensitive) among posts without one — as compare-rows.ts accountHistory.
   */
  accountReadings(authorId: string | null, username: string | null, platform: string, kind: string): AccountPost[] {
    const c = this.c;
    return c.guard('read', () => {
      type Row = {
        rid: number;
        published_at: number;
        at: number;
        changed: number;
        views: number | null;
        likes: number | null;
        comments: number | null;
        shares: number | null;
        saves: number | null;
      };
      const cols =
        'i.rid, i.published_at, COALESCE(i.counts_at, i.first_seen_at) AS at, i.counts_at IS NOT NULL AS changed, i.views, i.likes, i.comments, i.shares, i.saves';
      const posts = (
        authorId !== null
          ? c
              .st(
                `SELECT ${cols} FROM items i WHERE i.author_id = ? AND i.platform = ? AND i.kind = ? AND i.published_at IS NOT NULL ORDER BY i.published_at, i.rid`,
              )
              .all(authorId, platform, kind)
          : c
              .st(
                `SELECT ${cols} FROM items i WHERE i.author_id IS NULL AND i.author_username = ? COLLATE NOCASE AND i.platform = ? AND i.kind = ? AND i.published_at IS NOT NULL ORDER BY i.published_at, i.rid`,
              )
              .all(username, platform, kind)
      ) as Row[];
      const past = new Map<number, Reading[]>();
      const changed = posts.filter((p) => p.changed).map((p) => p.rid);
      if (changed.length > 0) {
        const rows = c
          .st(
            `SELECT item_rid AS rid, read_at, views, likes, comments, shares, saves FROM item_readings WHERE item_rid IN (SELECT value FROM json_each(?)) ORDER BY item_rid, read_at`,
          )
          .all(JSON.stringify(changed)) as Array<Row & { read_at: number }>;
        for (const r of rows)
          listAt(past, r.rid).push({
            readAt: r.read_at,
            views: r.views,
            likes: r.likes,
            comments: r.comments,
            shares: r.shares,
            saves: r.saves,
          });
      }
      return posts.map((p) => ({
        rid: p.rid,
        publishedAt: p.published_at,
        readings: [
          ...(past.get(p.rid) ?? []),
          { readAt: p.at, views: p.views, likes: p.likes, comments: p.comments, shares: p.shares, saves: p.saves },
        ],
      }));
    });
  }

  /** The items a query matches, with their addresses: what a re-check reads (attrition.ts). */
  recheckRows(input: LibraryQuery): RecheckRow[] {
    return this.c.guard('read', () => recheckRows(this.c, input));
  }

  /** A re-check's answer for one item: found, or not found (never deleted); false when not archived. */
  markChecked(ref: ItemRef, at: number, missing: boolean): boolean {
    return this.c.guard('write', () => markChecked(this.c, ref, at, missing));
  }

  /** Available / unavailable / not re-checked, by network and publication month. */
  attrition(input: LibraryQuery): AttritionRow[] {
    return this.c.guard('read', () => attrition(this.c, input));
  }
  /** The attrition table and the latest re-check mark of the same items (ms; null: none), one pass. */
  attritionMarks(input: LibraryQuery): { rows: AttritionRow[]; latestMark: number | null } {
    return this.c.guard('read', () => attritionMarks(this.c, input));
  }

  /** The ledger's last attempt of one exact call made for `source`. */
  lastAttempt(source: string, platform: string, endpoint: string, paramsHash: string): LastAttempt | undefined {
    return this.c.guard('read', () => lastAttempt(this.c, source, platform, endpoint, paramsHash));
  }

  /** A bundle's calls (oldest first, each with its stored answer) and items (with their calls): bundle-rows.ts. */
  bundleCalls(input: LibraryQuery): IterableIterator<bundle.BundleCall> {
    return bundle.bundleCalls(this.c, input);
  }
  bundleItems(input: LibraryQuery): IterableIterator<ItemRef & { calls: string[]; url: string | null }> {
    return bundle.bundleItems(this.c, input);
  }
  /** rids of the refs this archive holds, by `platform/kind/id` (one query per thousand refs). */
  heldItems(refs: readonly ItemRef[]): Map<string, number> {
    return this.c.guard('read', () => bundle.heldItems(this.c, refs));
  }
  /** The refs this archive does not hold. */
  missingItems(refs: readonly ItemRef[]): ItemRef[] {
    const held = this.heldItems(refs);
    return refs.filter((r) => !held.has(`${r.platform}/${r.kind}/${r.id}`));
  }
  /**
   * A bundle's re-check marks merged into the items this archive holds (attrition.ts mergeMarks), in
   * one transaction; the others skipped. Returns how many items' marks changed.
   */
  mergeMarksOf(items: ReadonlyArray<{ ref: ItemRef; marks: Marks }>): number {
    return this.mergeHeld(items, (rid, { marks }) => (mergeMarksInto(this.c, rid, marks) ? 1 : 0));
  }
  /** The re-check marks [checked_at, missing_since] of the refs this archive holds, by key. */
  marksOf(refs: readonly ItemRef[]): Map<string, [number | null, number | null]> {
    return this.c.guard('read', () => bundle.marksOf(this.c, refs));
  }
  storedAnswer(callId: string): string | null {
    return this.c.guard('read', () => bundle.storedAnswer(this.c, callId));
  }
  hasResponse(callId: string): boolean {
    return this.c.guard('read', () => bundle.hasResponse(this.c, callId));
  }
  recordImportedCall(bundleId: string, call: Omit<bundle.BundleCall, 'answer'> & { answerSha256: string | null }, at: number): void {
    this.c.guard('write', () => bundle.recordImportedCall(this.c, bundleId, call, at));
  }
  importAnnotation(a: bundle.BundleAnnotation): 'added' | 'same' | 'conflict' | 'no_item' {
    return this.c.guard('write', () => this.c.tx(() => bundle.importAnnotation(this.c, a)));
  }

  /** The history of explicit items (in the given order; unknown refs skipped). */
  *historyRowsFor(refs: ItemRef[]): IterableIterator<HistoryRow> {
    for (const ref of refs) for (const r of this.history(ref)) yield { platform: ref.platform, kind: ref.kind, id: ref.id, ...r };
  }

  /**
   * Every annotation of the items a query matches, with its author and time: platform, kind, id,
   * type (tag | note | override), name (the tag, `note`, `family.field`), value (the note's text,
   * the override's value; null for a tag), author, at. Streamed from a read-only connection.
   */
  *annotationRows(input: LibraryQuery): IterableIterator<AnnotationRow> {
    const w = buildWhere(parseQuery(input));
    const where = and(w.clauses);
    yield* this.annotationsWhere(where, [...w.params, ...w.params, ...w.params]);
  }

  /** The annotations of explicit items. */
  *annotationRowsFor(refs: ItemRef[]): IterableIterator<AnnotationRow> {
    if (refs.length === 0) return;
    const keys = JSON.stringify(refs.map((r) => [r.platform, r.kind, r.id]));
    const where = `i.rid IN (SELECT x.rid FROM json_each(?) j JOIN items x ON x.platform = j.value ->> 0 AND x.kind = j.value ->> 1 AND x.id = j.value ->> 2)`;
    yield* this.annotationsWhere(where, [keys, keys, keys]);
  }

  private *annotationsWhere(where: string, params: unknown[]): IterableIterator<AnnotationRow> {
    const reader = openReader(this.c);
    try {
      const st = reader.db.prepare(
        // CROSS JOIN: the annotations drive (few rows), each item looked up by rid; left to the
        // planner, notes and overrides were joined by scanning every item (1.3 s at 200k with none)
        `SELECT i.platform, i.kind, i.id, 'tag', t.name, NULL, it.author, it.at, i.rid
           FROM item_tags it JOIN tags t ON t.tag_id = it.tag_id CROSS JOIN items i ON i.rid = it.item_rid WHERE ${where}
         UNION ALL
         SELECT i.platform, i.kind, i.id, 'note', 'note', json_quote(n.text), n.author, n.updated_at, i.rid
           FROM notes n CROSS JOIN items i ON i.rid = n.item_rid WHERE ${where}
         UNION ALL
         SELECT i.platform, i.kind, i.id, 'override', o.family || '.' || o.field, o.value, o.author, o.at, i.rid
           FROM label_overrides o CROSS JOIN items i ON i.rid = o.item_rid WHERE ${where}
         ORDER BY 9, 4, 5`,
      );
      type Raw = [string, string, string, AnnotationRow['type'], string, string | null, string | null, number, number];
      for (const r of st.raw(true).iterate(...params) as IterableIterator<Raw>)
        yield {
          platform: r[0],
          kind: r[1],
          id: r[2],
          type: r[3],
          name: r[4],
          value: r[5] === null ? null : (JSON.parse(r[5]) as unknown),
          author: r[6],
          at: r[7],
        };
    } finally {
      reader.close();
    }
  }
}

/** One annotation of an export (docs/export.md "History and annotations"). */
export interface AnnotationRow {
  platform: string;
  kind: string;
  id: string;
  type: 'tag' | 'note' | 'override';
  name: string;
  value: unknown;
  author: string | null;
  at: number;
}

/** A post of one account with its readings (accountReadings). */
export interface AccountPost {
  rid: number;
  publishedAt: number;
  readings: Reading[];
}
