/**
 * Issue 24 #3 on the command line: rows without an id of their own (scripted answers from the
 * sandbox's fault queue) are said on stderr, kept raw, and never archived under their author's id.
 */
import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../sandbox';
import { runCaptured } from './run-captured';

const open: SandboxHandle[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

const envelope = (endpoint: string, data: Record<string, unknown>, pagination?: Record<string, unknown>) => ({
  success: true, platform: 'photo_net', endpoint: `/v1/photo_net/${endpoint}`, schema_version: '2', unavailable: [], credits_used: 0, credits_remaining: 1_000_000,
  request_id: 'req_scripted', cached: false, idempotent_replay: false, charge_reason: 'miss', free_call: false, data, ...(pagination ? { pagination } : {}),
});
const post = (id: string | null, text: string) => ({
  post: { ...(id ? { id } : {}), author: { id: '4242', username: 'same_author' }, content: { text }, engagement: { likes: 1 }, published_at: '2026-01-05T12:00:00Z', flags: { pinned: false, deleted: false } },
});

describe('loupe call with rows that have no id of their own', () => {
  it('says how many were kept raw and archives none of them under the author', async () => {
    const sb = await startSandbox({ port: 0, seed: 21, balance: 1_000_000, freeCalls: 0 });
    open.push(sb);
    const home = mkdtempSync(join(tmpdir(), 'loupe-unreadable-'));
    const env = { LOUPE_HOME: home, LOUPE_BASE_URL: sb.url, LOUPE_API_KEY: sb.key };
    sb.admin.queueFaults([
      {
        kind: 'status',
        status: 200,
        match: 'profile/posts',
        body: envelope('profile/posts', { items: [post('1001', 'has an id'), post(null, 'first without'), post(null, 'second without')], total: 3, truncated: false, ext: {} }, { next_cursor: null, has_more: false, page_size: 3 }),
      },
      { kind: 'status', status: 200, match: 'photo_net/post', body: envelope('post', { post: post(null, 'single without').post }) },
    ]);
    const walk = await runCaptured(['call', 'photo_net/profile/posts', '-p', 'handle=someone', '--yes'], env);
    expect(walk.code).toBe(0);
    expect(walk.err).toMatch(/2 item\(s\) could not be read as records \(no id of their own\); they are kept raw/);
    const single = await runCaptured(['call', 'photo_net/post', '-p', 'url=https://photo.example/p/abc', '--yes'], env);
    expect(single.code).toBe(0);
    expect(single.err).toMatch(/1 record\(s\) of the answer have no id of their own/);
    const db = new Database(join(home, 'loupe.db'), { readonly: true });
    try {
      const rows = db.prepare("SELECT id FROM items WHERE platform = 'photo_net'").all() as Array<{ id: string }>;
      expect(rows.map((r) => r.id)).toEqual(['1001']);
      const raw = (db.prepare('SELECT group_concat(envelope) AS e FROM responses').get() as { e: string }).e;
      for (const t of ['first without', 'second without', 'single without']) expect(raw).toContain(t);
    } finally {
      db.close();
    }
  });
});
