/**
 * `loupe dataset rehydrate` (issue 29): a colleague re-collects a dehydrated bundle. Priced first
 * (today's plan beside the bundle's quote) and refused without --yes or --max-credits (exit 5,
 * nothing spent); killed with `kill -9` mid-run, the next `rehydrate` continues the same plan —
 * every page paid once, both archives' ledgers together equal to the service's charges — and the
 * report names what did not come back; the keys are checked against the archive.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startSandbox, type SandboxHandle } from '../sandbox';
import { openArchive } from '../core/archive';
import { runCaptured } from './run-captured';

let sb: SandboxHandle;
const homes: string[] = [];
const home = () => {
  const h = mkdtempSync(join(tmpdir(), 'loupe-cli-rehydrate-'));
  homes.push(h);
  return h;
};
beforeAll(async () => {
  sb = await startSandbox({
    port: 0,
    seed: 3,
    epoch: Date.UTC(2026, 2, 1),
    balance: 1_000_000,
    freeCalls: 0,
    timeScale: 30,
    latencyMs: 60,
  });
});
afterAll(async () => {
  await sb.close();
  for (const h of homes) rmSync(h, { recursive: true, force: true });
});

const envOf = (h: string) => ({ LOUPE_HOME: h, LOUPE_BASE_URL: sb.url, LOUPE_API_KEY: sb.key });
const ledger = (h: string) => {
  const a = openArchive(join(h, 'loupe.db'));
  try {
    return a.listLedger({ limit: 100_000 }).reduce((s, l) => s + l.creditsUsed, 0);
  } finally {
    a.close();
  }
};

describe('loupe dataset rehydrate', () => {
  it.skipIf(process.platform === 'win32')(
    'prices first, refuses without approval, survives kill -9 and resumes: every page paid once, the ledger equal to the charges',
    async () => {
      const a = home();
      const handles = Array.from({ length: 2 }, (_, i) => `aging.rehyd${i}`);
      const plan = await runCaptured(
        ['collect', 'plan', '-', '--do', 'feed', '--networks', 'photo_net', '--pages', '1', '--name', 'Study', '--budget', '100000'],
        envOf(a),
        handles.join('\n'),
      );
      expect(plan.code, plan.err).toBe(0);
      expect((await runCaptured(['collect', 'run', 'Study'], envOf(a))).code).toBe(0);
      const out = join(a, 'study-dehydrated');
      const ex = await runCaptured(['dataset', 'export', '--platform', 'photo_net', '--out', out, '--dehydrated', '--json'], envOf(a));
      expect(ex.code, ex.err).toBe(0);
      const items = JSON.parse(ex.out).items as number;
      expect(items).toBeGreaterThan(0);
      sb.admin.advance(60 * 86_400);

      const b = home();
      const n0 = sb.admin.charges().length;
      const dry = await runCaptured(['dataset', 'rehydrate', out, '--dry-run', '--json'], envOf(b));
      expect(dry.code, dry.err).toBe(0);
      expect(dry.err).toMatch(/The bundle's quote \(.*, stale\): [\d,]+–[\d,]+ credits/);
      expect(dry.err).toContain('Today:');
      expect(JSON.parse(dry.out).plan.inputs).toBe(items); // each post read singly by the address the bundle carries
      // no terminal, no --yes, no ceiling: refused, nothing spent
      const refused = await runCaptured(['dataset', 'rehydrate', out], envOf(b));
      expect(refused.code, refused.err).toBe(5);
      expect(refused.err).toMatch(/nothing was spent/);
      const paidNow = () =>
        sb.admin
          .charges()
          .slice(n0)
          .filter((c) => c.credits_used > 0);
      expect(paidNow()).toHaveLength(0);

      const child = spawn(process.execPath, [resolve('bin/loupe.js'), 'dataset', 'rehydrate', out, '--yes'], {
        env: { PATH: process.env.PATH, ...envOf(b) },
        stdio: 'ignore',
      });
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      for (let i = 0; i < 2400 && paidNow().length < 4; i++) await new Promise((r) => setTimeout(r, 25));
      child.kill('SIGKILL');
      await exited;
      const mid = paidNow().length;
      expect(mid).toBeGreaterThan(0);

      const fin = await runCaptured(['dataset', 'rehydrate', out, '--yes', '--json'], envOf(b));
      expect(fin.code, fin.err).toBe(0);
      const r = JSON.parse(fin.out);
      expect(r.status).toMatchObject({ status: 'done', runs: 1 }); // the same run, continued
      expect(r.counts.recollected + r.counts.unavailable).toBe(items);
      expect(r.counts.unavailable).toBeGreaterThan(0); // the seeded world removed some
      expect(r.verify.absent).toBe(items - r.counts.recollected);
      expect(fin.err).toMatch(/Checked: /);
      // every page once: no (endpoint, params) charged twice
      const keys = paidNow().map((c) => `${c.endpoint}|${JSON.stringify(c.params)}`);
      expect(new Set(keys).size).toBe(keys.length);
      expect(keys.length).toBeGreaterThan(mid);
      expect(ledger(a) + ledger(b)).toBe(sb.admin.charges().reduce((s, c) => s + c.credits_used, 0));
    },
    90_000,
  );
});
