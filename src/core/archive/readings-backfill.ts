/**
 * The metric history of items archived before migration 0013 (readings.ts). An item read once
 * needs nothing: its only reading is its row, read at first_seen_at. An item read more than once
 * gets its readings from the stored answers that returned it (provenance → responses, each answer
 * parsed once per batch of items): the counts each answer gave, folded in time order as the upsert
 * merges them (a null never erases a known count), repeats dropped. When the fold ends on the
 * item's current counts, the last change is when they were first read (counts_at) and the others
 * are past readings; when it does not (answers not kept: bulk loads), every folded reading is a
 * past one and the current counts are dated at last_seen_at, the one time they are known to hold.
 */
import type { Db } from './connection';
import { extractColumns, readItems, type Json } from './extract';
import type { MigrationReport } from './migrations/types';
import { countsOf, sameCounts, type Counts } from './readings';
import { sql, Statements } from './sql';
import { present } from '../../shared/maps';

const BATCH = 2_000;

interface Item {
  rid: number;
  kind: string;
  id: string;
  counts: Counts;
  last_seen_at: number;
}

function fold(seen: Array<{ at: number; counts: Counts }>): Array<{ at: number; counts: Counts }> {
  seen.sort((a, b) => a.at - b.at);
  const out: Array<{ at: number; counts: Counts }> = [];
  let cur: Counts | null = null;
  for (const s of seen) {
    const prev = cur;
    const next = (prev ? s.counts.map((v, i) => v ?? prev[i]) : [...s.counts]) as Counts;
    if (cur && sameCounts(cur, next)) continue;
    const last = out[out.length - 1];
    if (last && last.at === s.at)
      last.counts = next; // two answers at the same ms: the later one stands
    else out.push({ at: s.at, counts: next });
    cur = next;
  }
  return out;
}

/** Runs inside the migration's transaction. */
export function backfillReadings(db: Db, progress?: MigrationReport): void {
  const s = new Statements(db);
  const total = s.value<number>(sql`SELECT count(*) FROM items WHERE seen_count > 1`) ?? 0;
  if (total === 0) return;
  const items = (after: number) =>
    s.all<
      Omit<Item, 'counts'> & {
        views: number | null;
        likes: number | null;
        comments: number | null;
        shares: number | null;
        saves: number | null;
      }
    >(
      sql`SELECT rid, kind, id, views, likes, comments, shares, saves, last_seen_at FROM items
          WHERE seen_count > 1 AND rid > ${after} ORDER BY rid LIMIT ${BATCH}`,
    );
  const answers = (rids: number[]) =>
    s.all<{ rid: number; call_id: string; fetched_at: number; endpoint: string }>(
      sql`SELECT p.item_rid AS rid, r.call_id, r.fetched_at, r.endpoint FROM provenance p JOIN responses r ON r.call_id = p.call_id
          WHERE p.item_rid IN (SELECT value FROM json_each(${JSON.stringify(rids)})) AND r.envelope IS NOT NULL ORDER BY r.call_id`,
    );
  const envelopeOf = (callId: string) => s.value<string>(sql`SELECT envelope FROM responses WHERE call_id = ${callId}`);
  const insert = (rid: number, at: number, [views, likes, comments, shares, saves]: Counts) =>
    s.run(
      sql`INSERT OR REPLACE INTO item_readings (item_rid, read_at, views, likes, comments, shares, saves)
          VALUES (${rid}, ${at}, ${views}, ${likes}, ${comments}, ${shares}, ${saves})`,
    );
  const setAt = (at: number, rid: number) => s.run(sql`UPDATE items SET counts_at = ${at} WHERE rid = ${rid}`);
  let after = 0;
  let done = 0;
  for (;;) {
    const batch = items(after).map(
      (r) => ({ rid: r.rid, kind: r.kind, id: r.id, counts: countsOf(r), last_seen_at: r.last_seen_at }) as Item,
    );
    if (batch.length === 0) break;
    const byRid = new Map(batch.map((it) => [it.rid, it]));
    const seen = new Map<number, Array<{ at: number; counts: Counts }>>();
    let callId: string | null = null;
    let records = new Map<string, Json>();
    for (const a of answers(batch.map((b) => b.rid))) {
      if (a.call_id !== callId) {
        callId = a.call_id;
        records = new Map();
        try {
          const env = JSON.parse(envelopeOf(a.call_id) as string) as { data?: unknown };
          for (const it of readItems(env.data, a.endpoint).items) records.set(`${it.kind}\u0000${it.id}`, it.record as Json);
        } catch {
          // an answer that does not parse gives no reading
        }
      }
      const it = present(byRid, a.rid, 'item');
      const rec = records.get(`${it.kind}\u0000${it.id}`);
      if (!rec) continue;
      const list = seen.get(a.rid) ?? [];
      list.push({ at: a.fetched_at, counts: countsOf(extractColumns(it.kind, rec)) });
      seen.set(a.rid, list);
    }
    for (const it of batch) {
      const series = fold(seen.get(it.rid) ?? []);
      if (series.length === 0) continue;
      const last = series[series.length - 1];
      const endsOnCurrent = sameCounts(last.counts, it.counts);
      const past = endsOnCurrent ? series.slice(0, -1) : series;
      for (const r of past) insert(it.rid, r.at, r.counts);
      const at = endsOnCurrent ? last.at : Math.max(it.last_seen_at, last.at + 1);
      setAt(at, it.rid);
    }
    done += batch.length;
    after = batch[batch.length - 1].rid;
    progress?.(done, total, 'reading the metric history from stored answers');
  }
}
