/**
 * Issue 24 #6: the command line in a pipe. `loupe call … --all | head -1` crashed with a stack
 * trace (exit 1) and kept paying for pages nobody read. A closed output stops the walk before its
 * next request, records every charge already made (ledger = the service's charges, walk state
 * saved, no journal entry left pending) and exits quietly: 141, at most one line on stderr.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readdirSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { PassThrough } from 'node:stream';
import { openArchive } from '../core/archive';
import { startSandbox, type SandboxHandle } from '../sandbox';
import { runCaptured } from './run-captured';
import { runCli } from './main';

const BIN = resolve(__dirname, '../../bin/loupe.js');
let sb: SandboxHandle;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, seed: 11, balance: 100_000, freeCalls: 0 });
});
afterAll(async () => {
  await sb.close();
});

const envFor = (home: string): NodeJS.ProcessEnv => ({ LOUPE_HOME: home, LOUPE_BASE_URL: sb.url, LOUPE_API_KEY: sb.key });

/** the service's charges and the ledger's rows for one query, and the archive's walk and journal */
function books(home: string, query: string) {
  const charges = sb.admin.charges().filter((c) => c.params.query === query && c.params.dry_run === undefined);
  const a = openArchive(join(home, 'loupe.db'));
  try {
    const ledger = a.listLedger({ limit: 1000 }).filter((e) => !e.dryRun && JSON.parse(e.params).query === query);
    const walks = a.listWalks().filter((w) => JSON.parse(w.params).query === query);
    return { charges, ledger, walks, pending: a.pendingJournal() };
  } finally {
    a.close();
  }
}

/**
 * `loupe call` in a child process whose stdout is a pipe to this process: read one line, then
 * close the pipe (what `head -1` does), and wait for the child to end.
 */
function callReadOneLine(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; signal: string | null; first: string; err: string }> {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let buf = '';
    let first = '';
    let err = '';
    child.stderr.on('data', (d) => (err += String(d)));
    child.stdout.on('data', (d) => {
      if (first) return;
      buf += String(d);
      const nl = buf.indexOf('\n');
      if (nl >= 0) {
        first = buf.slice(0, nl);
        child.stdout.destroy(); // the reader leaves: the child's next write meets a closed pipe
      }
    });
    child.on('error', rej);
    child.on('close', (code, signal) => res({ code, signal, first, err }));
  });
}

describe('a closed standard output (issue 24 #6)', () => {
  it('stops a --all walk before its next request, keeps the books equal and exits 141 with at most one line', async () => {
    const home = mkdtempSync(join(tmpdir(), 'loupe-pipe-'));
    const query = 'pipe-closed-coffee';
    const r = await callReadOneLine(['call', 'forum_net/search', '-p', `query=${query}`, '--all', '--yes'], envFor(home));
    expect(JSON.parse(r.first)).toHaveProperty('post');
    expect(r.err).not.toMatch(/\bat .+:\d+:\d+|EPIPE|Error:|Internal error/); // no stack, no raw error
    expect(r.err.trim().split('\n').length).toBeLessThanOrEqual(1);
    expect(r.code).toBe(141);

    const b = books(home, query);
    // the service's charges are the ledger's, request by request
    expect(b.ledger.map((e) => [e.requestId, e.creditsUsed]).sort()).toEqual(b.charges.map((c) => [c.request_id, c.credits_used]).sort());
    expect(b.charges.every((c) => c.status === 200)).toBe(true); // nothing aborted in flight
    // the walk stopped after at most the page in flight when the reader left: the first
    // request's lines filled the pipe, and the walk waits for the reader before the next one
    expect(b.charges.length).toBeGreaterThanOrEqual(1);
    expect(b.charges.length).toBeLessThanOrEqual(2);
    expect(b.walks).toHaveLength(1);
    expect(b.walks[0].status).toBe('cancelled');
    expect(b.walks[0].cursor).not.toBeNull(); // resumable from where it stopped
    expect(b.walks[0].creditsSpent).toBe(b.charges.reduce((s, c) => s + c.credits_used, 0));
    expect(b.pending).toEqual([]);

    // the balance and the ledger agree
    const rec = await runCaptured(['credits', '--reconcile', '--json'], envFor(home));
    expect(rec.code).toBe(0);
    expect(JSON.parse(rec.out).agree).toBe(true);
  }, 60_000);

  it('a reader that leaves a FIFO named by --out stops the walk the same way', async () => {
    const home = mkdtempSync(join(tmpdir(), 'loupe-pipe-'));
    const fifo = join(home, 'out.fifo');
    execFileSync('mkfifo', [fifo]);
    const query = 'pipe-fifo-tea';
    // the reader, another process (writes to a FIFO are synchronous): the first line, then it leaves
    const reader = new Promise<string>((res, rej) => {
      const head = spawn('head', ['-n', '1', fifo], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      head.stdout.on('data', (d) => (out += String(d)));
      head.on('error', rej);
      head.on('close', () => res(out.split('\n')[0]));
    });
    const run = await runCaptured(['call', 'forum_net/search', '-p', `query=${query}`, '--all', '--yes', '--out', fifo], envFor(home));
    expect(JSON.parse(await reader)).toHaveProperty('post');
    expect(run.code).toBe(141);
    expect(run.err.trim().split('\n')).toHaveLength(1);
    expect(run.err).toMatch(/closed by its reader.*loupe resume/);
    const b = books(home, query);
    expect(b.ledger.map((e) => e.requestId).sort()).toEqual(b.charges.map((c) => c.request_id).sort());
    expect(b.charges.length).toBeLessThanOrEqual(2);
    expect(b.walks[0].status).toBe('cancelled');
    expect(readdirSync(home).filter((f) => f.includes('partial'))).toEqual([]);
  }, 60_000);

  it('a full disk under --out stops the walk after the page it could not write: storage error, exit 6', async () => {
    if (!existsSync('/dev/full') || !statSync('/dev/full').isCharacterDevice()) return;
    const home = mkdtempSync(join(tmpdir(), 'loupe-pipe-'));
    // through a link of our own: a Loupe that renames its temporary file onto the target (as it
    // did) replaces the link, never /dev/full itself
    const full = join(home, 'full');
    symlinkSync('/dev/full', full);
    const query = 'pipe-full-kettle';
    const run = await runCaptured(['call', 'forum_net/search', '-p', `query=${query}`, '--all', '--yes', '--out', full], envFor(home));
    expect(run.code).toBe(6);
    expect(run.err).toMatch(/disk is full.*loupe resume/);
    const b = books(home, query);
    expect(b.charges).toHaveLength(1);
    expect(b.ledger.map((e) => e.requestId)).toEqual(b.charges.map((c) => c.request_id));
    expect(b.walks[0].status).toBe('cancelled');
    expect(lstatSync(full).isSymbolicLink()).toBe(true); // written through, not replaced
  }, 60_000);

  it('library, export to standard output and analyze end quietly (141) when their reader leaves', async () => {
    const home = mkdtempSync(join(tmpdir(), 'loupe-pipe-'));
    const fill = await runCaptured(['call', 'forum_net/search', '-p', 'query=pipe-library', '--pages', '3', '--yes'], envFor(home));
    expect(fill.code).toBe(0);
    for (const args of [
      ['library', '--limit', '200', '--jsonl'],
      ['export', '--format', 'jsonl', '--out', '-'],
      ['export', '--format', 'csv', '--out', '-'],
      ['analyze', 'top', '--field', 'words', '--limit', '500', '--format', 'json'],
    ]) {
      // a stdout whose reader leaves after its first write (EPIPE on every later one)
      let writes = 0;
      const stdout = new Writable({
        write(_c, _e, cb) {
          writes++;
          if (writes === 1) cb();
          else {
            const e = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
            cb(e);
          }
        },
      });
      const stderr = new PassThrough();
      let err = '';
      stderr.on('data', (d) => (err += String(d)));
      const stdin = new PassThrough();
      stdin.end();
      // one write is not enough to fill a pipe for some commands: send two
      const code = await runCli([...args], { stdout, stderr, stdin, env: envFor(home) });
      if (writes > 1) {
        expect(code, args.join(' ')).toBe(141);
        expect(err, args.join(' ')).not.toMatch(/EPIPE|Internal error|\bat .+:\d+:\d+/);
        expect(err.trim().split('\n').length, args.join(' ')).toBeLessThanOrEqual(1);
      } else expect(code, args.join(' ')).toBe(0);
    }
    expect(readdirSync(tmpdir()).filter((f) => f.startsWith('loupe-to-stdout-'))).toEqual([]);
  }, 60_000);
});
