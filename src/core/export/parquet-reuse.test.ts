import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../shared/random';
import type { ExportRow } from '../ports';
import { GroupEncoder, parquetLayout, type EncodedGroup } from './parquet-group';
import { SpareBuffers } from './spare-buffers';

// A worker encodes group after group with one encoder (its buffers reused, issue 30): a group
// must come out byte for byte as from a fresh encoder, whatever the group before it held
// (values where this one has nulls, a dictionary where this one goes PLAIN, longer pages).

function rowsOf(seed: number, n: number): ExportRow[] {
  const r = mulberry32(seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)];
  const maybe = <T>(v: T): T | null => (r() < 0.3 ? null : v);
  const words = r() < 0.5 ? ['a', 'b', 'c'] : Array.from({ length: 5000 }, (_, i) => `w${i}`);
  const long = r() < 0.3 ? 'x'.repeat(Math.floor(r() * 4000)) : '';
  return Array.from({ length: n }, (_, i) => {
    const id = String(1e18 + Math.floor(r() * 1e9));
    return {
      platform: pick(['photo_net', 'micro_net']),
      kind: 'post',
      id,
      record: {
        id,
        url: maybe(`https://x/${i}`),
        language: maybe(pick(words)),
        published_at: maybe(pick(['2024-05-01T12:00:00Z', '2024-05-01', 'not a date', 1714564800000])),
        content: { text: maybe(`${pick(words)} ${long} ${i}`), duration_seconds: maybe(r() * 100), media_urls: maybe([`u${i}`]) },
        author: { id: maybe(String(i)), verified: maybe(r() < 0.5), followers: maybe(Math.floor(r() * 1e6)) },
        engagement: { views: maybe(Math.floor(r() * 1e9)), likes: maybe(pick([0, 1, 'many'])) },
        flags: { nsfw: maybe(r() < 0.5), deleted: maybe(false) },
        computed: { labels: { intent: { label: maybe(pick(words)), confidence: maybe(r()), urgency: maybe(pick([0, 1, 2, 3, 1.5])) } } },
      },
      firstSeenAt: 1.7e12 + i,
      lastSeenAt: 1.7e12 + i + 1,
      tags: r() < 0.2 ? [pick(words)] : [],
      note: maybe(pick(words)),
      overrides: {},
    };
  });
}

const plain = (g: EncodedGroup): unknown =>
  JSON.parse(
    JSON.stringify({ ...g, bytes: Buffer.from(g.bytes).toString('base64') }, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)),
  );

function encode(enc: GroupEncoder, rows: ExportRow[]): EncodedGroup {
  for (const row of rows) enc.add(row);
  return enc.finish();
}

describe('GroupEncoder reused from group to group', () => {
  it('encodes each group as a fresh encoder does, over generated groups', () => {
    const layout = parquetLayout();
    for (let seed = 1; seed <= 12; seed++) {
      const reused = new GroupEncoder(layout, 100);
      const sizes = [1 + ((seed * 37) % 700), 1 + ((seed * 91) % 300), 1 + ((seed * 13) % 900)];
      sizes.forEach((n, k) => {
        const rows = rowsOf(seed * 10 + k, n);
        expect(plain(encode(reused, rows)), `seed ${seed}, group ${k}`).toEqual(plain(encode(new GroupEncoder(layout, n), rows)));
      });
    }
  });

  it('a group abandoned half way (a row gone, an error) leaves nothing behind after reset', () => {
    const layout = parquetLayout();
    const enc = new GroupEncoder(layout, 10);
    for (const row of rowsOf(5, 333)) enc.add(row);
    enc.reset();
    const rows = rowsOf(6, 50);
    expect(plain(encode(enc, rows))).toEqual(plain(encode(new GroupEncoder(layout, 10), rows)));
  });

  it('a group written into an earlier group buffer given back (its bytes still there) is the same bytes', () => {
    const layout = parquetLayout();
    const enc = new GroupEncoder(layout, 100);
    const spare = new SpareBuffers(2);
    const given = new Set<ArrayBuffer>();
    for (let seed = 1; seed <= 8; seed++) {
      const rows = rowsOf(seed, 1 + ((seed * 53) % 400));
      const fresh = plain(encode(new GroupEncoder(layout, rows.length), rows));
      // twice: the second fits the first's buffer (the same size), whatever the spares held before
      for (let k = 0; k < 2; k++) {
        for (const row of rows) enc.add(row);
        const group = enc.finish(spare);
        const buffer = group.bytes.buffer as ArrayBuffer;
        expect(plain(group), `seed ${seed}, time ${k}`).toEqual(fresh);
        if (k === 1) expect(given.has(buffer), `seed ${seed}: a spare reused`).toBe(true);
        given.add(buffer);
        spare.give(buffer);
      }
    }
  });
});
