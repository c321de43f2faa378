/**
 * The command line against servers shaped in other legal ways (the sandbox's spec variants) and
 * against a service that asks for a day-long wait or answers a teapot: exit codes from the table,
 * one sentence, the way out, and the credits the service charged = the credits Loupe reports.
 */
import Database from 'better-sqlite3';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SPEC_VARIANTS, startSandbox, type SandboxHandle } from '../sandbox';
import { runCaptured } from './run-captured';

const open: SandboxHandle[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

async function sandbox(variants: string[] = []): Promise<{ sb: SandboxHandle; env: NodeJS.ProcessEnv }> {
  const sb = await startSandbox({ port: 0, seed: 21, balance: 1_000_000, freeCalls: 0, timeScale: 600, variants });
  open.push(sb);
  sb.admin.advance(86_400 * 90);
  return { sb, env: { LOUPE_HOME: mkdtempSync(join(tmpdir(), 'loupe-readings-')), LOUPE_BASE_URL: sb.url, LOUPE_API_KEY: sb.key } };
}

const loupe = (env: NodeJS.ProcessEnv, args: string[]) => runCaptured(args, env);

const charged = (sb: SandboxHandle) => sb.admin.charges().reduce((s, c) => s + c.credits_used, 0);
const spentSaid = (err: string) => Number((/([\d,]+) credits spent/.exec(err)?.[1] ?? 'NaN').replace(/,/g, ''));

describe('loupe against every legal reading of the spec', () => {
  for (const v of ['(default)', ...SPEC_VARIANTS.map((x) => x.name)]) {
    it(`walks, reports what the service charged, and exports every row (${v})`, async () => {
      const { sb, env } = await sandbox(v === '(default)' ? [] : [v]);
      sb.admin.queueFaults([{ kind: 'drop', match: 'channel/videos' }]);
      const r = await loupe(env, ['call', 'video_net/channel/videos', '-p', 'handle=readings', '--pages', '3', '--yes']);
      expect(r.err).toMatch(/credits spent/);
      expect(r.code).toBe(0);
      expect(spentSaid(r.err)).toBe(charged(sb));
      const lines = r.out.trim().split('\n').filter(Boolean);
      expect(lines.length).toBeGreaterThan(0);
      const out = join(env.LOUPE_HOME as string, 'rows.jsonl');
      const x = await loupe(env, ['export', '--format', 'jsonl', '--out', out]);
      expect(x.code).toBe(0);
    });
  }
});

describe('loupe against a hostile service', () => {
  it('stops at once on a day-long Retry-After with the time it ends and the resume line (exit 4), then resumes', async () => {
    const { sb, env } = await sandbox();
    sb.admin.queueFaults([{ kind: 'status', status: 429, type: 'RATE_LIMITED', retryAfter: 86_400, match: 'user/tweets' }]);
    const t0 = Date.now();
    // an account that stays public past the 90 days (the sandbox makes 2 % of accounts private as its clock moves,
    // docs/sandbox-world.md "Aging"; seed 21 makes `patient` private at day 47)
    const r = await loupe(env, ['call', 'micro_net/user/tweets', '-p', 'handle=patience', '--pages', '3', '--yes']);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(r.code).toBe(4);
    expect(r.err).toMatch(/Rate limited by the service until \d{4}-\d{2}-\d{2} \d{2}:\d{2}/);
    const id = /loupe resume (\S+)/.exec(r.err)?.[1];
    expect(id).toBeTruthy();
    const walks = await loupe(env, ['walks']);
    expect(walks.out).toContain(id as string);
    expect(walks.out).toMatch(/paused/);
    // resuming in the same process before that time sends nothing: the key is still paused
    const before = sb.admin.charges().length;
    const early = await loupe(env, ['resume', id as string, '--yes']);
    expect(early.code).toBe(4);
    expect(early.err).toMatch(/Rate limited by the service until/);
    expect(sb.admin.charges()).toHaveLength(before);
    // another process before that time sends nothing either: the pause is shared through the data folder
    const other = await promisify(execFile)(process.execPath, [join(process.cwd(), 'bin/loupe.js'), 'resume', id as string, '--yes'], {
      env: { ...process.env, ...env },
      timeout: 60_000,
    }).catch((e: { code?: number; stderr?: string }) => e);
    expect((other as { code?: number }).code).toBe(4);
    expect(sb.admin.charges()).toHaveLength(before);
    // a day later (the shared pause is over): the resume completes the walk
    const pacing = new Database(join(env.LOUPE_HOME as string, 'pacing.db'));
    pacing.prepare('UPDATE pace_pauses SET until_ms = 0').run();
    pacing.close();
    const out = join(env.LOUPE_HOME as string, 'resumed.jsonl');
    const again = await promisify(execFile)(
      process.execPath,
      [join(process.cwd(), 'bin/loupe.js'), 'resume', id as string, '--pages', '3', '--yes', '--out', out],
      {
        env: { ...process.env, ...env },
        timeout: 60_000,
      },
    );
    expect(again.stderr).toMatch(/3 page\(s\) in all/);
  }, 90_000);

  it('fails at once on a 418 text/plain answer: exit 3, the words, nothing retried', async () => {
    const { sb, env } = await sandbox();
    sb.admin.queueFaults([{ kind: 'status', status: 418, contentType: 'text/plain', body: "I'm a teapot", match: 'thread_net/profile' }]);
    const r = await loupe(env, ['call', 'thread_net/profile', '-p', 'handle=tea', '--yes']);
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/HTTP 418.*I'm a teapot/);
    expect(sb.admin.charges().filter((c) => c.endpoint.endsWith('thread_net/profile'))).toHaveLength(1);
  });
});
