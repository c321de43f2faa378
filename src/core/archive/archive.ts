/**
 * The local SQLite archive: persistence for the request core (CoreStore) and the
 * library on top of it (queries, full-text search, aggregates, annotations,
 * export rows). Synchronous (better-sqlite3); every public method is one
 * transaction or one read statement. See docs/archive.md.
 */
import Database, { type Statement } from 'better-sqlite3';
import type {
  CoreStore,
  ExportRow,
  ItemRef,
  JournalEntry,
  LedgerEntry,
  StoredResponse,
  WalkOwner,
  WalkState,
  WalkStatus,
} from '../ports';
import { toStorageError, type StorageOp } from '../storage-error';
import { currentOwner, ownerAlive } from './owner';
import type { Envelope } from '../../shared/api-types';
import type {
  ArchivedItem,
  AuthorCount,
  CreditsPoint,
  EngagementField,
  EngagementPoint,
  ItemCall,
  LabelOverrideEntry,
  LabelOverrides,
  LabelShare,
  LibraryPage,
  LibraryQuery,
  LibraryRow,
  ResultSet,
  TagCount,
  TimeBucket,
  UsageCounts,
  VolumePoint,
} from '../../shared/query';
import { registerTermFunctions } from '../analysis/term-filter';
import { openDb, type Db } from './db';
import {
  applyOverrides,
  diffLeaves,
  extractColumns,
  flattenLabels,
  itemsOfData,
  readItems,
  labelValue,
  mergeRecord,
  recordId,
  refKey,
  type Columns,
  type Json,
  type LabelLeaf,
  type LabelScalar,
} from './extract';
import {
  buildWhere,
  decodeCursor,
  DENSE,
  encodeCursor,
  LABEL_FIELD,
  pageSize,
  parseQuery,
  queryHash,
  sortPlan,
  sortColumn,
  stableStringify,
  QueryError,
  type Cursor,
  type SortPlan,
  type Where,
} from './sql-query';
import { ArchiveError } from './archive-error';

export { QueryError } from './sql-query';
export { ArchiveVersionError } from './db';
export { ArchiveError };

export interface OpenArchiveOptions {
  /** ms since epoch; used for annotation times and bulk-ingest seen times */
  clock?: () => number;
  /**
   * The archive's path as the user knows it, for error messages (default: the file opened).
   * A read-only snapshot (open.ts) opens a temporary copy but names the original.
   */
  path?: string;
  /** called once by close() (a snapshot removes its temporary copy) */
  onClose?: () => void;
  /** matching rows from which a filter is probed per row instead of materialised (tests force 1) */
  denseAt?: number;
}

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

/** An `items` row: the identity, the raw record, the extracted columns, and bookkeeping. */
interface ItemRow extends Columns {
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
  'i.relevance_p, i.first_seen_at, i.last_seen_at, i.seen_count, i.unavailable';

const b = (v: boolean): number => (v ? 1 : 0);

interface CallRow {
  id: number;
  call_id: string;
  attempt: number;
  started_at: number;
  duration_ms: number;
  platform: string;
  endpoint: string;
  params: string;
  params_hash: string;
  idempotency_key: string | null;
  request_id: string | null;
  status: number | null;
  error_type: string | null;
  credits_used: number;
  credits_remaining: number | null;
  charge_reason: string | null;
  cached: number;
  free_call: number;
  idempotent_replay: number;
  source: string;
  walk_id: string | null;
  dry_run: number;
  key_name: string | null;
}

function ledgerFromRow(r: CallRow): LedgerEntry {
  return {
    id: r.id,
    callId: r.call_id,
    attempt: r.attempt,
    startedAt: r.started_at,
    durationMs: r.duration_ms,
    platform: r.platform,
    endpoint: r.endpoint,
    params: r.params,
    paramsHash: r.params_hash,
    idempotencyKey: r.idempotency_key,
    requestId: r.request_id,
    status: r.status,
    errorType: r.error_type,
    creditsUsed: r.credits_used,
    creditsRemaining: r.credits_remaining,
    chargeReason: r.charge_reason,
    cached: r.cached === 1,
    freeCall: r.free_call === 1,
    idempotentReplay: r.idempotent_replay === 1,
    source: r.source,
    walkId: r.walk_id,
    dryRun: r.dry_run === 1,
    keyName: r.key_name ?? null,
  };
}

interface JournalRow {
  call_id: string;
  op_key: string;
  idempotency_key: string;
  platform: string;
  endpoint: string;
  params: string;
  params_hash: string;
  state: JournalEntry['state'];
  created_at: number;
  finished_at: number | null;
  key_name: string | null;
}
function journalFromRow(r: JournalRow): JournalEntry {
  return {
    callId: r.call_id,
    opKey: r.op_key,
    idempotencyKey: r.idempotency_key,
    platform: r.platform,
    endpoint: r.endpoint,
    params: r.params,
    paramsHash: r.params_hash,
    state: r.state,
    createdAt: r.created_at,
    finishedAt: r.finished_at,
    keyName: r.key_name ?? null,
  };
}

interface WalkRow {
  owner_pid?: number | null;
  owner_host?: string | null;
  owner_start?: string | null;
  walk_id: string;
  platform: string;
  endpoint: string;
  params: string;
  cursor_param: string;
  cursor: string | null;
  pages_done: number;
  credits_spent: number;
  items_seen: number;
  status: WalkStatus;
  stop_reason: string | null;
  source: string;
  created_at: number;
  updated_at: number;
  error: string | null;
}
/**
 * A walk as readers see it: saved `running` by a process that is gone → `interrupted`
 * (owner.ts). A walk without a recorded owner was saved before migration 0005, by a Loupe that
 * can no longer write this file: gone too. Another host's walk cannot be checked: still running.
 */
function walkFromRow(r: WalkRow): WalkState {
  const owner: WalkOwner | null =
    r.owner_pid != null && r.owner_host != null && r.owner_start != null ? { pid: r.owner_pid, host: r.owner_host, start: r.owner_start } : null;
  let status = r.status;
  if (status === 'running' && (owner === null || ownerAlive(owner) === false)) status = 'interrupted';
  return {
    walkId: r.walk_id,
    platform: r.platform,
    endpoint: r.endpoint,
    params: r.params,
    cursorParam: r.cursor_param,
    cursor: r.cursor,
    pagesDone: r.pages_done,
    creditsSpent: r.credits_spent,
    itemsSeen: r.items_seen,
    status,
    stopReason: r.stop_reason,
    source: r.source,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    error: r.error,
    owner,
  };
}

type OverrideList = Array<{ family: string; field: string; value: unknown; at: number }>;

function overridesObject(list: OverrideList): LabelOverrides {
  const out: LabelOverrides = {};
  for (const o of list) (out[o.family] ??= {})[o.field] = o.value;
  return out;
}

const DAY_MS = 86_400_000;

/** UTC day number (days since 1970-01-01) → 'YYYY-MM-DD' of that day, or of the Monday starting its week. */
function bucketOfDay(day: number, bucket: TimeBucket): string {
  // 1970-01-01 was a Thursday: Monday-based weekday = (day + 3) mod 7
  const d = bucket === 'week' ? day - (((day + 3) % 7) + 7) % 7 : day;
  return new Date(d * DAY_MS).toISOString().slice(0, 10);
}

function parseLabels(s: string | null): Json | null {
  return s === null ? null : (JSON.parse(s) as Json);
}

/** A label row of a new item as bound: field id (label_fields.ff), value, item rid. */
type NewLeaf = [number, LabelScalar, number];

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
function recordLeaves(record: Json): LabelLeaf[] | null {
  const computed = record.computed;
  if (computed === null || typeof computed !== 'object' || Array.isArray(computed)) return null;
  const labels = (computed as Json).labels;
  if (labels === null || typeof labels !== 'object' || Array.isArray(labels)) return null;
  return flattenLabels(labels as Json);
}

/** An incoming row with its label leaves flattened once (they name the field ids to resolve first). */
type IncomingRow = { platform: string; kind: string; id: string; record: Json; position: number; leaves: LabelLeaf[] | null };

/**
 * An export row straight from the archive: the record is parsed on first use only, so an export
 * that hands `recordJson` to its worker threads never parses it on the reading thread.
 */
class StoredExportRow implements ExportRow {
  private parsed: Json | undefined;
  constructor(
    readonly platform: string,
    readonly kind: string,
    readonly id: string,
    readonly recordJson: string,
    readonly firstSeenAt: number,
    readonly lastSeenAt: number,
    readonly tags: string[],
    readonly note: string | null,
    readonly overrides: Record<string, Record<string, unknown>>,
  ) {}
  get record(): Json {
    return (this.parsed ??= JSON.parse(this.recordJson) as Json);
  }
}

function and(clauses: string[]): string {
  return clauses.length === 0 ? '1' : clauses.join(' AND ');
}

export class Archive implements CoreStore {
  readonly db: Db;
  /** the archive's path as the user knows it (error messages) */
  readonly path: string;
  private readonly onClose: (() => void) | undefined;
  private readonly clock: () => number;
  private readonly denseAt: number;
  private readonly fixedDense: boolean;
  private readonly stmtCache = new Map<string, Statement>();
  /**
   * label_fields ids by `family\0field`. Only ids that are committed go in here: they never
   * change, and an id created by a transaction that rolls back could otherwise be handed to
   * another field later (ids are max + 1). See fieldIds().
   */
  private readonly ffCache = new Map<string, number>();

  constructor(db: Db, opts: OpenArchiveOptions = {}) {
    this.db = db;
    this.path = opts.path ?? (db.name || ':memory:');
    this.onClose = opts.onClose;
    this.clock = opts.clock ?? Date.now;
    this.denseAt = Math.max(1, opts.denseAt ?? DENSE);
    this.fixedDense = opts.denseAt !== undefined;
  }

  close(): void {
    this.stmtCache.clear();
    if (this.db.open) {
      this.db.close();
      this.onClose?.();
    }
  }

  /** True when this connection cannot write (a read-only file or folder, or a snapshot). */
  get readonly(): boolean {
    return this.db.readonly || (this.db.pragma('query_only', { simple: true }) as number) === 1;
  }

  /**
   * Runs `f`, turning SQLite / file-system failures into a StorageError naming this archive, the
   * cause and the way out (disk full, read-only, damaged, locked, I/O). Other errors pass as they are.
   */
  private guard<T>(op: StorageOp, f: () => T): T {
    try {
      return f();
    } catch (e) {
      throw toStorageError(e, this.path, { op });
    }
  }

  /**
   * Rebuilds what is derived from the items (after `loupe archive recover`, which may have lost
   * rows of any table): the label rows from each item's labels and overrides, and the full-text
   * index from the items. One transaction.
   */
  rebuildDerived(): { items: number; labelRows: number } {
    return this.guard('write', () => {
      const fields = new Set<string>();
      const todo: Array<{ rid: number; leaves: LabelLeaf[] }> = [];
      const rows = this.st(
        `SELECT rid, labels FROM items WHERE labels IS NOT NULL OR rid IN (SELECT item_rid FROM label_overrides)`,
      ).all() as Array<{ rid: number; labels: string | null }>;
      for (const r of rows) {
        const leaves = flattenLabels(parseLabels(r.labels), this.overridesOf(r.rid));
        for (const [family, field] of leaves) fields.add(family + '\u0000' + field);
        todo.push({ rid: r.rid, leaves });
      }
      this.fieldIds(fields);
      let labelRows = 0;
      this.db.transaction(() => {
        this.db.exec('DELETE FROM item_labels');
        for (const t of todo) {
          this.writeLeaves(t.rid, [], t.leaves);
          labelRows += t.leaves.length;
        }
        this.db.exec("INSERT INTO items_fts (items_fts) VALUES ('rebuild')");
      })();
      this.stmtCache.clear();
      const items = (this.st('SELECT count(*) AS n FROM items').get() as { n: number }).n;
      return { items, labelRows };
    });
  }

  /** Prepared statement cache (dynamic library SQL is bounded by the query shapes). */
  private st(sql: string): Statement {
    let s = this.stmtCache.get(sql);
    if (!s) {
      if (this.stmtCache.size > 500) this.stmtCache.clear();
      s = this.db.prepare(sql);
      this.stmtCache.set(sql, s);
    }
    return s;
  }

  // ───────────────────────── idempotency journal ─────────────────────────

  findJournal(opKey: string): JournalEntry | undefined {
    const r = this.guard('read', () => this.st('SELECT * FROM journal WHERE op_key = ?').get(opKey) as JournalRow | undefined);
    return r ? journalFromRow(r) : undefined;
  }

  /** Writes the entry (re-beginning the same callId updates it; another call with the same opKey throws). */
  beginJournal(e: JournalEntry): void {
    this.guard('write', () => this.st(
      `INSERT INTO journal (call_id, op_key, idempotency_key, platform, endpoint, params, params_hash, state, created_at, finished_at, key_name)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (call_id) DO UPDATE SET op_key = excluded.op_key, idempotency_key = excluded.idempotency_key,
         platform = excluded.platform, endpoint = excluded.endpoint, params = excluded.params,
         params_hash = excluded.params_hash, state = excluded.state, created_at = excluded.created_at,
         finished_at = excluded.finished_at, key_name = excluded.key_name`,
    ).run(e.callId, e.opKey, e.idempotencyKey, e.platform, e.endpoint, e.params, e.paramsHash, e.state, e.createdAt, e.finishedAt, e.keyName ?? null));
  }

  finishJournal(callId: string, state: 'done' | 'failed', at: number): void {
    this.guard('write', () => this.st('UPDATE journal SET state = ?, finished_at = ? WHERE call_id = ?').run(state, at, callId));
  }

  pendingJournal(): JournalEntry[] {
    return this.guard('read', () => this.st("SELECT * FROM journal WHERE state = 'pending' ORDER BY created_at, call_id").all() as JournalRow[]).map(
      journalFromRow,
    );
  }

  // ───────────────────────── ledger ─────────────────────────

  recordAttempt(e: LedgerEntry): number {
    const r = this.guard('write', () => this.st(
      `INSERT INTO calls (call_id, attempt, started_at, duration_ms, platform, endpoint, params, params_hash, idempotency_key,
         request_id, status, error_type, credits_used, credits_remaining, charge_reason, cached, free_call, idempotent_replay,
         source, walk_id, dry_run, key_name)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      e.callId, e.attempt, e.startedAt, e.durationMs, e.platform, e.endpoint, e.params, e.paramsHash, e.idempotencyKey,
      e.requestId, e.status, e.errorType, e.creditsUsed, e.creditsRemaining, e.chargeReason, b(e.cached), b(e.freeCall),
      b(e.idempotentReplay), e.source, e.walkId, b(e.dryRun), e.keyName ?? null,
    ));
    return Number(r.lastInsertRowid);
  }

  /** Newest first; `beforeId` pages back. */
  listLedger(opts: { limit?: number; beforeId?: number; callId?: string } = {}): LedgerEntry[] {
    const limit = Math.min(Math.max(opts.limit ?? 200, 1), 10_000);
    const clauses: string[] = [];
    const params: unknown[] = [];
    if (opts.beforeId !== undefined) {
      clauses.push('id < ?');
      params.push(opts.beforeId);
    }
    if (opts.callId !== undefined) {
      clauses.push('call_id = ?');
      params.push(opts.callId);
    }
    return this.guard('read', () => this.st(`SELECT * FROM calls WHERE ${and(clauses)} ORDER BY id DESC LIMIT ?`).all(...params, limit) as CallRow[]).map(
      ledgerFromRow,
    );
  }

  // ───────────────────────── stored answers + items ─────────────────────────

  private readonly insItem = (): Statement =>
    this.st(
      `INSERT INTO items (platform, kind, id, raw, published_at, author_id, author_username, author_display_name, text, url, lang,
         views, likes, comments, shares, saves, parent_id, post_kind, labels, relevance_p, unavailable, first_seen_at, last_seen_at, seen_count)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)
       ON CONFLICT (platform, kind, id) DO NOTHING`,
    );

  /**
   * Insert or merge one record. Returns its rid and whether it was new.
   * Later answers update counts and labels; nulls never erase known values (extract.ts mergeRecord).
   */
  /**
   * Insert or merge one item. A new item's label rows go to `leaves` when given (written by
   * the caller in one sorted sweep, see writeNewLeaves), else at once.
   */
  private upsert(
    platform: string, kind: string, id: string, record: Json, seenAt: number, unavailable: string | null,
    flat: LabelLeaf[] | null, leaves?: NewLeaf[],
  ): { rid: number; isNew: boolean } {
    const c = extractColumns(kind, record);
    const ins = this.insItem().run(
      platform, kind, id, JSON.stringify(record), c.published_at, c.author_id, c.author_username, c.author_display_name, c.text,
      c.url, c.lang, c.views, c.likes, c.comments, c.shares, c.saves, c.parent_id, c.post_kind, c.labels, c.relevance_p,
      unavailable, seenAt, seenAt,
    );
    if (ins.changes === 1) {
      const rid = Number(ins.lastInsertRowid);
      // c.labels is the JSON text of record.computed.labels (extractColumns); `flat` its leaves
      if (c.labels !== null && flat !== null) {
        if (leaves) for (const [family, field, value] of flat) leaves.push([this.fieldId(family, field), value, rid]);
        else this.writeLeaves(rid, [], flat);
      }
      return { rid, isNew: true };
    }
    const old = this.st('SELECT rid, raw, labels FROM items WHERE platform = ? AND kind = ? AND id = ?').get(platform, kind, id) as
      | { rid: number; raw: string; labels: string | null }
      | undefined;
    if (!old) throw new ArchiveError(`item vanished during upsert: ${platform}/${kind}/${id}`, 'internal');
    const merged = mergeRecord(JSON.parse(old.raw) as Json, record);
    const m = extractColumns(kind, merged);
    this.st(
      `UPDATE items SET raw = ?, published_at = ?, author_id = ?, author_username = ?, author_display_name = ?, text = ?, url = ?,
         lang = ?, views = ?, likes = ?, comments = ?, shares = ?, saves = ?, parent_id = ?, post_kind = ?, labels = ?,
         relevance_p = ?, unavailable = COALESCE(?, unavailable), first_seen_at = min(first_seen_at, ?),
         last_seen_at = max(last_seen_at, ?), seen_count = seen_count + 1
       WHERE rid = ?`,
    ).run(
      JSON.stringify(merged), m.published_at, m.author_id, m.author_username, m.author_display_name, m.text, m.url, m.lang,
      m.views, m.likes, m.comments, m.shares, m.saves, m.parent_id, m.post_kind, m.labels, m.relevance_p, unavailable, seenAt,
      seenAt, old.rid,
    );
    if (m.labels !== old.labels) {
      const ov = this.overridesOf(old.rid);
      this.writeLeaves(old.rid, flattenLabels(parseLabels(old.labels), ov), flattenLabels(parseLabels(m.labels), ov));
    }
    return { rid: old.rid, isNew: false };
  }

  /**
   * Ids of (family, field) pairs (`family\0field` keys), created in label_fields when new.
   * Run before a write transaction (ingest, overrides): outside any transaction the ids are
   * read or created in a step of their own that commits at once, and only then cached. Inside
   * a caller's transaction nothing is cached (that transaction may still roll back); fieldId()
   * then reads or creates each id in it.
   */
  private fieldIds(keys: Iterable<string>): void {
    const missing = [...keys].filter((k) => !this.ffCache.has(k));
    if (missing.length === 0) return;
    const cache = !this.db.inTransaction;
    // IMMEDIATE: the write lock first (waiting out busy_timeout), so another process sharing
    // the file cannot create the same field between this read and this insert
    const ids = this.db.transaction(() => missing.map((k) => this.resolveField(k))).immediate();
    if (cache) missing.forEach((k, i) => this.ffCache.set(k, ids[i]));
  }

  /** The id of one (family, field) pair: from the cache, else read or created (not cached: see fieldIds). */
  private fieldId(family: string, field: string): number {
    const key = family + '\u0000' + field;
    return this.ffCache.get(key) ?? this.resolveField(key);
  }

  private resolveField(key: string): number {
    const sep = key.indexOf('\u0000');
    const family = key.slice(0, sep);
    const field = key.slice(sep + 1);
    const found = this.st('SELECT ff FROM label_fields WHERE family = ? AND field = ?').get(family, field) as { ff: number } | undefined;
    if (found) return found.ff;
    return Number(this.st('INSERT INTO label_fields (family, field) VALUES (?, ?)').run(family, field).lastInsertRowid);
  }

  /** Move the effective label rows of one item from `before` to `after` (exact keys: see migration 0004). */
  private writeLeaves(rid: number, before: LabelLeaf[], after: LabelLeaf[]): void {
    const { del, ins } = before.length === 0 ? { del: [], ins: after } : diffLeaves(before, after);
    if (del.length > 0) {
      const d = this.st('DELETE FROM item_labels WHERE ff = ? AND value = ? AND item_rid = ?');
      for (const [family, field, value] of del) d.run(this.fieldId(family, field), value, rid);
    }
    // one multi-row statement per chunk of up to 16 leaves (fewer native calls than one per leaf)
    for (let k = 0; k < ins.length; k += 16) {
      const chunk = ins.slice(k, k + 16);
      const args: unknown[] = [];
      for (const [family, field, value] of chunk) args.push(this.fieldId(family, field), value, rid);
      this.st(`INSERT OR IGNORE INTO item_labels (ff, value, item_rid) VALUES ${chunk.map(() => '(?, ?, ?)').join(', ')}`).run(...args);
    }
  }

  private overridesOf(rid: number): OverrideList {
    return (
      this.st('SELECT family, field, value, at FROM label_overrides WHERE item_rid = ? ORDER BY family, field').all(rid) as Array<{
        family: string;
        field: string;
        value: string;
        at: number;
      }>
    ).map((o) => ({ family: o.family, field: o.field, value: JSON.parse(o.value) as unknown, at: o.at }));
  }

  private insertResponse(
    callId: string, platform: string, endpoint: string, paramsHash: string, fetchedAt: number, source: string,
    walkId: string | null, unavailable: string | null, envelope: string | null,
  ): void {
    this.st(
      `INSERT INTO responses (call_id, platform, endpoint, params_hash, fetched_at, source, walk_id, unavailable, envelope)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (call_id) DO UPDATE SET platform = excluded.platform, endpoint = excluded.endpoint,
         params_hash = excluded.params_hash, fetched_at = excluded.fetched_at, source = excluded.source,
         walk_id = excluded.walk_id, unavailable = excluded.unavailable, envelope = COALESCE(excluded.envelope, envelope)`,
    ).run(callId, platform, endpoint, paramsHash, fetchedAt, source, walkId, unavailable, envelope);
  }

  /** Incoming rows with their leaves, and every field id they name resolved (before the write transaction). */
  private incoming(rows: Array<Omit<IncomingRow, 'leaves'>>): IncomingRow[] {
    const keys = new Set<string>();
    const out = rows.map((r) => {
      const leaves = recordLeaves(r.record);
      if (leaves) for (const [family, field] of leaves) keys.add(family + '\u0000' + field);
      return { ...r, leaves };
    });
    this.fieldIds(keys);
    return out;
  }

  private ingestMany(
    rows: Iterable<IncomingRow>,
    seenAt: number,
    unavailable: string | null,
    callId: string | null,
  ): { items: ItemRef[]; newItems: number } {
    const items: ItemRef[] = [];
    const seen = new Set<string>();
    let newItems = 0;
    const prov = callId === null ? null : this.st('INSERT INTO provenance (call_id, item_rid, position) VALUES (?, ?, ?) ON CONFLICT DO NOTHING');
    const leaves: NewLeaf[] = [];
    for (const r of rows) {
      const ref = { platform: r.platform, kind: r.kind, id: r.id };
      const key = refKey(ref);
      if (seen.has(key)) continue; // the same item twice in one answer counts once
      seen.add(key);
      const { rid, isNew } = this.upsert(r.platform, r.kind, r.id, r.record, seenAt, unavailable, r.leaves, leaves);
      if (isNew) newItems++;
      if (prov) prov.run(callId, rid, r.position);
      items.push(ref);
    }
    this.writeNewLeaves(leaves);
    return { items, newItems };
  }

  /**
   * Label rows of the items new in one answer or bulk batch, in one sweep sorted in key order
   * (family, field, value, item): consecutive inserts land on the same b-tree pages instead of
   * ~13 places per item (measured at 100k posts: docs/archive.md "Performance").
   */
  private writeNewLeaves(leaves: NewLeaf[]): void {
    if (leaves.length === 0) return;
    leaves.sort(compareLeaves);
    const CHUNK = 64;
    let k = 0;
    if (leaves.length >= CHUNK) {
      const many = this.st(`INSERT OR IGNORE INTO item_labels (ff, value, item_rid) VALUES ${'(?, ?, ?), '.repeat(CHUNK - 1)}(?, ?, ?)`);
      const args = new Array<unknown>(CHUNK * 3);
      for (; k + CHUNK <= leaves.length; k += CHUNK) {
        for (let j = 0; j < CHUNK; j++) {
          const l = leaves[k + j];
          args[j * 3] = l[0];
          args[j * 3 + 1] = l[1];
          args[j * 3 + 2] = l[2];
        }
        many.run(args);
      }
    }
    const one = this.st('INSERT OR IGNORE INTO item_labels (ff, value, item_rid) VALUES (?, ?, ?)');
    for (; k < leaves.length; k++) one.run(leaves[k]);
  }

  storeResponse(r: StoredResponse, source: string, walkId: string | null): { items: ItemRef[]; newItems: number } {
    return this.guard('write', () => this.storeResponseUnguarded(r, source, walkId));
  }

  private storeResponseUnguarded(r: StoredResponse, source: string, walkId: string | null): { items: ItemRef[]; newItems: number } {
    const env = r.envelope as Envelope;
    const found = this.incoming(
      itemsOfData(env.data, r.endpoint).map((it) => ({ platform: r.platform, kind: it.kind, id: it.id, record: it.record, position: it.position })),
    );
    return this.db.transaction(() => {
      const unavailable = Array.isArray(env.unavailable) ? JSON.stringify(env.unavailable) : null;
      this.insertResponse(r.callId, r.platform, r.endpoint, r.paramsHash, r.fetchedAt, source, walkId, unavailable, JSON.stringify(env));
      return this.ingestMany(found, r.fetchedAt, unavailable, r.callId);
    })();
  }

  /** Bulk load (benchmarks, imports): one transaction for all rows. */
  linkStoredResponse(r: StoredResponse, source: string, walkId: string | null): { items: ItemRef[]; newItems: number } {
    const rows = readItems(r.envelope.data, r.endpoint).items.map((it) => ({ platform: r.platform, kind: it.kind, record: it.record }));
    if (rows.length === 0) return { items: [], newItems: 0 };
    const callId = `archived:${walkId ?? source}:${r.callId}`;
    const linked = this.st('SELECT 1 FROM responses WHERE call_id = ?').get(callId) !== undefined;
    const unavailable = Array.isArray(r.envelope.unavailable) ? (r.envelope.unavailable as string[]) : undefined;
    return this.ingestItems(rows, linked ? undefined : { callId, source, walkId, platform: r.platform, endpoint: r.endpoint, paramsHash: '', fetchedAt: this.clock(), unavailable });
  }

  ingestItems(rows: IngestRow[], provenance?: IngestProvenance): { items: ItemRef[]; newItems: number } {
    return this.guard('write', () => this.ingestItemsUnguarded(rows, provenance));
  }

  private ingestItemsUnguarded(rows: IngestRow[], provenance?: IngestProvenance): { items: ItemRef[]; newItems: number } {
    // every record needs an id: checked before anything is written
    const found = this.incoming(
      rows.map((r, position) => {
        const id = recordId(r.record);
        if (id === null) throw new ArchiveError(`record without id (${r.platform}/${r.kind})`);
        return { platform: r.platform, kind: r.kind, id, record: r.record, position };
      }),
    );
    return this.db.transaction(() => {
      const at = provenance?.fetchedAt ?? this.clock();
      const unavailable = provenance?.unavailable ? JSON.stringify(provenance.unavailable) : null;
      if (provenance) {
        this.insertResponse(
          provenance.callId, provenance.platform ?? rows[0]?.platform ?? '', provenance.endpoint ?? '', provenance.paramsHash ?? '',
          at, provenance.source, provenance.walkId ?? null, unavailable, null,
        );
      }
      return this.ingestMany(found, at, unavailable, provenance ? provenance.callId : null);
    })();
  }

  findFreshResponse(platform: string, endpoint: string, paramsHash: string, since: number): StoredResponse | undefined {
    const r = this.guard('read', () => this.st(
      `SELECT call_id, fetched_at, envelope FROM responses
       WHERE platform = ? AND endpoint = ? AND params_hash = ? AND fetched_at >= ? AND envelope IS NOT NULL
       ORDER BY fetched_at DESC LIMIT 1`,
    ).get(platform, endpoint, paramsHash, since) as { call_id: string; fetched_at: number; envelope: string } | undefined);
    if (!r) return undefined;
    return { callId: r.call_id, platform, endpoint, paramsHash, fetchedAt: r.fetched_at, envelope: JSON.parse(r.envelope) as Envelope };
  }

  // ───────────────────────── walks, balance ─────────────────────────

  /**
   * Saves the walk and records the calling process as its owner (`w.owner` is ignored): a walk
   * saved `running` by a process that is gone reads back as `interrupted`.
   */
  saveWalk(w: WalkState): void {
    const o = currentOwner();
    this.guard('write', () =>
      this.st(
        `INSERT INTO walks (walk_id, platform, endpoint, params, cursor_param, cursor, pages_done, credits_spent, items_seen, status,
           stop_reason, source, created_at, updated_at, error, owner_pid, owner_host, owner_start)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (walk_id) DO UPDATE SET platform = excluded.platform, endpoint = excluded.endpoint, params = excluded.params,
           cursor_param = excluded.cursor_param, cursor = excluded.cursor, pages_done = excluded.pages_done,
           credits_spent = excluded.credits_spent, items_seen = excluded.items_seen, status = excluded.status,
           stop_reason = excluded.stop_reason, source = excluded.source, created_at = excluded.created_at,
           updated_at = excluded.updated_at, error = excluded.error, owner_pid = excluded.owner_pid,
           owner_host = excluded.owner_host, owner_start = excluded.owner_start`,
      ).run(
        w.walkId, w.platform, w.endpoint, w.params, w.cursorParam, w.cursor, w.pagesDone, w.creditsSpent, w.itemsSeen, w.status,
        w.stopReason, w.source, w.createdAt, w.updatedAt, w.error, o.pid, o.host, o.start,
      ),
    );
  }

  /** The walk; one saved `running` whose owner process is gone reads `interrupted`. */
  getWalk(walkId: string): WalkState | undefined {
    const r = this.guard('read', () => this.st('SELECT * FROM walks WHERE walk_id = ?').get(walkId) as WalkRow | undefined);
    return r ? walkFromRow(r) : undefined;
  }

  /**
   * Newest activity first. Statuses are as read (`interrupted` for a running walk whose owner is
   * gone), and the filter applies to them: `running` lists only walks whose owner is alive.
   */
  listWalks(filter?: { status?: WalkStatus[] }): WalkState[] {
    const st = filter?.status;
    return this.guard('read', () => {
      if (st && st.length > 0) {
        // an interrupted walk is stored as running
        const stored = [...new Set(st.map((s) => (s === 'interrupted' ? 'running' : s))), 'interrupted'];
        return (
          this.st(`SELECT * FROM walks WHERE status IN (SELECT value FROM json_each(?)) ORDER BY updated_at DESC, walk_id`).all(
            JSON.stringify(stored),
          ) as WalkRow[]
        )
          .map(walkFromRow)
          .filter((w) => st.includes(w.status));
      }
      return (this.st('SELECT * FROM walks ORDER BY updated_at DESC, walk_id').all() as WalkRow[]).map(walkFromRow);
    });
  }

  setBalance(creditsRemaining: number, at: number): void {
    this.guard('write', () =>
      this.st(
        `INSERT INTO balance (id, credits_remaining, at) VALUES (1, ?, ?)
         ON CONFLICT (id) DO UPDATE SET credits_remaining = excluded.credits_remaining, at = excluded.at
         WHERE excluded.at >= balance.at`,
      ).run(creditsRemaining, at),
    );
  }

  getBalance(): { creditsRemaining: number; at: number } | undefined {
    const r = this.guard('read', () => this.st('SELECT credits_remaining, at FROM balance WHERE id = 1').get() as { credits_remaining: number; at: number } | undefined);
    return r ? { creditsRemaining: r.credits_remaining, at: r.at } : undefined;
  }

  // ───────────────────────── library: queries ─────────────────────────

  private rowsToLibrary(rows: ItemRow[]): LibraryRow[] {
    if (rows.length === 0) return [];
    const rids = JSON.stringify(rows.map((r) => r.rid));
    const tags = new Map<number, string[]>();
    for (const t of this.st(
      'SELECT it.item_rid AS rid, t.name FROM item_tags it JOIN tags t ON t.tag_id = it.tag_id WHERE it.item_rid IN (SELECT value FROM json_each(?)) ORDER BY t.name COLLATE NOCASE',
    ).all(rids) as Array<{ rid: number; name: string }>) {
      let l = tags.get(t.rid);
      if (!l) tags.set(t.rid, (l = []));
      l.push(t.name);
    }
    const notes = new Map<number, string>();
    for (const n of this.st('SELECT item_rid AS rid, text FROM notes WHERE item_rid IN (SELECT value FROM json_each(?))').all(rids) as Array<{
      rid: number;
      text: string;
    }>) {
      notes.set(n.rid, n.text);
    }
    const ovs = new Map<number, OverrideList>();
    for (const o of this.st(
      'SELECT item_rid AS rid, family, field, value, at FROM label_overrides WHERE item_rid IN (SELECT value FROM json_each(?)) ORDER BY family, field',
    ).all(rids) as Array<{ rid: number; family: string; field: string; value: string; at: number }>) {
      let l = ovs.get(o.rid);
      if (!l) ovs.set(o.rid, (l = []));
      l.push({ family: o.family, field: o.field, value: JSON.parse(o.value) as unknown, at: o.at });
    }
    return rows.map((r) => this.toLibraryRow(r, tags.get(r.rid) ?? [], notes.get(r.rid) ?? null, ovs.get(r.rid) ?? []));
  }

  private toLibraryRow(r: ItemRow, tags: string[], note: string | null, ov: OverrideList): LibraryRow {
    const labels = r.labels === null ? null : (JSON.parse(r.labels) as Json);
    const eff = applyOverrides(labels, ov);
    return {
      platform: r.platform,
      kind: r.kind,
      id: r.id,
      record: JSON.parse(r.raw) as Json,
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
      labels: eff && Object.keys(eff).length > 0 ? (eff as Record<string, Record<string, unknown>>) : null,
      relevance: r.relevance_p,
    };
  }

  /** Keyset page of rows. Sort values that are unknown come last in both directions; ties by rid. */
  query(input: LibraryQuery): LibraryPage {
    return this.guard('read', () => {
      const q = parseQuery(input);
      const n = pageSize(q);
      const hash = queryHash(q);
      const plan = sortPlan(q);
      const w = buildWhere(q, this.estimate, sortColumn(plan));
      const cur: Cursor | null = q.after ? decodeCursor(q.after, hash) : null;
      const dir = plan.dir === 'desc' ? 'DESC' : 'ASC';
      const cmp = plan.dir === 'desc' ? '<' : '>';
      const got: Array<ItemRow & { sort_v: string | number | null; phase: 0 | 1 }> = [];
      if (!cur || cur.p === 0) {
        const clauses = [plan.known, ...w.clauses];
        const params = [...plan.knownParams, ...w.params];
        if (cur) {
          clauses.push(`(${plan.expr}, ${plan.tie}) ${cmp} (?, ?)`);
          params.push(cur.v, cur.r);
        }
        const sql = `SELECT ${ITEM_COLS}, ${plan.valueExpr} AS sort_v FROM ${plan.from0}
          WHERE ${and(clauses)} ORDER BY ${plan.expr} ${dir}, ${plan.tie} ${dir} LIMIT ?`;
        for (const r of this.st(sql).all(...params, n + 1) as Array<ItemRow & { sort_v: string | number }>) got.push({ ...r, phase: 0 });
      }
      if (got.length <= n && plan.unknown !== null) {
        const clauses = [plan.unknown, ...w.clauses];
        const params = [...plan.unknownParams, ...w.params];
        if (cur && cur.p === 1) {
          clauses.push(`i.rid ${cmp} ?`);
          params.push(cur.r);
        }
        const sql = `SELECT ${ITEM_COLS}, NULL AS sort_v FROM items i WHERE ${and(clauses)} ORDER BY i.rid ${dir} LIMIT ?`;
        for (const r of this.st(sql).all(...params, n + 1 - got.length) as Array<ItemRow & { sort_v: null }>) got.push({ ...r, phase: 1 });
      }
      const page = got.slice(0, n);
      const last = page[page.length - 1];
      const next = got.length > n && last ? encodeCursor({ h: hash, p: last.phase, v: last.sort_v, r: last.rid }) : null;
      return {
        rows: this.rowsToLibrary(page),
        next,
        total: q.after ? null : this.countQuery(q),
      };
    });
  }

  /**
   * Exact number of items matching the filters of `q`. Counting visits every match,
   * so it is the slow part of a first page on a big archive: the result is cached per
   * filter set (sort, limit, after do not change it) until the archive changes —
   * a write on this connection (`total_changes()`) or a commit by another one
   * (`PRAGMA data_version`). Re-sorting or going back to page 1 then costs nothing.
   */
  private countQuery(q: LibraryQuery): number {
    const { sort: _s, limit: _l, after: _a, ...filters } = q;
    const key = stableStringify(filters);
    const ver = this.dataVersion();
    const hit = this.countCache.get(key);
    if (hit && hit.ver === ver) return hit.n;
    // counting visits every match: the materialised form is the cheaper plan there
    const n = this.countWhere(buildWhere(q));
    if (this.countCache.size >= 200) this.countCache.clear();
    this.countCache.set(key, { n, ver });
    return n;
  }

  private readonly countCache = new Map<string, { n: number; ver: string }>();

  /** Changes whenever this archive's content may have changed (own writes or another connection's). */
  private dataVersion(): string {
    const c = (this.st('SELECT total_changes() AS c').get() as { c: number }).c;
    return `${this.db.pragma('data_version', { simple: true }) as number}:${c}`;
  }

  /**
   * Capped row count of a sub-select, for plan choice (see sql-query.ts Estimator):
   * dense when it reaches `denseAt` rows, or `minFor(archive size)` when given (ignored
   * when `denseAt` was set explicitly, which tests use to force a plan). The size is
   * max(rid), an O(log n) stand-in for count(*).
   */
  private readonly estimate = (fromWhere: string, params: unknown[], minFor?: (items: number) => number): boolean => {
    let cap = this.denseAt;
    if (minFor !== undefined && !this.fixedDense) {
      const maxRid = (this.st('SELECT max(rid) AS m FROM items').get() as { m: number | null }).m ?? 0;
      cap = Math.max(cap, Math.ceil(minFor(maxRid)));
    }
    return (this.st(`SELECT count(*) AS n FROM (SELECT 1 ${fromWhere} LIMIT ?)`).get(...params, cap) as { n: number }).n >= cap;
  };

  private countWhere(w: Where): number {
    if (w.clauses.length === 0) return (this.st('SELECT count(*) AS n FROM items').get() as { n: number }).n;
    const only = w.clauses.length === 1 ? w.counts?.get(w.clauses[0]) : undefined;
    if (only !== undefined) return (this.st(only).get(...w.params) as { n: number }).n;
    return (this.st(`SELECT count(*) AS n FROM items i WHERE ${and(w.clauses)}`).get(...w.params) as { n: number }).n;
  }

  count(input: LibraryQuery): number {
    return this.guard('read', () => {
      return this.countQuery(parseQuery(input));
    });
  }

  /** Only what an ExportRow carries (the record is `raw`): fewer strings copied out per row. */
  private static readonly EXPORT_COLS = 'i.platform, i.kind, i.id, i.raw, i.first_seen_at, i.last_seen_at';
  private static readonly EXPORT_TAGS = `(SELECT json_group_array(name) FROM (SELECT t.name FROM item_tags it JOIN tags t ON t.tag_id = it.tag_id
         WHERE it.item_rid = i.rid ORDER BY t.name COLLATE NOCASE))`;
  private static readonly EXPORT_NOTE = '(SELECT text FROM notes n WHERE n.item_rid = i.rid)';
  private static readonly EXPORT_OV =
    '(SELECT json_group_array(json_array(o.family, o.field, json(o.value), o.at)) FROM label_overrides o WHERE o.item_rid = i.rid)';

  /**
   * The annotation columns of an export row (tags, note, overrides: columns 6, 7, 8). A table
   * without rows gets a constant instead of a per-row subquery, and when all three are empty
   * (most bulk archives) the columns are left out: better-sqlite3 pays per column and row
   * (-30 % SQLite time for the subqueries, a further -25 % reading time for the columns).
   */
  private static exportExtra(db: Db): string {
    const has = (t: string): boolean => db.prepare(`SELECT EXISTS (SELECT 1 FROM ${t}) AS x`).pluck().get() === 1;
    const [tags, notes, ov] = [has('item_tags'), has('notes'), has('label_overrides')];
    if (!tags && !notes && !ov) return '';
    return `,
      ${tags ? Archive.EXPORT_TAGS : "'[]'"} AS tags_json,
      ${notes ? Archive.EXPORT_NOTE : 'NULL'} AS note,
      ${ov ? Archive.EXPORT_OV : "'[]'"} AS ov_json`;
  }

  /** The two phase statements of a sorted export (known sort values, then unknown). */
  private exportStatements(plan: SortPlan, w: Where, extra: string): Array<{ sql: string; params: unknown[] }> {
    const dir = plan.dir === 'desc' ? 'DESC' : 'ASC';
    const out = [
      {
        sql: `SELECT ${Archive.EXPORT_COLS}${extra} FROM ${plan.from0} WHERE ${and([plan.known, ...w.clauses])}
          ORDER BY ${plan.expr} ${dir}, ${plan.tie} ${dir}`,
        params: [...plan.knownParams, ...w.params],
      },
    ];
    if (plan.unknown !== null) {
      out.push({
        sql: `SELECT ${Archive.EXPORT_COLS}${extra} FROM items i WHERE ${and([plan.unknown, ...w.clauses])} ORDER BY i.rid ${dir}`,
        params: [...plan.unknownParams, ...w.params],
      });
    }
    return out;
  }

  /**
   * A connection of its own for one export: better-sqlite3 allows no other statement on a
   * connection while an iterator is open on it, and an export streams for seconds with awaits
   * in between (writes, progress), during which the app keeps querying and ingesting. A
   * read-only connection reads one WAL snapshot (consistent export, writers not blocked). An
   * in-memory archive cannot be opened twice: it exports on its own connection (tests only).
   */
  private openReader(): { db: Db; close(): void } {
    const name = this.db.name;
    if (!name || name === ':memory:' || this.db.memory) return { db: this.db, close: () => undefined };
    const db = new Database(name, { readonly: true, fileMustExist: true });
    registerTermFunctions(db);
    db.pragma('busy_timeout = 5000');
    db.pragma('cache_size = -16384'); // 16 MB: an export reads each page once
    return { db, close: () => db.close() };
  }

  /** Rows as arrays (cheaper than objects at a million rows): EXPORT_COLS, then exportExtra's. */
  private *iterateRows(st: Statement, params: unknown[]): IterableIterator<ExportRow> {
    type Raw = [string, string, string, string, number, number, string?, (string | null)?, string?];
    for (const r of st.raw(true).iterate(...params) as IterableIterator<Raw>) {
      const [platform, kind, id, raw, firstSeen, lastSeen, tagsJson = '[]', note = null, ovJson = '[]'] = r;
      // most items carry no tags / overrides: skip parsing the empty arrays
      const ov =
        ovJson === '[]'
          ? []
          : (JSON.parse(ovJson) as Array<[string, string, unknown, number]>).map(([family, field, value, at]) => ({ family, field, value, at }));
      yield new StoredExportRow(
        platform, kind, id, raw, firstSeen, lastSeen, tagsJson === '[]' ? [] : (JSON.parse(tagsJson) as string[]), note, overridesObject(ov),
      );
    }
  }

  /**
   * Every row of a query, in its sort order, streamed (constant memory) for exports, from a
   * read-only connection of its own (one snapshot; the archive stays usable meanwhile).
   * `after` and `limit` are ignored: an export is the whole result. The query is checked at
   * the call (bad input throws before any row); the connection closes when the iteration ends.
   */
  iterateExportRows(input: LibraryQuery): IterableIterator<ExportRow> {
    const q = parseQuery(input);
    const plan = sortPlan(q);
    const w = buildWhere(q, this.estimate, sortColumn(plan));
    return this.exportFrom(plan, w);
  }

  private *exportFrom(plan: SortPlan, w: Where): IterableIterator<ExportRow> {
    const reader = this.openReader();
    try {
      for (const { sql, params } of this.exportStatements(plan, w, Archive.exportExtra(reader.db))) {
        yield* this.iterateRows(reader.db.prepare(sql), params);
      }
    } finally {
      reader.close();
    }
  }

  /** Export rows of explicit items, in the given order; unknown refs are skipped. */
  *exportRowsFor(refs: ItemRef[]): IterableIterator<ExportRow> {
    const reader = this.openReader();
    try {
      const rid = reader.db.prepare('SELECT rid FROM items WHERE platform = ? AND kind = ? AND id = ?').pluck();
      const one = reader.db.prepare(`SELECT ${Archive.EXPORT_COLS}${Archive.exportExtra(reader.db)} FROM items i WHERE i.rid = ?`);
      for (const ref of refs) {
        const r = rid.get(ref.platform, ref.kind, ref.id) as number | undefined;
        if (r === undefined) continue;
        yield* this.iterateRows(one, [r]);
      }
    } finally {
      reader.close();
    }
  }

  private ridOf(ref: ItemRef): number | undefined {
    const r = this.st('SELECT rid FROM items WHERE platform = ? AND kind = ? AND id = ?').get(ref.platform, ref.kind, ref.id) as
      | { rid: number }
      | undefined;
    return r?.rid;
  }

  private needRid(ref: ItemRef): number {
    const rid = this.ridOf(ref);
    if (rid === undefined) throw new ArchiveError(`not in the archive: ${ref.platform}/${ref.kind}/${ref.id}`, 'not_found');
    return rid;
  }

  /** One item with its annotations and provenance, or undefined. */
  getItem(platform: string, kind: string, id: string): ArchivedItem | undefined {
    return this.guard('read', () => {
      const r = this.st(`SELECT ${ITEM_COLS} FROM items i WHERE i.platform = ? AND i.kind = ? AND i.id = ?`).get(platform, kind, id) as
        | ItemRow
        | undefined;
      if (!r) return undefined;
      const [row] = this.rowsToLibrary([r]);
      const labels = r.labels === null ? null : (JSON.parse(r.labels) as Json);
      const overrideLog: LabelOverrideEntry[] = this.overridesOf(r.rid).map((o) => ({
        family: o.family,
        field: o.field,
        value: o.value,
        original: labelValue(labels, o.family, o.field) ?? null,
        at: o.at,
      }));
      const unavailable = r.unavailable ? (JSON.parse(r.unavailable) as unknown) : [];
      return {
        ...row,
        provenance: this.callsOfRid(r.rid),
        unavailable: Array.isArray(unavailable) ? unavailable.filter((u): u is string => typeof u === 'string') : [],
        overrideLog,
      };
    });
  }

  /** Which calls returned the item, when and at what cost (newest first). */
  itemCalls(platform: string, kind: string, id: string): ItemCall[] {
    const rid = this.ridOf({ platform, kind, id });
    return rid === undefined ? [] : this.callsOfRid(rid);
  }

  private callsOfRid(rid: number): ItemCall[] {
    const rows = this.st(
      `SELECT p.call_id, p.position, r.platform, r.endpoint, r.fetched_at, r.source, r.walk_id,
         c.request_id, c.credits_used, c.cached, c.idempotent_replay, c.free_call, c.charge_reason
       FROM provenance p
       JOIN responses r ON r.call_id = p.call_id
       LEFT JOIN calls c ON c.id = (SELECT id FROM calls WHERE call_id = p.call_id AND status BETWEEN 200 AND 299 ORDER BY attempt DESC, id DESC LIMIT 1)
       WHERE p.item_rid = ?
       ORDER BY r.fetched_at DESC, p.call_id`,
    ).all(rid) as Array<{
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
    }>;
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

  // ───────────────────────── library: aggregates ─────────────────────────

  private filtered(input: LibraryQuery): Where {
    return buildWhere(parseQuery(input));
  }

  /**
   * Per-day rows of a time series: grouped on the integer UTC day number (cheap integer
   * arithmetic over the published_at index; SQLite's date() per row costs more than the
   * scan), folded into weeks and formatted in JS.
   */
  private dailySeries<T extends { d: number }>(q: LibraryQuery, cols: string): T[] {
    const w = this.filtered(q);
    return this.st(
      `SELECT (i.published_at - ((i.published_at % ${DAY_MS}) + ${DAY_MS}) % ${DAY_MS}) / ${DAY_MS} AS d${cols}
       FROM items i WHERE ${and([...w.clauses, 'i.published_at IS NOT NULL'])} GROUP BY d ORDER BY d`,
    ).all(...w.params) as T[];
  }

  /**
   * Items per day without any filter: one index range count per day over items_published
   * (the range walks are the whole cost, ~25 ms per million items) instead of a GROUP BY,
   * which sorts every dated row (~300 ms at 1M). Null when the span is too wide for it.
   */
  private dailyCountsUnfiltered(): Array<{ d: number; c: number }> | null {
    const b = this.st('SELECT min(published_at) AS lo, max(published_at) AS hi FROM items').get() as { lo: number | null; hi: number | null };
    if (b.lo === null || b.hi === null) return [];
    const dayOf = (t: number): number => Math.floor(t / DAY_MS);
    const first = dayOf(b.lo);
    const last = dayOf(b.hi);
    if (last - first > 20_000) return null; // ~55 years: fall back to the grouped scan
    const cnt = this.st('SELECT count(*) AS c FROM items WHERE published_at >= ? AND published_at < ?');
    const out: Array<{ d: number; c: number }> = [];
    for (let d = first; d <= last; d++) {
      const c = (cnt.get(d * DAY_MS, (d + 1) * DAY_MS) as { c: number }).c;
      if (c > 0) out.push({ d, c });
    }
    return out;
  }

  /**
   * Aggregate results are cached per (method, arguments) until the archive changes
   * (same version key as the total cache: own writes and other connections' commits):
   * charts re-render and re-query the same series often. Bounded, oldest dropped first.
   */
  private readonly aggCache = new Map<string, { v: unknown; ver: string }>();
  private cachedAgg<T>(key: string, f: () => T): T {
    const ver = this.dataVersion();
    const hit = this.aggCache.get(key);
    if (hit && hit.ver === ver) return structuredClone(hit.v) as T;
    const v = f();
    if (this.aggCache.size >= 64) this.aggCache.delete(this.aggCache.keys().next().value as string);
    this.aggCache.set(key, { v: structuredClone(v), ver });
    return v;
  }

  /** Items per UTC day / week (Monday start) of publication; undated items are left out. */
  volumeOverTime(q: LibraryQuery, bucket: TimeBucket): VolumePoint[] {
    return this.cachedAgg(`volume:${bucket}:${JSON.stringify(parseQuery(q))}`, () => this.volumeOverTimeUncached(q, bucket));
  }

  private volumeOverTimeUncached(q: LibraryQuery, bucket: TimeBucket): VolumePoint[] {
    const out: VolumePoint[] = [];
    const w = this.filtered(q);
    const days = (w.clauses.length === 0 ? this.dailyCountsUnfiltered() : null) ?? this.dailySeries<{ d: number; c: number }>(q, ', count(*) AS c');
    for (const r of days) {
      const key = bucketOfDay(r.d, bucket);
      const last = out[out.length - 1];
      if (last && last.bucket === key) last.value += r.c;
      else out.push({ bucket: key, value: r.c });
    }
    return out;
  }

  /** Sum / mean of one engagement count per bucket, over items whose count is known. */
  engagementOverTime(q: LibraryQuery, bucket: TimeBucket, field: EngagementField): EngagementPoint[] {
    const col = ({ views: 'views', likes: 'likes', comments: 'comments', shares: 'shares', saves: 'saves' } as const)[field];
    if (!col) throw new QueryError(`unknown engagement field: ${String(field)}`);
    const out: EngagementPoint[] = [];
    for (const r of this.dailySeries<{ d: number; s: number | null; k: number }>(q, `, sum(i.${col}) AS s, count(i.${col}) AS k`)) {
      const key = bucketOfDay(r.d, bucket);
      const last = out[out.length - 1];
      if (last && last.bucket === key) {
        last.value += r.s ?? 0;
        last.known += r.k;
      } else out.push({ bucket: key, value: r.s ?? 0, known: r.k, avg: null });
    }
    for (const p of out) p.avg = p.known > 0 ? p.value / p.known : null;
    return out;
  }

  /**
   * Share of each value of one label field among the items that carry it
   * (effective values: overrides count). Text and boolean values: one bucket each;
   * integer fields with at most 20 distinct values: one bucket per value; other
   * numbers: 10 equal-width buckets (0-1 fields: 0.0-0.1 … 0.9-1.0, the top one closed).
   * Items without the field (not judged) are not counted; a null value is bucket `null`.
   *
   * One pass: the (family, field, value) range of the item_labels key grouped by value
   * (a covering index scan; without filters no item is visited), bucketed in JS.
   */
  labelDistribution(q: LibraryQuery, family: string, field: string): LabelShare[] {
    return this.cachedAgg(`labels:${JSON.stringify([family, field, parseQuery(q)])}`, () => this.labelDistributionUncached(q, family, field));
  }

  /** Value groups from a summary kept elsewhere (src/core/analysis/analysis-index.ts), or null to read item_labels. */
  labelGroupsSource: ((q: LibraryQuery, family: string, field: string) => Array<{ v: string | number | bigint | Buffer; t: string; c: number }> | null) | null = null;

  private labelDistributionUncached(q: LibraryQuery, family: string, field: string): LabelShare[] {
    const w = this.filtered(q);
    const filter = w.clauses.length === 0 ? '' : ` AND l.item_rid IN (SELECT i.rid FROM items i WHERE ${and(w.clauses)})`;
    const groups = this.labelGroupsSource?.(q, family, field) ?? this.st(
      `SELECT l.value AS v, typeof(l.value) AS t, count(*) AS c FROM item_labels l
       WHERE l.ff = ${LABEL_FIELD}${filter} GROUP BY l.value`,
    ).all(family, field, ...w.params) as Array<{ v: string | number | bigint | Buffer; t: string; c: number }>;
    let n = 0;
    let reals = 0;
    let lo: number | null = null;
    let hi: number | null = null;
    const texts: Array<{ bucket: string; value: number; blob: boolean; v: string }> = [];
    const nums: Array<{ v: number; c: number; t: string }> = [];
    for (const g of groups) {
      n += g.c;
      if (g.t === 'text' || g.t === 'blob') {
        texts.push(typeof g.v === 'string' ? { bucket: g.v, value: g.c, blob: false, v: g.v } : { bucket: 'null', value: g.c, blob: true, v: '' });
      } else {
        const v = Number(g.v);
        if (g.t === 'real') reals += g.c;
        nums.push({ v, c: g.c, t: g.t });
        lo = lo === null ? v : Math.min(lo, v);
        hi = hi === null ? v : Math.max(hi, v);
      }
    }
    if (n === 0) return [];
    // text and null values, most frequent first (ties: SQLite order, text before the null blob)
    texts.sort((x, y) => y.value - x.value || Number(x.blob) - Number(y.blob) || (x.v < y.v ? -1 : x.v > y.v ? 1 : 0));
    const out: Array<{ bucket: string; value: number }> = texts.map((t) => ({ bucket: t.bucket, value: t.value }));
    if (lo !== null && hi !== null) {
      const ints = nums.filter((x) => x.t === 'integer');
      if (reals === 0 && ints.length <= 20) {
        const boolish = lo >= 0 && hi <= 1 && this.isBooleanLabel(family, field);
        for (const r of ints.sort((x, y) => x.v - y.v)) out.push({ bucket: boolish ? (r.v === 1 ? 'true' : 'false') : String(r.v), value: r.c });
      } else {
        const unit = lo >= 0 && hi <= 1;
        const l0 = unit ? 0 : lo;
        const h0 = unit ? 1 : hi;
        const width = h0 > l0 ? (h0 - l0) / 10 : 1;
        const counts = new Map<number, number>();
        for (const r of nums) {
          const k = Math.min(9, Math.max(0, Math.trunc(Math.round(((r.v - l0) / width) * 1e9) / 1e9)));
          counts.set(k, (counts.get(k) ?? 0) + r.c);
        }
        const fmt = (x: number): string => String(Math.round(x * 1e6) / 1e6);
        for (const k of [...counts.keys()].sort((x, y) => x - y)) {
          out.push({ bucket: `${fmt(l0 + k * width)}-${fmt(l0 + (k + 1) * width)}`, value: counts.get(k) ?? 0 });
        }
      }
    }
    return out.map((p) => ({ ...p, share: p.value / n }));
  }

  private isBooleanLabel(family: string, field: string): boolean {
    const path = `$.${JSON.stringify(family)}.${field
      .split('.')
      .map((p) => JSON.stringify(p))
      .join('.')}`;
    const r = this.st(
      `SELECT json_type(i.labels, ?) AS t FROM item_labels l JOIN items i ON i.rid = l.item_rid
       WHERE l.ff = ${LABEL_FIELD} AND l.value < x'' AND i.labels IS NOT NULL AND json_type(i.labels, ?) IS NOT NULL LIMIT 1`,
    ).get(path, family, field, path) as { t: string } | undefined;
    if (r) return r.t === 'true' || r.t === 'false';
    const o = this.st('SELECT value FROM label_overrides WHERE family = ? AND field = ? LIMIT 1').get(family, field) as
      | { value: string }
      | undefined;
    return o ? typeof JSON.parse(o.value) === 'boolean' : false;
  }

  /** Authors with the most items (ties: more likes first). Items without an author are left out. */
  topAuthors(q: LibraryQuery, n: number): AuthorCount[] {
    const w = this.filtered(q);
    const rows = this.st(
      `SELECT i.platform AS platform, i.author_id AS author_id, max(i.author_username) AS username,
         max(i.author_display_name) AS display_name, count(*) AS items,
         coalesce(sum(i.likes), 0) AS likes, coalesce(sum(i.views), 0) AS views
       FROM items i WHERE ${and([...w.clauses, '(i.author_id IS NOT NULL OR i.author_username IS NOT NULL)'])}
       GROUP BY i.platform, coalesce(i.author_id, '@' || lower(i.author_username))
       ORDER BY items DESC, likes DESC, username LIMIT ?`,
    ).all(...w.params, Math.max(1, Math.floor(n))) as Array<{
      platform: string;
      author_id: string | null;
      username: string | null;
      display_name: string | null;
      items: number;
      likes: number;
      views: number;
    }>;
    return rows.map((r) => ({
      bucket: r.username ?? r.display_name ?? r.author_id ?? '',
      value: r.items,
      platform: r.platform,
      authorId: r.author_id,
      username: r.username,
      displayName: r.display_name,
      likes: r.likes,
      views: r.views,
    }));
  }

  private ledgerWhere(range: { since?: number; until?: number }): Where {
    const w: Where = { clauses: [], params: [] };
    if (range.since !== undefined) {
      w.clauses.push('started_at >= ?');
      w.params.push(range.since);
    }
    if (range.until !== undefined) {
      w.clauses.push('started_at < ?');
      w.params.push(range.until);
    }
    return w;
  }

  /** Credits used per UTC day of the attempt (since inclusive, until exclusive, ms). */
  creditsPerDay(range: { since?: number; until?: number } = {}): CreditsPoint[] {
    const w = this.ledgerWhere(range);
    return this.st(
      `SELECT date(started_at / 1000, 'unixepoch') AS bucket, sum(credits_used) AS value, count(*) AS calls
       FROM calls WHERE ${and(w.clauses)} GROUP BY bucket ORDER BY bucket`,
    ).all(...w.params) as CreditsPoint[];
  }

  /** Credits per call source ('search', 'watch:<id>', 'cli', ...), most spent first. */
  creditsPerSource(range: { since?: number; until?: number } = {}): CreditsPoint[] {
    const w = this.ledgerWhere(range);
    return this.st(
      `SELECT source AS bucket, sum(credits_used) AS value, count(*) AS calls FROM calls WHERE ${and(w.clauses)}
       GROUP BY source ORDER BY value DESC, bucket`,
    ).all(...w.params) as CreditsPoint[];
  }

  /** Credits per `<platform>/<endpoint>`, most spent first. */
  creditsPerEndpoint(range: { since?: number; until?: number } = {}): CreditsPoint[] {
    const w = this.ledgerWhere(range);
    return this.st(
      `SELECT platform || '/' || endpoint AS bucket, sum(credits_used) AS value, count(*) AS calls FROM calls WHERE ${and(w.clauses)}
       GROUP BY platform, endpoint ORDER BY value DESC, bucket`,
    ).all(...w.params) as CreditsPoint[];
  }

  /**
   * Charged vs not charged, over ledger attempts. An attempt with credits_used > 0 is
   * charged; otherwise the first that applies: dry run, error (no status / not 2xx),
   * idempotent replay, free call, shared cache, else empty (a zero-cost success).
   */
  usageSummary(range: { since?: number; until?: number } = {}): UsageCounts {
    const w = this.ledgerWhere(range);
    const r = this.st(
      `SELECT count(*) AS attempts,
         sum(credits_used > 0) AS charged, coalesce(sum(credits_used), 0) AS credits,
         sum(credits_used <= 0 AND dry_run = 1) AS dry_run,
         sum(credits_used <= 0 AND dry_run = 0 AND (status IS NULL OR status NOT BETWEEN 200 AND 299)) AS error,
         sum(credits_used <= 0 AND dry_run = 0 AND status BETWEEN 200 AND 299 AND idempotent_replay = 1) AS replay,
         sum(credits_used <= 0 AND dry_run = 0 AND status BETWEEN 200 AND 299 AND idempotent_replay = 0 AND free_call = 1) AS free_call,
         sum(credits_used <= 0 AND dry_run = 0 AND status BETWEEN 200 AND 299 AND idempotent_replay = 0 AND free_call = 0 AND cached = 1) AS cached,
         sum(credits_used <= 0 AND dry_run = 0 AND status BETWEEN 200 AND 299 AND idempotent_replay = 0 AND free_call = 0 AND cached = 0) AS empty
       FROM calls WHERE ${and(w.clauses)}`,
    ).get(...w.params) as Record<string, number | null>;
    const v = (k: string): number => r[k] ?? 0;
    return {
      attempts: v('attempts'),
      charged: { requests: v('charged'), credits: v('credits') },
      notCharged: {
        cached: v('cached'),
        replay: v('replay'),
        freeCall: v('free_call'),
        error: v('error'),
        dryRun: v('dry_run'),
        empty: v('empty'),
        fromArchive: 0,
      },
    };
  }

  // ───────────────────────── annotations ─────────────────────────

  private tagId(tag: string): number {
    const name = tag.trim();
    if (name === '') throw new ArchiveError('empty tag');
    this.st('INSERT INTO tags (name, created_at) VALUES (?, ?) ON CONFLICT (name) DO NOTHING').run(name, this.clock());
    return (this.st('SELECT tag_id FROM tags WHERE name = ?').get(name) as { tag_id: number }).tag_id;
  }

  /** Tags are case-insensitive (the first spelling is kept). */
  addTag(ref: ItemRef, tag: string): void {
    this.guard('write', () => {
      this.db.transaction(() => {
        const rid = this.needRid(ref);
        this.st('INSERT INTO item_tags (tag_id, item_rid, at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING').run(this.tagId(tag), rid, this.clock());
      })();
    });
  }

  removeTag(ref: ItemRef, tag: string): void {
    this.guard('write', () => {
      const rid = this.ridOf(ref);
      if (rid === undefined) return;
      this.st('DELETE FROM item_tags WHERE item_rid = ? AND tag_id = (SELECT tag_id FROM tags WHERE name = ?)').run(rid, tag.trim());
    });
  }

  /** Every tag with its item count (tags no longer on any item are listed with 0). */
  listTags(): TagCount[] {
    return this.st(
      `SELECT t.name AS tag, count(it.item_rid) AS count FROM tags t LEFT JOIN item_tags it ON it.tag_id = t.tag_id
       GROUP BY t.tag_id ORDER BY t.name COLLATE NOCASE`,
    ).all() as TagCount[];
  }

  /** Tag every item of a query; returns how many items newly got the tag. */
  tagQuery(q: LibraryQuery, tag: string): number {
    return this.guard('write', () =>
      this.db.transaction(() => {
        const w = this.filtered(q);
        const id = this.tagId(tag);
        return this.st(
          `INSERT INTO item_tags (tag_id, item_rid, at) SELECT ?, i.rid, ? FROM items i WHERE ${and(w.clauses)} ON CONFLICT DO NOTHING`,
        ).run(id, this.clock(), ...w.params).changes;
      })(),
    );
  }

  /** Remove a tag from every item of a query; returns how many lost it. */
  untagQuery(q: LibraryQuery, tag: string): number {
    return this.guard('write', () => {
      const w = this.filtered(q);
      return this.st(
        `DELETE FROM item_tags WHERE tag_id = (SELECT tag_id FROM tags WHERE name = ?) AND item_rid IN (SELECT i.rid FROM items i WHERE ${and(w.clauses)})`,
      ).run(tag.trim(), ...w.params).changes;
    });
  }

  /** Set (or with null / blank text, remove) the note of one item. */
  setNote(ref: ItemRef, text: string | null): void {
    this.guard('write', () => {
      const rid = this.needRid(ref);
      if (text === null || text.trim() === '') {
        this.st('DELETE FROM notes WHERE item_rid = ?').run(rid);
        return;
      }
      this.st(
        'INSERT INTO notes (item_rid, text, updated_at) VALUES (?, ?, ?) ON CONFLICT (item_rid) DO UPDATE SET text = excluded.text, updated_at = excluded.updated_at',
      ).run(rid, text, this.clock());
    });
  }

  /**
   * Analyst override of an AI label. The original stays in the raw record and
   * `labels`; queries, rows and exports see the override (marked in `overrides`).
   */
  overrideLabel(ref: ItemRef, family: string, field: string, value: unknown): void {
    this.guard('write', () => {
      if (!family || !field) throw new ArchiveError('family and field are required');
      this.fieldIds([family + '\u0000' + field]);
      this.db.transaction(() => {
        const rid = this.needRid(ref);
        this.withOverrideChange(rid, () => {
          this.st(
            `INSERT INTO label_overrides (item_rid, family, field, value, at) VALUES (?, ?, ?, ?, ?)
             ON CONFLICT (item_rid, family, field) DO UPDATE SET value = excluded.value, at = excluded.at`,
          ).run(rid, family, field, JSON.stringify(value ?? null), this.clock());
        });
      })();
    });
  }

  clearOverride(ref: ItemRef, family: string, field: string): void {
    this.guard('write', () => {
      this.db.transaction(() => {
        const rid = this.needRid(ref);
        this.withOverrideChange(rid, () => {
          this.st('DELETE FROM label_overrides WHERE item_rid = ? AND family = ? AND field = ?').run(rid, family, field);
        });
      })();
    });
  }

  /** Run `change` (which edits label_overrides of one item) and move its label rows accordingly. */
  private withOverrideChange(rid: number, change: () => void): void {
    const r = this.st('SELECT labels FROM items WHERE rid = ?').get(rid) as { labels: string | null };
    const labels = parseLabels(r.labels);
    const before = flattenLabels(labels, this.overridesOf(rid));
    change();
    this.writeLeaves(rid, before, flattenLabels(labels, this.overridesOf(rid)));
  }

  saveResultSet(name: string, query: LibraryQuery, opts: { tags?: string[]; note?: string | null } = {}): ResultSet {
    return this.guard('write', () => {
      const q = parseQuery(query);
      const { after: _after, ...stored } = q;
      const now = this.clock();
      const r = this.st('INSERT INTO result_sets (name, query, tags, note, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)').run(
        name, JSON.stringify(stored), JSON.stringify(opts.tags ?? []), opts.note ?? null, now, now,
      );
      return { id: String(r.lastInsertRowid), name, query: stored, tags: opts.tags ?? [], note: opts.note ?? null, createdAt: now, updatedAt: now };
    });
  }

  updateResultSet(id: string, patch: { name?: string; tags?: string[]; note?: string | null; query?: LibraryQuery }): void {
    this.guard('write', () => {
      const cur = this.listResultSets().find((r) => r.id === id);
      if (!cur) throw new ArchiveError(`no such result set: ${id}`, 'not_found');
      const q = patch.query ? parseQuery(patch.query) : cur.query;
      this.st('UPDATE result_sets SET name = ?, query = ?, tags = ?, note = ?, updated_at = ? WHERE rs_id = ?').run(
        patch.name ?? cur.name, JSON.stringify(q), JSON.stringify(patch.tags ?? cur.tags),
        patch.note === undefined ? cur.note : patch.note, this.clock(), Number(id),
      );
    });
  }

  deleteResultSet(id: string): void {
    this.guard('write', () => {
      this.st('DELETE FROM result_sets WHERE rs_id = ?').run(Number(id));
    });
  }

  listResultSets(): ResultSet[] {
    return (
      this.st('SELECT * FROM result_sets ORDER BY updated_at DESC, rs_id DESC').all() as Array<{
        rs_id: number;
        name: string;
        query: string;
        tags: string;
        note: string | null;
        created_at: number;
        updated_at: number;
      }>
    ).map((r) => ({
      id: String(r.rs_id),
      name: r.name,
      query: JSON.parse(r.query) as LibraryQuery,
      tags: JSON.parse(r.tags) as string[],
      note: r.note,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
    }));
  }
}

/**
 * Opens (creating and migrating when needed) the archive at `file`. A damaged or foreign file, a
 * read-only or full disk give a StorageError naming the file and the way out; a file written by
 * a newer Loupe gives ArchiveVersionError. See also open.ts (reading and writing modes).
 */
export function openArchive(file: string, opts: OpenArchiveOptions = {}): Archive {
  let db: Db;
  try {
    db = openDb(file);
  } catch (e) {
    throw toStorageError(e, opts.path ?? file, { op: 'open' });
  }
  return new Archive(db, opts);
}
