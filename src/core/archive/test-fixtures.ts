/** Record builders for the archive tests (not shipped code paths). */
import type { Envelope } from '../../shared/api-types';
import Database from 'better-sqlite3';
import { closeSync, openSync, writeSync } from 'node:fs';
import type { LedgerEntry, StoredResponse } from '../ports';
import { openArchive } from './archive';
import { testDb } from './testing';
import { successEnvelope } from '../api/test-envelope';

export interface PostOpts {
  id: string;
  text?: string | null;
  author?: { id?: string | null; username?: string | null; display_name?: string | null };
  published_at?: string | null;
  views?: number | null;
  likes?: number | null;
  comments?: number | null;
  shares?: number | null;
  saves?: number | null;
  labels?: Record<string, Record<string, unknown>> | null;
  relevance?: number | null;
  /** omit `computed` entirely (judgments off) */
  noComputed?: boolean;
  kind?: string | null;
  parent_id?: string | null;
  language?: string | null;
}

export function post(o: PostOpts): Record<string, unknown> {
  const rec: Record<string, unknown> = {
    id: o.id,
    url: `https://photo-net.example/p/${o.id}`,
    kind: o.kind === undefined ? 'photo' : o.kind,
    parent_id: o.parent_id ?? null,
    content: { text: o.text === undefined ? `post ${o.id}` : o.text, media_urls: null, thumbnail_url: null, duration_seconds: null },
    author: {
      id: o.author?.id === undefined ? 'a1' : o.author.id,
      username: o.author?.username === undefined ? 'alice' : o.author.username,
      display_name: o.author?.display_name === undefined ? 'Alice' : o.author.display_name,
      avatar_url: null,
      verified: null,
    },
    engagement: {
      views: o.views ?? null,
      likes: o.likes ?? null,
      comments: o.comments ?? null,
      shares: o.shares ?? null,
      saves: o.saves ?? null,
    },
    flags: {
      nsfw: null,
      spoiler: null,
      pinned: null,
      likes_hidden: null,
      comments_hidden: null,
      shares_hidden: null,
      views_hidden: null,
      saves_hidden: null,
      deleted: false,
    },
    published_at: o.published_at === undefined ? '2024-05-01T12:00:00Z' : o.published_at,
    language: o.language === undefined ? 'en' : o.language,
    ext: null,
  };
  if (!o.noComputed) {
    rec.computed = {
      labels: o.labels === undefined ? null : o.labels,
      relevance: o.relevance === undefined || o.relevance === null ? null : { p: o.relevance, sense: null, depth: null, spam: null },
    };
  }
  return rec;
}

/**
 * One ledger row (a call attempt as `recordAttempt` takes it): a charged 200 of `photo_net`'s
 * `profile/posts` for the search screen; `over` sets the fields a test is about.
 */
export function ledgerEntry(over: Partial<LedgerEntry> = {}): LedgerEntry {
  return {
    callId: 'c1',
    attempt: 1,
    startedAt: 1_000,
    durationMs: 120,
    platform: 'photo_net',
    endpoint: 'profile/posts',
    params: '{"handle":"x"}',
    paramsHash: 'h1',
    idempotencyKey: 'idem-1',
    requestId: 'req_1',
    status: 200,
    errorType: null,
    creditsUsed: 3,
    creditsRemaining: 97,
    chargeReason: 'miss',
    cached: false,
    freeCall: false,
    idempotentReplay: false,
    source: 'search',
    walkId: null,
    dryRun: false,
    ...over,
  };
}

export function envelope(platform: string, endpoint: string, data: Record<string, unknown>, extra: Partial<Envelope> = {}): Envelope {
  return {
    ...successEnvelope(platform, endpoint, data, { credits_used: 1, credits_remaining: 100, request_id: `req_${endpoint}` }),
    ...extra,
  };
}

export function listResponse(
  callId: string,
  platform: string,
  endpoint: string,
  items: Array<Record<string, unknown>>,
  opts: { fetchedAt?: number; kind?: string; paramsHash?: string; unavailable?: string[] } = {},
): StoredResponse {
  const kind = opts.kind ?? 'post';
  return {
    callId,
    platform,
    endpoint,
    paramsHash: opts.paramsHash ?? `h_${callId}`,
    fetchedAt: opts.fetchedAt ?? 1_000,
    envelope: envelope(
      platform,
      endpoint,
      { items: items.map((r) => ({ [kind]: r })), total: items.length, truncated: false, ext: {} },
      {
        unavailable: opts.unavailable ?? [],
      },
    ),
  };
}

/**
 * A real archive file with `n` posts (ids `p0`…, numeric-looking text ids), one ledger row per
 * page of 20 with a balance, and a walk; closed cleanly (WAL checkpointed into the file).
 */
export function buildArchiveFile(file: string, n: number): { ids: string[] } {
  const a = openArchive(file);
  const ids: string[] = [];
  let balance = 100_000;
  for (let page = 0; page * 20 < n; page++) {
    const posts = [];
    for (let i = page * 20; i < Math.min(n, page * 20 + 20); i++) {
      const id = String(9_000_000_000_000_000n + BigInt(i));
      ids.push(id);
      posts.push(
        post({
          id,
          text: `post number ${i} ${'lorem ipsum '.repeat(8)}`,
          likes: i,
          labels: { intent: { label: i % 2 ? 'complaining' : 'other', confidence: 0.5 } },
        }),
      );
    }
    a.storeResponse(listResponse(`call${page}`, 'photo_net', 'profile/posts', posts, { fetchedAt: 1_000 + page }), 'cli', 'walk1');
    balance -= 20;
    a.recordAttempt(
      ledgerEntry({
        callId: `call${page}`,
        startedAt: 1_000 + page * 1_000,
        durationMs: 100,
        params: '{}',
        paramsHash: `h_call${page}`,
        idempotencyKey: `k${page}`,
        requestId: `req_${page}`,
        creditsUsed: 20,
        creditsRemaining: balance,
        source: 'cli',
        walkId: 'walk1',
      }),
    );
  }
  a.saveWalk({
    walkId: 'walk1',
    platform: 'photo_net',
    endpoint: 'profile/posts',
    params: '{"handle":"x"}',
    cursorParam: 'cursor',
    cursor: 'sdr_c',
    pagesDone: Math.ceil(n / 20),
    creditsSpent: 20 * Math.ceil(n / 20),
    itemsSeen: n,
    status: 'paused',
    stopReason: 'max_pages',
    source: 'cli',
    createdAt: 1,
    updatedAt: 2,
    error: null,
  });
  a.close();
  return { ids };
}

/**
 * Overwrites one b-tree leaf page of `table` (the `nth` in file order) with garbage; returns its
 * page number. The file must be closed (no WAL).
 */
export function damageLeafPage(file: string, table: string, nth = 1): number {
  const db = new Database(file, { fileMustExist: true }); // read-write: closing removes its -wal / -shm
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const pages = (
    db.prepare("SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY pageno").all(table) as Array<{ pageno: number }>
  ).map((r) => r.pageno);
  db.close();
  const page = pages[Math.min(nth, pages.length - 1)];
  const garbage = Buffer.alloc(pageSize);
  for (let i = 0; i < pageSize; i++) garbage[i] = (i * 131 + 7) & 0xff;
  const fd = openSync(file, 'r+');
  writeSync(fd, garbage, 0, pageSize, (page - 1) * pageSize);
  closeSync(fd);
  return page;
}

type Conn = InstanceType<typeof Database>;

/**
 * Runs `write` — today's archive code (Archive.storeResponse, ingestItems…) — on a connection at
 * an older schema, for tests of a migration: the columns later migrations add to its tables, and
 * the plain tables they add (item_readings…), exist while it runs, then are dropped, so the file
 * holds exactly that schema's tables afterwards.
 */
export function writeAsOldSchema<T>(db: Conn, write: () => T): T {
  const columns = (d: Conn, t: string) => d.prepare(`PRAGMA table_info(${t})`).all() as Array<{ name: string; type: string }>;
  const tables = (d: Conn) =>
    d
      .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND sql NOT LIKE 'CREATE VIRTUAL%'")
      .all() as Array<{ name: string; sql: string }>;
  const latest = openArchive(':memory:');
  const later: Array<{ table: string; name: string; type: string }> = [];
  const newTables: Array<{ name: string; sql: string }> = [];
  try {
    const old = new Set(tables(db).map((t) => t.name));
    for (const t of tables(testDb(latest))) {
      if (!old.has(t.name)) {
        if (!/\bREFERENCES\s+(?!items\b)/i.test(t.sql)) newTables.push(t);
        continue;
      }
      const have = new Set(columns(db, t.name).map((c) => c.name));
      for (const c of columns(testDb(latest), t.name)) if (!have.has(c.name)) later.push({ table: t.name, name: c.name, type: c.type });
    }
  } finally {
    latest.close();
  }
  for (const c of later) db.exec(`ALTER TABLE ${c.table} ADD COLUMN ${c.name} ${c.type}`);
  for (const t of newTables) db.exec(t.sql);
  try {
    return write();
  } finally {
    for (const t of newTables) db.exec(`DROP TABLE ${t.name}`);
    for (const c of later) db.exec(`ALTER TABLE ${c.table} DROP COLUMN ${c.name}`);
  }
}

/** The journal entry's readings and free-call fields an entry written without them reads back as null (0016, 0020, 0023, 0026). */
export const JOURNAL_UNSAID = ['before', 'lossBefore', 'freeMayCover', 'lossFreeMayCover', 'freeLeft', 'lossFreeLeft'] as const;

/** SQL that takes a latest-schema archive back to schema 22 (the journal's free-call columns 0023 added, dropped). */
export const UNDO_0023 = `ALTER TABLE journal DROP COLUMN free_may_cover; ALTER TABLE journal DROP COLUMN loss_free_may_cover; PRAGMA user_version = 22;`;

/** SQL that takes a latest-schema archive back to schema 21 (the alert e-mail columns 0022 added, dropped; 0023 first). */
export const UNDO_0022 = `${UNDO_0023} DROP INDEX watch_alerts_email; ALTER TABLE watch_alerts DROP COLUMN email_state; ALTER TABLE watch_alerts DROP COLUMN email_error;
  ALTER TABLE watch_alerts DROP COLUMN email_tries; ALTER TABLE watch_alerts DROP COLUMN email_at; ALTER TABLE watch_alerts DROP COLUMN items_json; PRAGMA user_version = 21;`;

/** SQL that takes a latest-schema archive back to schema 20 (the parent index 0021 added, dropped; 0022 first). */
export const UNDO_0021 = `${UNDO_0022} DROP INDEX items_parent; PRAGMA user_version = 20;`;

/** SQL that takes a latest-schema archive back to schema 18 (what migrations 0021 to 0019 added, removed). */
export const UNDO_0019 = `${UNDO_0021} ALTER TABLE journal DROP COLUMN loss_before_balance; ALTER TABLE journal DROP COLUMN loss_before_at;
  ALTER TABLE journal DROP COLUMN loss_before_ledger; ALTER TABLE tags DROP COLUMN color; PRAGMA user_version = 18;`;

/** SQL that takes a latest-schema archive back to schema 16 (what migrations 0019 to 0017 added, removed). */
export const UNDO_0017 = `${UNDO_0019} DROP TABLE archive_serves; DROP TABLE watch_alerts; PRAGMA user_version = 16;`;

/** SQL that takes a latest-schema archive back to schema 15 (what migrations 0018 to 0016 added, removed). */
export const UNDO_0016 = `${UNDO_0017} DROP INDEX journal_finished; ALTER TABLE journal DROP COLUMN owner_pid; ALTER TABLE journal DROP COLUMN owner_host;
  ALTER TABLE journal DROP COLUMN owner_start; ALTER TABLE journal DROP COLUMN before_balance; ALTER TABLE journal DROP COLUMN before_at;
  ALTER TABLE journal DROP COLUMN before_ledger; PRAGMA user_version = 15;`;

/** SQL that takes a latest-schema archive back to schema 14 (what migrations 0016 and 0015 added, removed). */
export const UNDO_0015 = `${UNDO_0016} ALTER TABLE walks DROP COLUMN restarts; ALTER TABLE walks DROP COLUMN rewalk_at; PRAGMA user_version = 14;`;

/**
 * SQL that takes a latest-schema archive back to schema 12 (what migrations 0016, 0015 and 0013 added,
 * removed; 0014's tables are created only if missing, so they may stay): tests of older migrations.
 */
export const UNDO_0013 = `${UNDO_0015} DROP VIEW metric_history; DROP TABLE item_readings; DROP TABLE imported_calls; DROP INDEX items_missing;
  ALTER TABLE items DROP COLUMN counts_at; ALTER TABLE items DROP COLUMN checked_at; ALTER TABLE items DROP COLUMN missing_since;
  ALTER TABLE item_tags DROP COLUMN author; ALTER TABLE notes DROP COLUMN author; ALTER TABLE label_overrides DROP COLUMN author;
  ALTER TABLE result_sets DROP COLUMN author; PRAGMA user_version = 12;`;
