/**
 * The request core, walks, watches, the archive and exports against every reading of the spec the
 * sandbox can serve (its spec variants, docs/sandbox.md). Each reading must give the same rows,
 * archived once, with the ledger equal to what the service charged.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SPEC_VARIANTS, startSandbox, type SandboxHandle } from '../sandbox';
import { libraryQuerySchema } from '../shared/query';
import { createApiCore, scaledClock, type ApiCore } from './api';
import { openArchive, type Archive } from './archive';
import { exportRows } from './export';
import { createWatchService } from './watch';
import { testDb } from './archive/testing';

const TIME_SCALE = 600;
/** one world for every sandbox of a comparison (the default epoch is the minute each one starts) */
const EPOCH = Date.UTC(2026, 0, 5, 12, 0);
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface Env {
  sb: SandboxHandle;
  api: ApiCore;
  archive: Archive;
  dir: string;
  close(): Promise<void>;
}

async function env(variants: string[]): Promise<Env> {
  const sb = await startSandbox({ port: 0, seed: 11, balance: 10_000_000, freeCalls: 0, timeScale: TIME_SCALE, variants, epoch: EPOCH });
  sb.admin.advance(86_400 * 200);
  const clock = scaledClock(() => sb.admin.now(), TIME_SCALE);
  const dir = mkdtempSync(join(tmpdir(), 'loupe-variants-'));
  dirs.push(dir);
  const archive = openArchive(join(dir, 'archive.sqlite'), { clock: () => clock.now() });
  const api = createApiCore({ baseUrl: sb.url, getKey: () => sb.key, store: archive, clock, maxRetries: 6 });
  return {
    sb,
    api,
    archive,
    dir,
    async close() {
      await api.close();
      archive.close();
      await sb.close();
    },
  };
}

const ids = (a: Archive): string[] =>
  (testDb(a).prepare("SELECT platform || ':' || id AS k FROM items ORDER BY 1").all() as Array<{ k: string }>).map((r) => r.k);
const charged = (sb: SandboxHandle) => sb.admin.charges().reduce((s, c) => s + c.credits_used, 0);
const ledger = (a: Archive) => a.listLedger({ limit: 10_000 }).reduce((s, l) => s + l.creditsUsed, 0);

const FEED = { platform: 'micro_net', endpoint: 'user/tweets', params: { handle: 'variant_feed' } };
const NATIVE = { platform: 'video_net', endpoint: 'channel/videos', params: { handle: 'variant_channel' } };
/** a photo post with a long comment thread, found in the default world (the same world in every reading) */
let COMMENTS = { platform: 'photo_net', endpoint: 'post/comments', params: { url: '' } };
const WATCHES = [
  { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'variant_watch' } },
  { platform: 'video_net', endpoint: 'channel/videos', params: { handle: 'variant_watch' } },
];

/** What every reading must produce: the default reading, no faults. */
let baseline: { feed: string[]; native: string[]; comments: number };

beforeAll(async () => {
  const e = await env([]);
  try {
    await e.api.walk(FEED, { maxPages: 5 });
    const feed = ids(e.archive);
    await e.api.walk(NATIVE, { maxPages: 4 });
    const native = ids(e.archive).filter((k) => k.startsWith('video_net:'));
    const pages: Array<{ url: string; comments: number }> = [];
    await e.api.walk(
      { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'natgeo' } },
      {
        maxPages: 15,
        onPage: (p) => {
          for (const it of (p.result.envelope.data as { items: Array<{ post: { url: string; engagement: { comments: number | null } } }> })
            .items)
            pages.push({ url: it.post.url, comments: it.post.engagement.comments ?? 0 });
        },
      },
    );
    const busy = pages.sort((a, b) => b.comments - a.comments)[0];
    expect(busy.comments).toBeGreaterThan(0);
    COMMENTS = { ...COMMENTS, params: { url: busy.url } };
    const before = ids(e.archive).length;
    await e.api.walk(COMMENTS, { maxPages: 3 });
    const comments = ids(e.archive).length - before;
    baseline = { feed, native, comments };
  } finally {
    await e.close();
  }
});

describe.each(['(default)', ...SPEC_VARIANTS.map((v) => v.name)])('under the %s reading', (variant) => {
  const variants = variant === '(default)' ? [] : [variant];

  it('walks through a dropped body and a 503 with every row archived once and the ledger equal to the service', async () => {
    const e = await env(variants);
    try {
      e.sb.admin.queueFaults([
        { kind: 'drop', match: 'user/tweets' },
        { kind: 'status', status: 503, type: 'UPSTREAM_ERROR', retryAfter: 1, match: 'user/tweets' },
      ]);
      const r = await e.api.walk(FEED, { maxPages: 5 });
      expect(r.error?.message).toBeUndefined();
      expect(r.pagesDone).toBe(5);
      expect(r.unreadable).toBe(0);
      expect(ids(e.archive)).toEqual(baseline.feed);
      expect(ledger(e.archive)).toBe(charged(e.sb));
      expect(r.creditsSpent).toBe(charged(e.sb));
    } finally {
      await e.close();
    }
  });

  it('pages an endpoint with a native paging parameter without repeating or skipping a page', async () => {
    const e = await env(variants);
    try {
      const r = await e.api.walk(NATIVE, { maxPages: 4 });
      expect(r.status === 'paused' || r.status === 'done').toBe(true);
      expect(ids(e.archive)).toEqual(baseline.native);
      expect(ledger(e.archive)).toBe(charged(e.sb));
    } finally {
      await e.close();
    }
  });

  it('archives comment rows whatever their record key, judgments included', async () => {
    const e = await env(variants);
    try {
      // the service knows a post by its URL once its owner's feed was read (as a user would get the URL)
      await e.api.walk({ platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'natgeo' } }, { maxPages: 15 });
      const before = ids(e.archive).length;
      const r = await e.api.walk(COMMENTS, { maxPages: 3 });
      expect(r.unreadable).toBe(0);
      expect(r.itemsSeen).toBeGreaterThan(0);
      // every comment the walk saw is a row (sort=recent pages the thread without repeats), as many as the default reading gives
      expect(ids(e.archive).length - before).toBe(r.itemsSeen);
      expect(r.itemsSeen).toBe(baseline.comments);
      const labelled = testDb(e.archive).prepare("SELECT count(*) AS n FROM items WHERE labels IS NOT NULL AND labels != 'null'").get() as {
        n: number;
      };
      expect(labelled.n).toBeGreaterThan(0);
    } finally {
      await e.close();
    }
  });

  it('starts over without looping when a saved cursor is refused', async () => {
    const e = await env(variants);
    try {
      const first = await e.api.walk(FEED, { maxPages: 2 });
      expect(first.status).toBe('paused');
      const saved = e.archive.getWalk(first.walkId)!;
      e.archive.saveWalk({ ...saved, cursor: `${saved.cursor}x` }); // edited: the service must refuse it
      const r = await e.api.resumeWalk(first.walkId, { maxPages: 5 });
      expect(r.error?.message).toBeUndefined();
      expect(r.notes.join(' ')).toMatch(/started again from the first page/);
      const held = ids(e.archive);
      expect(held.length).toBeGreaterThan(0);
      expect(held.every((k) => baseline.feed.includes(k))).toBe(true);
      expect(ledger(e.archive)).toBe(charged(e.sb));
    } finally {
      await e.close();
    }
  });

  it('refreshes a watchlist twice and exports every archived row', async () => {
    const e = await env(variants);
    const watch = createWatchService({
      api: e.api,
      archive: e.archive,
      clock: scaledClock(() => e.sb.admin.now(), TIME_SCALE),
      emit: () => {},
      notify: () => {},
    });
    try {
      const l = await watch.create({ name: 'v', watches: WATCHES });
      const r1 = await watch.run(l.id, { approved: true });
      expect(r1.status).toBe('done');
      e.sb.admin.advance(86_400 * 3);
      const r2 = await watch.run(l.id, { approved: true });
      expect(r2.status).toBe('done');
      expect(r2.watches.every((w) => w.complete)).toBe(true);
      expect(ledger(e.archive)).toBe(charged(e.sb));
      const out = join(e.dir, 'all.jsonl');
      const res = await exportRows(e.archive.iterateExportRows(libraryQuerySchema.parse({})), { format: 'jsonl', out });
      const lines = readFileSync(out, 'utf8').trim().split('\n');
      expect(lines).toHaveLength(ids(e.archive).length);
      expect(res.rows).toBe(lines.length);
    } finally {
      await watch.close();
      await e.close();
    }
  });
});
