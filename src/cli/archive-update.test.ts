/**
 * The CLI on an archive written by an older Loupe (schema 9): the command brings it up to date
 * first (src/core/archive/prepare.ts, a worker thread), with progress on stderr only when stderr
 * is a terminal; stdout stays the command's own. `archive check` reads the file as it is.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { headerVersion } from '../core/archive/prepare';
import { openDb } from '../core/archive/db';
import { MIGRATIONS } from '../core/archive/migrations/index';
import { runCli } from './main';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loupe-cli-update-'));
  const db = openDb(join(dir, 'loupe.db'), MIGRATIONS.slice(0, 9));
  const ins = db.prepare(
    `INSERT INTO items (platform, kind, id, raw, first_seen_at, last_seen_at) VALUES ('forum_net', 'post', ?, ?, 1, 1)`,
  );
  db.transaction(() => {
    for (let i = 0; i < 6000; i++) ins.run(String(i), JSON.stringify({ id: String(i), ext: { post_title: `guide ${i}` } }));
  })();
  db.close();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function run(args: string[], tty: boolean): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough();
  const stderr = Object.assign(new PassThrough(), { isTTY: tty });
  const stdin = new PassThrough();
  stdin.end();
  let out = '';
  let err = '';
  stdout.on('data', (d) => (out += String(d)));
  stderr.on('data', (d) => (err += String(d)));
  const code = await runCli(['--data-dir', dir, ...args], { stdout, stderr, stdin, env: { LOUPE_HOME: dir } });
  return { code, out, err };
}

it("a terminal sees the update progress on stderr; stdout is the command's", async () => {
  const r = await run(['walks', '--json'], true);
  expect(r.code).toBe(0);
  expect(r.err).toMatch(/Updating your archive — [\d,]+ of 6,000 items/);
  expect(r.out).not.toContain('Updating');
  expect(JSON.parse(r.out)).toEqual([]);
  expect(headerVersion(join(dir, 'loupe.db'))).toBe(MIGRATIONS.length);
}, 60_000);

it('without a terminal: no progress at all; archive check leaves the file as it is', async () => {
  const check = await run(['archive', 'check', '--quick'], false);
  expect(check.err).not.toContain('Updating');
  expect(headerVersion(join(dir, 'loupe.db'))).toBe(9);
  const r = await run(['walks', '--json'], false);
  expect(r.code).toBe(0);
  expect(r.err).toBe('');
  expect(JSON.parse(r.out)).toEqual([]);
  expect(headerVersion(join(dir, 'loupe.db'))).toBe(MIGRATIONS.length);
}, 60_000);
