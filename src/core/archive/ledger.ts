/**
 * The ledger (`calls`: every HTTP attempt), the idempotency journal (`journal`) and the last known
 * balance (`balance`): the request core's bookkeeping (CoreStore in src/core/ports.ts).
 */
import type { FreeMark, JournalEntry, LedgerEntry } from '../ports';
import type { ArchiveCtx } from './context';
import { currentOwner, ownerAlive } from './owner';
import { NATIVE_PAGING_PARAMS } from '../../shared/api-types';
import { part, raw, sql } from './sql';

/**
 * LedgerEntry field → `calls` column: the one mapping between the ledger's type (src/shared/ledger.ts)
 * and its table, used by the insert and the reads (a field missing here does not compile).
 */
const CALLS = {
  id: 'id',
  callId: 'call_id',
  attempt: 'attempt',
  startedAt: 'started_at',
  durationMs: 'duration_ms',
  platform: 'platform',
  endpoint: 'endpoint',
  params: 'params',
  paramsHash: 'params_hash',
  idempotencyKey: 'idempotency_key',
  requestId: 'request_id',
  status: 'status',
  errorType: 'error_type',
  creditsUsed: 'credits_used',
  creditsRemaining: 'credits_remaining',
  chargeReason: 'charge_reason',
  cached: 'cached',
  freeCall: 'free_call',
  idempotentReplay: 'idempotent_replay',
  source: 'source',
  walkId: 'walk_id',
  dryRun: 'dry_run',
  keyName: 'key_name',
} as const satisfies Record<keyof LedgerEntry, string>;
/** the boolean fields, stored 0 / 1 */
const FLAGS = ['cached', 'freeCall', 'idempotentReplay', 'dryRun'] as const;

const INSERT_FIELDS = (Object.keys(CALLS) as Array<keyof LedgerEntry>).filter((k) => k !== 'id');
const SELECT_CALLS = raw(
  Object.entries(CALLS)
    .map(([field, col]) => `${col} AS ${field}`)
    .join(', '),
);
/** an optional condition of listLedger: none */
const NO_CLAUSE = raw('');

/** A `calls` row read with SELECT_CALLS (fields already named) → the entry: 0 / 1 → booleans. */
function entryOf(r: Record<string, unknown>): LedgerEntry {
  for (const f of FLAGS) r[f] = r[f] === 1;
  // eslint-disable-next-line no-restricted-syntax -- SELECT_CALLS names every LedgerEntry field (built from CALLS above), the flags just made booleans
  return r as unknown as LedgerEntry;
}

/** JournalEntry field → `journal` column; the reads select the columns under the entry's own names. */
const JOURNAL = {
  callId: 'call_id',
  opKey: 'op_key',
  idempotencyKey: 'idempotency_key',
  platform: 'platform',
  endpoint: 'endpoint',
  params: 'params',
  paramsHash: 'params_hash',
  state: 'state',
  createdAt: 'created_at',
  finishedAt: 'finished_at',
  keyName: 'key_name',
} as const satisfies Record<
  Exclude<keyof JournalEntry, 'before' | 'lossBefore' | 'owner' | 'freeMayCover' | 'lossFreeMayCover' | 'freeLeft' | 'lossFreeLeft'>,
  string
>;
/** the columns read besides the entry's own: the reading before its key was sent, and its owner process */
const SELECT_JOURNAL = raw(
  [
    ...Object.entries(JOURNAL).map(([field, col]) => `${col} AS ${field}`),
    'before_balance AS beforeBalance',
    'before_at AS beforeAt',
    'before_ledger AS beforeLedger',
    'loss_before_balance AS lossBalance',
    'loss_before_at AS lossAt',
    'loss_before_ledger AS lossLedger',
    'free_may_cover AS freeFlag',
    'loss_free_may_cover AS lossFreeFlag',
    'free_left AS freeLeftN',
    'free_left_at AS freeLeftAt',
    'free_left_ledger AS freeLeftLedger',
    'loss_free_left AS lossFreeLeftN',
    'loss_free_left_at AS lossFreeLeftAt',
    'loss_free_left_ledger AS lossFreeLeftLedger',
    'owner_pid AS ownerPid',
    'owner_host AS ownerHost',
    'owner_start AS ownerStart',
  ].join(', '),
);

type JournalRow = Omit<
  JournalEntry,
  'before' | 'lossBefore' | 'owner' | 'freeMayCover' | 'lossFreeMayCover' | 'freeLeft' | 'lossFreeLeft'
> & {
  beforeBalance: number | null;
  beforeAt: number | null;
  beforeLedger: number | null;
  lossBalance: number | null;
  lossAt: number | null;
  lossLedger: number | null;
  freeFlag: number | null;
  lossFreeFlag: number | null;
  freeLeftN: number | null;
  freeLeftAt: number | null;
  freeLeftLedger: number | null;
  lossFreeLeftN: number | null;
  lossFreeLeftAt: number | null;
  lossFreeLeftLedger: number | null;
  ownerPid: number | null;
  ownerHost: string | null;
  ownerStart: string | null;
};

function entryOfJournal(r: JournalRow | undefined): JournalEntry | undefined {
  if (!r) return undefined;
  const {
    beforeBalance,
    beforeAt,
    beforeLedger,
    lossBalance,
    lossAt,
    lossLedger,
    freeFlag,
    lossFreeFlag,
    freeLeftN,
    freeLeftAt,
    freeLeftLedger,
    lossFreeLeftN,
    lossFreeLeftAt,
    lossFreeLeftLedger,
    ownerPid,
    ownerHost,
    ownerStart,
    ...e
  } = r;
  const before =
    beforeBalance !== null && beforeAt !== null && beforeLedger !== null
      ? { balance: beforeBalance, at: beforeAt, ledgerId: beforeLedger }
      : null;
  const lossBefore =
    lossBalance !== null && lossAt !== null && lossLedger !== null ? { balance: lossBalance, at: lossAt, ledgerId: lossLedger } : null;
  const me = currentOwner();
  const alive = ownerAlive({ pid: ownerPid, host: ownerHost, start: ownerStart });
  const owner =
    ownerPid === me.pid && ownerHost === me.host && ownerStart === me.start
      ? 'this'
      : alive === null
        ? 'unknown'
        : alive
          ? 'alive'
          : 'gone';
  const flag = (v: number | null): boolean | null => (v === null ? null : v === 1);
  return {
    ...e,
    before,
    lossBefore,
    freeMayCover: flag(freeFlag),
    lossFreeMayCover: flag(lossFreeFlag),
    freeLeft: markOf(freeLeftN, freeLeftAt, freeLeftLedger),
    lossFreeLeft: markOf(lossFreeLeftN, lossFreeLeftAt, lossFreeLeftLedger),
    owner,
  };
}

const markOf = (left: number | null, at: number | null, ledgerId: number | null): FreeMark | null =>
  left !== null && at !== null && ledgerId !== null ? { left, at, ledgerId } : null;

// ───────────────────────── idempotency journal ─────────────────────────

export function findJournal(c: ArchiveCtx, opKey: string): JournalEntry | undefined {
  return entryOfJournal(c.sql.get<JournalRow>(sql`SELECT ${SELECT_JOURNAL} FROM journal WHERE op_key = ${opKey}`));
}

/**
 * Writes the entry (re-beginning the same callId updates it; another call with the same opKey
 * throws), owned by the calling process (a pending entry whose process is gone can be taken over).
 */
// The journal and the balance are read by no query of the items: their writes are quiet (context.ts
// quiet: dataVersion, and the caches keyed by it, stay). The ledger's calls are not: a library query
// filtered by source, call or walk reads them.

export function beginJournal(c: ArchiveCtx, e: JournalEntry): void {
  const me = currentOwner();
  const b = e.before ?? null;
  const l = e.lossBefore ?? null;
  const f = e.freeLeft ?? null;
  const lf = e.lossFreeLeft ?? null;
  c.quiet(() =>
    c.sql.insert`journal ON CONFLICT (call_id) DO UPDATE SET op_key = excluded.op_key, idempotency_key = excluded.idempotency_key,
       platform = excluded.platform, endpoint = excluded.endpoint, params = excluded.params,
       params_hash = excluded.params_hash, state = excluded.state, created_at = excluded.created_at,
       finished_at = excluded.finished_at, key_name = excluded.key_name, owner_pid = excluded.owner_pid, owner_host = excluded.owner_host,
       owner_start = excluded.owner_start, before_balance = excluded.before_balance, before_at = excluded.before_at, before_ledger = excluded.before_ledger,
       loss_before_balance = excluded.loss_before_balance, loss_before_at = excluded.loss_before_at, loss_before_ledger = excluded.loss_before_ledger,
       free_may_cover = excluded.free_may_cover, loss_free_may_cover = excluded.loss_free_may_cover,
       free_left = excluded.free_left, free_left_at = excluded.free_left_at, free_left_ledger = excluded.free_left_ledger,
       loss_free_left = excluded.loss_free_left, loss_free_left_at = excluded.loss_free_left_at,
       loss_free_left_ledger = excluded.loss_free_left_ledger`({
      call_id: e.callId,
      op_key: e.opKey,
      idempotency_key: e.idempotencyKey,
      platform: e.platform,
      endpoint: e.endpoint,
      params: e.params,
      params_hash: e.paramsHash,
      state: e.state,
      created_at: e.createdAt,
      finished_at: e.finishedAt,
      key_name: e.keyName ?? null,
      owner_pid: me.pid,
      owner_host: me.host,
      owner_start: me.start,
      before_balance: b ? b.balance : null,
      before_at: b ? b.at : null,
      before_ledger: b ? b.ledgerId : null,
      loss_before_balance: l ? l.balance : null,
      loss_before_at: l ? l.at : null,
      loss_before_ledger: l ? l.ledgerId : null,
      free_may_cover: flagOf(e.freeMayCover),
      loss_free_may_cover: flagOf(e.lossFreeMayCover),
      free_left: f ? f.left : null,
      free_left_at: f ? f.at : null,
      free_left_ledger: f ? f.ledgerId : null,
      loss_free_left: lf ? lf.left : null,
      loss_free_left_at: lf ? lf.at : null,
      loss_free_left_ledger: lf ? lf.ledgerId : null,
    }),
  );
}

const flagOf = (v: boolean | null | undefined): number | null => (v === undefined || v === null ? null : v ? 1 : 0);

export function finishJournal(c: ArchiveCtx, callId: string, state: 'done' | 'failed', at: number): void {
  c.quiet(() => c.sql.run(sql`UPDATE journal SET state = ${state}, finished_at = ${at} WHERE call_id = ${callId}`));
}

export function pendingJournal(c: ArchiveCtx): JournalEntry[] {
  return c.sql
    .all<JournalRow>(sql`SELECT ${SELECT_JOURNAL} FROM journal WHERE state = 'pending' ORDER BY created_at, call_id`)
    .map((r) => entryOfJournal(r) as JournalEntry);
}

/** Entries other than `callId` that may have been charged between `from` and `to` unrecorded: pending, or finished since `from`. */
export function journalAround(c: ArchiveCtx, callId: string, from: number, to: number): JournalEntry[] {
  const rows = c.sql
    .all<JournalRow>(sql`SELECT ${SELECT_JOURNAL} FROM journal WHERE state = 'pending' AND call_id != ${callId} AND created_at <= ${to}
    UNION ALL SELECT ${SELECT_JOURNAL} FROM journal WHERE finished_at >= ${from} AND state != 'pending' AND call_id != ${callId} AND created_at <= ${to}`);
  return rows.map((r) => entryOfJournal(r) as JournalEntry);
}

// ───────────────────────── ledger ─────────────────────────

/** The ledger's highest row id (0 when empty). */
export function ledgerHighWater(c: ArchiveCtx): number {
  return c.sql.get<{ id: number | null }>(sql`SELECT max(id) AS id FROM calls`)?.id ?? 0;
}

/** Credits recorded in rows after `afterId` for attempts started at or after `since`. */
export function ledgerCreditsSince(c: ArchiveCtx, afterId: number, since: number): number {
  return c.sql.one<{ c: number }>(
    sql`SELECT coalesce(sum(credits_used), 0) AS c FROM calls WHERE id > ${afterId} AND started_at >= ${since}`,
  ).c;
}

/**
 * Answers an introductory free call covered, in rows after `afterId` for attempts started at or
 * after `since`: each used one of the free calls a reading taken then said were left.
 */
export function ledgerFreeSince(c: ArchiveCtx, afterId: number, since: number): number {
  return c.sql.one<{ n: number }>(
    sql`SELECT count(*) AS n FROM calls WHERE id > ${afterId} AND started_at >= ${since} AND free_call = 1 AND idempotent_replay = 0`,
  ).n;
}

/** Rows after `afterId` up to `upToId`, for attempts started at or after `since`, in order (at most 10,000). */
export function ledgerBetween(c: ArchiveCtx, afterId: number, upToId: number, since: number): LedgerEntry[] {
  return c.sql
    .all<Record<string, unknown>>(
      sql`SELECT ${SELECT_CALLS} FROM calls WHERE id > ${afterId} AND id <= ${upToId} AND started_at >= ${since} ORDER BY id LIMIT 10000`,
    )
    .map(entryOf);
}

/** Rows of one exact request for attempts started in [from, to), in order (at most 1,000). */
export function ledgerOfRequest(
  c: ArchiveCtx,
  platform: string,
  endpoint: string,
  paramsHash: string,
  from: number,
  to: number,
): LedgerEntry[] {
  return c.sql
    .all<Record<string, unknown>>(
      sql`SELECT ${SELECT_CALLS} FROM calls WHERE started_at >= ${from} AND started_at < ${to} AND params_hash = ${paramsHash}
      AND platform = ${platform} AND endpoint = ${endpoint} ORDER BY id LIMIT 1000`,
    )
    .map(entryOf);
}

/** the parameters that only say where a list is read (a cursor, a native paging token or page) */
const PAGING = ['cursor', ...NATIVE_PAGING_PARAMS].map((k) => `$.${k}`);
const NO_PAGING = raw(PAGING.map((k) => `'${k}'`).join(', '));

/**
 * Rows of the same list as `params` — the same platform, endpoint and parameters apart from the paging
 * ones — read at some page under a paging parameter, for attempts started in [from, to), in order (at
 * most 1,000): the pages of that list the account may own (simulation finding 19).
 */
export function ledgerOfList(c: ArchiveCtx, platform: string, endpoint: string, params: string, from: number, to: number): LedgerEntry[] {
  return c.sql
    .all<Record<string, unknown>>(
      sql`SELECT ${SELECT_CALLS} FROM calls WHERE started_at >= ${from} AND started_at < ${to} AND platform = ${platform}
      AND endpoint = ${endpoint} AND json_valid(params) AND json_remove(params, ${NO_PAGING}) = json_remove(${params}, ${NO_PAGING})
      AND json_remove(params, ${NO_PAGING}) != json(params) ORDER BY id LIMIT 1000`,
    )
    .map(entryOf);
}

export function recordAttempt(c: ArchiveCtx, e: LedgerEntry): number {
  const flags: ReadonlyArray<keyof LedgerEntry> = FLAGS;
  // one object per call, its columns always in INSERT_FIELDS' order (the insert's column list)
  const row: Record<string, unknown> = {};
  for (const k of INSERT_FIELDS) row[CALLS[k]] = flags.includes(k) ? (e[k] ? 1 : 0) : k === 'keyName' ? (e.keyName ?? null) : e[k];
  return Number(c.sql.insert`calls`(row).lastInsertRowid);
}

/** Newest first; `beforeId` pages back. */
export function listLedger(c: ArchiveCtx, opts: { limit?: number; beforeId?: number; callId?: string } = {}): LedgerEntry[] {
  const limit = Math.min(Math.max(opts.limit ?? 200, 1), 10_000);
  const before = opts.beforeId !== undefined ? part(sql`AND id < ${opts.beforeId}`) : NO_CLAUSE;
  const call = opts.callId !== undefined ? part(sql`AND call_id = ${opts.callId}`) : NO_CLAUSE;
  return c.sql
    .all<Record<string, unknown>>(sql`SELECT ${SELECT_CALLS} FROM calls WHERE 1 ${before} ${call} ORDER BY id DESC LIMIT ${limit}`)
    .map(entryOf);
}

/**
 * When each named key last made a call (the ledger's newest attempt per key name): Settings shows
 * it so a rotation can be confirmed ("the new key is in use") before the old key is revoked.
 */
export function lastUsedByKey(c: ArchiveCtx): Map<string, number> {
  const rows = c.sql.all<{ name: string; at: number }>(
    sql`SELECT key_name AS name, max(started_at) AS at FROM calls WHERE key_name IS NOT NULL GROUP BY key_name`,
  );
  return new Map(rows.map((r) => [r.name, r.at]));
}

/** Credits the ledger recorded for `source` since `since` (ms). */
export function creditsOfSource(c: ArchiveCtx, source: string, since: number): number {
  return c.sql.one<{ c: number }>(
    sql`SELECT coalesce(sum(credits_used), 0) AS c FROM calls WHERE source = ${source} AND started_at >= ${since}`,
  ).c;
}

// ───────────────────────── balance ─────────────────────────

export function setBalance(c: ArchiveCtx, creditsRemaining: number, at: number): void {
  c.quiet(() =>
    c.sql.insert`balance ON CONFLICT (id) DO UPDATE SET credits_remaining = excluded.credits_remaining, at = excluded.at
     WHERE excluded.at >= balance.at`({ id: 1, credits_remaining: creditsRemaining, at }),
  );
}

export function getBalance(c: ArchiveCtx): { creditsRemaining: number; at: number } | undefined {
  const r = c.sql.get<{ credits_remaining: number; at: number }>(sql`SELECT credits_remaining, at FROM balance WHERE id = 1`);
  return r ? { creditsRemaining: r.credits_remaining, at: r.at } : undefined;
}

/**
 * What another writer's spending moves, read cheaply (issue 24 #7): `PRAGMA data_version` (it
 * changes only when another connection commits), the ledger's last row and the balance reading's
 * time. A process that sees the data version move together with either of the others knows another
 * process (a cron `loupe watch run`, the CLI) wrote the ledger or the balance.
 */
export function ledgerMark(c: ArchiveCtx): { dataVersion: number; lastCall: number; balanceAt: number | null } {
  const dataVersion = c.db.pragma('data_version', { simple: true }) as number;
  const r = c.sql.get<{ last: number | null; at: number | null }>(
    sql`SELECT (SELECT max(id) FROM calls) AS last, (SELECT at FROM balance WHERE id = 1) AS at`,
  );
  return { dataVersion, lastCall: r?.last ?? 0, balanceAt: r?.at ?? null };
}

/** Forgets the last known balance (the next answer sets it again). */
export function clearBalance(c: ArchiveCtx): void {
  c.quiet(() => c.sql.run(sql`DELETE FROM balance`));
}
