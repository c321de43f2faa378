/**
 * Rehydrating a dehydrated bundle (rehydrate.ts) against the sandbox's aging world (seeded clock and
 * attrition, docs/sandbox-world.md): a colleague's archive re-collects the bundle's items through one
 * priced plan; what the service removed is never "re-collected" (a single read or a private
 * account's feed answering not found marks it unavailable; a list answering without it leaves it
 * "missing"), every key the archive does not hold is named, the items link back to the bundle,
 * approval comes before any spending, a cancelled run resumes with no page paid twice, and the two
 * archives' ledgers together equal the service's charges. Items already held inside their cache
 * window cost nothing.
 */
import fc from 'fast-check';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { collectDesignSchema } from '../../shared/contract-collect';
import { isPrivate, postGone } from '../../sandbox/world/aging';
import { createApiCore } from '../api';
import { openArchive, type Archive } from '../archive';
import { createCollectService } from '../collect';
import { collectEnvs, type CollectEnv } from '../collect/test-env';
import { exportBundle, rootHash, type Manifest } from './bundle';
import type { RecheckDeps } from './recheck';
import { itemKey } from './recheck';
import { planRehydrate, rehydrationWalks, runRehydrate } from './rehydrate';

const EPOCH = Date.UTC(2026, 2, 1);
const SEED = 3;
const env = collectEnvs();
const dirs: string[] = [];
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const depsOf = (archive: Archive, collect: RecheckDeps['collect'], e: CollectEnv, api = e.api): RecheckDeps => ({
  archive,
  collect,
  clock: e.clock,
  catalogue: async () => (await api.catalogue.load(), api.catalogue),
});

/** A second archive (a colleague's) on the same sandbox and clock. */
function colleague(e: CollectEnv, askAbove: number | null = null) {
  const archive = openArchive(':memory:', { clock: () => e.clock.now() });
  const api = createApiCore({ baseUrl: e.sb.url, getKey: () => e.sb.key, store: archive, clock: e.clock });
  const collect = createCollectService({ api: async () => api, archive, clock: e.clock, askAboveCredits: () => askAbove });
  closers.push(async () => {
    await collect.close();
    await api.close();
    archive.close();
  });
  const ledger = () => archive.listLedger({ limit: 100_000 }).reduce((s, l) => s + l.creditsUsed, 0);
  return { archive, api, collect, deps: depsOf(archive, collect, e, api), ledger };
}

/** The study: accounts' feeds, two pages each, through a collection plan; a dehydrated bundle of it. */
async function study(e: CollectEnv, handles: string[]): Promise<{ dir: string; m: Manifest }> {
  const plan = await e.collect.create(
    collectDesignSchema.parse({
      name: 'Feeds',
      source: { type: 'text', text: handles.join('\n') },
      do: 'feed',
      networks: ['photo_net'],
      pages: 2,
    }),
  );
  await e.collect.run(plan.id ?? '', { approved: true });
  const dir = join(mkdtempSync(join(tmpdir(), 'loupe-rehydrate-')), 'bundle');
  dirs.push(dir);
  const m = await exportBundle(e.archive, {
    out: dir,
    query: { platforms: ['photo_net'] },
    version: 'test',
    variants: [],
    dehydrated: true,
    now: e.clock.now(),
    quote: async () => ({
      credits_min: 1,
      credits_likely: 2,
      credits_max: 3,
      requests: 4,
      quoted_at: new Date(e.clock.now()).toISOString(),
    }),
  });
  return { dir, m };
}

/** The bundle as an older Loupe wrote it for the items `drop` picks: no address (the root sealed again). */
async function withoutAddresses(dir: string, m: Manifest, drop: (n: number) => boolean): Promise<{ dir: string; m: Manifest }> {
  const items = m.items.map((i, n) => (drop(n) ? { ...i, url: undefined } : i));
  const { root_sha256: _r, ...body } = { ...m, items };
  const sealed: Manifest = { ...body, root_sha256: rootHash(body) };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(sealed, null, 1) + '\n');
  return { dir, m: sealed };
}

/** Is the item gone at `now` in the seeded world (removed, or its account private)? */
function goneIn(e: CollectEnv, now: number) {
  const ctx = { seed: SEED, epoch: EPOCH };
  return (a: Archive, key: string, platform: string, kind: string, id: string): boolean => {
    const it = e.archive.getItem(platform, kind, id) ?? a.getItem(platform, kind, id);
    if (!it) throw new Error(`no record of ${key}`);
    const rec = { id, kind, parent_id: null, author: { username: it.author.username } } as never;
    return postGone(ctx, platform, rec, it.publishedAt, now);
  };
}

describe('rehydrate a dehydrated bundle', () => {
  it('deleted and private items are never re-collected: read singly they are unavailable; missing keys named; ledger = charges', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 1_000 }), fc.integer({ min: 1, max: 4 }), async (salt, every) => {
        const e = await env({ seed: SEED, epoch: EPOCH, timeScale: 60 });
        const handles = Array.from({ length: 3 }, (_, k) => `aging.rh${salt}x${k}`);
        const study0 = await study(e, handles);
        // an older bundle's items carry no address (generated: every `every`-th keeps it): those go by the bundle's walks
        const { dir, m } = await withoutAddresses(study0.dir, study0.m, (n) => n % every !== 0);
        const walks = rehydrationWalks(m).walks;
        // the feeds' two pages are one walk each, walked again from its first page
        expect(walks.filter((w) => w.endpoint === 'profile/posts').every((w) => w.pages === 2 && !('next_max_id' in w.params))).toBe(true);
        e.sb.admin.advance(90 * 86_400);
        const now = e.clock.now();
        const b = colleague(e);
        const charged0 = e.charged();
        const plan = await planRehydrate(b.deps, dir);
        expect(e.charged()).toBe(charged0); // pricing is free
        expect(plan.quoted).toMatchObject({ credits_max: 3 }); // the bundle's own quote, shown beside today's
        expect(plan.plan?.figures.creditsMax).toBeGreaterThan(0);
        await expect(runRehydrate(b.deps, { dir, approved: false })).rejects.toMatchObject({ kind: 'not_approved' });
        expect(e.charged()).toBe(charged0); // nothing without approval
        expect(b.collect.list()).toHaveLength(0);

        const r = await runRehydrate(b.deps, { dir, approved: true });
        expect(r.status?.status).toBe('done');
        const gone = goneIn(e, now);
        const states = new Map(b.archive.rehydrations.items(r.status?.id ?? '').map((x) => [itemKey(x), x.state]));
        for (const i of m.items) {
          const k = itemKey(i);
          const g = gone(b.archive, k, i.platform, i.kind, i.id);
          const st = states.get(k);
          // read singly (the bundle carries its address): exactly what the service says of it now
          if (i.url) expect(st, k).toBe(g ? 'unavailable' : 'recollected');
          else if (g) expect(['unavailable', 'missing'], k).toContain(st);
          else expect(['recollected', 'missing'], k).toContain(st);
          // a private account's feed answers not found: its posts are unavailable
          const author = e.archive.getItem(i.platform, i.kind, i.id)?.author.username;
          if (isPrivate({ seed: SEED, epoch: EPOCH }, i.platform, author, now)) expect(st, k).toBe('unavailable');
          // recollected ⇔ held by the colleague's archive
          expect(b.archive.getItem(i.platform, i.kind, i.id) !== undefined, k).toBe(st === 'recollected');
        }
        expect(r.counts.recollected + r.counts.unavailable + r.counts.missing).toBe(m.items.length);
        expect(r.verify.absent).toBe(m.items.length - r.counts.recollected);
        expect(r.verify.ok).toBe(r.verify.absent === 0);
        expect(new Set(r.verify.absentKeys)).toEqual(new Set([...states].filter(([, x]) => x !== 'recollected').map(([k]) => k)));
        // each item stored once; the re-collected ones link back to the bundle
        const keys = b.archive.listQuery({ limit: 1000 }).rows.map((x) => `${x.platform}/${x.kind}/${x.id}`);
        expect(new Set(keys).size).toBe(keys.length);
        const some = m.items.find((i) => states.get(itemKey(i)) === 'recollected');
        expect(some && b.archive.rehydrations.bundlesOf(some)).toEqual([
          expect.objectContaining({ root: m.root_sha256, state: 'recollected' }),
        ]);
        // both archives' ledgers together: what the service charged
        expect(e.ledger() + b.ledger()).toBe(e.charged());
      }),
      { numRuns: 2 },
    );
  });

  it('items already held inside their cache window cost nothing: no plan, no approval, no charge', async () => {
    const e = await env({ seed: SEED, epoch: EPOCH, timeScale: 1 });
    const { dir, m } = await study(e, ['aging.held0', 'aging.held1']);
    const self = depsOf(e.archive, e.collect, e);
    const charged0 = e.charged();
    const plan = await planRehydrate(self, dir);
    expect(plan.held).toBe(m.items.length);
    expect(plan.plan).toBeNull();
    const r = await runRehydrate(self, { dir, approved: false }); // nothing to pay: no approval needed
    expect(r.counts.held).toBe(m.items.length);
    expect(r.verify).toMatchObject({ ok: true, absent: 0 });
    expect(e.charged()).toBe(charged0);
  });

  it('into the archive that holds the items, 90 days on: the unavailable ones are marked, never deleted', async () => {
    const e = await env({ seed: SEED, epoch: EPOCH, timeScale: 60 });
    const { dir, m } = await study(e, ['aging.mark0', 'aging.mark1', 'aging.mark2']);
    e.sb.admin.advance(90 * 86_400);
    const n0 = e.archive.count({});
    const r = await runRehydrate(depsOf(e.archive, e.collect, e), { dir, approved: true });
    expect(r.counts.unavailable).toBeGreaterThan(0); // the seeded world removed some of the posts
    expect(e.archive.count({})).toBeGreaterThanOrEqual(n0); // nothing deleted
    for (const x of e.archive.rehydrations.items(r.status!.id)) {
      const it = e.archive.getItem(x.platform, x.kind, x.id)!;
      expect(it, itemKey(x)).toBeDefined();
      if (x.state === 'unavailable') expect(it.missingSince, itemKey(x)).not.toBeNull();
    }
    expect(r.verify.ok).toBe(true); // every key still held
    expect(e.ledger()).toBe(e.charged());
    expect(m.items.length).toBe(r.items);
  });

  it('a cancelled rehydration resumes under its plan: every page paid once, the ledger equal to the charges', async () => {
    const e = await env({ seed: SEED, epoch: EPOCH, timeScale: 60, latencyMs: 40 });
    const handles = Array.from({ length: 3 }, (_, k) => `aging.cut${k}`);
    const { dir, m } = await study(e, handles);
    e.sb.admin.advance(30 * 86_400);
    const b = colleague(e);
    const paid0 = e.sb.admin.charges().length;
    const abort = new AbortController();
    const first = runRehydrate(b.deps, { dir, approved: true, signal: abort.signal });
    for (let i = 0; i < 2000 && e.sb.admin.charges().length - paid0 < 3; i++) await new Promise((res) => setTimeout(res, 5));
    abort.abort();
    const cut = await first;
    expect(cut.status?.status).toBe('cancelled');
    const again = await runRehydrate(b.deps, { dir, approved: true });
    expect(again.status?.status).toBe('done');
    expect(again.status?.id).toBe(cut.status?.id); // the same plan, continued
    const charges = e.sb.admin
      .charges()
      .slice(paid0)
      .filter((c) => c.credits_used > 0);
    const keys = charges.map((c) => `${c.endpoint}|${JSON.stringify(c.params)}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(e.ledger() + b.ledger()).toBe(e.charged());
    expect(again.counts.recollected + again.counts.unavailable + again.counts.missing).toBe(m.items.length);
  });
});
