/**
 * Re-checking a set (recheck.ts) against the sandbox's aging world: a post the service removed is
 * marked unavailable (when first found missing), never deleted; a post still there gets a new
 * reading; a post not read (budget) stays "not re-checked"; the plan's approval comes before any
 * spending; the ledger equals the service's charges and nothing is paid twice.
 */
import { describe, expect, it } from 'vitest';
import { SPEC_VARIANTS } from '../../sandbox';
import { removedAt } from '../../sandbox/world/aging';
import { collectEnvs, type CollectEnv } from '../collect/test-env';
import { answerSaysGone, parseItemKey, itemKey, runRecheck, planRecheck, type RecheckDeps } from './recheck';

const DAY = 86_400_000;
const EPOCH = Date.UTC(2026, 2, 1);
const env = collectEnvs();

async function studied(e: CollectEnv, accounts = 5): Promise<{ deps: RecheckDeps; gone: (id: string, publishedAt: string) => boolean }> {
  for (let k = 0; k < accounts; k++)
    await e.api.call({ platform: 'photo_net', endpoint: 'profile/posts', params: { handle: `aging.check${k}` } }, { source: 'test' });
  e.archive.saveResultSet('Study', { platforms: ['photo_net'] });
  const later = e.sb.admin.now() + 90 * DAY;
  e.sb.admin.advance(90 * 86_400);
  const gone = (id: string, publishedAt: string) => {
    const t = removedAt({ seed: 3, epoch: EPOCH }, 'photo_net', id, Date.parse(publishedAt));
    return t !== null && t <= later;
  };
  const deps: RecheckDeps = {
    archive: e.archive,
    collect: e.collect,
    clock: e.clock,
    catalogue: async () => (await e.api.catalogue.load(), e.api.catalogue),
  };
  return { deps, gone };
}

function setRows(e: CollectEnv) {
  return e.archive.datasets
    .recheckRows({ platforms: ['photo_net'] })
    .map((r) => ({ ...r, item: e.archive.getItem(r.platform, r.kind, r.id)! }));
}

describe('re-check a set', () => {
  it('removed posts are unavailable from when first found missing, never deleted; the rest read again; the ledger equals the charges', async () => {
    const e = await env({ seed: 3, epoch: EPOCH, timeScale: 1 });
    const { deps, gone } = await studied(e);
    const rows = setRows(e);
    const removed = rows.filter((r) => gone(r.id, r.item.publishedAt === null ? '' : new Date(r.item.publishedAt).toISOString()));
    expect(removed.length).toBeGreaterThan(0); // the seeded world removes some of these
    const charged0 = e.charged();

    const plan = await planRecheck(deps, { set: 'Study' }, null);
    expect(plan.items).toBe(rows.length);
    expect(plan.plan.inputs).toBe(rows.length);
    expect(e.charged()).toBe(charged0); // pricing spends nothing

    const r = await runRecheck(deps, { target: { set: 'Study' }, budget: null, approved: true });
    expect(r.status.status).toBe('done');
    expect(r.missing).toBe(removed.length);
    expect(r.found).toBe(rows.length - removed.length);
    expect(r.notRead).toBe(0);
    expect(e.archive.count({ platforms: ['photo_net'] })).toBe(rows.length); // nothing deleted
    const after = setRows(e);
    for (const a of after) {
      const wasGone = removed.some((x) => x.id === a.id);
      expect(a.item.checkedAt).not.toBeNull();
      expect(a.item.missingSince !== null).toBe(wasGone);
    }
    // posts read again grew (the sandbox's curve): a new reading each, kept beside the first
    const grew = after.filter((a) => a.item.history.length >= 2);
    expect(grew.length).toBeGreaterThan(0);
    for (const a of grew) expect(a.item.history[a.item.history.length - 1].readAt).toBeGreaterThan(EPOCH + 89 * DAY);
    expect(r.attrition.reduce((s, x) => s + x.unavailable, 0)).toBe(removed.length);
    expect(r.attrition.reduce((s, x) => s + x.available, 0)).toBe(rows.length - removed.length);
    expect(r.attrition.reduce((s, x) => s + x.notRechecked, 0)).toBe(0);
    expect(e.ledger()).toBe(e.charged());
    expect(r.status.spent).toBe(e.charged() - charged0);

    // a second re-check a week later: still missing since the first time; checked again
    const first = new Map(after.map((a) => [a.id, a.item.missingSince]));
    e.sb.admin.advance(7 * 86_400);
    await runRecheck(deps, { target: { set: 'Study' }, budget: null, approved: true });
    for (const a of setRows(e)) {
      expect(a.item.missingSince).toBe(first.get(a.id));
      expect(a.item.checkedAt!).toBeGreaterThan(EPOCH + 96 * DAY);
    }
    expect(e.ledger()).toBe(e.charged());
  });

  it('asks first: above the threshold nothing is saved or spent; a budget too small leaves items "not re-checked", not gone', async () => {
    const e = await env({ seed: 3, epoch: EPOCH, timeScale: 1, askAbove: 10 });
    const { deps } = await studied(e);
    const charged0 = e.charged();
    const plans0 = e.collect.list().length;
    await expect(runRecheck(deps, { target: { set: 'Study' }, budget: null, approved: false })).rejects.toMatchObject({
      kind: 'not_approved',
    });
    expect(e.charged()).toBe(charged0);
    expect(e.collect.list().length).toBe(plans0);

    const n = setRows(e).length;
    const r = await runRecheck(deps, { target: { set: 'Study' }, budget: 60, approved: false });
    expect(r.status.status).toBe('partial');
    expect(e.charged() - charged0).toBeLessThanOrEqual(60);
    expect(r.found + r.missing + r.notRead).toBe(n);
    expect(r.notRead).toBeGreaterThan(0);
    const t = r.attrition.reduce((s, x) => ({ a: s.a + x.available, u: s.u + x.unavailable, n: s.n + x.notRechecked }), {
      a: 0,
      u: 0,
      n: 0,
    });
    expect(t).toEqual({ a: r.found, u: r.missing, n: r.notRead });
    // the rest, continued under the same plan: each call paid once
    const more = await runRecheck(deps, { target: { set: 'Study' }, budget: null, approved: true, plan: r.status.name });
    expect(more.notRead).toBe(0);
    expect(e.ledger()).toBe(e.charged());
  });
});

describe('under every spec variant, and through injected faults', () => {
  async function check(e: CollectEnv): Promise<void> {
    const { deps, gone } = await studied(e, 2);
    const rows = setRows(e);
    const removed = rows
      .filter((r) => r.item.publishedAt !== null && gone(r.id, new Date(r.item.publishedAt).toISOString()))
      .map((r) => r.id);
    const r = await runRecheck(deps, { target: { set: 'Study' }, budget: null, approved: true });
    // a removed post is never "available"; an available one never "gone"; what failed otherwise is "not read"
    const marked = setRows(e);
    for (const a of marked) {
      if (a.item.missingSince !== null) expect(removed).toContain(a.id);
      else if (a.item.checkedAt !== null) expect(removed).not.toContain(a.id);
    }
    expect(r.found + r.missing + r.notRead).toBe(rows.length);
    expect(e.archive.count({ platforms: ['photo_net'] })).toBe(rows.length);
    expect(e.ledger()).toBe(e.charged());
  }
  for (const v of SPEC_VARIANTS.map((x) => x.name))
    it(`${v}: gone is gone, found is found, the ledger equal to the charges`, async () => {
      const e = await env({ seed: 3, epoch: EPOCH, timeScale: 1, variants: [v] });
      await check(e);
    });
  it('20 % injected faults: the same', async () => {
    const e = await env({ seed: 3, epoch: EPOCH, timeScale: 1, chaos: 0.2, maxRetries: 8 });
    await check(e);
  });
});

describe('what an answer says', () => {
  it('a 200 with no post or a deleted flag is gone; a post is not; keys round-trip with slashes in ids', () => {
    expect(answerSaysGone({ data: { post: null } })).toBe(true);
    expect(answerSaysGone({ data: { post: { id: '1', flags: { deleted: true } } } })).toBe(true);
    expect(answerSaysGone({ data: { post: { id: '1', flags: { deleted: false } } } })).toBe(false);
    expect(answerSaysGone({ data: { items: [] } })).toBe(false);
    const k = { platform: 'forum_net', kind: 'post', id: 'r/a/b 1' };
    expect(parseItemKey(itemKey(k))).toEqual(k);
  });
});
