/**
 * The rows of a library query read down to what a network needs, straight from the archive's
 * extracted columns (`items`: text, author, likes, parent, the labels JSON) instead of the whole
 * stored record: a network of 100k posts reads ~200 bytes per row instead of ~1.1 KB, takes its
 * three label values from the labels JSON in SQLite, and reads authors only for the networks of
 * accounts (docs/analysis.md "Networks", Performance). The filter is the library's own
 * (`buildWhere`); effective labels apply the analyst's overrides as the export rows do. The SQL is
 * the archive's (network-facts.ts, `Archive.networkFactRows`); this module turns its rows into facts.
 */
import { NETWORK_KIND_DEFS } from './network-kinds';
import { isNetworkKind } from './network-kind-names';
import type { LibraryQuery } from '../../shared/query';
import type { FactRow } from '../archive';
import { parseQuery } from '../archive';
import type { Pseudonymiser } from '../text';
import { userKey, type RowFacts } from './network-entities';

/** Where the facts' rows come from: the archive (`Archive.networkFactRows`, `q` parsed). */
export interface FactsSource {
  networkFactRows(q: LibraryQuery, authors: boolean): Iterable<FactRow>;
}

const num = (v: unknown): number | null =>
  typeof v === 'number' && Number.isFinite(v)
    ? v
    : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))
      ? Number(v)
      : null;

/** What a network kind reads: authors only for the networks whose nodes include authors. */
export function factsOptionsFor(kind: string): FactsOptions {
  return { authors: isNetworkKind(kind) && NETWORK_KIND_DEFS[kind].readsAuthors };
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
export function* archiveFacts(
  archive: FactsSource,
  input: LibraryQuery,
  p: Pseudonymiser | null = null,
  opts: FactsOptions = {},
): Generator<RowFacts> {
  const authors = opts.authors ?? true;
  for (const r of archive.networkFactRows(parseQuery(input), authors)) {
    const [platform, kind, id, text, likes, parentId, sp, intentValue, sentimentValue, authorId, username, displayName, followers, ovJson] =
      r;
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
      author: key
        ? {
            key,
            id: uid,
            username: u,
            displayName: p ? (u ?? (displayName ? p.opaque('name', displayName) : null)) : displayName,
            followers: num(followers),
          }
        : null,
      parentId,
      likes,
      labels: { sponsoredP, intent, sentiment },
    };
  }
}
