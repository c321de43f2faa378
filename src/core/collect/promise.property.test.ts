/**
 * What the plan promised against what the service charged, on generated designs (fast-check): what
 * to collect (feeds, profiles, searches), on which networks, how deep, for which inputs. Whatever
 * the design, the run ends done; the service's charges stay under the plan's maximum, input by
 * input, and equal its minimum where every answer is one page (profiles); the run's spent figure
 * and the ledger equal the charges; no page is charged twice.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { collectEnvs } from './test-env';

const env = collectEnvs();

const design = fc.record({
  do: fc.constantFrom('feed' as const, 'profile' as const, 'search' as const),
  networks: fc.subarray(['micro_net', 'photo_net', 'forum_net'], { minLength: 1 }),
  pages: fc.integer({ min: 1, max: 3 }),
  inputs: fc.uniqueArray(fc.stringMatching(/^[a-z]{3,8}$/), { minLength: 1, maxLength: 4 }),
});

describe('the plan’s promise against the service’s charges (generated designs)', () => {
  it('charged within the plan’s figures, input by input; the ledger equal to the charges; each page paid once', async () => {
    const e = await env({ timeScale: 30 });
    let n = 0;
    await fc.assert(
      fc.asyncProperty(design, async (d) => {
        n++;
        const name = `design ${n}`;
        // each design its own inputs (an earlier one's answers would be held: free, and priced so)
        const text = d.inputs.map((w) => (d.do === 'search' ? `${w} shoes ${n}` : `p${n}${w}`)).join('\n');
        const charges0 = e.sb.admin.charges().length;
        const plan = await e.collect.create(
          e.design({ name, source: { type: 'text', text }, do: d.do, networks: d.networks, pages: d.pages }),
        );
        const st = await e.collect.run(name, { approved: true });
        const charges = e.sb.admin.charges().slice(charges0);
        const charged = charges.reduce((s, c) => s + c.credits_used, 0);
        expect(st.status).toBe('done');
        expect(charged).toBeLessThanOrEqual(plan.figures.creditsMax);
        expect(st.spent).toBe(charged);
        // input by input: never above its maximum. The minimum is every planned page at its floor:
        // a list that ends sooner, or an empty page (free), costs less (docs/collect.md) — so it is
        // exact where every answer is one non-empty page: a profile
        const rows = e.collect.inputs(name, { limit: 100 }).rows;
        expect(rows.reduce((s, r) => s + r.credits, 0)).toBe(charged);
        for (const r of rows) expect(r.credits).toBeLessThanOrEqual(r.estimate.creditsMax);
        if (d.do === 'profile') expect(charged).toBe(plan.figures.creditsMin);
        const paid = charges
          .filter((c) => c.credits_used > 0)
          .map((c) => `${c.endpoint}?${JSON.stringify(Object.entries(c.params).sort())}`);
        expect(paid.length).toBe(new Set(paid).size);
      }),
      { numRuns: 5 },
    );
    expect(e.ledger()).toBe(e.charged());
  });
});
