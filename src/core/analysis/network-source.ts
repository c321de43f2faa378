/**
 * The rows of a library query read down to what a network needs, straight from the archive's
 * extracted columns (`items`: text, author, likes, parent, the labels JSON) instead of the whole
 * stored record: a network of 100k posts reads ~200 bytes per row instead of ~1.1 KB and parses
 * only the labels (docs/analysis.md "Networks", Performance). The filter is the library's own
 * (`buildWhere`); effective labels apply the analyst's overrides as the export rows do.
 */
import type { LibraryQuery } from '../../shared/query';
import { buildWhere, parseQuery } from '../archive/sql-query';
import type { Pseudonymiser } from '../export/pseudonym';
import { userKey, type RowFacts } from './network-entities';

export interface FactsDb {
  prepare(sql: string): { raw(on: boolean): { iterate(...params: unknown[]): IterableIterator<unknown> }; pluck(on?: boolean): { get(...p: unknown[]): unknown } };
}

type Raw = [string, string, string, string | null, string | null, string | null, string | null, number | null, number | null, string | null, string | null, string | null];

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : null);

/** Facts of every item the query matches, in archive order (a network does not depend on it). */
export function* archiveFacts(db: FactsDb, input: LibraryQuery, p: Pseudonymiser | null = null): Generator<RowFacts> {
  const q = parseQuery(input);
  const w = buildWhere(q);
  const hasOverrides = db.prepare('SELECT EXISTS (SELECT 1 FROM label_overrides) AS x').pluck(true).get() === 1;
  const ov = hasOverrides ? "(SELECT json_group_array(json_array(o.family, o.field, json(o.value))) FROM label_overrides o WHERE o.item_rid = i.rid)" : 'NULL';
  const sql = `SELECT i.platform, i.kind, i.id, i.text, i.author_id, i.author_username, i.author_display_name,
      json_extract(i.raw, '$.author.followers'), i.likes, i.parent_id, i.labels, ${ov}
    FROM items i ${w.clauses.length ? `WHERE ${w.clauses.join(' AND ')}` : ''} ORDER BY i.rid`;
  for (const r of db.prepare(sql).raw(true).iterate(...w.params) as IterableIterator<Raw>) {
    const [platform, kind, id, text, authorId, username, displayName, followers, likes, parentId, labelsJson, ovJson] = r;
    let sponsoredP: number | null = null;
    let intent: string | null = null;
    let sentiment: string | null = null;
    if (labelsJson && labelsJson !== 'null') {
      const L = JSON.parse(labelsJson) as Record<string, Record<string, unknown> | null> | null;
      sponsoredP = num(L?.sponsored?.p);
      intent = typeof L?.intent?.label === 'string' ? L.intent.label : null;
      sentiment = typeof L?.sentiment?.label === 'string' ? L.sentiment.label : null;
    }
    if (ovJson && ovJson !== '[]')
      for (const [family, field, value] of JSON.parse(ovJson) as Array<[string, string, unknown]>) {
        if (family === 'sponsored' && field === 'p') sponsoredP = num(value);
        else if (family === 'intent' && field === 'label') intent = typeof value === 'string' ? value : null;
        else if (family === 'sentiment' && field === 'label') sentiment = typeof value === 'string' ? value : null;
      }
    const u = p && username ? p.handle(platform, username) : username;
    const uid = p && authorId ? p.userId(platform, authorId) : authorId;
    const key = userKey(platform, u, uid);
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
