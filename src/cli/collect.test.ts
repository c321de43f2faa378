/**
 * `loupe collect plan | run | status | inputs` (issue 28): a list on standard input priced as one
 * plan, by line, before anything is spent; a run refused above the threshold without --yes (cron:
 * a budget is the approval); a run over its budget exits 5 and the next continues it; a run killed
 * with `kill -9` mid-way reads `interrupted` and `collect run` finishes it, every page paid once,
 * the ledger equal to the service's charges.
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
  const h = mkdtempSync(join(tmpdir(), 'loupe-cli-collect-'));
  homes.push(h);
  return h;
};
beforeAll(async () => {
  sb = await startSandbox({ port: 0, seed: 9, balance: 1_000_000, freeCalls: 0, timeScale: 30 });
});
afterAll(async () => {
  await sb.close();
  for (const h of homes) rmSync(h, { recursive: true, force: true });
});

const envOf = (h: string, s: SandboxHandle = sb) => ({ LOUPE_HOME: h, LOUPE_BASE_URL: s.url, LOUPE_API_KEY: s.key });
const paid = (s: SandboxHandle, handles: Set<string>) =>
  s.admin.charges().filter((c) => c.credits_used > 0 && handles.has(c.params.handle ?? ''));

describe('loupe collect', () => {
  it('plans a CSV from standard input by line, nothing spent; runs only when approved or budgeted; status and inputs', async () => {
    const h = home();
    const env = envOf(h);
    const csv = ['\uFEFFname,Handle', 'NASA,nasa_c', 'ESA,@esa_c', 'again,NASA_C', 'post,https://micro-net.example/x/status/1', 'x,'].join(
      '\r\n',
    );
    const n0 = sb.admin.charges().length;
    const dry = await runCaptured(
      ['collect', 'plan', '-', '--do', 'profile', '--networks', 'micro_net', '--name', 'Agencies', '--dry-run', '--json'],
      env,
      csv,
    );
    expect(dry.code, dry.err).toBe(0);
    expect(dry.err).toContain(
      'Plan "Agencies" (profile of each account): 5 line(s) read (CSV, column "handle") → 2 input(s) on micro_net.',
    );
    expect(dry.err).toContain('line 4: @NASA_C — same as line 2');
    expect(dry.err).toMatch(/line 5: .*a post's address, not an account's/);
    expect(dry.err).toMatch(/line 6: .*no handle in this row/);
    expect(dry.err).toContain('Price before anything is spent: 40 credits, likely 40, over 2 request(s)');
    expect(dry.err).toContain('Dry run: nothing saved, nothing spent.');
    expect(JSON.parse(dry.out).plan.inputs).toBe(2);
    expect((await runCaptured(['collect', 'status', '--json'], env)).out.trim()).toBe('[]');

    const saved = await runCaptured(['collect', 'plan', '-', '--do', 'profile', '--networks', 'micro_net', '--name', 'Agencies'], env, csv);
    expect(saved.code, saved.err).toBe(0);
    expect(saved.err).toContain('Saved as plan "Agencies"; nothing spent. Run it with: loupe collect run "Agencies"');
    expect(sb.admin.charges().length).toBe(n0);

    // the threshold (default 100 credits) is above this plan: it runs
    const run = await runCaptured(['collect', 'run', 'Agencies', '--json'], env);
    expect(run.code, run.err).toBe(0);
    const st = JSON.parse(run.out).status;
    expect(st).toMatchObject({ status: 'done', total: 2, spent: 40 });
    expect(run.err).toContain('Agencies: done · 2/2 done');
    const status = await runCaptured(['collect', 'status', 'Agencies'], env);
    expect(status.out).toContain('spent 40 credits this run (40 in all)');
    const inputs = (await runCaptured(['collect', 'inputs', 'Agencies'], env)).out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(inputs.map((i: { label: string; state: string }) => [i.label, i.state])).toEqual([
      ['@nasa_c', 'done'],
      ['@esa_c', 'done'],
    ]);
  });

  it('above the threshold: refused without --yes (nothing spent), run with a budget (cron); over the budget exits 5 and the next run continues', async () => {
    const h = home();
    const env = envOf(h);
    const list = Array.from({ length: 8 }, (_, i) => `cron_${i}`).join('\n');
    expect(
      (await runCaptured(['collect', 'plan', '-', '--do', 'profile', '--networks', 'micro_net', '--name', 'Cron'], env, list)).code,
    ).toBe(0);
    const n0 = sb.admin.charges().length;
    const refused = await runCaptured(['collect', 'run', 'Cron'], env);
    expect(refused.code).toBe(5);
    expect(refused.err).toContain('could cost up to 160 credits, above your confirmation threshold of 100; nothing was spent');
    expect(sb.admin.charges().length).toBe(n0);
    const partial = await runCaptured(['collect', 'run', 'Cron', '--budget', '100'], env);
    expect(partial.code).toBe(5);
    expect(partial.err).toMatch(/Continue with: loupe collect run "Cron"/);
    expect(partial.err).toContain('5/8 done · 3 skipped');
    const rest = await runCaptured(['collect', 'run', 'Cron', '--budget', '100'], env);
    expect(rest.code, rest.err).toBe(0);
    expect(paid(sb, new Set(list.split('\n'))).length).toBe(8);
  });

  // Simulation finding 20 (docs/simulation.md, fixed): the next run starts on this computer's clock,
  // behind the dead run's (which had learned the sandbox's, 30× faster than real time), so it took its
  // own owner read for an answer the account held before the dead attempt and recorded nothing. Pinned
  // without kill timing by src/core/collect/killed-run.test.ts.
  it.skipIf(process.platform === 'win32')(
    'a run killed with kill -9 reads interrupted; collect run finishes it, every page paid once, the ledger equal to the charges',
    async () => {
      const slow = await startSandbox({ port: 0, seed: 4, balance: 1_000_000, freeCalls: 0, latencyMs: 150, timeScale: 30 });
      try {
        const h = home();
        const env = envOf(h, slow);
        const handles = Array.from({ length: 12 }, (_, i) => `killed_${i}`);
        expect(
          (
            await runCaptured(
              ['collect', 'plan', '-', '--do', 'feed', '--networks', 'photo_net', '--pages', '2', '--name', 'Killed', '--budget', '100000'],
              env,
              handles.join('\n'),
            )
          ).code,
        ).toBe(0);
        const child = spawn(process.execPath, [resolve('bin/loupe.js'), 'collect', 'run', 'Killed'], {
          env: { PATH: process.env.PATH, ...env },
          stdio: 'ignore',
        });
        const exited = new Promise<void>((r) => child.once('exit', () => r()));
        for (let i = 0; i < 1200 && slow.admin.charges().filter((c) => c.credits_used > 0).length < 6; i++)
          await new Promise((r) => setTimeout(r, 25));
        child.kill('SIGKILL');
        await exited;
        const mid = JSON.parse((await runCaptured(['collect', 'status', 'Killed', '--json'], env)).out);
        expect(mid.status).toBe('interrupted');
        expect(mid.counts.done).toBeLessThan(12);
        const fin = await runCaptured(['collect', 'run', 'Killed', '--json'], env);
        expect(fin.code, fin.err).toBe(0);
        expect(JSON.parse(fin.out).status).toMatchObject({ status: 'done', runs: 1 });
        // every page once: 12 accounts × 2 pages at the floor (20)
        const charges = paid(slow, new Set(handles));
        const keys = charges.map((c) => `${c.params.handle}|${c.params.cursor ?? c.params.next_max_id ?? ''}`);
        expect(new Set(keys).size).toBe(keys.length);
        expect(charges.reduce((s, c) => s + c.credits_used, 0)).toBe(12 * 2 * 20);
        const a = openArchive(join(h, 'loupe.db'));
        try {
          const rows = a.listLedger({ limit: 10_000 });
          const ledger = rows.reduce((s, l) => s + l.creditsUsed, 0);
          const service = slow.admin.charges().reduce((s, c) => s + c.credits_used, 0);
          if (ledger !== service) {
            // the documented limit (docs/request-core.md "Known limits", simulation finding 13): a dead
            // process's charged attempt that the next run cannot judge (it asked the page under another
            // cursor) stays pending in the journal — never settled with nothing — so the gap is named
            // by credits --reconcile and a later run judges it. Anything else is a lost charge.
            const pending = a.pendingJournal();
            const diagnosis = JSON.stringify({
              ledger,
              service,
              pending: pending.map((j) => [j.opKey, j.params, j.idempotencyKey]),
              charges: slow.admin
                .charges()
                .map((c) => [
                  c.params.handle,
                  c.params.cursor?.slice(-12) ?? '',
                  c.idempotency_key,
                  c.credits_used,
                  c.charge_reason,
                  c.fault,
                ]),
              rows: rows.map((l) => [l.idempotencyKey, l.requestId, l.creditsUsed, l.chargeReason, l.errorType]),
            });
            expect(pending.length, diagnosis).toBeGreaterThan(0);
            expect(service - ledger, diagnosis).toBeLessThanOrEqual(pending.length * 20);
            expect(service - ledger, diagnosis).toBeGreaterThan(0);
          }
        } finally {
          a.close();
        }
      } finally {
        await slow.close();
      }
    },
  );
});
