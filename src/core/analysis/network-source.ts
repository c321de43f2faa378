/**
 * The rows of a library query read down to what a network needs, straight from the archive's
 * extracted columns (`items`: text, author, likes, parent, the labels JSON) instead of the whole
 * stored record: a network of 100k posts reads ~200 bytes per row instead of ~1.1 KB, takes its
 * three label values from the labels JSON in SQLite, and reads authors only for the networks of
 * accounts (docs/analysis.md "Networks", Performance). The filter is the library's own
 * (`buildWhere`); effective labels apply the analyst's overrides as the export rows do.
 */
import type { LibraryQuery } from '../../shared/query';
import { buildWhere, parseQuery } from '../archive/sql-query';
import type { Pseudonymiser } from '../export/pseudonym';
import { userKey, type RowFacts } from './network-entities';

export interface FactsDb {
  prepare(sql: string): { raw(on: boolean): { iterate(...params: unknown[]): IterableIterator<unknown> }; pluck(on?: boolean): { get(...p: unknown[]): unknown } };
}

type Raw = [string, string, string, string | null, number | null, string | null, unknown, string | null, string | null, string | null, string | null, string | null, unknown, string | null];

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : null);

/** A label value of the stored labels JSON, as JSON.parse would give it: a number or text, else null (objects, arrays, booleans). */
const labelValue = (path: string, types: string): string => `iif(json_type(i.labels, '${path}') IN (${types}), json_extract(i.labels, '${path}'), NULL)`;

/** What a network kind reads: authors only for the networks whose nodes include authors. */
export function factsOptionsFor(kind: string): FactsOptions {
  return { authors: kind === 'user-hashtag' || kind === 'mentions' };
}

export interface FactsOptions {
  /** read the item's author (the networks of accounts: `user-hashtag`, `mentions`); default true */
  authors?: boolean;
}

/**
 * Facts of every item the query matches, in archive order (a network does not depend on it).
 * The three label values are read by SQLite's JSON functions (no labels object per row here);
 * without `authors` the author columns are not read at all (`co-hashtag`, `co-mention`).
 */
export function* archiveFacts(db: FactsDb, input: LibraryQuery, p: Pseudonymiser | null = null, opts: FactsOptions = {}): Generator<RowFacts> {
  const authors = opts.authors ?? true;
  const q = parseQuery(input);
  const w = buildWhere(q);
  const hasOverrides = db.prepare('SELECT EXISTS (SELECT 1 FROM label_overrides) AS x').pluck(true).get() === 1;
  const ov = hasOverrides ? "(SELECT json_group_array(json_array(o.family, o.field, json(o.value))) FROM label_overrides o WHERE o.item_rid = i.rid)" : 'NULL';
  const author = authors ? "i.author_id, i.author_username, i.author_display_name, json_extract(i.raw, '$.author.followers')" : 'NULL, NULL, NULL, NULL';
  const sql = `SELECT i.platform, i.kind, i.id, i.text, i.likes, i.parent_id,
      ${labelValue('$.sponsored.p', "'integer', 'real', 'text'")}, ${labelValue('$.intent.label', "'text'")}, ${labelValue('$.sentiment.label', "'text'")},
      ${author}, ${ov}
    FROM items i ${w.clauses.length ? `WHERE ${w.clauses.join(' AND ')}` : ''} ORDER BY i.rid`;
  for (const r of db.prepare(sql).raw(true).iterate(...w.params) as IterableIterator<Raw>) {
    const [platform, kind, id, text, likes, parentId, sp, intentValue, sentimentValue, authorId, username, displayName, followers, ovJson] = r;
    let sponsoredP = num(sp);
    let intent = intentValue;
    let sentiment = sentimentValue;
    if (ovJson && ovJson !== '[]')
      for (const [family, field, value] of JSON.parse(ovJson) as Array<[string, string, unknown]>) {
        if (family === 'sponsored' && field === 'p') sponsoredP = num(value);
        else if (family === 'intent' && field === 'label') intent = typeof value === 'string' ? value : null;
        else if (family === 'sentiment' && field === 'label') sentiment = typeof value === 'string' ? value : null;
      }
    const u = p && username ? p.handle(platform, username) : username;
    const uid = p && authorId ? p.userId(platform, authorId) : authorId;
    const key = authors ? userKey(platform, u, uid) : null;
    yield {
      platform,
      kind,
      id,
      text: p && text ? p.text(platform, text) : text,
      author: key ? { key, id: uid, username: u, displayName: p ? (u ?? (displayName ? p.opaque('name', displayName) : null)) : displayName, followers: num(followers) } : null,
      parentId,
      likes,
      labels: { sponsoredP, intent, sentiment },
    };
  }
}
