/** The journal's owner and balance reading, and the ledger reads a lost answer is judged by (migrations 0016, 0023, 0026). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { JournalEntry, LedgerEntry } from '../ports';
import { openArchive, type Archive } from './archive';
import { latestVersion } from './db';
import { ledgerEntry } from './test-fixtures';
import { testDb } from './testing';

let a: Archive;
const dirs: string[] = [];
afterEach(() => {
  a?.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const entry = (callId: string, extra: Partial<JournalEntry> = {}): JournalEntry => ({
  callId,
  opKey: `op:${callId}`,
  idempotencyKey: `k-${callId}`,
  platform: 'photo_net',
  endpoint: 'profile/posts',
  params: '{}',
  paramsHash: 'h',
  state: 'pending',
  createdAt: 1_000,
  finishedAt: null,
  keyName: null,
  ...extra,
});
const row = (credits: number, startedAt: number): LedgerEntry =>
  ledgerEntry({
    callId: 'c',
    startedAt,
    durationMs: 1,
    params: '{}',
    paramsHash: 'h',
    idempotencyKey: 'k',
    requestId: null,
    creditsUsed: credits,
    creditsRemaining: null,
    source: 'test',
  });

describe('journal attribution columns', () => {
  it('keeps the reading taken before the key was sent, and who sends it: this process, or one that is gone', () => {
    a = openArchive(':memory:');
    a.beginJournal(entry('a', { before: { balance: 9_980, at: 900, ledgerId: 7 } }));
    expect(a.findJournal('op:a')).toMatchObject({ before: { balance: 9_980, at: 900, ledgerId: 7 }, owner: 'this' });
    a.beginJournal(entry('b'));
    expect(a.findJournal('op:b')).toMatchObject({ before: null, owner: 'this' });
    // a process that no longer exists (a pid far beyond any live one)
    testDb(a).prepare("UPDATE journal SET owner_pid = 2147483000 WHERE call_id = 'b'").run();
    expect(a.pendingJournal().find((e) => e.callId === 'b')?.owner).toBe('gone');
    // written before the owner was recorded
    testDb(a).prepare("UPDATE journal SET owner_pid = NULL, owner_host = NULL, owner_start = NULL WHERE call_id = 'b'").run();
    expect(a.findJournal('op:b')?.owner).toBe('unknown');
  });

  it('keeps whether a free call could cover each key when it was sent (migration 0023), unknown when not said', () => {
    a = openArchive(':memory:');
    a.beginJournal(entry('moved', { freeMayCover: false, lossFreeMayCover: true, lossBefore: { balance: 100, at: 3, ledgerId: 0 } }));
    expect(a.findJournal('op:moved')).toMatchObject({ freeMayCover: false, lossFreeMayCover: true });
    a.beginJournal(entry('moved', { freeMayCover: true, lossFreeMayCover: null }));
    expect(a.findJournal('op:moved')).toMatchObject({ freeMayCover: true, lossFreeMayCover: null });
    a.beginJournal(entry('old'));
    expect(a.findJournal('op:old')).toMatchObject({ freeMayCover: null, lossFreeMayCover: null });
  });

  it('keeps the free calls the service said were left before each key was sent (migration 0026), none when not said', () => {
    a = openArchive(':memory:');
    const m = { left: 4, at: 900, ledgerId: 7 };
    a.beginJournal(entry('moved', { freeLeft: m, lossFreeLeft: { left: 10, at: 3, ledgerId: 0 } }));
    expect(a.findJournal('op:moved')).toMatchObject({ freeLeft: m, lossFreeLeft: { left: 10, at: 3, ledgerId: 0 } });
    a.beginJournal(entry('moved', { freeLeft: { left: 0, at: 950, ledgerId: 8 }, lossFreeLeft: null }));
    expect(a.findJournal('op:moved')).toMatchObject({ freeLeft: { left: 0, at: 950, ledgerId: 8 }, lossFreeLeft: null });
    a.beginJournal(entry('old'));
    expect(a.pendingJournal().find((e) => e.callId === 'old')).toMatchObject({ freeLeft: null, lossFreeLeft: null });
  });

  it('migration 0026 upgrades an archive written before it: its pending entries read as not said, then keep the figure', () => {
    const dir = mkdtempSync(join(tmpdir(), 'loupe-0026-'));
    dirs.push(dir);
    const file = join(dir, 'loupe.db');
    a = openArchive(file);
    a.beginJournal(entry('before', { freeMayCover: true }));
    a.close();
    // the archive as the Loupe before 0026 left it
    const db = new Database(file);
    for (const c of ['free_left', 'free_left_at', 'free_left_ledger', 'loss_free_left', 'loss_free_left_at', 'loss_free_left_ledger'])
      db.exec(`ALTER TABLE journal DROP COLUMN ${c}`);
    db.pragma('user_version = 25');
    db.close();
    a = openArchive(file);
    expect(testDb(a).pragma('user_version', { simple: true })).toBe(latestVersion());
    expect(a.findJournal('op:before')).toMatchObject({ state: 'pending', freeMayCover: true, freeLeft: null, lossFreeLeft: null });
    a.beginJournal(entry('before', { freeMayCover: true, freeLeft: { left: 2, at: 1_100, ledgerId: 3 } }));
    expect(a.findJournal('op:before')?.freeLeft).toEqual({ left: 2, at: 1_100, ledgerId: 3 });
  });

  it('ledgerFreeSince: answers a free call covered, recorded after a row for attempts started since', () => {
    a = openArchive(':memory:');
    a.recordAttempt({ ...row(0, 100), freeCall: true });
    const mark = a.ledgerHighWater();
    a.recordAttempt({ ...row(0, 150), freeCall: true }); // recorded after, sent before the reading
    a.recordAttempt({ ...row(0, 250), freeCall: true });
    a.recordAttempt({ ...row(20, 260) });
    a.recordAttempt({ ...row(0, 270), freeCall: true, idempotentReplay: true });
    a.recordAttempt({ ...row(0, 280), freeCall: true, chargeReason: 'inferred:free' });
    expect(a.ledgerFreeSince(mark, 200)).toBe(2);
    expect(a.ledgerFreeSince(0, 0)).toBe(4);
  });

  it('journalAround: every other pending entry started by then, and those finished since', () => {
    a = openArchive(':memory:');
    a.beginJournal(entry('self'));
    a.beginJournal(entry('pending', { createdAt: 500 }));
    a.beginJournal(entry('later', { createdAt: 5_000 }));
    a.beginJournal(entry('old'));
    a.finishJournal('old', 'done', 800);
    a.beginJournal(entry('recent'));
    a.finishJournal('recent', 'done', 1_500);
    expect(
      a
        .journalAround('self', 1_000, 2_000)
        .map((e) => e.callId)
        .sort(),
    ).toEqual(['pending', 'recent']);
  });

  it('ledgerHighWater and ledgerCreditsSince: what was recorded after a reading, for attempts started since', () => {
    a = openArchive(':memory:');
    expect(a.ledgerHighWater()).toBe(0);
    a.recordAttempt(row(20, 100));
    const mark = a.ledgerHighWater();
    a.recordAttempt(row(40, 200));
    a.recordAttempt(row(7, 50)); // an inferred row dated to an attempt before the reading
    expect(a.ledgerCreditsSince(mark, 150)).toBe(40);
    expect(a.ledgerHighWater()).toBe(mark + 2);
  });
});
