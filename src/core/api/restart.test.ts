/**
 * Issue 24 #4: a walk whose saved cursor the service rejects starts over — and "fetch N more
 * pages" then re-reads the pages it held for free where the service answered them inside their
 * cache window, fetches N pages it did NOT hold, and says so honestly (pages done, more
 * available). Where re-reading would cost (outside the window, or no window at all), the walk
 * stops before spending and says what the restart costs; approved, it re-reads and goes on.
 * Against the sandbox under the default reading, `cursor-error` and `no-cache-window`, with cases
 * (held pages, pages asked, how the cursor dies) drawn from a seeded generator.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../../sandbox';
import { mulberry32 } from '../../shared/random';
import { openArchive, type Archive } from '../archive';
import { testDb } from '../archive/testing';
import { createApiCore, scaledClock } from './index';
import type { ApiCore } from './types';

interface Env {
  sb: SandboxHandle;
  api: ApiCore;
  archive: Archive;
}
const open: Env[] = [];
afterEach(async () => {
  for (const e of open.splice(0)) {
    await e.api.close();
    e.archive.close();
    await e.sb.close();
  }
});

async function env(variants: string[]): Promise<Env> {
  const sb = await startSandbox({ port: 0, seed: 11, balance: 1_000_000, freeCalls: 0, variants });
  const clock = scaledClock(() => sb.admin.now(), 1);
  const archive = openArchive(':memory:', { clock: () => clock.now() });
  const api = createApiCore({ baseUrl: sb.url, getKey: () => sb.key, store: archive, clock });
  const e = { sb, api, archive };
  open.push(e);
  return e;
}

/** what the service recorded for Loupe's key (the oracle reads on another account) */
const mine = (e: Env) => e.sb.admin.charges().filter((c) => c.key_hash === e.sb.admin.keyHash(e.sb.key));
const charges = (e: Env) => mine(e).filter((c) => c.params.dry_run === undefined);
const ledger = (e: Env) => e.archive.listLedger({ limit: 10_000 }).reduce((s, l) => s + l.creditsUsed, 0);
const charged = (e: Env) => mine(e).reduce((s, c) => s + c.credits_used, 0);

/** The ids of the list's first `pages` pages right now, read with another key (no cache). */
async function firstPages(e: Env, handle: string, pages: number): Promise<string[]> {
  const key = e.sb.admin.createKey('oracle', e.sb.admin.createAccount({ balance: 1_000_000 }));
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < pages; i++) {
    const q = new URLSearchParams({ handle, ...(cursor ? { cursor } : {}) });
    const r = await fetch(`${e.sb.url}/v1/photo_net/profile/posts?${q}`, { headers: { 'x-api-key': key, 'cache-control': 'no-cache' } });
    const j = (await r.json()) as {
      data: { items: Array<{ post: { id: string } }> };
      pagination: { has_more: boolean; next_cursor: string | null };
    };
    ids.push(...j.data.items.map((it) => it.post.id));
    if (!j.pagination.has_more || !j.pagination.next_cursor) break;
    cursor = j.pagination.next_cursor;
  }
  return ids;
}

const heldIds = (e: Env): Set<string> =>
  new Set((testDb(e.archive).prepare("SELECT id FROM items WHERE platform = 'photo_net'").all() as Array<{ id: string }>).map((r) => r.id));

const HANDLES = ['grace', 'heidi', 'victor', 'trent', 'frank', 'judy', 'alice', 'ivan'];

describe('a walk whose saved cursor is rejected, then "fetch N more pages"', () => {
  for (const variant of ['(default)', 'cursor-error', 'no-cache-window']) {
    it(`re-reads held pages free inside their window, else asks first; pages done and "more available" stay honest (${variant})`, async () => {
      const rnd = mulberry32(variant.length * 7919 + 24);
      for (let c = 0; c < 2; c++) {
        const e = await env(variant === '(default)' ? [] : [variant]);
        const handle = HANDLES[Math.floor(rnd() * HANDLES.length)];
        const held = 1 + Math.floor(rnd() * 3); // pages walked before
        const more = 1 + Math.floor(rnd() * 3); // "Fetch N more pages"
        const expire = c === 1; // the cursor is refused as it stands (edited), then dies of age (past the window)
        const target = { platform: 'photo_net', endpoint: 'profile/posts', params: { handle } };
        const first = await e.api.walk(target, { maxPages: held, pagesPerRequest: 1 });
        expect(first).toMatchObject({ status: 'paused', stopReason: 'page_limit', pagesDone: held });
        if (expire) e.sb.admin.advance(7 * 3600);
        else {
          const s = e.archive.getWalk(first.walkId)!;
          e.archive.saveWalk({ ...s, cursor: `${s.cursor}x` }); // the service must refuse it
        }
        const free = !expire && variant !== 'no-cache-window';
        const before = charges(e).length;
        const r = await e.api.resumeWalk(first.walkId, { maxPages: held + more, pagesPerRequest: 1 });
        expect(r.notes.join(' ')).toMatch(/started again from the first page/);
        let paid: typeof r | null = null;
        if (free) {
          // the held pages cost nothing: only the N new pages were charged
          const mine = charges(e).slice(before);
          expect(mine.filter((x) => x.credits_used > 0)).toHaveLength(more);
        } else {
          // told before spending: nothing charged, the cost named, pages done unchanged
          expect(r).toMatchObject({ status: 'paused', stopReason: 'restart_costs', pagesDone: held, rewalkAt: 0 });
          expect(
            charges(e)
              .slice(before)
              .filter((x) => x.credits_used > 0),
          ).toHaveLength(0);
          expect(r.notes.join(' ')).toMatch(new RegExp(`re-reads ${held} page\\(s\\) this walk already holds .*credits`));
          // nothing is sent again until approved
          const again = await e.api.resumeWalk(first.walkId, { maxPages: held + more, pagesPerRequest: 1 });
          expect(again.stopReason).toBe('restart_costs');
          expect(
            charges(e)
              .slice(before)
              .filter((x) => x.credits_used > 0),
          ).toHaveLength(0);
          paid = await e.api.resumeWalk(first.walkId, { maxPages: held + more, pagesPerRequest: 1, payRestart: true });
          expect(
            charges(e)
              .slice(before)
              .filter((x) => x.credits_used > 0),
          ).toHaveLength(held + more);
        }
        expect(r.restarted).toBe(true);
        const end = paid ?? r;
        // honest: as many pages done as the list's pages it holds, and those rows are archived
        expect(end).toMatchObject({ status: 'paused', stopReason: 'page_limit', pagesDone: held + more, rewalkAt: null });
        const want = await firstPages(e, handle, held + more);
        const have = heldIds(e);
        expect(want.filter((id) => !have.has(id))).toEqual([]);
        expect(e.archive.getWalk(first.walkId)).toMatchObject({ pagesDone: held + more, rewalkAt: null, restarts: 1 });
        expect(ledger(e)).toBe(charged(e));
      }
    }, 60_000);
  }
});
