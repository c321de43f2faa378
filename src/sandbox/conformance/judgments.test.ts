import { afterEach, describe, expect, it } from 'vitest';
import type { SandboxHandle } from '../server/start';
import { fixtureSandbox, get, ids, walk } from './helpers';

let sb: SandboxHandle;
afterEach(() => sb.close());

const POSTS = '/v1/photo_net/profile/posts?handle=alice';
type Row = { post: { id: string; computed?: Record<string, any> } };

describe('Judgment parameters', () => {
  it('Judgment parameters › default judgments are free and fill computed.labels and data.labels; unjudged rows carry null', async () => {
    sb = await fixtureSandbox({ timeScale: 0.001 });
    const r = await get(sb, POSTS);
    expect(r.body.credits_used).toBe(20);
    const rows = r.body.data.items as Row[];
    expect(Object.keys(rows[0].post.computed!.labels).sort()).toEqual(['intent', 'niche', 'sponsored']);
    expect(rows.find((x) => x.post.id === '999997')!.post.computed!.labels).toBeNull();
    expect(r.body.data.labels).toMatchObject({ mode: 'default', status: 'complete', pending: null });
  });

  it('Judgment parameters › judgments=off and label=none return no computed keys and no data.labels', async () => {
    sb = await fixtureSandbox({ timeScale: 0.001 });
    for (const q of ['judgments=off', 'label=none']) {
      const r = await get(sb, `${POSTS}&${q}`);
      for (const it of r.body.data.items as Row[]) expect(it.post.computed).toBeUndefined();
      expect(r.body.data.labels).toBeUndefined();
    }
  });

  it('Judgment parameters › exclude drops rows at p ≥ 0.8 and lists them in data.labels.dropped_ids; unjudged rows are never dropped', async () => {
    sb = await fixtureSandbox({ timeScale: 0.001 });
    const plain = await walk(sb, `${POSTS}&label=quality`);
    const excl = await walk(sb, `${POSTS}&label=quality&exclude=engagement_bait`);
    expect(excl).toHaveLength(plain.length);
    const baitIds = plain.flatMap((pg) =>
      (pg.body.data.items as Row[]).filter((x) => (x.post.computed!.labels?.quality?.engagement_bait ?? 0) >= 0.8).map((x) => x.post.id),
    );
    expect(baitIds.length).toBeGreaterThan(0);
    const dropped = excl.flatMap((pg) => pg.body.data.labels.dropped_ids as string[]);
    expect(dropped).toEqual(baitIds);
    for (const pg of excl) {
      for (const k of pg.body.data.items as Row[])
        if (k.post.computed!.labels) expect(k.post.computed!.labels.quality.engagement_bait).toBeLessThan(0.8);
      const n = (pg.body.data.labels.dropped_ids as string[]).length;
      if (n > 0) expect(pg.body.data.dropped).toBe(n);
    }
    expect(ids(excl[0])).toContain('999997'); // unjudged: never dropped
  });

  it('Judgment parameters › mention without brand is skipped with label_mention_needs_brand and not billed; with brand it is billed', async () => {
    sb = await fixtureSandbox({ timeScale: 0.001 });
    const a = await get(sb, `${POSTS}&label=mention`);
    expect(a.body.credits_used).toBe(20);
    expect(a.body.warnings).toContain('label_mention_needs_brand');
    expect(a.body.data.labels.warnings).toContain('label_mention_needs_brand');
    expect(Object.keys((a.body.data.items as Row[])[1].post.computed!.labels)).not.toContain('mention');
    const b = await get(sb, `${POSTS}&label=mention&brand=Acme`);
    expect(b.body.credits_used).toBe(28);
    expect(Object.keys((b.body.data.items as Row[])[1].post.computed!.labels)).toContain('mention');
  });

  it('Judgment parameters › label_evidence=1 with label adds computed.labels_evidence', async () => {
    sb = await fixtureSandbox({ timeScale: 0.001 });
    const r = await get(sb, `${POSTS}&label=quality&label_evidence=1`);
    expect((r.body.data.items as Row[])[1].post.computed!.labels_evidence.quality).toMatchObject({ sentence_index: 0 });
  });

  it('Judgment parameters (comments) › default comment families; spam exclude needs label=spam', async () => {
    sb = await fixtureSandbox({ timeScale: 0.001 });
    const r = await get(sb, '/v1/photo_net/post/comments?url=u');
    expect(Object.keys((r.body.data.items as Row[])[0].post.computed!.labels).sort()).toEqual([
      'complaint',
      'purchase_intent',
      'question',
      'sentiment',
    ]);
    expect((await get(sb, '/v1/photo_net/post/comments?url=u&exclude=spam')).status).toBe(400);
    const ok = await get(sb, '/v1/photo_net/post/comments?url=u&label=spam&exclude=spam');
    for (const it of ok.body.data.items as Row[]) if (it.post.computed!.labels) expect(it.post.computed!.labels.spam.p).toBeLessThan(0.8);
  });

  it('Judgment parameters › scan_pages reads N comment pages, bills each, returns them sorted and reports data.scan', async () => {
    sb = await fixtureSandbox({ timeScale: 0.001 });
    const r = await get(sb, '/v1/photo_net/post/comments?url=u&scan_pages=2');
    expect(r.body.data.items).toHaveLength(10);
    expect(r.body.credits_used).toBe(200);
    expect(r.body.data.scan).toEqual({ pages_read: 2, pages_billed: 2, thread_ended: false });
    const likes = (r.body.data.items as Array<{ post: { engagement: { likes: number } } }>).map((x) => x.post.engagement.likes);
    expect(likes).toEqual([...likes].sort((a, b) => b - a));
  });

  it('Judgment parameters (relevance) › search rows carry computed.relevance; relevance=filter drops rows below the threshold and lists them', async () => {
    sb = await fixtureSandbox({ timeScale: 0.001 });
    const S = '/v1/micro_net/search/tweets?query=coffee';
    const d = await get(sb, S);
    expect(d.body.data.relevance).toMatchObject({ origin: 'default' });
    const rows = d.body.data.items as Row[];
    expect(rows.every((x) => 'relevance' in x.post.computed!)).toBe(true);
    const f = await get(sb, `${S}&relevance=filter&relevance_threshold=0.5`);
    const kept = f.body.data.items as Row[];
    for (const k of kept) if (k.post.computed!.relevance) expect(k.post.computed!.relevance.p).toBeGreaterThanOrEqual(0.5);
    const expectDrop = rows.filter((x) => x.post.computed!.relevance && x.post.computed!.relevance.p < 0.5).map((x) => x.post.id);
    expect(f.body.data.relevance).toMatchObject({ origin: 'filter', dropped_ids: expectDrop });
    expect(f.body.credits_used).toBeGreaterThan(20); // relevance=filter waits for every row: metered
  });

  it('Forum network › switch_from fills data.switch_receipts at no extra credits', async () => {
    sb = await fixtureSandbox({ timeScale: 0.001 });
    const r = await get(sb, '/v1/forum_net/search/comments?query=x&switch_from=Acme');
    expect(r.body.credits_used).toBe(20);
    expect(r.body.data.switch_receipts.length).toBeGreaterThan(0);
    expect(r.body.data.switch_receipts[0]).toMatchObject({ reason: 'price', destination: 'Other' });
  });
});
