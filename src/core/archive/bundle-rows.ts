/**
 * What a dataset bundle reads from and writes to the archive (issue 29; docs/datasets.md
 * "Bundles"): the calls that delivered a query's items (stored answer, ledger facts), each item's
 * calls, and on import the imported calls (`imported_calls`, migration 0013) and annotations kept
 * with their own author and time.
 */
import type { LibraryQuery } from '../../shared/query';
import type { ItemRef } from '../ports';
import type { ArchiveCtx } from './context';
import * as annotations from './annotations';
import { buildWhere, parseQuery } from './sql-query';
import { and } from './sql';

/** One call that delivered items of the bundle, as the manifest lists it. */
export interface BundleCall {
  callId: string;
  platform: string;
  endpoint: string;
  params: Record<string, string> | null;
  fetchedAt: number;
  requestId: string | null;
  creditsUsed: number | null;
  cached: boolean | null;
  replayed: boolean | null;
  /** the stored answer exactly as kept (JSON text), null for bulk loads without one */
  answer: string | null;
}

/** The calls that delivered the query's items, oldest first (each once). */
export function* bundleCalls(c: ArchiveCtx, input: LibraryQuery): IterableIterator<BundleCall> {
  const w = buildWhere(parseQuery(input));
  const ids = c
    .st(`SELECT DISTINCT p.call_id FROM items i JOIN provenance p ON p.item_rid = i.rid WHERE ${and(w.clauses)}`)
    .pluck()
    .all(...w.params) as string[];
  const rows = ids
    .map(
      (id) =>
        c.st(`SELECT call_id, platform, endpoint, fetched_at FROM responses WHERE call_id = ?`).raw(true).get(id) as
          [string, string, string, number] | undefined,
    )
    .filter((r): r is [string, string, string, number] => r !== undefined)
    .sort((a, b) => a[3] - b[3] || (a[0] < b[0] ? -1 : 1));
  for (const [callId, platform, endpoint, fetchedAt] of rows) {
    const answer = c.st(`SELECT envelope FROM responses WHERE call_id = ?`).pluck().get(callId) as string | null;
    const led = c
      .st(
        `SELECT params, request_id, credits_used, cached, idempotent_replay FROM calls WHERE call_id = ? AND status BETWEEN 200 AND 299 AND dry_run = 0 ORDER BY attempt DESC, id DESC LIMIT 1`,
      )
      .raw(true)
      .get(callId) as [string, string | null, number, number, number] | undefined;
    const imp = led
      ? undefined
      : (c.st(`SELECT params, request_id, credits_used, cached, replayed FROM imported_calls WHERE call_id = ?`).raw(true).get(callId) as
          [string, string | null, number | null, number | null, number | null] | undefined);
    const src = led ?? imp;
    const journal = src ? null : (c.st(`SELECT params FROM journal WHERE call_id = ?`).pluck().get(callId) as string | undefined);
    const params = src ? src[0] : journal;
    yield {
      callId,
      platform,
      endpoint,
      params: params ? (JSON.parse(params) as Record<string, string>) : null,
      fetchedAt,
      requestId: src ? src[1] : null,
      creditsUsed: src ? src[2] : null,
      cached: src && src[3] !== null ? src[3] === 1 : null,
      replayed: src && src[4] !== null ? src[4] === 1 : null,
      answer,
    };
  }
}

/** Each item of the query (archive order) with the calls that returned it. */
export function* bundleItems(c: ArchiveCtx, input: LibraryQuery): IterableIterator<ItemRef & { calls: string[]; url: string | null }> {
  const w = buildWhere(parseQuery(input));
  const st = c.st(
    `SELECT i.platform, i.kind, i.id, (SELECT json_group_array(p.call_id) FROM provenance p WHERE p.item_rid = i.rid), i.url FROM items i WHERE ${and(w.clauses)} ORDER BY i.rid`,
  );
  for (const r of st.raw(true).iterate(...w.params) as IterableIterator<[string, string, string, string, string | null]>)
    yield { platform: r[0], kind: r[1], id: r[2], calls: (JSON.parse(r[3]) as string[]).sort(), url: r[4] };
}

export function hasResponse(c: ArchiveCtx, callId: string): boolean {
  return c.st(`SELECT 1 FROM responses WHERE call_id = ?`).get(callId) !== undefined;
}

/** The stored answer of a call, as kept (JSON text); null when none or a bulk load. */
export function storedAnswer(c: ArchiveCtx, callId: string): string | null {
  return (c.st(`SELECT envelope FROM responses WHERE call_id = ?`).pluck().get(callId) as string | null | undefined) ?? null;
}

export function recordImportedCall(
  c: ArchiveCtx,
  bundle: string,
  call: Omit<BundleCall, 'answer'> & { answerSha256: string | null },
  at: number,
): void {
  c.st(
    `INSERT OR IGNORE INTO imported_calls (call_id, bundle, platform, endpoint, params, fetched_at, request_id, credits_used, cached, replayed, answer_sha256, imported_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    call.callId,
    bundle,
    call.platform,
    call.endpoint,
    JSON.stringify(call.params ?? {}),
    call.fetchedAt,
    call.requestId,
    call.creditsUsed,
    call.cached === null ? null : call.cached ? 1 : 0,
    call.replayed === null ? null : call.replayed ? 1 : 0,
    call.answerSha256,
    at,
  );
}

/** An annotation as a bundle carries it. */
export interface BundleAnnotation extends ItemRef {
  type: 'tag' | 'note' | 'override';
  name: string;
  value: unknown;
  author: string | null;
  at: number;
}

/**
 * Adds one annotation with its own author and time. A tag is added (a union); a note or an
 * override the item already has with another value is a conflict: left as it is, returned.
 */
export function importAnnotation(c: ArchiveCtx, a: BundleAnnotation): 'added' | 'same' | 'conflict' | 'no_item' {
  const rid = c.st(`SELECT rid FROM items WHERE platform = ? AND kind = ? AND id = ?`).pluck().get(a.platform, a.kind, a.id) as
    number | undefined;
  if (rid === undefined) return 'no_item';
  if (a.type === 'tag') {
    const had =
      c.st(`SELECT 1 FROM item_tags it JOIN tags t ON t.tag_id = it.tag_id WHERE it.item_rid = ? AND t.name = ?`).get(rid, a.name) !==
      undefined;
    if (had) return 'same';
    annotations.addTag(c, a, a.name);
    c.st(`UPDATE item_tags SET author = ?, at = ? WHERE item_rid = ? AND tag_id = (SELECT tag_id FROM tags WHERE name = ?)`).run(
      a.author,
      a.at,
      rid,
      a.name,
    );
    return 'added';
  }
  if (a.type === 'note') {
    const had = c.st(`SELECT text FROM notes WHERE item_rid = ?`).pluck().get(rid) as string | undefined;
    if (had !== undefined) return had === a.value ? 'same' : 'conflict';
    annotations.setNote(c, a, String(a.value));
    c.st(`UPDATE notes SET author = ?, updated_at = ? WHERE item_rid = ?`).run(a.author, a.at, rid);
    return 'added';
  }
  const dot = a.name.indexOf('.');
  const [family, field] = [a.name.slice(0, dot), a.name.slice(dot + 1)];
  const had = c.st(`SELECT value FROM label_overrides WHERE item_rid = ? AND family = ? AND field = ?`).pluck().get(rid, family, field) as
    string | undefined;
  if (had !== undefined) return had === JSON.stringify(a.value ?? null) ? 'same' : 'conflict';
  annotations.overrideLabel(c, a, family, field, a.value);
  c.st(`UPDATE label_overrides SET author = ?, at = ? WHERE item_rid = ? AND family = ? AND field = ?`).run(
    a.author,
    a.at,
    rid,
    family,
    field,
  );
  return 'added';
}
