/**
 * A dehydrated bundle's quote is its recipient's (docs/datasets.md "Dehydrated bundles"): written
 * right after collecting — the writer's archive holding every answer inside its cache window — it
 * quotes what a fresh data folder on the same service prices the bundle's calls at as one plan,
 * not the writer's 0 credits / 0 requests. Over a few sets (one, two, three accounts' posts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleExportInputSchema } from '../../shared/contract-datasets';
import type { CollectPlan } from '../../shared/contract';
import { createApp, type LoupeApp } from '../app';
import { MemorySecretStore } from '../secrets';
import { startTestApp, callApp, type TestApp } from '../test-app';
import type { Manifest } from '../datasets';

let w: TestApp;
let fresh: LoupeApp;
let freshDir: string;
beforeAll(async () => {
  w = await startTestApp({ seed: 4, balance: 1_000_000, freeCalls: 0 }, 'loupe-dehydrated-quote-');
  freshDir = mkdtempSync(join(tmpdir(), 'loupe-dehydrated-recipient-'));
  fresh = createApp({
    dataDir: freshDir,
    secrets: new MemorySecretStore(),
    door: 'web',
    sandbox: async () => ({ url: w.sb.url, key: w.sb.key }),
  });
});
afterAll(async () => {
  await fresh.close();
  await w.close();
  rmSync(freshDir, { recursive: true, force: true });
});

const plan = (a: LoupeApp, m: Manifest) =>
  callApp<CollectPlan>(a, 'collect.preview', {
    name: 'recipient',
    source: { type: 'calls', calls: m.calls.map((c) => ({ platform: c.platform, endpoint: c.endpoint, params: c.params, pages: 1 })) },
    pages: 1,
  });

describe('a dehydrated bundle written right after collecting', () => {
  it('quotes what an empty archive pays for its calls today, not the writer’s held answers', async () => {
    for (const [k, handle] of ['quote.a', 'quote.b', 'quote.c'].entries()) {
      await w.call('api.call', { target: { platform: 'photo_net', endpoint: 'profile/posts', params: { handle } }, source: 'test' });
      const out = join(w.dir, `dry-${k}`);
      const r = await w.app.local['local.exportBundle'](
        bundleExportInputSchema.parse({ target: { query: { platforms: ['photo_net'] } }, out, dehydrated: true }),
      );
      const m = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as Manifest;
      expect(m.calls.length).toBe(k + 1);
      const q = m.rehydration_quote!;
      expect(r.rehydrationQuote).toEqual(q);
      const recipient = (await plan(fresh, m)).figures;
      expect([q.credits_min, q.credits_likely, q.credits_max, q.requests], `set of ${k + 1}`).toEqual([
        recipient.creditsMin,
        recipient.creditsLikely,
        recipient.creditsMax,
        recipient.requests,
      ]);
      expect(q.requests).toBe(k + 1);
      expect(q.credits_min).toBeGreaterThan(0);
      expect(q.priced_as).toMatch(/recipient with an empty archive/);
      // the writer's own price of the same calls: every page held, nothing to pay (the old quote)
      expect((await plan(w.app, m)).figures.requests).toBe(0);
    }
  });
});
