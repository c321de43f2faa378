/**
 * Issue #12 from the command line: input errors are one sentence and exit 2 at once (a parameter
 * given twice, a base URL that is not http(s)); `credits --reconcile`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, type SandboxHandle } from '../sandbox';
import { runCaptured } from './run-captured';
import { parseParams } from './targets';

async function loupe(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; out: string; err: string; ms: number }> {
  const t = Date.now();
  const r = await runCaptured(args, env);
  return { ...r, ms: Date.now() - t };
}

let sb: SandboxHandle;
const dirs: string[] = [];
function home(): string {
  const d = mkdtempSync(join(tmpdir(), 'loupe-cli-input-'));
  dirs.push(d);
  return d;
}
beforeAll(async () => {
  sb = await startSandbox({ port: 0, seed: 21, balance: 50_000, freeCalls: 0 });
});
afterAll(async () => {
  await sb.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('input errors', () => {
  it('--param with the same name twice is a usage error naming both values; nothing is sent', async () => {
    expect(() => parseParams(['handle=a', 'handle=b'])).toThrow(/--param handle is given twice \("a" and "b"\)/);
    expect(parseParams(['handle=a', 'handle=a', 'x=1=2'])).toEqual({ handle: 'a', x: '1=2' });
    const env = { LOUPE_HOME: home(), LOUPE_BASE_URL: sb.url, LOUPE_API_KEY: sb.key };
    const n = sb.admin.charges().length;
    for (const cmd of [
      ['call', 'photo_net/profile/posts', '--param', 'handle=a', '--param', 'handle=b', '--yes'],
      ['quote', 'photo_net/profile/posts', '-p', 'handle=a', '-p', 'handle=b'],
      ['watch', 'add', 'photo_net/profile/posts', '-p', 'handle=a', '-p', 'handle=b', '--list', 'dup'],
    ]) {
      const r = await loupe(cmd, env);
      expect(r.code).toBe(2);
      expect(r.err.trim().split('\n')).toHaveLength(1);
      expect(r.err).toMatch(/"a" and "b"/);
    }
    expect(sb.admin.charges().length).toBe(n);
  });

  it('a base URL that is not an http(s) URL is a usage error at once (no retries, no "network failure"), from the flag, the environment or settings', async () => {
    const h = home();
    for (const [args, env, where] of [
      [['--base-url', 'not a url', 'credits'], {}, '--base-url'],
      [['credits'], { LOUPE_BASE_URL: 'not a url' }, 'LOUPE_BASE_URL'],
      [['call', 'photo_net/profile/posts', '-p', 'handle=x', '--yes'], { LOUPE_BASE_URL: 'ftp://127.0.0.1/' }, 'LOUPE_BASE_URL'],
      [['endpoints'], { LOUPE_BASE_URL: '127.0.0.1:8080' }, 'LOUPE_BASE_URL'],
    ] as Array<[string[], NodeJS.ProcessEnv, string]>) {
      const r = await loupe(args, { LOUPE_HOME: h, LOUPE_API_KEY: sb.key, ...env });
      expect(r.code, r.err).toBe(2);
      expect(r.err.trim().split('\n')).toHaveLength(1);
      expect(r.err).toContain(`${where} must be an http:// or https:// URL`);
      expect(r.err).not.toMatch(/network|gave up|retr/i);
      expect(r.ms).toBeLessThan(3_000);
    }
    // a key pasted in the wrong place is not echoed
    const key = sb.admin.createKey('misplaced');
    const r = await loupe(['credits'], { LOUPE_HOME: h, LOUPE_BASE_URL: key });
    expect(r.code).toBe(2);
    expect(r.err).not.toContain(key);
  });
});

describe('--out', () => {
  it('a folder that does not exist is a usage error before anything is read or spent', async () => {
    const env = { LOUPE_HOME: home(), LOUPE_BASE_URL: sb.url, LOUPE_API_KEY: sb.key };
    const n = sb.admin.charges().length;
    for (const cmd of [
      ['call', 'photo_net/profile/posts', '-p', 'handle=out_missing', '--yes', '--out', '/nonexistent-loupe-dir/x.jsonl'],
      ['export', '--format', 'csv', '--out', '/nonexistent-loupe-dir/x.csv'],
    ]) {
      const r = await loupe(cmd, env);
      expect(r.code).toBe(2);
      expect(r.err).toBe('loupe: The folder for --out does not exist: /nonexistent-loupe-dir.\n');
    }
    expect(sb.admin.charges().length).toBe(n);
  });
});

describe('credits --reconcile', () => {
  it('agrees after ordinary calls; lists spending elsewhere, a top-up, and a balance that differs from the ledger (exit 7); --json', async () => {
    const env = { LOUPE_HOME: home(), LOUPE_BASE_URL: sb.url, LOUPE_API_KEY: sb.key };
    expect((await loupe(['call', 'photo_net/profile/posts', '-p', 'handle=rec_one', '--pages', '2', '--yes'], env)).code).toBe(0);
    const ok = await loupe(['credits', '--reconcile'], env);
    expect(ok.code, ok.err).toBe(0);
    expect(ok.out).toMatch(/balance reading/);
    expect(ok.out).toMatch(/they agree/);

    // another key of the same account spends behind the ledger's back
    const other = sb.admin.createKey('other-tool');
    const before = sb.admin.balance();
    const res = await fetch(`${sb.url}/v1/photo_net/profile/posts?handle=elsewhere_spender`, { headers: { 'x-api-key': other } });
    expect(res.status).toBe(200);
    const elsewhere = before - sb.admin.balance();
    expect(elsewhere).toBeGreaterThan(0);
    const now = await loupe(['credits', '--reconcile'], env);
    expect(now.code).toBe(7);
    expect(now.out).toMatch(new RegExp(`a difference of -${elsewhere}`));
    expect(now.err).toMatch(/The ledger and the balance differ/);

    // the next answer carries the balance: the gap between two readings is listed
    expect((await loupe(['call', 'photo_net/profile/posts', '-p', 'handle=rec_two', '--yes'], env)).code).toBe(0);
    sb.admin.setBalance(sb.admin.balance() + 5_000); // a top-up
    expect((await loupe(['call', 'photo_net/profile/posts', '-p', 'handle=rec_three', '--yes'], env)).code).toBe(0);
    const j = await loupe(['credits', '--reconcile', '--json'], env);
    expect(j.code).toBe(7);
    const rep = JSON.parse(j.out) as {
      agree: boolean;
      live: number;
      expectedBalance: number;
      gaps: Array<{ kind: string; difference: number; requestIds: string[]; from: number; to: number; expected: number; observed: number }>;
    };
    expect(rep.agree).toBe(false);
    expect(rep.gaps.map((g) => [g.kind, g.difference])).toEqual([
      ['unrecorded_spending', elsewhere],
      ['top_up_or_refund', -5_000],
    ]);
    expect(rep.gaps[0].requestIds.length).toBeGreaterThan(0);
    expect(rep.live).toBe(rep.expectedBalance); // the balance now matches the last reading
    const text = await loupe(['credits', '--reconcile'], env);
    expect(text.out).toMatch(/Gap 1: .* more went than recorded/);
    expect(text.out).toMatch(/Gap 2: .* a top-up or refund of 5,000/);

    // --since after the differences: agrees again
    const since = new Date(rep.gaps[1].to).toISOString();
    const later = await loupe(['credits', '--reconcile', '--since', since], env);
    expect(later.code, later.out + later.err).toBe(0);
    expect((await loupe(['credits', '--since', 'yesterday', '--reconcile'], env)).code).toBe(2);
  });
});
