/**
 * Issue 24 #10: a copy of the archive taken while Loupe runs held none of the analyst's work (`cp
 * loupe.db` with the app open: 0 of 3,486 tags — all in the WAL). `snapshotArchive` copies through
 * SQLite's backup API inside one read transaction: everything committed, WAL included, and nothing
 * half-written, while another connection keeps writing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { mulberry32 } from '../../shared/random';
import { HOST_TAG } from '../partial-files';
import { openArchive, type Archive } from './index';
import { countArchive, snapshotArchive, SnapshotError } from './snapshot';
import { post } from './test-fixtures';

const dirs: string[] = [];
const open: Archive[] = [];
afterEach(() => {
  for (const a of open.splice(0)) a.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'loupe-snapshot-'));
  dirs.push(d);
  return d;
}

/** An archive the app holds open, with the analyst's work still in its WAL (seeded, random amounts). */
function busyArchive(seed: number) {
  const dir = tmp();
  const file = join(dir, 'loupe.db');
  const a = openArchive(file);
  open.push(a);
  const rnd = mulberry32(seed);
  const n = 30 + Math.floor(rnd() * 60);
  a.ingestItems(
    Array.from({ length: n }, (_, i) => ({ platform: 'photo_net', kind: 'post', record: post({ id: String(1000 + i), likes: i }) })),
  );
  // the main file holds the items; what follows stays in the WAL (checkpoints only at 16,384 pages)
  new Database(file).pragma('wal_checkpoint(TRUNCATE)');
  const ref = (i: number) => ({ platform: 'photo_net', kind: 'post', id: String(1000 + (i % n)) });
  const tags = 1 + Math.floor(rnd() * 40);
  for (let i = 0; i < tags; i++) a.addTag(ref(i), `tag-${i % 7}`);
  const notes = 1 + Math.floor(rnd() * 20);
  for (let i = 0; i < notes; i++) a.setNote(ref(i), `note ${i}`);
  const overrides = 1 + Math.floor(rnd() * 10);
  for (let i = 0; i < overrides; i++) a.overrideLabel(ref(i), 'intent', 'label', 'complaining');
  a.saveResultSet(`set ${seed}`, { platforms: ['photo_net'] }, { tags: ['tag-1'] });
  a.recordAttempt({
    callId: `c-${seed}`,
    attempt: 1,
    startedAt: 1_700_000_000_000,
    durationMs: 12,
    platform: 'photo_net',
    endpoint: 'profile/posts',
    params: '{}',
    paramsHash: 'h',
    idempotencyKey: `k-${seed}`,
    requestId: `req-${seed}`,
    status: 200,
    errorType: null,
    creditsUsed: 20,
    creditsRemaining: 980,
    chargeReason: 'miss',
    cached: false,
    freeCall: false,
    idempotentReplay: false,
    source: 'cli',
    walkId: null,
    dryRun: false,
  });
  return { dir, file, a, expected: countArchive(new Database(file, { readonly: true })) };
}

describe('loupe archive snapshot (issue 24 #10)', () => {
  it('copies everything the analyst did, WAL included, where a plain copy of loupe.db misses it', async () => {
    for (const seed of [1, 2, 3]) {
      const { dir, file, expected } = busyArchive(seed);
      expect(existsSync(`${file}-wal`)).toBe(true);
      // the plain copy: the file alone, as `cp loupe.db` takes it while the app runs
      const plain = join(dir, 'plain.db');
      copyFileSync(file, plain);
      const p = countArchive(new Database(plain, { readonly: true }));
      expect(p.tags + p.notes + p.overrides + p.resultSets + p.ledgerRows).toBe(0); // the test can fail
      expect(p.items).toBe(expected.items);

      const out = join(dir, 'copy.db');
      const r = await snapshotArchive(file, out);
      expect(r.counts).toEqual(expected);
      // one self-contained file: nothing beside it, it opens read-only and as an archive
      expect(readdirSync(dir).filter((f) => f.startsWith('copy.db'))).toEqual(['copy.db']);
      const ro = new Database(out, { readonly: true });
      expect(ro.pragma('journal_mode', { simple: true })).toBe('delete');
      expect(ro.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(countArchive(ro)).toEqual(expected);
      ro.close();
      const back = openArchive(out);
      open.push(back);
      expect(back.listTags().reduce((s, t) => s + t.count, 0)).toBe(expected.tags);
      expect(back.listResultSets().map((s) => s.name)).toEqual([`set ${seed}`]);
    }
  });

  it('is consistent while another connection keeps writing: every transaction whole, nothing restarted', async () => {
    const { dir, file, expected } = busyArchive(7);
    // another process's writes, as the app's: each transaction adds one tag row and one note
    const w = new Database(file);
    w.pragma('busy_timeout = 5000');
    const ids = (w.prepare('SELECT rid FROM items ORDER BY rid').all() as Array<{ rid: number }>).map((r) => r.rid);
    const tagId = (w.prepare('SELECT tag_id FROM tags LIMIT 1').get() as { tag_id: number }).tag_id;
    let k = 0;
    const pair = w.transaction(() => {
      const rid = ids[k % ids.length];
      w.prepare('DELETE FROM item_tags WHERE item_rid = ? AND tag_id = ?').run(rid, tagId);
      w.prepare('INSERT INTO item_tags (item_rid, tag_id, at) VALUES (?, ?, ?)').run(rid, tagId, k);
      w.prepare('INSERT OR REPLACE INTO notes (item_rid, text, updated_at) VALUES (?, ?, ?)').run(rid, `w${k}`, k);
      k++;
    });
    const writer = setInterval(() => {
      for (let i = 0; i < 20; i++) pair();
    }, 0);
    const steps: number[] = [];
    const out = join(dir, 'copy.db');
    try {
      await snapshotArchive(file, out, { pagesPerStep: 1, onProgress: (p) => steps.push(p.done) });
    } finally {
      clearInterval(writer);
      w.close();
    }
    expect(k).toBeGreaterThan(0); // the writer ran during the copy
    expect(steps.length).toBeGreaterThan(3);
    for (let i = 1; i < steps.length; i++) expect(steps[i]).toBeGreaterThanOrEqual(steps[i - 1]); // never restarted
    const c = new Database(out, { readonly: true });
    expect(c.pragma('integrity_check', { simple: true })).toBe('ok');
    const copied = countArchive(c);
    expect(copied.items).toBe(expected.items);
    // a whole transaction or none: the latest written note's tag row is there too
    const last = c.prepare("SELECT max(CAST(substr(text, 2) AS INTEGER)) AS m FROM notes WHERE text LIKE 'w%'").get() as {
      m: number | null;
    };
    if (last.m !== null) expect(c.prepare('SELECT count(*) AS n FROM item_tags WHERE at = ?').get(last.m)).toEqual({ n: 1 });
    expect(copied.tags).toBeGreaterThanOrEqual(expected.tags);
    c.close();
  });

  it('never overwrites without force, never leaves a half file, and a replaced copy takes no stale WAL', async () => {
    const { dir, file, expected } = busyArchive(4);
    const out = join(dir, 'copy.db');
    writeFileSync(out, 'precious');
    await expect(snapshotArchive(file, out)).rejects.toThrow(/already exists.*--force/);
    await expect(snapshotArchive(file, out)).rejects.toBeInstanceOf(SnapshotError);
    await expect(snapshotArchive(file, file, { force: true })).rejects.toThrow(/the archive itself/);
    await expect(snapshotArchive(join(dir, 'none.db'), join(dir, 'x.db'))).rejects.toThrow(/no archive/);
    await expect(snapshotArchive(file, join(dir, 'missing', 'x.db'))).rejects.toThrow(/does not exist/);
    // cancelled midway: no file, no temporary file
    const abort = new AbortController();
    await expect(
      snapshotArchive(file, join(dir, 'cancelled.db'), {
        pagesPerStep: 1,
        signal: abort.signal,
        onProgress: (p) => p.done > 2 && abort.abort(),
      }),
    ).rejects.toThrow(/cancelled/);
    expect(readdirSync(dir).filter((f) => f.includes('cancelled') || f.includes('partial'))).toEqual([]);
    // --force over a file that has a -wal of its own (an old copy opened once): the new copy wins
    writeFileSync(`${out}-wal`, 'stale');
    const r = await snapshotArchive(file, out, { force: true });
    expect(r.counts).toEqual(expected);
    expect(existsSync(`${out}-wal`)).toBe(false);
    expect(countArchive(new Database(out, { readonly: true }))).toEqual(expected);
  });

  it('the next copy to a name removes what a killed copy left (its .partial and -journal); a live one’s stay', async () => {
    const { dir, file, expected } = busyArchive(5);
    const dead = Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString());
    const left = `.copy.db.${HOST_TAG}-${dead}-0000000000a1.partial`;
    const live = `.copy.db.${HOST_TAG}-${process.ppid}-0000000000a2.partial`;
    for (const n of [left, `${left}-journal`, live]) writeFileSync(join(dir, n), 'half a copy');
    const r = await snapshotArchive(file, join(dir, 'copy.db'));
    expect(r.counts).toEqual(expected);
    expect(
      readdirSync(dir)
        .filter((f) => f.includes('copy'))
        .sort(),
    ).toEqual([live, 'copy.db'].sort());
  });

  it('a disk that fills (the CLI under ulimit -f): storage error, exit 6, no file left', () => {
    const { dir } = busyArchive(5);
    const a = open.pop()!;
    a.ingestItems(
      Array.from({ length: 3000 }, (_, i) => ({
        platform: 'photo_net',
        kind: 'post',
        record: post({ id: `big${i}`, text: 'x'.repeat(400) }),
      })),
    );
    a.close();
    const out = join(dir, 'copy.db');
    const bin = resolve(__dirname, '../../../bin/loupe.js');
    const r = spawnSync(
      'bash',
      ['-c', `ulimit -f 600 && exec ${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} "$@"`, 'loupe', 'archive', 'snapshot', out],
      {
        env: { ...process.env, LOUPE_HOME: dir },
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    expect(r.status).toBe(6);
    expect(r.stderr).toMatch(/copy at .*copy\.db could not be written: the disk is full/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(readdirSync(dir).filter((f) => f.includes('copy'))).toEqual([]);
  }, 60_000);
});
