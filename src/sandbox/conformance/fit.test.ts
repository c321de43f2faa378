/**
 * fit=goal and data.held_back (spec "Judgment parameters" and "Computed judgments"). Expected
 * keep/stub decisions are recomputed from the fixture world's relevance(row, goal) and the
 * documented uncertain band, then compared with what the server returned.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../server/start';
import { startSandbox } from '../index';
import { FIT_UNCERTAIN_HIGH, FIT_UNCERTAIN_LOW } from '../server/engine';
import type { WorldRow } from '../types';
import { fixtureWorld } from './fixtures';
import { fixtureSandbox, get, ids, walk, type Res } from './helpers';

let sb: SandboxHandle | null = null;
afterEach(async () => {
  await sb?.close();
  sb = null;
});

const POSTS = '/v1/photo_net/profile/posts?handle=alice';
const GOAL = 'coffee buyers';
const FIT = `${POSTS}&fit=goal&goal=${encodeURIComponent(GOAL)}`;
type Rec = Record<string, unknown> & { id: string; stub?: boolean };
const recs = (r: Res): Rec[] => (r.body.data.items as Array<Record<string, Rec>>).map((it) => Object.values(it)[0]);

/** The fixture world's relevance p of a row id to the goal (null = not judged). */
function pOf(id: string): number | null {
  const row: WorldRow = { id, publishedAt: null, pinned: false, item: { post: {} } as unknown as WorldRow['item'], text: '' };
  return fixtureWorld().relevance(row, GOAL)?.p ?? null;
}
const uncertain = (p: number | null) => p === null || (p >= FIT_UNCERTAIN_LOW && p < FIT_UNCERTAIN_HIGH);

describe('Judgment parameters › fit=goal', () => {
  it('Judgment parameters › fit=goal stubs rows not needed for the goal (never drops or reorders), keeps first, last and uncertain rows; data.held_back lists exactly the stubbed ids', async () => {
    sb = await fixtureSandbox({ timeScale: 0.001 });
    const plain = await walk(sb, POSTS);
    const fit = await walk(sb, FIT);
    expect(fit).toHaveLength(plain.length);
    const seen = { stubbed: 0, uncertainKept: 0, relevantKept: 0, edges: 0 };
    for (let pg = 0; pg < plain.length; pg++) {
      const full = recs(plain[pg]);
      const got = recs(fit[pg]);
      expect(ids(fit[pg])).toEqual(ids(plain[pg])); // same rows, same order
      expect(fit[pg].body.data.total).toBe(plain[pg].body.data.total);
      const stubbed: string[] = [];
      got.forEach((g, i) => {
        const p = pOf(g.id);
        const edge = i === 0 || i === got.length - 1;
        if (edge || uncertain(p) || (p ?? 0) >= FIT_UNCERTAIN_HIGH) {
          expect(g, `row ${g.id} kept whole`).toEqual(full[i]);
          if (edge) seen.edges++;
          else if (uncertain(p)) seen.uncertainKept++;
          else seen.relevantKept++;
        } else {
          const f = full[i];
          expect(g).toEqual({ id: f.id, url: f.url, kind: f.kind, published_at: f.published_at, stub: true });
          stubbed.push(g.id);
          seen.stubbed++;
        }
      });
      expect(fit[pg].body.data.held_back.ids).toEqual(stubbed);
      expect(fit[pg].body.data.held_back.recall_id).toMatch(/^rcl_[0-9a-f]{32}$/);
      expect(plain[pg].body.data.held_back).toBeUndefined();
    }
    // The fixture exercises every branch.
    expect(seen.stubbed).toBeGreaterThan(0);
    expect(seen.uncertainKept).toBeGreaterThan(0);
    expect(seen.relevantKept).toBeGreaterThan(0);
    expect(seen.edges).toBe(2 * plain.length);
  });

  it('Judgment parameters › fit_tokens is a soft cap: relevant rows past it become stubs; uncertain, first and last rows are kept even past it', async () => {
    sb = await fixtureSandbox({ timeScale: 0.001 });
    const loose = await walk(sb, `${FIT}&fit_tokens=1000000`);
    const tight = await walk(sb, `${FIT}&fit_tokens=1`);
    const free = await walk(sb, FIT);
    let relevantCut = 0;
    for (let pg = 0; pg < tight.length; pg++) {
      expect(recs(loose[pg])).toEqual(recs(free[pg]));
      const got = recs(tight[pg]);
      const expected: string[] = [];
      got.forEach((g, i) => {
        const p = pOf(g.id);
        const mustKeep = i === 0 || i === got.length - 1 || uncertain(p);
        expect(g.stub === true, `row ${g.id}`).toBe(!mustKeep);
        if (!mustKeep) expected.push(g.id);
        if (!mustKeep && (p ?? 0) >= FIT_UNCERTAIN_HIGH) relevantCut++;
      });
      expect(tight[pg].body.data.held_back.ids).toEqual(expected);
    }
    expect(relevantCut).toBeGreaterThan(0);
  });

  it('Judgment parameters › fit=goal is free: the same page costs the same with or without it', async () => {
    sb = await fixtureSandbox({ timeScale: 0.001 });
    const a = await get(sb, `${POSTS}&label=quality`);
    await sb.close();
    sb = await fixtureSandbox({ timeScale: 0.001 });
    const b = await get(sb, `${FIT}&label=quality`);
    expect(b.status).toBe(200);
    expect(b.body.credits_used).toBe(a.body.credits_used);
    expect(b.body.credits_used).toBeGreaterThan(20); // label=quality is billed; fit adds nothing
  });

  it('Judgment parameters › fit without goal, empty goal, goal over 300 chars, fit other than goal and fit_tokens without fit are 400, free', async () => {
    sb = await fixtureSandbox({ timeScale: 0.001 });
    for (const q of [
      'fit=goal',
      'fit=goal&goal=',
      `fit=goal&goal=${'x'.repeat(301)}`,
      'fit=all&goal=x',
      'fit_tokens=100',
      'fit=goal&goal=x&fit_tokens=0',
    ]) {
      const r = await get(sb, `${POSTS}&${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.error.type, q).toBe('INVALID_REQUEST');
      expect(r.body.credits_used).toBe(0);
    }
    expect(sb.admin.balance()).toBe(10_000);
  });
});

describe('Computed judgments › data.held_back', () => {
  it('Computed judgments › data.held_back.recall_id re-reads the full page from cache free of charge', async () => {
    sb = await fixtureSandbox({ timeScale: 0.001 });
    const plain = await get(sb, POSTS);
    const fit = await get(sb, `${FIT}&fit_tokens=1`);
    expect(fit.body.data.held_back.ids.length).toBeGreaterThan(0);
    const id = fit.body.data.held_back.recall_id as string;
    const before = sb.admin.balance();
    const r = await get(sb, `/v1/photo_net/profile/posts?recall=${id}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ credits_used: 0, cached: true, charge_reason: 'cached', credits_remaining: before });
    expect(r.body.data.items).toEqual(plain.body.data.items);
    expect(recs(r).some((x) => x.stub)).toBe(false);
    expect(r.body.data.held_back).toBeUndefined();
    expect(r.body.pagination).toEqual(fit.body.pagination);
    expect(sb.admin.balance()).toBe(before);
    const last = sb.admin.charges().at(-1)!;
    expect(last).toMatchObject({ credits_used: 0, cached: true, charge_reason: 'cached', status: 200 });
    // Re-reading the fit answer from cache hands back the same recall id.
    const again = await get(sb, `${FIT}&fit_tokens=1`);
    expect(again.body.cached).toBe(true);
    expect(again.body.data.held_back.recall_id).toBe(id);
  });

  it('Computed judgments › an unknown, foreign or expired recall id is a free 400', async () => {
    sb = await fixtureSandbox({ timeScale: 0.001 });
    const fit = await get(sb, FIT);
    const id = fit.body.data.held_back.recall_id as string;
    const before = sb.admin.balance();
    const unknown = await get(sb, '/v1/photo_net/profile/posts?recall=rcl_nope');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ type: 'INVALID_REQUEST', reason: 'recall_unknown' });
    const otherEndpoint = await get(sb, `/v1/photo_net/profile/reels?recall=${id}`);
    expect(otherEndpoint.body.error.reason).toBe('recall_unknown');
    const stranger = sb.admin.createKey('x', sb.admin.createAccount({ balance: 100 }));
    const foreign = await get(sb, `/v1/photo_net/profile/posts?recall=${id}`, { key: stranger });
    expect(foreign.body.error.reason).toBe('recall_unknown');
    sb.admin.advance(21_600); // the fixture endpoint's cache window
    const expired = await get(sb, `/v1/photo_net/profile/posts?recall=${id}`);
    expect(expired.status).toBe(400);
    expect(expired.body.error.reason).toBe('recall_expired');
    expect(sb.admin.balance()).toBe(before);
  });
});

describe('Judgment parameters › fit=goal on the real registry and world', () => {
  it('Judgment parameters › real endpoints: fit without goal is 400; fit=goal stubs and recalls', async () => {
    sb = await startSandbox({ port: 0, seed: 1, timeScale: 60, freeCalls: 0 });
    const path = '/v1/photo_net/profile/posts?handle=sample.creator';
    const bad = await get(sb, `${path}&fit=goal`);
    expect(bad.status).toBe(400);
    const fit = await get(sb, `${path}&fit=goal&goal=${encodeURIComponent('find people asking for recommendations')}`);
    expect(fit.status).toBe(200);
    const got = recs(fit);
    const held = fit.body.data.held_back as { ids: string[]; recall_id: string };
    expect(held.ids.length).toBeGreaterThan(0);
    expect(held.ids).toEqual(got.filter((x) => x.stub).map((x) => x.id));
    expect(got[0].stub).toBeUndefined();
    expect(got.at(-1)!.stub).toBeUndefined();
    const r = await get(sb, `/v1/photo_net/profile/posts?recall=${held.recall_id}`);
    expect(r.status).toBe(200);
    expect(r.body.credits_used).toBe(0);
    expect(recs(r).map((x) => x.id)).toEqual(got.map((x) => x.id));
    expect(recs(r).some((x) => x.stub)).toBe(false);
  });
});
