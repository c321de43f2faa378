/**
 * Proof that the archive can take an answer, before the request core spends on one (issue 24 #9,
 * docs/archive.md "Before a charged request"): never spend on an answer the archive cannot keep.
 *
 * 1. A probe answer written inside a savepoint that is rolled back: the journal, a ledger row, a
 *    stored response with one item (its full-text rows through the trigger), a label row, its
 *    provenance, the balance — every table an answer writes, so a read-only file or folder, a
 *    locked archive, a damaged schema or free list, and damaged pages on the paths those writes take
 *    fail here, with the storage sentence, instead of after the charge.
 * 2. When the archive is small enough for it to be quick (≤ CHECK_PAGES pages: ~100 MB), SQLite's
 *    `quick_check` of each of those tables and their indexes: it reads every page of them, so a
 *    damaged page anywhere an answer can land (an index entry, an item a re-fetch updates) is found
 *    too. Measured on a 200k-post archive (532 MB): 1.1 s for `items`, 0.4–0.8 s for `item_labels`,
 *    ~4 s for the whole file — too slow before every session's first charged call at that size, so
 *    larger archives rely on step 1 alone.
 *
 * Run once per session (the first charged request) and again after any storage error.
 */
import { randomUUID } from 'node:crypto';
import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { storageError } from '../storage-error';
import type { ArchiveCtx } from './context';
import * as items from './items';
import * as ledger from './ledger';
import { sql } from './sql';

/**
 * No charged request is sent while the archive's disk has less free space than this: the answers
 * already in flight (up to the pacer's 10 at once, each a few hundred KiB to a few MiB of the
 * archive's write-ahead log: ~420 KiB for a 12-post page) must still find room, and so must their
 * ledger rows — an answer charged but not stored leaves its charge out of the ledger when several
 * were in flight (docs/archive.md "Before a charged request").
 */
export const MIN_FREE_BYTES = 32 * 1024 * 1024;

const MiB = (n: number): string => `${(n / (1024 * 1024)).toFixed(1)} MiB`;

/**
 * Before every charged request (cheap: one statfs): the archive's disk has at least the floor free,
 * or the storage sentence (`full`), and nothing is sent. An archive in memory, or a file system
 * that does not say, passes.
 */
export function requireRoom(c: ArchiveCtx): void {
  if (c.path === ':memory:' || c.db.memory) return;
  const floor = c.minFreeBytes ?? MIN_FREE_BYTES;
  let free: number;
  try {
    const fs = statfsSync(dirname(c.path));
    free = fs.bavail * fs.bsize;
  } catch {
    return;
  }
  if (free >= floor) return;
  throw storageError('full', c.path, {
    detail: `${MiB(free)} free on its disk; Loupe sends no charged request below ${MiB(floor)}, so that every answer paid for can be stored`,
  });
}

/** archives up to this many pages get the full quick_check of the tables an answer writes */
export const CHECK_PAGES = 25_000;

/** the tables one stored answer writes (with their indexes and the full-text shadow tables) */
const ANSWER_TABLES = [
  'journal',
  'calls',
  'responses',
  'items',
  'items_fts_data',
  'items_fts_idx',
  'label_fields',
  'item_labels',
  'provenance',
  'balance',
];

function probe(c: ArchiveCtx): void {
  const id = `probe:${randomUUID()}`;
  const at = c.clock();
  c.db.exec('SAVEPOINT loupe_writable_probe');
  try {
    ledger.beginJournal(c, {
      callId: id,
      opKey: id,
      idempotencyKey: id,
      platform: 'probe',
      endpoint: 'probe',
      params: '{}',
      paramsHash: id,
      state: 'pending',
      createdAt: at,
      finishedAt: null,
      keyName: null,
    });
    ledger.recordAttempt(c, {
      callId: id,
      attempt: 1,
      startedAt: at,
      durationMs: 0,
      platform: 'probe',
      endpoint: 'probe',
      params: '{}',
      paramsHash: id,
      idempotencyKey: id,
      requestId: null,
      status: null,
      errorType: null,
      creditsUsed: 0,
      creditsRemaining: null,
      chargeReason: null,
      cached: false,
      freeCall: false,
      idempotentReplay: false,
      source: 'probe',
      walkId: null,
      dryRun: false,
    });
    const post = {
      id,
      content: { text: 'loupe archive probe' },
      author: { id, username: 'probe', display_name: 'probe' },
      published_at: new Date(at).toISOString(),
    };
    const envelope = {
      success: true,
      platform: 'probe',
      endpoint: 'probe',
      schema_version: '2',
      credits_used: 0,
      credits_remaining: null,
      request_id: id,
      data: { items: [{ post }] },
    };
    items.storeResponse(
      c,
      { callId: id, platform: 'probe', endpoint: 'probe', paramsHash: id, fetchedAt: at, envelope: envelope as never },
      'probe',
      null,
    );
    const rid = c.sql.value<number>(sql`SELECT rid FROM items WHERE platform = 'probe' AND kind = 'post' AND id = ${id}`);
    // a label row and a label field, written directly: labels.ts caches field ids it creates
    c.sql.run(sql`INSERT INTO label_fields (family, field) VALUES (${id}, 'probe')`);
    c.sql.run(sql`INSERT INTO item_labels (ff, value, item_rid) VALUES ((SELECT max(ff) FROM label_fields), 'probe', ${rid ?? 0})`);
    c.st('INSERT INTO balance (id, credits_remaining, at) VALUES (1, 0, 0) ON CONFLICT (id) DO UPDATE SET at = balance.at').run();
  } catch (e) {
    undo(c);
    throw e;
  }
  undo(c, true);
}

/** Rolls the probe back (an error doing so is thrown only when the probe itself went through). */
function undo(c: ArchiveCtx, rethrow = false): void {
  try {
    c.db.exec('ROLLBACK TO loupe_writable_probe');
    c.db.exec('RELEASE loupe_writable_probe');
  } catch (e) {
    if (rethrow) throw e;
  }
}

function quickCheck(c: ArchiveCtx, checkPages: number): void {
  const pages = c.db.pragma('page_count', { simple: true }) as number;
  if (pages > checkPages) return;
  const present = new Set(
    (c.st("SELECT name FROM sqlite_schema WHERE type = 'table'").all() as Array<{ name: string }>).map((r) => r.name),
  );
  for (const t of ANSWER_TABLES) {
    if (!present.has(t)) continue;
    const rows = c.db.pragma(`quick_check(${t})`) as Array<Record<string, unknown>>;
    const first = String(Object.values(rows[0] ?? {})[0] ?? 'ok');
    if (rows.length !== 1 || first !== 'ok')
      throw storageError('damaged', c.path, {
        detail: `SQLITE_CORRUPT: the ${t} table: ${first.replace(/\s+/g, ' ').trim()}`,
        code: 'SQLITE_CORRUPT',
      });
  }
}

/** Throws the StorageError (via the caller's guard) when the archive cannot take an answer now. */
export function proveWritable(c: ArchiveCtx, checkPages = CHECK_PAGES): void {
  c.quiet(() => probe(c));
  quickCheck(c, checkPages);
}
