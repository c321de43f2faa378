/**
 * Issue #12 from the command line: local storage errors are one sentence and exit 6; reading
 * commands work in a read-only data folder; archive check / recover; interrupted walks.
 * Some tests run the CLI in another process: as another user (a read-only folder, when the tests
 * run as root and chmod would not stop them), under `ulimit -f` (a disk that fills), or to be
 * killed with SIGKILL mid-walk.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { startSandbox, type SandboxHandle } from '../sandbox';
import { openArchive, type Archive } from '../core/archive';
import { buildArchiveFile, damageLeafPage, listResponse, post } from '../core/archive/test-fixtures';
import { runCaptured } from './run-captured';

interface Run {
  code: number;
  out: string;
  err: string;
}

const loupe = (args: string[], env: NodeJS.ProcessEnv): Promise<Run> => runCaptured(args, env);

const TSX = resolve('node_modules/.bin/tsx');
const DRIVER = resolve('src/cli/test-driver.ts');
const BIN = resolve('bin/loupe.js');
const isRoot = process.getuid?.() === 0;
const hasSetpriv = isRoot && spawnSync('setpriv', ['--version']).status === 0;
/** how a read-only folder is made here: chmod (not root), another user (root with setpriv), or not at all */
const readOnlyBy: 'chmod' | 'setpriv' | null = process.platform === 'win32' ? null : !isRoot ? 'chmod' : hasSetpriv ? 'setpriv' : null;
if (!readOnlyBy)
  console.warn('storage.test: read-only folder tests skipped: running as root without setpriv (chmod does not stop root) or on Windows');

/**
 * Another process, awaited without blocking this one (the sandbox it talks to runs here).
 */
function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((res, rej) => {
    const p = spawn(cmd, args, { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => p.kill('SIGKILL'), 120_000);
    p.on('error', rej);
    p.on('close', (status) => {
      clearTimeout(timer);
      res({ status, stdout, stderr });
    });
  });
}

/** Runs command lines in one other process (as another user when root), returns their results. */
async function driver(commands: string[][], env: NodeJS.ProcessEnv): Promise<Run[]> {
  const cmd = readOnlyBy === 'setpriv' ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', TSX, DRIVER] : [TSX, DRIVER];
  const r = await run(cmd[0], [...cmd.slice(1), JSON.stringify(commands)], env);
  if (r.status !== 0) throw new Error(`driver failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout) as Run[];
}

const dirs: string[] = [];
function tmp(mode = 0o755): string {
  const d = mkdtempSync(join(tmpdir(), 'loupe-cli-storage-'));
  chmodSync(d, mode);
  dirs.push(d);
  return d;
}

let sb: SandboxHandle;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, seed: 12, balance: 100_000, freeCalls: 0 });
});
afterAll(async () => {
  await sb.close();
  for (const d of dirs) {
    try {
      chmodSync(d, 0o755);
    } catch {
      /* gone */
    }
    rmSync(d, { recursive: true, force: true });
  }
});

const charges = () => sb.admin.charges().length;

describe.skipIf(!readOnlyBy)(`a read-only data folder (made read-only by ${readOnlyBy ?? 'nothing'})`, () => {
  let home: string;
  let env: NodeJS.ProcessEnv;
  let out: string;
  beforeAll(async () => {
    home = tmp();
    out = tmp(0o777);
    env = { LOUPE_HOME: home, LOUPE_BASE_URL: sb.url, LOUPE_API_KEY: sb.key };
    expect((await loupe(['call', 'photo_net/profile/posts', '-p', 'handle=ro_reader', '--pages', '2', '--yes'], env)).code).toBe(0);
    expect((await loupe(['watch', 'add', 'photo_net/profile/posts', '-p', 'handle=ro_watch', '--list', 'ro-list'], env)).code).toBe(0);
    if (readOnlyBy === 'chmod') {
      chmodSync(join(home, 'loupe.db'), 0o444);
      chmodSync(home, 0o555);
    }
  });

  const reading = (o: string): string[][] => [
    ['walks', '--json'],
    ['export', '--format', 'jsonl', '--out', join(o, 'items.jsonl')],
    ['columns'],
    ['endpoints', '--platform', 'qa_net', '--json'],
    ['credits'],
    ['watch', 'list', '--json'],
    ['credits', '--reconcile', '--json'],
  ];

  function checkReading(rs: Run[], o: string): void {
    for (const r of rs) expect(r.code, `${r.err}`).toBe(0);
    const [walks, exported, columns, endpoints, credits, watch, reconcile] = rs;
    expect((JSON.parse(walks.out) as Array<{ pagesDone: number }>)[0].pagesDone).toBe(2);
    expect(readFileSync(join(o, 'items.jsonl'), 'utf8').trim().split('\n').length).toBeGreaterThan(10);
    expect(exported.err).toMatch(/Exported/);
    expect(columns.out).toMatch(/^platform$/m);
    expect((JSON.parse(endpoints.out) as Array<{ path: string }>).map((e) => e.path)).toContain('/v1/qa_net/search');
    expect(credits.out).toMatch(/credits_remaining/);
    expect((JSON.parse(watch.out) as Array<{ name: string }>).map((w) => w.name)).toEqual(['ro-list']);
    expect(JSON.parse(reconcile.out)).toMatchObject({ agree: true });
  }

  it('a cleanly closed archive: walks, export, columns, endpoints, credits, watch list work and nothing is written', async () => {
    const before = readdirSync(home).sort();
    const dbBefore = readFileSync(join(home, 'loupe.db'));
    expect(before).not.toContain('loupe.db-wal'); // closed cleanly: SQLite would need to create its -shm
    checkReading(await driver(reading(out), env), out);
    expect(readdirSync(home).sort()).toEqual(before);
    expect(readFileSync(join(home, 'loupe.db')).equals(dbBefore)).toBe(true);
  });

  it('an archive held open by another process (-wal and -shm present): read in place', async () => {
    if (readOnlyBy === 'chmod') {
      chmodSync(home, 0o755);
      chmodSync(join(home, 'loupe.db'), 0o644);
    }
    const holder: Archive = openArchive(join(home, 'loupe.db'));
    holder.getBalance(); // the open connection keeps the -wal and -shm files
    if (readOnlyBy === 'chmod') {
      chmodSync(join(home, 'loupe.db'), 0o444);
      chmodSync(home, 0o555);
    }
    try {
      const o2 = tmp(0o777);
      expect(existsSync(join(home, 'loupe.db-shm'))).toBe(true);
      checkReading(await driver(reading(o2), env), o2);
    } finally {
      holder.close();
    }
  });

  it('a writing command fails with the storage sentence and exit 6 before any charged request', async () => {
    const n = charges();
    const [call, resume] = await driver(
      [
        ['call', 'photo_net/profile/posts', '-p', 'handle=ro_writer', '--yes'],
        ['watch', 'run', 'ro-list', '--yes'],
      ],
      env,
    );
    for (const r of [call, resume]) {
      expect(r.code, r.err).toBe(6);
      expect(r.err.trim().split('\n')).toHaveLength(1);
      expect(r.err).toContain(join(home, 'loupe.db'));
      expect(r.err).toMatch(/read-only/);
      expect(r.err).toMatch(/make the data folder writable/);
      expect(r.err).not.toMatch(/Internal error/);
    }
    expect(charges()).toBe(n);
  });
});

describe.skipIf(process.platform === 'win32')('a disk that fills', () => {
  it('the archive hits the file-size limit mid-walk (a child under ulimit -f): one sentence, exit 6, naming the archive and the way out', async () => {
    const home = tmp();
    const env = { LOUPE_HOME: home, LOUPE_BASE_URL: sb.url, LOUPE_API_KEY: sb.key };
    expect((await loupe(['walks'], env)).code).toBe(0); // creates the archive (schema) without a limit
    const before = sb.admin.charges().length;
    const r = await run(
      'bash',
      [
        '-c',
        `ulimit -f 1200 && exec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"`,
        'loupe',
        'call',
        'photo_net/profile/posts',
        '-p',
        'handle=disk_filler',
        '--pages',
        '40',
        '--yes',
      ],
      env,
    );
    const lines = r.stderr
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('loupe:'));
    expect(r.status, r.stderr).toBe(6);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(join(home, 'loupe.db'));
    expect(lines[0]).toMatch(/disk is full/);
    expect(lines[0]).toMatch(/loupe resume/);
    expect(r.stderr).not.toMatch(/Internal error|network/i);
    // the summary names what the service charged (the page it could not keep included), and the
    // walk stopped at the first write that failed: no charged request after it
    const mine = sb.admin
      .charges()
      .slice(before)
      .filter((c) => c.endpoint.endsWith('profile/posts'));
    const spent = Number((/([\d,]+) credits spent/.exec(r.stderr)?.[1] ?? 'NaN').replace(/,/g, ''));
    expect(spent).toBe(mine.reduce((t, c) => t + c.credits_used, 0));
    const pages = Number(/(\d+) page\(s\)/.exec(r.stderr)?.[1] ?? 'NaN');
    expect(mine.filter((c) => c.credits_used > 0).length).toBeLessThanOrEqual(pages + 1);
    expect(mine.length).toBeLessThan(40);
  });
});

describe.skipIf(process.platform === 'win32')('an export to a disk that fills', () => {
  it('loupe export and dataset export past the file-size limit (a child under ulimit -f): the storage sentence naming the file, exit 6, nothing left', async () => {
    const home = tmp();
    const a = openArchive(join(home, 'loupe.db'));
    // one stored answer (answers.jsonl) and its 400 items; captions Snappy cannot shrink
    const rows = Array.from({ length: 400 }, (_, i) =>
      post({ id: String(9_300_000_000_000_000_000n + BigInt(i)), text: `caption ${randomBytes(100).toString('hex')}` }),
    );
    a.storeResponse(listResponse('call-0', 'photo_net', 'profile/posts', rows, { fetchedAt: Date.UTC(2026, 0, 1) }), 'test', null);
    a.close();
    const dir = tmp();
    for (const [what, args, out] of [
      ['export csv', ['export', '--format', 'csv'], join(dir, 'items.csv')],
      ['bundle', ['dataset', 'export'], join(dir, 'bundle')],
      ['bundle zip', ['dataset', 'export'], join(dir, 'bundle.zip')],
    ] as const) {
      // 64 KiB: the archive (read) is larger; each of these files passes it
      const r = await run(
        'bash',
        ['-c', `ulimit -f 64 && exec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"`, 'loupe', ...args, '--out', out],
        { LOUPE_HOME: home, LOUPE_API_KEY: '' },
      );
      const lines = r.stderr
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('loupe:'));
      // before: "loupe: Internal error: EFBIG: file too large, write" (exit 1); a bundle: an
      // unhandled 'error' event's stack, and its hidden folder left behind
      expect(r.status, `${what}: ${r.stderr}`).toBe(6);
      expect(lines, r.stderr).toHaveLength(1);
      expect(lines[0]).toContain(out);
      expect(lines[0]).toMatch(/disk is full or a file-size limit was reached/);
      expect(r.stderr).not.toMatch(/Internal error|\n\s+at /);
      expect(readdirSync(dir), what).toEqual([]);
    }
  });
});

describe('a damaged archive', () => {
  it('a file that is not a database: reading and writing commands say so in one sentence with the path and the way out, exit 6, nothing spent', async () => {
    const home = tmp();
    writeFileSync(join(home, 'loupe.db'), 'this is not an archive\n'.repeat(400));
    const env = { LOUPE_HOME: home, LOUPE_BASE_URL: sb.url, LOUPE_API_KEY: sb.key };
    const n = charges();
    for (const args of [
      ['walks'],
      ['export', '--format', 'csv', '--out', join(home, 'x.csv')],
      ['call', 'photo_net/profile/posts', '-p', 'handle=dmg', '--yes'],
    ]) {
      const r = await loupe(args, env);
      expect(r.code, r.err).toBe(6);
      expect(r.err.trim().split('\n')).toHaveLength(1);
      expect(r.err).toContain(join(home, 'loupe.db'));
      expect(r.err).toMatch(/loupe archive check/);
      expect(r.err).not.toMatch(/Internal error/);
    }
    expect(charges()).toBe(n);
    const check = await loupe(['archive', 'check'], env);
    expect(check.code).toBe(6);
    expect(check.out).toMatch(/has problems/);
  });

  it('archive check → problems, exit 6; archive recover → a new archive in place, the damaged one kept; archive check → healthy, exit 0', async () => {
    const home = tmp();
    const file = join(home, 'loupe.db');
    buildArchiveFile(file, 200);
    const env = { LOUPE_HOME: home, LOUPE_BASE_URL: sb.url, LOUPE_API_KEY: sb.key };
    const healthy = await loupe(['archive', 'check'], env);
    expect(healthy).toMatchObject({ code: 0 });
    expect(healthy.out).toBe(`The archive at ${file} is healthy (200 items, 10 ledger rows).\n`);

    damageLeafPage(file, 'items', 3);
    const bad = await loupe(['archive', 'check'], env);
    expect(bad.code).toBe(6);
    expect(bad.out).toMatch(/has problems:\n {2}- /);
    expect(bad.out).toMatch(/loupe archive recover/);

    const noProgram = await loupe(['archive', 'recover', '--engine', 'sqlite3'], { ...env, LOUPE_SQLITE3: '/nonexistent/sqlite3' });
    expect(noProgram.code).toBe(6);
    expect(noProgram.err).toMatch(/apt-get install sqlite3/);
    expect(readdirSync(home)).toEqual(['loupe.db']);

    const rec = await loupe(['archive', 'recover'], env);
    expect(rec.code, rec.err).toBe(0);
    expect(rec.out).toMatch(
      /^Recovered 1\d\d items, 10 ledger rows, 1 walks .* into a new archive at .*loupe\.db; the damaged file is kept at .*loupe\.damaged-.*\.db\./,
    );
    const good = await loupe(['archive', 'check'], env);
    expect(good.code).toBe(0);
    expect(good.out).toMatch(/is healthy \(1\d\d items, 10 ledger rows\)/);
    const walks = await loupe(['walks', '--json'], env);
    expect((JSON.parse(walks.out) as Array<{ walkId: string }>).map((w) => w.walkId)).toEqual(['walk1']);
  });
});

describe('a damaged archive costs nothing (issue 24 #9)', () => {
  // one table's pages damaged (bit rot), in each table an answer writes: the call is refused with
  // the storage sentence before anything is charged (the old core bought the answer, then failed
  // to store it, or stored around the damage unchecked)
  const damaged: Array<[string, number]> = [
    ['items', 10_000], // the last leaf: where a new item goes
    ['items', 3],
    ['sqlite_autoindex_items_1', 1],
    ['item_labels', 2],
    ['provenance', 1],
    ['items_fts_data', 1],
    ['responses_lookup', 0],
  ];
  it.each(damaged)(
    '%s page %i damaged: `loupe call` exits 6 with the storage sentence, the service charged nothing',
    async (table, nth) => {
      const home = tmp();
      const file = join(home, 'loupe.db');
      buildArchiveFile(file, 400);
      damageLeafPage(file, table, nth);
      const env = { LOUPE_HOME: home, LOUPE_BASE_URL: sb.url, LOUPE_API_KEY: sb.key };
      const n = charges();
      const r = await loupe(['call', 'photo_net/profile/posts', '-p', `handle=dmg_${table}_${nth}`, '--yes'], env);
      expect(
        sb.admin
          .charges()
          .slice(n)
          .filter((c) => c.credits_used > 0),
      ).toEqual([]);
      expect(r.code, r.err).toBe(6);
      const sentence = r.err
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('loupe:'));
      expect(sentence).toHaveLength(1);
      expect(sentence[0]).toMatch(
        new RegExp(
          `^loupe: The archive at ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} could not be (written|read): the file is damaged`,
        ),
      );
      expect(sentence[0]).toMatch(/loupe archive recover/);
    },
  );
});

describe.skipIf(process.platform === 'win32')('a walk whose process died', () => {
  it('shows as interrupted (not running), cannot be resumed while its process lives, and resumes once it is gone', async () => {
    const slow = await startSandbox({ port: 0, seed: 3, balance: 100_000, freeCalls: 0, latencyMs: 600 });
    const home = tmp();
    const env = { LOUPE_HOME: home, LOUPE_BASE_URL: slow.url, LOUPE_API_KEY: slow.key };
    const child = spawn(process.execPath, [BIN, 'call', 'photo_net/profile/posts', '-p', 'handle=killed_walker', '--pages', '8', '--yes'], {
      env: { PATH: process.env.PATH, ...env },
      stdio: 'ignore',
    });
    const exited = new Promise<void>((res) => child.once('exit', () => res()));
    try {
      // wait until the walk has saved a page
      let walkId: string | null = null;
      for (let i = 0; i < 600 && walkId === null; i++) {
        await new Promise((r) => setTimeout(r, 50));
        if (!existsSync(join(home, 'loupe.db'))) continue;
        const a = openArchive(join(home, 'loupe.db'));
        try {
          walkId = a.listWalks().find((w) => w.pagesDone >= 1)?.walkId ?? null;
        } finally {
          a.close();
        }
      }
      expect(walkId).not.toBeNull();
      const live = await loupe(['walks', '--json'], env);
      expect((JSON.parse(live.out) as Array<{ status: string }>)[0].status).toBe('running');
      const busy = await loupe(['resume', walkId as string], env);
      expect(busy.code).toBe(2);
      expect(busy.err).toMatch(new RegExp(`still running in another Loupe process \\(pid ${child.pid}\\)`));

      child.kill('SIGKILL');
      await exited;
      const listed = await loupe(['walks'], env);
      expect(listed.code).toBe(0);
      expect(listed.out).toMatch(new RegExp(`^${walkId}  interrupted `, 'm'));
      expect(listed.err).toMatch(/loupe resume <walkId>/);
      const json = JSON.parse((await loupe(['walks', '--json'], env)).out) as Array<{ walkId: string; status: string; pagesDone: number }>;
      const w = json.find((x) => x.walkId === walkId) as { status: string; pagesDone: number };
      expect(w.status).toBe('interrupted');

      const resumed = await loupe(['resume', walkId as string, '--pages', '1', '--yes'], env);
      expect(resumed.code, resumed.err).toBe(0);
      const after = JSON.parse((await loupe(['walks', '--json'], env)).out) as Array<{ walkId: string; status: string; pagesDone: number }>;
      const w2 = after.find((x) => x.walkId === walkId) as { status: string; pagesDone: number };
      expect(['paused', 'done']).toContain(w2.status);
      expect(w2.pagesDone).toBeGreaterThan(w.pagesDone);
    } finally {
      child.kill('SIGKILL');
      await slow.close();
    }
  });
});
