/**
 * The label tables: `label_fields` (ff ↔ family, field) and `item_labels`, the effective label
 * leaves of every item keyed (ff, value, item_rid) — see docs/archive.md "Labels" and migration
 * 0004. Also `overridesOf` (the analyst overrides of one item) and `rebuildDerived`.
 */
import type { LabelOverrides } from '../../shared/query';
import type { ArchiveCtx } from './context';
import { diffLeaves, flattenLabels, type Json, type LabelLeaf, type LabelScalar } from './extract';
import { sql, tuples } from './sql';

export type OverrideList = Array<{ family: string; field: string; value: unknown; at: number; author?: string | null }>;

export function overridesObject(list: OverrideList): LabelOverrides {
  const out: LabelOverrides = {};
  for (const o of list) (out[o.family] ??= {})[o.field] = o.value;
  return out;
}

export function parseLabels(s: string | null): Json | null {
  return s === null ? null : (JSON.parse(s) as Json);
}

/** A label row of a new item as bound: field id (label_fields.ff), value, item rid. */
export type NewLeaf = [number, LabelScalar, number];

/** SQLite's order of the item_labels key (ff, value, item_rid), near enough for locality: numbers, text, blobs. */
function compareLeaves(a: NewLeaf, b: NewLeaf): number {
  if (a[0] !== b[0]) return a[0] - b[0];
  const x = a[1];
  const y = b[1];
  if (x !== y) {
    const tx = typeof x === 'string' ? 1 : typeof x === 'object' ? 2 : 0;
    const ty = typeof y === 'string' ? 1 : typeof y === 'object' ? 2 : 0;
    if (tx !== ty) return tx - ty;
    if (tx < 2 && x < y) return -1;
    if (tx < 2 && x > y) return 1;
  }
  return a[2] - b[2];
}

/** The label leaves of a record as it arrived (`computed.labels`, flattened), or null without labels. */
export function recordLeaves(record: Json): LabelLeaf[] | null {
  const computed = record.computed;
  if (computed === null || typeof computed !== 'object' || Array.isArray(computed)) return null;
  const labels = (computed as Json).labels;
  if (labels === null || typeof labels !== 'object' || Array.isArray(labels)) return null;
  return flattenLabels(labels as Json);
}

/**
 * Ids of (family, field) pairs (`family\0field` keys), created in label_fields when new.
 * Run before a write transaction (ingest, overrides): outside any transaction the ids are
 * read or created in a step of their own that commits at once, and only then cached. Inside
 * a caller's transaction nothing is cached (that transaction may still roll back); fieldId()
 * then reads or creates each id in it.
 */
export function fieldIds(c: ArchiveCtx, keys: Iterable<string>): void {
  const missing = [...keys].filter((k) => !c.ffCache.has(k));
  if (missing.length === 0) return;
  const cache = !c.db.inTransaction;
  // IMMEDIATE: the write lock first (waiting out busy_timeout), so another process sharing
  // the file cannot create the same field between this read and this insert
  const ids = c.db.transaction(() => missing.map((k) => resolveField(c, k))).immediate();
  if (cache) missing.forEach((k, i) => c.ffCache.set(k, ids[i]));
}

/** The id of one (family, field) pair: from the cache, else read or created (not cached: see fieldIds). */
export function fieldId(c: ArchiveCtx, family: string, field: string): number {
  const key = family + '\u0000' + field;
  return c.ffCache.get(key) ?? resolveField(c, key);
}

function resolveField(c: ArchiveCtx, key: string): number {
  const sep = key.indexOf('\u0000');
  const family = key.slice(0, sep);
  const field = key.slice(sep + 1);
  const found = c.sql.get<{ ff: number }>(sql`SELECT ff FROM label_fields WHERE family = ${family} AND field = ${field}`);
  if (found) return found.ff;
  return Number(c.sql.insert`label_fields`({ family, field }).lastInsertRowid);
}

/** Move the effective label rows of one item from `before` to `after` (exact keys: see migration 0004). */
export function writeLeaves(c: ArchiveCtx, rid: number, before: LabelLeaf[], after: LabelLeaf[]): void {
  const { del, ins } = before.length === 0 ? { del: [], ins: after } : diffLeaves(before, after);
  for (const [family, field, value] of del)
    c.sql.run(sql`DELETE FROM item_labels WHERE ff = ${fieldId(c, family, field)} AND value = ${value} AND item_rid = ${rid}`);
  // one multi-row statement per chunk of up to 16 leaves (fewer native calls than one per leaf)
  for (let k = 0; k < ins.length; k += 16) {
    const chunk = ins.slice(k, k + 16);
    const args: unknown[] = [];
    for (const [family, field, value] of chunk) args.push(fieldId(c, family, field), value, rid);
    c.sql.run(sql`INSERT OR IGNORE INTO item_labels (ff, value, item_rid) VALUES ${tuples(args, 3)}`);
  }
}

/**
 * Label rows of the items new in one answer or bulk batch, in one sweep sorted in key order
 * (family, field, value, item): consecutive inserts land on the same b-tree pages instead of
 * ~13 places per item (measured at 100k posts: docs/archive.md "Performance").
 */
export function writeNewLeaves(c: ArchiveCtx, leaves: NewLeaf[]): void {
  if (leaves.length === 0) return;
  leaves.sort(compareLeaves);
  const CHUNK = 64;
  let k = 0;
  if (leaves.length >= CHUNK) {
    const args = new Array<unknown>(CHUNK * 3);
    for (; k + CHUNK <= leaves.length; k += CHUNK) {
      for (let j = 0; j < CHUNK; j++) {
        const l = leaves[k + j];
        args[j * 3] = l[0];
        args[j * 3 + 1] = l[1];
        args[j * 3 + 2] = l[2];
      }
      c.sql.run(sql`INSERT OR IGNORE INTO item_labels (ff, value, item_rid) VALUES ${tuples(args, 3)}`);
    }
  }
  for (; k < leaves.length; k++) {
    const [ff, value, rid] = leaves[k];
    c.sql.run(sql`INSERT OR IGNORE INTO item_labels (ff, value, item_rid) VALUES (${ff}, ${value}, ${rid})`);
  }
}

/** The analyst overrides of one item, by family and field. */
export function overridesOf(c: ArchiveCtx, rid: number): OverrideList {
  return c.sql
    .all<{ family: string; field: string; value: string; at: number; author: string | null }>(
      sql`SELECT family, field, value, at, author FROM label_overrides WHERE item_rid = ${rid} ORDER BY family, field`,
    )
    .map((o) => ({ family: o.family, field: o.field, value: JSON.parse(o.value) as unknown, at: o.at, author: o.author }));
}

/**
 * Rebuilds what is derived from the items (after `loupe archive recover`, which may have lost
 * rows of any table): the label rows from each item's labels and overrides, and the full-text
 * index from the items. One transaction.
 */
export function rebuildDerived(c: ArchiveCtx): { items: number; labelRows: number } {
  const fields = new Set<string>();
  const todo: Array<{ rid: number; leaves: LabelLeaf[] }> = [];
  const rows = c.sql.all<{ rid: number; labels: string | null }>(
    sql`SELECT rid, labels FROM items WHERE labels IS NOT NULL OR rid IN (SELECT item_rid FROM label_overrides)`,
  );
  for (const r of rows) {
    const leaves = flattenLabels(parseLabels(r.labels), overridesOf(c, r.rid));
    for (const [family, field] of leaves) fields.add(family + '\u0000' + field);
    todo.push({ rid: r.rid, leaves });
  }
  fieldIds(c, fields);
  let labelRows = 0;
  c.tx(() => {
    c.db.exec('DELETE FROM item_labels');
    for (const t of todo) {
      writeLeaves(c, t.rid, [], t.leaves);
      labelRows += t.leaves.length;
    }
    c.db.exec("INSERT INTO items_fts (items_fts) VALUES ('rebuild')");
  });
  c.sql.clear();
  const items = c.sql.value<number>(sql`SELECT count(*) AS n FROM items`) ?? 0;
  return { items, labelRows };
}
