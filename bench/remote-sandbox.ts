/**
 * A sandbox in its own process for the benchmarks (watch, throughput), with a local mirror of its
 * clock so a core's pacer and the sandbox's rate window agree.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { scaledClock } from '../src/core/api/index';
import type { Clock } from '../src/core/ports';

/**
 * The sandbox runs in its own process (as `npm run sandbox` does), so its CPU time does not
 * delay the client's event loop: in one process, the server's lag would make its rate window
 * disagree with the pacer's and the bench would measure the co-location, not the pacer.
 */
export interface RemoteSandbox {
  url: string;
  key: string;
  clock: Clock;
  advance(seconds: number): Promise<void>;
  charges(): Promise<
    Array<{
      credits_used: number;
      status: number;
      key_hash: string;
      at: number;
      params: Record<string, string>;
      endpoint: string;
      item_ids?: string[];
    }>
  >;
  /** another key of the account (spec: up to 25) */
  createKey(name: string): Promise<string>;
  close(): Promise<void>;
}

export async function startRemoteSandbox(o: { seed: number; timeScale: number; balance: number; epoch?: number }): Promise<RemoteSandbox> {
  const main = fileURLToPath(new URL('../src/sandbox/main.ts', import.meta.url));
  const epoch = o.epoch !== undefined ? ['--epoch', new Date(o.epoch).toISOString()] : [];
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      main,
      '--port',
      '0',
      '--seed',
      String(o.seed),
      '--time-scale',
      String(o.timeScale),
      '--balance',
      String(o.balance),
      '--free-calls',
      '0',
      ...epoch,
    ],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const first = await new Promise<string>((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      const i = buf.indexOf('\n');
      if (i >= 0) resolve(buf.slice(0, i));
    });
    child.once('exit', (code) => reject(new Error(`sandbox exited (${code})`)));
  });
  const { url, key } = JSON.parse(first) as { url: string; key: string };
  const { clock, sync } = await mirrorClock(url, o.timeScale);
  return {
    url,
    key,
    clock,
    async advance(seconds) {
      const r = await fetch(`${url}/__admin/clock/advance`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ seconds }),
      });
      sync((await r.json()) as { now: number });
    },
    async charges() {
      return ((await (await fetch(`${url}/__admin/charges`)).json()) as { charges: Awaited<ReturnType<RemoteSandbox['charges']>> }).charges;
    },
    async createKey(name: string) {
      const res = await fetch(`${url}/__admin/keys`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name }),
      });
      return ((await res.json()) as { key: string }).key;
    },
    async close() {
      if (child.exitCode === null) {
        const gone = new Promise((r) => child.once('exit', r));
        child.kill();
        await gone;
      }
    },
  };
}

/**
 * A local mirror of a sandbox's clock: sandbox time = synced time + real elapsed × scale. Any
 * process can make one (the throughput bench's second process does), so their pacers agree.
 */
export async function mirrorClock(url: string, timeScale: number): Promise<{ clock: Clock; sync: (j: { now: number }) => void }> {
  let syncAt = 0;
  let syncReal = 0;
  const sync = (j: { now: number }) => {
    syncAt = j.now;
    syncReal = Date.now();
  };
  sync((await (await fetch(`${url}/__admin/clock`)).json()) as { now: number });
  return { clock: scaledClock(() => Math.floor(syncAt + (Date.now() - syncReal) * timeScale), timeScale), sync };
}
