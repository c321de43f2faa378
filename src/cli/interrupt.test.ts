/**
 * Ctrl-C (SIGINT) and SIGTERM while a command spends (issue 24 #6; docs/cli.md "Stopping a
 * command"): the built `loupe` in a child process is signalled while its request is in flight
 * (the sandbox trickles or stalls the answer). It must stop through the cancel path — nothing new
 * sent, the answer in flight awaited and recorded (ledger = the service's charges, no journal
 * entry left pending), or, when it never comes, left pending in the journal for the next run —
 * say so in one line on stderr and exit 128 + the signal (130 / 143). Before, a single `loupe
 * call` (and every command on SIGTERM) died at once with the request pending and nothing said.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { openArchive } from '../core/archive';
import { startSandbox, type SandboxHandle } from '../sandbox';
import { runCaptured } from './run-captured';

const BIN = resolve(__dirname, '../../bin/loupe.js');
let sb: SandboxHandle;
const dirs: string[] = [];
beforeAll(async () => {
  sb = await startSandbox({ port: 0, seed: 5, balance: 100_000, freeCalls: 0 });
});
afterAll(async () => {
  await sb.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function home(): string {
  const d = mkdtempSync(join(tmpdir(), 'loupe-sig-'));
  dirs.push(d);
  return d;
}
const envFor = (h: string): NodeJS.ProcessEnv => ({ LOUPE_HOME: h, LOUPE_BASE_URL: sb.url, LOUPE_API_KEY: sb.key });

async function until(f: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    if (f()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Starts the built CLI; once `inFlight()` holds, sends `signal` and waits for the end. */
async function signalled(
  args: string[],
  env: NodeJS.ProcessEnv,
  o: { signal: NodeJS.Signals; inFlight: () => boolean },
): Promise<{ code: number | null; signal: string | null; out: string; err: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += String(d)));
  child.stderr.on('data', (d) => (err += String(d)));
  const ended = new Promise<{ code: number | null; signal: string | null }>((res) =>
    child.on('close', (code, signal) => res({ code, signal })),
  );
  let done = false;
  void ended.then(() => (done = true));
  await until(() => o.inFlight() || done, 'the request in flight');
  child.kill(o.signal);
  return { ...(await ended), out, err };
}

/** the service's charges (not dry runs) and the ledger's, and the journal entries left pending */
function books(h: string, endpoint: string, from: number) {
  const service = sb.admin
    .charges()
    .slice(from)
    .filter((c) => c.endpoint === endpoint && c.params.dry_run === undefined)
    .reduce((t, c) => t + c.credits_used, 0);
  const a = openArchive(join(h, 'loupe.db'));
  try {
    const ledger = a
      .listLedger({ limit: 1000 })
      .filter((e) => !e.dryRun && `/v1/${e.platform}/${e.endpoint}` === endpoint)
      .reduce((t, e) => t + e.creditsUsed, 0);
    return { service, ledger, pending: a.pendingJournal().length, walks: a.listWalks() };
  } finally {
    a.close();
  }
}

/** the trickled request is in flight: its fault taken, its answer not yet complete (a trickle is charged once written) */
function inFlight(endpoint: string): () => boolean {
  const before = sb.admin.charges().length;
  return () =>
    sb.admin.faults().length === 0 &&
    !sb.admin
      .charges()
      .slice(before)
      .some((c) => c.endpoint === endpoint && c.params.dry_run === undefined && c.credits_used > 0);
}
const taken = () => sb.admin.faults().length === 0;
const stderrLines = (err: string) => err.split('\n').filter((l) => l.trim() && !/in-process sandbox/.test(l));

describe.skipIf(process.platform === 'win32')('a stop signal while a command spends', () => {
  it('SIGINT during a single call: the answer in flight is awaited and recorded, one line, exit 130', async () => {
    const h = home();
    const from = sb.admin.charges().length;
    sb.admin.clearFaults();
    sb.admin.queueFaults([{ kind: 'trickle', match: '/v1/photo_net/profile', intervalMs: 20, chunkBytes: 64 }]);
    const r = await signalled(['call', 'photo_net/profile', '-p', 'handle=sig_int_single', '--yes'], envFor(h), {
      signal: 'SIGINT',
      inFlight: inFlight('/v1/photo_net/profile'),
    });
    expect(r.signal, r.err).toBeNull();
    expect(r.code, r.err).toBe(130);
    const lines = stderrLines(r.err);
    expect(lines, r.err).toHaveLength(1);
    expect(lines[0]).toMatch(/Stopped \(SIGINT\) after the answer came: spent 20 credits, recorded/);
    expect(r.out.trim().split('\n')).toHaveLength(1); // the answer it paid for is written
    const b = books(h, '/v1/photo_net/profile', from);
    expect(b.service).toBe(20);
    expect(b.ledger).toBe(b.service);
    expect(b.pending).toBe(0);
  }, 60_000);

  it('SIGTERM during a walk: stops before the next page, the walk is resumable, exit 143', async () => {
    const h = home();
    const from = sb.admin.charges().length;
    sb.admin.clearFaults();
    // (an endpoint without max_pages: one request a page)
    sb.admin.queueFaults([{ kind: 'trickle', match: '/v1/photo_net/profile/posts', intervalMs: 20, chunkBytes: 256 }]);
    const r = await signalled(['call', 'photo_net/profile/posts', '-p', 'handle=sig_term_walk', '--pages', '3', '--yes'], envFor(h), {
      signal: 'SIGTERM',
      inFlight: inFlight('/v1/photo_net/profile/posts'),
    });
    expect(r.signal, r.err).toBeNull();
    expect(r.code, r.err).toBe(143);
    const lines = stderrLines(r.err);
    expect(lines, r.err).toHaveLength(1);
    expect(lines[0]).toMatch(
      /Stopped \(SIGTERM\) before the next request: 1 page\(s\), .* every charge recorded; continue with: loupe resume \S+/,
    );
    const b = books(h, '/v1/photo_net/profile/posts', from);
    expect(b.ledger).toBe(b.service);
    expect(sb.admin.charges().filter((c) => c.params.handle === 'sig_term_walk' && c.params.dry_run === undefined)).toHaveLength(1);
    expect(b.pending).toBe(0);
    expect(b.walks.map((w) => [w.status, w.pagesDone])).toEqual([['cancelled', 1]]);
  }, 60_000);

  it('an answer that never comes: after the grace it is left pending for the next run, exit 130', async () => {
    const h = home();
    const from = sb.admin.charges().length;
    // the grace is the attempt's deadline at most: 5 s here
    writeFileSync(join(h, 'settings.json'), JSON.stringify({ version: 1, keys: [], activeKey: null, app: { attemptTimeoutSeconds: 5 } }));
    sb.admin.clearFaults();
    sb.admin.queueFaults([{ kind: 'stall-charged', match: '/v1/photo_net/post' }]);
    const args = ['call', 'photo_net/post', '-p', 'url=https://photo.example/p/sig-lost', '--yes'];
    const r = await signalled(args, envFor(h), { signal: 'SIGINT', inFlight: taken });
    expect(r.code, r.err).toBe(130);
    const lines = stderrLines(r.err);
    expect(lines, r.err).toHaveLength(1);
    expect(lines[0]).toMatch(/Stopped \(SIGINT\) before an answer came.*next run of this call takes it over/);
    expect(books(h, '/v1/photo_net/post', from).pending).toBe(1);
    // the next run takes the lost request over: the service charged it once, the ledger says so
    const again = await runCaptured(args, envFor(h));
    expect(again.code, again.err).toBe(0);
    const b = books(h, '/v1/photo_net/post', from);
    expect(b.service).toBe(20);
    expect(b.ledger).toBe(b.service);
    expect(b.pending).toBe(0);
  }, 60_000);

  it('SIGINT during a watch run: the run is cut short through its cancel path, exit 130', async () => {
    const h = home();
    const from = sb.admin.charges().length;
    const env = envFor(h);
    for (const handle of ['sig_w1', 'sig_w2', 'sig_w3'])
      expect((await runCaptured(['watch', 'add', 'photo_net/profile/posts', '-p', `handle=${handle}`, '--list', 'sig'], env)).code).toBe(0);
    sb.admin.clearFaults();
    sb.admin.queueFaults([{ kind: 'trickle', match: '/v1/photo_net/profile/posts', intervalMs: 20, chunkBytes: 256, count: 3 }]);
    const r = await signalled(['watch', 'run', 'sig', '--yes'], env, {
      signal: 'SIGINT',
      inFlight: inFlight('/v1/photo_net/profile/posts'),
    });
    expect(r.signal, r.err).toBeNull();
    expect(r.code, r.err).toBe(130);
    const lines = stderrLines(r.err);
    expect(lines, r.err).toHaveLength(1);
    expect(lines[0]).toMatch(/Stopped \(SIGINT\) before the next request: .* every charge recorded; "sig" was cut short/);
    const b = books(h, '/v1/photo_net/profile/posts', from);
    expect(b.ledger).toBe(b.service);
    expect(b.pending).toBe(0);
    // the pages in flight answered and recorded; the run saved as cancelled (its watches resume next time)
    const history = JSON.parse((await runCaptured(['watch', 'history', 'sig', '--json'], env)).out) as Array<{ status: string }>;
    expect(history.map((x) => x.status)).toEqual(['cancelled']);
  }, 60_000);

  it('SIGTERM during a collection run: the plan is cancelled before its next request, the next run finishes it, exit 143', async () => {
    const h = home();
    const from = sb.admin.charges().length;
    const env = envFor(h);
    // more inputs than the run sends at once (the pacer's in-flight limit), each answer trickled
    const handles = Array.from({ length: 30 }, (_, i) => `sig_c${i + 1}`);
    const planned = await runCaptured(
      ['collect', 'plan', '-', '--do', 'feed', '--networks', 'photo_net', '--pages', '1', '--name', 'sigc'],
      env,
      handles.join('\n'),
    );
    expect(planned.code, planned.err).toBe(0);
    sb.admin.clearFaults();
    sb.admin.queueFaults([{ kind: 'trickle', match: '/v1/photo_net/profile/posts', intervalMs: 20, chunkBytes: 256, count: 30 }]);
    const r = await signalled(['collect', 'run', 'sigc', '--yes'], env, {
      signal: 'SIGTERM',
      // the first input answered: the run is under way, its next requests in flight
      inFlight: () =>
        sb.admin.charges().some((c) => handles.includes(c.params.handle ?? '') && c.params.dry_run === undefined && c.credits_used > 0),
    });
    expect(r.signal, r.err).toBeNull();
    expect(r.code, r.err).toBe(143);
    const lines = stderrLines(r.err);
    expect(lines.at(-1), r.err).toMatch(
      /Stopped \(SIGTERM\) before the next request: .* every charge recorded; continue with: loupe collect run "sigc"/,
    );
    const b = books(h, '/v1/photo_net/profile/posts', from);
    expect(b.ledger).toBe(b.service);
    expect(b.pending).toBe(0);
    const paidFor = () =>
      sb.admin.charges().filter((c) => handles.includes(c.params.handle ?? '') && c.params.dry_run === undefined && c.credits_used > 0);
    // stopped before its next request: what was in flight was answered and recorded, nothing more sent
    expect(paidFor().length).toBeLessThan(handles.length);
    expect(paidFor().length).toBeGreaterThan(0);
    const status = JSON.parse((await runCaptured(['collect', 'status', 'sigc', '--json'], env)).out) as { status: string };
    expect(status.status).toBe('cancelled');
    // the next run continues: every input's page paid once, the books equal
    sb.admin.clearFaults();
    const rest = await runCaptured(['collect', 'run', 'sigc', '--yes'], env);
    expect(rest.code, rest.err).toBe(0);
    const byHandle = new Map<string, number>();
    for (const c of paidFor()) byHandle.set(c.params.handle ?? '', (byHandle.get(c.params.handle ?? '') ?? 0) + 1);
    expect([...byHandle.entries()].sort()).toEqual(handles.map((x): [string, number] => [x, 1]).sort());
    const after = books(h, '/v1/photo_net/profile/posts', from);
    expect(after.ledger).toBe(after.service);
    expect(after.pending).toBe(0);
  }, 90_000);
});
