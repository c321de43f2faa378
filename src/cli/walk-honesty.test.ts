/**
 * Issue 24 on the command line. #3: rows without an id of their own (scripted answers from the
 * sandbox's fault queue) are said on stderr, kept raw, and never archived under their author's id.
 * #4: after the service rejected a walk's saved position, `loupe resume` stops before re-buying
 * the pages it held (exit 5, the cost, the way out) until `--pay-restart`.
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
  post: {
    ...(id ? { id } : {}),
    author: { id: '4242', username: 'same_author' },
    content: { text },
    engagement: { likes: 1 },
    published_at: '2026-01-05T12:00:00Z',
    flags: { pinned: false, deleted: false },
  },
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
        body: envelope(
          'profile/posts',
          {
            items: [post('1001', 'has an id'), post(null, 'first without'), post(null, 'second without')],
            total: 3,
            truncated: false,
            ext: {},
          },
          { next_cursor: null, has_more: false, page_size: 3 },
        ),
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

describe('loupe resume after the service rejected the saved position', () => {
  it('stops before re-buying held pages (exit 5, the cost, the way out), then --pay-restart re-reads them and fetches the pages asked', async () => {
    // no cache window (the sandbox's no-cache-window reading): re-reading a held page always costs
    const sb = await startSandbox({ port: 0, seed: 21, balance: 1_000_000, freeCalls: 0, variants: ['no-cache-window'] });
    open.push(sb);
    const home = mkdtempSync(join(tmpdir(), 'loupe-restart-'));
    const env = { LOUPE_HOME: home, LOUPE_BASE_URL: sb.url, LOUPE_API_KEY: sb.key };
    const first = await runCaptured(['call', 'photo_net/profile/posts', '-p', 'handle=grace', '--pages', '2', '--yes'], env);
    expect(first.code).toBe(0);
    const id =
      /loupe resume (\S+)/.exec(first.err)?.[1] ??
      (JSON.parse((await runCaptured(['walks', '--json'], env)).out) as Array<{ walkId: string }>)[0].walkId;
    // the saved position goes bad (edited: the service must refuse it)
    const db = new Database(join(home, 'loupe.db'));
    db.prepare("UPDATE walks SET cursor = cursor || 'x' WHERE walk_id = ?").run(id);
    db.close();
    const before = sb.admin.charges().filter((c) => c.credits_used > 0).length;
    const asked = await runCaptured(['resume', id, '--pages', '2', '--yes'], env);
    expect(asked.code).toBe(5);
    expect(asked.err).toMatch(/re-reads 2 page\(s\) this walk already holds .*credits/);
    expect(asked.err).toContain(`loupe resume ${id} --pay-restart`);
    expect(sb.admin.charges().filter((c) => c.credits_used > 0)).toHaveLength(before);
    const paid = await runCaptured(['resume', id, '--pages', '2', '--yes', '--pay-restart'], env);
    expect(paid.code).toBe(0);
    expect(paid.err).toMatch(/^4 page\(s\) in all/m);
    expect(sb.admin.charges().filter((c) => c.credits_used > 0)).toHaveLength(before + 4);
  });
});
