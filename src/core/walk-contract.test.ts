/**
 * Issue 24 through the contract the app and the web host use. #3: a walk's and a call's rows
 * without an id of their own are counted (`unreadable`) and said in the walk's notes, for the UI.
 * #4: a walk whose saved position the service rejected stops before re-buying held pages
 * (`restart_costs`, `rewalkAt`) until `walks.resume { payRestart: true }`.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallResult, WalkInfo } from '../shared/contract';
import { startTestApp, type TestApp } from './test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ seed: 3, balance: 1_000_000, freeCalls: 0 }, 'loupe-unreadable-');
});
afterAll(async () => {
  await t?.close();
});

const envelope = (endpoint: string, data: Record<string, unknown>, pagination?: Record<string, unknown>) => ({
  success: true,
  platform: 'photo_net',
  endpoint: `/v1/photo_net/${endpoint}`,
  schema_version: '2',
  unavailable: [],
  credits_used: 0,
  credits_remaining: 1_000_000,
  request_id: 'req_scripted',
  cached: false,
  idempotent_replay: false,
  charge_reason: 'miss',
  free_call: false,
  data,
  ...(pagination ? { pagination } : {}),
});
const post = (id: string | null, text: string) => ({
  ...(id ? { id } : {}),
  author: { id: '4242' },
  content: { text },
  engagement: { likes: 1 },
  published_at: '2026-01-05T12:00:00Z',
});

describe('rows without an id of their own, through the contract', () => {
  it('walks.* report them (count and note); api.call counts a single record without one', async () => {
    t.sb.admin.queueFaults([
      {
        kind: 'status',
        status: 200,
        match: 'profile/posts',
        body: envelope(
          'profile/posts',
          { items: [{ post: post('5001', 'a') }, { post: post(null, 'b') }, { post: post(null, 'c') }] },
          { next_cursor: null, has_more: false, page_size: 3 },
        ),
      },
      { kind: 'status', status: 200, match: 'photo_net/post', body: envelope('post', { post: post(null, 'd') }) },
    ]);
    const started = await t.call<WalkInfo>('walks.start', {
      target: { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'unreadable' } },
      source: 'test',
      maxPages: 1,
    });
    const w = await t.settled(started.walkId);
    expect(w.unreadable).toBe(2);
    expect(w.notes?.join(' ')).toMatch(/2 row\(s\) could not be read as records/);
    const c = await t.call<CallResult>('api.call', {
      target: { platform: 'photo_net', endpoint: 'post', params: { url: 'https://photo.example/p/d' } },
      source: 'test',
    });
    expect(c.unreadable).toBe(1);
    expect(await t.call<number>('library.count', {})).toBe(1);
  });
});

describe('a rejected saved position, through the contract', () => {
  it('walks.resume stops before re-buying held pages and says so; with payRestart it re-reads them and fetches the pages asked', async () => {
    // no cache window from the start (the app reads the catalogue once): every re-read costs
    const t = await startTestApp({ seed: 3, balance: 1_000_000, freeCalls: 0, variants: ['no-cache-window'] }, 'loupe-restart-');
    try {
      const target = { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'contract_restart' } };
      const w0 = await t.settled((await t.call<WalkInfo>('walks.start', { target, source: 'test', maxPages: 2 })).walkId);
      expect(w0).toMatchObject({ status: 'paused', pagesDone: 2 });
      const db = new Database(join(t.dir, 'loupe.db'));
      db.prepare("UPDATE walks SET cursor = cursor || 'x' WHERE walk_id = ?").run(w0.walkId);
      db.close();
      const spent = () => t.sb.admin.charges().reduce((s, c) => s + c.credits_used, 0);
      const before = spent();
      await t.call<WalkInfo>('walks.resume', { walkId: w0.walkId, maxPages: 1 });
      const asked = await t.settled(w0.walkId);
      expect(asked).toMatchObject({ status: 'paused', stopReason: 'restart_costs', pagesDone: 2, rewalkAt: 0 });
      expect(asked.notes?.join(' ')).toMatch(/re-reads 2 page\(s\) this walk already holds/);
      expect(spent()).toBe(before);
      await t.call<WalkInfo>('walks.resume', { walkId: w0.walkId, maxPages: 1, payRestart: true });
      const done = await t.settled(w0.walkId);
      expect(done).toMatchObject({ status: 'paused', stopReason: 'page_limit', pagesDone: 3, rewalkAt: null });
      expect(t.sb.admin.charges().filter((c) => c.credits_used > 0).length).toBe(2 + 3);
    } finally {
      await t.close();
    }
  });
});
