/**
 * The simulation's world (issue 24, docs/simulation.md): one in-process sandbox, one composed app
 * over a temporary data folder driven through the doors' `dispatch`, an observer account (reads
 * the service's truth without touching the analyst's account), a second key on the analyst's
 * account (another spender), and a child process that can be killed mid-walk.
 * Not shipped: a test harness (test-*.ts may start the sandbox).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, type ChargeRecord, type SandboxHandle } from '../../sandbox';
import type { LoupeEvent } from '../../shared/contract';
import type { CatalogueEndpoint } from '../../shared/api-types';
import { scaledClock } from '../api/clock';
import { createApp, type LoupeApp } from '../app';
import { appWatchFactory, type WatchService } from '../watch';
import { dispatch } from '../bridge';
import { MemorySecretStore } from '../secrets';
import { walkerBundle } from './test-sim-bundle';

/** sandbox seconds per real second: retries and pacing run fast, cache windows still mean something */
export const SIM_SCALE = 600;

export interface CallOutcome<T> {
  ok: boolean;
  result?: T;
  error?: { kind: string; message: string; type?: string };
}

export interface SimEnv {
  sb: SandboxHandle;
  dir: string;
  app: LoupeApp;
  /** the analyst's account at the service */
  account: string;
  /** a second key of the analyst's account, used by "another spender" */
  otherKey: string;
  /** a separate account that reads the service's truth (never the analyst's money or cache) */
  observerKey: string;
  /** catalogue entries by `platform/path` */
  catalogue: Map<string, CatalogueEndpoint>;
  events: LoupeEvent[];
  /** the app's watchlist service (its scheduler is driven by the simulation's own ticks) */
  watch(): WatchService;
  call<T>(method: string, input?: unknown): Promise<T>;
  attempt<T>(method: string, input?: unknown): Promise<CallOutcome<T>>;
  /** the analyst's charges at the service, in order */
  charges(): ChargeRecord[];
  /** close the app and open it again on the same data folder (a restart) */
  reopen(): Promise<void>;
  close(): Promise<void>;
}

export async function startSimEnv(opts: { seed: number; variants: string[]; balance?: number; freeCalls?: number }): Promise<SimEnv> {
  const sb = await startSandbox({
    port: 0,
    seed: opts.seed,
    balance: opts.balance ?? 200_000,
    freeCalls: opts.freeCalls ?? 0,
    timeScale: SIM_SCALE,
    variants: opts.variants,
  });
  // a world with history: the sandbox's feeds have posts before its epoch, and new ones as its clock moves
  const dir = mkdtempSync(join(tmpdir(), 'loupe-sim-'));
  const account = await accountOf(sb);
  const otherKey = sb.admin.createKey('other-spender');
  const observerAccount = sb.admin.createAccount({ balance: 1_000_000_000, freeCalls: 0 });
  const observerKey = sb.admin.createKey('observer', observerAccount);
  const catalogue = new Map<string, CatalogueEndpoint>();
  const cat = (await (await fetch(`${sb.url}/v1/endpoints`)).json()) as { endpoints: CatalogueEndpoint[] };
  for (const e of cat.endpoints) catalogue.set(`${e.platform}/${e.path.replace(/^\/?v1\/[^/]+\//, '')}`, e);

  const events: LoupeEvent[] = [];
  let watch: WatchService | null = null;
  const open = (): LoupeApp => {
    const app = createApp({
      dataDir: dir,
      secrets: new MemorySecretStore(),
      door: 'web',
      clock: scaledClock(() => sb.admin.now(), SIM_SCALE),
      sandbox: async () => ({ url: sb.url, key: sb.key }),
      // no timer: scheduled runs happen at the simulation's `tick`, so every check sees a settled state
      watch: (deps) => {
        const c = appWatchFactory({ scheduler: false })(deps);
        watch = c.service;
        return c;
      },
    });
    app.events.on((e) => {
      events.push(e);
      if (events.length > 2000) events.splice(0, 1000);
    });
    return app;
  };
  const env: SimEnv = {
    sb,
    dir,
    app: open(),
    account,
    otherKey,
    observerKey,
    catalogue,
    events,
    watch() {
      if (!watch) throw new Error('simulation: the app built no watch service');
      return watch;
    },
    async call<T>(method: string, input: unknown = {}): Promise<T> {
      const r = await dispatch(env.app, method, input);
      if (!r.ok) throw new SimCallError(method, r.error.kind, r.error.message, r.error.type);
      return r.result as T;
    },
    async attempt<T>(method: string, input: unknown = {}): Promise<CallOutcome<T>> {
      const r = await dispatch(env.app, method, input);
      return r.ok
        ? { ok: true, result: r.result as T }
        : { ok: false, error: { kind: r.error.kind, message: r.error.message, type: r.error.type } };
    },
    charges() {
      // the analyst's account, minus what the other spender did with its own key
      const other = sb.admin.keyHash(otherKey);
      return sb.admin.charges().filter((c) => c.account === account && c.key_hash !== other);
    },
    async reopen() {
      await env.app.close();
      env.app = open();
      await env.app.ready;
    },
    async close() {
      await env.app.close();
      await sb.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await env.app.ready;
  return env;
}

/** the analyst's account id: the account a free dry run with the demo key is recorded under */
async function accountOf(sb: SandboxHandle): Promise<string> {
  await directGet(sb, sb.key, 'thread_net/profile', { handle: 'probe', dry_run: '1' });
  const r = sb.admin.charges().at(-1);
  if (!r) throw new Error('simulation: the sandbox recorded no dry run');
  return r.account;
}

export class SimCallError extends Error {
  constructor(
    readonly method: string,
    readonly kind: string,
    message: string,
    readonly type?: string,
  ) {
    super(`${method}: ${kind}: ${message}`);
  }
}

/** A plain request to the service with a key of our choosing (another spender, the observer). */
export async function directGet(
  sb: SandboxHandle,
  key: string,
  path: string,
  params: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const qs = new URLSearchParams(params).toString();
  const res = await fetch(`${sb.url}/v1/${path}${qs ? `?${qs}` : ''}`, { headers: { 'x-api-key': key } });
  let body: Record<string, unknown> = {};
  try {
    body = (await res.json()) as Record<string, unknown>;
  } catch {}
  return { status: res.status, body };
}

/** Wait for a state (never for a time): polls `ready` until it holds, failing after `limitMs` of real time. */
export async function until(what: string, ready: () => boolean | Promise<boolean>, limitMs = 30_000): Promise<void> {
  const t0 = Date.now();
  while (!(await ready())) {
    if (Date.now() - t0 > limitMs) throw new Error(`simulation: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * A second Loupe process on the same data folder (test-sim-child.ts) that starts a walk; the
 * caller kills it with SIGKILL once its request is in flight.
 */
export async function spawnWalker(
  env: SimEnv,
  target: { platform: string; endpoint: string; params: Record<string, string> },
  maxPages: number,
): Promise<ChildProcess> {
  const arg = JSON.stringify({ dataDir: env.dir, url: env.sb.url, key: env.sb.key, target, maxPages, scale: SIM_SCALE });
  // plain node on the child bundled once per run (test-sim-bundle.ts): no TypeScript compiled per
  // kill, and node itself is the Loupe process — not the tsx command, which runs the script in a
  // child of its own, so a SIGKILL to it would leave the Loupe process alive, its request in flight
  return spawn(process.execPath, [await walkerBundle(), arg], { stdio: ['ignore', 'pipe', 'pipe'] });
}
