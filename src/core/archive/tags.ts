/**
 * Tag management (issue 27 #7): rename, merge, delete and colour the analyst's tags. `archive.tags`
 * (archive.ts) is one of these, on the archive's connection. Tagging items is annotations.ts.
 *
 * A change touches only what it names. A rename changes the tag's name and nothing else: its id,
 * colour and creation time stay, and so does every item's tagging (its author and time). A merge
 * moves each item's tagging to the target — the item's earliest tagging among the merged tags,
 * with its author and time — unless the item already carries the target (its tagging stays as it
 * was); no item ever carries the target twice. Saved result sets whose filter names a renamed or
 * merged tag name the new one (their author and time stay: the set still selects what it did).
 * See docs/archive.md "Tag management".
 */
import type { TagChange, TagColour, TagInfo } from '../../shared/contract-tags';
import type { LibraryQuery } from '../../shared/query';
import { ArchiveError } from './archive-error';
import type { ArchiveCtx } from './context';
import { sql } from './sql';

interface TagRow {
  tag_id: number;
  name: string;
}

const fold = (s: string): string => s.trim().toLowerCase();

export class TagStore {
  constructor(private readonly c: ArchiveCtx) {}

  /** Every tag with its item count and colour, by name (case ignored). */
  list(): TagInfo[] {
    return this.c.guard('read', () =>
      this.c.sql.all<TagInfo>(
        sql`SELECT t.name AS tag, count(it.item_rid) AS count, t.color AS color, t.created_at AS createdAt
            FROM tags t LEFT JOIN item_tags it ON it.tag_id = t.tag_id GROUP BY t.tag_id ORDER BY t.name COLLATE NOCASE, t.tag_id`,
      ),
    );
  }

  /** Gives a tag another name (or another spelling of its own); a name another tag has is refused: merge instead. */
  rename(tag: string, to: string, dryRun = false): TagChange {
    return this.c.guard('write', () =>
      this.c.tx(() => {
        const t = this.need(tag);
        const name = to.trim();
        if (name === '') throw new ArchiveError('A tag needs a name.');
        const other = this.find(name);
        if (other && other.tag_id !== t.tag_id)
          throw new ArchiveError(
            `A tag “${other.name}” exists already: merge “${t.name}” into it instead (loupe tags merge “${t.name}” --into “${other.name}”).`,
          );
        const change: TagChange = {
          tag: name,
          items: this.count([t.tag_id]),
          alreadyTagged: 0,
          savedSets: this.setsNaming([t.name]).length,
          dryRun,
        };
        if (dryRun || name === t.name) return change;
        this.c.sql.run(sql`UPDATE tags SET name = ${name} WHERE tag_id = ${t.tag_id}`);
        this.renameInSets([t.name], name);
        return change;
      }),
    );
  }

  /** Moves every item of the `from` tags to `into` (which must exist), then removes the `from` tags. */
  merge(from: string[], into: string, dryRun = false): TagChange {
    return this.c.guard('write', () =>
      this.c.tx(() => {
        const target = this.find(into);
        if (!target)
          throw new ArchiveError(`There is no tag “${into.trim()}” to merge into; to give a tag a new name, rename it.`, 'not_found');
        const sources = new Map<number, TagRow>();
        for (const f of from) {
          const s = this.need(f);
          if (s.tag_id === target.tag_id)
            throw new ArchiveError(`“${s.name}” is the tag the others are merged into; leave it out of the tags to merge.`);
          sources.set(s.tag_id, s);
        }
        const ids = [...sources.keys()];
        const idList = JSON.stringify(ids);
        const items = this.count(ids);
        const already =
          this.c.sql.get<{ n: number }>(
            sql`SELECT count(DISTINCT it.item_rid) AS n FROM item_tags it WHERE it.tag_id IN (SELECT value FROM json_each(${idList}))
              AND EXISTS (SELECT 1 FROM item_tags x WHERE x.item_rid = it.item_rid AND x.tag_id = ${target.tag_id})`,
          )?.n ?? 0;
        const names = [...sources.values()].map((s) => s.name);
        const change: TagChange = { tag: target.name, items, alreadyTagged: already, savedSets: this.setsNaming(names).length, dryRun };
        if (dryRun) return change;
        // each item's earliest tagging among the merged tags moves (author and time kept); an item
        // that carries the target already keeps its own tagging (the conflict does nothing)
        this.c.sql.run(
          sql`INSERT INTO item_tags (tag_id, item_rid, at, author)
              SELECT ${target.tag_id}, item_rid, at, author FROM (
                SELECT item_rid, at, author, row_number() OVER (PARTITION BY item_rid ORDER BY at, tag_id) AS k
                FROM item_tags WHERE tag_id IN (SELECT value FROM json_each(${idList}))
              ) WHERE k = 1
              ON CONFLICT DO NOTHING`,
        );
        this.c.sql.run(sql`DELETE FROM item_tags WHERE tag_id IN (SELECT value FROM json_each(${idList}))`);
        this.c.sql.run(sql`DELETE FROM tags WHERE tag_id IN (SELECT value FROM json_each(${idList}))`);
        this.renameInSets(names, target.name);
        return change;
      }),
    );
  }

  /** Removes a tag from every item and from the list of tags; nothing else changes. */
  delete(tag: string, dryRun = false): TagChange {
    return this.c.guard('write', () =>
      this.c.tx(() => {
        const t = this.need(tag);
        const change: TagChange = {
          tag: t.name,
          items: this.count([t.tag_id]),
          alreadyTagged: 0,
          savedSets: this.setsNaming([t.name]).length,
          dryRun,
        };
        if (dryRun) return change;
        this.c.sql.run(sql`DELETE FROM item_tags WHERE tag_id = ${t.tag_id}`);
        this.c.sql.run(sql`DELETE FROM tags WHERE tag_id = ${t.tag_id}`);
        return change;
      }),
    );
  }

  /** Sets (or with null, clears) a tag's colour. */
  color(tag: string, color: TagColour | null): TagInfo {
    return this.c.guard('write', () =>
      this.c.tx(() => {
        const t = this.need(tag);
        this.c.sql.run(sql`UPDATE tags SET color = ${color} WHERE tag_id = ${t.tag_id}`);
        const info = this.c.sql.get<{ createdAt: number }>(sql`SELECT created_at AS createdAt FROM tags WHERE tag_id = ${t.tag_id}`);
        return { tag: t.name, count: this.count([t.tag_id]), color, createdAt: info?.createdAt ?? 0 };
      }),
    );
  }

  private find(name: string): TagRow | undefined {
    return this.c.sql.get<TagRow>(sql`SELECT tag_id, name FROM tags WHERE name = ${name.trim()}`);
  }

  private need(name: string): TagRow {
    const t = this.find(name);
    if (!t) throw new ArchiveError(`There is no tag “${name.trim()}”; see the list of tags (loupe tags list).`, 'not_found');
    return t;
  }

  private count(ids: number[]): number {
    return (
      this.c.sql.get<{ n: number }>(
        sql`SELECT count(DISTINCT item_rid) AS n FROM item_tags WHERE tag_id IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`,
      )?.n ?? 0
    );
  }

  /** Saved sets whose filter names one of the tags (case ignored), with their parsed queries. */
  private setsNaming(names: string[]): Array<{ id: number; query: LibraryQuery }> {
    const wanted = new Set(names.map(fold));
    return this.c.sql
      .all<{ rs_id: number; query: string }>(sql`SELECT rs_id, query FROM result_sets`)
      .map((r) => ({ id: r.rs_id, query: JSON.parse(r.query) as LibraryQuery }))
      .filter((r) => (r.query.tags ?? []).some((t) => wanted.has(fold(t))));
  }

  /** The saved sets' filters name `to` where they named one of `names` (once; their author and time stay). */
  private renameInSets(names: string[], to: string): void {
    const wanted = new Set(names.map(fold));
    for (const s of this.setsNaming(names)) {
      const tags: string[] = [];
      for (const t of s.query.tags ?? []) {
        const n = wanted.has(fold(t)) ? to : t;
        if (!tags.some((x) => fold(x) === fold(n))) tags.push(n);
      }
      this.c.sql.run(sql`UPDATE result_sets SET query = ${JSON.stringify({ ...s.query, tags })} WHERE rs_id = ${s.id}`);
    }
  }
}
