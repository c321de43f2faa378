/**
 * `--thread <post key>` (issue 27 #12): `loupe library` (and every command with the query flags)
 * reads the comments and replies under a post; the key is printed by `loupe library` itself; a bad
 * key or an unknown network is a usage error (exit 2).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openArchive } from '../core/archive';
import { post } from '../core/archive/test-fixtures';
import { buildLibraryQuery } from './query-flags';
import { runCaptured } from './run-captured';

let h: string;
beforeAll(() => {
  h = mkdtempSync(join(tmpdir(), 'loupe-cli-thread-'));
  const a = openArchive(join(h, 'loupe.db'));
  const recs = [
    post({ id: '9001', text: 'the post', published_at: '2024-05-01T00:00:00Z' }),
    post({ id: '9002', kind: 'comment', parent_id: '9001', text: 'first comment', published_at: '2024-05-02T00:00:00Z' }),
    post({ id: '9003', kind: 'reply', parent_id: '9002', text: 'a reply', published_at: '2024-05-03T00:00:00Z' }),
    post({ id: '9004', kind: 'comment', parent_id: '7777', text: 'elsewhere', published_at: '2024-05-04T00:00:00Z' }),
  ];
  a.ingestItems(
    recs.map((record) => ({ platform: 'photo_net', kind: record.parent_id ? 'comment' : 'post', record })),
    { callId: 'seed', source: 'seed' },
  );
  a.close();
});
afterAll(() => rmSync(h, { recursive: true, force: true }));

describe('--thread', () => {
  it('parses a post key as loupe library prints it', () => {
    expect(buildLibraryQuery({ thread: 'photo_net/post/3141592653589793238' }).thread).toEqual({
      platform: 'photo_net',
      id: '3141592653589793238',
    });
    expect(buildLibraryQuery({ thread: 'forum_net/abc' }).thread).toEqual({ platform: 'forum_net', id: 'abc' });
    expect(() => buildLibraryQuery({ thread: 'photo_net' })).toThrow(/--thread takes a post's key/);
  });

  it('loupe library --thread lists the comments and replies under the post; export reads the same rows', async () => {
    const env = { LOUPE_HOME: h };
    // the key as the plain listing prints the post
    const all = await runCaptured(['library'], env);
    const key =
      all.out
        .split('\n')
        .find((l) => l.includes('the post'))
        ?.split(' ')[0] ?? '';
    expect(key).toBe('photo_net/post/9001');
    const r = await runCaptured(['library', '--thread', key, '--sort', 'published_at:asc', '--jsonl'], env);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain('2 matching item(s)');
    expect(
      r.out
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { id: string }).id),
    ).toEqual(['9002', '9003']);
    const out = join(h, 'thread.jsonl');
    const e = await runCaptured(['export', '--thread', key, '--format', 'jsonl', '--out', out], env);
    expect(e.code, e.err).toBe(0);
    expect(
      readFileSync(out, 'utf8')
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { id: string }).id)
        .sort(),
    ).toEqual(['9002', '9003']);
    const typo = await runCaptured(['library', '--thread', 'photo_nett/post/9001'], env);
    expect(typo.code).toBe(2);
    expect(typo.err).toContain('photo_nett');
  });
});
