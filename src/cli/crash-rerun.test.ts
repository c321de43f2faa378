/**
 * Issue 24 #11: a crash must not make the next run pay again. `loupe call … --pages 3` is killed
 * with SIGKILL while its first request is in flight (the sandbox stalls the answer), then the same
 * command runs again: the request the dead process sent is taken over — replayed with its
 * Idempotency-Key when the service charged it (free), sent fresh only when it did not — so the
 * service's charges show one `miss` for that page, and the ledger equals them.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startSandbox, type SandboxHandle } from '../sandbox';
import { openArchive } from '../core/archive';
import { runCaptured } from './run-captured';

const BIN = resolve('bin/loupe.js');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function until(f: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    if (f()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

// (the other reading, never finished, is the generated lost-answer test's: src/core/api/lost-answers.test.ts)
const cases: Array<{ reading: string; variants: string[]; fault: 'stall' | 'stall-charged' }> = [
  {
    reading: 'the service charged it, no cache window (a fresh key would pay again)',
    variants: ['no-cache-window'],
    fault: 'stall-charged',
  },
  { reading: 'the service charged it, inside the cache window', variants: [], fault: 'stall-charged' },
];

describe.skipIf(process.platform === 'win32')('the same command after a crash', () => {
  for (const c of cases) {
    it(`pays once for the page the dead process sent: ${c.reading}`, async () => {
      const sb: SandboxHandle = await startSandbox({ port: 0, seed: 11, balance: 100_000, freeCalls: 0, variants: c.variants });
      const home = mkdtempSync(join(tmpdir(), 'loupe-crash-'));
      dirs.push(home);
      const env = { LOUPE_HOME: home, LOUPE_BASE_URL: sb.url, LOUPE_API_KEY: sb.key };
      const args = ['call', 'forum_net/search', '-p', 'query=crash rerun', '--pages', '3', '--yes'];
      const isPage = (x: { endpoint: string; params: Record<string, string> }) =>
        x.endpoint === '/v1/forum_net/search' &&
        x.params.dry_run === undefined &&
        x.params.after === undefined &&
        x.params.cursor === undefined;
      try {
        sb.admin.queueFaults([{ kind: c.fault, match: '/v1/forum_net/search' }]);
        const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH, ...env }, stdio: 'ignore' });
        const exited = new Promise<void>((res) => child.once('exit', () => res()));
        try {
          // in flight: the fault was taken (and, when the service charges it, charged)
          await until(
            () => sb.admin.faults().length === 0 && (c.fault === 'stall' || sb.admin.charges().some(isPage)),
            'the first request in flight',
          );
        } finally {
          child.kill('SIGKILL');
          await exited;
        }
        const again = await runCaptured(args, env);
        expect(again.code, again.err).toBe(0);

        const pages = sb.admin.charges().filter(isPage);
        expect(pages.filter((x) => x.charge_reason === 'miss')).toHaveLength(1);
        const service = sb.admin.charges().reduce((t, x) => t + x.credits_used, 0);
        const archive = openArchive(join(home, 'loupe.db'));
        try {
          expect(archive.listLedger({ limit: 1000 }).reduce((t, l) => t + l.creditsUsed, 0)).toBe(service);
        } finally {
          archive.close();
        }
      } finally {
        await sb.close();
      }
    }, 60_000);
  }
});
