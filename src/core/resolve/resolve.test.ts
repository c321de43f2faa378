/**
 * The shared reading of lists (lines.ts) and of what a value names (refs.ts): generated lists in
 * the shapes analysts write them — BOM, CRLF, blank and # lines, CSVs with quoted cells — never
 * lose or invent a line; addresses in mixed forms name the same account or post.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { PLATFORMS } from '../../shared/api-types';
import { accountOf, platformOfHost, readAddress, readLines } from './index';

const OPTS = { columns: ['handle', 'url'], what: 'handle or url', perLine: 'one value per line' };
const value = fc.stringMatching(/^[a-z0-9_.@][a-z0-9_. @/:-]{0,20}$/).filter((s) => s.trim() !== '' && !s.trim().startsWith('#'));

describe('readLines', () => {
  it('one value a line: every value kept once with its line, whatever the line ends, BOM, blank and # lines', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(value, fc.constant(''), fc.constant('# note'), fc.constant('   ')), { maxLength: 40 }),
        fc.constantFrom('\n', '\r\n', '\r'),
        fc.boolean(),
        (lines, eol, bom) => {
          // a first value with a separator would make it a CSV: these lists have none
          const text = (bom ? '\uFEFF' : '') + lines.join(eol);
          const r = readLines(text, { ...OPTS, plainWithoutColumn: true });
          const kept = lines.map((t, i) => ({ line: i + 1, t })).filter((x) => x.t.trim() !== '' && !x.t.trim().startsWith('#'));
          expect(r.raw.map((x) => [x.line, x.value])).toEqual(kept.map((x) => [x.line, x.t.trim()]));
          expect(r.lines).toBe(kept.length);
          expect(r.raw.length + r.problems.length).toBe(r.lines);
        },
      ),
    );
  });

  it('a CSV: the picked column (any case), quoted cells with separators and line breaks, empty cells are problems', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string({ maxLength: 12 }), fc.oneof(fc.constant(''), fc.stringMatching(/^[a-z]{1,8}$/))), {
          minLength: 1,
          maxLength: 20,
        }),
        (rows) => {
          const q = (s: string) => `"${s.replace(/"/g, '""')}"`;
          const text = ['Name,Post URL', ...rows.map(([n, v]) => `${q(n)},${v}`)].join('\n');
          const r = readLines(text, { ...OPTS, column: 'post url' });
          expect(r.column).toBe('post url');
          // every record: a value, or a problem naming the empty cell — numbered by its first line
          expect(r.raw.map((x) => x.value)).toEqual(rows.filter(([, v]) => v !== '').map(([, v]) => v));
          expect(r.problems.every((p) => p.reason === 'no post url in this row')).toBe(true);
          expect(r.raw.length + r.problems.length).toBe(rows.length);
          expect(r.lines).toBe(rows.length + 1);
        },
      ),
    );
  });

  it('a picked column that is not there is said on every line; a one-column CSV header is read when asked', () => {
    const r = readLines('a,b\n1,2\n', { ...OPTS, column: 'url' });
    expect(r.raw).toEqual([]);
    expect(r.problems.map((p) => p.line)).toEqual([1, 2]);
    expect(r.problems[0].reason).toContain('no column named "url"');
    expect(readLines('URL\nhttps://x.example/a\n', { ...OPTS, singleColumnHeader: true })).toMatchObject({
      column: 'url',
      raw: [{ line: 2, value: 'https://x.example/a' }],
    });
    // queries may hold commas: plain lines when asked
    expect(readLines('running shoes, trail\nboots', { ...OPTS, plainWithoutColumn: true }).raw.map((x) => x.value)).toEqual([
      'running shoes, trail',
      'boots',
    ]);
  });
});

describe('what an address names', () => {
  const names = new Set(['handle']);
  const forms = (host: string, path: string) => [
    `https://${host}${path}`,
    `http://${host}${path}`,
    `https://www.${host}${path}/`,
    `${host}${path}`,
    `https://${host}${path}?utm_source=x#top`,
  ];

  it('mixed forms of one profile address are one account', () => {
    for (const [path, handle] of [
      ['/nasa', 'nasa'],
      ['/@nasa', 'nasa'],
      ['/user/nasa', 'nasa'],
      ['/in/nasa', 'nasa'],
      ['/profile/nasa', 'nasa'],
    ] as const)
      for (const f of forms('photo-net.example', path)) {
        const a = accountOf(f, names);
        expect(a, f).toMatchObject({ param: 'handle', account: handle, key: `@${handle}` });
      }
  });

  it("posts' addresses name the post (and the author where the address has one), never an account", () => {
    const cases: Array<[string, string, string | null]> = [
      ['https://photo-net.example/p/Cx1_aB/', 'Cx1_aB', null],
      ['https://photo-net.example/reel/Cx1/', 'Cx1', null],
      ['https://micro-net.example/nasa/status/1790000000000000001', '1790000000000000001', 'nasa'],
      ['https://short-video-net.example/@kari/video/7000000000000000001', '7000000000000000001', 'kari'],
      ['https://video-net.example/watch?v=abcDEF12345', 'abcDEF12345', null],
      ['https://video-net.example/shorts/abc', 'abc', null],
      ['https://forum-net.example/r/running/comments/1a2b3c/some_title/', '1a2b3c', null],
      ['https://work-net.example/feed/update/urn:li:activity:123/', 'urn:li:activity:123', null],
      ['https://social-net.example/brand/posts/99', '99', 'brand'],
      ['pin-net.example/pin/555/', '555', null],
    ];
    for (const [v, post, author] of cases) {
      const a = readAddress(v)!;
      expect(a, v).toMatchObject({ post, postAuthor: author, account: null });
      expect(accountOf(v, names), v).toHaveProperty('reason');
    }
  });

  it('the network is the platform a host label names; the longest name wins', () => {
    expect(platformOfHost('short-video-net-b.example', PLATFORMS)).toBe('short_video_net_b');
    expect(platformOfHost('www.micro-net.example', PLATFORMS)).toBe('micro_net');
    expect(platformOfHost('m.photonet.example', PLATFORMS)).toBe('photo_net');
    expect(platformOfHost('elsewhere.example', PLATFORMS)).toBeNull();
  });
});
