/**
 * The analyst's annotations: tags (`tags`, `item_tags`), notes (`notes`), label overrides
 * (`label_overrides`, which move the item's label rows) and saved result sets (`result_sets`).
 * Annotating an item that is not archived throws ArchiveError. See docs/archive.md "Annotations".
 */
import type { LibraryQuery, ResultSet, TagCount } from '../../shared/query';
import type { ItemRef } from '../ports';
import { ArchiveError } from './archive-error';
import type { ArchiveCtx } from './context';
import { flattenLabels } from './extract';
import { fieldIds, overridesOf, parseLabels, writeLeaves } from './labels';
import { needRid, ridOf } from './library';
import { buildWhere, parseQuery } from './sql-query';
import { sql, where } from './sql';

function tagId(c: ArchiveCtx, tag: string): number {
  const name = tag.trim();
  if (name === '') throw new ArchiveError('empty tag');
  c.sql.insert`tags ON CONFLICT (name) DO NOTHING`({ name, created_at: c.clock() });
  return c.sql.one<{ tag_id: number }>(sql`SELECT tag_id FROM tags WHERE name = ${name}`).tag_id;
}

/** Tags are case-insensitive (the first spelling is kept). */
export function addTag(c: ArchiveCtx, ref: ItemRef, tag: string): void {
  c.tx(() => {
    const rid = needRid(c, ref);
    c.sql.insert`item_tags ON CONFLICT DO NOTHING`({ tag_id: tagId(c, tag), item_rid: rid, at: c.clock(), author: c.author() });
  });
}

export function removeTag(c: ArchiveCtx, ref: ItemRef, tag: string): void {
  const rid = ridOf(c, ref);
  if (rid === undefined) return;
  c.sql.run(sql`DELETE FROM item_tags WHERE item_rid = ${rid} AND tag_id = (SELECT tag_id FROM tags WHERE name = ${tag.trim()})`);
}

/** Every tag with its item count (tags no longer on any item are listed with 0). */
export function listTags(c: ArchiveCtx): TagCount[] {
  return c.sql.all<TagCount>(
    sql`SELECT t.name AS tag, count(it.item_rid) AS count FROM tags t LEFT JOIN item_tags it ON it.tag_id = t.tag_id
        GROUP BY t.tag_id ORDER BY t.name COLLATE NOCASE`,
  );
}

/** Tag every item of a query; returns how many items newly got the tag. */
export function tagQuery(c: ArchiveCtx, q: LibraryQuery, tag: string): number {
  return c.tx(() => {
    const w = buildWhere(parseQuery(q));
    const id = tagId(c, tag);
    return c.sql.run(
      sql`INSERT INTO item_tags (tag_id, item_rid, at, author) SELECT ${id}, i.rid, ${c.clock()}, ${c.author()} FROM items i
          WHERE ${where(w)} ON CONFLICT DO NOTHING`,
    ).changes;
  });
}

/** Remove a tag from every item of a query; returns how many lost it. */
export function untagQuery(c: ArchiveCtx, q: LibraryQuery, tag: string): number {
  const w = buildWhere(parseQuery(q));
  return c.sql.run(
    sql`DELETE FROM item_tags WHERE tag_id = (SELECT tag_id FROM tags WHERE name = ${tag.trim()})
          AND item_rid IN (SELECT i.rid FROM items i WHERE ${where(w)})`,
  ).changes;
}

/** Set (or with null / blank text, remove) the note of one item. */
export function setNote(c: ArchiveCtx, ref: ItemRef, text: string | null): void {
  const rid = needRid(c, ref);
  if (text === null || text.trim() === '') {
    c.sql.run(sql`DELETE FROM notes WHERE item_rid = ${rid}`);
    return;
  }
  c.sql.insert`notes ON CONFLICT (item_rid) DO UPDATE SET text = excluded.text, updated_at = excluded.updated_at, author = excluded.author`(
    {
      item_rid: rid,
      text,
      updated_at: c.clock(),
      author: c.author(),
    },
  );
}

/**
 * Analyst override of an AI label. The original stays in the raw record and
 * `labels`; queries, rows and exports see the override (marked in `overrides`).
 */
export function overrideLabel(c: ArchiveCtx, ref: ItemRef, family: string, field: string, value: unknown): void {
  if (!family || !field) throw new ArchiveError('family and field are required');
  fieldIds(c, [family + '\u0000' + field]);
  c.tx(() => {
    const rid = needRid(c, ref);
    withOverrideChange(c, rid, () => {
      c.sql
        .insert`label_overrides ON CONFLICT (item_rid, family, field) DO UPDATE SET value = excluded.value, at = excluded.at, author = excluded.author`(
        {
          item_rid: rid,
          family,
          field,
          value: JSON.stringify(value ?? null),
          at: c.clock(),
          author: c.author(),
        },
      );
    });
  });
}

export function clearOverride(c: ArchiveCtx, ref: ItemRef, family: string, field: string): void {
  c.tx(() => {
    const rid = needRid(c, ref);
    withOverrideChange(c, rid, () => {
      c.sql.run(sql`DELETE FROM label_overrides WHERE item_rid = ${rid} AND family = ${family} AND field = ${field}`);
    });
  });
}

/** Run `change` (which edits label_overrides of one item) and move its label rows accordingly. */
function withOverrideChange(c: ArchiveCtx, rid: number, change: () => void): void {
  const r = c.sql.one<{ labels: string | null }>(sql`SELECT labels FROM items WHERE rid = ${rid}`);
  const labels = parseLabels(r.labels);
  const before = flattenLabels(labels, overridesOf(c, rid));
  change();
  writeLeaves(c, rid, before, flattenLabels(labels, overridesOf(c, rid)));
}

export function saveResultSet(
  c: ArchiveCtx,
  name: string,
  query: LibraryQuery,
  opts: { tags?: string[]; note?: string | null } = {},
): ResultSet {
  const q = parseQuery(query);
  const { after: _after, ...stored } = q;
  const now = c.clock();
  const author = c.author();
  const r = c.sql.insert`result_sets`({
    name,
    query: JSON.stringify(stored),
    tags: JSON.stringify(opts.tags ?? []),
    note: opts.note ?? null,
    created_at: now,
    updated_at: now,
    author,
  });
  return {
    id: String(r.lastInsertRowid),
    name,
    query: stored,
    tags: opts.tags ?? [],
    note: opts.note ?? null,
    createdAt: now,
    updatedAt: now,
    author,
  };
}

export function updateResultSet(
  c: ArchiveCtx,
  id: string,
  patch: { name?: string; tags?: string[]; note?: string | null; query?: LibraryQuery },
): void {
  const cur = listResultSets(c).find((r) => r.id === id);
  if (!cur) throw new ArchiveError(`no such result set: ${id}`, 'not_found');
  const q = patch.query ? parseQuery(patch.query) : cur.query;
  c.sql.run(
    sql`UPDATE result_sets SET name = ${patch.name ?? cur.name}, query = ${JSON.stringify(q)}, tags = ${JSON.stringify(patch.tags ?? cur.tags)},
          note = ${patch.note === undefined ? cur.note : patch.note}, updated_at = ${c.clock()}, author = ${c.author() ?? cur.author} WHERE rs_id = ${Number(id)}`,
  );
}

export function deleteResultSet(c: ArchiveCtx, id: string): void {
  c.sql.run(sql`DELETE FROM result_sets WHERE rs_id = ${Number(id)}`);
}

export function listResultSets(c: ArchiveCtx): ResultSet[] {
  return c.sql
    .all<{
      rs_id: number;
      name: string;
      query: string;
      tags: string;
      note: string | null;
      created_at: number;
      updated_at: number;
      author: string | null;
    }>(sql`SELECT * FROM result_sets ORDER BY updated_at DESC, rs_id DESC`)
    .map((r) => ({
      id: String(r.rs_id),
      name: r.name,
      query: JSON.parse(r.query) as LibraryQuery,
      tags: JSON.parse(r.tags) as string[],
      note: r.note,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
      author: r.author,
    }));
}
