import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { mkdtempSync, readFileSync, existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { startSandbox, type SandboxHandle } from '../sandbox';
import { runCli, parseTarget } from './main';
import { parseLabelCondition } from './query-flags';

interface Run {
  code: number;
  out: string;
  err: string;
}

function io(env: NodeJS.ProcessEnv, stdinText?: string) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const stdin = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d) => (out += String(d)));
  stderr.on('data', (d) => (err += String(d)));
  if (stdinText !== undefined) stdin.end(stdinText);
  else stdin.end();
  return { io: { stdout, stderr, stdin, env }, get: () => ({ out, err }) };
}

let sb: SandboxHandle;
let home: string;
let env: NodeJS.ProcessEnv;

async function loupe(args: string[], opts: { stdin?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Run> {
  const h = io(opts.env ?? env, opts.stdin);
  const code = await runCli(args, h.io);
  return { code, ...h.get() };
}

beforeAll(async () => {
  sb = await startSandbox({ port: 0, seed: 7, balance: 5000, freeCalls: 0 });
  home = mkdtempSync(join(tmpdir(), 'loupe-cli-'));
  env = { LOUPE_HOME: home, LOUPE_BASE_URL: sb.url, LOUPE_API_KEY: sb.key };
});
afterAll(async () => {
  await sb.close();
});

describe('loupe command line', () => {
  it('parses targets with or without /v1', () => {
    expect(parseTarget('/v1/photo_net/profile/posts')).toEqual({ platform: 'photo_net', endpoint: 'profile/posts' });
    expect(parseTarget('micro_net/user/tweets')).toEqual({ platform: 'micro_net', endpoint: 'user/tweets' });
    expect(() => parseTarget('photo_net')).toThrow(/platform/);
  });

  it('parses label conditions for export filters', () => {
    expect(parseLabelCondition('intent.label=complaining')).toEqual({ family: 'intent', field: 'label', op: 'eq', value: 'complaining' });
    expect(parseLabelCondition('sponsored.p>=0.5')).toEqual({ family: 'sponsored', field: 'p', op: 'gte', value: 0.5 });
    expect(() => parseLabelCondition('nonsense')).toThrow(/family\.field/);
  });

  it('call: walks pages, prints one JSON line per item exactly as returned, archives, and the ledger matches the server', async () => {
    const before = sb.admin.charges().length;
    const r = await loupe(['call', 'photo_net/profile/posts', '--param', 'handle=cli_walker', '--pages', '2', '--yes']);
    expect(r.err).not.toContain(sb.key);
    expect(r.code).toBe(0);
    const lines = r.out.trim().split('\n');
    expect(lines.length).toBeGreaterThan(2);
    const items = lines.map((l) => JSON.parse(l) as { post: { id: unknown } });
    for (const it of items) expect(typeof it.post.id).toBe('string');
    expect(new Set(items.map((i) => i.post.id)).size).toBe(items.length);
    // big ids survive as strings, byte for byte
    expect(r.out).toMatch(/"id":"\d{16,}"/);
    const charged = sb.admin
      .charges()
      .slice(before)
      .reduce((s, c) => s + c.credits_used, 0);
    expect(r.err).toContain(`${charged.toLocaleString('en-US')} credits spent`);
  });

  it('call: refuses to spend above the budget without a terminal unless --yes (exit 5, nothing sent)', async () => {
    const before = sb.admin.charges().length;
    const r = await loupe(['call', 'photo_net/profile/posts', '--param', 'handle=budget_case', '--pages', '20']);
    expect(r.code).toBe(5);
    expect(r.err).toMatch(/Not approved.*--yes/);
    expect(sb.admin.charges().length).toBe(before);
  });

  it('call --all needs --yes or --max-credits; --max-credits bounds the spending', async () => {
    const r1 = await loupe(['call', 'micro_net/user/tweets', '--param', 'handle=openended', '--all']);
    expect(r1.code).toBe(5);
    const before = sb.admin.charges().length;
    const r2 = await loupe(['call', 'micro_net/user/tweets', '--param', 'handle=openended', '--all', '--max-credits', '150']);
    expect([0]).toContain(r2.code);
    const spent = sb.admin
      .charges()
      .slice(before)
      .reduce((s, c) => s + c.credits_used, 0);
    expect(spent).toBeLessThanOrEqual(150);
    expect(r2.err).toMatch(/credit/);
  });

  it('call --dry-run quotes for free', async () => {
    const before = sb.admin.charges().reduce((s, c) => s + c.credits_used, 0);
    const r = await loupe(['call', 'photo_net/profile/posts', '--param', 'handle=quoted', '--dry-run']);
    expect(r.code).toBe(0);
    const q = JSON.parse(r.out) as { credits_min: number; credits_max: number };
    expect(q.credits_min).toBeGreaterThan(0);
    expect(q.credits_max).toBeGreaterThanOrEqual(q.credits_min);
    expect(sb.admin.charges().reduce((s, c) => s + c.credits_used, 0)).toBe(before);
  });

  it('exit codes: 2 for a parameter error (free), 3 when the API refuses', async () => {
    const bad = await loupe(['call', 'photo_net/profile/posts', '--param', 'hande=x', '--yes']);
    expect(bad.code).toBe(2);
    // the core names the unknown parameter or the required one it stands in for
    expect(bad.err).toMatch(/hande|handle/);
    const missing = await loupe(['call', 'photo_net/profile/posts', '--param', 'handle=missing_someone', '--yes']);
    expect(missing.code).toBe(3);
    expect(missing.err).toMatch(/RESOURCE_NOT_FOUND/);
    const unknownNet = await loupe(['call', 'nope_net/profile', '--param', 'handle=x']);
    expect(unknownNet.code).toBe(2);
  });

  it('exit 3 and a clear sentence when the key is revoked; the key never appears', async () => {
    const k = sb.admin.createKey('to-revoke');
    sb.admin.revokeKey(k);
    const r = await loupe(['credits'], { env: { ...env, LOUPE_API_KEY: k } });
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/API_KEY_REVOKED/);
    expect(r.err + r.out).not.toContain(k);
  });

  it('endpoints lists the catalogue; credits reports the balance', async () => {
    const e = await loupe(['endpoints', '--platform', 'qa_net', '--json']);
    expect(e.code).toBe(0);
    const eps = JSON.parse(e.out) as Array<{ path: string }>;
    expect(eps.map((x) => x.path)).toContain('/v1/qa_net/search');
    const c = await loupe(['credits']);
    expect(c.code).toBe(0);
    expect(c.out).toMatch(/credits_remaining/);
  });

  it('export: CSV of the archive with a filter, Excel-safe, parsed back by a CSV parser', async () => {
    const out = join(home, 'export.csv');
    const r = await loupe(['export', '--format', 'csv', '--out', out, '--platform', 'photo_net']);
    expect(r.code).toBe(0);
    const text = readFileSync(out, 'utf8');
    expect(text.charCodeAt(0)).toBe(0xfeff);
    const rows = parse(text.slice(1), { columns: true }) as Array<Record<string, string>>;
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.platform).toBe('photo_net');
      for (const v of Object.values(row)) expect(v).not.toMatch(/^[=+\-@\t\r]/);
    }
    expect(readdirSync(home).filter((f) => f.includes('.partial') || f.startsWith('.export'))).toEqual([]);
  });

  it('export rejects an unknown column and a bad date with exit 2, writing nothing', async () => {
    const out = join(home, 'never.csv');
    expect((await loupe(['export', '--format', 'csv', '--out', out, '--columns', 'id,bogus'])).code).toBe(2);
    expect((await loupe(['export', '--format', 'csv', '--out', out, '--since', 'yesterday'])).code).toBe(2);
    expect(existsSync(out)).toBe(false);
  });

  it('key set reads the key from stdin and never prints it; without a keychain it says so and stores nothing in plaintext', async () => {
    const secret = sb.admin.createKey('stored');
    const envNoKey = { LOUPE_HOME: home, LOUPE_BASE_URL: sb.url };
    const r = await loupe(['key', 'set', 'work'], { stdin: secret + '\n', env: envNoKey });
    expect(r.out + r.err).not.toContain(secret);
    const settings = existsSync(join(home, 'settings.json')) ? readFileSync(join(home, 'settings.json'), 'utf8') : '';
    expect(settings).not.toContain(secret);
    if (process.env.LOUPE_KEYRING_TEST === '1') {
      expect(r.code).toBe(0);
      const l = await loupe(['key', 'list', '--json'], { env: envNoKey });
      const keys = JSON.parse(l.out) as Array<{ name: string; active: boolean }>;
      expect(keys).toEqual([expect.objectContaining({ name: 'work', active: true })]);
      expect(l.out).not.toContain(secret);
      // the stored key is used for calls
      const c = await loupe(['credits'], { env: envNoKey });
      expect(c.code).toBe(0);
      await loupe(['key', 'remove', 'work'], { env: envNoKey });
    } else {
      expect(r.code).not.toBe(0);
      expect(r.err).toMatch(/keychain|Secret Service|secure/i);
    }
  });
});

describe('loupe watch', () => {
  it('add, list, run, history; a second run with nothing new spends one page per watch; export by watchlist', async () => {
    const add = await loupe([
      'watch',
      'add',
      'photo_net/profile/posts',
      '-p',
      'handle=watched_one',
      '--list',
      'cli-list',
      '--every',
      '6h',
      '--budget',
      '400',
    ]);
    expect(add.code).toBe(0);
    expect(add.err).toMatch(/Created watchlist "cli-list"/);
    const list = await loupe(['watch', 'list', '--json']);
    const lists = JSON.parse(list.out) as Array<{ name: string; watches: unknown[]; schedule: { everyHours?: number } }>;
    const mine = lists.find((l) => l.name === 'cli-list')!;
    expect(mine.watches).toHaveLength(1);
    expect(mine.schedule.everyHours).toBe(6);

    const first = await loupe(['watch', 'run', 'cli-list', '--json']);
    expect(first.code).toBe(0);
    const [r1] = JSON.parse(first.out) as Array<{ newItems: number; complete: boolean }>;
    expect(r1.newItems).toBeGreaterThan(0);
    expect(r1.complete).toBe(true);

    sb.admin.advance(7 * 3600); // past the 6 h cache window, no guarantee of new posts
    const before = sb.admin.charges().length;
    const second = await loupe(['watch', 'run', 'cli-list', '--json']);
    expect(second.code).toBe(0);
    const sent = sb.admin
      .charges()
      .slice(before)
      .filter((c) => c.endpoint.includes('profile/posts'));
    expect(sent.length).toBeGreaterThanOrEqual(1);
    const [r2] = JSON.parse(second.out) as Array<{ watches: Array<{ pages: number; newItems: number }> }>;
    // pages fetched = only what was new: with k new items and 12 per page, at most ceil((k+1)/12) pages
    expect(r2.watches[0].pages).toBeLessThanOrEqual(Math.ceil((r2.watches[0].newItems + 1) / 12));

    const hist = await loupe(['watch', 'history', 'cli-list', '--json']);
    expect((JSON.parse(hist.out) as unknown[]).length).toBe(2);

    const out = join(home, 'watch.jsonl');
    const ex = await loupe(['export', '--format', 'jsonl', '--out', out, '--watchlist', 'cli-list']);
    expect(ex.code).toBe(0);
    const rows = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string });
    expect(rows.length).toBe(r1.newItems + r2.watches[0].newItems);
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
  });

  it('a run whose estimate exceeds its budget stops with exit 5 unless --yes', async () => {
    await loupe([
      'watch',
      'add',
      'short_video_net/search',
      '-p',
      'query=coffee',
      '-p',
      'max_pages=5',
      '--list',
      'pricey',
      '--budget',
      '10',
    ]);
    const before = sb.admin.charges().length;
    const r = await loupe(['watch', 'run', 'pricey']);
    expect(r.code).toBe(5);
    expect(r.err).toMatch(/--yes/);
    expect(sb.admin.charges().length).toBe(before);
  });

  it('rejects a bad schedule with exit 2', async () => {
    const r = await loupe(['watch', 'add', 'photo_net/profile/posts', '-p', 'handle=x', '--list', 'bad', '--every', 'often']);
    expect(r.code).toBe(2);
  });
});

describe('loupe key hygiene', () => {
  it('warns before any call when the key does not look like a service key, and never echoes it', async () => {
    const weird = 'not-a-real-key-value-12345';
    const r = await loupe(['call', 'photo_net/profile/posts', '-p', 'handle=nasa', '--yes'], { env: { ...env, LOUPE_API_KEY: weird } });
    expect(r.err).toMatch(/does not look like a service key/);
    expect(r.code).toBe(3); // INVALID_API_KEY
    expect(r.err + r.out).not.toContain(weird);
  });
});
