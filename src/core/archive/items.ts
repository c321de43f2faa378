/**
 * The items and the stored answers: `items`, `responses`, `provenance`. storeResponse / ingestItems
 * upsert every item of an answer or a bulk batch in one transaction (docs/archive.md "Upsert
 * rules"); this is the archive's hot path (perf.test.ts, bench/library.bench.ts).
 */
import type { Envelope } from '../../shared/api-types';
import type { ItemRef, StoredResponse } from '../ports';
import { ArchiveError } from './archive-error';
import type { ArchiveCtx } from './context';
import {
  extractColumns,
  flattenLabels,
  itemsOfData,
  mergeRecord,
  readItems,
  recordId,
  refKey,
  type Columns,
  type Json,
  type LabelLeaf,
} from './extract';
import { fieldId, fieldIds, overridesOf, parseLabels, recordLeaves, writeLeaves, writeNewLeaves, type NewLeaf } from './labels';
import { countsAtAfterMerge, countsOf } from './readings';
import { sql, SqlPart } from './sql';

/** One record to bulk-load (benchmarks, imports). */
export interface IngestRow {
  platform: string;
  kind: string;
  record: Record<string, unknown>;
}
/** Optional provenance of a bulk load: recorded as a stored answer without an envelope. */
export interface IngestProvenance {
  callId: string;
  source: string;
  walkId?: string | null;
  platform?: string;
  endpoint?: string;
  paramsHash?: string;
  fetchedAt?: number;
  unavailable?: string[];
}

export type Ingested = { items: ItemRef[]; newItems: number };

/** An incoming row with its label leaves flattened once (they name the field ids to resolve first). */
type IncomingRow = { platform: string; kind: string; id: string; record: Json; position: number; leaves: LabelLeaf[] | null };

/** What the merge of a known item reads of it. */
type OldRow = {
  rid: number;
  raw: string;
  labels: string | null;
  views: number | null;
  likes: number | null;
  comments: number | null;
  shares: number | null;
  saves: number | null;
  counts_at: number | null;
  first_seen_at: number;
};

/** the extracted columns, in extractColumns' order (read from the first merge) */
let mergeCols: Array<keyof Columns & string> | null = null;

/**
 * Insert or merge one item; returns its rid and whether it was new. Later answers update counts
 * and labels; nulls never erase known values (extract.ts mergeRecord). A new item's label rows go
 * to `leaves` when given (written by the caller in one sorted sweep, see writeNewLeaves), else at once.
 */
function upsert(
  c: ArchiveCtx,
  platform: string,
  kind: string,
  id: string,
  record: Json,
  seenAt: number,
  unavailable: string | null,
  flat: LabelLeaf[] | null,
  leaves?: NewLeaf[],
): { rid: number; isNew: boolean } {
  const x = extractColumns(kind, record);
  const ins = c.sql.insert`items ON CONFLICT (platform, kind, id) DO NOTHING`({
    platform,
    kind,
    id,
    raw: JSON.stringify(record),
    ...x,
    unavailable,
    first_seen_at: seenAt,
    last_seen_at: seenAt,
    seen_count: 1,
  });
  if (ins.changes === 1) {
    const rid = Number(ins.lastInsertRowid);
    // x.labels is the JSON text of record.computed.labels (extractColumns); `flat` its leaves
    if (x.labels !== null && flat !== null) {
      if (leaves) for (const [family, field, value] of flat) leaves.push([fieldId(c, family, field), value, rid]);
      else writeLeaves(c, rid, [], flat);
    }
    return { rid, isNew: true };
  }
  // every column: the UPDATE below sets only those whose value changes
  const old = c.sql.get<OldRow & Record<string, unknown>>(
    sql`SELECT * FROM items WHERE platform = ${platform} AND kind = ${kind} AND id = ${id}`,
  );
  if (!old) throw new ArchiveError(`item vanished during upsert: ${platform}/${kind}/${id}`, 'internal');
  const merged = mergeRecord(JSON.parse(old.raw) as Json, record);
  const m = extractColumns(kind, merged);
  mergeCols ??= Object.keys(m) as Array<keyof Columns & string>;
  const countsAt = countsAtAfterMerge(
    c,
    { rid: old.rid, counts: countsOf(old), at: old.counts_at ?? old.first_seen_at, countsAt: old.counts_at },
    countsOf(m),
    seenAt,
  );
  // counts_at: readings.ts; an answer read after the item was found missing shows it is back
  c.sql.run(sql`UPDATE items SET ${changedSet(old, m, JSON.stringify(merged), unavailable, seenAt, countsAt)} WHERE rid = ${old.rid}`);
  if (m.labels !== old.labels) {
    const ov = overridesOf(c, old.rid);
    writeLeaves(c, old.rid, flattenLabels(parseLabels(old.labels), ov), flattenLabels(parseLabels(m.labels), ov));
  }
  return { rid: old.rid, isNew: false };
}

/**
 * The SET list of a merge: only the columns whose value changes (raw, the extracted columns, the
 * times), so that an UPDATE touches only the indexes of what changed — a re-read whose counts
 * grew rewrites the count indexes, not the author, time or relevance ones. The row ends as
 * setting them all would leave it: unavailable = COALESCE(new, old), first_seen_at = min,
 * last_seen_at = max, seen_count + 1, missing_since cleared when it is older than this reading.
 */
function changedSet(
  old: OldRow & Record<string, unknown>,
  m: Columns,
  raw: string,
  unavailable: string | null,
  seenAt: number,
  countsAt: number | null,
): SqlPart {
  let text = 'last_seen_at = max(last_seen_at, ?), seen_count = seen_count + 1';
  const values: unknown[] = [seenAt];
  const set = (col: string, v: unknown): void => {
    text += `, ${col} = ?`;
    values.push(v);
  };
  if (raw !== old.raw) set('raw', raw);
  for (const k of mergeCols ?? []) if (m[k] !== old[k]) set(k, m[k]);
  if (unavailable !== null && unavailable !== old.unavailable) set('unavailable', unavailable);
  if (seenAt < old.first_seen_at) set('first_seen_at', seenAt);
  if (countsAt !== old.counts_at) set('counts_at', countsAt);
  if (typeof old.missing_since === 'number' && old.missing_since < seenAt) text += ', missing_since = NULL';
  return new SqlPart(text, values);
}

function insertResponse(
  c: ArchiveCtx,
  r: {
    call_id: string;
    platform: string;
    endpoint: string;
    params_hash: string;
    fetched_at: number;
    source: string;
    walk_id: string | null;
    unavailable: string | null;
    envelope: string | null;
  },
): void {
  c.sql.insert`responses ON CONFLICT (call_id) DO UPDATE SET platform = excluded.platform, endpoint = excluded.endpoint,
       params_hash = excluded.params_hash, fetched_at = excluded.fetched_at, source = excluded.source,
       walk_id = excluded.walk_id, unavailable = excluded.unavailable, envelope = COALESCE(excluded.envelope, envelope)`(r);
}

/** Incoming rows with their leaves, and every field id they name resolved (before the write transaction). */
function incoming(c: ArchiveCtx, rows: Array<Omit<IncomingRow, 'leaves'>>): IncomingRow[] {
  const keys = new Set<string>();
  const out = rows.map((r) => {
    const leaves = recordLeaves(r.record);
    if (leaves) for (const [family, field] of leaves) keys.add(family + '\u0000' + field);
    return { ...r, leaves };
  });
  fieldIds(c, keys);
  return out;
}

function ingestMany(
  c: ArchiveCtx,
  rows: Iterable<IncomingRow>,
  seenAt: number,
  unavailable: string | null,
  callId: string | null,
): Ingested {
  const items: ItemRef[] = [];
  const seen = new Set<string>();
  let newItems = 0;
  const leaves: NewLeaf[] = [];
  for (const r of rows) {
    const ref = { platform: r.platform, kind: r.kind, id: r.id };
    const key = refKey(ref);
    if (seen.has(key)) continue; // the same item twice in one answer counts once
    seen.add(key);
    const { rid, isNew } = upsert(c, r.platform, r.kind, r.id, r.record, seenAt, unavailable, r.leaves, leaves);
    if (isNew) newItems++;
    if (callId !== null) c.sql.insert`provenance ON CONFLICT DO NOTHING`({ call_id: callId, item_rid: rid, position: r.position });
    items.push(ref);
  }
  writeNewLeaves(c, leaves);
  return { items, newItems };
}

export function storeResponse(c: ArchiveCtx, r: StoredResponse, source: string, walkId: string | null): Ingested {
  const env = r.envelope as Envelope;
  const found = incoming(
    c,
    itemsOfData(env.data, r.endpoint).map((it) => ({
      platform: r.platform,
      kind: it.kind,
      id: it.id,
      record: it.record,
      position: it.position,
    })),
  );
  return c.tx(() => {
    const unavailable = Array.isArray(env.unavailable) ? JSON.stringify(env.unavailable) : null;
    insertResponse(c, {
      call_id: r.callId,
      platform: r.platform,
      endpoint: r.endpoint,
      params_hash: r.paramsHash,
      fetched_at: r.fetchedAt,
      source,
      walk_id: walkId,
      unavailable,
      envelope: JSON.stringify(env),
    });
    return ingestMany(c, found, r.fetchedAt, unavailable, r.callId);
  });
}

/** Bulk load (benchmarks, imports): one transaction for all rows. */
export function ingestItems(c: ArchiveCtx, rows: IngestRow[], provenance?: IngestProvenance): Ingested {
  // every record needs an id: checked before anything is written
  const found = incoming(
    c,
    rows.map((r, position) => {
      const id = recordId(r.record, r.kind);
      if (id === null) throw new ArchiveError(`record without id (${r.platform}/${r.kind})`);
      return { platform: r.platform, kind: r.kind, id, record: r.record, position };
    }),
  );
  return c.tx(() => {
    const at = provenance?.fetchedAt ?? c.clock();
    const unavailable = provenance?.unavailable ? JSON.stringify(provenance.unavailable) : null;
    if (provenance) {
      insertResponse(c, {
        call_id: provenance.callId,
        platform: provenance.platform ?? rows[0]?.platform ?? '',
        endpoint: provenance.endpoint ?? '',
        params_hash: provenance.paramsHash ?? '',
        fetched_at: at,
        source: provenance.source,
        walk_id: provenance.walkId ?? null,
        unavailable,
        envelope: null,
      });
    }
    return ingestMany(c, found, at, unavailable, provenance ? provenance.callId : null);
  });
}

/** A walk answered from a stored response: its items linked to the walk and source, once (a pseudo answer, no envelope). */
export function linkStoredResponse(c: ArchiveCtx, r: StoredResponse, source: string, walkId: string | null): Ingested {
  const rows = readItems(r.envelope.data, r.endpoint).items.map((it) => ({ platform: r.platform, kind: it.kind, record: it.record }));
  if (rows.length === 0) return { items: [], newItems: 0 };
  const callId = `archived:${walkId ?? source}:${r.callId}`;
  const linked = c.sql.get(sql`SELECT 1 FROM responses WHERE call_id = ${callId}`) !== undefined;
  const unavailable = Array.isArray(r.envelope.unavailable) ? (r.envelope.unavailable as string[]) : undefined;
  return c.guard('write', () =>
    ingestItems(
      c,
      rows,
      linked
        ? undefined
        : { callId, source, walkId, platform: r.platform, endpoint: r.endpoint, paramsHash: '', fetchedAt: c.clock(), unavailable },
    ),
  );
}

export function findFreshResponse(
  c: ArchiveCtx,
  platform: string,
  endpoint: string,
  paramsHash: string,
  since: number,
): StoredResponse | undefined {
  const r = c.sql.get<{ call_id: string; fetched_at: number; envelope: string }>(
    sql`SELECT call_id, fetched_at, envelope FROM responses
        WHERE platform = ${platform} AND endpoint = ${endpoint} AND params_hash = ${paramsHash} AND fetched_at >= ${since} AND envelope IS NOT NULL
        ORDER BY fetched_at DESC LIMIT 1`,
  );
  if (!r) return undefined;
  return { callId: r.call_id, platform, endpoint, paramsHash, fetchedAt: r.fetched_at, envelope: JSON.parse(r.envelope) as Envelope };
}
