/**
 * Comments archived as posts before issue 14 #3 was fixed, re-kinded (migration 0006).
 *
 * The rule is the fixed extraction itself: every stored answer (its envelope) that returned an
 * item now archived as kind `post` (or `reply`, the key an older list item used) is read again with
 * `readItems(data, endpoint)`; an item that reading calls a `comment` becomes one. Positive
 * evidence wins: an item that one answer reads as a comment and another as a post (only a post
 * key without any comment signal) is a comment. Items stored without an answer (bulk ingests:
 * their kind came from the caller, not from the extraction) are left as they are.
 *
 * An answer is parsed only when it can hold a comment signal: a comment endpoint, or the
 * envelope text naming a comment label family, `total_comments`, or a `comment`/`reply` key or
 * kind. Every other answer reads as posts only (the extraction's signals are all of these).
 *
 * When the archive already holds the same comment (fetched again after the fix), the two rows
 * become one: the records merged (the later answer wins, nulls never erase, extract.ts
 * mergeRecord), provenance, tags and label overrides (the later one per field) moved, both
 * notes kept, label rows and the full-text entry rewritten; watch_items follow the new kind.
 */
import { extractColumns, flattenLabels, isCommentEndpoint, mergeRecord, readItems, type Json, type LabelLeaf } from './extract';
import type { Db } from './connection';
import { sql, Statements, type SqlRead, type SqlWrite } from './sql';

const MAY_NAME_A_COMMENT = /"(comment|reply|total_comments|sentiment|spam|question|purchase_intent|complaint|toxic|low_quality)"/i;
const OLD_KINDS = ['post', 'reply'] as const;

export interface RekindResult {
  /** answers read again */
  answersRead: number;
  /** rows whose kind became comment */
  rekinded: number;
  /** of those, rows merged into a comment row the archive already held */
  merged: number;
}

interface ItemRow {
  rid: number;
  platform: string;
  kind: string;
  id: string;
  raw: string;
  labels: string | null;
  unavailable: string | null;
  first_seen_at: number;
  last_seen_at: number;
  seen_count: number;
}

/** Re-kinds the comments stored as posts; runs inside the caller's transaction (the migration's). */
export function rekindStoredComments(db: Db): RekindResult {
  const s = new Statements(db);
  const answers = s.all<{ call_id: string; platform: string; endpoint: string }>(
    sql`SELECT r.call_id, r.platform, r.endpoint FROM responses r
        WHERE r.envelope IS NOT NULL
          AND EXISTS (SELECT 1 FROM provenance p JOIN items i ON i.rid = p.item_rid
                       WHERE p.call_id = r.call_id AND i.kind IN ('post', 'reply'))`,
  );
  const todo = new Set<number>();
  let answersRead = 0;
  for (const a of answers) {
    const text = s.value<string | null>(sql`SELECT envelope FROM responses WHERE call_id = ${a.call_id}`) as string | null;
    if (text === null) continue;
    if (!isCommentEndpoint(a.endpoint) && !MAY_NAME_A_COMMENT.test(text)) continue;
    let env: unknown;
    try {
      env = JSON.parse(text);
    } catch {
      continue; // not an answer Loupe can read: nothing to learn from it
    }
    answersRead++;
    const data = typeof env === 'object' && env !== null ? (env as Json).data : undefined;
    const comments = new Set(
      readItems(data, a.endpoint)
        .items.filter((it) => it.kind === 'comment')
        .map((it) => it.id),
    );
    if (comments.size === 0) continue;
    const linked = s.all<{ rid: number; id: string }>(
      sql`SELECT i.rid, i.id FROM provenance p JOIN items i ON i.rid = p.item_rid WHERE p.call_id = ${a.call_id} AND i.kind IN ('post', 'reply')`,
    );
    for (const r of linked) if (comments.has(r.id)) todo.add(r.rid);
  }
  let merged = 0;
  for (const rid of todo) {
    const row = s.get<ItemRow>(
      sql`SELECT rid, platform, kind, id, raw, labels, unavailable, first_seen_at, last_seen_at, seen_count FROM items WHERE rid = ${rid}`,
    );
    if (!row || !OLD_KINDS.includes(row.kind as (typeof OLD_KINDS)[number])) continue;
    const held = s.get<ItemRow>(
      sql`SELECT rid, platform, kind, id, raw, labels, unavailable, first_seen_at, last_seen_at, seen_count FROM items WHERE platform = ${row.platform} AND kind = 'comment' AND id = ${row.id}`,
    );
    if (held) {
      mergeInto(s, held, row);
      merged++;
    } else {
      rekindRow(s, row);
    }
    moveWatchItems(s, row.platform, row.kind, row.id);
  }
  return { answersRead, rekinded: todo.size, merged };
}

function writeRow(
  s: SqlWrite,
  rid: number,
  record: Json,
  rest: Pick<ItemRow, 'unavailable' | 'first_seen_at' | 'last_seen_at' | 'seen_count'>,
): void {
  const c = extractColumns('comment', record);
  s.run(sql`UPDATE items SET kind = 'comment', raw = ${JSON.stringify(record)}, published_at = ${c.published_at}, author_id = ${c.author_id},
  author_username = ${c.author_username}, author_display_name = ${c.author_display_name}, text = ${c.text}, url = ${c.url}, lang = ${c.lang},
  views = ${c.views}, likes = ${c.likes}, comments = ${c.comments}, shares = ${c.shares}, saves = ${c.saves}, parent_id = ${c.parent_id},
  post_kind = ${c.post_kind}, labels = ${c.labels}, relevance_p = ${c.relevance_p}, unavailable = ${rest.unavailable},
  first_seen_at = ${rest.first_seen_at}, last_seen_at = ${rest.last_seen_at}, seen_count = ${rest.seen_count} WHERE rid = ${rid}`);
}

/** No comment row yet: the row changes kind (its columns read as a comment's, which a post's already are). */
function rekindRow(s: SqlWrite, row: ItemRow): void {
  if (row.kind === 'post') s.run(sql`UPDATE items SET kind = 'comment' WHERE rid = ${row.rid}`);
  else writeRow(s, row.rid, JSON.parse(row.raw) as Json, row); // an old `reply` row: not extracted as a post
}

type Override = { family: string; field: string; value: unknown };

function overridesOf(s: SqlRead, rid: number): Override[] {
  return s
    .all<{ family: string; field: string; value: string }>(sql`SELECT family, field, value FROM label_overrides WHERE item_rid = ${rid}`)
    .map((o) => ({ family: o.family, field: o.field, value: JSON.parse(o.value) as unknown }));
}

function leavesOf(s: SqlRead, rid: number, labels: string | null): LabelLeaf[] {
  return flattenLabels(labels === null ? null : (JSON.parse(labels) as Json), overridesOf(s, rid));
}

function fieldId(s: SqlWrite, family: string, field: string): number {
  s.run(sql`INSERT OR IGNORE INTO label_fields (family, field) VALUES (${family}, ${field})`);
  return s.value<number>(sql`SELECT ff FROM label_fields WHERE family = ${family} AND field = ${field}`) as number;
}

/** The archive already holds this comment: one row (the comment's rid) with both rows' history. */
function mergeInto(s: SqlWrite, keep: ItemRow, old: ItemRow): void {
  const [earlier, later] = old.last_seen_at <= keep.last_seen_at ? [old, keep] : [keep, old];
  const record = mergeRecord(JSON.parse(earlier.raw) as Json, JSON.parse(later.raw) as Json);
  // label rows of both, by key (item_labels has no per-item index)
  for (const r of [keep, old])
    for (const [family, field, value] of leavesOf(s, r.rid, r.labels))
      s.run(sql`DELETE FROM item_labels WHERE ff = ${fieldId(s, family, field)} AND value = ${value} AND item_rid = ${r.rid}`);
  // annotations and provenance move to the kept row
  s.run(
    sql`INSERT OR IGNORE INTO provenance (call_id, item_rid, position) SELECT call_id, ${keep.rid}, position FROM provenance WHERE item_rid = ${old.rid}`,
  );
  s.run(
    sql`INSERT OR IGNORE INTO item_tags (tag_id, item_rid, at) SELECT tag_id, ${keep.rid}, at FROM item_tags WHERE item_rid = ${old.rid}`,
  );
  s.run(
    sql`INSERT INTO label_overrides (item_rid, family, field, value, at) SELECT ${keep.rid}, family, field, value, at FROM label_overrides WHERE item_rid = ${old.rid} AND true
     ON CONFLICT (item_rid, family, field) DO UPDATE SET value = excluded.value, at = excluded.at WHERE excluded.at > label_overrides.at`,
  );
  const note = (rid: number) =>
    s.get<{ text: string; updated_at: number }>(sql`SELECT text, updated_at FROM notes WHERE item_rid = ${rid}`);
  const a = note(keep.rid);
  const b = note(old.rid);
  if (b && (!a || a.text !== b.text)) {
    // both notes kept, the older first
    const text = !a ? b.text : a.updated_at <= b.updated_at ? `${a.text}\n\n${b.text}` : `${b.text}\n\n${a.text}`;
    s.run(
      sql`INSERT INTO notes (item_rid, text, updated_at) VALUES (${keep.rid}, ${text}, ${Math.max(a?.updated_at ?? 0, b.updated_at)})
          ON CONFLICT (item_rid) DO UPDATE SET text = excluded.text, updated_at = excluded.updated_at`,
    );
  }
  // the old row goes (its provenance, tags, note and overrides with it: copied above; FTS by trigger)
  s.run(sql`DELETE FROM items WHERE rid = ${old.rid}`);
  writeRow(s, keep.rid, record, {
    unavailable: later.unavailable ?? earlier.unavailable,
    first_seen_at: Math.min(keep.first_seen_at, old.first_seen_at),
    last_seen_at: Math.max(keep.last_seen_at, old.last_seen_at),
    seen_count: keep.seen_count + old.seen_count,
  });
  const labels = s.value<string | null>(sql`SELECT labels FROM items WHERE rid = ${keep.rid}`) as string | null;
  for (const [family, field, value] of leavesOf(s, keep.rid, labels))
    s.run(sql`INSERT OR IGNORE INTO item_labels (ff, value, item_rid) VALUES (${fieldId(s, family, field)}, ${value}, ${keep.rid})`);
}

/** Watchlists hold items by (platform, kind, id): theirs follow the new kind (one entry per watch). */
function moveWatchItems(s: SqlWrite, platform: string, kind: string, id: string): void {
  s.run(sql`UPDATE OR IGNORE watch_items SET kind = 'comment' WHERE platform = ${platform} AND kind = ${kind} AND item_id = ${id}`);
  s.run(sql`DELETE FROM watch_items WHERE platform = ${platform} AND kind = ${kind} AND item_id = ${id}`);
}
