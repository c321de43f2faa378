/**
 * Library queries: keyset pages of items with their annotations, exact totals (cached per filter
 * set), one item with its provenance. The SQL of a LibraryQuery is built by sql-query.ts, a page's
 * cursor is cursor.ts's.
 */
import type {
  ArchivedItem,
  ItemCall,
  LabelOverrideEntry,
  LibraryListRow,
  LibraryPage,
  LibraryQuery,
  LibraryRow,
  LibraryRowFields,
} from '../../shared/query';
import type { ItemRef } from '../ports';
import { hiddenCounts, recordThumbnail } from '../../shared/record-fields';
import { ArchiveError } from './archive-error';
import type { ArchiveCtx } from './context';
import { annotationLog } from './annotation-log';
import { itemHistory } from './readings';
import { applyOverrides, labelValue, type Columns, type Json } from './extract';
import { overridesObject, overridesOf, type OverrideList } from './labels';
import { buildWhere, pageSize, parseQuery, sortColumn, sortPlan, type Estimator, type Sampler, type Where } from './sql-query';
import { decodeCursor, encodeCursor, queryHash, stableStringify, type Cursor } from './cursor';
import { and, part, raw, sql, SqlPart, where } from './sql';

/** An `items` row: the identity, the raw record, the extracted columns, and bookkeeping. */
export interface ItemRow extends Columns {
  rid: number;
  platform: string;
  kind: string;
  id: string;
  raw: string;
  first_seen_at: number;
  last_seen_at: number;
  seen_count: number;
  unavailable: string | null;
}

const ITEM_COLS =
  'i.rid, i.platform, i.kind, i.id, i.raw, i.published_at, i.author_id, i.author_username, i.author_display_name, ' +
  'i.text, i.url, i.lang, i.views, i.likes, i.comments, i.shares, i.saves, i.parent_id, i.post_kind, i.labels, ' +
  'i.relevance_p, i.followers, i.title, i.first_seen_at, i.last_seen_at, i.seen_count, i.unavailable';

function rowsToLibrary(c: ArchiveCtx, rows: ItemRow[]): LibraryRow[];
function rowsToLibrary(c: ArchiveCtx, rows: ItemRow[], lean: true): LibraryListRow[];
function rowsToLibrary(c: ArchiveCtx, rows: ItemRow[], lean = false): LibraryRow[] | LibraryListRow[] {
  if (rows.length === 0) return [];
  const rids = JSON.stringify(rows.map((r) => r.rid));
  const tags = new Map<number, string[]>();
  for (const t of c.sql.all<{ rid: number; name: string }>(
    sql`SELECT it.item_rid AS rid, t.name FROM item_tags it JOIN tags t ON t.tag_id = it.tag_id
        WHERE it.item_rid IN (SELECT value FROM json_each(${rids})) ORDER BY t.name COLLATE NOCASE`,
  )) {
    let l = tags.get(t.rid);
    if (!l) tags.set(t.rid, (l = []));
    l.push(t.name);
  }
  const notes = new Map<number, string>();
  for (const n of c.sql.all<{ rid: number; text: string }>(
    sql`SELECT item_rid AS rid, text FROM notes WHERE item_rid IN (SELECT value FROM json_each(${rids}))`,
  )) {
    notes.set(n.rid, n.text);
  }
  const ovs = new Map<number, OverrideList>();
  for (const o of c.sql.all<{ rid: number; family: string; field: string; value: string; at: number }>(
    sql`SELECT item_rid AS rid, family, field, value, at FROM label_overrides WHERE item_rid IN (SELECT value FROM json_each(${rids})) ORDER BY family, field`,
  )) {
    let l = ovs.get(o.rid);
    if (!l) ovs.set(o.rid, (l = []));
    l.push({ family: o.family, field: o.field, value: JSON.parse(o.value) as unknown, at: o.at });
  }
  const fields = (r: ItemRow, record: Json) => rowFields(r, record, tags.get(r.rid) ?? [], notes.get(r.rid) ?? null, ovs.get(r.rid) ?? []);
  const each = <T>(make: (f: LibraryRowFields, record: Json) => T) =>
    rows.map((r) => {
      const record = JSON.parse(r.raw) as Json;
      return make(fields(r, record), record);
    });
  return lean ? each(listRow) : each(fullRow);
}

/** A full row: `record` keeps its place (4th key) in the CLI's JSON lines. */
function fullRow(f: LibraryRowFields, record: Json): LibraryRow {
  const { platform, kind, id, ...rest } = f;
  return { platform, kind, id, record, ...rest };
}

/** A lean row: the fields, and what a list shows from the record (src/shared/record-fields.ts). */
function listRow(f: LibraryRowFields, record: Json): LibraryListRow {
  return { ...f, thumbnailUrl: recordThumbnail(record) };
}

function rowFields(r: ItemRow, record: Json, tags: string[], note: string | null, ov: OverrideList): LibraryRowFields {
  const labels = r.labels === null ? null : (JSON.parse(r.labels) as Json);
  const eff = applyOverrides(labels, ov);
  return {
    platform: r.platform,
    kind: r.kind,
    id: r.id,
    tags,
    note,
    overrides: overridesObject(ov),
    firstSeenAt: r.first_seen_at,
    lastSeenAt: r.last_seen_at,
    seenCount: r.seen_count,
    publishedAt: r.published_at,
    author: { id: r.author_id, username: r.author_username, displayName: r.author_display_name },
    text: r.text,
    url: r.url,
    lang: r.lang,
    postKind: r.post_kind,
    parentId: r.parent_id,
    engagement: { views: r.views, likes: r.likes, comments: r.comments, shares: r.shares, saves: r.saves },
    hiddenCounts: hiddenCounts(record),
    followers: r.followers,
    title: r.title,
    labels: eff && Object.keys(eff).length > 0 ? (eff as Record<string, Record<string, unknown>>) : null,
    relevance: r.relevance_p,
  };
}

/**
 * Capped row count of a sub-select, for plan choice (see sql-query.ts Estimator):
 * dense when it reaches `denseAt` rows, or `minFor(archive size)` when given (ignored
 * when `denseAt` was set explicitly, which tests use to force a plan). The size is
 * max(rid), an O(log n) stand-in for count(*).
 */
export function estimator(c: ArchiveCtx): Estimator {
  return (fromWhere, params, minFor) => {
    let cap = c.denseAt;
    if (minFor !== undefined && !c.fixedDense) {
      const maxRid = c.sql.value<number | null>(sql`SELECT max(rid) AS m FROM items`) ?? 0;
      cap = Math.max(cap, Math.ceil(minFor(maxRid)));
    }
    // the sub-select's text and parameters come from sql-query.ts's one builder, in step: spliced as a part
    const sub = new SqlPart(fromWhere, params);
    return planMemo(
      c,
      `estimate\0${fromWhere}`,
      [...params, cap],
      () => (c.sql.value<number>(sql`SELECT count(*) AS n FROM (SELECT 1 ${sub} LIMIT ${cap})`) ?? 0) >= cap,
    );
  };
}

/** A sort walk's sample (sql-query.ts buildWhere). */
export function sampler(c: ArchiveCtx): Sampler {
  return (text, params) =>
    planMemo(c, text, params, () => c.sql.get<{ n: number; m: number }>(sql`${new SqlPart(text, params)}`) ?? { n: 0, m: 0 });
}

/**
 * A plan choice's sample or estimate, kept while the archive is as it was: every sort and text of
 * a network asks the same (a sample of a sort walk reads up to SAMPLE_ROWS rows, a dense-text
 * estimate up to ~63,000 index entries at 1M: 10-120 ms each, issue 30).
 */
function planMemo<T>(c: ArchiveCtx, text: string, params: unknown[], f: () => T): T {
  const key = `${text}\0${JSON.stringify(params)}`;
  const ver = c.dataVersion();
  const hit = c.planCache.get(key);
  if (hit && hit.ver === ver) return hit.v as T;
  const v = f();
  if (c.planCache.size >= 500) c.planCache.clear();
  c.planCache.set(key, { v, ver });
  return v;
}

/** Keyset page of rows. Sort values that are unknown come last in both directions; ties by rid. */
export function query(c: ArchiveCtx, input: LibraryQuery): LibraryPage {
  return page(c, input, (rows) => rowsToLibrary(c, rows), 'count');
}

/**
 * The same page as lean rows (no raw record: a list's page); cursors are shared with `query`.
 * Its total is the cached count when there is one, else null: a list shows its rows first and
 * asks `count` after (counting a network's share of a common word visits every match: 0.3-0.4 s
 * at 1M, issue 30), saying meanwhile that it is counting.
 */
export function listQuery(c: ArchiveCtx, input: LibraryQuery): LibraryPage<LibraryListRow> {
  return page(c, input, (rows) => rowsToLibrary(c, rows, true), 'cached');
}

function page<R extends LibraryRowFields>(
  c: ArchiveCtx,
  input: LibraryQuery,
  toRows: (rows: ItemRow[]) => R[],
  total: 'count' | 'cached',
): LibraryPage<R> {
  const q = parseQuery(input);
  const n = pageSize(q);
  const hash = queryHash(q);
  const plan = sortPlan(q);
  const w = buildWhere(q, estimator(c), sortColumn(plan), { dir: plan.dir, sample: sampler(c) });
  const cur: Cursor | null = q.after ? decodeCursor(q.after, hash) : null;
  const dir = plan.dir === 'desc' ? 'DESC' : 'ASC';
  const cmp = plan.dir === 'desc' ? '<' : '>';
  const got: Array<ItemRow & { sort_v: string | number | null; phase: 0 | 1 }> = [];
  if (!cur || cur.p === 0) {
    // the sort plan's and the filters' clauses come from sql-query.ts's builder, each with its
    // parameters in step; the cursor's position is bound here
    const known = new SqlPart(and([plan.known, ...w.clauses]), [...plan.knownParams, ...w.params]);
    const after = cur ? part(sql` AND (${raw(plan.expr)}, ${raw(plan.tie)}) ${raw(cmp)} (${cur.v}, ${cur.r})`) : raw('');
    // the page's keys first, then its rows: where many items share a sort value (one
    // publication time, 0 likes) SQLite sorts every tie by rid, and sorting the keys alone is
    // cheap where sorting whole rows (their raw records) is not
    const keys = c.sql.all<{ rid: number; sort_v: string | number }>(
      sql`SELECT i.rid AS rid, ${raw(plan.valueExpr)} AS sort_v FROM ${raw(plan.from0)}
      WHERE ${known}${after} ORDER BY ${raw(plan.expr)} ${raw(dir)}, ${raw(plan.tie)} ${raw(dir)} LIMIT ${n + 1}`,
    );
    const byRid = itemRowsByRid(
      c,
      keys.map((k) => k.rid),
    );
    for (const k of keys) {
      const r = byRid.get(k.rid);
      if (r) got.push({ ...r, sort_v: k.sort_v, phase: 0 });
    }
  }
  if (got.length <= n && plan.unknown !== null) {
    const unknown = new SqlPart(and([plan.unknown, ...(w.unknownClauses?.() ?? w.clauses)]), [...plan.unknownParams, ...w.params]);
    const after = cur && cur.p === 1 ? part(sql` AND i.rid ${raw(cmp)} ${cur.r}`) : raw('');
    for (const r of c.sql.all<ItemRow & { sort_v: null }>(
      sql`SELECT ${raw(ITEM_COLS)}, NULL AS sort_v FROM items i WHERE ${unknown}${after} ORDER BY i.rid ${raw(dir)} LIMIT ${n + 1 - got.length}`,
    ))
      got.push({ ...r, phase: 1 });
  }
  const shown = got.slice(0, n);
  const last = shown[shown.length - 1];
  const next = got.length > n && last ? encodeCursor({ h: hash, p: last.phase, v: last.sort_v, r: last.rid }) : null;
  return {
    rows: toRows(shown),
    next,
    total: q.after ? null : total === 'count' ? countQuery(c, q) : (cachedCount(c, q) ?? null),
  };
}

/** The `items` rows of these rids (in no particular order). */
function itemRowsByRid(c: ArchiveCtx, rids: number[]): Map<number, ItemRow> {
  const out = new Map<number, ItemRow>();
  if (rids.length === 0) return out;
  for (const r of c.sql.all<ItemRow>(
    sql`SELECT ${raw(ITEM_COLS)} FROM items i WHERE i.rid IN (SELECT value FROM json_each(${JSON.stringify(rids)}))`,
  ))
    out.set(r.rid, r);
  return out;
}

/**
 * Exact number of items matching the filters of `q`. Counting visits every match,
 * so it is the slow part of a first page on a big archive: the result is cached per
 * filter set (sort, limit, after do not change it) until the archive changes —
 * a write on this connection (`total_changes()`) or a commit by another one
 * (`PRAGMA data_version`). Re-sorting or going back to page 1 then costs nothing.
 */
export function countQuery(c: ArchiveCtx, q: LibraryQuery): number {
  const hit = cachedCount(c, q);
  if (hit !== undefined) return hit;
  const key = countKey(q);
  const ver = c.dataVersion();
  // counting visits every match: the materialised form is the cheaper plan there
  const n = countWhere(c, buildWhere(q));
  if (c.countCache.size >= 200) c.countCache.clear();
  c.countCache.set(key, { n, ver });
  return n;
}

function countKey(q: LibraryQuery): string {
  const { sort: _s, limit: _l, after: _a, ...filters } = q;
  return stableStringify(filters);
}

/** The count of `q`'s filters when it is cached for the archive as it is now, else undefined. */
function cachedCount(c: ArchiveCtx, q: LibraryQuery): number | undefined {
  const hit = c.countCache.get(countKey(q));
  return hit && hit.ver === c.dataVersion() ? hit.n : undefined;
}

function countWhere(c: ArchiveCtx, w: Where): number {
  if (w.clauses.length === 0) return c.sql.value<number>(sql`SELECT count(*) AS n FROM items`) ?? 0;
  // a lone clause's own count (sql-query.ts), its parameters the filter's
  const only = w.clauses.length === 1 ? w.counts?.get(w.clauses[0]) : undefined;
  if (only !== undefined) return c.sql.value<number>(sql`${new SqlPart(only, w.params)}`) ?? 0;
  return c.sql.value<number>(sql`SELECT count(*) AS n FROM items i WHERE ${where(w)}`) ?? 0;
}

export function ridOf(c: ArchiveCtx, ref: ItemRef): number | undefined {
  return c.sql.get<{ rid: number }>(sql`SELECT rid FROM items WHERE platform = ${ref.platform} AND kind = ${ref.kind} AND id = ${ref.id}`)
    ?.rid;
}

export function needRid(c: ArchiveCtx, ref: ItemRef): number {
  const rid = ridOf(c, ref);
  if (rid === undefined) throw new ArchiveError(`not in the archive: ${ref.platform}/${ref.kind}/${ref.id}`, 'not_found');
  return rid;
}

/** One item with its annotations and provenance, or undefined. */
export function getItem(c: ArchiveCtx, platform: string, kind: string, id: string): ArchivedItem | undefined {
  const r = c.sql.get<ItemRow>(
    sql`SELECT ${raw(ITEM_COLS)} FROM items i WHERE i.platform = ${platform} AND i.kind = ${kind} AND i.id = ${id}`,
  );
  if (!r) return undefined;
  const [row] = rowsToLibrary(c, [r]);
  const labels = r.labels === null ? null : (JSON.parse(r.labels) as Json);
  const overrideLog: LabelOverrideEntry[] = overridesOf(c, r.rid).map((o) => ({
    family: o.family,
    field: o.field,
    value: o.value,
    original: labelValue(labels, o.family, o.field) ?? null,
    at: o.at,
    author: o.author,
  }));
  const unavailable = r.unavailable ? (JSON.parse(r.unavailable) as unknown) : [];
  const avail = c.sql.one<{ checked_at: number | null; missing_since: number | null }>(
    sql`SELECT checked_at, missing_since FROM items WHERE rid = ${r.rid}`,
  );
  return {
    ...row,
    provenance: callsOfRid(c, r.rid),
    unavailable: Array.isArray(unavailable) ? unavailable.filter((u): u is string => typeof u === 'string') : [],
    overrideLog,
    annotationLog: annotationLog(c, r.rid),
    history: itemHistory(c, { platform, kind, id }),
    checkedAt: avail.checked_at,
    missingSince: avail.missing_since,
  };
}

/** Which calls returned the item, when and at what cost (newest first). */
export function itemCalls(c: ArchiveCtx, platform: string, kind: string, id: string): ItemCall[] {
  const rid = ridOf(c, { platform, kind, id });
  return rid === undefined ? [] : callsOfRid(c, rid);
}

function callsOfRid(c: ArchiveCtx, rid: number): ItemCall[] {
  const rows = c.sql.all<{
    call_id: string;
    position: number | null;
    platform: string;
    endpoint: string;
    fetched_at: number;
    source: string;
    walk_id: string | null;
    request_id: string | null;
    credits_used: number | null;
    cached: number | null;
    idempotent_replay: number | null;
    free_call: number | null;
    charge_reason: string | null;
  }>(
    sql`SELECT p.call_id, p.position, r.platform, r.endpoint, r.fetched_at, r.source, r.walk_id,
          c.request_id, c.credits_used, c.cached, c.idempotent_replay, c.free_call, c.charge_reason
        FROM provenance p
        JOIN responses r ON r.call_id = p.call_id
        LEFT JOIN calls c ON c.id = (SELECT id FROM calls WHERE call_id = p.call_id AND status BETWEEN 200 AND 299 ORDER BY attempt DESC, id DESC LIMIT 1)
        WHERE p.item_rid = ${rid}
        ORDER BY r.fetched_at DESC, p.call_id`,
  );
  return rows.map((x) => ({
    callId: x.call_id,
    requestId: x.request_id,
    at: x.fetched_at,
    source: x.source,
    walkId: x.walk_id,
    platform: x.platform,
    endpoint: x.endpoint,
    position: x.position,
    creditsUsed: x.credits_used ?? 0,
    cached: x.cached === 1,
    replay: x.idempotent_replay === 1,
    freeCall: x.free_call === 1,
    chargeReason: x.charge_reason,
  }));
}
