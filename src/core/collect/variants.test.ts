/**
 * A plan's run under every reading of the spec the sandbox serves (docs/sandbox.md "Spec
 * variants"), and through injected faults: every input collected, no page charged twice, the
 * ledger equal to the service's charges, and a feed's second run reading only what is new.
 */
import { describe, expect, it } from 'vitest';
import { SPEC_VARIANTS } from '../../sandbox';
import { collectEnvs, type CollectEnv } from './test-env';

const env = collectEnvs();

function paidOnce(e: CollectEnv): string[] {
  const seen = new Map<string, number>();
  for (const c of e.sb.admin.charges()) {
    if (c.credits_used <= 0) continue;
    const k = `${c.endpoint}?${JSON.stringify(Object.entries(c.params).sort())}`;
    seen.set(k, (seen.get(k) ?? 0) + 1);
  }
  return [...seen.entries()].filter(([, n]) => n > 1).map(([k]) => k);
}

async function twoPlans(e: CollectEnv): Promise<void> {
  await e.collect.create(
    e.design({
      name: 'feeds',
      source: { type: 'text', text: '@v_one\n@v_two\nhttps://micro-net.example/v_three' },
      do: 'feed',
      networks: ['micro_net'],
      pages: 2,
    }),
  );
  await e.collect.create(
    e.design({
      name: 'threads',
      source: { type: 'text', text: 'https://photo-net.example/p/VaR1/\nhttps://photo-net.example/p/VaR2/' },
      do: 'comments',
      pages: 2,
    }),
  );
  for (const name of ['feeds', 'threads']) {
    const st = await e.collect.run(name);
    expect(st.status, `${name}: ${st.message}`).toBe('done');
    expect(st.counts.failed + st.counts.skipped + st.counts.waiting).toBe(0);
  }
  expect(paidOnce(e)).toEqual([]);
  expect(e.ledger()).toBe(e.charged());
  // a day later: each feed reads down to what it held (stop_at_id where the catalogue lists it, else
  // the first page repeating a held item: that page is read again, it holds the new items)
  e.sb.admin.advance(2 * 86_400);
  const before = e.collect.inputs('feeds').rows.map((r) => r.pagesDone);
  const again = await e.collect.run('feeds');
  expect(again.status).toBe('done');
  const after = e.collect.inputs('feeds').rows.map((r) => r.pagesDone);
  after.forEach((p, i) => expect(p - before[i]).toBeLessThanOrEqual(2));
  expect(e.ledger()).toBe(e.charged());
}

describe('a plan under every spec variant', () => {
  for (const v of SPEC_VARIANTS.map((x) => x.name))
    it(`${v}: every input collected, each page paid once, the ledger equal to the charges`, async () => {
      const e = await env({ timeScale: 60, variants: [v] });
      await twoPlans(e);
    });

  it('through 20 % injected faults (429, 5xx, dropped answers): the same', async () => {
    const e = await env({ timeScale: 60, chaos: 0.2, maxRetries: 8 });
    await twoPlans(e);
    expect(
      Object.values((e.sb.admin.stats() as unknown as { chaos_faults: Record<string, number> }).chaos_faults).reduce((a, b) => a + b, 0),
    ).toBeGreaterThan(0);
  });
});
